"""Hyperparameter schedules (Zhang, McAleer and Sandholm, "Faster Game Solving via
Hyperparameter Schedules", arXiv 2404.09097, AAAI 2026): DCFR's discount exponents and the
averaging exponent gamma move linearly with the progress t / T through a run of T iterations.

Eq. (4) of the paper, with p = t / T: alpha_t = 1 + 3p, beta_t = -1 - 2p (HS-DCFR) and
gamma_t = 30 - 5p (or 15 - 5p) for the average, kept as DCFR keeps it, a decay
((t-1)/t)^gamma of the whole average before iteration t is added. HS-PCFR+ is PCFR+ with that
average (gamma is its only hyperparameter). T is the ``horizon`` parameter, by default (0) the
run's [solver] iterations (the paper runs 1,000); past T the exponents keep their end values.
"""

from __future__ import annotations

import math

from .core.averaging import Averaging
from .core.hookspecs import hookimpl
from .core.params import Param
from .core.rule import RegretRule
from .errors import ConfigError
from .rules import _discount

_HORIZON = Param("int", 0, "T, the iterations the schedule spans; 0: the run's [solver] iterations (the "
                 "paper runs 1,000); past T the exponents keep their end values", min=0)


def progress(t, horizon) -> float:
    """t / T, capped at 1 (a run longer than its horizon keeps the end values)."""
    if horizon <= 0:
        raise ConfigError("horizon = 0 (the run's iterations) is set when a config is loaded; a schedule built "
                          "outside a config needs horizon = T >= 1")
    return min(max(float(t), 0.0) / float(horizon), 1.0)


def linear(start, end, p) -> float:
    """The value a fraction p of the way from `start` to `end`."""
    return start + (end - start) * p


def schedule_params(name: str, start: float, end: float, lo: float) -> dict:
    """The parameters NAME_start and NAME_end of a value scheduled over the horizon."""
    return {f"{name}_start": Param("float", start, f"{name} at t = 0", min=lo, max=100.0),
            f"{name}_end": Param("float", end, f"{name} at t = horizon", min=lo, max=100.0)}


def scheduled(config: dict, name: str, t) -> float:
    """NAME at progress t / horizon: linear from NAME_start to NAME_end."""
    return linear(config[f"{name}_start"], config[f"{name}_end"], progress(t, config["horizon"]))


class ScheduledDCFR(RegretRule):
    """HS-DCFR (Zhang et al. 2024): DCFR whose exponents follow the progress p = t / T, positive
    regrets times t^a / (t^a + 1) and the others times t^b / (t^b + 1) after adding iteration
    t's, with a = 1 + 3p and b = -1 - 2p (negative b: negative regrets fade quickly)."""

    name = "hs_dcfr"
    description = "DCFR with scheduled exponents: alpha 1 -> 4, beta -1 -> -3 over the horizon (HS-DCFR)"
    params = {"horizon": _HORIZON, **schedule_params("alpha", 1.0, 4.0, 0.0),
              **schedule_params("beta", -1.0, -3.0, -100.0)}

    def exponents(self, t) -> tuple[float, float]:
        """(alpha_t, beta_t)."""
        return scheduled(self.config, "alpha", t), scheduled(self.config, "beta", t)

    def coefficients(self, t):
        alpha, beta = self.exponents(t)
        return _discount(t, alpha), _discount(t, beta), -math.inf


class ScheduledDCFRPlus(RegretRule):
    """HS-DCFR+: DCFR+ (Xu et al. 2024), R = max(R (t-1)^a / ((t-1)^a + 1) + r, 0), with the
    HS-DCFR alpha schedule a = 1 + 3p at p = (t-1) / T, the progress when the old regrets
    were summed (the pairing HS-DCFR's alpha makes with DCFR's discount)."""

    name = "hs_dcfr_plus"
    description = "DCFR+ with a scheduled alpha: 1 -> 4 over the horizon (HS on DCFR+)"
    params = {"horizon": _HORIZON, **schedule_params("alpha", 1.0, 4.0, 0.0)}

    def alpha(self, t) -> float:
        return scheduled(self.config, "alpha", t)

    def coefficients(self, t):
        return 1.0, 1.0, 0.0

    def discount(self, t):
        return _discount(t - 1, self.alpha(t - 1))


class ScheduledPowerAveraging(Averaging):
    """The HS average (Zhang et al. 2024): before iteration t is added the whole average is
    multiplied by ((t-1)/t)^gamma_s, gamma_s = gamma_start + (gamma_end - gamma_start) s / T at
    s = t - 1 (DCFR's decay with a moving gamma; 30 -> 25 as published, 15 -> 10 the milder
    variant). Early iterations all but vanish from the average."""

    name = "scheduled_power"
    description = "decay ((t-1)/t)^gamma_t with gamma moving from gamma_start to gamma_end over the horizon (HS)"
    params = {"horizon": _HORIZON, **schedule_params("gamma", 30.0, 25.0, 0.0)}

    def gamma(self, s) -> float:
        """gamma_s, the exponent of the decay applied before iteration s + 1."""
        return scheduled(self.config, "gamma", s)

    def coefficients(self, t):
        return ((t - 1.0) / t) ** self.gamma(t - 1), 1.0


@hookimpl
def register_regret_rules(register):
    for cls in (ScheduledDCFR, ScheduledDCFRPlus):
        register(cls)


@hookimpl
def register_averaging(register):
    register(ScheduledPowerAveraging)
