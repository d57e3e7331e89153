"""Base class of samplers: which part of the game a CFR pass visits (docs/samplers.md).

A sampler names a *scheme* that engines implement (``full``: every node, CFR; ``chance``: one
chance outcome per chance node; ``external``: chance and the opponent sampled, the updating
player's actions all explored; ``outcome``: one terminal history, the updating player sampling
with epsilon exploration; ``public_chance`` and ``public_external``: the poker engine's, which
sample the public chance events only and walk every private hand) and the parameters of that
scheme. Draws come from the counter-based
stream of :mod:`solverkit.core.rng` keyed by (``[solver] seed``, iteration, player, subgame),
so a run, its resumption and a distributed run draw the same numbers.
"""

from __future__ import annotations

from typing import ClassVar

from ..errors import ConfigError, PluginError
from .params import Param

#: the schemes engines may implement; a game lists those it supports in ``Game.samplers``
SCHEMES = ("full", "chance", "external", "outcome", "public_chance", "public_external")


#: which built-in engine runs a sampling scheme, as an error names it (a plugin's scheme: the tree engine's words)
_ENGINE_OF = {"public_chance": "poker", "public_external": "poker", "outcome": "generic tree"}
#: games of each engine, as the refusal of a scheme names them
_GAMES_OF = {"poker": "kuhn, leduc, hulhe, an ACPC game file", "generic tree": "leduc_tree, kuhn_tree, openspiel"}


def engine_of(scheme: str) -> str:
    """The engine that runs sampling `scheme` where another does not ("poker" or "generic tree")."""
    return _ENGINE_OF.get(scheme, "generic tree")


class Sampler:
    """A sampler: its ``scheme`` (one of :data:`SCHEMES`), parameters and checks.

    A sampled pass (any scheme but ``full``) touches only the values it visits, so it needs a
    rule and an averaging scheme that update one information set at a time without a sweep:
    an inline rule (discounted family, no state) playing plain regret matching whose old regrets
    are not rescaled (pre = pos = neg = 1: ``rm``, or ``rm_plus`` for MCCFR+), and an averaging
    scheme of the linear family without decay (``uniform``, ``linear``, ``quadratic``,
    ``delayed``) or ``current``. :meth:`check` refuses other combinations at config time and
    :meth:`check_coefficients` in every pass.
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    params: ClassVar[dict[str, Param]] = {}
    #: the traversal engines run for this sampler (one of SCHEMES)
    scheme: ClassVar[str] = "full"

    def __init__(self, **params):
        self.config = params
        #: ``[solver] seed``: the first field of every stream key (set by the assembly)
        self.seed = 0

    @property
    def sampled(self) -> bool:
        """True for every scheme but ``full``."""
        return self.scheme != "full"

    def epsilon(self) -> float:
        """Outcome sampling: the updating player's exploration (uniform with this weight)."""
        return float(self.config.get("epsilon", 0.0))

    def prune_threshold(self) -> float:
        """External sampling: regret below which an action is pruned (< 0), 0.0 when off."""
        return float(self.config.get("prune_threshold", 0.0) or 0.0)

    def prune_probability(self) -> float:
        """External sampling: the share of traversals that prune (the others explore everything)."""
        return float(self.config.get("prune_probability", 0.95))

    def prune_start(self) -> int:
        """External sampling: iterations before pruning starts (Pluribus: its first 200 minutes)."""
        return int(self.config.get("prune_start", 0) or 0)

    def regret_floor(self) -> float:
        """External sampling: the floor of every stored regret (< 0, in the regret's units), 0.0 when off."""
        return float(self.config.get("regret_floor", 0.0) or 0.0)

    def check(self, game, rule, averaging) -> None:
        """ConfigError unless `game`'s engine runs this scheme and `rule` / `averaging` can be
        applied sparsely (see the class docstring)."""
        supported = tuple(getattr(game, "samplers", ("full",)))
        instead = dict(getattr(game, "sampler_instead", {})).get(self.scheme)
        if self.scheme not in supported and instead:
            raise ConfigError(
                f"[sampler] name = {self.name!r}: game {game.name!r} does not run {self.scheme!r} ({instead[1]}); "
                f"use [sampler] name = \"{instead[0]}\" (its engine runs: {', '.join(supported)}; docs/samplers.md)")
        if self.scheme not in supported:
            raise ConfigError(
                f"[sampler] name = {self.name!r}: game {game.name!r} does not support sampling scheme "
                f"{self.scheme!r} (its engine runs: {', '.join(supported)}); use a game of the "
                f"{engine_of(self.scheme)} engine (e.g. {_GAMES_OF[engine_of(self.scheme)]}) or [sampler] name = \"full\"")
        if not self.sampled:
            return
        if not (rule.inline and rule.plain_policy):
            raise ConfigError(
                f"[sampler] name = {self.name!r} updates only the information sets it visits; regret rule "
                f"{rule.name!r} ({rule.family} family{', state ' + str(rule.state) if rule.state else ''}, "
                f"policy {rule.policy}{', predictive' if rule.predictive else ''}) updates whole arrays: use rule "
                "rm (MCCFR) or rm_plus (MCCFR+), or [sampler] name = \"full\"")
        if averaging.keeps_average and not averaging.inline:
            raise ConfigError(
                f"[sampler] name = {self.name!r}: averaging {averaging.name!r} is of the custom family (a sweep "
                "over the whole array); sampled passes need a linear-family scheme without decay: uniform, "
                "linear, quadratic, delayed, or current")
        if self.prune_threshold() and not getattr(game, "prunes", False):
            raise ConfigError(
                f"[sampler] prune_threshold = {self.prune_threshold():g}: game {game.name!r} does not prune; pruning "
                "runs in the generic tree engine (e.g. leduc_tree) and the blueprint engine; remove prune_threshold")
        floor, thr = self.regret_floor(), self.prune_threshold()
        if floor and not getattr(game, "prunes", False):
            raise ConfigError(
                f"[sampler] regret_floor = {floor:g}: game {game.name!r} does not floor sampled regrets; the floor "
                "runs in the generic tree engine (e.g. leduc_tree) and the blueprint engine; remove regret_floor")
        if floor and thr and floor >= thr:
            raise ConfigError(f"[sampler] regret_floor = {floor:g} is at or above prune_threshold = {thr:g}: no regret "
                              "would fall below the threshold; give a floor below it (Pluribus: -310,000,000 under "
                              "-300,000,000) or regret_floor = 0 (off)")
        lazy = hasattr(rule, "increment_weight") and getattr(game, "lazy_rule_weights", False)
        for t in (1, 2, 3, 10):
            self.check_coefficients(rule, averaging, t, lazy)

    def check_coefficients(self, rule, averaging, t: int, lazy: bool = False) -> None:
        """ConfigError when iteration t's coefficients would need a sweep: a rule that rescales
        old regrets (pre, pos, neg != 1; `lazy`: an engine that weights the deltas by the rule's
        ``increment_weight`` instead takes it) or an averaging decay != 1."""
        if not self.sampled:
            return
        pre, pos, neg, _ = rule.kernel_coefficients(t)
        if (pre, pos, neg) != (1.0, 1.0, 1.0) and not lazy:
            raise ConfigError(
                f"[sampler] name = {self.name!r}: regret rule {rule.name!r} rescales every stored regret at "
                f"iteration {t} (pre, pos, neg = {pre:g}, {pos:g}, {neg:g}), which a sampled pass that touches only "
                "visited information sets cannot do; use rule rm or rm_plus, or [sampler] name = \"full\"")
        if averaging.keeps_average:
            decay, _ = averaging.coefficients(t)
            if decay != 1.0:
                raise ConfigError(
                    f"[sampler] name = {self.name!r}: averaging {averaging.name!r} decays the whole average at "
                    f"iteration {t} (decay {decay:g}); sampled passes need decay 1: uniform, linear, quadratic, "
                    "delayed or current")


def check_sampler_class(cls) -> None:
    """Refuse a sampler class whose scheme no engine knows (at registration)."""
    if cls.scheme not in SCHEMES:
        raise PluginError(f"sampler {cls.name!r} ({cls.__module__}.{cls.__qualname__}): scheme = {cls.scheme!r}; "
                          f"valid: {', '.join(SCHEMES)}")
