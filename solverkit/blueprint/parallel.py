"""Data-parallel blueprint MCCFR: W replicas of the regrets (and averages) run their shares of a
round's iterations from the same start (on threads, or replicas 1..W-1 on zmq / dask workers:
solverkit.blueprint.distributed), then their changes are summed into one.

Rounds are fixed by the iteration numbers alone (:func:`round_of`: W x L iterations, L growing from
``sync_start`` and doubling every ``sync_ramp`` rounds up to ``sync_every``), and iteration t goes
to replica ``(t - 1) % W``, whatever blocks or single passes the solver hands the game (block sizes
follow the clock). Replica 0 is the store's own ``regret`` / ``avg`` arrays; the open round (its
first iteration, and which players' traversals of its last iteration have run) and its start are
arrays of a second store segment, ``replicas``, and replica j = 1..W-1 is a segment of its own,
``replica<j>`` (its regrets and, the averages only where kept: compact, at :attr:`Plan.caoff`), so
that a checkpoint holds a round in progress and a resumed run goes on bit for bit, threads or
workers alike.
At a round's last iteration the store's arrays become

    replica0 + (replica1 - start) + (replica2 - start) + ...   (in that order)

and every replica starts the next round from them. Between a round's first and last iteration the
store holds replica 0 alone (the strategy an evaluation in mid-round reads: the round's start plus
replica 0's share of the round so far). Each replica's iteration t keeps its own regret weight,
pruning threshold and average weight (those of t), and its own draws (``stream(seed, t, ...)``), so
the union of the replicas' iterations is the one-thread run's; only the regrets each reads differ
(those of the round's start plus its own share).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from ..core.jit import njit

#: segment of the store holding the open round and its start
SEGMENT = "replicas"


#: sync_start 0 (auto): trees of at most this many values (regrets and kept averages) start at one
#: iteration a replica (3-player Leduc: 30,000 values, ~70 us of copies, merge and hand-off a round
#: against ~6 us an iteration: the ramp's early rounds cost 0.1-0.2 s once, and they are what keeps
#: NashConv per iteration at one thread's, bench/results/blueprint_threads.md)
SMALL_VALUES = 1 << 20
#: larger trees start at values / this iterations a replica (six-player hold'em under fcpa with one
#: raise a round, ~2.6e8 values: ~64,000), so that a round's copies and merge (about 2 W passes over
#: the values) stay a small part of its iterations
SYNC_VALUES = 4096


def serial(fn, items: list) -> list:
    """[fn(x) for x in items]: the replicas one after another (no transport's threads given)."""
    return [fn(x) for x in items]


@njit(cache=True, nogil=True)
def assign(out, src):
    """out[:] = src."""
    for i in range(out.shape[0]):
        out[i] = src[i]


@njit(cache=True, nogil=True)
def gather(out, src, starts, lens):
    """out = src's ranges [starts[i], starts[i] + lens[i]) one after another."""
    o = 0
    for i in range(starts.shape[0]):
        for k in range(lens[i]):
            out[o + k] = src[starts[i] + k]
        o += lens[i]


@njit(cache=True, nogil=True)
def add_change(out, copy, start):
    """out += copy - start (one replica's change merged in; the replicas one call each, in order)."""
    for i in range(out.shape[0]):
        out[i] += copy[i] - start[i]


@njit(cache=True, nogil=True)
def add_change_ranges(out, copy, start, starts, lens):
    """:func:`add_change` of a compact copy and start (as :func:`gather` lays them out) into out's ranges."""
    o = 0
    for r in range(starts.shape[0]):
        for k in range(lens[r]):
            out[starts[r] + k] += copy[o + k] - start[o + k]
        o += lens[r]


class Plan:
    """The replicas of blueprint `bp`: W, the round schedule (:func:`round_of`), and the compact
    layout of the averages the replicas keep (only the values of nodes whose average is kept, the
    first ``average_rounds`` rounds': a small part of the whole for poker). A replica's copy lays
    them out node by node (:attr:`caoff`), the store's ``avg`` player by player (``bp.aoff``,
    gathered at :attr:`starts`): both as the solverkit before the store's became compact, so that
    a checkpoint of then reads back the same or is refused on its sizes, never misread."""

    def __init__(self, bp, replicas: int, sync: int, ramp: int, start: int = 0):
        self.replicas, self.ramp = int(replicas), int(ramp)
        t = bp.tree
        nodes = np.flatnonzero(bp.aoff >= 0)
        self.lens = np.array([int(bp.buckets[t.round[n]]) * int(t.nact[n]) for n in nodes], dtype=np.int64)
        self.starts = bp.aoff[nodes].astype(np.int64)
        self.caoff = np.full(bp.aoff.size, -1, dtype=np.int64)
        self.caoff[nodes] = np.concatenate(([0], np.cumsum(self.lens)[:-1])).astype(np.int64)
        self.size = int(bp.reg.size)
        self.asize = int(self.lens.sum())
        #: the first rounds' per-replica length, and the last's (at least the first)
        values = self.size + self.asize
        self.start = int(start) or (1 if values <= SMALL_VALUES else -(-values // SYNC_VALUES))
        self.sync = max(int(sync), self.start)

    def arrays(self, with_average: bool) -> dict[str, int]:
        """The ``replicas`` segment's arrays: the open round (its first iteration, and the players
        whose traversals of its last iteration have run, a bit mask: a pass of one player's
        traversals, as the solver runs single iterations, neither opens a round twice nor merges
        it before its last traversal) and the round's start of the regrets (and of the kept
        averages, compact), as {name: values}."""
        out = {"rstate": 2, "rstart": self.size}
        if with_average:
            out["astart"] = self.asize
        return out

    def copy_arrays(self, with_average: bool) -> dict[str, int]:
        """A replica's own segment (:func:`segment_of`, replicas 1..W-1): its regrets and, where
        kept, its compact averages."""
        out = {"rcopy": self.size}
        if with_average:
            out["acopy"] = self.asize
        return out

    def round_of(self, t: int) -> tuple[int, int]:
        return round_of(t, self.replicas, self.sync, self.ramp, self.start)


def round_of(t: int, replicas: int, sync: int, ramp: int, start: int = 1) -> tuple[int, int]:
    """(first, last) iteration of the round holding iteration t: rounds of `replicas` x L
    iterations, L = `start` for the first `ramp` rounds, twice that for the next `ramp`, and so
    on up to `sync`, then `sync` (ramp 0: `sync` from the first), so that early on, when each
    iteration moves the regrets most, a replica lags the others by few iterations (about 1 /
    (2 ramp W) of the iterations so far)."""
    base, L = 0, min(start, sync)
    if ramp > 0:
        while L < sync:
            span = ramp * replicas * L
            if t <= base + span:
                break
            base += span
            L *= 2
        L = min(L, sync)
    else:
        L = sync
    R = replicas * L
    k = (t - base - 1) // R
    return base + k * R + 1, base + (k + 1) * R


def rounds(first: int, count: int, plan: Plan):
    """The pieces of iterations first..first + count - 1 cut at round ends, as (lo, hi, opens,
    closes): hi inclusive, whether lo is a round's first iteration and hi its last."""
    t, last = first, first + count - 1
    while t <= last:
        lo, end = plan.round_of(t)
        hi = min(last, end)
        yield t, hi, t == lo, hi == end
        t = hi + 1


def segment_of(j: int) -> str:
    """The store segment of replica j = 1..W-1 (its copy; a zmq worker's subgame)."""
    return f"replica{j}"


def share(first_t: int, n: int, j: int, W: int) -> slice | None:
    """Replica j's iterations among n consecutive ones from `first_t` (those t with
    (t - 1) % W == j), as a slice of them; None when it has none."""
    k = (j - (first_t - 1)) % W
    return slice(k, n, W) if k < n else None


class Piece(NamedTuple):
    """Iterations of one round (or of part of it) and their per-iteration arrays."""

    ts: np.ndarray
    masks: np.ndarray
    lead: int
    rw: np.ndarray
    thr: np.ndarray
    pprob: float
    w: np.ndarray

    def part(self, sl: slice) -> "Piece":
        """Those of the iterations in `sl` (contiguous copies: the kernel's arrays)."""
        c = np.ascontiguousarray
        return Piece(c(self.ts[sl]), c(self.masks[sl]), self.lead, c(self.rw[sl]), c(self.thr[sl]), self.pprob,
                     c(self.w[sl]))

    def run(self, bp, reg, avg, scratch=None, aoff=None) -> int:
        """The iterations through `bp`'s kernel over `reg` / `avg` (a replica's); the nodes visited."""
        return bp.block(self.ts, self.masks, self.lead, self.rw, self.thr, self.pprob, self.w, reg, avg,
                        scratch=scratch, aoff=aoff)


class LocalReplicas:
    """Replicas 1..W-1 in this process: their regrets and compact averages (`regs`, `avgs`, each a
    replica's), run beside replica 0 by `map_local(fn, items)` (threads, where given)."""

    #: a round closed in mid-call opens the next at its merge (the copies are here: no second look)
    reopens = True

    def __init__(self, regs: list, avgs: list, scratches: list, map_local=None):
        self.regs, self.avgs, self.scratches = regs, avgs, scratches
        self.map_local = map_local or serial

    def run(self, bp, plan: "Plan", piece: Piece, opening: bool, closing: bool, start, astart, reg, avg,
            keep_average: bool) -> int:
        """Every replica's iterations of `piece` (replica 0 on the store's `reg` / `avg`); `opening`:
        the copies start from the round's start first."""
        W = plan.replicas
        if opening:
            for j in range(1, W):
                assign(self.regs[j - 1], start)
                if keep_average:
                    assign(self.avgs[j - 1], astart)
        n = int(piece.ts.size)
        first = int(piece.ts[0])

        def one(j):
            sl = share(first, n, j, W)
            if sl is None:
                return 0
            if j == 0:
                return piece.part(sl).run(bp, reg, avg, self.scratches[0])
            return piece.part(sl).run(bp, self.regs[j - 1], self.avgs[j - 1] if keep_average else avg,
                                      self.scratches[j], plan.caoff)

        return sum(self.map_local(one, list(range(W))))

    def merge(self, plan: "Plan", start, astart, reg, avg, keep_average: bool, reopen: bool) -> None:
        """The store's arrays += each replica's change, in replica order; `reopen`: then the
        round's start and every copy are the merged arrays (the next round opens)."""
        for j in range(1, plan.replicas):
            add_change(reg, self.regs[j - 1], start)
            if keep_average:
                add_change_ranges(avg, self.avgs[j - 1], astart, plan.starts, plan.lens)
        if reopen:
            assign(start, reg)
            if keep_average:
                gather(astart, avg, plan.starts, plan.lens)
            for j in range(1, plan.replicas):
                assign(self.regs[j - 1], reg)
                if keep_average:
                    assign(self.avgs[j - 1], astart)


def run_block(bp, plan: Plan, ts, masks, lead, rw, thr, pprob, w, reg, avg, state, replicas,
              keep_average: bool) -> int:
    """Iterations ts (consecutive) of the blueprint `bp` over replica 0 (`reg`, `avg`: the store's),
    the ``replicas`` segment's arrays `state` (:meth:`Plan.arrays`, open for writing) and replicas
    1..W-1 (`replicas`: :class:`LocalReplicas`, or a transport's workers,
    solverkit.blueprint.distributed): the iterations are cut at round ends, each round's shared
    out by replica. Returns the nodes visited."""
    rstate, rstart = state["rstate"], state["rstart"]
    astart = state["astart"] if keep_average else None
    everyone = (1 << bp.gd.num_players) - 1
    first = int(ts[0])
    last = first + int(ts.size) - 1
    count = 0
    for lo, hi, opens, closes in rounds(first, int(ts.size), plan):
        i0, i1 = lo - first, hi - first + 1
        opening = opens and int(rstate[0]) != lo  # (not again for the next player's pass of iteration lo)
        if opening:
            rstate[0], rstate[1] = lo, 0
            assign(rstart, reg)
            if keep_average:
                gather(astart, avg, plan.starts, plan.lens)
        if closes:  # merged once every player's traversal of the round's last iteration has run
            rstate[1] = int(rstate[1]) | int(masks[i1 - 1])
        closing = closes and int(rstate[1]) == everyone
        piece = Piece(ts[i0:i1], masks[i0:i1], int(lead), rw[i0:i1], thr[i0:i1], float(pprob), w[i0:i1])
        count += replicas.run(bp, plan, piece, opening, closing, rstart, astart, reg, avg, keep_average)
        if closing:
            reopen = hi < last and replicas.reopens  # the next round opens in this call
            replicas.merge(plan, rstart, astart, reg, avg, keep_average, reopen)
            if reopen:
                rstate[0], rstate[1] = hi + 1, 0
    return count
