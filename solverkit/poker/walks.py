"""Kernel walks of a poker game: one call over a region, one pass over the whole game (whole, cut
into trunk and subgames, or its dealt boards in chunks on threads), a block of passes in one call,
and the warm-up that loads the kernels."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.block16 import live_runs
from ..core.game import PassBlock, PassJob
from ..errors import SolverkitError
from ..core.passes import NO_COEFFS, finish_segment, segment_arrays, writes
from .betting import ROUND_END
from .kernels import MODE_FULL, Buffers, Pass, PublicTree, Walk, compact_values, dfs_block, dfs_pass, float_values
from .pass_settings import _Job


def _entry(kernel, dtype=np.float64):
    """`kernel`, or once it has been loaded for the one argument signature the engine uses with
    values of `dtype` (float64, or float32 for a float32 store: :func:`.kernels.float_values` makes
    every value array of a walk one dtype), its compiled entry point (:meth:`.jit.Kernel.entry`,
    the Values record being argument 2): skips the per-call type dispatch over ~75 record arrays
    (about 40 us a call for dfs_pass, more for dfs_block: it dominated small games such as Leduc)."""
    return kernel.entry(dtype, at=(2, 0))


def _kernel(dtype=np.float64):
    """:func:`.kernels.dfs_pass` through :func:`_entry` (values of `dtype`)."""
    return _entry(dfs_pass, dtype)


def block_kernel(dtype=np.float64):
    """:func:`.kernels.dfs_block` through :func:`_entry` (values of `dtype`)."""
    return _entry(dfs_block, dtype)


def _boards_below(boards, c0: int, c1: int) -> np.ndarray:
    """Per child board c0..c1-1 of the root board: boards in its subtree, itself included
    (bottom-up, a round at a time: a board's children are consecutive boards of the next round)."""
    start = np.asarray(boards.child_start, dtype=np.int64)
    end = np.asarray(boards.child_end, dtype=np.int64)
    rs = np.asarray(boards.round_start, dtype=np.int64)
    count = np.ones(start.shape[0], dtype=np.int64)
    for r in range(len(rs) - 2, -1, -1):
        g = np.arange(rs[r], rs[r + 1])
        total = np.concatenate(([0], np.cumsum(count)))
        count[g] = 1 + total[end[g]] - total[start[g]]
    return count[c0:c1]


def _balanced_ranges(first: int, weights: np.ndarray, parts: int) -> list[tuple[int, int]]:
    """Up to `parts` consecutive ranges over first, first + 1, ... of about equal total weight."""
    n = len(weights)
    if n == 0:
        return []
    cum = np.cumsum(weights)
    cuts = sorted({int(np.searchsorted(cum, cum[-1] * k / parts, side="left")) + 1 for k in range(1, parts)})
    edges = [0] + [c for c in cuts if 0 < c < n] + [n]
    return [(first + a, first + b) for a, b in zip(edges, edges[1:]) if b > a]


@dataclass
class _Compact:
    """A compact segment's block16 values for one kernel walk: per player (scales, int16 values)
    of the policy source and of the average (None: not used), where each block starts in them
    (qoff, per player) and whether the blocks keep only the hands their board leaves live. The
    regrets a pass updates are its policy source."""

    src: list
    avg: list
    qoff: list
    qlive: bool

    @classmethod
    def of(cls, seg, job: "_Job", pj) -> "_Compact":
        src = [seg.compact(f"{job.source}{p}") if f"{job.source}{p}" in seg else None for p in (0, 1)]
        avg = [None, None]
        if pj is not None and pj.averaging.keeps_average:
            avg = [seg.compact(f"avg{q}") if (job.avg_mask >> q) & 1 and f"avg{q}" in seg else None
                   for q in (0, 1)]
        qoff, qlive = [None, None], set()
        for p in (0, 1):  # a player's regrets and average share one grid
            name = f"{job.source}{p}" if src[p] is not None else f"avg{p}" if avg[p] is not None else None
            if name is not None:
                qoff[p], live = seg.compact_offsets(name)
                qlive.add(live)
        if len(qlive) > 1:
            raise SolverkitError("a compact walk's arrays disagree on which hands their blocks keep")
        return cls(src, avg, qoff, qlive == {True})


def _kernel_compact(job: _Job, pj: PassJob | None) -> bool:
    """True when the kernel can work on block16 values itself: a policy source it reads as
    stored (regrets or averages), and a pass whose rule and averaging
    update in the kernel and play the regrets (else the segment is decoded to float64)."""
    if job.source not in ("regret", "avg"):
        return False
    if pj is None:
        return True
    rule, averaging = pj.rule, pj.averaging
    return (rule.inline and rule.plain_policy and not rule.state
            and (averaging.inline or not averaging.keeps_average) and job.source == "regret")


class GameWalks:
    """Kernel walks of a poker game (a mixin of :class:`.game.PokerGame`)."""

    def _bufs(self, dtype=np.float64):
        """This thread's walk buffers, their reach vectors of `dtype`: the dtype of the walk's values
        (:func:`.kernels.float_values`), so that each values dtype stays one kernel signature. A
        float32 store's walks carry float32 reach (and batched showdowns sum in float32: 0.89x an
        iteration in one process, bench/results/reach_precision_ab.md; 0.82x of the preset's solve
        seconds on 2 idle threads, spot_preset_r32.md); the values going up stay
        float64 (float32 ones left the preset at 0.3% of the pot where float64 reached 0.11%). Every
        dtype's buffers share one cfv array: a caller reads the values of its last walk there."""
        local = self._local
        bufs = getattr(local, "bufs", None)
        if bufs is None:
            N, H = self.tree.bet.num_nodes, self.tree.max_hands
            bufs = local.bufs = {}
            local.shared = (np.zeros((N, 2, H)), np.zeros(N, dtype=np.uint8), np.zeros((2, H)))
        dtype = np.dtype(dtype)
        out = bufs.get(dtype)
        if out is None:
            cfv, live, out_cfv = local.shared
            out = bufs[dtype] = Buffers(np.zeros(cfv.shape, dtype=dtype), cfv, live, out_cfv)
        return out

    def kernel_tree(self) -> PublicTree:
        """The public tree as the kernels read it (made once)."""
        kt = self.__dict__.get("_kernel_tree")
        if kt is None:
            t = self.tree
            bet, b = t.bet, t.boards
            s0, s1 = t.side(0), t.side(1)
            last = self.gd.num_rounds - 1
            kt = self._kernel_tree = PublicTree(
                bet.kind, bet.player, bet.spent, self.extra, bet.num_actions, bet.children, self.re_index,
                b.child_start, b.child_end, b.perm_start, b.perm_end, self.board_codes(),
                s0.hands, s1.hands, s0.valid, s1.valid, s0.perms, s1.perms, s0.same, s1.same,
                s0.sd_order, s1.sd_order, s0.sd_strength, s1.sd_strength, s0.sd_count, s1.sd_count,
                t.sides is None, int(b.round_start[last]), int(self.gd.deck_size), self.scale,
                *self.locks(), np.ascontiguousarray(b.round_start, dtype=np.int64),
                *live_runs(s0.valid), *live_runs(s1.valid))
        return kt

    def locks(self):
        """(has_lock [nodes] uint8, lock_start [nodes] int64, lock0, lock1): hands whose policy is
        fixed (node locking; a spot's [game.lock], see PublicTree); none by default."""
        none = np.zeros(1)
        N = self.tree.bet.num_nodes
        return np.zeros(N, dtype=np.uint8), np.full(N, -1, dtype=np.int64), none, none

    @staticmethod
    def _walk_plan(region, b0, c_first, c_last, seg_board_lo) -> Walk:
        return Walk(int(region.r0), int(region.r_end), int(region.n0), int(b0), int(c_first), int(c_last),
                    region.round_lo, region.round_hi, region.node_off, region.stride, seg_board_lo, region.block_off,
                    region.block_stride)

    def _call(self, region, b0, entry, seg_board_lo, src, reg, avg, job: _Job, boundary_mode=0, boundary=None,
              do_backward=True, children=None, pred=None):
        """One kernel walk of `region`. src, reg, avg: per player float64 arrays, or a
        :class:`_Compact` of a compact store's block16 values (from :meth:`_segment_arrays`);
        pred: a predictive rule's prediction arrays when the kernel applies it (job.predictive)."""
        t = self.tree
        pre, pos, neg, floor, decay, weight = job.coeffs
        if boundary is None:
            boundary = np.zeros((1, 1, 2, 1))
        c0, c1 = children or (t.boards.child_start[b0], t.boards.child_end[b0])
        if isinstance(src, _Compact):
            values = compact_values(src.src, src.avg, src.qoff, src.qlive)
        else:
            values = float_values(src[0], src[1], reg[0], reg[1], avg[0], avg[1], pred if job.predictive else None)
        bufs = self._bufs(values.src0.dtype)
        _kernel(values.src0.dtype)(
            self.kernel_tree(), self._walk_plan(region, b0, c0, c1, seg_board_lo),
            values,
            # avg_mask also on a way down (do_backward False): the reach of the players whose
            # averages grow below it (the kernel adds to no average on such a walk)
            Pass(int(job.upd_mask), int(job.avg_mask), int(job.val_mask), int(job.br_player),
                 float(pre), float(pos), float(neg), float(floor), float(decay), float(weight), bool(job.prune),
                 int(job.sample), np.uint64(job.key()), int(job.sampling_player()), float(job.nxt),
                 float(job.pweight)),
            entry, int(boundary_mode), boundary, bool(do_backward), bufs,
        )
        return bufs.out_cfv.copy()

    def _segment_arrays(self, store, key, seg, job: _Job, pj: PassJob | None):
        """(src, reg, avg) of one open segment for the kernel (see solverkit.core.passes); from a
        compact store, where the kernel can apply the pass itself, the block16 values live
        (:class:`_Compact`, three times: the kernel updates them in place)."""
        if getattr(seg, "compact", None) is not None and _kernel_compact(job, pj):
            c = _Compact.of(seg, job, pj)
            return c, c, c
        return segment_arrays(store, seg, key, pj, job.upd_mask, job.avg_mask, job.source,
                              scratch=self._pass_scratch(key), kernel_predictive=job.predictive)

    def _pass_scratch(self, key):
        """Buffers the passes of an unsplit game reuse (:func:`~solverkit.core.passes.segment_arrays`);
        None for a split game's segments (kept, they would hold every subgame's at once)."""
        if self.split or key != "root":
            return None
        return self.__dict__.setdefault("_root_scratch", {})

    @staticmethod
    def _writes(job: _Job, pj):
        """Arrays a pass changes: the updated players' regrets and rule state, the growing averages."""
        if pj is None:
            return ()
        return writes(pj, job.upd_mask, job.avg_mask)

    def _finish_segment(self, seg, reg, avg, job: _Job, pj: PassJob | None):
        finish_segment(seg, reg, avg, pj, job.upd_mask, job.avg_mask, kernel_predictive=job.predictive)

    def _root_entry(self):
        """Reach [2, H] at the root: 1 for every hand valid on the empty board (made once; the
        kernels only read it)."""
        entry = self.__dict__.get("_entry")
        if entry is None:
            v = self.tree.valid[0].astype(np.float64)
            entry = self._entry = np.stack([v, v])
        return entry

    def _root_value(self, out, p) -> float:
        """Player p's value from the root's per-hand values: each hand's weighted by its chance
        at the root (the reach it entered with: 1 for every hand of a game dealt uniformly)."""
        return float((out[p] * self._root_entry()[p]).sum())

    def _pass(self, store, job: _Job, transport, pj: PassJob | None = None):
        """Run one walk over the whole game (split or not); return root values [2, H]."""
        t = self.tree
        if not self.split:
            chunks = self._deal_chunks(transport, job)
            with store.open("root", self._writes(job, pj)) as seg:
                src, reg, avg = self._segment_arrays(store, "root", seg, job, pj)
                pred = [seg["pred0"], seg["pred1"]] if job.predictive else None
                if chunks:
                    out = self._chunked_call(transport, chunks, src, reg, avg, job, pred)
                else:
                    out = self._call(self.full, 0, self._root_entry(), t.boards.round_start, src, reg, avg, job,
                                     pred=pred)
                self._finish_segment(seg, reg, avg, job, pj)
            return out
        s = self.split
        boundary, inputs = self.trunk_reach(store, job)
        self._trim(store)
        base = int(t.boards.round_start[s - 1])
        keys = self._keys
        if job.sample != MODE_FULL:  # only the subgames below the cut board the trunk dealt
            keys = self.sampled_keys(job)
            inputs = {k: inputs[k] for k in keys}
            store.expect([self._segment_name(k) for k in keys])
        else:
            store.expect(self._segment_names)
        shape = boundary.shape
        # the reach buffer lives on in the views of `inputs` only, which a transport may take
        # out as it sends them (full hold'em: 2.3 GB freed before the values come back)
        del boundary
        outputs = transport.map_subgames((job, pj), inputs) if transport is not None else {
            k: self.subgame_pass(k, (job, pj), v, store) for k, v in inputs.items()}
        del inputs
        # the way up reads the values of the players in val_mask only (a subgame returns those)
        boundary = np.zeros((*shape[:2], *self.subgame_output_shape((job, pj))))
        for key in keys:  # chunks add up in a fixed order, whatever order they finished in
            e, b, _ = key
            boundary[self.re_index[e], b - base] += outputs[key]
        del outputs  # (2.3 GB for full hold'em) before the trunk's arrays are decoded for the way up
        # up: values from the subgames, trunk updates
        with store.open("trunk", self._writes(job, pj)) as seg:
            src, reg, avg = self._segment_arrays(store, "trunk", seg, job, pj)
            out = self._call(self.trunk, 0, self._root_entry(), t.boards.round_start, src, reg, avg, job,
                             boundary_mode=2, boundary=boundary)
            del boundary  # freed before the updated arrays are encoded
            self._finish_segment(seg, reg, avg, job, pj)
        self._trim(store)
        return out

    def board_codes(self) -> np.ndarray:
        """int64 [boards]: each board named by its round and cards (not its index, which differs
        in a worker's smaller game): the node of its draw in a sampled pass's stream."""
        codes = self.__dict__.get("_board_codes")
        if codes is None:
            b = self.tree.boards
            rnd = np.searchsorted(b.round_start, np.arange(b.cards.shape[0]), side="right") - 1
            code = rnd.astype(np.uint64)
            with np.errstate(over="ignore"):
                for j in range(b.cards.shape[1]):
                    code = code * np.uint64(131) + (b.cards[:, j] + 1).astype(np.uint64)
            codes = self._board_codes = (code >> np.uint64(1)).astype(np.int64)
        return codes

    def _parallel_deals(self, transport) -> bool:
        """Whether full passes of this whole game walk their boards in chunks on threads."""
        return (not self.split and bool(self.config.get("parallel_deals")) and transport is not None
                and transport.local_threads() > 1 and self.gd.num_rounds > 1)

    def _deal_chunks(self, transport, job: _Job):
        """Ranges [first, end) of the boards dealt after the first round that a whole walk runs in
        parallel ([game] parallel_deals, a transport with threads here, a full pass), balanced by
        the boards below each; None: one walk."""
        if job.sample != MODE_FULL or not self._parallel_deals(transport):
            return None
        threads = transport.local_threads()
        cached = self.__dict__.get("_deal_chunk_list")
        if cached is None or cached[0] != threads:
            b = self.tree.boards
            c0, c1 = int(b.child_start[0]), int(b.child_end[0])
            cached = self._deal_chunk_list = (threads, _balanced_ranges(c0, _boards_below(b, c0, c1), 2 * threads))
        chunks = cached[1]
        return chunks if len(chunks) > 1 else None

    def _chunked_call(self, transport, chunks, src, reg, avg, job: _Job, pred=None):
        """One pass of a whole game as chunks of the first round's child boards on the transport's
        threads (kernel boundary mode 3: each chunk leaves its boards' values below the first
        round's round-end nodes in a buffer), then the first round itself (mode 4) collecting them
        board by board: the same sums as one walk, bit for bit. Chunks write disjoint values (their
        own boards'); only the last walk writes the first round's."""
        t = self.tree
        lo = t.boards.round_start
        entry = self._root_entry()
        buf = self.__dict__.get("_deal_buffer")
        if buf is None:
            ends = int(np.count_nonzero((t.bet.kind == ROUND_END) & (t.bet.round == 0)))
            kids = int(t.boards.child_end[0] - t.boards.child_start[0])
            buf = self._deal_buffer = np.zeros((ends, kids, 2, t.max_hands))
        else:
            buf.fill(0.0)

        def chunk(bounds):
            self._call(self.full, 0, entry, lo, src, reg, avg, job, boundary_mode=3, boundary=buf, children=bounds,
                       pred=pred)

        transport.map_local(chunk, chunks)
        return self._call(self._first_round(), 0, entry, lo, src, reg, avg, job, boundary_mode=4, boundary=buf,
                          pred=pred)

    def cfr_pass(self, store, job: PassJob, transport=None) -> int:
        """One pass (full or sampled, as job.sampler says); returns the public nodes visited."""
        kjob = self.predictive_job(self.kernel_job(job), job, store)
        self._pass(store, kjob, transport, job)
        return self.pass_nodes(kjob)

    def _one_call(self, store, block: PassBlock, transport) -> bool:
        """Whether :meth:`cfr_block` runs `block` in one :func:`.kernels.dfs_block` call."""
        return (self.blocks_passes(block.rule, block.averaging, store) and not self._parallel_deals(transport)
                and (not block.rule.predictive or self.kernel_predictive(block.rule, store, block.sampler)))

    def prepare_block(self, store, block: PassBlock, transport=None) -> None:
        """Resolve and load dfs_block for this block's argument types before the timed first
        block (numba's first call types its ~75 record arrays in Python: about 1.5 ms, a quarter
        of a small river's solve); the block's own call then takes the compiled entry point."""
        dtype = getattr(store, "dtype", np.float64)
        if block_kernel(dtype) is not dfs_block or not self._one_call(store, block, transport) or (
                block.sampler is not None and block.sampler.sampled):
            return
        self.cfr_block(store, block, transport, run=False)
        block_kernel(dtype)  # the compiled entry point, looked up once (its first lookup took 60 us)
        # loading the kernel (~40 ms) leaves the caches cold: the timed first block's Python set-up
        # took 0.4 ms instead of 40 us (its numpy calls 20 us each); run it once more now (no pass),
        # its coefficients made afresh, and drop them: the timed block makes its own, as before
        self.__dict__.pop("_full_plan", None)
        self.cfr_block(store, block, transport, run=False)
        self.__dict__.pop("_full_plan", None)

    def cfr_block(self, store, block: PassBlock, transport=None, run: bool = True) -> int:
        """A block of passes: one kernel call (:func:`.kernels.dfs_block`) where
        :meth:`blocks_passes` allows, with the numbers of one call per pass; else pass by pass.
        `run` False: only load the kernel for these arguments (:meth:`prepare_block`)."""
        if not self._one_call(store, block, transport):
            return sum(self.cfr_pass(store, job, transport) for job in block.jobs())
        predictive = block.rule.predictive
        upd, avgm, coeffs, prunes, modes, keys, samp, nodes = self._block_arrays(block)
        upd_all, avg_all = int(np.bitwise_or.reduce(upd)), int(np.bitwise_or.reduce(avgm))
        pj = PassJob(block.first, (0, 1), block.rule, block.averaging, block.sampler)
        with store.open("root", writes(pj, upd_all, avg_all)) as seg:
            src, reg, avg = segment_arrays(store, seg, "root", pj, upd_all, avg_all, scratch=self._pass_scratch("root"),
                                           kernel_predictive=predictive)
            pred = [seg["pred0"], seg["pred1"]] if predictive else None
            values = float_values(src[0], src[1], reg[0], reg[1], avg[0], avg[1], pred)
            args = (self.kernel_tree(), self._whole_walk(), values, self._root_entry(),
                    upd, avgm, coeffs, prunes, modes, keys, samp, self._bufs(values.src0.dtype))
            if not run:
                if block_kernel(values.src0.dtype) is dfs_block:  # not loaded for these values yet
                    dfs_block.prepare(args)
                return 0
            block_kernel(values.src0.dtype)(*args)
        return nodes

    def _whole_walk(self) -> Walk:
        """The walk plan of a whole game's pass from the root (made once)."""
        plan = self.__dict__.get("_whole_walk_plan")
        if plan is None:
            b = self.tree.boards
            plan = self._whole_walk_plan = self._walk_plan(self.full, 0, b.child_start[0], b.child_end[0],
                                                           b.round_start)
        return plan

    def warmup(self, dtype=np.float64):
        """Load the kernel for values of `dtype` (the store's): a best-response walk over the trunk
        alone where the game is cut, over the first round alone where it is whole (a whole game's
        strategy would cost as much memory as the store: 466 MB for a large flop). dfs_block loads
        at the first block of passes (the fourth iteration: a short run never needs it; 0.17 s of a
        warm 1-iteration Kuhn solve), its seconds counted as compile time, not solve time."""
        t = self.tree
        if not self.split:
            src = [np.full(max(int(self.full.stride[p, self.full.r0]), 2), 0.5, dtype=dtype) for p in (0, 1)]
            self._call(self._first_round(), 0, self._root_entry(), t.boards.round_start, src, src,
                       [np.zeros(1), np.zeros(1)], _Job(0, 0, 1, 0, NO_COEFFS))
            return
        src = [np.full(max(self.trunk.sizes[p], 2), 0.5, dtype=dtype) for p in (0, 1)]
        boundary = np.zeros((int(np.count_nonzero(self.re_index[self.entries] >= 0)), len(self.sub_boards), 2,
                             t.max_hands))
        self._call(self.trunk, 0, self._root_entry(), t.boards.round_start, src, src, [np.zeros(1), np.zeros(1)],
                   _Job(0, 0, 1, 0, NO_COEFFS), boundary_mode=1, boundary=boundary, do_backward=False)
