"""Hand strength features: equity of every hand on every canonical final board, then per
canonical hand of a round its equity (final round), its expected equity or equity histogram over
the board completions (earlier rounds), or its equity against opponent clusters (OCHS).

Equity against a uniform random opponent hand on one final board comes from one sorted sweep
over the hands by strength, with card removal by inclusion-exclusion over the hand's cards (no
pairwise loop): opponents below = all below - those holding one of our cards (+ those holding
both: only our own hand). Boards are canonical under suit permutation (suit masks sorted), so a
hold'em river table has 134,459 boards x 1,326 hands.
"""

from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np
from numba import njit, prange

from ..poker.evaluator import acpc_rank
from .indexer import HandIndexer, canonical_row
from .spec import CardSpec

#: equities are stored as round(equity * QMAX) in uint16
QMAX = 65535


@njit(cache=True, nogil=True)
def board_key(cards, lo, hi, ns, nr, perm):
    """Canonical key of the set cards[lo:hi] (suit masks sorted descending, packed) and, in
    `perm`, the suit each suit maps to."""
    masks = np.zeros(4, dtype=np.int64)
    for i in range(lo, hi):
        masks[cards[i] % ns] |= 1 << (cards[i] // ns)
    order = np.arange(4)
    for i in range(1, ns):
        j = i
        while j > 0 and masks[order[j - 1]] < masks[order[j]]:
            t = order[j - 1]
            order[j - 1] = order[j]
            order[j] = t
            j -= 1
    key = 0
    for i in range(ns):
        key = (key << nr) | masks[order[i]]
        perm[order[i]] = i
    return key


@njit(cache=True, nogil=True)
def _lookup(keys, key):
    lo, hi = 0, keys.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if keys[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True, nogil=True)
def _hand_id(cards, lo, hi, ns, perm, binom):
    """Colex index of the hole cards cards[lo:hi] after mapping suits through `perm`."""
    k = hi - lo
    h = np.empty(k, dtype=np.int64)
    for i in range(k):
        c = cards[lo + i]
        h[i] = (c // ns) * ns + perm[c % ns]
    h.sort()
    out = 0
    for i in range(k):
        out += binom[h[i], i + 1]
    return out


@njit(cache=True, nogil=True, parallel=True)
def _board_keys(combos, ns, nr, out):
    for i in prange(combos.shape[0]):
        perm = np.empty(4, dtype=np.int64)
        out[i] = board_key(combos[i], 0, combos.shape[1], ns, nr, perm)


@njit(cache=True, nogil=True)
def _sweep(strength, hands, cluster, nk, deck, out):
    """out[h, k] = equity of hand h against a uniform opponent hand of cluster k on one board,
    from `strength` (-1: the hand clashes with the board); one sweep in strength order."""
    nh, H = hands.shape
    order = np.argsort(strength, kind="mergesort")
    below = np.zeros(nk)
    below_c = np.zeros((nk, deck))
    eq = np.zeros(nk)
    eq_c = np.zeros((nk, deck))
    all_ = np.zeros(nk)
    all_c = np.zeros((nk, deck))
    for h in range(nh):
        if strength[h] >= 0:
            all_[cluster[h]] += 1
            for j in range(H):
                all_c[cluster[h], hands[h, j]] += 1
    i = 0
    while i < nh:
        if strength[order[i]] < 0:
            i += 1
            continue
        j = i
        while j < nh and strength[order[j]] == strength[order[i]]:
            j += 1
        eq[:] = 0
        eq_c[:, :] = 0
        for t in range(i, j):
            h = order[t]
            eq[cluster[h]] += 1
            for q in range(H):
                eq_c[cluster[h], hands[h, q]] += 1
        for t in range(i, j):
            h = order[t]
            for k in range(nk):
                w = below[k]
                e = eq[k]
                n = all_[k]
                for q in range(H):
                    w -= below_c[k, hands[h, q]]
                    e -= eq_c[k, hands[h, q]]
                    n -= all_c[k, hands[h, q]]
                if H == 2 and cluster[h] == k:  # our own hand holds both cards: counted out twice
                    e += 1
                    n += 1
                out[h, k] = 0.5 if n <= 0 else (w + 0.5 * e) / n
        for t in range(i, j):
            h = order[t]
            below[cluster[h]] += 1
            for q in range(H):
                below_c[cluster[h], hands[h, q]] += 1
        i = j


@njit(cache=True, nogil=True)
def _brute(strength, hands, cluster, nk, out):
    """As _sweep for hands of more than two cards: every pair of hands compared."""
    nh, H = hands.shape
    for h in range(nh):
        if strength[h] < 0:
            continue
        for k in range(nk):
            w, n = 0.0, 0.0
            for o in range(nh):
                if strength[o] < 0 or cluster[o] != k:
                    continue
                clash = False
                for a in range(H):
                    for b in range(H):
                        if hands[h, a] == hands[o, b]:
                            clash = True
                if clash:
                    continue
                n += 1
                if strength[o] < strength[h]:
                    w += 1
                elif strength[o] == strength[h]:
                    w += 0.5
            out[h, k] = 0.5 if n == 0 else w / n


@njit(cache=True, nogil=True, parallel=True)
def _board_table(boards, hands, cluster, nk, ns, deck, strengths, use_acpc, out):
    """out[b, h, k]: quantised equity of hand h vs cluster k on board b; strengths per board
    come from `strengths` or, with use_acpc, from acpc_rank."""
    nb, B = boards.shape
    nh, H = hands.shape
    for b in prange(nb):
        s = np.empty(nh, dtype=np.int64)
        if use_acpc:
            cards = np.empty(H + B, dtype=np.int64)
            for i in range(B):
                cards[H + i] = boards[b, i]
            for h in range(nh):
                clash = False
                for j in range(H):
                    cards[j] = hands[h, j]
                    for i in range(B):
                        if hands[h, j] == boards[b, i]:
                            clash = True
                s[h] = -1 if clash else acpc_rank(cards, ns)
        else:
            s[:] = strengths[b]
        e = np.zeros((nh, nk))
        if H <= 2:
            _sweep(s, hands, cluster, nk, deck, e)
        else:
            _brute(s, hands, cluster, nk, e)
        for h in range(nh):
            for k in range(nk):
                out[b, h, k] = np.uint16(np.rint(e[h, k] * 65535.0))


@njit(cache=True, nogil=True)
def _final_equity(row, H, n, ns, nr, keys, table, binom, k):
    """Quantised equity (dimension k) of the final hand row[:n] (hole cards first)."""
    perm = np.empty(4, dtype=np.int64)
    key = board_key(row, H, n, ns, nr, perm)
    b = _lookup(keys, key)
    return table[b, _hand_id(row, 0, H, ns, perm, binom), k]


@njit(cache=True, nogil=True, parallel=True)
def _class_features(arrays, r, ids, deck, n_final, keys, table, binom, bins, out):
    """Per canonical hand ids[i] of round r: with bins == 0 the equity against each opponent
    cluster (final round) or the mean final equity over every completion of the board; with
    bins > 0 the histogram (fractions) of final equity over the completions."""
    meta = arrays[0]
    nr, ns, H = meta[0], meta[1], meta[3]
    n = arrays[2][r]
    need = n_final - n
    nk = table.shape[2]
    for i in prange(ids.shape[0]):
        row = np.empty(n_final, dtype=np.int64)
        canonical_row(arrays, r, ids[i], row)
        if need == 0:
            for k in range(nk):
                out[i, k] = _final_equity(row, H, n_final, ns, nr, keys, table, binom, k) / 65535.0
            continue
        free = np.empty(deck - n, dtype=np.int64)
        taken = np.zeros(deck, dtype=np.bool_)
        for j in range(n):
            taken[row[j]] = True
        m = 0
        for c in range(deck):
            if not taken[c]:
                free[m] = c
                m += 1
        pick = np.arange(need)
        acc = np.zeros(out.shape[1])
        count = 0
        while True:
            for j in range(need):
                row[n + j] = free[pick[j]]
            q = _final_equity(row, H, n_final, ns, nr, keys, table, binom, 0)
            if bins > 0:
                acc[min(q * bins // 65536, bins - 1)] += 1.0
            else:
                acc[0] += q / 65535.0
            count += 1
            j = need - 1  # next combination of `need` free cards
            while j >= 0 and pick[j] == m - need + j:
                j -= 1
            if j < 0:
                break
            pick[j] += 1
            for t in range(j + 1, need):
                pick[t] = pick[t - 1] + 1
        for k in range(out.shape[1]):
            out[i, k] = acc[k] / count


def _decode_boards(keys, B, ns, nr) -> np.ndarray:
    """The board (ascending cards) of each canonical key: suit i holds the i-th packed mask."""
    out = np.zeros((keys.shape[0], B), dtype=np.int64)
    col = np.zeros(keys.shape[0], dtype=np.int64)
    rows = np.arange(keys.shape[0])
    for rank in range(nr):
        for suit in range(ns):
            has = (keys >> (nr * (ns - 1 - suit) + rank)) & 1 == 1
            out[rows[has], col[has]] = rank * ns + suit
            col[has] += 1
    return out


class EquityTables:
    """The final-board equity tables of a CardSpec, and features of canonical hands from them."""

    def __init__(self, spec: CardSpec, indexer: HandIndexer | None = None, cluster=None, nk: int = 1, boards=None):
        """Equities on every canonical final board (or only those of the final `boards` given,
        rows of cards, for spot checks); `cluster` (per hand, in colex order) and `nk` for OCHS."""
        self.spec = spec
        self.indexer = indexer or HandIndexer(spec)
        ns, nr, H, deck = spec.num_suits, spec.num_ranks, spec.hole_cards, spec.deck_size
        B = sum(spec.board_cards)
        if boards is None:
            combos = np.array(list(combinations(range(deck), B)), dtype=np.int64).reshape(-1, B)
        else:
            combos = np.ascontiguousarray(np.sort(np.atleast_2d(boards), axis=1), dtype=np.int64).reshape(-1, B)
        keys = np.empty(combos.shape[0], dtype=np.int64)
        _board_keys(combos, ns, nr, keys)
        self.keys = np.unique(keys)
        self.boards = _decode_boards(self.keys, B, ns, nr)  # the canonical board of each key
        hands = list(combinations(range(deck), H))
        hands.sort(key=lambda h: sum(comb(c, i + 1) for i, c in enumerate(h)))  # colex order
        self.hands = np.array(hands, dtype=np.int64)
        self.binom = np.array([[comb(n, k) for k in range(H + 2)] for n in range(deck + 1)], dtype=np.int64)
        self.cluster = np.zeros(len(hands), dtype=np.int64) if cluster is None else np.asarray(cluster, np.int64)
        self.nk = int(nk)
        table = np.empty((self.boards.shape[0], len(hands), self.nk), dtype=np.uint16)
        if spec.evaluator == "acpc":
            strengths = np.empty((0, len(hands)), dtype=np.int64)
        else:
            strengths = np.empty((self.boards.shape[0], len(hands)), dtype=np.int64)
            for b, board in enumerate(self.boards):
                spec.strength(self.hands, board, strengths[b])
        _board_table(self.boards, self.hands, self.cluster, self.nk, ns, deck, strengths, spec.evaluator == "acpc",
                     table)
        self.table = table

    def features(self, r: int, ids, bins: int = 0) -> np.ndarray:
        """float64[len(ids), dims] for canonical hands `ids` of round r: equity vs each cluster
        (final round, bins 0), mean final equity (earlier rounds, bins 0) or its histogram."""
        spec = self.spec
        ids = np.ascontiguousarray(ids, dtype=np.int64)
        final = r == spec.rounds - 1
        dims = self.nk if final and not bins else max(bins, 1)
        out = np.empty((ids.shape[0], dims))
        _class_features(self.indexer.arrays, r, ids, spec.deck_size, spec.cards_in(spec.rounds - 1), self.keys,
                        self.table, self.binom, 0 if final else bins, out)
        if final and bins:  # a final hand's histogram: one bin holds all
            eq = out[:, 0].copy()
            out = np.zeros((ids.shape[0], bins))
            out[np.arange(ids.shape[0]), np.minimum((eq * bins).astype(np.int64), bins - 1)] = 1.0
        return out
