"""Numba kernels of the generic tree engine's sampled passes: chance, external and outcome
sampling (Monte-Carlo CFR, Lanctot et al. 2009) over a :class:`~solverkit.efg.build.FlatTree`.

A pass touches only the nodes it visits: node-indexed scratch (values, reach, the policy on
each edge, the sampled child) is written where a node is visited and read only there; regret
deltas are summed per visited information set in a zeroed buffer and folded into the stored
regrets with :func:`~solverkit.core.arith.rule_step` at the end of the pass, the touched entries
then zeroed again, so nothing is swept per iteration. Every draw is
``uniform(stream(seed, t, player, subgame), node)`` (:mod:`solverkit.core.rng`).

Averages (scaled so that a pass's expected contribution equals the full pass's, see
docs/samplers.md): ``chance`` adds w * pi_o(h) sigma / c(I) and ``external`` w * sigma / c(I)
at the opponent's visited histories (c(I): chance probability of reaching I), ``outcome`` adds
w * pi_o(h) sigma / (q(h) n(I)) (q(h): probability the pass visits h, n(I): histories of I).

External sampling prunes as Pluribus did (Brown and Sandholm 2019, supplement): in a traversal
drawn to prune (``uniform(key, num_nodes) < prune_probability``) an action of the updating player
whose stored regret is below the threshold is neither walked nor updated, unless its child is
terminal or no action of the set has positive regret (its policy is then uniform and skipping would
bias the set's value). A traversal that does not prune divides by 1 - prune_probability what it
adds below such an action (the other players' average increments, the updating player's regret
deltas) and the action's own regret delta, so that expected regrets and averages are the
unpruned ones (Pluribus kept its average in separate passes and left a skipped action's regret as
it was: measured on 3-player Leduc, that regret, held near the threshold while the unpruned one
keeps falling, brings hopeless actions back and costs NashConv; bench/results/blueprint_pruning.md). Iteration k's regret deltas are multiplied by ``rweights[k]`` before the
fold: Linear CFR's discount of all regrets by t/(t+1), applied lazily (docs/samplers.md).

The steps every traversal shares are in :mod:`.sampled_steps`, the traversals for three to six
players in :mod:`.sampled_n`; this module keeps the two-player ones.
"""

from __future__ import annotations

import numpy as np
from ..core.jit import njit

from ..core.arith import avg_step, rm_total, rule_step
from ..core.rng import pick, stream, uniform
from .sampled_n import (_touch_n, explore_traverse_n, infoset_mass_n,  # noqa: F401 (re-exported)
                        outcome_traverse_n, sampled_block_n)
from .sampled_steps import (CHANCE, DECISION, MODE_CHANCE, MODE_EXTERNAL,  # noqa: F401 (re-exported)
                            MODE_OUTCOME, MODES, TERMINAL, _policy, _skip, _touch)


@njit(cache=True, nogil=True)
def explore_traverse(mode, i, key, node, prob, util, infoset, src_i, src_o, d_i, seen_i, touched_i, nt_i,
                     avg_o, ascale_o, do_avg, weight, v, r, pol, chosen, stack, prune, thr, explore):
    """One chance- or external-sampled traversal for updating player i; returns nodes visited.

    Depth first with an explicit stack of (node << 1 | exiting). r[n] is the opponent's reach
    of the explored part (chance and, for external, the opponent are sampled, so their reach is
    the sampling probability and cancels); d_i takes sign * r * (v_a - v) at i's histories.
    prune: this traversal skips i's actions of regret below thr (see the module docstring). With
    external sampling r is 1 but for `explore` (1 - prune_probability) below the first action on
    the path a pruning traversal would skip (once: one draw decides whether a traversal prunes),
    by which the opponent's average increments and i's regret deltas there (and the skippable
    action's own) are divided."""
    sign = 1.0 if i == 0 else -1.0
    count = 0
    sp = 1
    stack[0] = 0
    r[0] = 1.0
    while sp > 0:
        sp -= 1
        e = stack[sp]
        n = e >> 1
        k = node[n, 0]
        if e & 1 == 0:  # entering n
            count += 1
            if k == TERMINAL:
                v[n] = util[n]
                continue
            first = node[n, 4]
            A = node[n, 5]
            if k == CHANCE:
                c = first + pick(uniform(key, n), prob, first, A)
                chosen[n] = c
                r[c] = r[n]
                stack[sp] = (n << 1) | 1
                stack[sp + 1] = c << 1
                sp += 2
                continue
            q = node[n, 1]
            off = node[n, 2]
            if q == i:
                _policy(src_i, off, first, A, pol)
            else:
                _policy(src_o, off, first, A, pol)
            if q != i and do_avg:
                s = ascale_o[infoset[n]]
                for a in range(A):
                    x = pol[first + a] * s / r[n] if mode == MODE_EXTERNAL else r[n] * pol[first + a] * s
                    avg_o[off + a] = avg_step(avg_o[off + a], weight, x, 1.0)
            stack[sp] = (n << 1) | 1
            sp += 1
            if q != i and mode == MODE_EXTERNAL:  # the opponent samples on-policy
                c = first + pick(uniform(key, n), pol, first, A)
                chosen[n] = c
                r[c] = r[n]
                stack[sp] = c << 1
                sp += 1
                continue
            prunes = thr < 0.0 and q == i and rm_total(src_i, off, A) > 0.0
            for a in range(A - 1, -1, -1):  # every action explored (but pruned ones)
                c = first + a
                skip = _skip(prunes, src_i, off, a, node, c, thr)
                if skip and prune:
                    v[c] = 0.0  # its policy is 0: no part of the set's value
                    continue
                # r is 1 above the path's first skippable action (only external sampling prunes, and its
                # sampled actions leave r at 1) and 1 / (1 - p) below it: the scaling applies once
                fresh = skip and r[n] == 1.0  # the path's first: walked by 1 - p of traversals, once
                r[c] = (r[n] * explore if fresh else r[n]) if q == i else r[n] * pol[c]
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
                _touch(n, node, infoset, seen_i, touched_i, nt_i)
                off = node[n, 2]
                cf = sign / r[n] if mode == MODE_EXTERNAL else sign * r[n]
                able = thr < 0.0 and rm_total(src_i, off, A) > 0.0
                for a in range(A):
                    if not _skip(able, src_i, off, a, node, first + a, thr):
                        d_i[off + a] += cf * (v[first + a] - ev)
                    elif not prune:  # walked by 1 - prune_probability of traversals: scaled up
                        d_i[off + a] += (cf / explore if r[n] == 1.0 else cf) * (v[first + a] - ev)
    return count


@njit(cache=True, nogil=True, inline="always")
def outcome_descend(i, key, eps, node, prob, infoset, src_i, src_o, avg_o, ascale_o, do_avg, weight, pol, path, samp,
                    qpre):
    """The walk down of an outcome-sampled traversal for updating player i: returns (depth,
    terminal node), path[j] / samp[j] the j-th history and its sampled child, qpre[j] i's
    sampling probability of the path before it, pol the policies of the decisions on the path.

    Chance and the opponent sample on-policy, i samples eps-uniform + (1 - eps)-policy; the
    opponent's average takes w * pi_o sigma / (q n(I)) = w * sigma / (pi_c q_i n(I))."""
    n = 0
    depth = 0
    pc = 1.0  # chance reach of the path
    qi = 1.0  # i's sampling probability of the path
    while node[n, 0] != TERMINAL:
        first = node[n, 4]
        A = node[n, 5]
        u = uniform(key, n)
        if node[n, 0] == CHANCE:
            a = pick(u, prob, first, A)
            s = prob[first + a]
            pc *= s
        else:
            q = node[n, 1]
            off = node[n, 2]
            if q == i:
                _policy(src_i, off, first, A, pol)
                # the exploring distribution goes into pol's slots after the policy is read
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
                _policy(src_o, off, first, A, pol)
                if do_avg:
                    f = ascale_o[infoset[n]] / (pc * qi)
                    for b in range(A):
                        avg_o[off + b] = avg_step(avg_o[off + b], weight, pol[first + b] * f, 1.0)
                a = pick(u, pol, first, A)
                s = pol[first + a]
        path[depth] = n
        samp[depth] = first + a
        depth += 1
        n = first + a
    return depth, n


@njit(cache=True, nogil=True)
def outcome_traverse(i, key, eps, node, prob, util, infoset, src_i, src_o, d_i, seen_i, touched_i, nt_i,
                     avg_o, ascale_o, do_avg, weight, pol, path, samp, qpre):
    """One outcome-sampled traversal for updating player i; returns nodes visited.

    Down: :func:`outcome_descend`. Up: the sampled child's value v over its sampling
    probability s estimates its value (the others' estimates are 0); at i's histories d_i
    takes sign * (v~_a - v~) / q_i(prefix). (:mod:`.sampled_vr` adds baselines.)"""
    sign = 1.0 if i == 0 else -1.0
    depth, n = outcome_descend(i, key, eps, node, prob, infoset, src_i, src_o, avg_o, ascale_o, do_avg, weight,
                               pol, path, samp, qpre)
    val = util[n]
    for j in range(depth - 1, -1, -1):
        n = path[j]
        if node[n, 0] != DECISION or node[n, 1] != i:
            continue  # chance and the opponent sample on-policy: the estimate passes up unchanged
        first = node[n, 4]
        A = node[n, 5]
        off = node[n, 2]
        c = samp[j]
        s = eps / A + (1.0 - eps) * pol[c]
        vc = val / s  # estimate of the sampled child's value; the others' are 0
        ev = pol[c] * vc
        _touch(n, node, infoset, seen_i, touched_i, nt_i)
        w = sign / qpre[j]
        for a in range(A):
            d_i[off + a] += w * ((vc if first + a == c else 0.0) - ev)
        val = ev
    return depth + 1


@njit(cache=True, nogil=True)
def apply_touched(node, infoset, reg, d, seen, touched, nt, floor, rw):
    """Fold the summed deltas of the touched information sets, times rw, into `reg` (rule_step
    with pre = pos = neg = 1 and `floor`), zeroing the deltas and marks they used."""
    for j in range(nt[0]):
        n = touched[j]
        off = node[n, 2]
        for a in range(node[n, 5]):
            reg[off + a] = rule_step(reg[off + a], rw * d[off + a], 1.0, 1.0, 1.0, floor)
            d[off + a] = 0.0
        seen[infoset[n]] = 0
    nt[0] = 0


@njit(cache=True, nogil=True)
def sampled_block(mode, eps, seed, subgame, iters, masks, avgmasks, floors, weights, rweights, thresholds, pprob,
                  node, prob, util, infoset, src0, src1, reg0, reg1, avg0, avg1, ascale0, ascale1, d0, d1, seen0,
                  seen1, touched0, touched1, nt, v, r, pol, chosen, stack, path, samp, qpre):
    """Passes k = 0, 1, ... of iterations iters[k]: for each player i in masks[k], one traversal
    (its average of 1 - i when avgmasks[k] has it), then the regrets of masks[k]'s players
    (rule floor floors[k]; averaging weight weights[k]; regret deltas times rweights[k]); an
    external traversal prunes below thresholds[k] (< 0) with probability pprob. Returns the
    nodes visited in all.
    The regrets are the policy sources (plain regret matching), so later passes see earlier
    passes' updates, as alternating updates do."""
    count = 0
    for k in range(iters.shape[0]):
        t = iters[k]
        for i in (0, 1):
            if not (masks[k] >> i) & 1:
                continue
            key = stream(seed, t, i, subgame)
            o = 1 - i
            do_avg = (avgmasks[k] >> o) & 1 == 1
            prune = thresholds[k] < 0.0 and uniform(key, node.shape[0]) < pprob
            # (the player as the loop's typed i, not a literal: a literal compiles a traversal per player)
            if i == 0:
                if mode == MODE_OUTCOME:
                    count += outcome_traverse(i, key, eps, node, prob, util, infoset, src0, src1, d0, seen0, touched0,
                                              nt[0:1], avg1, ascale1, do_avg, weights[k], pol, path, samp, qpre)
                else:
                    count += explore_traverse(mode, i, key, node, prob, util, infoset, src0, src1, d0, seen0, touched0,
                                              nt[0:1], avg1, ascale1, do_avg, weights[k], v, r, pol, chosen, stack,
                                              prune, thresholds[k], 1.0 - pprob)
            else:
                if mode == MODE_OUTCOME:
                    count += outcome_traverse(i, key, eps, node, prob, util, infoset, src1, src0, d1, seen1, touched1,
                                              nt[1:2], avg0, ascale0, do_avg, weights[k], pol, path, samp, qpre)
                else:
                    count += explore_traverse(mode, i, key, node, prob, util, infoset, src1, src0, d1, seen1, touched1,
                                              nt[1:2], avg0, ascale0, do_avg, weights[k], v, r, pol, chosen, stack,
                                              prune, thresholds[k], 1.0 - pprob)
        if masks[k] & 1:
            apply_touched(node, infoset, reg0, d0, seen0, touched0, nt[0:1], floors[k], rweights[k])
        if masks[k] & 2:
            apply_touched(node, infoset, reg1, d1, seen1, touched1, nt[1:2], floors[k], rweights[k])
    return count


@njit(cache=True, nogil=True)
def infoset_mass(node, prob, infoset, n0, n1):
    """Per player and information set: c(I), the chance probability summed over I's histories,
    and n(I), the number of I's histories that chance reaches (> 0)."""
    N = node.shape[0]
    reach = np.empty(N)
    reach[0] = 1.0
    c = (np.zeros(n0), np.zeros(n1))
    h = (np.zeros(n0), np.zeros(n1))
    for n in range(N):
        k = node[n, 0]
        if k == TERMINAL:
            continue
        first = node[n, 4]
        for a in range(node[n, 5]):
            reach[first + a] = reach[n] * prob[first + a] if k == CHANCE else reach[n]
        if k == DECISION and reach[n] > 0.0:
            s = infoset[n]
            if node[n, 1] == 0:
                c[0][s] += reach[n]
                h[0][s] += 1.0
            else:
                c[1][s] += reach[n]
                h[1][s] += 1.0
    return c[0], c[1], h[0], h[1]
