"""Hand evaluators: map (hole cards + board) to an integer strength, higher is better.

``acpc_rank`` ranks like the ACPC server: the best five-card poker hand among the cards, with
straights and flushes only when five cards make them; fewer cards rank by pairs, trips, quads
and high cards. Games with other rules (true Rhode Island hold'em) supply their own evaluator.
"""

from __future__ import annotations

import numpy as np
from ..core.jit import njit

HIGH, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)


@njit(cache=True)
def _top_straight(mask):
    """Highest rank ending a 5-rank run in a 13-bit rank mask (A-2-3-4-5 counts, ends at 3); -1."""
    for hi in range(12, 3, -1):
        run = (mask >> (hi - 4)) & 0x1F
        if run == 0x1F:
            return hi
    if (mask & 0x100F) == 0x100F:  # A, 2, 3, 4, 5
        return 3
    return -1


@njit(cache=True, inline="always")  # inlined: called with literal categories, each a signature
def _kickers(value, ranks_desc, n):
    for i in range(5):
        value = value * 16 + (ranks_desc[i] + 1 if i < n else 0)
    return value


@njit(cache=True, inline="always")
def _highest(counts, skip, best, k, limit):
    """best[k:] = the highest ranks held other than `skip`, until `limit` ranks are in best; the
    new count (the kickers of trips, a pair, a high card)."""
    for r in range(12, -1, -1):
        if r != skip and counts[r] > 0 and k < limit:
            best[k] = r
            k += 1
    return k


@njit(cache=True)
def acpc_rank(cards, num_suits):
    """Strength of the best hand in `cards` (int array), ACPC ranking; higher is better."""
    counts = np.zeros(13, dtype=np.int64)
    suit_mask = np.zeros(4, dtype=np.int64)
    suit_count = np.zeros(4, dtype=np.int64)
    mask = 0
    for c in cards:
        r = c // num_suits
        s = c % num_suits
        counts[r] += 1
        suit_mask[s] |= 1 << r
        suit_count[s] += 1
        mask |= 1 << r
    best = np.zeros(5, dtype=np.int64)
    # straight flush and flush
    for s in range(4):
        if suit_count[s] >= 5:
            hi = _top_straight(suit_mask[s])
            if hi >= 0:
                best[0] = hi
                return _kickers(STRAIGHT_FLUSH, best, 1)
    quads = -1
    trips = np.full(2, -1, dtype=np.int64)
    pairs = np.full(3, -1, dtype=np.int64)
    nt = 0
    npairs = 0
    for r in range(12, -1, -1):
        if counts[r] == 4 and quads < 0:
            quads = r
        elif counts[r] == 3 and nt < 2:
            trips[nt] = r
            nt += 1
        elif counts[r] == 2 and npairs < 3:
            pairs[npairs] = r
            npairs += 1
    if quads >= 0:
        best[0] = quads
        k = 1
        for r in range(12, -1, -1):
            if r != quads and counts[r] > 0:
                best[1] = r
                k = 2
                break
        return _kickers(QUADS, best, k)
    if nt >= 1 and (npairs >= 1 or nt >= 2):
        best[0] = trips[0]
        best[1] = trips[1] if nt >= 2 and trips[1] > pairs[0] else pairs[0]
        return _kickers(FULL_HOUSE, best, 2)
    for s in range(4):
        if suit_count[s] >= 5:
            k = 0
            for r in range(12, -1, -1):
                if (suit_mask[s] >> r) & 1 and k < 5:
                    best[k] = r
                    k += 1
            return _kickers(FLUSH, best, 5)
    if len(cards) >= 5:
        hi = _top_straight(mask)
        if hi >= 0:
            best[0] = hi
            return _kickers(STRAIGHT, best, 1)
    if nt >= 1:
        best[0] = trips[0]
        return _kickers(TRIPS, best, _highest(counts, trips[0], best, 1, 3))
    if npairs >= 2:
        best[0] = pairs[0]
        best[1] = pairs[1]
        k = 2
        for r in range(12, -1, -1):
            if r != pairs[0] and r != pairs[1] and counts[r] > 0:
                best[2] = r
                k = 3
                break
        return _kickers(TWO_PAIR, best, k)
    if npairs == 1:
        best[0] = pairs[0]
        return _kickers(PAIR, best, _highest(counts, pairs[0], best, 1, 4))
    return _kickers(HIGH, best, _highest(counts, -1, best, 0, 5))


@njit(cache=True)
def acpc_strengths(hands, board, num_suits, out):
    """out[h] = acpc_rank(hands[h] + board); -1 where the hand shares a card with the board."""
    nh, k = hands.shape
    nb = board.shape[0]
    cards = np.empty(k + nb, dtype=np.int64)
    for i in range(nb):
        cards[k + i] = board[i]
    for h in range(nh):
        clash = False
        for j in range(k):
            cards[j] = hands[h, j]
            for i in range(nb):
                if hands[h, j] == board[i]:
                    clash = True
        out[h] = -1 if clash else acpc_rank(cards, num_suits)
