"""The sampled traversals for three to six players: every player's values concatenated, the sampled blocks, masses."""

from __future__ import annotations

import numpy as np
from ..core.jit import njit

from ..core.arith import avg_step, rm_total, rule_step
from ..core.rng import pick, stream, uniform
from .sampled_steps import CHANCE, DECISION, MODE_EXTERNAL, MODE_OUTCOME, TERMINAL, _policy, _skip

# The same traversals over every player's values concatenated (player p's at base[p] ..
# base[p + 1], its information sets at ibase[p] ..), with every player's utility (utils[n, p]).
# A traversal for player i adds to the average of player q = i - 1 (the one :meth:`TreeGame.
# average_players` pairs with i's update); what a third player (neither i nor q) samples on-policy
# no longer cancels in q's average, so q's increment is divided by the product of those players'
# sampling probabilities on the path (``g``): the expected increment is then the full pass's.


@njit(cache=True, nogil=True)
def explore_traverse_n(mode, i, qa, key, node, prob, utils, infoset, base, ibase, reg, d, seen, touched, nt,
                       avg, ascale, do_avg, weight, v, r, g, pol, chosen, stack, prune, thr, explore):
    """One chance- or external-sampled traversal for updating player i (average of player qa
    when do_avg); returns nodes visited. r[n]: the others' reach of the explored part (for i's
    regrets); g[n]: chance sampling, qa's own reach; external, the third players' sampling
    probability of the path (their actions are sampled), times `explore` (1 - prune_probability)
    below the first action on the path a pruning traversal would skip, where r is divided by it
    (one draw decides whether a traversal prunes: what lies below two such actions is walked by
    1 - prune_probability of traversals too). prune: this
    traversal skips i's actions of regret below thr (see the module docstring)."""
    count = 0
    sp = 1
    stack[0] = 0
    r[0] = 1.0
    g[0] = 1.0
    while sp > 0:
        sp -= 1
        e = stack[sp]
        n = e >> 1
        k = node[n, 0]
        if e & 1 == 0:  # entering n
            count += 1
            if k == TERMINAL:
                v[n] = utils[n, i]
                continue
            first = node[n, 4]
            A = node[n, 5]
            if k == CHANCE:
                c = first + pick(uniform(key, n), prob, first, A)
                chosen[n] = c
                r[c] = r[n]
                g[c] = g[n]
                stack[sp] = (n << 1) | 1
                stack[sp + 1] = c << 1
                sp += 2
                continue
            q = node[n, 1]
            off = base[q] + node[n, 2]
            _policy(reg, off, first, A, pol)
            if q == qa and do_avg:
                s = ascale[ibase[q] + infoset[n]]
                for a in range(A):
                    x = pol[first + a] * s / g[n] if mode == MODE_EXTERNAL else g[n] * pol[first + a] * s
                    avg[off + a] = avg_step(avg[off + a], weight, x, 1.0)
            stack[sp] = (n << 1) | 1
            sp += 1
            if q != i and mode == MODE_EXTERNAL:  # the others sample on-policy
                c = first + pick(uniform(key, n), pol, first, A)
                chosen[n] = c
                r[c] = r[n]
                g[c] = g[n] if q == qa else g[n] * pol[c]
                stack[sp] = c << 1
                sp += 1
                continue
            prunes = thr < 0.0 and q == i and rm_total(reg, off, A) > 0.0
            for a in range(A - 1, -1, -1):  # every action explored (but pruned ones)
                c = first + a
                skip = _skip(prunes, reg, off, a, node, c, thr)
                if skip and prune:
                    v[c] = 0.0  # its policy is 0: no part of the set's value
                    continue
                # r is 1 above the path's first skippable action (only external sampling prunes, and its
                # sampled actions leave r at 1) and 1 / (1 - p) below it: the scaling applies once
                fresh = skip and r[n] == 1.0  # the path's first: walked by 1 - p of traversals, once
                r[c] = (r[n] / explore if fresh else r[n]) if q == i else r[n] * pol[c]
                g[c] = g[n] * pol[c] if q == qa else (g[n] * explore if fresh else g[n])
                stack[sp] = c << 1
                sp += 1
        else:  # leaving n: its value from its children's
            if k == CHANCE or (mode == MODE_EXTERNAL and node[n, 1] != i):
                v[n] = v[chosen[n]]
                continue
            first = node[n, 4]
            A = node[n, 5]
            ev = 0.0
            for a in range(A):
                ev += pol[first + a] * v[first + a]
            v[n] = ev
            if node[n, 1] == i:
                _touch_n(n, node, infoset, ibase, seen, touched, nt)
                off = base[i] + node[n, 2]
                cf = r[n]
                able = thr < 0.0 and rm_total(reg, off, A) > 0.0
                for a in range(A):
                    if not _skip(able, reg, off, a, node, first + a, thr):
                        d[off + a] += cf * (v[first + a] - ev)
                    elif not prune:  # walked by 1 - prune_probability of traversals: scaled up
                        d[off + a] += (cf / explore if r[n] == 1.0 else cf) * (v[first + a] - ev)
    return count


@njit(cache=True, nogil=True, inline="always")
def _touch_n(n, node, infoset, ibase, seen, touched, nt):
    """:func:`_touch` over every player's information sets (global index ibase[p] + set)."""
    s = ibase[node[n, 1]] + infoset[n]
    if seen[s] == 0:
        seen[s] = 1
        touched[nt[0]] = n
        nt[0] += 1


@njit(cache=True, nogil=True, inline="always")
def outcome_descend_n(i, qa, key, eps, node, prob, infoset, base, ibase, reg, avg, ascale, do_avg, weight, pol, path,
                      samp, qpre):
    """The walk down of an outcome-sampled traversal for updating player i (average of player
    qa when do_avg): returns (depth, terminal node), as :func:`.sampled.outcome_descend`. qa's
    average takes w * sigma / (pi_c q_i g n(I)), g the third players' sampling probability."""
    n = 0
    depth = 0
    pc = 1.0  # chance reach of the path
    qi = 1.0  # i's sampling probability of the path
    g = 1.0  # the third players' (neither i nor qa) sampling probability of the path
    while node[n, 0] != TERMINAL:
        first = node[n, 4]
        A = node[n, 5]
        u = uniform(key, n)
        if node[n, 0] == CHANCE:
            a = pick(u, prob, first, A)
            pc *= prob[first + a]
        else:
            q = node[n, 1]
            off = base[q] + node[n, 2]
            _policy(reg, off, first, A, pol)
            if q == i:
                total = 0.0
                a = A - 1
                for b in range(A):
                    total += eps / A + (1.0 - eps) * pol[first + b]
                    if u < total:
                        a = b
                        break
                s = eps / A + (1.0 - eps) * pol[first + a]
                qpre[depth] = qi
                qi *= s
            else:
                if q == qa and do_avg:
                    f = ascale[ibase[q] + infoset[n]] / (pc * qi * g)
                    for b in range(A):
                        avg[off + b] = avg_step(avg[off + b], weight, pol[first + b] * f, 1.0)
                a = pick(u, pol, first, A)
                if q != qa:
                    g *= pol[first + a]
        path[depth] = n
        samp[depth] = first + a
        depth += 1
        n = first + a
    return depth, n


@njit(cache=True, nogil=True)
def outcome_traverse_n(i, qa, key, eps, node, prob, utils, infoset, base, ibase, reg, d, seen, touched, nt,
                       avg, ascale, do_avg, weight, pol, path, samp, qpre):
    """One outcome-sampled traversal for updating player i (average of player qa when do_avg):
    :func:`outcome_descend_n`, then the estimates up as in two-player outcome sampling; returns
    nodes visited."""
    depth, n = outcome_descend_n(i, qa, key, eps, node, prob, infoset, base, ibase, reg, avg, ascale, do_avg, weight,
                                 pol, path, samp, qpre)
    val = utils[n, i]
    for j in range(depth - 1, -1, -1):
        n = path[j]
        if node[n, 0] != DECISION or node[n, 1] != i:
            continue  # chance and the others sample on-policy: the estimate passes up unchanged
        first = node[n, 4]
        A = node[n, 5]
        off = base[i] + node[n, 2]
        c = samp[j]
        s = eps / A + (1.0 - eps) * pol[c]
        vc = val / s
        ev = pol[c] * vc
        _touch_n(n, node, infoset, ibase, seen, touched, nt)
        w = 1.0 / qpre[j]
        for a in range(A):
            d[off + a] += w * ((vc if first + a == c else 0.0) - ev)
        val = ev
    return depth + 1


@njit(cache=True, nogil=True)
def apply_touched_n(node, infoset, base, ibase, reg, d, seen, touched, nt, floor, rw):
    """:func:`.sampled.apply_touched` over every player's concatenated values."""
    for j in range(nt[0]):
        n = touched[j]
        off = base[node[n, 1]] + node[n, 2]
        for a in range(node[n, 5]):
            reg[off + a] = rule_step(reg[off + a], rw * d[off + a], 1.0, 1.0, 1.0, floor)
            d[off + a] = 0.0
        seen[ibase[node[n, 1]] + infoset[n]] = 0
    nt[0] = 0


@njit(cache=True, nogil=True)
def sampled_block_n(mode, eps, seed, subgame, iters, masks, avgmasks, floors, weights, rweights, thresholds, pprob,
                    node, prob, utils, infoset, base, ibase, reg, avg, ascale, d, seen, touched, nt, v, r, g, pol,
                    chosen, stack, path, samp, qpre):
    """:func:`sampled_block` for three to six players over concatenated values: for each player
    i in masks[k], one traversal (adding to the average of player i - 1 when avgmasks[k] has
    it), then the touched regrets of masks[k]'s players."""
    P = utils.shape[1]
    count = 0
    for k in range(iters.shape[0]):
        t = iters[k]
        for i in range(P):
            if not (masks[k] >> i) & 1:
                continue
            key = stream(seed, t, i, subgame)
            qa = (i - 1) % P
            do_avg = (avgmasks[k] >> qa) & 1 == 1
            prune = thresholds[k] < 0.0 and uniform(key, node.shape[0]) < pprob
            if mode == MODE_OUTCOME:
                count += outcome_traverse_n(i, qa, key, eps, node, prob, utils, infoset, base, ibase, reg, d, seen,
                                            touched, nt, avg, ascale, do_avg, weights[k], pol, path, samp, qpre)
            else:
                count += explore_traverse_n(mode, i, qa, key, node, prob, utils, infoset, base, ibase, reg, d, seen,
                                            touched, nt, avg, ascale, do_avg, weights[k], v, r, g, pol, chosen, stack,
                                            prune, thresholds[k], 1.0 - pprob)
        apply_touched_n(node, infoset, base, ibase, reg, d, seen, touched, nt, floors[k], rweights[k])
    return count


@njit(cache=True, nogil=True)
def infoset_mass_n(node, prob, infoset, ibase):
    """:func:`infoset_mass` for every player's information sets concatenated (ibase): c(I) and n(I)."""
    N = node.shape[0]
    reach = np.empty(N)
    reach[0] = 1.0
    c = np.zeros(ibase[-1])
    h = np.zeros(ibase[-1])
    for n in range(N):
        k = node[n, 0]
        if k == TERMINAL:
            continue
        first = node[n, 4]
        for a in range(node[n, 5]):
            reach[first + a] = reach[n] * prob[first + a] if k == CHANCE else reach[n]
        if k == DECISION and reach[n] > 0.0:
            s = ibase[node[n, 1]] + infoset[n]
            c[s] += reach[n]
            h[s] += 1.0
    return c, h
