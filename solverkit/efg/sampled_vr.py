"""Variance-reduced outcome sampling (VR-MCCFR; Schmid, Burch, Lanctot, Moravcik, Kadlec and
Bowling, AAAI 2019) over a :class:`~solverkit.efg.build.FlatTree`, two to six players.

The walk down is outcome sampling's (:func:`.sampled.outcome_descend`). On the way up, at every
history h of the path (chance, either player), with c the sampled child and s its sampling
probability, each action's value is the baseline-corrected estimate

    u^(h, a) = b(h, a) + (u^(ha) - b(h, a)) / s    (a sampled),    u^(h, a) = b(h, a)    (otherwise),

and u^(h) = sum_a sigma(h, a) u^(h, a) goes up (the recursive form: the baselines of every
history below correct the estimate). At the updating player i's histories the regret delta is
sign * (u^(h, a) - u^(h)) / q_i(prefix), as in plain outcome sampling. For any baseline
independent of this pass's draws the estimates are unbiased; with b = 0 they are outcome
sampling's to the last bit (chance and the opponent sample on-policy, where u^(h) is computed as
u^(hc) - b(h, c) + sum_a sigma(h, a) b(h, a)).

With two players baselines are in player 0's utility (player 1's is its negation in a zero-sum
game), with more in each player's own (bl[ha, p]); one per edge (h, a), indexed by the child ha.
``learned`` updates b(h, c) <- decay * b(h, c) + (1 - decay) * u^(hc) after b(h, c) was used,
``oracle`` recomputes every b(h, a) = v(ha) under the current profile before each traversal (a
full sweep: for tests and measurements), which makes every value estimate exact.
"""

from __future__ import annotations

import numpy as np
from ..core.jit import njit

from ..core.rng import stream
from .sampled import apply_touched, outcome_descend
from .sampled_n import _touch_n, apply_touched_n, outcome_descend_n
from .sampled_steps import CHANCE, TERMINAL, _policy, _touch

#: [sampler] baseline -> kernel code
BASELINES = {"none": 0, "learned": 1, "oracle": 2}
LEARNED, ORACLE = 1, 2


@njit(cache=True, nogil=True)
def profile_values(node, prob, util, src0, src1, pol, val):
    """val[n] = player 0's expected value of node n when both players play regret matching of
    src0 and src1 (children have larger indices than their parent: one sweep from the end)."""
    for n in range(node.shape[0] - 1, -1, -1):
        k = node[n, 0]
        if k == TERMINAL:
            val[n] = util[n]
            continue
        first = node[n, 4]
        A = node[n, 5]
        ev = 0.0
        if k == CHANCE:
            for a in range(A):
                ev += prob[first + a] * val[first + a]
        else:
            _policy(src0 if node[n, 1] == 0 else src1, node[n, 2], first, A, pol)
            for a in range(A):
                ev += pol[first + a] * val[first + a]
        val[n] = ev


@njit(cache=True, nogil=True)
def vr_outcome_traverse(i, key, eps, node, prob, util, infoset, src_i, src_o, d_i, seen_i, touched_i, nt_i, avg_o,
                        ascale_o, do_avg, weight, pol, path, samp, qpre, bl, learn, decay, root):
    """One variance-reduced outcome-sampled traversal for updating player i (see the module
    docstring); root[0] takes the root's value estimate (player 0's). Returns nodes visited."""
    sign = 1.0 if i == 0 else -1.0
    depth, n = outcome_descend(i, key, eps, node, prob, infoset, src_i, src_o, avg_o, ascale_o, do_avg, weight,
                               pol, path, samp, qpre)
    val = util[n]
    for j in range(depth - 1, -1, -1):
        n = path[j]
        first = node[n, 4]
        A = node[n, 5]
        c = samp[j]
        if node[n, 0] == CHANCE or node[n, 1] != i:  # on-policy: sigma(h, c) / s = 1
            w = prob if node[n, 0] == CHANCE else pol
            ev = val - bl[c]
            for a in range(A):
                ev += w[first + a] * bl[first + a]
        else:
            s = eps / A + (1.0 - eps) * pol[c]
            vc = bl[c] + (val - bl[c]) / s
            ev = 0.0
            for a in range(A):
                ev += pol[first + a] * (vc if first + a == c else bl[first + a])
            _touch(n, node, infoset, seen_i, touched_i, nt_i)
            off = node[n, 2]
            cf = sign / qpre[j]
            for a in range(A):
                d_i[off + a] += cf * ((vc if first + a == c else bl[first + a]) - ev)
        if learn:
            bl[c] = decay * bl[c] + (1.0 - decay) * val
        val = ev
    root[0] = val
    return depth + 1


@njit(cache=True, nogil=True)
def vr_outcome_block(eps, seed, subgame, iters, masks, avgmasks, floors, weights, rweights, node, prob, util, infoset,
                     src0, src1, reg0, reg1, avg0, avg1, ascale0, ascale1, d0, d1, seen0, seen1, touched0, touched1,
                     nt, pol, path, samp, qpre, bmode, decay, bl, roots):
    """:func:`.sampled.sampled_block` of outcome sampling with baselines `bl` (bmode: 0 none,
    1 learned, 2 oracle): for each pass k and player i in masks[k], one traversal whose root
    estimate goes to roots[2k + i] (when roots has room), then the touched regrets."""
    count = 0
    spare = np.empty(1)
    for k in range(iters.shape[0]):
        t = iters[k]
        for i in (0, 1):
            if not (masks[k] >> i) & 1:
                continue
            key = stream(seed, t, i, subgame)
            do_avg = (avgmasks[k] >> (1 - i)) & 1 == 1
            if bmode == ORACLE:
                profile_values(node, prob, util, src0, src1, pol, bl)
            slot = roots[2 * k + i:2 * k + i + 1] if 2 * k + i < roots.size else spare
            if i == 0:
                count += vr_outcome_traverse(i, key, eps, node, prob, util, infoset, src0, src1, d0, seen0, touched0,
                                             nt[0:1], avg1, ascale1, do_avg, weights[k], pol, path, samp, qpre, bl,
                                             bmode == LEARNED, decay, slot)
            else:
                count += vr_outcome_traverse(i, key, eps, node, prob, util, infoset, src1, src0, d1, seen1, touched1,
                                             nt[1:2], avg0, ascale0, do_avg, weights[k], pol, path, samp, qpre, bl,
                                             bmode == LEARNED, decay, slot)
        if masks[k] & 1:
            apply_touched(node, infoset, reg0, d0, seen0, touched0, nt[0:1], floors[k], rweights[k])
        if masks[k] & 2:
            apply_touched(node, infoset, reg1, d1, seen1, touched1, nt[1:2], floors[k], rweights[k])
    return count


# --- three to six players: every player's values concatenated (see .sampled_n) -------------------
# Baselines bl[ha, p] in player p's utility: a traversal for player i reads and learns column i.


@njit(cache=True, nogil=True)
def profile_values_n(node, prob, utils, i, base, reg, pol, bl):
    """bl[n, i] = player i's expected value of node n under regret matching of every player's
    concatenated regrets (:func:`profile_values` for N players)."""
    for n in range(node.shape[0] - 1, -1, -1):
        k = node[n, 0]
        if k == TERMINAL:
            bl[n, i] = utils[n, i]
            continue
        first = node[n, 4]
        A = node[n, 5]
        ev = 0.0
        if k == CHANCE:
            for a in range(A):
                ev += prob[first + a] * bl[first + a, i]
        else:
            _policy(reg, base[node[n, 1]] + node[n, 2], first, A, pol)
            for a in range(A):
                ev += pol[first + a] * bl[first + a, i]
        bl[n, i] = ev


@njit(cache=True, nogil=True)
def vr_outcome_traverse_n(i, qa, key, eps, node, prob, utils, infoset, base, ibase, reg, d, seen, touched, nt, avg,
                          ascale, do_avg, weight, pol, path, samp, qpre, bl, learn, decay, root):
    """:func:`vr_outcome_traverse` for N players (player i's utility and baselines bl[:, i])."""
    depth, n = outcome_descend_n(i, qa, key, eps, node, prob, infoset, base, ibase, reg, avg, ascale, do_avg, weight,
                                 pol, path, samp, qpre)
    val = utils[n, i]
    for j in range(depth - 1, -1, -1):
        n = path[j]
        first = node[n, 4]
        A = node[n, 5]
        c = samp[j]
        if node[n, 0] == CHANCE or node[n, 1] != i:  # on-policy
            w = prob if node[n, 0] == CHANCE else pol
            ev = val - bl[c, i]
            for a in range(A):
                ev += w[first + a] * bl[first + a, i]
        else:
            s = eps / A + (1.0 - eps) * pol[c]
            vc = bl[c, i] + (val - bl[c, i]) / s
            ev = 0.0
            for a in range(A):
                ev += pol[first + a] * (vc if first + a == c else bl[first + a, i])
            _touch_n(n, node, infoset, ibase, seen, touched, nt)
            off = base[i] + node[n, 2]
            cf = 1.0 / qpre[j]
            for a in range(A):
                d[off + a] += cf * ((vc if first + a == c else bl[first + a, i]) - ev)
        if learn:
            bl[c, i] = decay * bl[c, i] + (1.0 - decay) * val
        val = ev
    root[0] = val
    return depth + 1


@njit(cache=True, nogil=True)
def vr_outcome_block_n(eps, seed, subgame, iters, masks, avgmasks, floors, weights, rweights, node, prob, utils,
                       infoset, base, ibase, reg, avg, ascale, d, seen, touched, nt, pol, path, samp, qpre, bmode,
                       decay, bl, roots):
    """:func:`.sampled_n.sampled_block_n` of outcome sampling with baselines bl[node, player]
    (bmode as :func:`vr_outcome_block`); player i's root estimate of pass k goes to roots[P k + i]."""
    P = utils.shape[1]
    count = 0
    spare = np.empty(1)
    for k in range(iters.shape[0]):
        t = iters[k]
        for i in range(P):
            if not (masks[k] >> i) & 1:
                continue
            key = stream(seed, t, i, subgame)
            qa = (i - 1) % P
            do_avg = (avgmasks[k] >> qa) & 1 == 1
            if bmode == ORACLE:
                profile_values_n(node, prob, utils, i, base, reg, pol, bl)
            slot = roots[P * k + i:P * k + i + 1] if P * k + i < roots.size else spare
            count += vr_outcome_traverse_n(i, qa, key, eps, node, prob, utils, infoset, base, ibase, reg, d, seen,
                                           touched, nt, avg, ascale, do_avg, weights[k], pol, path, samp, qpre, bl,
                                           bmode == LEARNED, decay, slot)
        apply_touched_n(node, infoset, base, ibase, reg, d, seen, touched, nt, floors[k], rweights[k])
    return count
