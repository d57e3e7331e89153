"""Built-in samplers: full passes (CFR), the Monte-Carlo CFR schemes of Lanctot et al. (2009) (the
generic tree engine), and the public-chance schemes of the poker engine (docs/samplers.md)."""

from __future__ import annotations

from .core.hookspecs import hookimpl
from .core.params import Param
from .core.sampler import Sampler
from .errors import ConfigError


class FullSampler(Sampler):
    """Every node in every pass: CFR as the engines always ran it (the default)."""

    name = "full"
    description = "every node in every pass (CFR; the default)"
    scheme = "full"


class ChanceSampler(Sampler):
    """Chance-sampled CFR (Zinkevich et al. 2007; Lanctot et al. 2009): one outcome drawn at each
    chance node, private deals included, every action of both players explored below it (the
    generic tree engine; the poker engine runs :class:`PublicChanceSampler` instead)."""

    name = "chance"
    description = "one chance outcome per chance node, all actions explored (chance-sampled CFR)"
    scheme = "chance"


class ExternalSampler(Sampler):
    """External-sampling MCCFR (Lanctot et al. 2009): every chance event (private deals
    included) and the opponent's actions sampled from their policies, every action of the
    updating player explored; the opponent's average takes its policy at each node visited
    (OpenSpiel's simple averaging). The generic tree engine; the poker engine runs
    :class:`PublicExternalSampler` instead."""

    name = "external"
    description = "chance and opponent sampled, updating player's actions explored (ES-MCCFR)"
    scheme = "external"
    params = {
        "prune_threshold": Param("float", 0.0, "negative-regret pruning (Pluribus): in a pruning traversal the "
                                 "updating player's actions of regret below this are not walked nor updated (never "
                                 "an action whose child is terminal); in the regret's units; 0: off", max=0.0),
        "prune_probability": Param("float", 0.95, "share of traversals that prune (Pluribus 0.95); the others "
                                   "explore every action", min=0.0, max=1.0),
        "prune_start": Param("int", 0, "iterations before pruning starts (Pluribus: its first 200 minutes)", min=0),
        "regret_floor": Param("float", 0.0, "negative regrets are never stored below this (Pluribus: -310,000,000, "
                              "just under its threshold), so a pruned action comes back after a few good "
                              "samples; in the regret's units like prune_threshold and below it; 0: off", max=0.0),
    }


class PublicChanceSampler(Sampler):
    """Public chance sampling (Johanson et al. 2012): one public chance outcome (a board) drawn
    per round, the private deals not sampled (every hand of both players is walked, as vectors),
    every action explored. The poker engine's chance sampling; not the literature's chance
    sampling, which draws the private cards too."""

    name = "public_chance"
    description = "one board per round, every private hand and action walked (PCS; poker engine)"
    scheme = "public_chance"


class PublicExternalSampler(Sampler):
    """Public chance sampling plus the opponent's actions drawn once per information set (per
    betting node, board and private hand), every private hand of both players and every action
    of the updating player walked. The poker engine's nearest scheme to external sampling, but
    a different algorithm: external-sampling MCCFR also draws the private deals (one hand pair
    per pass) and walks one history of the opponent's, this walks all of its hands."""

    name = "public_external"
    description = "one board per round, opponent's action drawn per hand, all private hands walked (poker engine)"
    scheme = "public_external"


class OutcomeSampler(Sampler):
    """Outcome-sampling MCCFR (Lanctot et al. 2009): one terminal history per pass, the updating
    player sampling epsilon-on-policy; importance-weighted regrets and stochastically weighted
    averaging. ``baseline`` adds VR-MCCFR's baseline-corrected values (Schmid et al. 2019; the
    generic tree engine; docs/samplers.md)."""

    name = "outcome"
    description = "one sampled history per pass, epsilon exploration (OS-MCCFR; VR-MCCFR with a baseline)"
    scheme = "outcome"
    params = {
        "epsilon": Param("float", 0.6, "the updating player's exploration: it samples uniformly with this "
                         "weight, on-policy otherwise (OpenSpiel's default 0.6)", min=0.0, max=1.0, min_exclusive=True),
        "baseline": Param("str", "none", "VR-MCCFR (Schmid et al. 2019): none (plain outcome sampling), learned "
                          "(per history and action, a decaying average of its sampled values), oracle (the exact "
                          "values under the current profile: a full sweep per pass, for tests and measurements)",
                          choices=("none", "learned", "oracle")),
        "baseline_decay": Param("float", 0.5, "learned baseline: b <- decay * b + (1 - decay) * sampled value, at "
                                "each visit of the action (an exponentially decaying average, as in the paper)",
                                min=0.0, max=1.0),
    }

    def __init__(self, **params):
        if params.get("baseline", "none") == "none":  # plain outcome sampling keeps the config (and the
            params.pop("baseline", None)  # checkpoints' recorded assembly) it had before baselines
            params.pop("baseline_decay", None)
        super().__init__(**params)

    def baseline(self) -> str:
        """The VR-MCCFR baseline: none, learned or oracle."""
        return str(self.config.get("baseline", "none"))

    def check(self, game, rule, averaging) -> None:
        super().check(game, rule, averaging)
        if self.baseline() == "none":
            return
        if not getattr(game, "vr_baselines", False):
            raise ConfigError(f"[sampler] baseline = {self.baseline()!r}: game {game.name!r} has no baselines "
                              "(VR-MCCFR runs on the generic tree engine: kuhn_tree, leduc_tree, openspiel); "
                              "use baseline = \"none\"")


@hookimpl
def register_samplers(register):
    for cls in (FullSampler, ChanceSampler, ExternalSampler, OutcomeSampler, PublicChanceSampler,
                PublicExternalSampler):
        register(cls)
