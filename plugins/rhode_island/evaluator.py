"""Three-card hand ranking of true Rhode Island hold'em.

Straight flush > three of a kind > straight > flush > pair > high card. A-2-3 and Q-K-A are
straights, A-2-3 the lowest. Within a category: straights by their top card, pairs by pair then
kicker, the rest by ranks from the highest.
"""

import numpy as np
from solverkit.core.jit import njit

HIGH, PAIR, FLUSH, STRAIGHT, TRIPS, STRAIGHT_FLUSH = range(6)


@njit(cache=True)
def ri_rank(c0, c1, c2, num_suits):
    """Strength of three cards (rank * num_suits + suit); higher is better."""
    r = np.empty(3, dtype=np.int64)
    r[0] = c0 // num_suits
    r[1] = c1 // num_suits
    r[2] = c2 // num_suits
    r.sort()
    flush = (c0 % num_suits) == (c1 % num_suits) == (c2 % num_suits)
    straight_top = -1
    if r[0] + 1 == r[1] and r[1] + 1 == r[2]:
        straight_top = r[2]
    elif r[0] == 0 and r[1] == 1 and r[2] == 12:  # A-2-3: the lowest straight
        straight_top = 1
    if straight_top >= 0 and flush:
        return STRAIGHT_FLUSH * 4096 + straight_top
    if r[0] == r[2]:
        return TRIPS * 4096 + r[0]
    if straight_top >= 0:
        return STRAIGHT * 4096 + straight_top
    if flush:
        return FLUSH * 4096 + r[2] * 256 + r[1] * 16 + r[0]
    if r[0] == r[1]:
        return PAIR * 4096 + r[0] * 16 + r[2]
    if r[1] == r[2]:
        return PAIR * 4096 + r[1] * 16 + r[0]
    return HIGH * 4096 + r[2] * 256 + r[1] * 16 + r[0]


@njit(cache=True)
def ri_strengths(hands, board, out):
    """Strength of each one-card hand with a two-card board; -1 where the hand clashes."""
    for h in range(hands.shape[0]):
        c = hands[h, 0]
        if c == board[0] or c == board[1]:
            out[h] = -1
        else:
            out[h] = ri_rank(c, board[0], board[1], 4)


def strength_function(hands, board, out):
    ri_strengths(hands, np.asarray(board, dtype=np.int64), out)
