"""BlueprintGame: the solver's view of a :class:`~solverkit.blueprint.engine.Blueprint` (the store
holds one ``regret`` array of every player's values, player p's at ``bp.base[p]:bp.base[p + 1]``,
and one ``avg`` array of the kept rounds' averages, compact at ``bp.aoff``, which the kernel updates in place: one kernel call per block, no copy
of the values, which run to gigabytes for six players)."""

from __future__ import annotations

import contextlib
import math

import numpy as np

from solverkit.core.game import Game, PassBlock, PassJob
from solverkit.core.store import SegmentSpec
from solverkit.core.params import Param
from solverkit.blueprint.distributed import ReplicaSubgames
from solverkit.errors import ConfigError, SolverkitError

# the engine (solverkit.blueprint, solverkit.poker.nplayer) is imported where a game is built or
# used, not when the plugin registers: every command line start registers the plugin

#: game-tree nodes up to which the blueprint's evaluation enumerates its game (Leduc with 13
#: ranks: 1,179,777 nodes, 28 s on the shared machine; 3 million would take over a minute)
EXACT_NODES = 1_500_000

#: replicas > 1: iterations per replica between merges (bench/results/blueprint_threads.md)
SYNC_EVERY = 1_000
#: replicas > 1: rounds per doubling of their length up to sync_every
SYNC_RAMP = 200


class BlueprintGame(ReplicaSubgames, Game):
    """An N-player ACPC game (2 to 6 players; limit, or no-limit under an action abstraction)
    solved by blueprint MCCFR; information sets
    are (betting node, bucket of the acting player's cards on its round), imperfect recall.
    With replicas > 1 on a zmq or dask transport, replicas 1..W-1 run on the workers
    (solverkit.blueprint.distributed: its subgames)."""

    name = "blueprint"
    description = "Pluribus-style blueprint MCCFR over an N-player ACPC game (limit or no-limit) and a card abstraction"
    unit_name = "chips"
    samplers = ("external",)
    sampler_instead = {"full": ("external", "the blueprint engine samples the deal and the others' actions")}
    prunes = lazy_rule_weights = True
    params = {
        "gamedef": Param("str", None, "bundled game (kuhn.limit.3p, leduc, leduc.nolimit, holdem.nolimit.2p."
                         "reverse_blinds, ...) or an ACPC .game path, limit or no-limit, 2-6 players",
                         required=True, file=True),
        "abstraction": Param("str", "fcpa", "no-limit action abstraction: fcpa (fold, call, pot, all-in), fc, or "
                             "sizes ([game.sizes] lists per street and raise depth)", choices=("fcpa", "fc", "sizes")),
        "sizes": Param("table", {}, "abstraction = \"sizes\": [game.sizes.<street>] bet = \"50%, 100%, a\", raise = "
                       "\"100%, a\", raise2 = ... (docs/blueprint.md)"),
        "max_raises": Param("int", 0, "no-limit: raises a round the action abstraction allows (0: as the stacks "
                            "allow); six players need a cap for the tree to fit", min=0, max=20),
        "players": Param("int", 0, "players (0: the file's numPlayers; else it must agree)", min=0, max=6),
        "average_rounds": Param("int", 1, "rounds whose average strategy is kept and exported (Pluribus: 1, the "
                                "first round; later rounds export the current strategy)", min=0, max=8),
        "max_nodes": Param("int", 5_000_000, "refuse betting trees with more nodes than this", min=1),
        "replicas": Param("int", 1, "data-parallel MCCFR: W copies of the regrets (and averages) run their shares of "
                          "each round of W x sync_every iterations from the same start, on [transport] threads "
                          "(or replicas 1..W-1 on zmq / dask workers), and their changes are summed (1: one copy, "
                          "the serial run; docs/blueprint.md)",
                          min=1, max=64),
        "sync_every": Param("int", SYNC_EVERY, "replicas > 1: iterations each replica runs between merges once the "
                            "rounds have grown (a round is replicas x that many iterations)", min=1),
        "sync_start": Param("int", 0, "replicas > 1: iterations a replica in the first rounds (0: 1, or on "
                            "trees of over 2^20 values, values / 4,096, so that copying them stays a small part "
                            "of a round)",
                            min=0),
        "sync_ramp": Param("int", SYNC_RAMP, "replicas > 1: rounds at each length on the way from sync_start to "
                           "sync_every, doubling after each; 0: sync_every from the first", min=0),
        "regrets": Param("str", "float64", "how regrets are stored: float64 (8 bytes a value, lcfr's weights lazy) or "
                         "int32 (4 bytes, Pluribus's fixed point: units of 1 / regret_scale chip, floored at "
                         "regret_floor, lcfr's discount applied every discount_every iterations; docs/blueprint.md)",
                         choices=("float64", "int32")),
        "regret_scale": Param("float", 0.0, "regrets = \"int32\": stored units per chip (0: the power of two that puts "
                              "the game's largest pot at most 65,536 units)", min=0.0),
        "regret_floor": Param("float", 0.0, "regrets = \"int32\": the floor of every regret, in chips like "
                              "[sampler] prune_threshold (0: Pluribus's -310,000,000 stored units)", max=0.0),
        "discount_every": Param("int", 0, "regrets = \"int32\": iterations between lcfr's explicit discounts (0: "
                                "lcfr's until / 40, or 1,000 without until)", min=0),
        "exact_nodes": Param("int", EXACT_NODES, "NashConv and best responses are exact (the tree engine's) on "
                             "games whose full tree has at most this many nodes, NaN above (0: never); the tree "
                             "is enumerated in Python at the first evaluation, about 25 s a million nodes", min=0),
    }

    @classmethod
    def local_files(cls, params):
        """`gamedef` when it is a file, not a bundled name."""
        from solverkit.poker.gamedef import bundled_names

        return {} if params.get("gamedef") in bundled_names("any", None) else super().local_files(params)

    def __init__(self, **params):
        super().__init__(**params)
        from solverkit.blueprint.nolimit import load_any_table

        gd = load_any_table(params["gamedef"])
        want = int(params.get("players") or 0)
        if want and want != gd.num_players:
            raise ConfigError(f"[game] players = {want} is invalid for {params['gamedef']!r}, a game of "
                              f"{gd.num_players} players: leave players out or give {gd.num_players}")
        self.gd = gd
        self.size_lists = self._size_lists()  # bad [game.sizes] refused before anything is built
        self.raise_cap = self._raise_cap()
        self.num_players = gd.num_players
        from solverkit.blueprint.int32 import check_replicas

        check_replicas(self.int32, self.replicas)
        self._abstraction = None
        self._table = None

    @property
    def bp(self):
        """The engine (a solverkit.blueprint.engine.Blueprint), built on first use (after
        [abstraction] has given its table, so a hold'em game never builds the lossless table it
        would refuse)."""
        if "_bp" not in self.__dict__:
            from solverkit.blueprint.engine import Blueprint

            self._bp = Blueprint(self.gd, self._table, average_rounds=int(self.config.get("average_rounds", 1)),
                                 abstraction=self.config.get("abstraction") or "fcpa",
                                 max_nodes=int(self.config.get("max_nodes") or 5_000_000),
                                 max_raises=self.raise_cap, seed=self._seed, sizes=self.size_lists,
                                 regrets=self.config.get("regrets") or "float64",
                                 regret_scale=float(self.config.get("regret_scale") or 0.0),
                                 regret_floor=float(self.config.get("regret_floor") or 0.0),
                                 discount_every=int(self.config.get("discount_every") or 0))
        return self._bp

    @property
    def int32(self) -> bool:
        """Regrets stored as int32 (solverkit.blueprint.int32), two to a float64 slot of the store."""
        return self.config.get("regrets") == "int32"

    def _regrets(self, arr):
        """The regrets in store array `arr`: itself (float64), or the int32 values packed in it (a view)."""
        if not self.int32:
            return arr
        from solverkit.blueprint.int32 import unpacked

        return unpacked(arr, int(self.bp.base[-1]))

    @classmethod
    def size_report(cls, params: dict, abstraction=None) -> list[tuple[str, str]]:
        """Information sets and values per player, and the memory of the regrets (float64 or int32)
        and the kept rounds' averages the store holds. `abstraction`: the config's [abstraction]
        plugin, whose bucket counts alone are read (its table is neither built nor loaded)."""
        from solverkit.core.memory import human_bytes

        game = cls(**params)  # (built once: the default report would build it again)
        rows = [("game", cls.name)]
        if abstraction is not None:
            from solverkit.blueprint.engine import BucketCounts
            from solverkit.abstraction.spec import CardSpec

            spec = CardSpec.of(game.gd)
            buckets, where = bucket_counts(abstraction, spec)
            game._table = BucketCounts(spec, buckets)
            rows.append(("buckets per round", f"{list(buckets)} ({where})"))
        rows += [(f"player {p} information sets / values", f"{game.layout(p).num_infosets:,} / {game.layout(p).size:,}")
                 for p in range(game.num_players)]
        n, na = int(game.bp.base[-1]), int(game.bp.asize)
        each = 4 if game.int32 else 8
        kind = "int32" if game.int32 else "float64"
        rows.append(("memory (regrets + averages)", f"{human_bytes(each * n + 8 * na)}: regrets {n:,} values x {each} "
                     f"bytes ({kind}) = {human_bytes(each * n)}, averages (rounds < average_rounds = "
                     f"{game.bp.average_rounds}) {na:,} x 8 bytes = {human_bytes(8 * na)}"))
        if game.int32:
            fx = game.bp.fixed
            rows.append(("int32 regrets", f"{fx.scale:g} stored units a chip, floor {fx.floor:,} units "
                         f"({fx.floor / fx.scale:g} chips)"))
        return rows

    def _size_lists(self):
        """abstraction = "sizes": the per-round lists of [game.sizes] (solverkit.blueprint.sizes);
        None otherwise (sizes given to another abstraction, or to a limit game, are refused)."""
        kind, table = self.config.get("abstraction") or "fcpa", self.config.get("sizes") or {}
        if kind != "sizes":
            if table:
                raise ConfigError(f"[game.sizes] is given with abstraction = {kind!r}: set abstraction = \"sizes\" "
                                  "to use the lists, or remove them")
            return None
        if not self._no_limit():
            raise ConfigError(f"[game] abstraction = \"sizes\": {self.gd.source} is a limit game (every bet is its "
                              "raiseSize); size lists apply to no-limit files")
        from solverkit.blueprint.sizes import parse_sizes

        return parse_sizes(table, self.gd.num_board_cards)

    def _no_limit(self) -> bool:
        """Whether the game definition is a no-limit one (a NoLimitTable)."""
        from solverkit.blueprint.nolimit import NoLimitTable

        return isinstance(self.gd, NoLimitTable)

    def _raise_cap(self) -> int:
        """Raises a round the no-limit tree allows (0: as the stacks allow): the file's maxRaises
        (one value for every round) and [game] max_raises, the smaller where both are given, so the
        blueprint never solves a game with more raises than the file's."""
        cap = int(self.config.get("max_raises") or 0)
        if self._no_limit():
            from solverkit.poker.gamedef import gamedef_text, read_gamedef

            fields = read_gamedef(*gamedef_text(self.config["gamedef"]))[2]
            caps = list(fields.get("maxraises", (0, []))[1][:self.gd.num_rounds])
            if len(set(caps)) > 1:
                raise ConfigError(f"{self.gd.source}: maxRaises = {caps}: the blueprint's no-limit tree takes one "
                                  "raise cap for every round (or none); give equal values or remove the line and "
                                  "set [game] max_raises")
            if caps and caps[0] > 0:
                cap = min(cap, caps[0]) if cap else caps[0]
        return cap

    def with_abstraction(self, abstraction, definition: dict) -> "Game":
        from solverkit.abstraction.spec import CardSpec

        self._abstraction = definition
        self._table = abstraction.table(CardSpec.of(self.gd))
        self.__dict__.pop("_bp", None)
        self.__dict__.pop("_scratches", None)  # the engine's buffers and the replicas' plan: of its tree
        self.__dict__.pop("_remote_scratches", None)
        self.__dict__.pop("_plan", None)
        self.__dict__.pop("_tree", None)  # its map reads the buckets
        return self

    def definition(self) -> dict:
        out = super().definition()
        if self._abstraction is not None:
            out["abstraction"] = self._abstraction
        return out

    def layout(self, player):
        return self.bp.layouts[player]

    def segments(self, with_average: bool) -> list[SegmentSpec]:
        """One segment, ``regret`` holding every player's values at bp.base (and ``avg``, the kept
        rounds' averages at bp.aoff: compact); with
        replicas > 1 also ``replicas`` (the open round and its start) and ``replica<j>`` for
        j = 1..W-1, replica j's copy (solverkit.blueprint.parallel; on a zmq run, worker-owned)."""
        size = int(self.bp.base[-1])
        from solverkit.blueprint.int32 import packed_size

        asize = int(self.bp.asize)  # the kept rounds' averages only
        specs = [SegmentSpec("root", {"regret": packed_size(size) if self.int32 else size,
                                      **({"avg": asize} if with_average else {})})]
        if self.replicas > 1:
            from solverkit.blueprint.parallel import SEGMENT, segment_of

            arrays = self.plan.arrays(with_average)
            copy = self.plan.copy_arrays(with_average)
            self._check_replica_memory(size + (asize if with_average else 0),
                                       sum(arrays.values()) + (self.replicas - 1) * sum(copy.values()))
            specs.append(SegmentSpec(SEGMENT, arrays))
            specs += [SegmentSpec(segment_of(j), dict(copy)) for j in range(1, self.replicas)]
        return specs

    @property
    def replicas(self) -> int:
        return int(self.config.get("replicas") or 1)

    @property
    def plan(self):
        """replicas > 1: the rounds and the replicas' arrays (solverkit.blueprint.parallel.Plan)."""
        if "_plan" not in self.__dict__:
            from solverkit.blueprint.parallel import Plan

            self._plan = Plan(self.bp, self.replicas, int(self.config.get("sync_every") or SYNC_EVERY),
                              int(self.config.get("sync_ramp", SYNC_RAMP)), int(self.config.get("sync_start") or 0))
        return self._plan

    def _check_replica_memory(self, values: int, extra: int) -> None:
        """ConfigError when the regrets and averages (`values`) and the replicas' arrays (`extra`
        values: the round's start and replicas 1..W-1) do not fit in this machine's memory share."""
        from solverkit.core.memory import MEMORY_SHARE, human_bytes, physical_memory

        have = physical_memory()
        need = 8 * (values + extra)
        if have and need > MEMORY_SHARE * have:
            raise ConfigError(f"[game] replicas = {self.replicas}: the regrets and averages ({human_bytes(8 * values)}) "
                              f"and the replicas' copies ({human_bytes(8 * extra)}) need {human_bytes(need)}, which "
                              f"does not fit in {MEMORY_SHARE:.0%} of this machine's {human_bytes(have)}: use fewer "
                              "replicas (1: no copy)")

    #: the [sampler] seed, kept until the engine is built (after [abstraction] gives its table)
    _seed = 0

    def check_sampler(self, sampler, solver):
        self._seed = int(sampler.seed)
        if "_bp" in self.__dict__:
            self._bp.seed = self._seed

    # --- passes ----------------------------------------------------------------------------

    def cfr_pass(self, store, job: PassJob, transport=None) -> int:
        """Iteration job.iteration's traversals of job.players only."""
        return self.cfr_block(store, PassBlock(job.iteration, 1, (tuple(job.players),), job.rule, job.averaging,
                                               job.sampler), transport)

    def cfr_block(self, store, block: PassBlock, transport=None) -> int:
        """Iterations block.first.. of the traversals of the players of block.groups, from the
        first group's player on (each updates as it goes, so the players alternate within an
        iteration whatever the update order; an iteration split into passes gives the same numbers)."""
        rule, averaging, sampler = block.rule, block.averaging, block.sampler
        self.bp.seed, self.bp.sampler_floor = int(sampler.seed), sampler.regret_floor()
        ts = np.arange(block.first, block.first + block.count, dtype=np.int64)
        lazy = getattr(rule, "increment_weight", None)
        for t in (int(ts[0]), int(ts[-1])):
            sampler.check_coefficients(rule, averaging, t, lazy is not None)
            floor = rule.kernel_coefficients(t)[3]
            if floor != -math.inf:  # (the kernel adds deltas unfloored: rm_plus would run as rm)
                raise ConfigError(f"[rule] name = {rule.name!r} floors every regret at {floor:g} after each update, "
                                  "which the blueprint's kernel does not do (it sums regrets as MCCFR): use rule "
                                  "rm or lcfr, or the tree engine's game of these rules (e.g. kuhn_tree, leduc_tree)")
        if self.int32:
            self._check_int32(store, sampler)
        rw, thr, disc = self.bp.schedule(ts, rule, sampler.prune_threshold(), sampler.prune_start())
        keep = averaging.keeps_average
        w = averaging.coefficients_block(block.first, block.count)[:, 1].copy() if keep else np.zeros(ts.size)
        with store.open("root", ["regret", "avg"] if keep else ["regret"]) as seg:
            reg = self._regrets(seg["regret"])
            avg = seg["avg"] if keep else np.zeros(1)  # (weights 0: never read)
            mask = 0
            for g in block.groups:
                for p in g:
                    mask |= 1 << p
            lead = block.groups[0][0] if block.groups and block.groups[0] else 0  # alternating: first_update
            masks = np.full(ts.size, mask)
            if self.replicas == 1:
                count = self.bp.block(ts, masks, lead, rw, thr, sampler.prune_probability(), w, reg, avg, disc=disc)
                if self.int32:
                    self._say_clipped()
                return count
            from solverkit.blueprint.parallel import SEGMENT, run_block

            with store.open(SEGMENT) as state, contextlib.ExitStack() as copies:
                if transport is not None and not transport.trusted_values:  # zmq / dask: on the workers
                    others = self.remote_replicas(transport, sampler.seed)
                else:
                    others = self._local_replicas(store, copies, keep, transport)
                return run_block(self.bp, self.plan, ts, masks, lead, rw, thr, sampler.prune_probability(), w, reg,
                                 avg, state, others, keep)

    def _check_int32(self, store, sampler) -> None:
        """ConfigError (once checked, quiet after): int32 regrets in a store that rewrites its values
        ([store] regret_scale, precision) or a pruning threshold at or below the floor."""
        if self.__dict__.get("_int32_checked"):
            return
        if not store.exact:
            raise ConfigError("[game] regrets = \"int32\" keeps its own fixed point: it cannot be combined with "
                              "[store] regret_scale / avg_scale / precision = \"block16\" (remove them)")
        self.bp.fixed.check_threshold(sampler.prune_threshold())
        self._int32_checked = True

    def checkpoint_state(self) -> dict:
        """int32 regrets: how many values clipped so far and the first iteration that clipped
        one, so that a resumed run still warns of clipping before its checkpoint."""
        if not self.int32:
            return {}
        return {"int32_clipped": [int(x) for x in self.bp.clipped]}

    def restore_checkpoint_state(self, state: dict) -> None:
        if not self.int32:
            return
        clipped = state.get("int32_clipped", [0, 0])
        if not isinstance(clipped, list) or len(clipped) != 2 or min(clipped) < 0:
            raise SolverkitError(f"checkpoint game_state int32_clipped = {clipped!r:.60} is invalid: expected [clipped "
                                 "values, first iteration that clipped] (a damaged checkpoint: resume from another)")
        self.bp.clipped[:] = (int(clipped[0]), int(clipped[1]))
        self.__dict__.pop("_clip_said", None)

    def _say_clipped(self) -> None:
        """The one warning (stderr) when int32 regrets first reach the int32 range."""
        count, first = (int(x) for x in self.bp.clipped)
        if count and not self.__dict__.get("_clip_said"):
            import sys

            from solverkit.blueprint.int32 import saturation_line

            self._clip_said = True
            print(saturation_line(count, first, self.bp.fixed.scale), file=sys.stderr)

    def _local_replicas(self, store, stack, keep: bool, transport):
        """Replicas 1..W-1 in this process: their segments opened on `stack`, run on `transport`'s threads."""
        from solverkit.blueprint.parallel import LocalReplicas, segment_of, serial

        scratches = self.__dict__.get("_scratches")
        if scratches is None:  # the kernel's buffers, one set a replica, made once (not every block)
            scratches = self._scratches = [self.bp.new_scratch() for _ in range(self.replicas)]
        segs = [stack.enter_context(store.open(segment_of(j))) for j in range(1, self.replicas)]
        return LocalReplicas([s["rcopy"] for s in segs], [s["acopy"] for s in segs] if keep else [],
                             scratches, transport.map_local if transport is not None else serial)

    # --- strategies and evaluation ---------------------------------------------------------

    def strategy_kind_text(self, kind: str) -> str:
        k = self.bp.average_rounds
        if kind != "average" or k >= self.gd.num_rounds:
            return kind
        if k == 0:
            return "current on every round ([game] average_rounds = 0)"
        kept = "round 1" if k == 1 else f"rounds 1-{k}"
        return f"average on {kept}, current on the later rounds (Pluribus's export; [game] average_rounds = {k})"

    def strategy(self, store, which):
        """The average on the first average_rounds rounds, the current strategy after (the export
        Pluribus used); "current": regret matching everywhere."""
        seg = store.read("root")
        P, base = self.num_players, self.bp.base
        reg = self._regrets(np.asarray(seg["regret"]))
        avg = np.asarray(seg["avg"]) if which != "current" and "avg" in seg else np.zeros(self.bp.asize)
        pol = self.bp.policy(reg, avg)
        return [pol[base[p]:base[p + 1]] for p in range(P)]

    def _tree_game(self):
        """The tree engine's game of the same rules, or None: kuhn_tree / leduc_tree where they
        play this file's rules, else the tree-engine game of the file itself (AcpcTreeGame: the
        same betting tree, so the same betting strings) when it has at most `exact_nodes` nodes."""
        if "_tree" not in self.__dict__:
            limit = int(self.config.get("exact_nodes", EXACT_NODES))  # 0: never, Kuhn and Leduc too
            self._tree = None if limit <= 0 else self._named_tree_game() or self._acpc_tree_game(limit)
            self._tree_index = None
        return self._tree

    def _named_tree_game(self):
        """kuhn_tree / leduc_tree with this many players when their rules are this limit file's."""
        if self._no_limit():
            return None
        from solverkit.core.registry import get_registry
        from solverkit.poker.nplayer import tree_table

        for name in ("kuhn_tree", "leduc_tree"):
            try:
                g = get_registry().get("game", name)(players=self.num_players)
            except Exception:  # noqa: BLE001 - a variant the tree engine does not build
                continue
            if _same_rules(tree_table(g), self.gd):
                return g
        return None

    def _acpc_tree_game(self, limit: int):
        """The file's own tree-engine game (no-limit: under this blueprint's abstraction and
        raise cap), or None when it has more than `exact_nodes` nodes (hold'em: refused on its
        deal count before anything is enumerated). The blueprint's betting tree is a lower bound
        on the game tree's nodes, checked first so that no large betting tree is enumerated twice."""
        if self.bp.tree.num_nodes > limit:
            return None
        from solverkit_poker.nplayer_tree import tree_game_of

        try:
            return tree_game_of(self.gd, self.gd.source, self.config.get("abstraction") or "fcpa",
                                self.raise_cap, max_nodes=limit, sizes=self.size_lists)
        except ConfigError:
            return None

    def _mapped(self, strategy):
        g = self._tree_game()
        if g is None:
            return None, None
        from solverkit.blueprint.tree_map import tree_index, tree_strategy

        if self._tree_index is None:
            self._tree_index = tree_index(self.bp, g)
        pol = np.concatenate([np.asarray(s, dtype=np.float64) for s in strategy])
        return g, tree_strategy(self.bp, g, pol, self._tree_index)

    def best_response(self, strategy):
        """Exact best-response values where the tree engine plays the same rules (:meth:`_tree_game`:
        N-player Kuhn and Leduc, any ACPC file small enough to enumerate); NaN otherwise (hold'em)."""
        g, mapped = self._mapped(strategy)
        return g.best_response(mapped) if g is not None else (math.nan,) * self.num_players

    def expected_values(self, strategy):
        g, mapped = self._mapped(strategy)
        return g.expected_values(mapped) if g is not None else (math.nan,) * self.num_players

    def infoset_keys(self, player):
        """'<bucket>|<betting>' per information set of `player`, in layout order."""
        t, bp = self.bp.tree, self.bp
        return [f"{b}|{t.betting[n]}" for n in bp.nodes_of[player] for b in range(int(bp.buckets[t.round[n]]))]

    def infoset_actions(self, player):
        t, bp = self.bp.tree, self.bp
        return [[t.labels[int(t.first[n]) + a] for a in range(int(t.nact[n]))]
                for n in bp.nodes_of[player] for _ in range(int(bp.buckets[t.round[n]]))]


def bucket_counts(abstraction, spec) -> tuple[tuple[int, ...], str]:
    """Buckets per round of `abstraction` (a plugin instance) on cards `spec`, without building or
    loading its table: those its table file records when it exists and was built with these
    parameters, else those asked (0: the round's canonical hands); and which it was."""
    from pathlib import Path

    from solverkit.abstraction.indexer import HandIndexer
    from solverkit.abstraction.table import BucketTable

    abstraction.check(spec)
    params = abstraction.table_params(spec)
    path = abstraction.config.get("table")
    if path and Path(path).is_file():
        try:
            meta = BucketTable.read_meta(path)
        except ConfigError:
            meta = {}
        if (meta.get("spec") == spec.key() and meta.get("name") == abstraction.name
                and meta.get("params") == params and len(meta.get("buckets") or []) == spec.rounds):
            return tuple(int(b) for b in meta["buckets"]), f"from {path}"
    ix = HandIndexer(spec)
    return (tuple(int(b) or ix.size(r) for r, b in enumerate(params["buckets"])),
            "as [abstraction] asks, 0: the round's canonical hands" + (f"; {path} is not built yet" if path and
                                                                         not Path(path).is_file() else ""))


def _same_rules(a, b) -> bool:
    """Two TableDefs with the same rules and cards (their source names aside)."""
    fields = ("num_players", "num_rounds", "blind", "raise_size", "first_player", "max_raises", "num_suits",
              "num_ranks", "num_hole_cards", "num_board_cards")
    return all(tuple(np.atleast_1d(getattr(a, f))) == tuple(np.atleast_1d(getattr(b, f))) for f in fields)
