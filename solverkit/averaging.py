"""Built-in averaging schemes: uniform, linear, quadratic, delayed, and current (no average)."""

from __future__ import annotations

from .core.averaging import Averaging
from .core.hookspecs import hookimpl
from .core.params import Param


class UniformAveraging(Averaging):
    """Every iteration weighs the same (vanilla CFR, Zinkevich et al. 2007)."""

    name = "uniform"
    description = "weight 1 for every iteration (CFR)"

    def coefficients(self, t):
        return 1.0, 1.0


class LinearAveraging(Averaging):
    """Iteration t weighs t: sigma_bar = 2/(T^2+T) sum t sigma^t (CFR+, Tammelin 2014)."""

    name = "linear"
    description = "weight t (CFR+)"

    def coefficients(self, t):
        return 1.0, float(t)


class QuadraticAveraging(Averaging):
    """Iteration t weighs t^2 (the averaging of DCFR with gamma = 2, Brown and Sandholm 2019)."""

    name = "quadratic"
    description = "weight t^2"

    def coefficients(self, t):
        return 1.0, float(t) * float(t)


class DelayedAveraging(Averaging):
    """Iteration t weighs max(t - delay, 0): CFR+ with an averaging delay (Tammelin et al. 2015
    used delay 100 for HULHE)."""

    name = "delayed"
    description = "weight max(t - delay, 0)"
    params = {"delay": Param("int", 100, "iterations left out of the average", min=0)}

    def coefficients(self, t):
        return 1.0, float(max(t - self.config["delay"], 0))


class CurrentStrategy(Averaging):
    """No average is kept; the current strategy is the output (as Cepheus used)."""

    name = "current"
    description = "no average: the current strategy is the output"
    keeps_average = False

    def coefficients(self, t):
        return 1.0, 0.0


@hookimpl
def register_averaging(register):
    for cls in (UniformAveraging, LinearAveraging, QuadraticAveraging, DelayedAveraging, CurrentStrategy):
        register(cls)
