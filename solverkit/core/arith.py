"""The CFR arithmetic, once: regret matching, a rule's update step, the averaging step.

Every engine's kernels (matrix, poker public tree, the generic tree engine) call these small
numba functions; ``inline="always"`` puts them into the callers' loops at no cost, so there is
no other copy of the arithmetic anywhere. The array-level functions at the end serve Python
callers (rules outside the compiled family, policies for export and evaluation).

A rule of the discounted family is four per-iteration scalars (see
:class:`solverkit.core.rule.RegretRule`): the old regret R and the instantaneous regret r give

    x = pre * R + r;   x *= pos if x > 0 else neg;   R' = max(x, floor)

which is RM (1, 1, 1, -inf), RM+ (1, 1, 1, 0), Linear and Discounted CFR (scale after the
sum: pos, neg) and DCFR+ (discount before the sum: pre). A factor of exactly 1.0 leaves the
value bit for bit as it was, so one formula serves all of them.
"""

from __future__ import annotations

import numpy as np

from .jit import njit

# --- scalar steps, inlined into kernels --------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def rule_step(regret, delta, pre, pos, neg, floor):
    """The discounted family's update of one value: max(scale(pre * R + r), floor)."""
    x = pre * regret + delta
    x = x * pos if x > 0.0 else x * neg
    return x if x > floor else floor


@njit(cache=True, nogil=True, inline="always")
def avg_step(total, w, x, decay):
    """One cumulative-strategy value after iteration t: total * decay + w * x."""
    if decay == 1.0:
        return total + w * x
    return total * decay + w * x


@njit(cache=True, nogil=True, inline="always")
def rm_total(src, base, num_actions):
    """Sum of the positive parts of src[base : base + A] (not positive: the policy is uniform)."""
    total = 0.0
    for a in range(num_actions):
        x = src[base + a]
        if x > 0.0:
            total += x
    return total


@njit(cache=True, nogil=True, inline="always")
def rm_prob(x, total, num_actions):
    """Regret matching's probability of an action with value x, given rm_total's `total`.
    (A division, as the original CFR+ code does: results agree with it digit for digit.)"""
    if total > 0.0:
        return x / total if x > 0.0 else 0.0
    return 1.0 / num_actions


@njit(cache=True, nogil=True, inline="always")
def rm2(x0, x1):
    """Regret matching of two values (unrolled): (sigma_0, sigma_1)."""
    y0 = x0 if x0 > 0.0 else 0.0
    y1 = x1 if x1 > 0.0 else 0.0
    total = y0 + y1
    if total > 0.0:
        return y0 / total, y1 / total
    return 0.5, 0.5


@njit(cache=True, nogil=True, inline="always")
def rm3(x0, x1, x2):
    """Regret matching of three values (unrolled): (sigma_0, sigma_1, sigma_2)."""
    y0 = x0 if x0 > 0.0 else 0.0
    y1 = x1 if x1 > 0.0 else 0.0
    y2 = x2 if x2 > 0.0 else 0.0
    total = y0 + y1 + y2
    if total > 0.0:
        return y0 / total, y1 / total, y2 / total
    third = 1.0 / 3.0
    return third, third, third


@njit(cache=True, nogil=True, inline="always")
def rm4(x0, x1, x2, x3):
    """Regret matching of four values (unrolled): (sigma_0, ..., sigma_3)."""
    y0 = x0 if x0 > 0.0 else 0.0
    y1 = x1 if x1 > 0.0 else 0.0
    y2 = x2 if x2 > 0.0 else 0.0
    y3 = x3 if x3 > 0.0 else 0.0
    total = y0 + y1 + y2 + y3
    if total > 0.0:
        return y0 / total, y1 / total, y2 / total, y3 / total
    return 0.25, 0.25, 0.25, 0.25


# --- array-level functions for Python callers --------------------------------------------------


@njit(cache=True, nogil=True)
def discounted_update(regret, delta, pre, pos, neg, floor):
    """regret[i] = rule_step(regret[i], delta[i], ...) over a flat array."""
    for i in range(regret.shape[0]):
        regret[i] = rule_step(regret[i], delta[i], pre, pos, neg, floor)


@njit(cache=True, nogil=True)
def predictive_update(regret, delta, pred, pre, floor, nxt, weight=1.0):
    """A predictive rule's update (PCFR+, PDCFR+, SAPCFR+): R = max(pre * R + r, floor), then the
    prediction the next policy adds to R: pred = ((nxt - 1) * R + r) * weight, so that regret
    matching of R + pred plays [nxt * R + r]^+ (nxt = 1: PCFR+'s [R + r]^+; weight 1/3:
    SAPCFR+'s [R + r/3]^+)."""
    for i in range(regret.shape[0]):
        r = delta[i]
        x = pre * regret[i] + r
        x = x if x > floor else floor
        regret[i] = x
        v = (nxt - 1.0) * x + r if nxt != 1.0 else r
        pred[i] = v * weight if weight != 1.0 else v


@njit(cache=True, nogil=True)
def add_into(a, b, out):
    """out = a + b, elementwise."""
    for i in range(a.shape[0]):
        out[i] = a[i] + b[i]


@njit(cache=True, nogil=True)
def scaled_accumulate(total, contrib, decay, weight):
    """total = total * decay + weight * contrib, elementwise."""
    for i in range(total.shape[0]):
        total[i] = avg_step(total[i], weight, contrib[i], decay)


@njit(cache=True, nogil=True)
def regret_matching(values, block_start, block_count, block_actions, out):
    """out = positive part of `values` normalised per information set (uniform if all <= 0).

    Applied to non-negative cumulative strategies this is plain normalisation, so the same
    function turns regrets into the current policy and cumulative strategies into the average.
    """
    for b in range(block_start.shape[0]):
        na = block_actions[b]
        base = block_start[b]
        for i in range(block_count[b]):
            o = base + i * na
            total = rm_total(values, o, na)
            for a in range(na):
                out[o + a] = rm_prob(values[o + a], total, na)


@njit(cache=True, nogil=True)
def softmax_source(values, block_start, block_count, block_actions, eta, out):
    """out = exp(eta * (v - max v)) per information set: positive values whose regret matching
    is the softmax of eta * v (so kernels that regret-match a source play softmax)."""
    for b in range(block_start.shape[0]):
        na = block_actions[b]
        base = block_start[b]
        for i in range(block_count[b]):
            o = base + i * na
            m = -np.inf
            for a in range(na):
                if values[o + a] > m:
                    m = values[o + a]
            for a in range(na):
                out[o + a] = np.exp(eta * (values[o + a] - m))


def warm_up() -> None:
    """Load the array-level functions (compiled, or from numba's cache)."""
    a = np.zeros(2)
    one = np.ones(1, dtype=np.int64)
    discounted_update(a, a.copy(), 1.0, 1.0, 1.0, 0.0)
    predictive_update(a, a.copy(), a.copy(), 1.0, 0.0, 1.0)
    add_into(a, a, a.copy())
    scaled_accumulate(a, a.copy(), 1.0, 1.0)
    regret_matching(a, one * 0, one, one * 2, a.copy())
