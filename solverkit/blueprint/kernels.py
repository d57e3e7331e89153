"""The blueprint's one kernel: blocks of external-sampling MCCFR iterations over a betting tree
with a sampled deal and card buckets (imperfect recall: an information set is a betting node and
the acting player's bucket on that node's round).

Player p's regrets at decision node n live at ``reg[off[n] + b * A + a]`` (b: p's bucket on n's
round, A = nact[n]); averages, kept for nodes of the first ``average_rounds`` rounds only
(Pluribus: the first round's average, the current strategy later), at ``avg[aoff[n] + b * A + a]``.
Draws: the deal's card j is ``uniform(key, N + j)``, the action sampled at node n
``uniform(key, n)``, whether the traversal prunes ``uniform(key, N + deck)``; key =
``stream(seed, t, i, 0)`` (:mod:`solverkit.core.rng`), so a seed reproduces bit for bit.
A traversal updates its player's regrets as it leaves each node (a betting node is entered once
per traversal, and its descendants are other information sets); pruning as the tree engine's
(:mod:`solverkit.efg.sampled`) but never on the last round, as Pluribus.
"""

from __future__ import annotations

import numpy as np
from ..core.jit import njit

from ..abstraction.indexer import canonical_index
from ..core.arith import rm_prob, rm_total
from ..core.rng import pick, stream, uniform
from ..poker.evaluator import acpc_strengths

TERMINAL = 2
INT32_MIN, INT32_MAX = -2147483648.0, 2147483647.0


@njit(cache=True, nogil=True)
def _deal(key, N, deck, P, k, nb, num_suits, hole, board, strength):
    """Partial Fisher-Yates of the deck from the stream: hole cards per player, then the board;
    strength: each player's ACPC rank with the whole board."""
    D = deck.shape[0]
    for j in range(D):
        deck[j] = j
    for j in range(P * k + nb):
        s = j + int(uniform(key, N + j) * (D - j))
        x = deck[j]
        deck[j] = deck[s]
        deck[s] = x
    for p in range(P):
        for h in range(k):
            hole[p, h] = deck[p * k + h]
    for j in range(nb):
        board[j] = deck[P * k + j]
    acpc_strengths(hole, board, num_suits, strength)


@njit(cache=True, nogil=True)
def _buckets(arrays, assign, aoff, cards_in, hole, board, row, bucket):
    """bucket[p, r]: the bucket of player p's hole cards and the board of round r."""
    P, k = hole.shape
    R = bucket.shape[1]
    for p in range(P):
        for h in range(k):
            row[h] = hole[p, h]
        for r in range(R):
            n = cards_in[r]
            for j in range(k, n):
                row[j] = board[j - k]
            bucket[p, r] = assign[aoff[r] + canonical_index(arrays, r, row[:n])]


@njit(cache=True, nogil=True)
def _payoff(n, i, spent, alive, strength):
    """Player i's winnings at terminal n: the pot split among the best hands still in."""
    P = spent.shape[1]
    pot = 0.0
    left = 0
    best = -(1 << 62)
    for p in range(P):
        pot += spent[n, p]
        if alive[n, p]:
            left += 1
            if strength[p] > best:
                best = strength[p]
    if not alive[n, i]:
        return -spent[n, i]
    if left == 1:
        return pot - spent[n, i]
    if strength[i] < best:
        return -spent[n, i]
    ties = 0
    for p in range(P):
        if alive[n, p] and strength[p] == best:
            ties += 1
    return pot / ties - spent[n, i]


@njit(cache=True, nogil=True, inline="always")
def _fixed_add(reg, i, d, floor, stats, t):
    """int32 regrets: reg[i] + d (stored units) rounded to the nearest, at least `floor`,
    clipped to the int32 range (counted in stats)."""
    x = np.floor(reg[i] + d + 0.5)
    if x > INT32_MAX or x < INT32_MIN:
        stats[0] += 1
        if stats[1] == 0:
            stats[1] = t
        x = INT32_MAX if x > INT32_MAX else INT32_MIN
    reg[i] = max(x, floor)


@njit(cache=True, nogil=True)
def _discount(reg, lo, hi, factor):
    """int32 regrets: reg[lo:hi] times `factor` (< 1), rounded to the nearest (Linear CFR's
    explicit discount; magnitudes only shrink: nothing clips)."""
    for x in range(lo, hi):
        reg[x] = np.floor(reg[x] * factor + 0.5)


@njit(cache=True, nogil=True)
def blueprint_block(seed, iters, masks, lead, rweights, thresholds, pprob, weights, disc, base, scale, floor, stats,
                    kind, player, rnd, first, nact, spent, alive, off, aoff, reg, avg, arrays, assign, assign_off,
                    cards_in, num_suits, k, nb, deck, hole, board, strength, row, bucket, v, pol, g, r, chosen, stack):
    """Iterations iters[j]: for each player i in the bit mask masks[j], in order lead, lead + 1, ..., one
    external-sampling traversal of a sampled deal
    (regret deltas times rweights[j] / r; pruning below thresholds[j] < 0 with probability pprob;
    the average of player i - 1 takes weights[j] * sigma / g where kept; below an action a pruning
    traversal would skip, a traversal that does not prune divides both by 1 - pprob, once however many
    such actions are above: r and g take that factor, so expected regrets and averages are the
    unpruned ones). Returns nodes visited.
    `scale` 0: float64 regrets, floored at `floor` x rweights[j] where `floor` < 0 (the discounted
    regret's floor in chips, [sampler] regret_floor; 0: none). `scale` > 0: int32 regrets (solverkit.blueprint.int32) in units of
    1 / scale chip: each update rounded, floored at `floor`, clipped to the int32 range (stats[0]
    counts clips, stats[1] the first iteration clipped), and before player i's traversal of
    iteration iters[j] its values reg[base[i]:base[i + 1]] times disc[j] where that is not 1."""
    P = spent.shape[1]
    N = kind.shape[0]
    last = bucket.shape[1] - 1
    explore = 1.0 - pprob
    count = 0
    for j in range(iters.shape[0]):
        t = iters[j]
        for turn in range(P):
            i = (lead + turn) % P
            if not (masks[j] >> i) & 1:
                continue
            if scale != 0.0 and disc[j] != 1.0:
                _discount(reg, base[i], base[i + 1], disc[j])
            key = stream(seed, t, i, 0)
            _deal(key, N, deck, P, k, nb, num_suits, hole, board, strength)
            _buckets(arrays, assign, assign_off, cards_in, hole, board, row, bucket)
            thr = thresholds[j]
            prune = thr < 0.0 and uniform(key, N + deck.shape[0]) < pprob
            qa = (i - 1) % P
            w = weights[j]
            sp = 1
            stack[0] = 0
            g[0] = 1.0
            r[0] = 1.0
            while sp > 0:
                sp -= 1
                e = stack[sp]
                n = e >> 1
                if e & 1 == 0:  # entering n
                    count += 1
                    if kind[n] == TERMINAL:
                        v[n] = _payoff(n, i, spent, alive, strength)
                        continue
                    q = player[n]
                    A = nact[n]
                    f = first[n]
                    b = bucket[q, rnd[n]]
                    o = off[n] + b * A
                    total = rm_total(reg, o, A)
                    for a in range(A):
                        pol[f + a] = rm_prob(reg[o + a], total, A)
                    if q == qa and w != 0.0 and aoff[n] >= 0:
                        ao = aoff[n] + b * A
                        for a in range(A):
                            avg[ao + a] += w * pol[f + a] / g[n]
                    stack[sp] = (n << 1) | 1
                    sp += 1
                    if q != i:  # the others sample on-policy
                        c = f + pick(uniform(key, n), pol, f, A)
                        chosen[n] = c
                        g[c] = g[n] if q == qa else g[n] * pol[c]
                        r[c] = r[n]
                        stack[sp] = c << 1
                        sp += 1
                        continue
                    prunes = thr < 0.0 and rnd[n] != last and total > 0.0
                    for a in range(A - 1, -1, -1):
                        c = f + a
                        skip = prunes and reg[o + a] < thr and kind[c] != TERMINAL
                        if skip and prune:
                            v[c] = 0.0  # policy 0: no part of the value
                            continue
                        # r is 1 above the path's first skippable action (sampled actions leave it at 1),
                        # 1 / (1 - pprob) below it: the scaling applies once
                        fresh = skip and r[n] == 1.0  # the path's first: walked by 1 - pprob of traversals, once
                        g[c] = g[n] * explore if fresh else g[n]
                        r[c] = r[n] * explore if fresh else r[n]
                        stack[sp] = c << 1
                        sp += 1
                else:  # leaving n
                    q = player[n]
                    if q != i:
                        v[n] = v[chosen[n]]
                        continue
                    A = nact[n]
                    f = first[n]
                    o = off[n] + bucket[q, rnd[n]] * A
                    ev = 0.0
                    for a in range(A):
                        ev += pol[f + a] * v[f + a]
                    v[n] = ev
                    able = thr < 0.0 and rnd[n] != last and rm_total(reg, o, A) > 0.0
                    skips = 0
                    for a in range(A):  # which are skippable, read before any is updated
                        if able and reg[o + a] < thr and kind[f + a] != TERMINAL:
                            skips |= 1 << a
                    rw = rweights[j] / r[n]
                    fl = floor * rweights[j] if floor < 0.0 else -np.inf  # float64's floor, stored units
                    for a in range(A):
                        if not (skips >> a) & 1:
                            if scale != 0.0:
                                _fixed_add(reg, o + a, scale * (rw * (v[f + a] - ev)), floor, stats, t)
                            else:
                                x = reg[o + a] + rw * (v[f + a] - ev)
                                reg[o + a] = x if x > fl else fl
                        elif not prune:  # walked by 1 - pprob of traversals: scaled up
                            if scale != 0.0:
                                _fixed_add(reg, o + a, scale * ((rw / explore if r[n] == 1.0 else rw) * (v[f + a] - ev)),
                                           floor, stats, t)
                            else:
                                x = reg[o + a] + (rw / explore if r[n] == 1.0 else rw) * (v[f + a] - ev)
                                reg[o + a] = x if x > fl else fl
    return count


@njit(cache=True, nogil=True)
def current_policy(reg, off, nact, kind, buckets_of, rnd, out):
    """Regret matching of every information set (node, bucket) into `out` (same layout as reg)."""
    for n in range(kind.shape[0]):
        if kind[n] == TERMINAL:
            continue
        A = nact[n]
        for b in range(buckets_of[rnd[n]]):
            o = off[n] + b * A
            total = rm_total(reg, o, A)
            for a in range(A):
                out[o + a] = rm_prob(reg[o + a], total, A)
