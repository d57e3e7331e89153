"""Adaptive asymmetric step sizes for predictive CFR+ (APCFR+; Meng, Yang, Zhang, Ge and Gao,
"Faster Game Solving via Asymmetry of Step Sizes", arXiv 2503.12770, AAAI 2026).

SAPCFR+ (rules_asymmetric.py) damps the prediction by a fixed 1 / (1 + alpha). APCFR+ learns
alpha per information set I during the run: the next policy plays

    [R_I + r_I / (1 + alpha_I)]^+,   alpha_I = clip(sqrt(E_I / S_I), alpha_min, alpha_max)

with E_I the summed squared prediction errors ||r^k_I - m^k_I||^2 (m^k = r^(k-1), the
prediction PCFR+ makes; m^1 = 0) and S_I the summed squared moves ||R^(k+1)_I - R^k_I||^2 of
the stored regrets, over the iterations so far. An accurate prediction (E small against S)
gives alpha near 0, PCFR+'s full prediction step; an inaccurate one a small prediction step.
S = 0 < E gives alpha_max (the paper's min(sqrt(E / 0), alpha_max)).

Provenance: this is the paper's Eq. (3), alpha_I^t = min(sqrt(sum_{tau<t} ||r^tau - r^(tau-1)||^2
/ sum_{tau<t} ||R^(tau+1) - R^tau||^2), alpha_max) with r^0 = 0, and its cap: "In this paper, we
directly set it as 5", our default (alpha_min = 0 is the paper's rule: it has no lower bound).
``alpha_init`` (alpha while E = S = 0) never changes an iterate: E_I = 0 only when every
instantaneous regret of I so far was exactly 0, so the prediction it would scale is 0; it shows
only in :meth:`alphas` of information sets not yet reached. alpha_min = alpha_max = 2 is SAPCFR+
and alpha_max = 0 is PCFR+, bit for bit (tests/test_apcfr_plus.py). APDCFR+ (the paper's
Appendix C, not in the text read here) is not verified: the class below is our combination of
this damping with PDCFR+'s discounting.

The rule keeps three arrays per regret value: ``pred`` (the last instantaneous regret, scaled
by 1 / d(t+1) for APDCFR+), ``err`` and ``move`` (each value's share of E_I and S_I; an
information set's sums are its actions' sums). alpha needs an information set's actions
together, which only the policy step sees, so the engines run it on the per-pass path (no
kernel_prediction): the update after each pass, the policy from :meth:`policy_source`.
"""

from __future__ import annotations

import numpy as np
from .core.jit import njit

from .core.hookspecs import hookimpl
from .core.params import Param
from .core.rule import RegretRule
from .errors import ConfigError
from .rules import _discount


@njit(cache=True, nogil=True)
def adaptive_update(regret, delta, pred, err, move, pre, floor, prev_scale, inv_nxt):
    """One pass's update, in place: the prediction error (r - m)^2 into err (m = pred *
    prev_scale, the last r), R = max(pre R + r, floor) with its squared move into move, and
    pred = r * inv_nxt (r itself when inv_nxt is 1)."""
    for i in range(regret.shape[0]):
        r = delta[i]
        m = pred[i] * prev_scale if prev_scale != 1.0 else pred[i]
        e = r - m
        err[i] += e * e
        old = regret[i]
        x = pre * old + r
        x = x if x > floor else floor
        d = x - old
        move[i] += d * d
        regret[i] = x
        pred[i] = r * inv_nxt if inv_nxt != 1.0 else r


@njit(cache=True, nogil=True)
def adaptive_source(regret, pred, err, move, block_start, block_count, block_actions, alpha_init, alpha_min,
                    alpha_max, out):
    """out = R + pred / (1 + alpha_I) with alpha_I per information set (see the module)."""
    for b in range(block_start.shape[0]):
        na = block_actions[b]
        base = block_start[b]
        for i in range(block_count[b]):
            o = base + i * na
            e = 0.0
            s = 0.0
            for a in range(na):
                e += err[o + a]
                s += move[o + a]
            w = 1.0 / (1.0 + asymmetry(e, s, alpha_init, alpha_min, alpha_max))
            for a in range(na):
                out[o + a] = regret[o + a] + (pred[o + a] * w if w != 1.0 else pred[o + a])


@njit(cache=True, nogil=True, inline="always")
def asymmetry(e, s, alpha_init, alpha_min, alpha_max):
    """alpha of one information set from its summed squared errors e and moves s."""
    if s > 0.0:
        alpha = np.sqrt(e / s)
    elif e > 0.0:
        alpha = alpha_max
    else:
        alpha = alpha_init
    return min(max(alpha, alpha_min), alpha_max)


@njit(cache=True, nogil=True)
def _set_alphas(block_start, block_count, block_actions, err, move, alpha_init, alpha_min, alpha_max, out):
    """out[I] = alpha_I of every information set, in layout order (:func:`asymmetry` of its sums)."""
    k = 0
    for b in range(block_start.shape[0]):
        na = block_actions[b]
        for i in range(block_count[b]):
            o = block_start[b] + i * na
            e = 0.0
            s = 0.0
            for a in range(na):
                e += err[o + a]
                s += move[o + a]
            out[k] = asymmetry(e, s, alpha_init, alpha_min, alpha_max)
            k += 1


def information_set_alpha(blocks, err, move, alpha_init, alpha_min, alpha_max) -> np.ndarray:
    """alpha_I of every information set, in layout order (for inspection and reports: the policy's
    own formula, :func:`asymmetry`)."""
    start, count, actions = (np.asarray(x, dtype=np.int64) for x in blocks)
    out = np.empty(int(count.sum()))
    _set_alphas(start, count, actions, np.asarray(err, dtype=np.float64), np.asarray(move, dtype=np.float64),
                float(alpha_init), float(alpha_min), float(alpha_max), out)
    return out


_ALPHA = {
    "alpha_init": Param("float", 2.0, "alpha reported before anything is learned; no effect on the iterates (the "
                        "prediction is 0 until then)", min=0.0, max=1000.0),
    "alpha_min": Param("float", 0.0, "lower bound of the learned alpha (0: PCFR+'s full prediction step)",
                       min=0.0, max=1000.0),
    "alpha_max": Param("float", 5.0, "upper bound of the learned alpha (the paper's 5; alpha_min = alpha_max = 2: "
                       "SAPCFR+; 0: PCFR+)", min=0.0, max=1000.0),
}


class AdaptiveAsymmetricPCFRPlus(RegretRule):
    """APCFR+ (Meng et al. 2025): RM+ regrets, R = max(R + r, 0); the next policy regret-matches
    R + r / (1 + alpha_I), alpha_I learned per information set from the prediction errors
    against the regrets' moves (module docstring)."""

    name = "apcfr_plus"
    description = "predictive RM+ with a learned damping per information set: play [R + r/(1+alpha_I)]^+ (APCFR+)"
    family = "custom"
    state = ("pred", "err", "move")
    predictive = True
    params = dict(_ALPHA)

    def __init__(self, **params):
        super().__init__(**params)
        lo, hi = params.get("alpha_min", 0.0), params.get("alpha_max", 5.0)
        if lo > hi:
            raise ConfigError(f"[rule] ({self.name}): alpha_min = {lo!r} is above alpha_max = {hi!r}; "
                              "alpha_min <= alpha_max (both 2: SAPCFR+)")

    def steps(self, t) -> tuple[float, float, float, float]:
        """(pre, floor, prev_scale, inv_nxt) of iteration t's update (RM+: 1, 0, 1, 1)."""
        return 1.0, 0.0, 1.0, 1.0

    def kernel_prediction(self, t):
        return None  # alpha_I needs an information set's actions together: the per-pass path

    def update(self, regret, delta, t, state):
        adaptive_update(regret, delta, state["pred"], state["err"], state["move"], *self.steps(t))

    def _alphas(self):
        c = self.config
        return float(c["alpha_init"]), float(c["alpha_min"]), float(c["alpha_max"])

    def policy_source(self, regret, state, blocks, out=None) -> np.ndarray:
        if out is None:
            out = np.empty_like(regret)
        adaptive_source(regret, state["pred"], state["err"], state["move"], *blocks, *self._alphas(), out)
        return out

    def alphas(self, state, blocks) -> np.ndarray:
        """alpha_I of every information set of one player's arrays (layout order)."""
        return information_set_alpha(blocks, state["err"], state["move"], *self._alphas())


class AdaptiveAsymmetricPDCFRPlus(AdaptiveAsymmetricPCFRPlus):
    """APDCFR+: PDCFR+'s discounted regrets R = max(d(t) R + r, 0), d(t) = (t-1)^a / ((t-1)^a +
    1), with the learned damping: the next policy plays [d(t+1) R + r / (1 + alpha_I)]^+, kept
    as R + (r / d(t+1)) / (1 + alpha_I) (the same regret matching, d(t+1) > 0). Not verified
    against the paper's Appendix C (not in the text read here): PDCFR+'s a = 2.3 and t^5 average
    are our choice."""

    name = "apdcfr_plus"
    description = "predictive DCFR+ with a learned damping per information set: play [d R + r/(1+alpha_I)]^+ (APDCFR+)"
    params = {"alpha": Param("float", 2.3, "discount exponent of the old regrets (PDCFR+'s)", min=0.0, max=100.0),
              **_ALPHA}

    def steps(self, t):
        a = self.config["alpha"]
        # pred holds r / d(t+1) of the last update: times d(t) (= pre of iteration t) it is that r again
        return _discount(t - 1, a), 0.0, _discount(t - 1, a), 1.0 / _discount(t, a)


@hookimpl
def register_regret_rules(register):
    for cls in (AdaptiveAsymmetricPCFRPlus, AdaptiveAsymmetricPDCFRPlus):
        register(cls)
