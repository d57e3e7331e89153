"""The one-node showdown kernel that _showdown2_batch replaced in the walk (solverkit before
2026-11-27), kept as the reference its batched form must equal bit for bit."""

from numba import njit


@njit(cache=True)
def _showdown2(reach, n, o, hands, order, strength, count, hands_o, order_o, strength_o, count_o, i, card, f,
               cfv, p):
    """_showdown when the players hold different hand lists: p's hands in ascending strength
    (row i of order / strength) meet the opponent's (order_o / strength_o) by a merge; the mass
    strictly below and at-or-below each of p's hands, per card for card removal. A hand sharing
    both cards with h is h itself, of equal strength: neither below nor above it. `card` is
    scratch of at least 3 x deck-size length."""
    H = hands.shape[0]
    k = hands.shape[1]
    for h in range(H):
        cfv[n, p, h] = 0.0
    deck = card.shape[0] // 3
    for c in range(3 * deck):
        card[c] = 0.0
    total = 0.0
    # card[c]: mass strictly below holding c; card[deck + c]: at or below; card[2 deck + c]: all
    for t in range(count_o):
        h = order_o[i, t]
        x = reach[n, o, h]
        total += x
        for j in range(k):
            card[2 * deck + hands_o[h, j]] += x
    below = 0.0
    le = 0.0
    tb = 0
    tl = 0
    for t in range(count):
        h = order[i, t]
        s = strength[i, t]
        while tb < count_o and strength_o[i, tb] < s:
            q = order_o[i, tb]
            x = reach[n, o, q]
            below += x
            for j in range(k):
                card[hands_o[q, j]] += x
            tb += 1
        while tl < count_o and strength_o[i, tl] <= s:
            q = order_o[i, tl]
            x = reach[n, o, q]
            le += x
            for j in range(k):
                card[deck + hands_o[q, j]] += x
            tl += 1
        win = below
        lose = total - le
        for j in range(k):
            c = hands[h, j]
            win -= card[c]
            lose -= card[2 * deck + c] - card[deck + c]
        cfv[n, p, h] = f * (win - lose)
