"""Regret rules (rm, rm_plus, lcfr, dcfr) against slow, obviously-correct references.

Definitions (REFERENCE.md, Brown and Sandholm 2019), for iteration t (1-based) with
instantaneous regrets r:
  RM:   R = R + r
  RM+:  Q = max(Q + r, 0)
  LCFR: R = (R + r) * t / (t + 1)
  DCFR: R = R + r, then positive entries times t^a / (t^a + 1), the others times t^b / (t^b + 1)
"""

import decimal
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solverkit.core.layout import Layout, policy
from solverkit.core.params import spec_of
from solverkit.core.registry import get_registry
from solverkit.core.arith import discounted_update
from solverkit.core.rule import RegretRule
from solverkit.rules import DiscountedCFR, LinearCFR, RegretMatching, RegretMatchingPlus

from .regret_sequences import blocks_and_deltas, final_regrets, regret_runs

finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
iterations = st.integers(1, 10**7)
alphas = st.floats(0.0, 100.0, allow_nan=False)
betas = st.floats(-100.0, 100.0, allow_nan=False)


def make(name, **params):
    """A rule built the way a config builds it: registry look-up plus parameter checks."""
    cls = get_registry().get("rule", name)
    return cls(**spec_of(cls).resolve(params, f"[rule] ({name})"))


def dec_discount(t, exponent):
    """t^e / (t^e + 1) in 60-digit decimal arithmetic, rounded once to a float."""
    with decimal.localcontext() as ctx:
        ctx.prec = 60
        te = Decimal(t) ** Decimal(exponent)
        return float(te / (te + 1))


def ref_update(name, params, regret, delta, t):
    """One update of a flat list of regrets, element by element."""
    out = []
    for q, r in zip(regret, delta):
        v = q + r
        if name == "rm":
            pass
        elif name == "rm_plus":
            v = max(v, 0.0)
        elif name == "lcfr":
            v = v * (t / (t + 1))
        elif name == "dcfr":
            v = v * dec_discount(t, params["alpha"] if v > 0 else params["beta"])
        out.append(v)
    return out


rule_cases = st.one_of(
    st.tuples(st.just("rm"), st.just({})),
    st.tuples(st.just("rm_plus"), st.just({})),
    st.tuples(st.just("lcfr"), st.just({})),
    st.tuples(st.just("dcfr"), st.fixed_dictionaries({"alpha": alphas, "beta": betas})),
    st.tuples(st.just("dcfr"), st.just({})),  # defaults alpha = 1.5, beta = 0
)


def _defaults(name, params):
    return {"alpha": 1.5, "beta": 0.0, **params} if name == "dcfr" else params


@st.composite
def one_update(draw):
    name, params = draw(rule_cases)
    n = draw(st.integers(1, 12))
    regret = draw(st.lists(finite, min_size=n, max_size=n))
    if name == "rm_plus":  # RM+ regrets are never negative
        regret = [abs(v) for v in regret]
    delta = draw(st.lists(finite, min_size=n, max_size=n))
    return name, params, regret, delta, draw(iterations)


@settings(max_examples=120, deadline=None)
@given(one_update())
def test_single_update_matches_reference(case):
    name, params, regret, delta, t = case
    rule = make(name, **params)
    got = np.array(regret, dtype=np.float64)
    rule.update(got, np.array(delta, dtype=np.float64), t)
    want = ref_update(name, _defaults(name, params), regret, delta, t)
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-300)


@st.composite
def update_sequence(draw):
    """A multi-block layout and a run of iterations 1..T of instantaneous regrets."""
    name, params = draw(rule_cases)
    blocks, deltas = draw(blocks_and_deltas(finite, 4, 15))
    return name, params, blocks, deltas


@settings(max_examples=60, deadline=None)
@given(update_sequence())
def test_update_sequences_match_reference(case):
    name, params, blocks, deltas = case
    layout = Layout.from_blocks(blocks)
    got = final_regrets(make(name, **params), layout.size, deltas)
    want = [0.0] * layout.size
    for t, delta in enumerate(deltas, start=1):
        want = ref_update(name, _defaults(name, params), want, delta, t)
    scale = max(abs(v) for d in deltas for v in d)
    # cancellation near zero makes relative error meaningless there: absolute floor
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * scale)
    if name != "dcfr":  # same float operations as the kernel: the signs agree, so do the policies
        np.testing.assert_allclose(policy(got, layout), policy(np.array(want), layout), rtol=1e-12, atol=1e-15)


@settings(max_examples=30, deadline=None)
@given(update_sequence())
def test_rm_plus_regrets_never_negative(case):
    _, _, blocks, deltas = case
    for _, _, q in regret_runs(make("rm_plus"), Layout.from_blocks(blocks).size, deltas):
        assert np.all(q >= 0.0)


@settings(max_examples=30, deadline=None)
@given(update_sequence())
def test_lcfr_is_linear_weighting(case):
    """Scaling by t/(t+1) after each iteration gives R_T = sum_t t r_t / (T + 1)."""
    _, _, blocks, deltas = case
    got = final_regrets(make("lcfr"), Layout.from_blocks(blocks).size, deltas)
    T = len(deltas)
    want = sum(t * np.array(d) for t, d in enumerate(deltas, start=1)) / (T + 1)
    scale = max(abs(v) for d in deltas for v in d)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * scale)


@settings(max_examples=100, deadline=None)
@given(alphas, betas, iterations)
def test_dcfr_coefficients(alpha, beta, t):
    pos, neg, floor = make("dcfr", alpha=alpha, beta=beta).coefficients(t)
    assert pos == pytest.approx(dec_discount(t, alpha), rel=1e-15, abs=1e-300)
    assert neg == pytest.approx(dec_discount(t, beta), rel=1e-15, abs=1e-300)
    assert floor == -np.inf


def test_dcfr_large_exponent_does_not_overflow():
    """alpha = 100 (the allowed maximum) at t = 10^6: t^alpha is beyond float range."""
    rule = make("dcfr", alpha=100.0, beta=100.0)
    assert rule.coefficients(10**6)[:2] == (1.0, 1.0)
    r = np.array([1.0, -1.0])
    rule.update(r, np.zeros(2), 10**6)
    np.testing.assert_array_equal(r, [1.0, -1.0])


def test_dcfr_defaults_are_brown_sandholm():
    rule = make("dcfr")
    assert rule.config == {"alpha": 1.5, "beta": 0.0}
    pos, neg, _ = rule.coefficients(4)
    assert pos == pytest.approx(8 / 9) and neg == pytest.approx(0.5)


def test_lcfr_equals_dcfr_one_one():
    a, b = make("lcfr"), make("dcfr", alpha=1, beta=1)
    for t in (1, 2, 7, 1000):
        assert a.coefficients(t) == pytest.approx(b.coefficients(t), rel=1e-15)


def test_registry_has_the_four_rules():
    reg = get_registry()
    assert {"rm", "rm_plus", "lcfr", "dcfr"} <= set(reg.names("rule"))
    assert reg.get("rule", "rm") is RegretMatching
    assert reg.get("rule", "rm_plus") is RegretMatchingPlus
    assert reg.get("rule", "lcfr") is LinearCFR
    assert reg.get("rule", "dcfr") is DiscountedCFR


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(finite, finite), min_size=1, max_size=10),
    st.floats(0.0, 2.0),
    st.floats(0.0, 2.0),
    st.sampled_from([-np.inf, 0.0, -1.0, 0.5]),
)
def test_discounted_update_kernel(pairs, pos, neg, floor):
    regret = np.array([p[0] for p in pairs])
    delta = np.array([p[1] for p in pairs])
    want = []
    for q, r in pairs:
        v = q + r
        v = v * pos if v > 0.0 else v * neg
        want.append(max(v, floor))
    discounted_update(regret, delta, 1.0, pos, neg, floor)
    np.testing.assert_array_equal(regret, want)


def test_custom_rule_outside_the_family_overrides_update():
    """A rule that overrides update() is used as is (the engine never calls coefficients)."""

    class Halving(RegretRule):
        name = "halving"

        def update(self, regret, delta, t):
            regret += delta
            regret *= 0.5

    r = np.array([2.0, -2.0])
    Halving().update(r, np.array([2.0, 0.0]), 1)
    np.testing.assert_array_equal(r, [2.0, -1.0])
