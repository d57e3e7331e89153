"""Built-in samplers: full passes (CFR) and the Monte-Carlo CFR schemes of Lanctot et al. (2009)."""

from __future__ import annotations

from .core.hookspecs import hookimpl
from .core.params import Param
from .core.sampler import Sampler


class FullSampler(Sampler):
    """Every node in every pass: CFR as the engines always ran it (the default)."""

    name = "full"
    description = "every node in every pass (CFR; the default)"
    scheme = "full"


class ChanceSampler(Sampler):
    """Chance-sampled CFR (Zinkevich et al. 2007; Lanctot et al. 2009): one outcome drawn at each
    chance node, every action of both players explored below it."""

    name = "chance"
    description = "one chance outcome per chance node, all actions explored (chance-sampled CFR)"
    scheme = "chance"


class ExternalSampler(Sampler):
    """External-sampling MCCFR (Lanctot et al. 2009): chance and the opponent sampled from their
    policies, every action of the updating player explored; the opponent's average takes its
    policy at each node visited (OpenSpiel's simple averaging)."""

    name = "external"
    description = "chance and opponent sampled, updating player's actions explored (ES-MCCFR)"
    scheme = "external"


class OutcomeSampler(Sampler):
    """Outcome-sampling MCCFR (Lanctot et al. 2009): one terminal history per pass, the updating
    player sampling epsilon-on-policy; importance-weighted regrets and stochastically weighted
    averaging."""

    name = "outcome"
    description = "one sampled history per pass, epsilon exploration (OS-MCCFR)"
    scheme = "outcome"
    params = {"epsilon": Param("float", 0.6, "the updating player's exploration: it samples uniformly with this "
                               "weight, on-policy otherwise (OpenSpiel's default 0.6)", min=0.0, max=1.0,
                               min_exclusive=True)}


@hookimpl
def register_samplers(register):
    for cls in (FullSampler, ChanceSampler, ExternalSampler, OutcomeSampler):
        register(cls)
