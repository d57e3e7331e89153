"""Hyperparameter-scheduled rules (HS-DCFR, HS on DCFR+, the HS average; Zhang, McAleer and
Sandholm 2024) and SAPCFR+ (Meng et al. 2025).

The schedules, written out here from the papers (p = t / T over a horizon of T iterations):
  HS-DCFR:  alpha = 1 + 3p, beta = -1 - 2p; after adding r, positive regrets times
            t^alpha / (t^alpha + 1), the others times t^beta / (t^beta + 1)
  average:  S = S * ((t-1)/t)^gamma + contribution, gamma = 30 - 5p at p = (t-1)/T
  SAPCFR+:  R = max(R + r, 0); the next policy plays [R + r / 3]^+
"""

import math

import numpy as np
import pytest

from solverkit.core.config import load_config
from solverkit.core.params import spec_of
from solverkit.core.registry import get_registry
from solverkit.core.solver import run_solve
from solverkit.errors import ConfigError


def make(kind, name, **params):
    """A plugin built the way a config builds it: registry look-up plus parameter checks."""
    cls = get_registry().get(kind, name)
    return cls(**spec_of(cls).resolve(params, f"[{kind}] ({name})"))


def frac(t, e):
    """t^e / (t^e + 1), written out."""
    return t**e / (t**e + 1)


@pytest.mark.parametrize("t", [1, 2, 7, 250, 500, 999, 1000, 1500])
def test_hs_dcfr_coefficients_follow_the_schedule(t):
    rule = make("rule", "hs_dcfr", horizon=1000)
    p = min(t / 1000, 1.0)
    pos, neg, floor = rule.coefficients(t)
    assert pos == pytest.approx(frac(t, 1 + 3 * p), rel=1e-12)
    assert neg == pytest.approx(frac(t, -1 - 2 * p), rel=1e-12)
    assert floor == -math.inf
    assert rule.kernel_coefficients(t)[0] == 1.0  # nothing before adding: DCFR's order


def test_hs_dcfr_end_values_hold_past_the_horizon():
    rule = make("rule", "hs_dcfr", horizon=100)
    assert rule.exponents(100) == (4.0, -3.0) == rule.exponents(10**6)
    assert rule.exponents(0) == (1.0, -1.0)


@pytest.mark.parametrize("t", [1, 2, 3, 400, 1000, 1001])
def test_hs_dcfr_plus_discounts_old_regrets_with_the_alpha_of_their_iteration(t):
    rule = make("rule", "hs_dcfr_plus", horizon=1000)
    alpha = 1 + 3 * min((t - 1) / 1000, 1.0)
    pre, pos, neg, floor = rule.kernel_coefficients(t)
    assert pre == pytest.approx(frac(t - 1, alpha) if t > 1 else 0.0, rel=1e-12)
    assert (pos, neg, floor) == (1.0, 1.0, 0.0)


@pytest.mark.parametrize("t", [2, 3, 10, 501, 1000, 1001, 3000])
def test_scheduled_average_decays_by_the_moving_gamma(t):
    avg = make("averaging", "scheduled_power", horizon=1000)
    gamma = 30 - 5 * min((t - 1) / 1000, 1.0)
    decay, weight = avg.coefficients(t)
    assert decay == pytest.approx(((t - 1) / t) ** gamma, rel=1e-12)
    assert weight == 1.0
    assert avg.coefficients(1) == (0.0, 1.0)  # nothing to keep before the first iteration


def test_scheduled_average_weights_are_the_product_of_the_decays():
    """The average after T iterations weighs iteration s by the product of the later decays:
    with gamma constant it is DCFR's t^gamma (up to a common factor)."""
    avg = make("averaging", "scheduled_power", horizon=50, gamma_start=2.0, gamma_end=2.0)
    total = np.zeros(5)
    contrib = np.eye(5)
    for t in range(1, 6):
        avg.update(total, contrib[t - 1].copy(), t)
    expected = np.array([s**2 for s in range(1, 6)], dtype=float) / 25.0
    np.testing.assert_allclose(total, expected, rtol=1e-12)


def test_sapcfr_plus_update_by_hand():
    rule = make("rule", "sapcfr_plus")
    regret = np.array([2.0, 0.0, 5.0])
    delta = np.array([-3.0, 1.5, 0.6])
    pred = np.zeros(3)
    rule.update(regret, delta, 4, {"pred": pred})
    np.testing.assert_allclose(regret, [0.0, 1.5, 5.6])
    np.testing.assert_allclose(pred, [-1.0, 0.5, 0.2])
    blocks = (np.array([0]), np.array([1]), np.array([3]))
    policy = rule.policy_of(regret, {"pred": pred}, blocks)
    src = np.maximum(np.array([0.0 - 1.0, 1.5 + 0.5, 5.6 + 0.2]), 0)  # [R + r/3]^+
    np.testing.assert_allclose(policy, src / src.sum())


def test_sapcfr_plus_alpha_zero_is_pcfr_plus():
    rule = make("rule", "sapcfr_plus", alpha=0.0)
    regret, pred = np.array([1.0, -0.0]), np.zeros(2)
    rule.update(regret, np.array([0.5, -2.0]), 1, {"pred": pred})
    np.testing.assert_allclose(pred, [0.5, -2.0])


def _final(preset, game, iterations, **sections):
    cfg = {"preset": preset, "game": game, "solver": {"iterations": iterations, "eval_every": iterations}}
    cfg.update(sections)
    return run_solve(load_config(cfg), iterations=iterations).metrics[-1]["exploitability"]


def test_horizon_zero_becomes_the_runs_iterations():
    asm = load_config({"preset": "hs_dcfr", "game": "kuhn", "solver": {"iterations": 321}})
    assert asm.rule.config["horizon"] == asm.averaging.config["horizon"] == 321
    assert asm.resolved["rule"]["horizon"] == asm.resolved["averaging"]["horizon"] == 321
    asm = load_config({"preset": "hs_pcfr_plus", "game": "kuhn", "solver": {"iterations": 50},
                       "averaging": {"horizon": 1000}})
    assert asm.averaging.config["horizon"] == 1000  # a horizon given is kept
    with pytest.raises(ConfigError, match="horizon = 0"):
        get_registry().get("averaging", "scheduled_power")(horizon=0, gamma_start=30.0, gamma_end=25.0).coefficients(2)


def test_hs_pcfr_plus_on_kuhn_goes_where_pcfr_plus_and_cfr_plus_do_not():
    """Kuhn, 200 iterations with the schedule over those 200: HS-PCFR+ reaches 1e-10, which
    neither PCFR+ (2e-6) nor CFR+ (4e-4) comes near (the paper's orders of magnitude)."""
    hs = _final("hs_pcfr_plus", "kuhn", 200)
    assert hs < 1e-10
    assert _final("pcfr_plus", "kuhn", 200) > 1e-7
    assert _final("cfr_plus", "kuhn", 200) > 1e-5


def test_scheduled_rules_converge_on_kuhn():
    """Exploitability falls between 50 and 300 iterations (schedules over those 300). The HS
    average keeps about the last t / gamma iterations, so HS-DCFR's curve on Kuhn is not
    monotone (0.019 at 50, 0.0045 at 250, 0.0059 at 300)."""
    for preset, bound in (("hs_dcfr", 1e-2), ("hs_dcfr_plus", 1e-2), ("sapcfr_plus", 1e-6)):
        cfg = {"preset": preset, "game": "kuhn", "solver": {"iterations": 300, "eval_every": 50}}
        rows = {m["iteration"]: m["exploitability"] for m in run_solve(load_config(cfg)).metrics}
        assert rows[300] < rows[50] / 2 and rows[300] < bound, (preset, rows)


@pytest.mark.parametrize("section, name, key, value", [
    ("rule", "hs_dcfr", "horizon", -1),
    ("rule", "hs_dcfr", "alpha_end", -1.0),
    ("rule", "hs_dcfr_plus", "alpha_start", 101.0),
    ("averaging", "scheduled_power", "gamma_start", -2.0),
    ("averaging", "scheduled_power", "horizon", -5),
    ("rule", "sapcfr_plus", "alpha", -0.5),
])
def test_bad_parameters_are_refused_in_one_line(section, name, key, value):
    with pytest.raises(ConfigError) as err:
        load_config({"game": "kuhn", "rule": {"name": "rm_plus"}, "averaging": {"name": "linear"},
                     section: {"name": name, key: value}})
    msg = str(err.value)
    assert "\n" not in msg and f"{key} = {value!r}" in msg and name in msg
