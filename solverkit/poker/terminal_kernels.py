"""Terminal values of the public-tree pass: folds and showdowns over hand vectors, O(hands) with
card removal (folds by inclusion-exclusion over per-card sums, showdowns by running sums over hands
sorted by strength); batched over the terminal nodes of one board where the players hold their own
hand lists (spots), one node at a time where they share one (limit games: bit for bit the original
CFR+ code's sums)."""

from __future__ import annotations

import numpy as np
from ..core.jit import njit

from .betting import FOLD, SHOWDOWN

#: a batch's scratch width in the unit tests of _showdown2_batch and _fold_batch (any width works)
SD_BATCH = 16
#: the most fold or showdown nodes of one board evaluated together (_terminals_batched): a walk's
#: scratch is as wide as the most nodes of one kind in one round, up to this. Wider batches spread
#: each lane loop's fixed cost (LLVM's overlap checks, remainder) over more nodes, up to where the
#: batch's reach rows and scratch leave the cache: on the preset's river boards (129 showdowns, 88
#: folds) 48-92 lanes took 0.7x the time of 16, 132 lanes 0.8x (bench/kernel_profile.py)
SD_LANES = 64


@njit(cache=True, nogil=True, inline="always")
def zero_values(cfv, n, val_mask, H0, H1):
    """Node n's values are 0 for the players in val_mask (a node nothing reaches)."""
    for p in range(2):
        if (val_mask >> p) & 1:
            for h in range(H0 if p == 0 else H1):
                cfv[n, p, h] = 0.0


@njit(cache=True, nogil=True, inline="always")
def _fold(reach, n, o, hands, hands_o, same, valid, g, card, f, cfv, p, add):
    """cfv[n, p, h] = f * (reach[n, o] on the opponent's hands sharing no card with h), 0 where
    h clashes with board g (with `add`: added to cfv instead, the split part of a showdown's dead
    money or rake). Player p's hands are `hands`, the opponent's `hands_o`; same[h]: the
    opponent's index of hand h itself, or -1. One-card hands clash only with themselves; two-card
    hands by inclusion-exclusion over per-card sums (the hand itself added back). `card` is
    scratch of at least deck-size length."""
    H = hands.shape[0]
    Ho, k = hands_o.shape
    total = 0.0
    for h in range(Ho):
        total += reach[n, o, h]
    if k == 1:
        for h in range(H):
            s = same[h]
            x = f * (total - (reach[n, o, s] if s >= 0 else 0.0)) if valid[g, h] else 0.0
            if add:
                cfv[n, p, h] += x
            else:
                cfv[n, p, h] = x
        return
    for c in range(card.shape[0]):
        card[c] = 0.0
    for h in range(Ho):
        x = reach[n, o, h]
        for j in range(k):
            card[hands_o[h, j]] += x
    for h in range(H):
        if valid[g, h] == 0:
            if not add:
                cfv[n, p, h] = 0.0
            continue
        s = same[h]
        m = total + (reach[n, o, s] if s >= 0 else 0.0)
        for j in range(k):
            m -= card[hands[h, j]]
        if add:
            cfv[n, p, h] += f * m
        else:
            cfv[n, p, h] = f * m


@njit(cache=True, nogil=True, inline="always")
def _lanes(M, width):
    """Lanes a batch of M nodes runs on: M rounded up to a whole vector of 4 doubles, at most the
    scratch's width (a subgame's board has few terminal nodes: full-width steps wasted up to 5x)."""
    w = (M + 3) // 4 * 4
    return w if w < width else width


@njit(cache=True, nogil=True, inline="always")
def _add_hand(x, a, c0, c1, W):
    """a += x, c0 += x, c1 += x over W lanes: one opponent hand of two cards into a fold's total and
    its cards' sums, in one loop rather than two (each loop over a batch's lanes pays LLVM's
    overlap checks and remainder before its few vector steps): 0.94x the fold's time."""
    for m in range(W):
        y = x[m]
        a[m] += y
        c0[m] += y
        c1[m] += y


@njit(cache=True, nogil=True)
def _showdown2_batch(reach, nodes, fs, M, o, hands, order, strength, count, hands_o, order_o, strength_o, count_o,
                     i, R, C, acc, cfv, p, OUT):
    """Showdown values of M nodes of one board (nodes[:M], stakes fs[:M]) when the players hold
    different hand lists: cfv = f x (opponent mass strictly below h - strictly above h), both
    without the hands sharing a card with h. Two sweeps of the opponent's hands, ascending for
    the mass below p's hand (row i of order / strength), descending for the mass above, each a
    running total and one per card (inclusion-exclusion: the only hand holding both of h's cards
    is h itself, of equal strength, in neither sum). Every step is a loop over the nodes on the
    batch's lanes (_lanes: contiguous, vectorised; lanes past M hold zeros). Scratch, as wide as
    the batch may be: R [hands] the opponent's reach in strength order, C [deck] per-card mass,
    acc [1], OUT [hands] the mass below p's t-th hand until its value is written. (Its three lane
    loops per opponent hand as one, as _fold_batch does, ran slower here: 1.08-1.2x.)"""
    H = hands.shape[0]
    k = hands.shape[1]
    W = _lanes(M, R.shape[1])
    deck = C.shape[0]
    for t in range(count_o):
        q = order_o[i, t]
        for m in range(M):
            R[t, m] = reach[nodes[m], o, q]
        for m in range(M, W):
            R[t, m] = 0.0
    if count < H:  # hands not on this board (they meet a board card) are worth 0
        for m in range(M):
            n = nodes[m]
            for h in range(H):
                cfv[n, p, h] = 0.0
    for sweep in range(2):
        for c in range(deck):
            for m in range(W):
                C[c, m] = 0.0
        for m in range(W):
            acc[0, m] = 0.0
        j = 0  # opponent hands summed so far, from the weak end (sweep 0) or the strong end
        for u in range(count):
            t = u if sweep == 0 else count - 1 - u
            s = strength[i, t]
            while j < count_o:
                to = j if sweep == 0 else count_o - 1 - j
                so = strength_o[i, to]
                if (so >= s) if sweep == 0 else (so <= s):
                    break
                q = order_o[i, to]
                for m in range(W):
                    acc[0, m] += R[to, m]
                for jj in range(k):
                    c = hands_o[q, jj]
                    for m in range(W):
                        C[c, m] += R[to, m]
                j += 1
            h = order[i, t]
            if sweep == 0:
                if k == 2:
                    c0 = hands[h, 0]
                    c1 = hands[h, 1]
                    for m in range(W):
                        OUT[t, m] = acc[0, m] - C[c0, m] - C[c1, m]
                else:
                    for m in range(W):
                        OUT[t, m] = acc[0, m]
                    for jj in range(k):
                        c = hands[h, jj]
                        for m in range(W):
                            OUT[t, m] -= C[c, m]
            else:
                if k == 2:
                    c0 = hands[h, 0]
                    c1 = hands[h, 1]
                    for m in range(W):
                        OUT[t, m] -= acc[0, m] - C[c0, m] - C[c1, m]
                else:
                    for m in range(W):
                        OUT[t, m] -= acc[0, m]
                    for jj in range(k):
                        c = hands[h, jj]
                        for m in range(W):
                            OUT[t, m] += C[c, m]
                for m in range(M):
                    cfv[nodes[m], p, h] = fs[m] * OUT[t, m]


@njit(cache=True, nogil=True, inline="always")
def _showdown(reach, n, o, hands, sd_order, sd_strength, i, count, card, f, cfv, p):
    """cfv[n, p, h] = f * (reach[n, o] of weaker minus stronger hands not clashing with h).

    Hands are visited in ascending strength (row i of sd_order / sd_strength), ties as one
    group: the mass below a group is accumulated in one pass and the mass above is the
    remainder, less card-removal terms. `card` is scratch of at least 2 * deck-size length.
    """
    H, k = hands.shape
    for h in range(H):
        cfv[n, p, h] = 0.0
    total = 0.0
    for t in range(count):
        total += reach[n, o, sd_order[i, t]]
    if k == 1:
        below = 0.0
        t0 = 0
        while t0 < count:
            t1 = t0
            tie = 0.0
            s0 = sd_strength[i, t0]
            while t1 < count and sd_strength[i, t1] == s0:
                tie += reach[n, o, sd_order[i, t1]]
                t1 += 1
            x = f * (below - (total - below - tie))
            for t in range(t0, t1):
                cfv[n, p, sd_order[i, t]] = x
            below += tie
            t0 = t1
        return
    deck = card.shape[0] // 2
    for c in range(2 * deck):
        card[c] = 0.0
    # card[c]: mass below the group holding card c; card[deck + c]: mass of all hands holding c
    for t in range(count):
        h = sd_order[i, t]
        for j in range(k):
            card[deck + hands[h, j]] += reach[n, o, h]
    below = 0.0
    t0 = 0
    while t0 < count:
        t1 = t0
        tie = 0.0
        s0 = sd_strength[i, t0]
        while t1 < count and sd_strength[i, t1] == s0:
            tie += reach[n, o, sd_order[i, t1]]
            t1 += 1
        for t in range(t0, t1):
            h = sd_order[i, t]
            win = below
            for c in range(k):
                win -= card[hands[h, c]]
            cfv[n, p, h] = win
        for t in range(t0, t1):
            h = sd_order[i, t]
            for c in range(k):
                card[hands[h, c]] += reach[n, o, h]
        below += tie
        # after adding the group, card[c] = mass at or below the group holding c
        for t in range(t0, t1):
            h = sd_order[i, t]
            lose = total - below
            for c in range(k):
                lose -= card[deck + hands[h, c]] - card[hands[h, c]]
            cfv[n, p, h] = f * (cfv[n, p, h] - lose)
        t0 = t1


@njit(cache=True, nogil=True)
def fold_values(opp, hands, valid_row, card, payoff, scale, out):
    """out[h] = payoff * scale * (opponent reach `opp` on hands sharing no card with h); the
    fold kernel on one vector (for tests and callers outside the pass)."""
    H = hands.shape[0]
    reach = opp.reshape((1, 1, H))
    cfv = out.reshape((1, 1, H))
    _fold(reach, 0, 0, hands, hands, np.arange(H), valid_row.reshape((1, H)), 0, card, payoff * scale, cfv, 0, False)


@njit(cache=True, nogil=True)
def showdown_values(opp, hands, order, strength, count, card, payoff, scale, out):
    """out[h] = payoff * scale * (reach `opp` of weaker minus stronger non-clashing hands); the
    showdown kernel on one vector (hands sorted by `order`, strengths `strength`)."""
    H = hands.shape[0]
    reach = opp.reshape((1, 1, H))
    cfv = out.reshape((1, 1, H))
    _showdown(reach, 0, 0, hands, order.reshape((1, H)), strength.reshape((1, H)), 0, count, card,
              payoff * scale, cfv, 0)


@njit(cache=True, nogil=True, inline="always")
def _terminals(T, r, g, lo, hi, card, val_mask, reach, cfv, live, sd):
    """Fold and showdown values at board g. The winner gets the loser's spent plus extra[n] (dead
    money less rake; a tie splits it): at a showdown that is (S + x/2)(below - above) + (x/2)(all
    non-clashing mass), a showdown with stake S + x/2 plus a fold-like term. Players with their
    own hand lists (spots) take _terminals_batched (`sd`: its scratch)."""
    if not T.shared:
        _terminals_batched(T, r, g, lo, hi, card, val_mask, reach, cfv, live, sd)
        return
    kind, player, spent, extra, scale = T.kind, T.player, T.spent, T.extra, T.scale
    hands0, same0, valid0 = T.hands0, T.same0, T.valid0
    sd_order0, sd_strength0, sd_count0, last_board_lo = T.sd_order0, T.sd_strength0, T.sd_count0, T.last_board_lo
    H0 = hands0.shape[0]
    card2 = card[: 2 * T.deck]  # _showdown's scratch: two deck-size halves
    for n in range(lo, hi):
        kd = kind[n]
        if (kd == FOLD or kd == SHOWDOWN) and not live[n]:
            for p in range(2):
                if (val_mask >> p) & 1:
                    for h in range(H0):
                        cfv[n, p, h] = 0.0
            continue
        if kd == FOLD:
            f = player[n]
            for p in range(2):
                if (val_mask >> p) & 1:
                    payoff = -spent[n, p] if f == p else spent[n, 1 - p] + extra[n]
                    _fold(reach, n, 1 - p, hands0, hands0, same0, valid0, g, card, payoff * scale[r], cfv, p, False)
        elif kd == SHOWDOWN:
            i = g - last_board_lo
            x = extra[n]
            for p in range(2):
                if not (val_mask >> p) & 1:
                    continue
                f = (spent[n, p] + 0.5 * x) * scale[r] if x != 0.0 else spent[n, p] * scale[r]
                _showdown(reach, n, 1 - p, hands0, sd_order0, sd_strength0, i, sd_count0[i], card2, f, cfv, p)
                if x != 0.0:
                    _fold(reach, n, 1 - p, hands0, hands0, same0, valid0, g, card, 0.5 * x * scale[r], cfv, p, True)


@njit(cache=True, nogil=True, inline="always")
def batch_width(kind, round_lo, round_hi, r0, r_end):
    """The scratch width of a walk's batched terminals over rounds r0..r_end: the most fold or
    showdown nodes of one round, rounded up to whole vectors of 4 doubles, at most SD_LANES."""
    most = 1
    for r in range(r0, r_end + 1):
        nf = 0
        ns = 0
        for n in range(round_lo[r], round_hi[r]):
            if kind[n] == FOLD:
                nf += 1
            elif kind[n] == SHOWDOWN:
                ns += 1
        most = max(most, nf, ns)
    w = (most + 3) // 4 * 4
    return w if w < SD_LANES else SD_LANES


@njit(cache=True, nogil=True, inline="always")
def _batch_size(n, width):
    """Nodes per batch for n nodes on scratch `width` lanes wide: as few batches as fit, of about
    equal size (129 nodes on 64 lanes: three of 43, not 64, 64 and 1)."""
    if n <= width:
        return max(n, 1)
    batches = (n + width - 1) // width
    return (n + batches - 1) // batches


@njit(cache=True, nogil=True)
def _terminals_batched(T, r, g, lo, hi, card, val_mask, reach, cfv, live, sd):
    """_terminals for players with their own hand lists: the board's live folds and showdowns in
    batches as wide as the scratch `sd` (_fold_batch, _showdown2_batch; batches of about equal
    size), each node's numbers as one at a time."""
    R, C, acc, fs, fnodes, snodes, OUT = sd
    kind, player, spent, extra, scale = T.kind, T.player, T.spent, T.extra, T.scale
    H0 = T.hands0.shape[0]
    H1 = T.hands1.shape[0]
    nf = 0
    ns = 0
    for n in range(lo, hi):
        kd = kind[n]
        if kd != FOLD and kd != SHOWDOWN:
            continue
        if not live[n]:
            zero_values(cfv, n, val_mask, H0, H1)
        elif kd == FOLD:
            fnodes[nf] = n
            nf += 1
        else:
            snodes[ns] = n
            ns += 1
    i = g - T.last_board_lo
    for p in range(2):
        if not (val_mask >> p) & 1:
            continue
        step = _batch_size(nf, R.shape[1])
        for b in range(0, nf, step):
            M = min(step, nf - b)
            nodes = fnodes[b: b + M]
            for m in range(M):
                n = nodes[m]
                fs[m] = (-spent[n, p] if player[n] == p else spent[n, 1 - p] + extra[n]) * scale[r]
            if p == 0:
                _fold_batch(reach, nodes, fs, M, 1 - p, T.hands0, T.hands1, T.same0, T.valid0, g, R, C, acc, cfv, p)
            else:
                _fold_batch(reach, nodes, fs, M, 1 - p, T.hands1, T.hands0, T.same1, T.valid1, g, R, C, acc, cfv, p)
        step = _batch_size(ns, R.shape[1])
        for b in range(0, ns, step):
            M = min(step, ns - b)
            nodes = snodes[b: b + M]
            for m in range(M):
                n = nodes[m]
                x = extra[n]
                fs[m] = (spent[n, p] + 0.5 * x) * scale[r] if x != 0.0 else spent[n, p] * scale[r]
            if p == 0:
                _showdown2_batch(reach, nodes, fs, M, 1 - p, T.hands0, T.sd_order0, T.sd_strength0, T.sd_count0[i],
                                 T.hands1, T.sd_order1, T.sd_strength1, T.sd_count1[i], i, R, C, acc, cfv, p, OUT)
            else:
                _showdown2_batch(reach, nodes, fs, M, 1 - p, T.hands1, T.sd_order1, T.sd_strength1, T.sd_count1[i],
                                 T.hands0, T.sd_order0, T.sd_strength0, T.sd_count0[i], i, R, C, acc, cfv, p, OUT)
            for m in range(M):
                n = nodes[m]
                x = extra[n]
                if x != 0.0:
                    if p == 0:
                        _fold(reach, n, 1, T.hands0, T.hands1, T.same0, T.valid0, g, card, 0.5 * x * scale[r], cfv,
                              0, True)
                    else:
                        _fold(reach, n, 0, T.hands1, T.hands0, T.same1, T.valid1, g, card, 0.5 * x * scale[r], cfv,
                              1, True)


@njit(cache=True, nogil=True)
def _fold_batch(reach, nodes, fs, M, o, hands, hands_o, same, valid, g, R, C, acc, cfv, p):
    """_fold (not adding) for M fold nodes of one board at once, stakes fs[:M]: per node the same
    additions in the same order, so the same doubles; each step a loop over the nodes on the
    batch's lanes (_lanes: lanes past M hold zeros; contiguous, vectorised). Scratch, as wide as the
    batch may be: R [opponent hands], C [deck] per-card mass, acc [2]."""
    H = hands.shape[0]
    Ho, k = hands_o.shape
    W = _lanes(M, R.shape[1])
    deck = C.shape[0]
    for h in range(Ho):
        for m in range(M):
            R[h, m] = reach[nodes[m], o, h]
        for m in range(M, W):
            R[h, m] = 0.0
    a = acc[0]
    for m in range(W):
        a[m] = 0.0
    if k == 2:  # the total and the per-card sums in one loop (_add_hand), each in the same order
        for c in range(deck):
            for m in range(W):
                C[c, m] = 0.0
        for h in range(Ho):
            _add_hand(R[h], a, C[hands_o[h, 0]], C[hands_o[h, 1]], W)
    else:
        for h in range(Ho):
            for m in range(W):
                a[m] += R[h, m]
    if k == 1:
        for h in range(H):
            s = same[h]
            ok = valid[g, h] != 0
            for m in range(M):
                cfv[nodes[m], p, h] = fs[m] * (acc[0, m] - (R[s, m] if s >= 0 else 0.0)) if ok else 0.0
        return
    if k != 2:
        for c in range(deck):
            for m in range(W):
                C[c, m] = 0.0
        for h in range(Ho):
            for j in range(k):
                c = hands_o[h, j]
                for m in range(W):
                    C[c, m] += R[h, m]
    for h in range(H):
        if valid[g, h] == 0:
            for m in range(M):
                cfv[nodes[m], p, h] = 0.0
            continue
        s = same[h]
        if k == 2:
            b = acc[1]
            c0 = C[hands[h, 0]]
            c1 = C[hands[h, 1]]
            if s >= 0:
                x = R[s]
                for m in range(W):
                    b[m] = a[m] + x[m] - c0[m] - c1[m]
            else:
                for m in range(W):
                    b[m] = a[m] + 0.0 - c0[m] - c1[m]
        else:
            for m in range(W):
                acc[1, m] = acc[0, m] + (R[s, m] if s >= 0 else 0.0)
            for j in range(k):
                c = hands[h, j]
                for m in range(W):
                    acc[1, m] -= C[c, m]
        for m in range(M):
            cfv[nodes[m], p, h] = fs[m] * acc[1, m]
