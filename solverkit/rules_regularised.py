"""Magnetic mirror descent (Sokota, D'Orazio, Kolter, Loizou, Lanctot, Mitliagkas, Brown and
Kroer, "A Unified Approach to Reinforcement Learning, Quantal Response Equilibria, and Two-Player
Zero-Sum Games", ICLR 2023) with counterfactual values, dilated entropy and a uniform magnet:
each information set's policy steps to softmax((log pi + eta q) / (1 + eta tau)), q its
counterfactual action values. Its last iterate converges to the tau-regularised equilibrium (a
quantal response equilibrium; tau -> 0: Nash), no average needed.

Kept as S = log pi / eta (up to a constant per information set, which the softmax ignores, as it
ignores the counterfactual value of the set that the engines subtract to give regrets r):
S' = (S + r) / (1 + eta tau), a discounted-family step that the kernels apply, and the policy is
softmax(eta S)."""

from __future__ import annotations

import math

from .core.hookspecs import hookimpl
from .core.params import Param
from .core.rule import RegretRule


class MagneticMirrorDescent(RegretRule):
    """MMD (Sokota et al. 2023): S <- (S + r) / (1 + eta tau), policy softmax(eta S)."""

    name = "mmd"
    description = "magnetic mirror descent: softmax policy, regularised toward uniform (last iterate)"
    policy = "softmax"
    params = {
        "eta": Param("float", 2.0, "step size (the softmax's inverse temperature on S)", min=1e-9, max=1e6),
        "tau": Param("float", 0.01, "regularisation toward the uniform magnet (0: plain mirror descent)",
                     min=0.0, max=1e6),
    }

    def coefficients(self, t):
        c = 1.0 / (1.0 + self.config["eta"] * self.config["tau"])
        return c, c, -math.inf


@hookimpl
def register_regret_rules(register):
    register(MagneticMirrorDescent)
