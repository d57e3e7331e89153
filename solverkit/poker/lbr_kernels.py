"""Local best response's numba kernel: the probability that a hand wins a showdown against an
opponent's range (a weight per hand of the game's hand table) on the board dealt so far, card
removal applied. On the last round it compares strengths against every hand of the range; before,
it rolls the board out: every runout when that is cheap (``budget``), else ``samples`` draws of
(opponent hand from the range, runout), seeded. Ties count half (WP is the share of the pot).

Strengths are the ACPC ranking (:func:`solverkit.poker.evaluator.acpc_rank`), or, for a game with
its own evaluator, a table [final board as a colex index of its card set, hand] made once by
:func:`strength_table` (the evaluator is a Python function: it is called per board, never per
hand inside the kernel)."""

from __future__ import annotations

import math

import numpy as np
from ..core.jit import njit

from .evaluator import acpc_rank

#: largest strength table (final boards x hands) built for a game with its own evaluator
MAX_TABLE = 50_000_000


@njit(cache=True, nogil=True)
def _uniform(state):
    """A uniform draw in [0, 1) from splitmix64 state[0] (advanced): a seeded stream that costs
    nothing to compile, unlike numpy's generator."""
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return float(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, nogil=True)
def _strength(hand, hcount, board, nb, num_suits, table, binom, index, buf):
    """Strength of hand (its hcount cards; `index` its row of the hand table) on the first nb
    board cards: the table's (when it has rows) or ACPC's ranking (buf: hcount + nb long, so
    that acpc_rank takes it whole: a slice would cost a view per call)."""
    if table.shape[0] > 0:  # the board's colex index: sum of C(card, its place among them + 1)
        code = 0
        for i in range(nb):
            below = 0
            for j in range(nb):
                if board[j] < board[i]:
                    below += 1
            code += binom[board[i], below + 1]
        return table[code, index]
    for j in range(hcount):
        buf[j] = hand[j]
    for j in range(nb):
        buf[hcount + j] = board[j]
    return acpc_rank(buf, num_suits)


@njit(cache=True, nogil=True)
def win_probability(own, own_index, board, weights, hands, deck_size, num_suits, to_deal, samples, budget, seed,
                    table, binom):
    """(WP, rolled out exactly): `own`'s share of the pot at a showdown against hands drawn from
    `weights` (hands clashing with own or the board weigh nothing) after `to_deal` more board
    cards; exact over every runout when runouts x hands in the range <= budget, else the mean of
    `samples` draws seeded by `seed`. Returns (0.5, True) for an empty range."""
    H, k = hands.shape
    nb0 = board.shape[0]
    used = np.zeros(deck_size, dtype=np.bool_)
    for c in own:
        used[c] = True
    for c in board:
        used[c] = True
    w = np.zeros(H)
    active = 0
    for h in range(H):
        if weights[h] > 0:
            ok = True
            for j in range(k):
                if used[hands[h, j]]:
                    ok = False
            if ok:
                w[h] = weights[h]
                active += 1
    if active == 0:
        return 0.5, True
    full = np.empty(nb0 + to_deal, dtype=np.int64)
    full[:nb0] = board
    buf = np.empty(k + nb0 + to_deal, dtype=np.int64)
    rest = np.empty(deck_size, dtype=np.int64)
    nrest = 0
    for c in range(deck_size):
        if not used[c]:
            rest[nrest] = c
            nrest += 1
    runouts = 1.0
    for i in range(to_deal):
        runouts = runouts * (nrest - i) / (i + 1)
    nfull = nb0 + to_deal
    exact = runouts * active <= budget
    # exact: every runout (combinations of the remaining cards, lexicographic) against every hand
    # of the range; sampled: an opponent hand from the range (inverse cdf), then a runout avoiding
    # it. One loop, one evaluation site for each side (each inlines the ranking: compile time)
    idx = np.arange(to_deal)
    state = np.full(1, seed, dtype=np.uint64)
    cdf = np.empty(H)
    total = 0.0
    for h in range(H):
        total += w[h]
        cdf[h] = total
    taken = np.zeros(deck_size, dtype=np.bool_)
    num = 0.0
    den = 0.0
    trial = 0
    while exact or trial < samples:
        trial += 1
        first, last = 0, H
        if exact:
            for i in range(to_deal):
                full[nb0 + i] = rest[idx[i]]
        else:
            x = _uniform(state) * total
            lo, hi = 0, H - 1  # the first hand whose cdf exceeds x
            while lo < hi:
                mid = (lo + hi) // 2
                if cdf[mid] > x:
                    hi = mid
                else:
                    lo = mid + 1
            while w[lo] == 0.0:  # a zero-weight hand at a boundary: the next with weight
                lo = (lo + 1) % H
            first, last = lo, lo + 1
            for j in range(k):
                taken[hands[lo, j]] = True
            got = 0
            while got < to_deal:
                c = rest[min(int(_uniform(state) * nrest), nrest - 1)]
                if not taken[c]:
                    taken[c] = True
                    full[nb0 + got] = c
                    got += 1
            for j in range(k):
                taken[hands[lo, j]] = False
            for i in range(to_deal):
                taken[full[nb0 + i]] = False
        mine = _strength(own, k, full, nfull, num_suits, table, binom, own_index, buf)
        for h in range(first, last):
            if w[h] == 0.0:
                continue
            clash = False
            for j in range(k):
                for i in range(to_deal):
                    if hands[h, j] == full[nb0 + i]:
                        clash = True
            if clash:
                continue
            theirs = _strength(hands[h], k, full, nfull, num_suits, table, binom, h, buf)
            weight = w[h] if exact else 1.0
            den += weight
            if mine > theirs:
                num += weight
            elif mine == theirs:
                num += 0.5 * weight
        if exact:  # the next combination, or the end
            i = to_deal - 1
            while i >= 0 and idx[i] == nrest - to_deal + i:
                i -= 1
            if i < 0:
                break
            idx[i] += 1
            for j in range(i + 1, to_deal):
                idx[j] = idx[j - 1] + 1
    return (num / den if den > 0 else 0.5), exact


def binomials(deck_size: int, most: int) -> np.ndarray:
    """int64 [deck_size + 1, most + 1]: C(n, r) (colex indices of board card sets)."""
    out = np.zeros((deck_size + 1, most + 1), dtype=np.int64)
    for n in range(deck_size + 1):
        for r in range(most + 1):
            out[n, r] = math.comb(n, r)
    return out


def strength_table(strength, hands: np.ndarray, deck_size: int, board_cards: int, binom: np.ndarray) -> np.ndarray:
    """int64 [C(deck, board_cards), H]: a game evaluator's strength of every hand on every final
    board card set (row: the set's colex index); -1 where they clash. One evaluator call per board."""
    from itertools import combinations

    rows = math.comb(deck_size, board_cards)
    if rows * hands.shape[0] > MAX_TABLE:
        from ..errors import ConfigError

        raise ConfigError(f"local best response: a table of this game's own hand evaluator would hold {rows:,} boards "
                          f"x {hands.shape[0]:,} hands (more than {MAX_TABLE:,}); LBR rolls out such games with the "
                          "ACPC ranking only")
    table = np.full((rows, hands.shape[0]), -1, dtype=np.int64)
    for combo in combinations(range(deck_size), board_cards):
        board = np.array(combo, dtype=np.int64)
        row = int(sum(binom[c, i + 1] for i, c in enumerate(combo)))
        strength(hands, board, table[row])
    return table
