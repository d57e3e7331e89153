"""Flat information-set layout and the kernels that turn stored values into policies.

A player's values live in one flat float64 array. Information sets come in *blocks*: a block is
a run of `count` consecutive information sets with `num_actions` actions each, actions innermost.
A matrix game is one block of one information set; a public-tree node with 52 private hands is
one block of 52 information sets.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .arith import regret_matching


@dataclass(frozen=True)
class Layout:
    """Blocks of information sets of one player, in flat-array order."""

    block_start: np.ndarray  # int64, offset of the block's first value
    block_count: np.ndarray  # int64, information sets in the block
    block_actions: np.ndarray  # int64, actions of each information set in the block

    @classmethod
    def single(cls, num_actions: int) -> "Layout":
        """One information set with `num_actions` actions (a matrix-game player)."""
        return cls.from_blocks([(1, num_actions)])

    @classmethod
    def from_blocks(cls, blocks) -> "Layout":
        """Build from (count, num_actions) pairs laid out one after another."""
        counts = np.array([b[0] for b in blocks], dtype=np.int64)
        actions = np.array([b[1] for b in blocks], dtype=np.int64)
        sizes = counts * actions
        start: np.ndarray = np.zeros(len(blocks), dtype=np.int64)
        if len(blocks):
            start[1:] = np.cumsum(sizes)[:-1]
        return cls(start, counts, actions)

    @property
    def size(self) -> int:
        """Number of (information set, action) values."""
        return int(np.sum(self.block_count * self.block_actions))

    @property
    def num_infosets(self) -> int:
        return int(np.sum(self.block_count))

    def infoset_slices(self):
        """Yield (start, num_actions) per information set; for small games and export only."""
        for s, c, a in zip(self.block_start, self.block_count, self.block_actions):
            for i in range(int(c)):
                yield int(s + i * a), int(a)


def policy(values: np.ndarray, layout: Layout, out: np.ndarray | None = None) -> np.ndarray:
    """Regret matching (or normalisation) of a flat array over `layout`."""
    if out is None:
        out = np.empty_like(values)
    regret_matching(values, layout.block_start, layout.block_count, layout.block_actions, out)
    return out


#: values per part of :func:`policy_in_parts` (2 MB of float64: a part's decoded values and its
#: output pages are what writing a large strategy adds to the solve's peak; 32 MB parts added
#: 66 MB to a 16-bit flop spot's 419 MB, 2 MB parts 5 MB, in no measurable time)
POLICY_PART_VALUES = 1 << 18


def policy_in_parts(values: np.ndarray, layout: Layout, out: np.ndarray, release=None,
                    part_values: int = POLICY_PART_VALUES, parallel=None) -> np.ndarray:
    """:func:`policy` into `out` a few million values at a time, calling `release()` after each
    part: with `out` a memory map whose pages `release` hands back, a large policy is never
    resident whole (the numbers are those of one :func:`policy` call). `values` may also be a
    function ``(start, stop) -> values[start:stop]`` (a compact store's decoder), so that the
    values are never resident whole either; the layout's blocks must then follow each other.
    `parallel`: a ``map(fn, items)`` that may run the parts on threads (a transport's
    ``map_local``; parts write disjoint values and the kernels release the GIL)."""
    def one(part):
        lo, hi, start, stop = part
        if callable(values):
            regret_matching(values(start, stop), layout.block_start[lo:hi] - start, layout.block_count[lo:hi],
                            layout.block_actions[lo:hi], out[start:stop])
        else:
            regret_matching(values, layout.block_start[lo:hi], layout.block_count[lo:hi],
                            layout.block_actions[lo:hi], out)
        if release is not None:
            release()

    if parallel is None:
        for part in parts(layout, part_values):
            one(part)
    else:
        parallel(one, list(parts(layout, part_values)))
    return out


def parts(layout: Layout, part_values: int = POLICY_PART_VALUES):
    """Yield (first block, end block, first value, end value) of runs of whole blocks of about
    `part_values` values (at least one block each), in order."""
    sizes = layout.block_count * layout.block_actions
    ends = np.cumsum(sizes)
    lo = 0
    while lo < len(sizes):
        hi = max(lo + 1, int(np.searchsorted(ends, (ends[lo - 1] if lo else 0) + part_values, side="right")))
        yield lo, hi, int(layout.block_start[lo]), int(layout.block_start[hi - 1] + sizes[hi - 1])
        lo = hi
