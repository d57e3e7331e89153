"""Magnetic mirror descent (Sokota, D'Orazio, Kolter, Loizou, Lanctot, Mitliagkas, Brown and
Kroer, "A Unified Approach to Reinforcement Learning, Quantal Response Equilibria, and Two-Player
Zero-Sum Games", ICLR 2023) with counterfactual values, dilated entropy and a uniform magnet:
each information set's policy steps to softmax((log pi + eta q) / (1 + eta tau)), q its
counterfactual action values. Its last iterate converges to the tau-regularised equilibrium (a
quantal response equilibrium; tau -> 0: Nash), no average needed.

Kept as S = log pi / eta (up to a constant per information set, which the softmax ignores, as it
ignores the counterfactual value of the set that the engines subtract to give regrets r):
S' = (S + r) / (1 + eta tau), a discounted-family step that the kernels apply, and the policy is
softmax(eta S).

Regularised CFR (Liu, Ozdaglar, Yu and Zhang, "The Power of Regularization in Solving
Extensive-Form Games", ICLR 2023), rule ``reg_cfr``: CFR whose local regret minimiser is
optimistic mirror descent on the entropy-regularised counterfactual loss, the regulariser's
gradient taken at the reference point (the first author's LiteEFG ``Reg_CFR``, default form).
With g the counterfactual action values, each information set keeps a reference x^ and plays x:

    log x^(t+1) = (1 - eta tau) log x^t     + eta g^t   (+ a constant per information set)
    log x(t+1)  = (1 - eta tau) log x^(t+1) + eta g^t   (the prediction m(t+1) = g^t)

Kept as R = log x^ / eta: R' = (1 - eta tau) R + r, a predictive step
(core.arith.predictive_update with pre = nxt = 1 - eta tau, no floor), and the policy is
softmax(eta (R + pred)) with pred = -eta tau R' + r. Its last iterate converges to the
information sets' softmax fixed point x = softmax(g(x) / tau) (on a matrix game the logit QRE,
the entropy-regularised game's equilibrium; the same limit as ``mmd`` at the same tau).

Approximations (said plainly): the regularised game's counterfactual values also carry the
regulariser of the information sets below an action (-tau times their dilated entropy); the
engines' values do not, so the regulariser enters only each information set's own update, and
at tau > 0 the limit is the fixed point above, not the dilated-entropy-regularised game's
equilibrium (both tend to Nash as tau -> 0). The step size is constant (LiteEFG adapts eta per
information set, 1 / sqrt(kappa + 2 sum ||g^t - g^(t-1)||^2), with a stabilising mix toward
the uniform strategy); no perturbation (the paper's perturbed EFG bounds every probability below
by gamma); entropy only (no Euclidean regulariser). ``halve_every = K`` halves tau after every K
iterations (LiteEFG's ``shrink_iter``): the limit then moves toward Nash.

Provenance: the stored copy of the paper shows its abstract and introduction only, so the step
above is the one the first author's LiteEFG ``Reg_CFR`` writes (``out_reg = False``), not read
from the paper's algorithm box; tests/test_reg_cfr.py checks the engines against it written
independently, bench/reg_cfr.py the limits (bench/results/reg_cfr.md)."""

from __future__ import annotations

import math

from .core.arith import predictive_update
from .core.hookspecs import hookimpl
from .core.params import Param
from .core.rule import RegretRule
from .errors import ConfigError


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


class RegularisedCFR(RegretRule):
    """Reg-CFR (Liu et al. 2023): optimistic entropic mirror descent per information set on the
    tau-regularised counterfactual loss; R' = (1 - eta tau) R + r, policy softmax(eta (R + pred)),
    pred = -eta tau R' + r (module docstring: what it computes and what it leaves out)."""

    name = "reg_cfr"
    description = "Reg-CFR: optimistic mirror descent with entropy regularisation per information set (last iterate)"
    family = "custom"
    state = ("pred",)
    predictive = True
    policy = "softmax"
    params = {
        "eta": Param("float", 1.0, "step size (the softmax's inverse temperature on R + pred); eta * tau < 1",
                     min=0.0, min_exclusive=True, max=1e6),
        "tau": Param("float", 0.01, "entropy regularisation weight (0: optimistic multiplicative weights, no "
                     "regularisation); eta * tau < 1", min=0.0, max=1e6),
        "halve_every": Param("int", 0, "halve tau after every this many iterations (0: never)", min=0),
    }

    def __init__(self, **params):
        super().__init__(**params)
        eta, tau = params.get("eta", 1.0), params.get("tau", 0.01)
        if eta * tau >= 1.0:
            raise ConfigError(f"[rule] ({self.name}): eta * tau = {eta!r} * {tau!r} = {eta * tau:g} is invalid: "
                              "expected eta * tau < 1 (the step keeps 1 - eta * tau of the old log-policy)")

    def tau_at(self, t: int) -> float:
        """The regularisation weight of iteration t's update (1-based)."""
        tau, k = float(self.config.get("tau", 0.01)), int(self.config.get("halve_every", 0) or 0)
        return tau * 0.5 ** ((t - 1) // k) if k else tau

    def kernel_prediction(self, t):
        keep = 1.0 - float(self.config.get("eta", 1.0)) * self.tau_at(t)
        return keep, -math.inf, keep, 1.0

    def update(self, regret, delta, t, state):
        predictive_update(regret, delta, state["pred"], *self.kernel_prediction(t))


@hookimpl
def register_regret_rules(register):
    register(MagneticMirrorDescent)
    register(RegularisedCFR)
