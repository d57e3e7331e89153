"""Data-parallel blueprint MCCFR: W replicas of the regrets (and averages) run their shares of a
round's iterations from the same start on threads, then their changes are summed into one.

Rounds are fixed by the iteration numbers alone (:func:`round_of`: W x L iterations, L growing from
``sync_start`` and doubling every ``sync_ramp`` rounds up to ``sync_every``), and iteration t goes
to replica ``(t - 1) % W``, whatever blocks or single passes the solver hands the game (block sizes
follow the clock). Replica 0 is the store's own ``regret`` / ``avg`` arrays; the round's start and
replicas 1..W-1 (the averages only where kept: compact, at :attr:`Plan.caoff`) are arrays of a
second store segment, ``replicas``, with the open round's first iteration and which players'
traversals of its last iteration have run (so a checkpoint holds a round in progress and a resumed
run goes on bit for bit).
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

import numpy as np
from numba import njit

#: segment of the store holding the round's start and replicas 1..W-1
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
def merge(out, copies, start, reopen):
    """out += copies[j] - start for j = 0, 1, ... in that order (copies: the replicas' arrays one
    after another, each as long as out); reopen: then start and every copy = out (the next round's
    start), without a second call."""
    n = out.shape[0]
    m = copies.shape[0] // n
    for j in range(m):  # (loops of one array each: they vectorize, 2.5x faster than one fused loop)
        c = copies[j * n:(j + 1) * n]
        for i in range(n):
            out[i] += c[i] - start[i]
    if reopen:
        for i in range(n):
            start[i] = out[i]
        for j in range(m):
            c = copies[j * n:(j + 1) * n]
            for i in range(n):
                c[i] = out[i]


@njit(cache=True, nogil=True)
def merge_ranges(out, copies, start, starts, lens, reopen):
    """:func:`merge` of compact copies and start (as :func:`gather` lays them out) into out's ranges."""
    n = start.shape[0]
    m = copies.shape[0] // n if n else 0
    o = 0
    for r in range(starts.shape[0]):
        for k in range(lens[r]):
            p = starts[r] + k
            x = out[p]
            s = start[o + k]
            for j in range(m):
                x += copies[j * n + o + k] - s
            out[p] = x
            if reopen:
                start[o + k] = x
                for j in range(m):
                    copies[j * n + o + k] = x
        o += lens[r]


class Plan:
    """The replicas of blueprint `bp`: W, the round schedule (:func:`round_of`), and the compact
    layout of the averages the replicas keep (only the values of nodes whose average is kept, the
    first ``average_rounds`` rounds': a small part of the whole for poker)."""

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
        it before its last traversal), the start and replicas 1..W-1 of the regrets (and of the
        kept averages, compact), as {name: values}."""
        W = self.replicas
        out = {"rstate": 2, "rstart": self.size, "rcopies": (W - 1) * self.size}
        if with_average:
            out.update({"astart": self.asize, "acopies": (W - 1) * self.asize})
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


def run_block(bp, plan: Plan, ts, masks, lead, rw, thr, pprob, w, reg, avg, seg, scratches, map_local,
              keep_average: bool) -> int:
    """Iterations ts (consecutive) of the blueprint `bp` over replica 0 (`reg`, `avg`: the store's)
    and the ``replicas`` segment `seg` (:meth:`Plan.arrays`, open for writing): the kernel's
    per-iteration arrays are cut by replica; `scratches`: one kernel buffer set per replica;
    `map_local(fn, items)` runs the replicas (on threads). Returns the nodes visited."""
    W, size, asize = plan.replicas, plan.size, plan.asize
    rstate, rstart, rcopies = seg["rstate"], seg["rstart"], seg["rcopies"]
    everyone = (1 << bp.gd.num_players) - 1
    regs = [reg] + [rcopies[(j - 1) * size:j * size] for j in range(1, W)]
    if keep_average:
        astart, acopies = seg["astart"], seg["acopies"]
        avgs = [avg] + [acopies[(j - 1) * asize:j * asize] for j in range(1, W)]
    else:
        avgs = [avg] * W  # weights 0: never read or written
    aoffs = [bp.aoff] + [plan.caoff] * (W - 1)
    first = int(ts[0])
    last = first + int(ts.size) - 1
    count = 0
    for lo, hi, opens, closes in rounds(first, int(ts.size), plan):
        if opens and int(rstate[0]) != lo:  # (not again for the next player's pass of iteration lo)
            rstate[0], rstate[1] = lo, 0
            assign(rstart, reg)
            for j in range(1, W):
                assign(regs[j], reg)
            if keep_average:
                gather(astart, avg, plan.starts, plan.lens)
                for j in range(1, W):
                    assign(avgs[j], astart)
        i0, i1 = lo - first, hi - first + 1

        def one(j, i0=i0, i1=i1):
            # replica j's iterations of the piece: those t with (t - 1) % W == j
            k = i0 + (j - (int(ts[i0]) - 1)) % W
            if k >= i1:
                return 0
            sl = slice(k, i1, W)
            return bp.block(np.ascontiguousarray(ts[sl]), np.ascontiguousarray(masks[sl]), lead,
                            np.ascontiguousarray(rw[sl]), np.ascontiguousarray(thr[sl]), pprob,
                            np.ascontiguousarray(w[sl]), regs[j], avgs[j], scratch=scratches[j], aoff=aoffs[j])

        count += sum(map_local(one, list(range(W))))
        if closes:  # merged once every player's traversal of the round's last iteration has run
            rstate[1] = int(rstate[1]) | int(masks[i1 - 1])
            closes = int(rstate[1]) == everyone
        if closes:
            # the next round opens in this call: its copies are made in the merge's pass
            reopen = hi < last
            merge(reg, rcopies, rstart, reopen)
            if keep_average:
                merge_ranges(avg, acopies, astart, plan.starts, plan.lens, reopen)
            if reopen:
                rstate[0], rstate[1] = hi + 1, 0
    return count
