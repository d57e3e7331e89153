"""Built-in regret rules: RM, RM+, Linear CFR and Discounted CFR discounting."""

from __future__ import annotations

import math

from .core.hookspecs import hookimpl
from .core.params import Param
from .core.rule import RegretRule


class RegretMatching(RegretRule):
    """Regret matching (Hart and Mas-Colell 2000; CFR, Zinkevich et al. 2007): R += r."""

    name = "rm"
    description = "plain cumulative regrets (vanilla CFR)"

    def coefficients(self, t):
        return 1.0, 1.0, -math.inf


class RegretMatchingPlus(RegretRule):
    """Regret matching+ (Tammelin 2014; CFR+): Q = max(Q + r, 0)."""

    name = "rm_plus"
    description = "cumulative regrets clipped at zero after every update (CFR+)"

    def coefficients(self, t):
        return 1.0, 1.0, 0.0


class LinearCFR(RegretRule):
    """Linear CFR (Brown and Sandholm 2019): iteration t's regrets weighted by t.

    Implemented as DCFR(1, 1): after iteration t all cumulative regrets are scaled by t/(t+1).
    """

    name = "lcfr"
    description = "regrets of iteration t weighted by t (Linear CFR)"

    def coefficients(self, t):
        s = t / (t + 1.0)
        return s, s, -math.inf


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


def _discount(t, exponent):
    """t^e / (t^e + 1); exactly 1.0 when t^e is beyond float range (large t and exponent)."""
    try:
        te = float(t) ** exponent
    except OverflowError:
        return 1.0
    return te / (te + 1.0)


@hookimpl
def register_regret_rules(register):
    for cls in (RegretMatching, RegretMatchingPlus, LinearCFR, DiscountedCFR):
        register(cls)
