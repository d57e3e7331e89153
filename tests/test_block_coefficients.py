"""A block's per-iteration kernel coefficients as arrays (core/block_coefficients.py) are the
doubles of one call per iteration, for every registered rule and averaging scheme, and a
subclass that redefines the per-iteration method is not given its parent's arrays."""

import numpy as np
import pytest

from solverkit.averaging import LinearAveraging
from solverkit.core.params import spec_of
from solverkit.core.passes import kernel_coefficients_at, kernel_coefficients_block
from solverkit.core.registry import get_registry
from solverkit.rules import RegretMatchingPlus

SPANS = [(1, 40), (997, 5), (10**6, 3)]
PARAMS = {("averaging", "linear"): [{}, {"until": 7}], ("averaging", "delayed"): [{}, {"delay": 3}]}


def _make(kind, name, params):
    cls = get_registry().get(kind, name)
    return cls(**spec_of(cls).resolve(params, f"[{kind}] ({name})"))


def _cases(kind):
    """Every registered class of `kind` (rules: those whose coefficients the kernels apply), with
    a horizon where its schedule needs one."""
    reg = get_registry()
    cases = []
    for name in reg.names(kind):
        cls = reg.get(kind, name)
        if kind == "rule" and cls.family != "discounted":
            continue
        base = {"horizon": 1000} if "horizon" in cls.params else {}
        cases += [(name, {**base, **p}) for p in PARAMS.get((kind, name), [{}])]
    return cases


@pytest.mark.parametrize("name,params", _cases("rule"))
def test_rule_block_is_per_iteration(name, params):
    rule = _make("rule", name, params)
    for first, count in SPANS:
        want = np.array([rule.kernel_coefficients(t) for t in range(first, first + count)], dtype=np.float64)
        got = rule.kernel_coefficients_block(first, count)
        assert got.shape == (count, 4)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name,params", _cases("averaging"))
def test_averaging_block_is_per_iteration(name, params):
    avg = _make("averaging", name, params)
    rule = _make("rule", "rm_plus", {})
    for first, count in SPANS:
        want = np.array([avg.coefficients(t) for t in range(first, first + count)], dtype=np.float64)
        np.testing.assert_array_equal(avg.coefficients_block(first, count), want)
        rows = np.array([kernel_coefficients_at(t, rule, avg) for t in range(first, first + count)])
        np.testing.assert_array_equal(kernel_coefficients_block(first, count, rule, avg), rows)


def test_subclass_redefining_coefficients_falls_back():
    class Halved(RegretMatchingPlus):
        name = "halved_test"

        def coefficients(self, t):
            return 0.5, 0.5, 0.0

    class Odd(LinearAveraging):
        name = "odd_test"

        def coefficients(self, t):
            return 1.0, float(t % 2)

    class Discounting(RegretMatchingPlus):
        name = "discounting_test"

        def discount(self, t):
            return 1.0 / t

    np.testing.assert_array_equal(Halved().kernel_coefficients_block(3, 2), [[1.0, 0.5, 0.5, 0.0]] * 2)
    np.testing.assert_array_equal(Discounting().kernel_coefficients_block(1, 2), [[1.0, 1, 1, 0], [0.5, 1, 1, 0]])
    np.testing.assert_array_equal(Odd().coefficients_block(1, 3), [[1, 1], [1, 0], [1, 1]])
