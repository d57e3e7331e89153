"""Numba kernels of the generic tree engine for games of three to six players.

Two-player games keep :mod:`.kernels` (player 0's utility, a zero-sum fast path); these kernels
take every player's utility at a terminal (``utils[n, p]``) and every player's values in one
concatenated array: player p's information-set values sit at ``base[p] .. base[p + 1]`` and a
decision node's offset (``node[n, 2]``) is within its player's part, so one compiled kernel
serves every number of players. A CFR pass writes instantaneous regrets (``d``) and average
contributions (``ac``); the caller folds them into the store with the rule and the averaging
(:func:`fold`), so stateful rules and custom averaging work unchanged. All CFR arithmetic is
:mod:`solverkit.core.arith`'s.

The full passes of the solvers (alternating and simultaneous, one pass or a block of them) run
over a compact node table with the same arithmetic: :mod:`.npasses`; :func:`cfr_pass_n` and :func:`cfr_pass_one` are
their reference (tests), and :func:`cfr_part_n` the pass of a split tree's parts.

Counterfactual value of player p at a history: p's utility weighted by the product of every
other player's reach and chance's (Zinkevich et al. 2007, for N players).
"""

from __future__ import annotations

from ..core.jit import njit

from ..core.arith import avg_step, rule_step

DECISION, CHANCE, TERMINAL = 0, 1, 2
CUT = 3  # a trunk node whose values come from a subgame (:mod:`.split`); FIRST column: the cut's index


@njit(cache=True, nogil=True)
def cfr_pass_n(node, prob, utils, base, sig, upd_mask, avg_mask, reach, v, d, ac):
    """One CFR pass of the profile `sig` (every player's policy, concatenated).

    For each player p in upd_mask, d[base[p]:base[p+1]] becomes p's instantaneous
    counterfactual regrets (summed over the histories of each information set); for each q in
    avg_mask, ac[base[q]:base[q+1]] becomes q's policy times q's own reach at the information
    set (its representative history). reach is [N, players + 1] (the last column: chance),
    v [N, players] (only the updated players' columns are computed)."""
    for j in range(reach.shape[1]):
        reach[0, j] = 1.0
    _reach_down(node, prob, base, sig, avg_mask, reach, ac)
    _values_up(node, prob, utils, base, sig, upd_mask, utils, reach, v, d)  # (no CUT node reads cut_vals)


@njit(cache=True, nogil=True)
def _reach_down(node, prob, base, sig, avg_mask, reach, ac):
    """The forward sweep of :func:`cfr_pass_n` and :func:`cfr_part_n`, top-down from the rows of
    reach already set: every player's reach and chance's, and avg_mask's average contributions;
    a terminal or a CUT node ends it."""
    P = reach.shape[1] - 1
    for n in range(node.shape[0]):
        k = node[n, 0]
        if k == TERMINAL or k == CUT:
            continue
        first = node[n, 4]
        A = node[n, 5]
        if k == CHANCE:
            for a in range(A):
                c = first + a
                for j in range(P):
                    reach[c, j] = reach[n, j]
                reach[c, P] = reach[n, P] * prob[c]
            continue
        q = node[n, 1]
        off = base[q] + node[n, 2]
        rq = reach[n, q]
        for a in range(A):
            c = first + a
            for j in range(P + 1):
                reach[c, j] = reach[n, j]
            reach[c, q] = rq * sig[off + a]
        if node[n, 3] and (avg_mask >> q) & 1:
            for a in range(A):
                ac[off + a] = sig[off + a] * rq


@njit(cache=True, nogil=True)
def _values_up(node, prob, utils, base, sig, upd_mask, cut_vals, reach, v, d):
    """The backward sweep of :func:`cfr_pass_n` and :func:`cfr_part_n`, bottom-up: upd_mask's
    values (a CUT node's from cut_vals[node[n, 4]]) and their instantaneous regrets in d."""
    P = utils.shape[1]
    for p in range(P):
        if (upd_mask >> p) & 1:
            d[base[p]:base[p + 1]] = 0.0
    for n in range(node.shape[0] - 1, -1, -1):
        k = node[n, 0]
        if k == TERMINAL:
            for p in range(P):
                if (upd_mask >> p) & 1:
                    v[n, p] = utils[n, p]
            continue
        if k == CUT:
            for p in range(P):
                if (upd_mask >> p) & 1:
                    v[n, p] = cut_vals[node[n, 4], p]
            continue
        first = node[n, 4]
        A = node[n, 5]
        if k == CHANCE:
            for p in range(P):
                if (upd_mask >> p) & 1:
                    x = 0.0
                    for a in range(A):
                        x += prob[first + a] * v[first + a, p]
                    v[n, p] = x
            continue
        q = node[n, 1]
        off = base[q] + node[n, 2]
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


@njit(cache=True, nogil=True)
def cfr_pass_one(node, prob, utils, base, sig, i, qa, do_avg, x, y, v, d, ac):
    """:func:`cfr_pass_n` updating player i alone (alternating updates), adding to player qa's
    average when do_avg: two reaches per node instead of every player's (x: every other
    player's and chance's, the counterfactual reach of i; y: qa's own) and i's value only."""
    N = node.shape[0]
    x[0] = 1.0
    y[0] = 1.0
    for n in range(N):
        k = node[n, 0]
        if k == TERMINAL:
            continue
        first = node[n, 4]
        A = node[n, 5]
        if k == CHANCE:
            for a in range(A):
                c = first + a
                x[c] = x[n] * prob[c]
                y[c] = y[n]
            continue
        q = node[n, 1]
        off = base[q] + node[n, 2]
        if q == i:
            for a in range(A):
                x[first + a] = x[n]
                y[first + a] = y[n]
            continue
        for a in range(A):
            x[first + a] = x[n] * sig[off + a]
        if q == qa:
            for a in range(A):
                y[first + a] = y[n] * sig[off + a]
            if do_avg and node[n, 3]:
                for a in range(A):
                    ac[off + a] = sig[off + a] * y[n]
        else:
            for a in range(A):
                y[first + a] = y[n]
    d[base[i]:base[i + 1]] = 0.0
    for n in range(N - 1, -1, -1):
        k = node[n, 0]
        if x[n] == 0.0:  # the others never get here: the value is weighted 0 above, the regrets by x = 0
            v[n] = 0.0
            continue
        if k == TERMINAL:
            v[n] = utils[n, i]
            continue
        first = node[n, 4]
        A = node[n, 5]
        ev = 0.0
        if k == CHANCE:
            for a in range(A):
                ev += prob[first + a] * v[first + a]
            v[n] = ev
            continue
        q = node[n, 1]
        off = base[q] + node[n, 2]
        for a in range(A):
            ev += sig[off + a] * v[first + a]
        v[n] = ev
        if q == i:
            cf = x[n]
            if cf != 0.0:
                for a in range(A):
                    d[off + a] += cf * (v[first + a] - ev)


@njit(cache=True, nogil=True)
def fold(base, p, values, delta, pre, pos, neg, floor):
    """values[i] = rule_step(values[i], delta[base[p] + i], ...): a rule of the discounted family
    applied to player p's regrets."""
    b = base[p]
    for i in range(values.shape[0]):
        values[i] = rule_step(values[i], delta[b + i], pre, pos, neg, floor)


@njit(cache=True, nogil=True)
def fold_average(base, q, total, contrib, decay, weight):
    """total[i] = avg_step(total[i], weight, contrib[base[q] + i], decay): player q's average."""
    b = base[q]
    for i in range(total.shape[0]):
        total[i] = avg_step(total[i], weight, contrib[b + i], decay)


@njit(cache=True, nogil=True)
def best_response_n(node, prob, utils, order, bounds, p, base, sig, q_buf, w, v):
    """Value for player p of a best response to the others' policies `sig` (concatenated).

    As the two-player :func:`.kernels.best_response`: w is the others' and chance's reach (p's
    own actions count 1), p picks per information set the action maximising the sum over its
    histories of w x value; `order`/`bounds` visit p's levels deepest first."""
    N = node.shape[0]
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
            off = base[node[n, 1]] + node[n, 2]
            for a in range(A):
                w[first + a] = w[n] * sig[off + a]
    q_buf[:] = 0.0
    for b in range(bounds.shape[0]):
        s0 = bounds[b, 0]
        s1 = bounds[b, 1]
        s2 = bounds[b, 2]
        # p's information sets of this level: reach-weighted action values ...
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
                v[n] = utils[n, p]
                continue
            first = node[n, 4]
            A = node[n, 5]
            x = 0.0
            if k == CHANCE:
                for a in range(A):
                    x += prob[first + a] * v[first + a]
            else:
                off = base[node[n, 1]] + node[n, 2]
                for a in range(A):
                    x += sig[off + a] * v[first + a]
            v[n] = x
    return v[0]


@njit(cache=True, nogil=True)
def expected_values_n(node, prob, utils, base, sig, v, out):
    """out[p] = player p's expected utility when everyone plays `sig` (v: [N, players] scratch)."""
    N = node.shape[0]
    P = utils.shape[1]
    for n in range(N - 1, -1, -1):
        k = node[n, 0]
        if k == TERMINAL:
            for p in range(P):
                v[n, p] = utils[n, p]
            continue
        first = node[n, 4]
        A = node[n, 5]
        for p in range(P):
            v[n, p] = 0.0
        if k == CHANCE:
            for a in range(A):
                x = prob[first + a]
                for p in range(P):
                    v[n, p] += x * v[first + a, p]
        else:
            off = base[node[n, 1]] + node[n, 2]
            for a in range(A):
                x = sig[off + a]
                for p in range(P):
                    v[n, p] += x * v[first + a, p]
    for p in range(P):
        out[p] = v[0, p]


@njit(cache=True, nogil=True)
def cfr_part_n(node, prob, utils, base, sig, upd_mask, avg_mask, roots, root_reach, cut_vals, forward, backward,
               reach, v, d, ac):
    """:func:`cfr_pass_n` over one part of a split tree (:mod:`.split`), the same arithmetic node
    for node: the roots' reach rows come from `root_reach` ([roots, players + 1]); a CUT node
    stops the forward sweep and takes its values from cut_vals[node[n, 4]]. `forward` and
    `backward` choose the sweeps (the trunk runs them apart, its subgames in between)."""
    if forward:
        for r in range(roots.shape[0]):
            for j in range(reach.shape[1]):
                reach[roots[r], j] = root_reach[r, j]
        _reach_down(node, prob, base, sig, avg_mask, reach, ac)
    if backward:
        _values_up(node, prob, utils, base, sig, upd_mask, cut_vals, reach, v, d)
