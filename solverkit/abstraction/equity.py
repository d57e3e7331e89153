"""Final-round hand strength: the equity of every canonical final hand against a uniform random
opponent hand (or against each opponent cluster, OCHS), computed board by board.

The canonical final boards (suit masks sorted; hold'em: 134,459 boards) are visited in
parallel; on each, every hole hand is ranked by the game's evaluator, and one sorted sweep over
the hands by strength gives each hand's equity with card removal by inclusion-exclusion over its
cards (opponents below = all below - those holding one of our cards, + those holding both: only
our own hand), never a pairwise loop. Each (board, hand) then writes its canonical final hand:
every class is reached, since each suit orbit holds a hand on the canonical board.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
from ..core.jit import njit

from ..poker.evaluator import acpc_rank
from .indexer import HandIndexer, canonical_index
from .spec import CardSpec
from .threads import run_ranges

#: equities are stored as round(equity * QMAX) in uint16 (resolution 1.5e-5)
QMAX = 65535


def _board_keys(combos, ns, nr) -> np.ndarray:
    """Canonical key of each board (a row of cards): its suit masks sorted descending, packed."""
    masks = np.zeros((combos.shape[0], ns), dtype=np.int64)
    for j in range(combos.shape[1]):  # distinct cards: a sum of distinct bits is their union
        masks[np.arange(combos.shape[0]), combos[:, j] % ns] += np.int64(1) << (combos[:, j] // ns)
    masks = -np.sort(-masks, axis=1)
    key = np.zeros(combos.shape[0], dtype=np.int64)
    for s in range(ns):
        key = (key << nr) | masks[:, s]
    return key


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


@njit(cache=True, nogil=True, fastmath=True)
def _nearest(x, centers_t, d):
    """Index of the centre nearest to x (squared L2; the lowest index on ties); centres as
    columns of centers_t, so the inner loop runs over centres and vectorises; d: scratch."""
    d[:] = 0.0
    for k in range(x.shape[0]):
        xk = x[k]
        for c in range(d.shape[0]):
            y = xk - centers_t[k, c]
            d[c] += y * y
    return np.argmin(d)


@njit(cache=True, nogil=True)
def _final_pass(lo, hi, boards, hands, strengths, use_acpc, arrays, rf, cluster, nk, centers_t, mode, q_out, feat_out,
                label_out):
    """Visit boards lo..hi-1: mode 0 writes q_out[class] (quantised equity), mode 1 feat_out[board *
    hands + hand] (equity vs each cluster; -1 where the hand clashes), mode 2 label_out[class]
    (nearest of the centres, the columns of `centers_t`, squared L2)."""
    B = boards.shape[1]
    nh, H = hands.shape
    nr, ns = arrays[0][0], arrays[0][1]
    deck = nr * ns
    # ACPC ranking sees suits only through flushes (5 cards of a suit): hands with equal hole
    # ranks and equal hole cards in the suits that can still make one rank equal, so one
    # evaluation per such class (a cache of nr^H (ns + 1)^H entries per board) suffices
    span = 1
    for _j in range(H):
        span *= nr * (ns + 1)
    cached = use_acpc and span <= 1 << 16
    for b in range(lo, hi):
        s = np.empty(nh, dtype=np.int64)
        row = np.empty(H + B, dtype=np.int64)
        live = np.zeros(ns, dtype=np.int64)
        for i in range(B):
            row[H + i] = boards[b, i]
            live[boards[b, i] % ns] += 1
        cache = np.full(span if cached else 0, -2, dtype=np.int64)
        for h in range(nh):
            clash = False
            key = 0
            for j in range(H):
                c = hands[h, j]
                row[j] = c
                suit = c % ns
                key = (key * nr + c // ns) * (ns + 1) + (suit + 1 if live[suit] + H >= 5 else 0)
                for i in range(B):
                    if c == boards[b, i]:
                        clash = True
            if clash:
                s[h] = -1
            elif cached:
                if cache[key] == -2:
                    cache[key] = acpc_rank(row, ns)
                s[h] = cache[key]
            elif use_acpc:
                s[h] = acpc_rank(row, ns)
            else:
                s[h] = strengths[b, h]
        e = np.zeros((nh, nk))
        d = np.empty(centers_t.shape[1])
        if H <= 2:
            _sweep(s, hands, cluster, nk, deck, e)
        else:
            _brute(s, hands, cluster, nk, e)
        for h in range(nh):
            if mode == 1:
                for k in range(nk):
                    feat_out[b * nh + h, k] = -1.0 if s[h] < 0 else e[h, k]
                continue
            if s[h] < 0:
                continue
            for j in range(H):
                row[j] = hands[h, j]
            cls = canonical_index(arrays, rf, row)
            if mode == 0:
                q_out[cls] = np.uint16(np.rint(e[h, 0] * 65535.0))
            else:
                label_out[cls] = _nearest(e[h], centers_t, d)


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


class FinalBoards:
    """The canonical final boards and hole hands of a CardSpec, and the passes over them."""

    def __init__(self, spec: CardSpec, indexer: HandIndexer | None = None, boards=None):
        """Every canonical final board, or only the canonical forms of the `boards` given (rows
        of cards; spot checks)."""
        self.spec = spec
        self.indexer = indexer or HandIndexer(spec)
        ns, nr, H, deck = spec.num_suits, spec.num_ranks, spec.hole_cards, spec.deck_size
        B = sum(spec.board_cards)
        if boards is None:
            combos = np.array(list(combinations(range(deck), B)), dtype=np.int64).reshape(-1, B)
        else:
            combos = np.ascontiguousarray(np.atleast_2d(boards), dtype=np.int64).reshape(-1, B)
        self.boards = _decode_boards(np.unique(_board_keys(combos, ns, nr)), B, ns, nr)
        hands = list(combinations(range(deck), H))
        self.hands = np.array(hands, dtype=np.int64).reshape(-1, H)
        if spec.evaluator == "acpc":
            self.strengths = np.empty((0, len(hands)), dtype=np.int64)
        else:  # the game's own ranking, once per canonical board
            self.strengths = np.empty((self.boards.shape[0], len(hands)), dtype=np.int64)
            for b, board in enumerate(self.boards):
                spec.strength(self.hands, board, self.strengths[b])

    def _run(self, mode, cluster, nk, centers, rows=None, q=None, feat=None, labels=None):
        """One pass of _final_pass over every board, or the boards `rows` (indices)."""
        boards, strengths = self.boards, self.strengths
        if rows is not None:
            boards = np.ascontiguousarray(boards[rows])
            strengths = strengths if strengths.shape[0] == 0 else np.ascontiguousarray(strengths[rows])
        run_ranges(_final_pass, boards.shape[0], boards, self.hands, strengths, self.spec.evaluator == "acpc", self.indexer.arrays,
                    self.spec.rounds - 1, np.ascontiguousarray(cluster, dtype=np.int64), nk,
                    np.ascontiguousarray(np.transpose(centers), dtype=np.float64), mode,
                    np.empty(0, np.uint16) if q is None else q, np.empty((0, nk)) if feat is None else feat,
                    np.empty(0, np.int32) if labels is None else labels)

    def equity(self) -> np.ndarray:
        """uint16[size(final)]: round(equity * QMAX) of each canonical final hand."""
        q = np.zeros(self.indexer.size(self.spec.rounds - 1), dtype=np.uint16)
        self._run(0, np.zeros(self.hands.shape[0]), 1, np.empty((0, 1)), q=q)
        return q

    def cluster_features(self, cluster, nk: int, rows) -> np.ndarray:
        """float64[n, nk]: equity vs each opponent cluster of every valid hand on the boards
        `rows` (indices into self.boards): a training sample for OCHS."""
        rows = np.asarray(rows, dtype=np.int64)
        feat = np.empty((rows.shape[0] * self.hands.shape[0], nk))
        self._run(1, cluster, nk, np.empty((0, nk)), rows=rows, feat=feat)
        return feat[feat[:, 0] >= 0]

    def cluster_labels(self, cluster, nk: int, centers) -> np.ndarray:
        """int32[size(final)]: the nearest of `centers` (squared L2) to each canonical final
        hand's vector of equities against the opponent clusters."""
        labels = np.zeros(self.indexer.size(self.spec.rounds - 1), dtype=np.int32)
        self._run(2, cluster, nk, centers, labels=labels)
        return labels
