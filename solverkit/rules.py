"""Built-in regret rules: RM, RM+, Linear and Discounted CFR, and the predictive and
discounted-plus rules of Farina et al. (2021) and Xu et al. (2024)."""

from __future__ import annotations

import math

import numpy as np

from .core.hookspecs import hookimpl
from .core.arith import predictive_update
from .core.params import Param
from .core.rule import RegretRule


class RegretMatching(RegretRule):
    """Regret matching (Hart and Mas-Colell 2000; CFR, Zinkevich et al. 2007): R += r."""

    name = "rm"
    description = "plain cumulative regrets (vanilla CFR)"

    def coefficients(self, t):
        return 1.0, 1.0, -math.inf

    def _block(self, ts):
        return _constant((1.0, 1.0, 1.0, -math.inf), ts)


class RegretMatchingPlus(RegretRule):
    """Regret matching+ (Tammelin 2014; CFR+): Q = max(Q + r, 0)."""

    name = "rm_plus"
    description = "cumulative regrets clipped at zero after every update (CFR+)"

    def coefficients(self, t):
        return 1.0, 1.0, 0.0

    def _block(self, ts):
        return _constant((1.0, 1.0, 1.0, 0.0), ts)


class LinearCFR(RegretRule):
    """Linear CFR (Brown and Sandholm 2019): iteration t's regrets weighted by t.

    Implemented as DCFR(1, 1): after iteration t all cumulative regrets are scaled by t/(t+1).
    ``until = N``: only after iterations 1..N, then plain sums (Pluribus discounted its first
    400 minutes). Sampled passes of the tree and blueprint engines weight iteration t's regrets
    by :meth:`increment_weight` instead of rescaling every stored regret (the same policies).
    """

    name = "lcfr"
    description = "regrets of iteration t weighted by t (Linear CFR); until = N: the first N iterations only"
    params = {"until": Param("int", 0, "discount after iterations 1..until only, plain sums after (Pluribus); "
                             "0: every iteration", min=0)}

    def _discounts(self, t) -> bool:
        until = int(self.config.get("until", 0) or 0)
        return until == 0 or t <= until

    def coefficients(self, t):
        s = t / (t + 1.0) if self._discounts(t) else 1.0
        return s, s, -math.inf

    def _block(self, ts):
        until = int(self.config.get("until", 0) or 0)
        t = np.asarray(ts, dtype=np.float64)
        s = t / (t + 1.0)
        if until:
            s = np.where(np.asarray(ts) <= until, s, 1.0)
        out = np.empty((len(ts), 4))
        out[:, 0], out[:, 1], out[:, 2], out[:, 3] = 1.0, s, s, -math.inf
        return out

    def increment_weight(self, t) -> float:
        """Weight of iteration t's regrets when the old ones are left unscaled: the regrets
        stored are the discounted ones times the product of 1 / (s / (s + 1)) over s < t, that
        is min(t, until + 1)."""
        until = int(self.config.get("until", 0) or 0)
        return float(t if until == 0 else min(t, until + 1))

    def increment_weights(self, ts) -> np.ndarray:
        """:meth:`increment_weight` of every iteration of `ts`, as an array (the same doubles)."""
        until = int(self.config.get("until", 0) or 0)
        t = np.asarray(ts, dtype=np.int64)
        return (t if until == 0 else np.minimum(t, until + 1)).astype(np.float64)


class DiscountedCFR(RegretRule):
    """Discounted CFR (Brown and Sandholm 2019): after iteration t, positive cumulative regrets
    are scaled by t^alpha / (t^alpha + 1) and negative ones by t^beta / (t^beta + 1)."""

    name = "dcfr"
    description = "discounted regrets: positive by t^a/(t^a+1), negative by t^b/(t^b+1)"
    params = {
        "alpha": Param("float", 1.5, "discount exponent of positive regrets", min=0.0, max=100.0),
        "beta": Param("float", 0.0, "discount exponent of negative regrets", min=-100.0, max=100.0),
    }

    def coefficients(self, t):
        return _discount(t, self.config["alpha"]), _discount(t, self.config["beta"]), -math.inf

    def _block(self, ts):
        out = np.empty((len(ts), 4))
        out[:, 0] = 1.0
        out[:, 1] = _discounts(ts, self.config["alpha"])
        out[:, 2] = _discounts(ts, self.config["beta"])
        out[:, 3] = -math.inf
        return out


class DiscountedCFRPlus(RegretRule):
    """DCFR+ (Xu et al. 2024): RM+ whose old regrets are discounted before iteration t's are
    added, R = max(R * (t-1)^alpha / ((t-1)^alpha + 1) + r, 0); alpha = 1.5 and averaging
    weight t^4 (``power`` averaging, gamma = 4) as published."""

    name = "dcfr_plus"
    description = "RM+ with old regrets discounted by (t-1)^a/((t-1)^a+1) before adding (DCFR+)"
    params = {"alpha": Param("float", 1.5, "discount exponent of the old regrets", min=0.0, max=100.0)}

    def coefficients(self, t):
        return 1.0, 1.0, 0.0

    def discount(self, t):
        return _discount(t - 1, self.config["alpha"])


class PredictiveCFRPlus(RegretRule):
    """PCFR+ (Farina, Kroer and Sandholm 2021): predictive regret matching+. The regrets are
    RM+'s, R = max(R + r, 0); the policy of the next iteration is regret matching of R + m with
    the prediction m = r (the last instantaneous regret), kept in the state array ``pred``."""

    name = "pcfr_plus"
    description = "predictive RM+: play [R + last instantaneous regret]^+ (PCFR+)"
    family = "custom"
    state = ("pred",)
    predictive = True

    def kernel_prediction(self, t):
        return 1.0, 0.0, 1.0, 1.0

    def update(self, regret, delta, t, state):
        predictive_update(regret, delta, state["pred"], *self.kernel_prediction(t))


class PredictiveDiscountedCFRPlus(RegretRule):
    """PDCFR+ (Xu et al. 2024): DCFR+'s discounted regrets, R = max(R d(t) + r, 0) with
    d(t) = (t-1)^alpha / ((t-1)^alpha + 1), and PCFR+'s prediction: the next policy is regret
    matching of [R d(t+1) + r]^+. ``pred`` holds (d(t+1) - 1) R + r, so the policy is regret
    matching of R + pred whatever the iteration. alpha = 2.3 and averaging weight t^5
    (``power`` averaging, gamma = 5) as published."""

    name = "pdcfr_plus"
    description = "predictive DCFR+: discounted RM+ regrets, play [R d(t+1) + r]^+ (PDCFR+)"
    family = "custom"
    state = ("pred",)
    predictive = True
    params = {"alpha": Param("float", 2.3, "discount exponent of the old regrets", min=0.0, max=100.0)}

    def kernel_prediction(self, t):
        alpha = self.config["alpha"]
        return _discount(t - 1, alpha), 0.0, _discount(t, alpha), 1.0

    def update(self, regret, delta, t, state):
        predictive_update(regret, delta, state["pred"], *self.kernel_prediction(t))


def _constant(row, ts):
    """The same coefficients `row` for every iteration of `ts`."""
    out = np.empty((len(ts), len(row)))
    out[:] = row
    return out


def _discounts(ts, exponent) -> np.ndarray:
    """:func:`_discount` of every iteration of `ts` (all >= 1), the same doubles: libm's pow as
    Python's ``**``, 1.0 where t^e overflows."""
    t = np.asarray(ts, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):  # (an exponent array: numpy's scalar fast paths
        te = np.power(t, np.full_like(t, float(exponent)))  # such as 1 / t for -1 round otherwise)
        return np.where(np.isinf(te), 1.0, te / (te + 1.0))


def _discount(t, exponent):
    """t^e / (t^e + 1); exactly 1.0 when t^e is beyond float range (large t and exponent);
    0.0 at t = 0 (nothing to discount before the first iteration)."""
    if t <= 0:
        return 0.0 if exponent > 0 else 0.5
    try:
        te = float(t) ** exponent
    except OverflowError:
        return 1.0
    return te / (te + 1.0)


@hookimpl
def register_regret_rules(register):
    for cls in (RegretMatching, RegretMatchingPlus, LinearCFR, DiscountedCFR, DiscountedCFRPlus, PredictiveCFRPlus,
                PredictiveDiscountedCFRPlus):
        register(cls)
