"""Strength of non-final hands from the next round's: the mean (EHS) or histogram (EMD) of
final-round equity over every completion of the board, one round at a time.

Each canonical hand of round r lists its children (the canonical hands of round r + 1 for every
set of next-round board cards) and averages what they hold: the final round's quantised equity
(mean, or counts per histogram bin) or the children's means and histograms. A child stands for
the same number of final completions as its siblings, so plain means are exact. Hold'em: the
turn's 13,960,050 hands look up 46 river hands each, the flop's 47 turn hands each.
"""

from __future__ import annotations

from math import comb

import numpy as np
from ..core.jit import njit

from .indexer import HandIndexer, canonical_index, canonical_row
from .spec import CardSpec
from .threads import run_ranges


@njit(cache=True, nogil=True)
def _children(arrays, r, deck, row, need, kids):
    """kids[t]: the canonical round r + 1 hand of `row` (a round r hand, room for `need` more
    cards) completed by each `need`-subset of the cards it leaves free."""
    n = arrays[2][r]
    taken = np.zeros(deck, dtype=np.bool_)
    for j in range(n):
        taken[row[j]] = True
    free = np.empty(deck - n, dtype=np.int64)
    m = 0
    for c in range(deck):
        if not taken[c]:
            free[m] = c
            m += 1
    pick = np.arange(need)
    t = 0
    while True:
        for j in range(need):
            row[n + j] = free[pick[j]]
        kids[t] = canonical_index(arrays, r + 1, row)
        t += 1
        j = need - 1  # the next subset, in lexicographic order
        while j >= 0 and pick[j] == m - need + j:
            j -= 1
        if j < 0:
            return t
        pick[j] += 1
        for u in range(j + 1, need):
            pick[u] = pick[u - 1] + 1


@njit(cache=True, nogil=True)
def _kids(arrays, r, hand, deck, need, nkids):
    """The canonical indices (round r + 1) of the `nkids` children of canonical hand `hand` of round r."""
    row = np.empty(arrays[2][r] + need, dtype=np.int64)
    kids = np.empty(nkids, dtype=np.int64)
    canonical_row(arrays, r, hand, row)
    _children(arrays, r, deck, row, need, kids)
    return kids


@njit(cache=True, nogil=True)
def _child_mean(lo, hi, arrays, r, ids, deck, need, nkids, child, scale, out):
    """out[i] = scale x the mean of child[] over the children of canonical hand ids[i], i in lo..hi-1."""
    for i in range(lo, hi):
        kids = _kids(arrays, r, ids[i], deck, need, nkids)
        acc = 0.0
        for t in range(nkids):
            acc += child[kids[t]]
        out[i] = acc * scale / nkids


@njit(cache=True, nogil=True)
def _child_bins(lo, hi, arrays, r, ids, deck, need, nkids, q, bins, out):
    """out[i, b]: children of ids[i] whose quantised final equity q falls in bin b."""
    for i in range(lo, hi):
        kids = _kids(arrays, r, ids[i], deck, need, nkids)
        out[i, :] = 0
        for t in range(nkids):
            out[i, q[kids[t]] * bins // 65536] += 1


@njit(cache=True, nogil=True)
def _child_hist(lo, hi, arrays, r, ids, deck, need, nkids, child, child_total, out):
    """out[i] = the mean over the children of ids[i] of child[kid] / child_total (histograms as
    fractions)."""
    bins = out.shape[1]
    for i in range(lo, hi):
        kids = _kids(arrays, r, ids[i], deck, need, nkids)
        acc = np.zeros(bins)
        for t in range(nkids):
            for b in range(bins):
                acc[b] += child[kids[t], b]
        for b in range(bins):
            out[i, b] = acc[b] / (nkids * child_total)


class Rollout:
    """Per-round strength features of canonical hands from the next round's."""

    def __init__(self, spec: CardSpec, indexer: HandIndexer):
        self.spec = spec
        self.indexer = indexer

    def _shape(self, r):
        need = self.spec.board_cards[r + 1]
        return need, comb(self.spec.deck_size - self.spec.cards_in(r), need)

    def mean(self, r: int, ids, child, scale: float = 1.0) -> np.ndarray:
        """float32: scale x mean of `child` (float32, indexed by round r + 1 hands) over the
        children."""
        ids = np.ascontiguousarray(ids, dtype=np.int64)
        child = np.asarray(child, dtype=np.float32)  # one compiled kernel
        need, nkids = self._shape(r)
        out = np.empty(ids.shape[0], dtype=np.float32)
        run_ranges(_child_mean, ids.shape[0], self.indexer.arrays, r, ids, self.spec.deck_size, need, nkids, child, scale, out)
        return out

    def bins(self, r: int, ids, q, bins: int) -> np.ndarray:
        """uint16[n, bins]: counts of the children's quantised final equities per bin (r + 1
        is the final round)."""
        ids = np.ascontiguousarray(ids, dtype=np.int64)
        need, nkids = self._shape(r)
        out = np.empty((ids.shape[0], bins), dtype=np.uint16)
        run_ranges(_child_bins, ids.shape[0], self.indexer.arrays, r, ids, self.spec.deck_size, need, nkids, q, bins, out)
        return out

    def hist(self, r: int, ids, child, child_total: float) -> np.ndarray:
        """float32[n, bins]: mean of the children's histograms, each divided by child_total."""
        ids = np.ascontiguousarray(ids, dtype=np.int64)
        need, nkids = self._shape(r)
        out = np.empty((ids.shape[0], child.shape[1]), dtype=np.float32)
        run_ranges(_child_hist, ids.shape[0], self.indexer.arrays, r, ids, self.spec.deck_size, need, nkids, child, float(child_total), out)
        return out

    def completions(self, r: int) -> int:
        """Children of a round r hand (board card sets of round r + 1)."""
        return self._shape(r)[1]
