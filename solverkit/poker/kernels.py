"""Numba kernels of the public-tree pass: forward reach, terminal values, backward values.

One depth-first walk over boards serves CFR and best response. At a board, a whole round of
betting nodes is processed at once with hand vectors: a forward sweep (policies from regret
matching, reach vectors down), the next round's boards one after another, then terminal values
and a backward sweep (counterfactual values up, regret updates). Terminal values are O(hands)
with card removal: fold by inclusion-exclusion over card sums, showdown by prefix sums over
hands sorted by strength.
"""

from __future__ import annotations

import numpy as np
from numba import njit

DECISION, FOLD, SHOWDOWN, ROUND_END = 0, 1, 2, 3


@njit(cache=True, nogil=True)
def fold_values(opp, hands, valid_row, card, payoff, scale, out):
    """out[h] = payoff * scale * (opponent reach on hands sharing no card with h).

    `card` is scratch of at least deck-size length. One-card hands clash only with themselves;
    two-card hands by inclusion-exclusion over per-card sums (the hand itself added back).
    """
    H, k = hands.shape
    f = payoff * scale
    total = 0.0
    for h in range(H):
        total += opp[h]
    if k == 1:
        for h in range(H):
            out[h] = f * (total - opp[h]) if valid_row[h] else 0.0
        return
    for c in range(card.shape[0]):
        card[c] = 0.0
    for h in range(H):
        r = opp[h]
        for j in range(k):
            card[hands[h, j]] += r
    for h in range(H):
        if valid_row[h] == 0:
            out[h] = 0.0
            continue
        m = total + opp[h]
        for j in range(k):
            m -= card[hands[h, j]]
        out[h] = f * m


@njit(cache=True, nogil=True)
def showdown_values(opp, hands, order, strength, count, card, payoff, scale, out):
    """out[h] = payoff * scale * (reach of weaker minus reach of stronger non-clashing hands).

    Hands are visited in ascending strength, ties as one group: the mass below a group is
    accumulated in one pass and the mass above is the remainder, less card-removal terms.
    `card` is scratch of at least 2 * deck-size length.
    """
    H, k = hands.shape
    f = payoff * scale
    for h in range(H):
        out[h] = 0.0
    total = 0.0
    for t in range(count):
        total += opp[order[t]]
    if k == 1:
        below = 0.0
        i = 0
        while i < count:
            j = i
            tie = 0.0
            while j < count and strength[j] == strength[i]:
                tie += opp[order[j]]
                j += 1
            above = total - below - tie
            for t in range(i, j):
                out[order[t]] = f * (below - above)
            below += tie
            i = j
        return
    deck = card.shape[0] // 2
    for c in range(2 * deck):
        card[c] = 0.0
    # card[c]: mass below the group holding card c; card[deck + c]: mass of all hands holding c
    for t in range(count):
        h = order[t]
        for j in range(k):
            card[deck + hands[h, j]] += opp[h]
    below = 0.0
    i = 0
    while i < count:
        j = i
        tie = 0.0
        while j < count and strength[j] == strength[i]:
            tie += opp[order[j]]
            j += 1
        # mass of tied hands per card, kept in out[] temporarily is not possible: recompute
        for t in range(i, j):
            h = order[t]
            win = below
            for c in range(k):
                win -= card[hands[h, c]]
            out[h] = win
        for t in range(i, j):
            h = order[t]
            for c in range(k):
                card[hands[h, c]] += opp[h]
        below += tie
        # after adding the group, card[c] = mass at or below the group holding c
        for t in range(i, j):
            h = order[t]
            lose = total - below
            for c in range(k):
                lose -= card[deck + hands[h, c]] - card[hands[h, c]]
            out[h] = f * (out[h] - lose)
        i = j


@njit(cache=True, nogil=True)
def _policy(src, off, H, A, sig):
    """sig[h, a] = regret matching of src[off + h * A + a] (normalisation of a strategy)."""
    for h in range(H):
        total = 0.0
        base = off + h * A
        for a in range(A):
            v = src[base + a]
            if v > 0.0:
                total += v
        if total > 0.0:
            inv = 1.0 / total
            for a in range(A):
                v = src[base + a]
                sig[h, a] = v * inv if v > 0.0 else 0.0
        else:
            for a in range(A):
                sig[h, a] = 1.0 / A


@njit(cache=True, nogil=True)
def _forward_round(r, g, lo, hi, kind, player, nact, children, node_off, seg_board_lo, valid,
                   src0, src1, avg0, avg1, avg_mask, reach_mask, decay, weight, reach, sigma):
    """Reach vectors down one round at board g, for the players in reach_mask only (a player's
    own reach matters only for its average; its values use the opponent's reach)."""
    H = reach.shape[2]
    for n in range(lo, hi):
        if kind[n] != DECISION:
            continue
        q = player[n]
        o = 1 - q
        A = nact[n]
        if (reach_mask >> o) & 1:
            ro = reach[n, o]
            for a in range(A):
                co = reach[children[n, a], o]
                for h in range(H):
                    co[h] = ro[h]
        if not (reach_mask >> q) & 1:
            continue
        off = node_off[n] + (g - seg_board_lo[r]) * H * A
        sig = sigma[n]
        _policy(src0 if q == 0 else src1, off, H, A, sig)
        rq = reach[n, q]
        for a in range(A):
            cq = reach[children[n, a], q]
            for h in range(H):
                cq[h] = rq[h] * sig[h, a]
        if (avg_mask >> q) & 1:
            avg = avg0[off : off + H * A] if q == 0 else avg1[off : off + H * A]
            for h in range(H):
                w = rq[h] * weight
                if decay == 1.0:
                    for a in range(A):
                        avg[h * A + a] += w * sig[h, a]
                else:
                    for a in range(A):
                        avg[h * A + a] = avg[h * A + a] * decay + w * sig[h, a]


@njit(cache=True, nogil=True)
def _terminals(r, g, lo, hi, kind, player, spent, hands, valid, sd_order, sd_strength, sd_count,
               last_board_lo, card, scale, val_mask, reach, cfv):
    for n in range(lo, hi):
        kd = kind[n]
        if kd == FOLD:
            f = player[n]
            for p in range(2):
                if (val_mask >> p) & 1:
                    payoff = -spent[n, p] if f == p else spent[n, 1 - p]
                    fold_values(reach[n, 1 - p], hands, valid[g], card, float(payoff), scale[r], cfv[n, p])
        elif kd == SHOWDOWN:
            i = g - last_board_lo
            for p in range(2):
                if (val_mask >> p) & 1:
                    showdown_values(reach[n, 1 - p], hands, sd_order[i], sd_strength[i], sd_count[i], card,
                                    float(spent[n, p]), scale[r], cfv[n, p])


@njit(cache=True, nogil=True)
def _backward_round(r, g, lo, hi, kind, player, nact, children, node_off, seg_board_lo,
                    src0, src1, reg0, reg1, upd_mask, val_mask, reach_mask, br_player, pos, neg, floor,
                    sigma, cfv):
    H = cfv.shape[2]
    for n in range(hi - 1, lo - 1, -1):
        if kind[n] != DECISION:
            continue
        q = player[n]
        A = nact[n]
        for p in range(2):
            if not (val_mask >> p) & 1:
                continue
            v = cfv[n, p]
            c0 = cfv[children[n, 0], p]
            for h in range(H):
                v[h] = 0.0
            if p != q:
                # the opponent's policy is already in the reach: values add up
                for a in range(A):
                    ca = cfv[children[n, a], p]
                    for h in range(H):
                        v[h] += ca[h]
            elif p == br_player:
                for h in range(H):
                    v[h] = c0[h]
                for a in range(1, A):
                    ca = cfv[children[n, a], p]
                    for h in range(H):
                        if ca[h] > v[h]:
                            v[h] = ca[h]
            else:
                sig = sigma[n]
                if not (reach_mask >> q) & 1:  # the forward sweep skipped this player's policy
                    _policy(src0 if q == 0 else src1, node_off[n] + (g - seg_board_lo[r]) * H * A, H, A, sig)
                for a in range(A):
                    ca = cfv[children[n, a], p]
                    for h in range(H):
                        v[h] += sig[h, a] * ca[h]
                if (upd_mask >> q) & 1:
                    off = node_off[n] + (g - seg_board_lo[r]) * H * A
                    reg = reg0[off : off + H * A] if q == 0 else reg1[off : off + H * A]
                    for a in range(A):
                        ca = cfv[children[n, a], p]
                        for h in range(H):
                            x = reg[h * A + a] + (ca[h] - v[h])
                            x = x * pos if x > 0.0 else x * neg
                            reg[h * A + a] = x if x > floor else floor


@njit(cache=True, nogil=True)
def dfs_pass(kind, player, spent, nact, children, re_index, round_lo, round_hi,
             hands, valid, child_start, child_end, perm_start, perm_end, perms,
             sd_order, sd_strength, sd_count, last_board_lo, deck, scale,
             r0, r_end, n0, b0, entry_reach, seg_board_lo, node_off,
             src0, src1, reg0, reg1, avg0, avg1,
             upd_mask, avg_mask, val_mask, br_player, pos, neg, floor, decay, weight,
             boundary_mode, boundary, do_backward, reach, cfv, sigma, out_cfv):
    """One walk from betting node n0 at board b0 (round r0) down to round r_end.

    boundary_mode 0: r_end is the last round. 1: at round r_end's round-end nodes, write reach
    into boundary[re_index[e], board - round start, player, hand] and stop. 2: read the
    counterfactual values of those nodes from `boundary` instead.
    scale[r] = 1 / (number of equally likely deals of hands and boards up to round r).
    Values out: out_cfv[p, h] at n0 for players in val_mask.
    """
    H = hands.shape[0]
    card = np.zeros(2 * deck, dtype=np.float64)
    nlev = r_end - r0 + 1
    cur = np.zeros(nlev, dtype=np.int64)
    nxt = np.zeros(nlev, dtype=np.int64)
    for p in range(2):
        for h in range(H):
            reach[n0, p, h] = entry_reach[p, h]
    level = 0
    cur[0] = b0
    amask = avg_mask if do_backward else 0
    if br_player >= 0:
        amask &= ~(1 << br_player)
    # reach is needed for the players whose averages grow and for the opponents of the players
    # whose values are computed
    reach_mask = amask
    for p in range(2):
        if (val_mask >> p) & 1:
            reach_mask |= 1 << (1 - p)
    _forward_round(r0, b0, round_lo[r0], round_hi[r0], kind, player, nact, children, node_off, seg_board_lo,
                   valid, src0, src1, avg0, avg1, amask, reach_mask, decay, weight, reach, sigma)
    nxt[0] = child_start[b0]
    for n in range(round_lo[r0], round_hi[r0]):
        if kind[n] == ROUND_END:
            for p in range(2):
                for h in range(H):
                    cfv[n, p, h] = 0.0
    while True:
        r = r0 + level
        g = cur[level]
        if r < r_end and nxt[level] < child_end[g]:
            c = nxt[level]
            nxt[level] += 1
            for e in range(round_lo[r], round_hi[r]):
                if kind[e] == ROUND_END:
                    m = children[e, 0]
                    for p in range(2):
                        if (reach_mask >> p) & 1:
                            for h in range(H):
                                reach[m, p, h] = reach[e, p, h] * valid[c, h]
            level += 1
            r += 1
            cur[level] = c
            _forward_round(r, c, round_lo[r], round_hi[r], kind, player, nact, children, node_off, seg_board_lo,
                           valid, src0, src1, avg0, avg1, amask, reach_mask, decay, weight, reach, sigma)
            nxt[level] = child_start[c]
            for n in range(round_lo[r], round_hi[r]):
                if kind[n] == ROUND_END:
                    for p in range(2):
                        for h in range(H):
                            cfv[n, p, h] = 0.0
            continue
        if r == r_end and boundary_mode != 0:
            bi = g - seg_board_lo[r]
            for e in range(round_lo[r], round_hi[r]):
                if kind[e] == ROUND_END:
                    j = re_index[e]
                    for p in range(2):
                        for h in range(H):
                            if boundary_mode == 1:
                                boundary[j, bi, p, h] = reach[e, p, h]
                            else:
                                cfv[e, p, h] = boundary[j, bi, p, h]
        if do_backward:
            _terminals(r, g, round_lo[r], round_hi[r], kind, player, spent, hands, valid, sd_order, sd_strength,
                       sd_count, last_board_lo, card, scale, val_mask, reach, cfv)
            _backward_round(r, g, round_lo[r], round_hi[r], kind, player, nact, children, node_off, seg_board_lo,
                            src0, src1, reg0, reg1, upd_mask, val_mask, reach_mask, br_player, pos, neg, floor,
                            sigma, cfv)
        if level == 0:
            break
        # the parent's round ends collect this board's values and, through the hand maps,
        # those of the other boards of its suit orbit
        for e in range(round_lo[r - 1], round_hi[r - 1]):
            if kind[e] == ROUND_END:
                m = children[e, 0]
                for p in range(2):
                    if not (val_mask >> p) & 1:
                        continue
                    for h in range(H):
                        cfv[e, p, h] += cfv[m, p, h]
                    for j in range(perm_start[g], perm_end[g]):
                        for h in range(H):
                            cfv[e, p, h] += cfv[m, p, perms[j, h]]
        level -= 1
    for p in range(2):
        for h in range(H):
            out_cfv[p, h] = cfv[n0, p, h]
