"""Built-in averaging schemes: uniform, linear, quadratic, delayed, and current (no average)."""

from __future__ import annotations

import numpy as np

from .core.averaging import Averaging
from .core.hookspecs import hookimpl
from .core.params import Param
from .errors import ConfigError


class UniformAveraging(Averaging):
    """Every iteration weighs the same (vanilla CFR, Zinkevich et al. 2007)."""

    name = "uniform"
    description = "weight 1 for every iteration (CFR)"

    def coefficients(self, t):
        return 1.0, 1.0

    def _block(self, ts):
        return np.ones((len(ts), 2))


class LinearAveraging(Averaging):
    """Iteration t weighs t: sigma_bar = 2/(T^2+T) sum t sigma^t (CFR+, Tammelin 2014).
    ``until = N``: weight t up to N, then N + 1 (Pluribus: the average discounted by t/(t+1)
    after its first N iterations only, plain sums after)."""

    name = "linear"
    description = "weight t (CFR+); until = N: weight t up to N, then N + 1"
    params = {"until": Param("int", 0, "weight t for the first `until` iterations, until + 1 after (Pluribus); "
                             "0: weight t always", min=0)}

    def coefficients(self, t):
        until = int(self.config.get("until", 0) or 0)
        return 1.0, float(t if until == 0 else min(t, until + 1))

    def _block(self, ts):
        until = int(self.config.get("until", 0) or 0)
        return _decay_one(ts if until == 0 else np.minimum(ts, until + 1))


class QuadraticAveraging(Averaging):
    """Iteration t weighs t^2 (the averaging of DCFR with gamma = 2, Brown and Sandholm 2019)."""

    name = "quadratic"
    description = "weight t^2"

    def coefficients(self, t):
        return 1.0, float(t) * float(t)

    def _block(self, ts):
        x = ts.astype(np.float64)
        return _decay_one(x * x)


class PowerAveraging(Averaging):
    """Iteration t weighs t^gamma, kept as S <- S ((t-1)/t)^gamma + contribution so that the
    stored values grow like t / (gamma + 1) contributions rather than t^(gamma + 1) (the form of
    Xu et al. 2024: DCFR+ uses gamma = 4, PDCFR+ gamma = 5). The decay rounds a fixed-point
    average again every iteration: ``[store] avg_scale`` must be at least 4096 (checked).

    ``restart = B`` forgets the average at the iterations that are powers of B (1, B, B^2, ...)
    and weighs each later iteration by its count since the last restart to the power gamma: the
    early iterations' strategies, far from any equilibrium, leave the average for good (the
    schedule postflop-solver uses with gamma 3 and B = 4)."""

    name = "power"
    description = "weight t^gamma, as a decay ((t-1)/t)^gamma; restart = B: forgotten at powers of B"
    params = {"gamma": Param("float", 2.0, "exponent of the weight t^gamma", min=0.0, max=100.0),
              "restart": Param("int", 0, "forget the average at the iterations that are powers of this base "
                               "(1, B, B^2, ...) and count t from there; 0: never", min=0)}

    def __init__(self, **params):
        super().__init__(**params)
        base = int(self.config.get("restart", 0) or 0)
        if base == 1:
            raise ConfigError("averaging 'power': restart = 1 would forget the average every iteration; use 0 "
                              "(never) or a base of 2 or more (postflop-solver restarts at powers of 4)")

    def coefficients(self, t):
        base = int(self.config.get("restart", 0) or 0)
        if base >= 2:
            start = 1
            while start * base <= t:
                start *= base
            t = t - start + 1
        return ((t - 1.0) / t) ** self.config["gamma"], 1.0


class DelayedAveraging(Averaging):
    """Iteration t weighs max(t - delay, 0): CFR+ with an averaging delay (Tammelin et al. 2015
    used delay 100 for HULHE)."""

    name = "delayed"
    description = "weight max(t - delay, 0)"
    params = {"delay": Param("int", 100, "iterations left out of the average", min=0)}

    def coefficients(self, t):
        return 1.0, float(max(t - self.config["delay"], 0))

    def _block(self, ts):
        return _decay_one(np.maximum(ts - self.config["delay"], 0))


class CurrentStrategy(Averaging):
    """No average is kept; the current strategy is the output (as Cepheus used)."""

    name = "current"
    description = "no average: the current strategy is the output"
    keeps_average = False

    def coefficients(self, t):
        return 1.0, 0.0


@hookimpl
def register_averaging(register):
    for cls in (UniformAveraging, LinearAveraging, QuadraticAveraging, PowerAveraging, DelayedAveraging,
                CurrentStrategy):
        register(cls)


def _decay_one(weights) -> np.ndarray:
    """[n, 2] rows (decay 1, weight) for the weights of n iterations."""
    out = np.ones((len(weights), 2))
    out[:, 1] = weights
    return out
