"""Numba kernels of the generic extensive-form engine: a CFR pass, best response, expected value.

They walk a :class:`~solverkit.efg.build.FlatTree`'s arrays: ``node[n]`` = (kind, player, value
offset, representative flag, first child, children); nodes are breadth first, so ascending
order is top-down and descending order bottom-up. Values are player 0's utility; policies come
from regret matching of a *source* array (regrets, a rule's policy source, or a cumulative
strategy, which regret matching merely normalises). All CFR arithmetic is
:mod:`solverkit.core.arith`'s.
"""

from __future__ import annotations

from ..core.jit import njit

from ..core.arith import add_into, avg_step, predictive_update, regret_matching, rule_step

DECISION, CHANCE, TERMINAL = 0, 1, 2


@njit(cache=True, nogil=True, inline="always")
def _dot(w, base, v, first, A):
    """sum over a of w[base + a] * v[first + a]: a node's value from its children's, weighted
    by chance probabilities (base = first) or by a policy (base = the information set's offset)."""
    x = 0.0
    for a in range(A):
        x += w[base + a] * v[first + a]
    return x


@njit(cache=True, nogil=True)
def cfr_pass(node, prob, util, bs0, bc0, ba0, bs1, bc1, ba1, src0, src1, reg0, reg1, avg0, avg1,
             upd_mask, avg_mask, pre, pos, neg, floor, decay, weight, sig0, sig1, d0, d1, reach, v):
    """One CFR pass over the whole tree; returns player 0's expected value of the profile.

    Policies are regret matching of src0/src1 (blocks bs/bc/ba of each player's layout). For
    each player q in upd_mask, the counterfactual regrets (opponent and chance reach times
    value differences, summed over the histories of an information set) are folded into reg_q
    with rule_step(pre, pos, neg, floor); for each q in avg_mask, avg_q takes
    avg_step(weight, policy x own reach, decay) once per information set (at its
    representative history). sig/d are scratch of layout size, reach [N, 3], v [N]."""
    N = node.shape[0]
    regret_matching(src0, bs0, bc0, ba0, sig0)
    regret_matching(src1, bs1, bc1, ba1, sig1)
    # forward: reach of player 0, player 1 and chance, top-down
    reach[0, 0] = 1.0
    reach[0, 1] = 1.0
    reach[0, 2] = 1.0
    for n in range(N):
        k = node[n, 0]
        if k == TERMINAL:
            continue
        first = node[n, 4]
        A = node[n, 5]
        if k == CHANCE:
            for a in range(A):
                c = first + a
                reach[c, 0] = reach[n, 0]
                reach[c, 1] = reach[n, 1]
                reach[c, 2] = reach[n, 2] * prob[c]
            continue
        q = node[n, 1]
        off = node[n, 2]
        rq = reach[n, q]
        for a in range(A):
            c = first + a
            reach[c, 0] = reach[n, 0]
            reach[c, 1] = reach[n, 1]
            reach[c, 2] = reach[n, 2]
            if q == 0:
                reach[c, 0] = rq * sig0[off + a]
            else:
                reach[c, 1] = rq * sig1[off + a]
        if node[n, 3] and (avg_mask >> q) & 1:
            # (policy x reach) x weight, as the poker engine and the original CFR+ code
            for a in range(A):
                if q == 0:
                    avg0[off + a] = avg_step(avg0[off + a], weight, sig0[off + a] * rq, decay)
                else:
                    avg1[off + a] = avg_step(avg1[off + a], weight, sig1[off + a] * rq, decay)
    # backward: values and instantaneous regrets, bottom-up
    if upd_mask & 1:
        d0[:] = 0.0
    if upd_mask & 2:
        d1[:] = 0.0
    for n in range(N - 1, -1, -1):
        k = node[n, 0]
        if k == TERMINAL:
            v[n] = util[n]
            continue
        first = node[n, 4]
        A = node[n, 5]
        if k == CHANCE:
            v[n] = _dot(prob, first, v, first, A)
            continue
        q = node[n, 1]
        off = node[n, 2]
        ev = 0.0
        for a in range(A):
            if q == 0:
                ev += sig0[off + a] * v[first + a]
            else:
                ev += sig1[off + a] * v[first + a]
        v[n] = ev
        if (upd_mask >> q) & 1:
            # counterfactual reach: the opponent's and chance's; player 1's utility is -v
            cf = reach[n, 1 - q] * reach[n, 2]
            if cf != 0.0:
                if q == 0:
                    for a in range(A):
                        d0[off + a] += cf * (v[first + a] - ev)
                else:
                    for a in range(A):
                        d1[off + a] -= cf * (v[first + a] - ev)
    # the rule's step, once per information-set value, after all histories are summed
    if upd_mask & 1:
        for i in range(reg0.shape[0]):
            reg0[i] = rule_step(reg0[i], d0[i], pre, pos, neg, floor)
    if upd_mask & 2:
        for i in range(reg1.shape[0]):
            reg1[i] = rule_step(reg1[i], d1[i], pre, pos, neg, floor)
    return v[0]


@njit(cache=True, nogil=True)
def cfr_block(node, prob, util, bs0, bc0, ba0, bs1, bc1, ba1, reg0, reg1, avg0, avg1, masks, avgmasks, coeffs,
              sig0, sig1, d0, d1, reach, v):
    """Passes k = 0, 1, ... of a two-player game in one call: :func:`cfr_pass` with masks[k],
    avgmasks[k] and coeffs[k] (pre, pos, neg, floor, decay, weight), the regrets their own policy
    sources, so each pass sees the previous one's updates exactly as separate calls would (a
    Python call per pass cost a small game two thirds of its time)."""
    for k in range(masks.shape[0]):
        cfr_pass(node, prob, util, bs0, bc0, ba0, bs1, bc1, ba1, reg0, reg1, reg0, reg1, avg0, avg1,
                 masks[k], avgmasks[k], coeffs[k, 0], coeffs[k, 1], coeffs[k, 2], coeffs[k, 3], coeffs[k, 4],
                 coeffs[k, 5], sig0, sig1, d0, d1, reach, v)


@njit(cache=True, nogil=True)
def cfr_block_predictive(node, prob, util, bs0, bc0, ba0, bs1, bc1, ba1, reg0, reg1, pred0, pred1, src0, src1,
                         dl0, dl1, avg0, avg1, masks, avgmasks, coeffs, preds, sig0, sig1, d0, d1, reach, v):
    """:func:`cfr_block` for a predictive rule (PCFR+, PDCFR+, SAPCFR+): each pass plays regret
    matching of R + pred (src), leaves its instantaneous regrets in dl (coeffs[k, :4]: the
    delta coefficients of a rule outside the kernel), averages with coeffs[k, 4:6], and then applies predictive_update with
    preds[k] = (pre, floor, nxt, weight) to the updated players: the doubles of the pass
    followed by the rule's update, as one call per pass gives them."""
    for k in range(masks.shape[0]):
        add_into(reg0, pred0, src0)
        add_into(reg1, pred1, src1)
        upd = masks[k]
        if upd & 1:
            dl0[:] = 0.0
        if upd & 2:
            dl1[:] = 0.0
        cfr_pass(node, prob, util, bs0, bc0, ba0, bs1, bc1, ba1, src0, src1, dl0, dl1, avg0, avg1, upd, avgmasks[k],
                 coeffs[k, 0], coeffs[k, 1], coeffs[k, 2], coeffs[k, 3], coeffs[k, 4], coeffs[k, 5], sig0, sig1, d0,
                 d1, reach, v)
        if upd & 1:
            predictive_update(reg0, dl0, pred0, preds[k, 0], preds[k, 1], preds[k, 2], preds[k, 3])
        if upd & 2:
            predictive_update(reg1, dl1, pred1, preds[k, 0], preds[k, 1], preds[k, 2], preds[k, 3])


@njit(cache=True, nogil=True)
def best_response(node, prob, util, order, bounds, p, src, bs, bc, ba, sig, q_buf, w, v):
    """Value for player p of a best response to the opponent's policy (regret matching of
    `src`, blocks bs/bc/ba). The responder picks, per information set, the action maximising the
    sum over its histories of (opponent x chance reach) x value. `order`/`bounds` visit p's
    levels deepest first (own nodes of a level, then the other nodes of the level bottom-up),
    so every information set is decided after everything below it and before anything above."""
    N = node.shape[0]
    regret_matching(src, bs, bc, ba, sig)
    # forward: the opponent's and chance's reach (the responder's own actions count 1)
    w[0] = 1.0
    for n in range(N):
        k = node[n, 0]
        if k == TERMINAL:
            continue
        first = node[n, 4]
        A = node[n, 5]
        if k == CHANCE:
            for a in range(A):
                w[first + a] = w[n] * prob[first + a]
        elif node[n, 1] == p:
            for a in range(A):
                w[first + a] = w[n]
        else:
            off = node[n, 2]
            for a in range(A):
                w[first + a] = w[n] * sig[off + a]
    sign = 1.0 if p == 0 else -1.0
    q_buf[:] = 0.0
    for b in range(bounds.shape[0]):
        s0 = bounds[b, 0]
        s1 = bounds[b, 1]
        s2 = bounds[b, 2]
        # the responder's information sets of this level: reach-weighted action values ...
        for j in range(s0, s1):
            n = order[j]
            first = node[n, 4]
            off = node[n, 2]
            for a in range(node[n, 5]):
                q_buf[off + a] += w[n] * v[first + a]
        # ... and each history takes its information set's best action
        for j in range(s0, s1):
            n = order[j]
            first = node[n, 4]
            off = node[n, 2]
            best = 0
            for a in range(1, node[n, 5]):
                if q_buf[off + a] > q_buf[off + best]:
                    best = a
            v[n] = v[first + best]
        # everything else of the level, bottom-up
        for j in range(s1, s2):
            n = order[j]
            k = node[n, 0]
            if k == TERMINAL:
                v[n] = sign * util[n]
                continue
            first = node[n, 4]
            A = node[n, 5]
            v[n] = _dot(prob, first, v, first, A) if k == CHANCE else _dot(sig, node[n, 2], v, first, A)
    return v[0]


@njit(cache=True, nogil=True)
def expected_value(node, prob, util, bs0, bc0, ba0, bs1, bc1, ba1, src0, src1, sig0, sig1, v):
    """Player 0's expected utility when both play regret matching of src0 / src1."""
    N = node.shape[0]
    regret_matching(src0, bs0, bc0, ba0, sig0)
    regret_matching(src1, bs1, bc1, ba1, sig1)
    for n in range(N - 1, -1, -1):
        k = node[n, 0]
        if k == TERMINAL:
            v[n] = util[n]
            continue
        first = node[n, 4]
        A = node[n, 5]
        if k == CHANCE:
            v[n] = _dot(prob, first, v, first, A)
        elif node[n, 1] == 0:
            v[n] = _dot(sig0, node[n, 2], v, first, A)
        else:
            v[n] = _dot(sig1, node[n, 2], v, first, A)
    return v[0]
