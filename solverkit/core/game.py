"""Base class of games: structure, passes, best responses and strategies.

The job that describes one pass over a game is in :mod:`.pass_job` (PassJob, PassBlock), where an
information set is stored in :mod:`.infoset_place`; both are re-exported here."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from .capabilities import ExportsOpenSpiel
from .grid import Grid
from .infoset_place import InfosetPlace  # noqa: F401 (re-exported)
from .layout import Layout, policy
from .params import Param
from .pass_job import PassBlock, PassJob  # noqa: F401 (re-exported)
from .passes import policy_source
from .store import SegmentSpec
from .strategy_views import StrategyViews
from .units import Unit


class Game(StrategyViews):
    """A two-player zero-sum game the solver can run passes over.

    Subclasses declare ``name``, ``params`` and implement :meth:`layout`, :meth:`cfr_pass` and
    :meth:`best_response`. Values are in the game's native utility unit for player 0, labelled
    ``unit_name`` ("" for none); :meth:`units` adds display units derived from it. How its
    information sets are named and shown is :class:`~.strategy_views.StrategyViews`' (keys,
    action labels, where one is stored, report tables); what only some games can do is a
    capability (:mod:`.capabilities`).
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    params: ClassVar[dict[str, Param]] = {}
    #: the parameters the engine of a family of games reads (TreeGame: max_nodes; PokerGame:
    #: split_round, isomorphism, ...): a subclass that declares its own ``params`` takes them too
    engine_params: ClassVar[dict[str, Param]] = {}
    unit_name: ClassVar[str] = ""
    #: largest number of information sets `solverkit export` writes as JSON
    export_limit: ClassVar[int] = 200_000
    #: True when :meth:`best_response_from_store` recomputes everything from the stored values
    #: (no incremental state), so the solver may use it for its final, exact evaluation and
    #: never gather the whole strategy for it
    store_walk_is_exact: ClassVar[bool] = False
    #: bytes of this game's regrets and averages as float64 (0: unknown); the solver refuses a
    #: float64 store in memory that cannot fit, before allocating it
    store_estimate: int = 0
    #: sampling schemes this game's engine runs (``[sampler]``, :mod:`solverkit.core.sampler`)
    samplers: ClassVar[tuple[str, ...]] = ("full",)
    #: ``[store] precision`` values this game's engine takes: float64 and block16 (decoded to
    #: float64 for any kernel) everywhere; float32 where the kernels read and write float32
    #: arrays as they are (the poker engine: :meth:`warmup` then takes the dtype)
    store_precisions: ClassVar[tuple[str, ...]] = ("float64", "block16")
    #: which of this game's configurations its ``openspiel_table`` (ExportsOpenSpiel) exports, as the refusal of
    #: any other game lists them ("": every one, named by the game's name)
    openspiel_exports: ClassVar[str] = ""
    #: players of this game (2 to 6; an instance may set its own from its parameters). With more
    #: than two, :meth:`best_response` and :meth:`expected_values` give one value per player and
    #: the solver reports NashConv (docs/players.md)
    num_players: int = 2

    def __init_subclass__(cls, **kwargs):
        """A subclass that declares its own ``params`` without some of its family's
        :attr:`engine_params` gets them in front of its own (the engine reads them: without
        them a config could not set them, and the engine met a KeyError or a guessed default)."""
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("params")
        if own is not None and cls.engine_params:
            cls.params = {**{k: p for k, p in cls.engine_params.items() if k not in own}, **own}

    def __init__(self, **params):
        self.config = params

    def definition(self) -> dict:
        """This game's full definition as JSON data: its name and every parameter not at its
        default, a file parameter by its content's sha256 (an edited file is another game). Its hash is the
        game's identity (:mod:`.identity`), stored with every strategy, result and checkpoint
        and checked when they are read; a game whose rules come from elsewhere adds them."""
        from .identity import file_digest

        files = self.local_files(self.config)
        out: dict[str, object] = {"name": self.name}
        for key, value in self.config.items():
            declared = self.params.get(key)
            if declared is not None and not declared.required and value == declared.default:
                continue  # a default is left out: a parameter added later keeps saved runs' identity
            try:
                out[key] = {"sha256": file_digest(value)} if key in files else value
            except OSError:  # the file went away after the game was built: its name only
                out[key] = {"file": str(value)}
        return out

    def units(self) -> tuple[Unit, ...]:
        """Display units of this game's values (each adds metrics columns, result fields and a
        ``[solver] target_<key>``); default none: only the native values."""
        return ()

    # --- structure ---------------------------------------------------------------------------

    def layout(self, player: int) -> Layout:
        """Information-set layout of `player`'s flat value arrays."""
        raise NotImplementedError

    def segments(self, with_average: bool) -> list[SegmentSpec]:
        """Segments of the value store. Default: one segment ``root`` holding
        ``regret0``, ``regret1`` (and ``avg0``, ``avg1`` when an average is kept)."""
        arrays = {}
        for p in range(self.num_players):
            arrays[f"regret{p}"] = self.layout(p).size
        if with_average:
            for p in range(self.num_players):
                arrays[f"avg{p}"] = self.layout(p).size
        return [SegmentSpec("root", arrays)]

    def value_units(self) -> np.ndarray:
        """Per round: the factor that turns a stored regret into chips (the unit of
        ``[store] regret_scale``). Games whose regrets carry chance weights (poker: 1/deals)
        return the inverse weight; default 1."""
        return np.ones(1)

    def segment_grid(self, key: str, name: str) -> Grid | None:
        """How the store's predictor walks array `name` of segment `key` (None: flat). The
        default maps the ``root`` segment's arrays to the player's layout blocks."""
        if key == "root" and name[-1:].isdigit() and int(name[-1]) < self.num_players:
            return Grid.from_layout(self.layout(int(name[-1])))
        return None

    def warmup(self) -> None:
        """Compile or load this game's kernels, so that solve timings exclude compilation."""

    def checkpoint_state(self) -> dict:
        """What of this game's own run state (beside the store's values) a checkpoint keeps: small
        msgpack-able values ({}: none), handed back to :meth:`restore_checkpoint_state` on resume."""
        return {}

    def restore_checkpoint_state(self, state: dict) -> None:
        """Take back :meth:`checkpoint_state`'s values ({}: a new run's, as a rollback to the start has)."""

    # --- passes ------------------------------------------------------------------------------

    def cfr_pass(self, store, job: PassJob, transport) -> int | None:
        """Run one CFR pass and update `store` in place; return the number of nodes it visited
        (metrics.csv ``nodes_touched``), or None when the game does not count them."""
        raise NotImplementedError

    def cfr_block(self, store, block: PassBlock, transport) -> int | None:
        """Run a block of passes (:class:`PassBlock`) in order; returns the nodes visited
        (None if a pass did not count). Default: :meth:`cfr_pass` per job; an engine with
        sampled passes runs them in one kernel call."""
        total: int | None = 0
        for job in block.jobs():
            n = self.cfr_pass(store, job, transport)
            total = None if n is None or total is None else total + int(n)
        return total

    def prepare_block(self, store, block: PassBlock, transport) -> None:
        """Before the first :meth:`cfr_block` (untimed): anything a first call pays once, such as
        a kernel's signature resolved and loaded, so that solve time counts only the passes.
        Default: nothing."""

    def forget_store_caches(self, store) -> None:
        """The store's values were changed from outside the passes (``[solver] jitter``): drop
        anything derived from them that the next pass would otherwise reuse. Default: nothing."""

    def blocks_passes(self, rule, averaging, store) -> bool:
        """True when :meth:`cfr_block` runs a block of *full* passes faster than one call each,
        with the same numbers (the solver then hands this game blocks of iterations between
        evaluations). Default False; sampled passes are always handed in blocks."""
        return False

    def engine_for_sampler(self, scheme: str) -> "Game | None":
        """This same game built on another engine that runs sampling `scheme`, which this one's
        does not (None: there is none). :func:`~solverkit.core.config.load_config` takes it, saying
        so on stderr: a poker-engine Kuhn or Leduc asked for outcome sampling runs as the tree
        engine's ``kuhn_tree`` / ``leduc_tree`` (the poker engine is the faster one where both run:
        docs/samplers.md)."""
        return None

    def check_sampler(self, sampler, solver: dict) -> None:
        """ConfigError when this game's engine cannot run `sampler` with the ``[solver]`` settings
        `solver` (called once the sampler is checked against the rule and averaging)."""

    @classmethod
    def local_files(cls, params: dict) -> dict[str, str]:
        """The parameters of a [game] table `params` whose values name files this game would read
        on the machine that builds it, as {parameter: value}: a network transport sends their
        content to its workers instead (and a worker refuses a table in which any remain).
        Default: every non-empty string parameter declared ``Param("path")`` or ``file=True``;
        a game whose file parameter may also be a built-in name leaves the names out."""
        return {k: v for k, p in cls.params.items()
                if (p.type == "path" or p.file) and isinstance(v := params.get(k), str) and v}

    def best_response_from_store(self, store, kind: str, transport=None) -> tuple[float, float] | None:
        """Optional fast path: (br_0, br_1) of the store's ``kind`` strategy ("average" or
        "current") straight from the store (values the passes maintain, or a pass over the
        segments through `transport`); None means "use :meth:`best_response`"."""
        return None

    def result_fields(self, store, kind: str, transport=None) -> dict:
        """Extra ``result.json`` fields of the store's ``kind`` strategy ("average" or "current"),
        for example a poker spot's expected values and equities; none by default."""
        return {}

    def best_response(self, strategy: list[np.ndarray]) -> tuple[float, float]:
        """(br_0, br_1): value of each player's best response to the other's strategy (one
        value per player in a game of more than two)."""
        raise NotImplementedError

    def expected_values(self, strategy: list[np.ndarray]) -> tuple[float, ...]:
        """Each player's expected utility when everyone plays `strategy`: what a game of more than
        two players implements beside :meth:`best_response` (NashConv = sum of the differences)."""
        raise NotImplementedError(f"game {self.name!r} does not give its players' values")

    # --- strategies --------------------------------------------------------------------------

    def strategy(self, store, which: str) -> list[np.ndarray]:
        """Per-player flat policy: ``"current"`` (regret matching) or ``"average"``."""
        seg = store.read("root")
        players = range(self.num_players)
        if which == "current":
            return [policy(policy_source(store, seg, "root", p), self.layout(p)) for p in players]
        return [policy(seg[f"avg{p}"], self.layout(p)) for p in players]

    def strategy_kind_text(self, kind: str) -> str:
        """How a strategy file of `kind` ("average" or "current") plays, in words (a game whose
        export mixes them says so)."""
        return kind

    def strategy_of(self, store, which: str, player: int, out=None, release=None, parallel=None) -> np.ndarray:
        """One player's flat policy, into `out` when given (a game may fill it piece by piece,
        calling `release()` after each piece, so a memory-mapped `out` never sits whole in
        memory, and run the pieces through `parallel`, a ``map(fn, items)`` on threads)."""
        pol = self.strategy(store, which)[player]
        if out is None:
            return pol
        out[:] = pol
        return out

    def segment_policy(self, store, segment: str, which: str, player: int) -> np.ndarray:
        """`player`'s policy ("average" or "current") over segment `segment` alone, in the
        segment's own order: what one owner writes into a distributed strategy's part, which
        :meth:`infoset_place` finds an information set in. Default: the ``root`` segment."""
        if segment != "root":
            raise KeyError(f"game {self.name!r} has no segment {segment!r}; segments: root")
        seg = store.read("root")
        values = policy_source(store, seg, "root", player) if which == "current" else seg[f"avg{player}"]
        return policy(values, self.layout(player))

    def real_policy(self, strategy: list[np.ndarray]):
        """(game, strategy): the real game and this game's `strategy` played in it, for
        ``solverkit exploit --real``: the game itself for games without abstraction; an abstracted
        game maps its policy onto the unabstracted game where that is small enough."""
        return self, strategy

    @classmethod
    def size_report(cls, params: dict) -> list[tuple[str, str]]:
        """``solverkit info`` lines for these parameters; default: build the game and count
        each player's information sets (large games override it to count without building)."""
        game = cls(**params)
        return [("game", cls.name)] + [
            (f"player {p} information sets / values", f"{game.layout(p).num_infosets:,} / {game.layout(p).size:,}")
            for p in range(game.num_players)
        ]


def openspiel_exports() -> str:
    """What ``export --format openspiel`` takes, for its refusals: each registered game that
    is :class:`~.capabilities.ExportsOpenSpiel`, as its ``openspiel_exports`` says (a poker game
    only with the kuhn or leduc rules, not every game of the family)."""
    from .registry import get_registry

    reg = get_registry()
    texts = []
    for name in reg.names("game"):
        cls = reg.get("game", name)
        if issubclass(cls, ExportsOpenSpiel):
            text = cls.openspiel_exports or cls.name
            if text not in texts:
                texts.append(text)
    return f"--format openspiel supports: {', '.join(texts)}"


def warm_up(game, store) -> None:
    """``game.warmup()``, handed the dtype of `store`'s arrays where they are not float64 (a game
    that takes float32 values, :attr:`Game.store_precisions`, loads its kernels for them)."""
    if store.dtype == np.float64:
        game.warmup()
    else:
        game.warmup(dtype=store.dtype)
