"""The trunk/subgame split of a poker game: subgame keys (round-end node, cut board, chunk), their
boards, regions and store segments, the trunk's reach at the cut, one subgame's pass, and a
subgame job's wire form (what a zmq worker receives)."""

from __future__ import annotations

import numpy as np

from ..core.capabilities import Decomposition
from ..core.game import PassJob
from ..core.store import SegmentSpec
from ..core.wire import check_keys, field
from ..errors import ConfigError, ProtocolError
from .betting import ROUND_END
from .kernels import sample_path
from .pass_settings import _Job, _players


class GameSubgames(Decomposition):
    """The subgames below a poker game's cut (a mixin of :class:`.game.PokerGame`)."""

    def _prepare_subgames(self, lo, hi, nboards):
        """The trunk's region, the subgames' entries, node bounds and chunks, and the segment
        names of a game cut at round ``split`` (lo, hi: every round's node range; nboards: the
        boards per round)."""
        t = self.tree
        bet = t.bet
        R = self.gd.num_rounds
        s = self.split
        self.trunk = self._region(0, s - 1, 0, lo, hi, nboards)
        # subgames: one per (round-end node of round s-1, board of round s-1), each cut into
        # `chunks` runs of consecutive boards of round s (a chunk is one segment and one task)
        self.entries = [int(e) for e in np.flatnonzero((bet.kind == ROUND_END) & (bet.round == s - 1))]
        self._sub_bounds = {}
        for e in self.entries:
            # a subgame's walk starts at its round-end node e on the parent board: the kernel
            # then deals the next round's boards itself (one call per chunk)
            desc = self._descendants(int(bet.children[e, 0]))
            slo, shi = lo.copy(), hi.copy()
            slo[s - 1], shi[s - 1] = e, e + 1
            for r in range(s, R):
                ids = desc[bet.round[desc] == r]
                slo[r], shi[r] = ids.min(), ids.max() + 1
            self._sub_bounds[e] = (slo, shi)
        self.sub_boards = list(t.boards.of_round(s - 1))
        k = self.chunk_count
        self._chunks = {}
        for b in self.sub_boards:
            c0, c1 = self._children_of(b)
            # offsets from c0, so that a game dealing fewer boards (a worker's) chunks alike
            edges = c0 + np.unique(np.linspace(0, c1 - c0, min(k, c1 - c0) + 1).round().astype(np.int64))
            self._chunks[b] = [(int(x), int(y)) for x, y in zip(edges[:-1], edges[1:])]
        self._keys = [(e, b, j) for e in self.entries for b in self.sub_boards for j in range(len(self._chunks[b]))]
        self._chunked = any(len(v) > 1 for v in self._chunks.values())
        self._segment_names = [self._segment_name(k) for k in self._keys]
        self._sub_regions = {}

    def _children_of(self, b) -> tuple[int, int]:
        """Global ids c0..c1-1 of the next round's boards below cut board b (counted when the
        tree stops at the cut)."""
        if self.below is None:
            bd = self.tree.boards
            return int(bd.child_start[b]), int(bd.child_end[b])
        i = b - int(self.tree.boards.round_start[self.split - 1])
        c0 = int(self.below.first[i, self.split])
        return c0, c0 + int(self.below.children[i].shape[0])

    def _chunk_boards(self, b, j):
        """(first board per round, boards per round) of chunk j of the subgames on board b."""
        t = self.tree
        R = self.gd.num_rounds
        first = self.round_start.copy()
        count = np.zeros(R, dtype=np.int64)
        c0, c1 = self._chunks[b][j]
        first[self.split - 1], count[self.split - 1] = b, 1
        if self.below is not None:
            i = b - int(t.boards.round_start[self.split - 1])
            base = int(self.below.first[i, self.split])
            f, c = self.below.chunk(i, c0 - base, c1 - base)
            first[self.split:R], count[self.split:] = f[self.split:], c[self.split:]
            return first, count
        lo, hi = c0, c1
        for r in range(self.split, R):
            first[r], count[r] = lo, hi - lo
            if r + 1 < R:
                lo, hi = int(t.boards.child_start[lo]), int(t.boards.child_end[hi - 1])
        return first, count

    def _sub_region(self, e, b, j):
        first, count = self._chunk_boards(b, j)
        key = (e, tuple(int(x) for x in count))
        region = self._sub_regions.get(key)
        if region is None:
            slo, shi = self._sub_bounds[e]
            region = self._region(self.split - 1, self.gd.num_rounds - 1, e, slo, shi, count)
            self._sub_regions[key] = region
        return region, first

    def _segment_name(self, key):
        e, b, j = key
        return f"sub/{e}/{b}/{j}" if self._chunked else f"sub/{e}/{b}"

    def segments(self, with_average):
        def spec(key, sizes):
            arrays = {f"regret{p}": sizes[p] for p in (0, 1)}
            if with_average:
                arrays.update({f"avg{p}": sizes[p] for p in (0, 1)})
            return SegmentSpec(key, arrays)

        if not self.split:
            return [spec("root", self.full.sizes)]
        out = [spec("trunk", self.trunk.sizes)]
        for key in self._keys:
            out.append(spec(self._segment_name(key), self._sub_sizes(*key)))
        return out

    def _sub_sizes(self, e, b, j) -> tuple[int, int]:
        """Values per player of subgame segment (e, b, j), from its board counts and the
        per-board strides of entry e (no region with its per-block arrays is made)."""
        strides = self.__dict__.setdefault("_sub_strides", {})
        stride = strides.get(e)
        if stride is None:
            slo, shi = self._sub_bounds[e]
            ones = np.ones(self.gd.num_rounds, dtype=np.int64)
            stride = strides[e] = self._region(self.split - 1, self.gd.num_rounds - 1, e, slo, shi, ones).stride
        count = self._chunk_boards(b, j)[1]
        r = slice(self.split - 1, self.gd.num_rounds)
        return int(stride[0, r] @ count[r]), int(stride[1, r] @ count[r])

    def _segment_region(self, key):
        """(region, first board per round) of a segment name."""
        if key in ("root", "trunk"):
            return (self.full if key == "root" else self.trunk), self.round_start
        return self._sub_region(*self._name_to_key()[key])

    def _name_to_key(self) -> dict:
        """Segment name -> subgame key."""
        index = self.__dict__.get("_names")
        if index is None:
            index = self._names = {self._segment_name(k): k for k in self._keys}
        return index

    def subgame_config(self, keys):
        """A worker builds the subgames it owns: never trunk-only (subclasses add a smaller deal)."""
        return {"trunk_only": False}

    def subgame_keys(self):
        """(round-end node, board of round s-1, chunk) of every subgame segment."""
        return list(self._keys) if self.split else []

    def subgame_segment(self, key):
        return self._segment_name(key)

    def subgame_address(self, key):
        """[round-end node, chunk, board cards...]: the same in any game dealt from the same
        rules (board indices differ between a whole game and one restricted to some flops)."""
        e, b, j = key
        bd = self.tree.boards
        return [int(e), int(j), *(int(c) for c in bd.cards[b, : bd.num_cards[b]])]

    def subgame_shape(self):
        """Reach in: [player, hand] at the cut."""
        return (2, self.tree.max_hands)

    def subgame_output_shape(self, job):
        """Values out: [one row per player whose values the pass computes, hand] (one row in an
        alternating CFR pass and a best response: half the bytes back)."""
        return (len(_players(job[0].val_mask)), self.tree.max_hands)

    def job_to_wire(self, job):
        """A subgame job ``(_Job, PassJob | None)`` as {"kernel": settings, "pass": None or
        iteration and players}."""
        kjob, pj = job
        return {"kernel": kjob.to_wire(), "pass": None if pj is None else pj.to_wire()}

    def job_from_wire(self, data, rule, averaging):
        """``(_Job, PassJob | None)`` from :meth:`job_to_wire` data; the PassJob gets the
        worker's own rule and averaging instances."""
        if not isinstance(data, dict):
            raise ProtocolError(f"subgame job: {type(data).__name__} {data!r:.60}, expected a map")
        check_keys(data, ("kernel", "pass"), "subgame job")
        kjob = _Job.from_wire(field(data, "kernel", "subgame job", "map"), "subgame job field 'kernel'")
        wire = field(data, "pass", "subgame job", "map", optional=True)
        pj = None if wire is None else PassJob.from_wire(wire, rule, averaging, "subgame job field 'pass'")
        return kjob, pj

    def trunk_reach(self, store, job: _Job):
        """The trunk's down walk: (boundary buffer, {subgame key: reach [2, H] at the cut})."""
        t = self.tree
        nre = int(np.count_nonzero(self.re_index[self.entries] >= 0))
        boundary = np.zeros((nre, len(self.sub_boards), 2, t.max_hands))
        with store.open("trunk", ()) as seg:  # read only: its buffers go back to the store's pool
            src, reg, avg = self._segment_arrays(store, "trunk", seg, job, None)
            self._call(self.trunk, 0, self._root_entry(), t.boards.round_start, src, reg, avg, job,
                       boundary_mode=1, boundary=boundary, do_backward=False)
            del src, reg, avg
        base = int(t.boards.round_start[self.split - 1])
        # views, not copies (2.3 GB for full hold'em): the transport reads them before _pass
        # reuses the buffer for the subgames' values
        return boundary, {key: boundary[self.re_index[key[0]], key[1] - base] for key in self._keys}

    def subgame_pass(self, key, job, inputs, store):
        """Values [players in the job's val_mask, H] at the cut for subgame segment key =
        (round-end node, board, chunk), given the reach [2, H] there."""
        if self.below is not None:
            raise ConfigError(f"game {self.name!r} was built with [game] trunk_only = true: it holds no subgame "
                              f"(asked for {key!r}); run its subgames on workers with [transport] name = \"zmq\"")
        kjob, pj = job
        e, b, j = key
        region, first = self._sub_region(e, b, j)
        c0, c1 = self._chunks[b][j]
        name = self._segment_name(key)
        with store.open(name, self._writes(kjob, pj)) as seg:
            src, reg, avg = self._segment_arrays(store, name, seg, kjob, pj)
            out = self._call(region, b, inputs, first, src, reg, avg, kjob, children=(c0, c1))
            self._finish_segment(seg, reg, avg, kjob, pj)
        return out if kjob.val_mask == 3 else out[_players(kjob.val_mask)]

    def sampled_keys(self, job: _Job) -> list:
        """The subgame keys a sampled pass hands out: those below the cut board that the trunk's
        walk deals (the same draws, :func:`.kernels.sample_path`), and of its chunks the one
        holding the board dealt below it (a trunk-only game, which lacks those boards, hands out
        every chunk of the cut board: the others walk nothing)."""
        t = self.tree
        b = t.boards
        s = self.split
        key = job.key()
        path, _ = sample_path(key, 0, s - 1, self.board_codes(), b.child_start, b.child_end, b.perm_start, b.perm_end)
        cut = int(path[-1])
        chunks = self._chunks[cut]
        if self.below is None and len(chunks) > 1:
            child = int(sample_path(key, cut, 1, self.board_codes(), b.child_start, b.child_end, b.perm_start,
                                    b.perm_end)[0][1])
            chunks = [next((c0, c1) for c0, c1 in chunks if c0 <= child < c1)]
        index = {c: j for j, c in enumerate(self._chunks[cut])}
        return [(e, cut, index[c]) for e in self.entries for c in chunks]

    def _trim(self, store):
        """A trunk-only trunk's store holds one segment, decoded twice a pass, between which
        the transport's buffers come and go: it keeps no spare decode buffers (full hold'em:
        5 GB) through them."""
        if self.trunk_only and hasattr(store, "free_spare_buffers"):
            store.free_spare_buffers()
