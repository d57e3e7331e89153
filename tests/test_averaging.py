"""Averaging schemes against references: the cumulative strategy after iterations 1..T is
S_T = sum_t w(t) * c_t with w(t) = 1 (uniform), t (linear), t^2 (quadratic),
max(t - d, 0) (delayed), and no average at all for ``current``."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solverkit.averaging import (
    CurrentStrategy,
    DelayedAveraging,
    LinearAveraging,
    QuadraticAveraging,
    UniformAveraging,
)
from solverkit.core.averaging import scaled_accumulate
from solverkit.core.layout import Layout, policy
from solverkit.core.params import spec_of
from solverkit.core.registry import get_registry
from solverkit.errors import ConfigError

WEIGHTS = {
    "uniform": lambda t, p: 1,
    "linear": lambda t, p: t,
    "quadratic": lambda t, p: t * t,
    "delayed": lambda t, p: max(t - p.get("delay", 100), 0),
    "current": lambda t, p: 0,
}


def make(name, **params):
    cls = get_registry().get("averaging", name)
    return cls(**spec_of(cls).resolve(params, f"[averaging] ({name})"))


scheme_cases = st.one_of(
    st.tuples(st.sampled_from(["uniform", "linear", "quadratic", "current"]), st.just({})),
    st.tuples(st.just("delayed"), st.fixed_dictionaries({"delay": st.integers(0, 12)})),
    st.tuples(st.just("delayed"), st.just({})),
)


@st.composite
def runs(draw):
    """A scheme, a multi-block layout, and T iterations of strategies (one distribution per
    information set) times non-negative reach."""
    name, params = draw(scheme_cases)
    blocks = draw(st.lists(st.tuples(st.integers(1, 3), st.integers(1, 4)), min_size=1, max_size=3))
    layout = Layout.from_blocks(blocks)
    T = draw(st.integers(1, 20))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    sigmas = []
    for _ in range(T):
        raw = rng.random(layout.size)
        sigma = policy(raw, layout)  # one distribution per information set
        reach = rng.random() if draw(st.booleans()) else 1.0
        sigmas.append(reach * sigma)
    return name, params, layout, sigmas


@settings(max_examples=80, deadline=None)
@given(runs())
def test_cumulative_strategy_matches_reference(case):
    name, params, layout, contribs = case
    scheme = make(name, **params)
    total = np.zeros(layout.size)
    want = [0.0] * layout.size
    for t, c in enumerate(contribs, start=1):
        scheme.update(total, c, t)
        w = float(WEIGHTS[name](t, params))
        want = [s + w * float(v) for s, v in zip(want, c)]
    np.testing.assert_allclose(total, want, rtol=1e-13, atol=0)


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 60), st.integers(0, 2**32 - 1))
def test_linear_average_formula(T, seed):
    """sigma_bar = 2 / (T^2 + T) * sum_t t * sigma^t (Tammelin et al. 2015)."""
    layout = Layout.from_blocks([(2, 3), (1, 2), (3, 1)])
    rng = np.random.default_rng(seed)
    scheme = make("linear")
    total = np.zeros(layout.size)
    weighted = np.zeros(layout.size)
    for t in range(1, T + 1):
        sigma = policy(rng.standard_normal(layout.size), layout)
        scheme.update(total, sigma, t)
        weighted += t * sigma
    np.testing.assert_allclose(policy(total, layout), 2.0 / (T * T + T) * weighted, rtol=1e-12, atol=1e-15)


def test_uniform_average_is_the_mean():
    layout = Layout.single(3)
    sigmas = [np.array([1.0, 0, 0]), np.array([0, 1.0, 0]), np.array([0, 0.5, 0.5]), np.array([0.2, 0.2, 0.6])]
    total = np.zeros(3)
    for t, s in enumerate(sigmas, start=1):
        make("uniform").update(total, s, t)
    np.testing.assert_allclose(policy(total, layout), np.mean(sigmas, axis=0), rtol=1e-15)


def test_delayed_average_skips_the_first_d_iterations():
    scheme = make("delayed", delay=3)
    assert [scheme.coefficients(t)[1] for t in range(1, 7)] == [0.0, 0.0, 0.0, 1.0, 2.0, 3.0]
    total = np.zeros(2)
    for t in range(1, 4):
        scheme.update(total, np.array([1.0, 0.0]), t)
    np.testing.assert_array_equal(total, [0.0, 0.0])  # nothing yet
    np.testing.assert_array_equal(policy(total, Layout.single(2)), [0.5, 0.5])  # uniform until then
    assert make("delayed").config == {"delay": 100}  # the HULHE choice of the CFR+ paper


def test_quadratic_weights():
    assert [make("quadratic").coefficients(t) for t in (1, 2, 3, 10)] == [(1.0, 1.0), (1.0, 4.0), (1.0, 9.0), (1.0, 100.0)]


def test_current_keeps_no_average():
    scheme = make("current")
    assert scheme.keeps_average is False
    total = np.array([1.0, 2.0])
    scheme.update(total, np.array([5.0, 5.0]), 7)
    np.testing.assert_array_equal(total, [1.0, 2.0])
    for cls in (UniformAveraging, LinearAveraging, QuadraticAveraging, DelayedAveraging):
        assert cls.keeps_average is True


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.floats(-1e6, 1e6), st.floats(-1e6, 1e6)), min_size=1, max_size=10),
    st.sampled_from([1.0, 0.5, 0.0, 0.999]),
    st.floats(0.0, 1e3),
)
def test_scaled_accumulate_kernel(pairs, decay, weight):
    """total = total * decay + weight * contrib (decay != 1 is there for discounting schemes)."""
    total = np.array([p[0] for p in pairs])
    contrib = np.array([p[1] for p in pairs])
    want = [a * decay + weight * c if decay != 1.0 else a + weight * c for a, c in pairs]
    scaled_accumulate(total, contrib, decay, weight)
    np.testing.assert_array_equal(total, want)


def test_registry_has_the_five_schemes():
    reg = get_registry()
    assert reg.get("averaging", "current") is CurrentStrategy
    assert {"uniform", "linear", "quadratic", "delayed", "current"} <= set(reg.names("averaging"))


@pytest.mark.parametrize("delay", [-1, 1.5, "x", True])
def test_delayed_rejects_bad_delay(delay):
    from solverkit.errors import ConfigError

    with pytest.raises(ConfigError, match=r"\[averaging\] \(delayed\) delay = .* is invalid"):
        make("delayed", delay=delay)


def test_a_delay_past_the_iteration_cap_is_refused():
    """delay >= iterations left every iteration out: the output was the uniform strategy, reported
    as the solve's (Kuhn 0.458 chips) without a word."""
    import solverkit
    from solverkit.errors import ConfigError

    config = {"game": "kuhn", "preset": "cfr_plus", "averaging": {"name": "delayed", "delay": 20}}
    with pytest.raises(ConfigError, match=r"delay = 20\) gives no weight to any of the 20 iterations"):
        solverkit.solve(config, iterations=20)
    assert solverkit.solve(config, iterations=21).exploitability < 0.458


def test_a_run_stopped_before_its_delayed_average_began_says_so(capsys):
    """A time limit (or target) that ends the run before the delay: the output is the uniform
    strategy, and the run says so instead of reporting it as the solve's."""
    import solverkit

    config = {"game": "kuhn", "preset": "cfr_plus", "averaging": {"name": "delayed", "delay": 500},
              "solver": {"time_limit": 1e-9}}
    sol = solverkit.solve(config, iterations=1000)
    assert sol.iterations < 500
    assert "before [averaging] (delayed) gave any iteration a weight: its output is the uniform strategy" \
        in capsys.readouterr().err


def test_power_restart_forgets_the_average_at_powers_of_the_base():
    scheme = make("power", gamma=3.0, restart=4)
    decays = [scheme.coefficients(t)[0] for t in range(1, 20)]
    assert [t for t, d in enumerate(decays, 1) if d == 0.0] == [1, 4, 16]
    # after the restart at 16, iteration 18 counts as the third: decay (2/3)^3
    assert decays[17] == (2.0 / 3.0) ** 3
    # S_T = sum over t since the last restart of (t - 15)^3 c_t / (T - 15)^3 (the decay form's weights)
    total, contribs = np.zeros(1), np.arange(1.0, 21.0)
    for t, c in enumerate(contribs, 1):
        scheme.update(total, np.array([c]), t)
    u = np.arange(1.0, 6.0)
    np.testing.assert_allclose(total, [(u**3 * contribs[15:]).sum() / 5.0**3])
    assert make("power").coefficients(16)[0] == (15 / 16) ** 2  # no restart by default
    with pytest.raises(ConfigError, match="restart = 1"):
        make("power", restart=1)
