"""The full CFR passes of games of three to six players over a compact node table.

:mod:`.nkernels`'s passes read the tree's ``node`` rows (24 bytes a node as int32) and, for one
player's utility, a row of ``utils`` ([N, players]); on trees of millions of nodes (6-player
Kuhn: 1.9M) a pass is bound by that memory traffic. Here every node is one int32 row of
:func:`compact_nodes` (16 bytes: kind, player and representative flag packed; children; first
child; the value offset in the concatenated layout, or a terminal's index) and player i's
terminal utilities are one contiguous row ``ut[i]``. The arithmetic is :mod:`.nkernels`'s,
operation for operation in the same order, so results are bit-identical to theirs.
"""

from __future__ import annotations

import numpy as np
from ..core.jit import njit

from ..core.arith import add_into, avg_step, predictive_update, regret_matching, rule_step
from .build import index_dtype
from .nkernels import CHANCE, DECISION, TERMINAL

#: bits of a compact row's first column: kind (2 bits), then the acting player (16: a plugin's
#: TreeGame may have more players than the 6 of the bundled games; 3 bits read player 8 as 0),
#: then the flag of an information set's representative history
KIND_MASK, PLAYER_SHIFT, PLAYER_MASK, REP_SHIFT = 3, 2, (1 << 16) - 1, 18


def compact_nodes(node: np.ndarray, utils: np.ndarray, base: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(cn, ut): the compact table of a FlatTree's ``node`` and ``utils`` for the passes here.

    cn[n] = (kind | player << 2 | representative << 18, children, first child, offset): a
    decision's offset is base[player] + its offset within its player's values; a terminal's is
    its index among terminals, into ut [players, terminals] (each player's utility, contiguous).
    int32 where every number fits (any tree a machine holds), else int64."""
    kind, player = node[:, 0], node[:, 1]
    decision = kind == DECISION
    if decision.any() and int(player[decision].max()) > PLAYER_MASK:
        raise ValueError(f"a tree of {int(player[decision].max()) + 1} players: the compact passes name at most "
                         f"{PLAYER_MASK + 1}")
    terminal = np.flatnonzero(kind == TERMINAL)
    off = np.zeros(node.shape[0], dtype=np.int64)
    off[decision] = base[player[decision]] + node[decision, 2]
    off[terminal] = np.arange(terminal.size)
    code = kind | (np.where(decision, player, 0) << PLAYER_SHIFT) | ((node[:, 3] != 0) << REP_SHIFT)
    cols = (code, node[:, 5], node[:, 4], off)
    cn = np.empty((node.shape[0], 4), dtype=index_dtype(node.shape[0], base[-1]))
    for j, col in enumerate(cols):
        cn[:, j] = col
    return cn, np.ascontiguousarray(utils[terminal].T)


@njit(cache=True, nogil=True)
def pass_one(cn, prob, ut, base, sig, i, qa, do_avg, x, y, v, d, ac):
    """:func:`.nkernels.cfr_pass_one` over the compact table: player i's regrets (alternating
    updates) and, when do_avg, player qa's average contributions; x is every other player's and
    chance's reach, y qa's own, v i's values (node-sized scratch)."""
    N = cn.shape[0]
    x[0] = 1.0
    y[0] = 1.0
    for n in range(N):
        c0 = cn[n, 0]
        k = c0 & KIND_MASK
        if k == TERMINAL:
            continue
        A = cn[n, 1]
        first = cn[n, 2]
        xn = x[n]
        yn = y[n]
        if k == CHANCE:
            for a in range(A):
                c = first + a
                x[c] = xn * prob[c]
                y[c] = yn
            continue
        q = (c0 >> PLAYER_SHIFT) & PLAYER_MASK
        off = cn[n, 3]
        if q == i:
            for a in range(A):
                x[first + a] = xn
                y[first + a] = yn
            continue
        for a in range(A):
            x[first + a] = xn * sig[off + a]
        if q == qa:
            for a in range(A):
                y[first + a] = yn * sig[off + a]
            if do_avg and (c0 >> REP_SHIFT) & 1:
                for a in range(A):
                    ac[off + a] = sig[off + a] * yn
        else:
            for a in range(A):
                y[first + a] = yn
    d[base[i]:base[i + 1]] = 0.0
    uti = ut[i]
    for n in range(N - 1, -1, -1):
        if x[n] == 0.0:  # the others never get here: the value is weighted 0 above, the regrets by x = 0
            v[n] = 0.0
            continue
        c0 = cn[n, 0]
        k = c0 & KIND_MASK
        if k == TERMINAL:
            v[n] = uti[cn[n, 3]]
            continue
        A = cn[n, 1]
        first = cn[n, 2]
        ev = 0.0
        if k == CHANCE:
            for a in range(A):
                ev += prob[first + a] * v[first + a]
            v[n] = ev
            continue
        off = cn[n, 3]
        for a in range(A):
            ev += sig[off + a] * v[first + a]
        v[n] = ev
        if (c0 >> PLAYER_SHIFT) & PLAYER_MASK == i:
            cf = x[n]
            for a in range(A):
                d[off + a] += cf * (v[first + a] - ev)


@njit(cache=True, nogil=True)
def pass_all(cn, prob, utils, base, sig, upd_mask, avg_mask, reach, v, d, ac):
    """:func:`.nkernels.cfr_pass_n` over the compact table: regrets of upd_mask's players and
    average contributions of avg_mask's (simultaneous updates); reach [N, players + 1] (the last
    column chance's), v [N, players] (the updated players' columns)."""
    P = utils.shape[1]
    N = cn.shape[0]
    for j in range(P + 1):
        reach[0, j] = 1.0
    for n in range(N):
        c0 = cn[n, 0]
        k = c0 & KIND_MASK
        if k == TERMINAL:
            continue
        A = cn[n, 1]
        first = cn[n, 2]
        if k == CHANCE:
            for a in range(A):
                c = first + a
                for j in range(P):
                    reach[c, j] = reach[n, j]
                reach[c, P] = reach[n, P] * prob[c]
            continue
        q = (c0 >> PLAYER_SHIFT) & PLAYER_MASK
        off = cn[n, 3]
        rq = reach[n, q]
        for a in range(A):
            c = first + a
            for j in range(P + 1):
                reach[c, j] = reach[n, j]
            reach[c, q] = rq * sig[off + a]
        if (c0 >> REP_SHIFT) & 1 and (avg_mask >> q) & 1:
            for a in range(A):
                ac[off + a] = sig[off + a] * rq
    for p in range(P):
        if (upd_mask >> p) & 1:
            d[base[p]:base[p + 1]] = 0.0
    for n in range(N - 1, -1, -1):
        c0 = cn[n, 0]
        k = c0 & KIND_MASK
        if k == TERMINAL:
            for p in range(P):
                if (upd_mask >> p) & 1:
                    v[n, p] = utils[n, p]
            continue
        A = cn[n, 1]
        first = cn[n, 2]
        if k == CHANCE:
            for p in range(P):
                if (upd_mask >> p) & 1:
                    x = 0.0
                    for a in range(A):
                        x += prob[first + a] * v[first + a, p]
                    v[n, p] = x
            continue
        q = (c0 >> PLAYER_SHIFT) & PLAYER_MASK
        off = cn[n, 3]
        for p in range(P):
            if (upd_mask >> p) & 1:
                x = 0.0
                for a in range(A):
                    x += sig[off + a] * v[first + a, p]
                v[n, p] = x
        if (upd_mask >> q) & 1:
            # counterfactual reach: every other player's and chance's
            cf = reach[n, P]
            for j in range(P):
                if j != q:
                    cf *= reach[n, j]
            if cf != 0.0:
                ev = v[n, q]
                for a in range(A):
                    d[off + a] += cf * (v[first + a, q] - ev)


@njit(cache=True, nogil=True, inline="always")
def _single(mask):
    """The player of a one-player mask, else -1."""
    if mask != 0 and mask & (mask - 1) == 0:
        p = 0
        while (mask >> p) & 1 == 0:
            p += 1
        return p
    return -1


@njit(cache=True, nogil=True)
def pass_any(cn, prob, ut, utils, base, sig, upd, am, reach, v, d, ac, x, y, w):
    """:func:`pass_one` when one player updates and the average (if any) is the one before it
    (alternating updates), else :func:`pass_all`; x, y, w: node-sized scratch."""
    P = utils.shape[1]
    one = _single(upd)
    if one >= 0 and (am == 0 or _single(am) == (one - 1) % P):
        pass_one(cn, prob, ut, base, sig, one, (one - 1) % P, am != 0, x, y, w, d, ac)
    else:
        pass_all(cn, prob, utils, base, sig, upd, am, reach, v, d, ac)


@njit(cache=True, nogil=True, inline="always")
def _fold_average(avg, ac, lo, hi, weight, decay):
    """avg[lo:hi] = avg_step(avg, weight, ac, decay): one player's average after a pass."""
    for j in range(lo, hi):
        avg[j] = avg_step(avg[j], weight, ac[j], decay)


@njit(cache=True, nogil=True)
def block(cn, prob, ut, utils, base, bs, bc, ba, reg, avg, masks, avgmasks, coeffs, sig, reach, v, d, ac, x, y, w):
    """Passes k = 0, 1, ... in one call: regret matching of `reg` (every player's regrets,
    concatenated; blocks bs/bc/ba of the concatenated layout), :func:`pass_any` updating
    masks[k]'s players, then rule_step with coeffs[k, :4] on their regrets and avg_step with
    coeffs[k, 4:6] (decay, weight) on avgmasks[k]'s averages: the numbers of one
    :func:`pass_any` and :func:`.nkernels.fold` per pass."""
    P = utils.shape[1]
    for k in range(masks.shape[0]):
        regret_matching(reg, bs, bc, ba, sig)
        upd = masks[k]
        am = avgmasks[k]
        pass_any(cn, prob, ut, utils, base, sig, upd, am, reach, v, d, ac, x, y, w)
        pre, pos, neg, floor, decay, weight = coeffs[k, 0], coeffs[k, 1], coeffs[k, 2], coeffs[k, 3], coeffs[k, 4], coeffs[k, 5]
        for p in range(P):
            if (upd >> p) & 1:
                for j in range(base[p], base[p + 1]):
                    reg[j] = rule_step(reg[j], d[j], pre, pos, neg, floor)
            if (am >> p) & 1:
                _fold_average(avg, ac, base[p], base[p + 1], weight, decay)


@njit(cache=True, nogil=True)
def block_predictive(cn, prob, ut, utils, base, bs, bc, ba, reg, pred, src, avg, masks, avgmasks, coeffs, preds,
                     sig, reach, v, d, ac, x, y, w):
    """:func:`block` for a predictive rule (PCFR+, PDCFR+, SAPCFR+): each pass plays regret
    matching of R + pred (src, concatenated as reg), leaves its instantaneous regrets in d, then
    predictive_update with preds[k] = (pre, floor, nxt, weight) on the updated players' regrets
    and avg_step with coeffs[k, 4:6] on avgmasks[k]'s averages."""
    P = utils.shape[1]
    for k in range(masks.shape[0]):
        add_into(reg, pred, src)
        regret_matching(src, bs, bc, ba, sig)
        upd = masks[k]
        am = avgmasks[k]
        pass_any(cn, prob, ut, utils, base, sig, upd, am, reach, v, d, ac, x, y, w)
        decay, weight = coeffs[k, 4], coeffs[k, 5]
        for p in range(P):
            lo, hi = base[p], base[p + 1]
            if (upd >> p) & 1:
                predictive_update(reg[lo:hi], d[lo:hi], pred[lo:hi], preds[k, 0], preds[k, 1], preds[k, 2],
                                  preds[k, 3])
            if (am >> p) & 1:
                _fold_average(avg, ac, lo, hi, weight, decay)
