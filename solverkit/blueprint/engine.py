"""The blueprint driver: layout of regrets and averages over (betting node, bucket), blocks of
iterations through the kernel, the exported strategy, and checkpoints.

Regrets are float64 by default (8 bytes a value: the lazy Linear CFR weights grow the stored
values by up to ``until + 1``, which float64 absorbs), or int32 (``regrets = "int32"``, 4 bytes:
Pluribus's fixed point, floor and explicit discount, :mod:`solverkit.blueprint.int32`). The
exported strategy is the average on the first ``average_rounds`` rounds and the current strategy
(regret matching) on later ones, as Pluribus; only those rounds' averages are stored (``avg``:
compact, player by player at :attr:`Blueprint.aoff`), so a run's memory is the regrets plus the kept
rounds' averages (hold'em's preflop: a small part of the whole).
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..abstraction.spec import CardSpec
from ..abstraction.table import BucketTable
from ..core.layout import Layout
from ..core.rule import increment_weights
from ..errors import ConfigError
from ..poker.nplayer import TableDef
from . import int32, kernels
from .betting import TERMINAL, limit_tree
from .nolimit import NoLimitTable, nolimit_tree


#: the kernel's discount factors with float64 regrets (never read)
_NO_DISCOUNT = np.ones(1)

#: canonical hands (all rounds) above which no lossless table is built (hold'em has 138 million)
LOSSLESS_LIMIT = 20_000_000


def lossless_table(spec: CardSpec) -> BucketTable:
    """Every canonical hand (suit isomorphism) its own bucket on every round."""
    from ..abstraction.indexer import HandIndexer

    ix = HandIndexer(spec)
    total = sum(ix.size(r) for r in range(spec.rounds))
    if total > LOSSLESS_LIMIT:
        raise ConfigError(f"the lossless abstraction of this game has {total:,} canonical hands (over "
                          f"{LOSSLESS_LIMIT:,}): give an [abstraction] with buckets, e.g. name = \"ehs\", "
                          "buckets = [0, 50, 50, 50]")
    return BucketTable(spec, "isomorphism", {}, [np.arange(ix.size(r), dtype=np.int32) for r in range(spec.rounds)],
                       ix)


class BucketCounts(NamedTuple):
    """A card abstraction's buckets per round without its table: enough for the blueprint's sizes
    (``solverkit info``), not to run it (a hold'em table takes minutes to build)."""

    spec: CardSpec
    buckets: tuple[int, ...]


def average_offsets(tree, off: np.ndarray, buckets: np.ndarray, average_rounds: int) -> tuple[np.ndarray, int]:
    """Where each node's averages lie in the compact ``avg`` (-1: none kept), and its size: the
    decision nodes of rounds < `average_rounds`, one block (buckets x actions) each, in the
    regrets' order (player by player, at `off`), so that with every round kept the layout is the
    regrets' own (an older checkpoint's full ``avg`` reads back as it was written)."""
    t = tree
    kept = np.flatnonzero((t.kind != TERMINAL) & (t.round < average_rounds))
    kept = kept[np.argsort(off[kept], kind="stable")]
    lens = buckets[t.round[kept]] * t.nact[kept].astype(np.int64)
    aoff: np.ndarray = np.full(off.size, -1, dtype=np.int64)
    aoff[kept] = np.concatenate(([0], np.cumsum(lens)[:-1])).astype(np.int64) if kept.size else kept
    return aoff, int(lens.sum())


def check_floor(floor: float, threshold: float) -> float:
    """`floor` ([sampler] regret_floor) when valid: < 0 and below a pruning threshold, or 0 (none)."""
    floor = float(floor or 0.0)
    if floor > 0 or (floor and threshold and floor >= threshold):
        raise ConfigError(f"regret_floor = {floor:g} is invalid: expected a number < 0 below prune_threshold = "
                          f"{threshold:g}, or 0 (none)")
    return floor


class Blueprint:
    """External-sampling MCCFR of an N-player ACPC game (limit, or no-limit under the action
    abstraction `abstraction`) under a card abstraction.

    `table`: a :class:`BucketTable` of the game's CardSpec (None: lossless; a :class:`BucketCounts`:
    sizes only, nothing allocated, :meth:`run` refused). `rule` gives the
    regret weight of iteration t (``increment_weight``: lcfr's lazy discount) or 1; `averaging`
    the average weight (its coefficients' second value)."""

    def __init__(self, gd: TableDef, table: BucketTable | BucketCounts | None = None, *, seed: int = 0, prune_threshold: float = 0.0,
                 prune_probability: float = 0.95, prune_start: int = 0, average_rounds: int = 1, rule=None,
                 averaging=None, abstraction: str = "fcpa", max_nodes: int = 5_000_000, max_raises: int = 0,
                 sizes=None, regrets: str = "float64", regret_scale: float = 0.0, regret_floor: float = 0.0,
                 discount_every: int = 0, sampler_floor: float = 0.0):
        self.gd = gd
        self.spec = CardSpec(gd.num_ranks, gd.num_suits, gd.num_hole_cards, tuple(gd.num_board_cards))
        self.table = table if table is not None else lossless_table(self.spec)
        if self.table.spec.key()[:4] != self.spec.key()[:4]:
            raise ConfigError(f"bucket table of {self.table.spec.key()[:4]} does not fit game {gd.source} "
                              f"({self.spec.key()[:4]})")
        if prune_threshold > 0:
            raise ConfigError(f"prune_threshold = {prune_threshold:g} is invalid: expected a number <= 0 (0: off)")
        self.tree = (nolimit_tree(gd, abstraction, max_nodes, max_raises, sizes) if isinstance(gd, NoLimitTable)
                     else limit_tree(gd, max_nodes))
        self.seed, self.prune = seed, (float(prune_threshold), float(prune_probability), int(prune_start))
        #: [sampler] regret_floor: no regret below it (the discounted regret's chips, like the threshold; 0: none)
        self.sampler_floor = check_floor(sampler_floor, prune_threshold)
        self.average_rounds = int(average_rounds)
        self.rule, self.averaging = rule, averaging
        t = self.tree
        self.buckets = np.array(self.table.buckets, dtype=np.int64)
        P = gd.num_players
        sizes = np.where(t.kind == TERMINAL, 0, self.buckets[t.round] * t.nact)
        # player p's values: its decision nodes in node order, one block (buckets x actions) each
        self.nodes_of = [np.flatnonzero((t.kind != TERMINAL) & (t.player == p)) for p in range(P)]
        self.layouts = [Layout.from_blocks([(int(self.buckets[t.round[n]]), int(t.nact[n])) for n in nodes])
                        for nodes in self.nodes_of]
        self.base = np.concatenate(([0], np.cumsum([lay.size for lay in self.layouts]))).astype(np.int64)
        self.off = np.zeros(t.num_nodes, dtype=np.int64)
        for p, nodes in enumerate(self.nodes_of):
            self.off[nodes] = self.base[p] + self.layouts[p].block_start
        #: the kept averages' offsets in the compact `avg` (-1: none kept) and its size
        self.aoff, self.asize = average_offsets(t, self.off, self.buckets, self.average_rounds)
        #: built from bucket counts alone (:class:`BucketCounts`): sizes, no arrays
        self.sizes_only = isinstance(self.table, BucketCounts)
        #: regrets = "int32": the fixed point, floor and discount interval (None: float64)
        self.fixed = int32.settings(regrets, regret_scale, regret_floor, discount_every,
                                    float(t.spent[t.kind == TERMINAL].sum(axis=1).max()), self.prune[0])
        n = 0 if self.sizes_only else int(sizes.sum())
        self.reg: np.ndarray = np.zeros(n, dtype=np.int32 if self.fixed else np.float64)
        #: int32: values clipped to the int32 range so far, and the first iteration that clipped one
        self.clipped: np.ndarray = np.zeros(2, dtype=np.int64)
        self.avg = np.zeros(0 if self.sizes_only else self.asize)
        self.iteration = 0
        #: run(replicas > 1): the round's start and replicas 1..W-1 (solverkit.blueprint.parallel)
        self.replica_state: dict | None = None
        table = self.table
        if isinstance(table, BucketCounts):
            return
        self._arrays = table.indexer.arrays
        self._assign = np.concatenate(table.assign).astype(np.int64)
        self._assign_off = np.concatenate(([0], np.cumsum([a.size for a in table.assign])[:-1])).astype(np.int64)
        self._cards_in = np.array([self.spec.cards_in(r) for r in range(self.spec.rounds)], dtype=np.int64)
        self._scratch = self.new_scratch()
        self._scratches = [self._scratch]  # run(replicas > 1): one set a replica

    def new_scratch(self) -> tuple:
        """A set of the kernel's buffers (deck, hands, board, values, policy, stack...): one per
        thread that runs :meth:`block` at the same time."""
        t, gd = self.tree, self.gd
        N, P, k = t.num_nodes, gd.num_players, gd.num_hole_cards
        nb = sum(gd.num_board_cards)
        return (np.zeros(gd.deck_size, np.int64), np.zeros((P, k), np.int64), np.zeros(nb, np.int64),
                np.zeros(P, np.int64), np.zeros(k + nb, np.int64), np.zeros((P, self.spec.rounds), np.int64),
                np.zeros(N), np.zeros(N), np.zeros(N), np.zeros(N), np.zeros(N, np.int64),
                np.zeros(2 * N + 2, np.int64))

    def run(self, iterations: int, replicas: int = 1, sync: int = 1000, map_local=None, ramp: int = 0,
            sync_start: int = 0) -> int:
        """`iterations` more iterations in one kernel call; returns the nodes visited.
        `replicas` > 1: data-parallel rounds (:mod:`solverkit.blueprint.parallel`: up to `sync`
        iterations a replica, from `sync_start` (0: by the values copied), doubling every `ramp`
        rounds; `map_local(fn, items)` runs the
        replicas, on threads where given), the round's start and replicas 1..W-1 kept in
        :attr:`replica_state`."""
        if self.sizes_only:
            raise ValueError("a blueprint of bucket counts alone (sizes) cannot run: give it its BucketTable")
        ts: np.ndarray = np.arange(self.iteration + 1, self.iteration + iterations + 1, dtype=np.int64)
        w = (self.averaging.coefficients_block(self.iteration + 1, ts.size)[:, 1] if self.averaging is not None
             else np.ones(ts.size))
        thr, pprob, start = self.prune
        rw, thresholds, disc = self.schedule(ts, self.rule, thr, start)
        masks = np.full(ts.size, (1 << self.gd.num_players) - 1)
        if replicas == 1:
            count = self.block(ts, masks, 0, rw, thresholds, pprob, w, self.reg, self.avg, disc=disc)
        else:
            int32.check_replicas(self.fixed is not None, replicas)
            from . import parallel

            plan = parallel.Plan(self, replicas, sync, ramp, sync_start)
            if self.replica_state is None:  # (saved as one array of the copies each: replica_rcopies, ...)
                self.replica_state = {k: np.zeros(n) for k, n in plan.arrays(True).items()}
                self.replica_state.update(rcopies=np.zeros((replicas - 1) * plan.size),
                                          acopies=np.zeros((replicas - 1) * plan.asize))
            state = self.replica_state
            if state["rcopies"].size != (replicas - 1) * self.reg.size:
                raise ConfigError(f"replicas = {replicas}: this blueprint ran with "
                                  f"{state['rcopies'].size // self.reg.size + 1}")
            if len(self._scratches) < replicas:
                self._scratches += [self.new_scratch() for _ in range(replicas - len(self._scratches))]
            n, na = plan.size, plan.asize
            others = parallel.LocalReplicas([state["rcopies"][j * n:(j + 1) * n] for j in range(replicas - 1)],
                                            [state["acopies"][j * na:(j + 1) * na] for j in range(replicas - 1)],
                                            self._scratches, map_local)
            count = parallel.run_block(self, plan, ts, masks, 0, rw, thresholds, pprob, w, self.reg, self.avg,
                                       state, others, True)
        self.iteration += iterations
        return count

    def schedule(self, ts, rule, thr: float, start: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Per iteration of ts: regret weights, pruning thresholds (threshold `thr` in chips from
        iteration `start` on) and, for int32 regrets, the discount factors (else None). float64:
        the rule's lazy weights, thresholds times them; int32: weight 1, thresholds in stored
        units, lcfr's discount explicit (:meth:`Int32Regrets.discounts`)."""
        if self.fixed is None:
            rw = increment_weights(rule, ts)
            return rw, np.where(ts > start, thr * rw, 0.0), None
        until = int32.lcfr_until(rule)
        return (np.ones(ts.size), np.where(ts > start, self.fixed.units(thr), 0.0),
                self.fixed.discounts(ts, until))

    def block(self, ts, masks, lead, rw, thresholds, pprob, weights, reg, avg, scratch=None, aoff=None,
              disc=None) -> int:
        """Iterations ts through the kernel over `reg` / `avg` (every player's, concatenated at
        :attr:`base`): the players traversing (bit masks, in order from `lead`), regret weights rw, pruning thresholds
        (< 0: on), average weights; `scratch`: the kernel's buffers (:meth:`new_scratch`; None:
        this engine's own, for one thread at a time); `aoff`: where each node's averages lie in
        `avg` (None: :attr:`aoff`, the store's compact layout; a replica's copy: its plan's); `disc`: int32
        regrets' discount factors (:meth:`schedule`; None: none)."""
        t, gd = self.tree, self.gd
        fx = self.fixed
        if fx is not None and reg.dtype != np.int32:
            raise ValueError(f"int32 blueprint regrets given as {reg.dtype}")
        return int(kernels.blueprint_block(
            self.seed, ts, np.asarray(masks, dtype=np.int64), int(lead), rw, thresholds, pprob, weights,
            _NO_DISCOUNT if disc is None else disc, self.base, 0.0 if fx is None else fx.scale,
            self.kernel_floor(), self.clipped, t.kind, t.player, t.round, t.first, t.nact, t.spent,
            t.alive, self.off, self.aoff if aoff is None else aoff, reg, avg, self._arrays, self._assign, self._assign_off, self._cards_in,
            gd.num_suits, gd.num_hole_cards, sum(gd.num_board_cards), *(self._scratch if scratch is None else scratch)))

    def kernel_floor(self) -> float:
        """The kernel's `floor`: float64, :attr:`sampler_floor` in chips (the kernel weights it as the
        regrets, 0: none); int32, stored units, the higher of the int32 floor and the sampler's."""
        fx = self.fixed
        if fx is None:
            return float(self.sampler_floor)
        return float(max(fx.floor, round(fx.units(self.sampler_floor)))) if self.sampler_floor else float(fx.floor)

    def policy(self, reg=None, avg=None) -> np.ndarray:
        """The exported strategy, in the regrets' layout: the average on the first
        ``average_rounds`` rounds (where visited), the current strategy elsewhere."""
        reg = self.reg if reg is None else reg
        avg = self.avg if avg is None else avg
        t = self.tree
        out = np.empty(reg.size)
        kernels.current_policy(reg, self.off, t.nact, t.kind, self.buckets, t.round, out)
        for n in np.flatnonzero(self.aoff >= 0):
            A = int(t.nact[n])
            nb = int(self.buckets[t.round[n]])
            a = avg[self.aoff[n]:self.aoff[n] + nb * A].reshape(nb, A)
            s = a.sum(axis=1, keepdims=True)
            cur = out[self.off[n]:self.off[n] + nb * A].reshape(nb, A)
            cur[:] = np.where(s > 0, a / np.where(s > 0, s, 1.0), cur)
        return out

    def save(self, path) -> Path:
        """Checkpoint: the iteration, regrets and the kept averages (compact; resume with :meth:`load`)."""
        path = Path(path)
        np.savez(path, iteration=self.iteration, reg=self.reg, avg=self.avg, seed=self.seed,
                 average_rounds=self.average_rounds,
                 **{f"replica_{k}": v for k, v in (self.replica_state or {}).items()})
        return path

    def load(self, path) -> None:
        with np.load(path) as z:
            if "average_rounds" not in z.files:  # written before the averages were compact
                raise ConfigError(f"checkpoint {path} holds the averages of every round (an older solverkit's "
                                  "layout); this one keeps only the first average_rounds rounds': start a new run")
            if (z["reg"].shape != self.reg.shape or z["avg"].shape != self.avg.shape or int(z["seed"]) != self.seed
                    or z["reg"].dtype != self.reg.dtype or int(z["average_rounds"]) != self.average_rounds):
                raise ConfigError(f"checkpoint {path} is of another blueprint (sizes, seed, average_rounds or "
                                  "regrets' type differ)")
            self.iteration = int(z["iteration"])
            self.reg[:] = z["reg"]
            self.avg[:] = z["avg"]
            state = {k[len("replica_"):]: z[k] for k in z.files if k.startswith("replica_")}
            self.replica_state = state or None
