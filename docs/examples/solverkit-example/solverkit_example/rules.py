"""Discounted RM+: regret matching+ whose positive regrets are discounted as in DCFR."""

from __future__ import annotations

from solverkit.core.params import Param
from solverkit.core.rule import RegretRule


class DiscountedRMPlus(RegretRule):
    """Q = max(Q + r, 0) * t^alpha / (t^alpha + 1) after iteration t.

    Clipping at zero is RM+ (Tammelin 2014); the discount of positive regrets is DCFR's
    (Brown and Sandholm 2019). Unlike ``dcfr``, negative regrets never accumulate. The rule is
    in solverkit's discounted family, so it only supplies coefficients and runs on solverkit's
    compiled update kernel.
    """

    name = "discounted_rm_plus"
    description = "RM+ with positive regrets scaled by t^alpha/(t^alpha+1)"
    params = {"alpha": Param("float", 1.5, "discount exponent of positive regrets", min=0.0, max=100.0)}

    def coefficients(self, t):
        ta = float(t) ** self.config["alpha"]
        return ta / (ta + 1.0), 1.0, 0.0  # (pos_scale, neg_scale, floor)
