"""APCFR+ and APDCFR+ (solverkit/rules_adaptive.py; Meng et al. 2025): a learned damping
1 / (1 + alpha_I) of PCFR+'s prediction per information set.

The rule, written out here from the module's statement (not from its code):
  after iteration t:  E_I += ||r_I - m_I||^2 (m = the last r, 0 at first),
                      R_I = max(d(t) R_I + r_I, 0),  S_I += ||R_I(new) - R_I(old)||^2
  next policy:        regret matching of d(t+1) R_I + r_I / (1 + alpha_I),
                      alpha_I = clip(sqrt(E_I / S_I), alpha_min, alpha_max)
                      (alpha_init when E_I = S_I = 0, alpha_max when only S_I = 0)
with d = 1 for APCFR+ and d(t) = (t-1)^a / ((t-1)^a + 1) for APDCFR+.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from solverkit.core.config import load_config
from solverkit.core.params import spec_of
from solverkit.core.passes import blocks_of
from solverkit.core.registry import get_registry
from solverkit.core.solver import Solver, run_solve
from solverkit.errors import ConfigError

from .resume_runs import assert_resumed_is_straight
from .store_values import stored_arrays

pyspiel = pytest.importorskip("pyspiel")


def make(name, **params):
    cls = get_registry().get("rule", name)
    return cls(**spec_of(cls).resolve(params, f"[rule] ({name})"))


def disc(t, a):
    return 0.0 if t <= 0 else t**a / (t**a + 1.0)


class Reference:
    """APCFR+ / APDCFR+ at one information set, in plain Python floats."""

    def __init__(self, n, a=None, lo=0.0, hi=5.0, init=2.0):
        self.R, self.last, self.E, self.S = [0.0] * n, [0.0] * n, 0.0, 0.0
        self.a, self.lo, self.hi, self.init = a, lo, hi, init
        self.t = 0

    def d(self, t):
        return 1.0 if self.a is None else disc(t - 1, self.a)

    def update(self, r, t):
        self.E += sum((x - m) ** 2 for x, m in zip(r, self.last))
        new = [max(self.d(t) * q + x, 0.0) for q, x in zip(self.R, r)]
        self.S += sum((x - q) ** 2 for x, q in zip(new, self.R))
        self.R, self.last, self.t = new, list(r), t

    def alpha(self):
        if self.S > 0:
            al = math.sqrt(self.E / self.S)
        else:
            al = self.hi if self.E > 0 else self.init
        return min(max(al, self.lo), self.hi)

    def policy(self):
        w = 1.0 / (1.0 + self.alpha())
        src = [max(self.d(self.t + 1) * q + w * x, 0.0) for q, x in zip(self.R, self.last)]
        total = sum(src)
        return [x / total for x in src] if total > 0 else [1.0 / len(src)] * len(src)


def test_update_and_policy_by_hand():
    """Two information sets (2 and 3 actions), two iterations: the rule's arrays and policy
    against the reference; the two sets learn different alphas."""
    rule = make("apcfr_plus")
    blocks = (np.array([0, 2]), np.array([1, 1]), np.array([2, 3]))
    regret = np.zeros(5)
    state = {s: np.zeros(5) for s in rule.state}
    refs = [Reference(2), Reference(3)]
    for t, r in enumerate(([1.0, -2.0, 0.5, 0.5, -1.0], [-1.5, 3.0, 0.25, 0.75, -0.5]), start=1):
        rule.update(regret, np.array(r), t, state)
        refs[0].update(r[:2], t)
        refs[1].update(r[2:], t)
    np.testing.assert_allclose(regret, refs[0].R + refs[1].R, rtol=1e-14)
    alphas = rule.alphas(state, blocks)
    np.testing.assert_allclose(alphas, [refs[0].alpha(), refs[1].alpha()], rtol=1e-14)
    assert abs(alphas[0] - alphas[1]) > 0.1
    np.testing.assert_allclose(rule.policy_of(regret, state, blocks), refs[0].policy() + refs[1].policy(),
                               rtol=1e-14)


def test_alpha_before_learning_and_bounds():
    rule = make("apcfr_plus", alpha_init=1.5, alpha_min=0.5, alpha_max=4.0)
    blocks = (np.array([0]), np.array([1]), np.array([2]))
    state = {s: np.zeros(2) for s in rule.state}
    assert rule.alphas(state, blocks)[0] == 1.5  # nothing summed yet
    state["err"][:] = [1.0, 0.0]
    assert rule.alphas(state, blocks)[0] == 4.0  # errors but no move: the cap
    state["move"][:] = [0.0, 100.0]
    assert rule.alphas(state, blocks)[0] == 0.5  # sqrt(1 / 100) clipped up to alpha_min


def test_default_cap_is_the_papers_and_alpha_init_never_changes_an_iterate():
    """alpha_max defaults to 5 (Meng et al.: "we directly set it as 5"); alpha_init 0 or 1000
    gives the same Leduc regrets, averages and policy bit for bit (alpha is only read while the
    prediction it scales is 0), while alpha_max 1 instead of 5 does not."""
    assert make("apcfr_plus").config["alpha_max"] == 5.0 == make("apdcfr_plus").config["alpha_max"]
    runs = [_arrays({"preset": "apcfr_plus", "game": {"name": "leduc"}, "rule": {"name": "apcfr_plus", **rule}}, 15)
            for rule in ({"alpha_init": 0.0}, {"alpha_init": 1000.0}, {"alpha_max": 1.0})]
    for name in ("regret0", "regret1", "avg0", "avg1"):
        assert np.array_equal(runs[0][0][name], runs[1][0][name]), name
    assert runs[0][2] == runs[1][2] != runs[2][2]


def test_alpha_min_above_alpha_max_is_refused_in_one_line():
    with pytest.raises(ConfigError) as err:
        load_config({"preset": "apcfr_plus", "game": "kuhn",
                     "rule": {"name": "apcfr_plus", "alpha_min": 3.0, "alpha_max": 1.0}})
    assert "\n" not in str(err.value) and "alpha_min = 3.0" in str(err.value)


def _openspiel_reference(os_game, iterations, a=None):
    """Alternating passes over OpenSpiel's tree (player 0, then 1, each against the other's
    current policy), the rule applied per information-state string; yields the current policy
    {key: [probabilities]} after every iteration."""
    refs = {}

    def ref(state):
        key = state.information_state_string()
        if key not in refs:
            refs[key] = Reference(len(state.legal_actions()), a=a)
        return key, refs[key]

    def walk(state, p, reach, acc):
        if state.is_terminal():
            return state.returns()[p]
        if state.is_chance_node():
            return sum(q * walk(state.child(x), p, reach * q, acc) for x, q in state.chance_outcomes())
        key, rf = ref(state)
        sigma = rf.policy()
        acts = state.legal_actions()
        if state.current_player() == p:
            vals = [walk(state.child(x), p, reach, acc) for x in acts]
            v = sum(s * x for s, x in zip(sigma, vals))
            row = acc.setdefault(key, [0.0] * len(acts))
            for i, x in enumerate(vals):
                row[i] += reach * (x - v)
            return v
        return sum(s * walk(state.child(x), p, reach * s, acc) for s, x in zip(sigma, acts))

    for t in range(1, iterations + 1):
        for p in (0, 1):
            acc = {}
            walk(os_game.new_initial_state(), p, 1.0, acc)
            for key, r in acc.items():
                refs[key].update(r, t)
        yield t, {key: rf.policy() for key, rf in refs.items()}


@pytest.mark.parametrize("preset, a", [("apcfr_plus", None), ("apdcfr_plus", 2.3)])
def test_kuhn_iterates_equal_an_independent_reference(preset, a):
    """Kuhn through the OpenSpiel bridge: solverkit's current policy after each of 12 iterations
    equals the reference's at every information state to 1e-12."""
    asm = load_config({"game": {"name": "openspiel", "game": "kuhn_poker"}, "preset": preset})
    solver = Solver(asm)
    try:
        for t, want in _openspiel_reference(asm.game.os_game, 12, a):
            solver.step()
            got = asm.game.openspiel_table(solver.strategy("current"))
            assert set(got) == set(want)
            for key, probs in want.items():
                np.testing.assert_allclose([got[key].get(x, 0.0) for x in range(len(probs))], probs, rtol=0,
                                           atol=1e-12, err_msg=f"t={t} {key}")
    finally:
        solver.close()


def _arrays(cfg, iterations):
    solver = Solver(load_config(cfg))
    try:
        solver.step(iterations)
        return stored_arrays(solver.store), solver.strategy("current"), solver.evaluate()["exploitability"]
    finally:
        solver.close()


@pytest.mark.parametrize("game", [{"name": "leduc"}, {"name": "openspiel", "game": "kuhn_poker"}])
@pytest.mark.parametrize("bounds, other", [((2.0, 2.0), "sapcfr_plus"), ((0.0, 0.0), "pcfr_plus")])
def test_fixed_alpha_is_sapcfr_plus_or_pcfr_plus_bit_for_bit(game, bounds, other):
    """alpha_min = alpha_max = 2 is SAPCFR+, alpha_max = 0 PCFR+: the same regrets, averages,
    current policy and exploitability, bit for bit (theirs from the kernels, ours per pass)."""
    lo, hi = bounds
    ours = _arrays({"preset": "apcfr_plus", "game": game, "rule": {"name": "apcfr_plus", "alpha_min": lo,
                                                                   "alpha_max": hi}}, 25)
    theirs = _arrays({"preset": other, "game": game}, 25)
    for name in ("regret0", "regret1", "avg0", "avg1"):
        assert np.array_equal(ours[0][name], theirs[0][name]), name
    for p in (0, 1):
        assert np.array_equal(ours[1][p], theirs[1][p])
    assert ours[2] == theirs[2]


def test_learned_alphas_spread_over_the_information_sets_of_leduc():
    """After 50 Leduc iterations player 0's alphas are not one constant: from about 1.2 to the
    cap (the paper's 5, the default), some information sets still at alpha_init (never reached
    with a regret)."""
    solver = Solver(load_config({"preset": "apcfr_plus", "game": {"name": "leduc"}}))
    try:
        solver.step(50)
        rule = solver.assembly.rule
        with solver.store.open("root", ()) as seg:
            alphas = rule.alphas({s: np.array(seg[f"{s}0"]) for s in rule.state},
                                 blocks_of(solver.store, "root", "regret0"))
        assert alphas.min() < 1.5 and alphas.max() == 5.0 and np.sum(alphas == 2.0) < len(alphas) / 2
    finally:
        solver.close()


def test_split_game_resumes_bit_for_bit_and_equals_the_whole_game(tmp_path):
    """Leduc split at the flop (subgame segments, the policy per segment): a run checkpointed
    at 8 and resumed to 12 writes the same metrics and strategy as one run of 12; both agree
    with the unsplit game's exploitability to 1e-12."""
    cfg = {"preset": "apcfr_plus", "game": {"name": "leduc", "split_round": 1}, "solver": {"eval_every": 4}}
    full = assert_resumed_is_straight(tmp_path, cfg, total=12, stop=9, every="4")
    whole = run_solve(load_config({**cfg, "game": {"name": "leduc"}}), iterations=12)
    assert full.exploitability == pytest.approx(whole.exploitability, abs=1e-12)
