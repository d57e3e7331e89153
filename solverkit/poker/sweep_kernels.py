"""Decision-node sweeps of the public-tree pass: at a player's node, its policy by regret matching
over each hand's block of values, reach vectors down to the children (and the average's update),
values up from the children (and the rule's regret update); unrolled for 2-4 actions, general
beyond, with locked hands and sampled actions where a walk asks for them."""

from __future__ import annotations

import numpy as np
from ..core.jit import njit

from ..core.arith import avg_step, rm2, rm3, rm4, rm_prob, rm_total, rule_step
from ..core.rng import mix64, uniform

_HAND_MIX = np.uint64(0x9E3779B97F4A7C15)

@njit(cache=True, nogil=True, inline="always")
def _hand_key(code, n):
    """The draws of betting node n on the board of `code`: node keys (this + hand) that no
    other (node, board) uses and that name the board by its cards, not its index."""
    return mix64(np.uint64(code) ^ mix64(np.uint64(n) * _HAND_MIX + np.uint64(1)))


@njit(cache=True, nogil=True, inline="always")
def _unreached(n, q, h, A, base, children, avg, do_avg, decay, reach):
    """Hand h does not reach player q's node n: none of its children, and its average only decays."""
    for a in range(A):
        reach[children[n, a], q, h] = 0.0
    if do_avg and decay != 1.0:
        for a in range(A):
            avg[base + a] = avg[base + a] * decay


@njit(cache=True, nogil=True, inline="always")
def _reach_sample(n, q, A, H, off, children, src, avg, do_avg, decay, weight, reach, live, key, hk):
    """At player q's node n in a public_external walk where q samples: each of its H hands takes
    one action drawn from its policy (regret matching of src) by uniform(key, hk + h); that child
    gets the hand's reach, the others 0. The average takes weight x reach x policy, as the full
    walk does (its expectation under q's own sampling is the full contribution)."""
    for h in range(H):
        rq = reach[n, q, h]
        base = off + h * A
        if rq == 0.0:
            _unreached(n, q, h, A, base, children, avg, do_avg, decay, reach)
            continue
        total = rm_total(src, base, A)
        u = uniform(key, hk + np.uint64(h))
        cum = 0.0
        chosen = -1
        last = 0
        for a in range(A):
            s = rm_prob(src[base + a], total, A)
            if s > 0.0:
                cum += s
                last = a
                if chosen < 0 and u < cum:
                    chosen = a
            if do_avg:
                avg[base + a] = avg_step(avg[base + a], weight, s * rq, decay)
        if chosen < 0:
            chosen = last
        for a in range(A):
            reach[children[n, a], q, h] = rq if a == chosen else 0.0
        live[children[n, chosen]] = 1


@njit(cache=True, nogil=True)
def _reach_down_locked(n, q, A, H, off, children, src, lock, lb, avg, do_avg, decay, weight, reach, live):
    """_reach_down at a node with locked hands: a locked hand plays lock's policy (its block from
    lb on; a hand is locked where lock[its first value] is not NaN), the others regret matching of src."""
    for h in range(H):
        rq = reach[n, q, h]
        base = off + h * A
        lh = lb + h * A
        if rq == 0.0:
            _unreached(n, q, h, A, base, children, avg, do_avg, decay, reach)
            continue
        locked = lock[lh] == lock[lh]
        total = 0.0 if locked else rm_total(src, base, A)
        for a in range(A):
            x = (lock[lh + a] if locked else rm_prob(src[base + a], total, A)) * rq
            c = children[n, a]
            reach[c, q, h] = x
            if x != 0.0:
                live[c] = 1
            if do_avg:
                avg[base + a] = avg_step(avg[base + a], weight, x, decay)


@njit(cache=True, nogil=True)
def _own_values_locked(n, p, A, H, off, children, src, lock, lb, reg, update, pre, pos, neg, floor, cfv, best):
    """_own_values at a node with locked hands: a locked hand's value follows lock's policy (its
    block from lb on) and its regrets are left alone; a free hand's is regret matching's (or, with
    `best`, its best action's: a best response moves only where the strategy is free)."""
    for h in range(H):
        base = off + h * A
        lh = lb + h * A
        if lock[lh] == lock[lh]:
            v = 0.0
            for a in range(A):
                v += lock[lh + a] * cfv[children[n, a], p, h]
            cfv[n, p, h] = v
            continue
        if best:
            v = cfv[children[n, 0], p, h]
            for a in range(1, A):
                x = cfv[children[n, a], p, h]
                if x > v:
                    v = x
            cfv[n, p, h] = v
            continue
        total = rm_total(src, base, A)
        v = 0.0
        for a in range(A):
            v += rm_prob(src[base + a], total, A) * cfv[children[n, a], p, h]
        cfv[n, p, h] = v
        if update:
            for a in range(A):
                reg[base + a] = rule_step(reg[base + a], cfv[children[n, a], p, h] - v, pre, pos, neg, floor)


@njit(cache=True, nogil=True, inline="always")
def _reach_down(n, q, A, H, off, children, src, avg, do_avg, decay, weight, reach, live):
    """At player q's node n: children's reach = reach x policy (regret matching of src, only
    where the reach is nonzero), average += weight x reach x policy (after decay)."""
    for h in range(H):
        rq = reach[n, q, h]
        base = off + h * A
        if rq == 0.0:
            _unreached(n, q, h, A, base, children, avg, do_avg, decay, reach)
            continue
        total = rm_total(src, base, A)
        for a in range(A):
            x = rm_prob(src[base + a], total, A) * rq
            c = children[n, a]
            reach[c, q, h] = x
            if x != 0.0:
                live[c] = 1
            if do_avg:
                avg[base + a] = avg_step(avg[base + a], weight, x, decay)


# The unrolled sweeps below read a node's block through a 1-D view (src[off : off + A * H]): its
# indices A * h + a are then provably non-negative, so numba's negative-index wraparound folds away
# and LLVM vectorises the loop over hands (regret matching's divisions 4 hands at a time). Indexing
# the whole flat array at off + A * h + a kept every loop scalar (measured 3x slower). The average's
# update is its own loop after the reach sweep (same values, same rounding; inside the reach loop
# it stopped LLVM vectorising it: 2.2x slower), one loop over hands writing each hand's whole block
# of A values, not a loop per action writing every A-th value (issue 25: forward sweeps 0.86-0.92x,
# backward 0.85-0.89x on the preset). The regret update likewise.


@njit(cache=True, nogil=True, inline="always")
def _reach_down2(n, q, H, off, c0, c1, src, avg, do_avg, decay, weight, reach, live):
    """_reach_down for two actions, unrolled (same arithmetic, same rounding)."""
    s = src[off: off + 2 * H]
    nz0 = False
    nz1 = False
    for h in range(H):
        rq = reach[n, q, h]
        s0, s1 = rm2(s[2 * h], s[2 * h + 1])
        r0 = s0 * rq
        r1 = s1 * rq
        reach[c0, q, h] = r0
        reach[c1, q, h] = r1
        nz0 |= r0 != 0.0
        nz1 |= r1 != 0.0
    if do_avg:
        # (policy x reach) x weight: the original CFR+ code's order of rounding
        a = avg[off: off + 2 * H]
        if decay == 1.0:
            for h in range(H):
                a[2 * h] = a[2 * h] + weight * reach[c0, q, h]
                a[2 * h + 1] = a[2 * h + 1] + weight * reach[c1, q, h]
        else:
            for h in range(H):
                a[2 * h] = a[2 * h] * decay + weight * reach[c0, q, h]
                a[2 * h + 1] = a[2 * h + 1] * decay + weight * reach[c1, q, h]
    if nz0:
        live[c0] = 1
    if nz1:
        live[c1] = 1


@njit(cache=True, nogil=True, inline="always")
def _reach_down3(n, q, H, off, c0, c1, c2, src, avg, do_avg, decay, weight, reach, live):
    """_reach_down for three actions, unrolled (same arithmetic, same rounding: rm3's sum and
    quotients are rm_total's and rm_prob's; an unreached hand's children get 0 x policy = 0 and
    its average decay x avg + 0)."""
    s = src[off: off + 3 * H]
    nz0 = False
    nz1 = False
    nz2 = False
    for h in range(H):
        rq = reach[n, q, h]
        s0, s1, s2 = rm3(s[3 * h], s[3 * h + 1], s[3 * h + 2])
        r0 = s0 * rq
        r1 = s1 * rq
        r2 = s2 * rq
        reach[c0, q, h] = r0
        reach[c1, q, h] = r1
        reach[c2, q, h] = r2
        nz0 |= r0 != 0.0
        nz1 |= r1 != 0.0
        nz2 |= r2 != 0.0
    if do_avg:
        a = avg[off: off + 3 * H]
        if decay == 1.0:
            for h in range(H):
                a[3 * h] = a[3 * h] + weight * reach[c0, q, h]
                a[3 * h + 1] = a[3 * h + 1] + weight * reach[c1, q, h]
                a[3 * h + 2] = a[3 * h + 2] + weight * reach[c2, q, h]
        else:
            for h in range(H):
                a[3 * h] = a[3 * h] * decay + weight * reach[c0, q, h]
                a[3 * h + 1] = a[3 * h + 1] * decay + weight * reach[c1, q, h]
                a[3 * h + 2] = a[3 * h + 2] * decay + weight * reach[c2, q, h]
    if nz0:
        live[c0] = 1
    if nz1:
        live[c1] = 1
    if nz2:
        live[c2] = 1


@njit(cache=True, nogil=True, inline="always")
def _reach_down4(n, q, H, off, c0, c1, c2, c3, src, avg, do_avg, decay, weight, reach, live):
    """_reach_down for four actions, unrolled (as _reach_down3)."""
    s = src[off: off + 4 * H]
    nz0 = False
    nz1 = False
    nz2 = False
    nz3 = False
    for h in range(H):
        rq = reach[n, q, h]
        s0, s1, s2, s3 = rm4(s[4 * h], s[4 * h + 1], s[4 * h + 2], s[4 * h + 3])
        r0 = s0 * rq
        r1 = s1 * rq
        r2 = s2 * rq
        r3 = s3 * rq
        reach[c0, q, h] = r0
        reach[c1, q, h] = r1
        reach[c2, q, h] = r2
        reach[c3, q, h] = r3
        nz0 |= r0 != 0.0
        nz1 |= r1 != 0.0
        nz2 |= r2 != 0.0
        nz3 |= r3 != 0.0
    if do_avg:
        a = avg[off: off + 4 * H]
        if decay == 1.0:
            for h in range(H):
                a[4 * h] = a[4 * h] + weight * reach[c0, q, h]
                a[4 * h + 1] = a[4 * h + 1] + weight * reach[c1, q, h]
                a[4 * h + 2] = a[4 * h + 2] + weight * reach[c2, q, h]
                a[4 * h + 3] = a[4 * h + 3] + weight * reach[c3, q, h]
        else:
            for h in range(H):
                a[4 * h] = a[4 * h] * decay + weight * reach[c0, q, h]
                a[4 * h + 1] = a[4 * h + 1] * decay + weight * reach[c1, q, h]
                a[4 * h + 2] = a[4 * h + 2] * decay + weight * reach[c2, q, h]
                a[4 * h + 3] = a[4 * h + 3] * decay + weight * reach[c3, q, h]
    if nz0:
        live[c0] = 1
    if nz1:
        live[c1] = 1
    if nz2:
        live[c2] = 1
    if nz3:
        live[c3] = 1


@njit(cache=True, nogil=True)
def _reach_down_any(n, q, A, H, off, children, src, avg, do_avg, decay, weight, reach, live):
    """Player q's reach sweep at node n by its number of actions: the unrolled sweeps for 2-4, the
    general one beyond (one call per node, so each sweep is inlined once here: compile time)."""
    if A == 2:
        _reach_down2(n, q, H, off, children[n, 0], children[n, 1], src, avg, do_avg, decay, weight, reach, live)
    elif A == 3:
        _reach_down3(n, q, H, off, children[n, 0], children[n, 1], children[n, 2], src, avg, do_avg, decay, weight,
                     reach, live)
    elif A == 4:
        _reach_down4(n, q, H, off, children[n, 0], children[n, 1], children[n, 2], children[n, 3], src, avg, do_avg,
                     decay, weight, reach, live)
    else:
        _reach_down(n, q, A, H, off, children, src, avg, do_avg, decay, weight, reach, live)


@njit(cache=True, nogil=True)
def _reach_down_block(n, q, A, H, children, S, Av, do_avg, decay, weight, reach, live, samp_player, key, code):
    """A compact walk's reach sweep at player q's node n over its decoded block (policy source S,
    average Av): one call per node, so the sweeps are inlined once here rather than at every
    call site (compile time)."""
    if q == samp_player:
        _reach_sample(n, q, A, H, 0, children, S, Av, do_avg, decay, weight, reach, live, key, _hand_key(code, n))
    else:
        _reach_down_any(n, q, A, H, np.int64(0), children, S, Av, do_avg, decay, weight, reach, live)


@njit(cache=True, nogil=True)
def _own_values_block(n, p, A, H, children, S, update, pre, pos, neg, floor, cfv):
    """A compact walk's own values at player p's node n over its decoded block S (policy source and
    regrets both)."""
    _own_values_any(n, p, A, H, np.int64(0), children, S, S, update, pre, pos, neg, floor, cfv)


@njit(cache=True, nogil=True, inline="always")
def _own_values(n, p, A, H, off, children, src, reg, update, pre, pos, neg, floor, cfv):
    """At player p's own node n: policy by regret matching of src, value = policy-weighted
    child values, and (if update) the rule's step on regret with child value - value."""
    for h in range(H):
        base = off + h * A
        total = rm_total(src, base, A)
        v = 0.0
        for a in range(A):
            v += rm_prob(src[base + a], total, A) * cfv[children[n, a], p, h]
        cfv[n, p, h] = v
        if update:
            for a in range(A):
                reg[base + a] = rule_step(reg[base + a], cfv[children[n, a], p, h] - v, pre, pos, neg, floor)


@njit(cache=True, nogil=True, inline="always")
def _own_values2(n, p, H, off, c0, c1, src, reg, update, pre, pos, neg, floor, cfv):
    """_own_values for two actions, unrolled (same arithmetic, same rounding); values first, then the
    regrets (a hand's regret step reads only its own block, so the order changes nothing)."""
    s = src[off: off + 2 * H]
    for h in range(H):
        s0, s1 = rm2(s[2 * h], s[2 * h + 1])
        cfv[n, p, h] = s0 * cfv[c0, p, h] + s1 * cfv[c1, p, h]
    if update:
        g = reg[off: off + 2 * H]
        for h in range(H):
            v = cfv[n, p, h]
            g[2 * h] = rule_step(g[2 * h], cfv[c0, p, h] - v, pre, pos, neg, floor)
            g[2 * h + 1] = rule_step(g[2 * h + 1], cfv[c1, p, h] - v, pre, pos, neg, floor)


@njit(cache=True, nogil=True, inline="always")
def _own_values3(n, p, H, off, c0, c1, c2, src, reg, update, pre, pos, neg, floor, cfv):
    """_own_values for three actions, unrolled (as _own_values2)."""
    s = src[off: off + 3 * H]
    for h in range(H):
        s0, s1, s2 = rm3(s[3 * h], s[3 * h + 1], s[3 * h + 2])
        cfv[n, p, h] = s0 * cfv[c0, p, h] + s1 * cfv[c1, p, h] + s2 * cfv[c2, p, h]
    if update:
        g = reg[off: off + 3 * H]
        for h in range(H):
            v = cfv[n, p, h]
            g[3 * h] = rule_step(g[3 * h], cfv[c0, p, h] - v, pre, pos, neg, floor)
            g[3 * h + 1] = rule_step(g[3 * h + 1], cfv[c1, p, h] - v, pre, pos, neg, floor)
            g[3 * h + 2] = rule_step(g[3 * h + 2], cfv[c2, p, h] - v, pre, pos, neg, floor)


@njit(cache=True, nogil=True, inline="always")
def _own_values4(n, p, H, off, c0, c1, c2, c3, src, reg, update, pre, pos, neg, floor, cfv):
    """_own_values for four actions, unrolled (as _own_values2)."""
    s = src[off: off + 4 * H]
    for h in range(H):
        s0, s1, s2, s3 = rm4(s[4 * h], s[4 * h + 1], s[4 * h + 2], s[4 * h + 3])
        cfv[n, p, h] = s0 * cfv[c0, p, h] + s1 * cfv[c1, p, h] + s2 * cfv[c2, p, h] + s3 * cfv[c3, p, h]
    if update:
        g = reg[off: off + 4 * H]
        for h in range(H):
            v = cfv[n, p, h]
            g[4 * h] = rule_step(g[4 * h], cfv[c0, p, h] - v, pre, pos, neg, floor)
            g[4 * h + 1] = rule_step(g[4 * h + 1], cfv[c1, p, h] - v, pre, pos, neg, floor)
            g[4 * h + 2] = rule_step(g[4 * h + 2], cfv[c2, p, h] - v, pre, pos, neg, floor)
            g[4 * h + 3] = rule_step(g[4 * h + 3], cfv[c3, p, h] - v, pre, pos, neg, floor)


@njit(cache=True, nogil=True)
def _own_values_any(n, p, A, H, off, children, src, reg, update, pre, pos, neg, floor, cfv):
    """Player p's own values at node n by its number of actions: unrolled for 2-4, general beyond
    (one call per node: each sweep inlined once)."""
    if A == 2:
        _own_values2(n, p, H, off, children[n, 0], children[n, 1], src, reg, update, pre, pos, neg, floor, cfv)
    elif A == 3:
        _own_values3(n, p, H, off, children[n, 0], children[n, 1], children[n, 2], src, reg, update, pre, pos, neg,
                     floor, cfv)
    elif A == 4:
        _own_values4(n, p, H, off, children[n, 0], children[n, 1], children[n, 2], children[n, 3], src, reg, update,
                     pre, pos, neg, floor, cfv)
    else:
        _own_values(n, p, A, H, off, children, src, reg, update, pre, pos, neg, floor, cfv)


@njit(cache=True, nogil=True)
def _predict(n, p, A, H, off, children, reg, pred, src, nxt, pw, cfv):
    """A predictive rule's step after the regrets of player p's node n took R = max(pre R + r,
    floor) (its update in _own_values_any, pos = neg = 1): the prediction pred = ((nxt - 1) R +
    r) pw and the policy source R + pred of the next pass, the doubles of
    core.arith.predictive_update and add_into (r = child value - node value, as the update
    computed it)."""
    for a in range(A):
        c = children[n, a]
        for h in range(H):
            i = off + A * h + a
            x = reg[i]
            r = cfv[c, p, h] - cfv[n, p, h]
            v = (nxt - 1.0) * x + r if nxt != 1.0 else r
            if pw != 1.0:
                v = v * pw
            pred[i] = v
            src[i] = x + v
