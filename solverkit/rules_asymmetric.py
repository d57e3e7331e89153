"""Asymmetric step sizes for predictive CFR+ (Meng, Yang, Zhang, Ge and Gao, "Faster Game
Solving via Asymmetry of Step Sizes", arXiv 2503.12770, AAAI 2026): the prediction that the
policy adds to the regrets takes a step 1 / (1 + alpha) of the explicit update's, which damps an
inaccurate prediction. SAPCFR+ fixes alpha = 2: play [R + r / 3]^+ where PCFR+ plays [R + r]^+,
the paper's update rule; its Table 2 (Leduc with 5, 9 and 13 ranks) is reproduced within 12% by
bench/apcfr_paper.py (docs/reproductions.md).
"""

from __future__ import annotations

from .core.arith import predictive_update
from .core.hookspecs import hookimpl
from .core.params import Param
from .core.rule import RegretRule


class SimpleAsymmetricPCFRPlus(RegretRule):
    """SAPCFR+ (Meng et al. 2025): RM+ regrets, R = max(R + r, 0), and the next policy regret
    matching of R + r / (1 + alpha) (alpha = 2 as published; alpha = 0 is PCFR+). ``pred``
    holds the damped prediction r / (1 + alpha)."""

    name = "sapcfr_plus"
    description = "predictive RM+ with the prediction damped: play [R + r/(1+alpha)]^+ (SAPCFR+)"
    family = "custom"
    state = ("pred",)
    predictive = True
    params = {"alpha": Param("float", 2.0, "asymmetry: the prediction's step is 1/(1 + alpha) of the "
                             "regrets' (0: PCFR+)", min=0.0, max=1000.0)}

    def prediction_weight(self) -> float:
        return 1.0 / (1.0 + self.config["alpha"])

    def kernel_prediction(self, t):
        return 1.0, 0.0, 1.0, self.prediction_weight()

    def update(self, regret, delta, t, state):
        # R = max(R + r, 0), pred = r * w (the same doubles as r, then pred *= w)
        predictive_update(regret, delta, state["pred"], *self.kernel_prediction(t))


@hookimpl
def register_regret_rules(register):
    register(SimpleAsymmetricPCFRPlus)
