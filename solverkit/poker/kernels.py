"""Numba kernels of the public-tree pass: forward reach, terminal values, backward values.

One depth-first walk over boards serves CFR and best response. At a board, a whole round of
betting nodes is processed at once with hand vectors: a forward sweep (policies from regret
matching, reach vectors down), the next round's boards one after another, then terminal values
and a backward sweep (counterfactual values up, regret updates). Terminal values are O(hands)
with card removal: fold by inclusion-exclusion over card sums, showdown by prefix sums over
hands sorted by strength.

Sampled walks (:data:`MODE_CHANCE`, :data:`MODE_EXTERNAL`) deal one board per round, drawn
with probability q proportional to its suit orbit among its parent's children, and scale the
reach vectors that enter it by 1 / q: every value, regret update and average contribution below
it is then the full pass's times 1 / q, so its expectation is the full pass's (public chance
sampling, Johanson et al. 2012: ``[sampler] public_chance``). ``public_external`` also lets the
sampling player's every hand follow one action drawn from its policy at each of its nodes (its reach becomes 0 or the
board's weight: an unbiased estimate of reach x policy).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ..core.arith import avg_step, rm2, rm3, rm4, rm_total, rm_prob, rule_step
from ..core.block16 import decode_block, encode_block
from ..core.rng import mix64, uniform

DECISION, FOLD, SHOWDOWN, ROUND_END = 0, 1, 2, 3
#: what a walk samples (docs/samplers.md, poker): nothing; one board per round ("public chance
#: sampling", [sampler] public_chance); boards and, per (node, board, hand), the sampling player's action
#: ([sampler] public_external: not the literature's external sampling, no private card is drawn)
MODE_FULL, MODE_CHANCE, MODE_EXTERNAL = 0, 1, 2
_HAND_MIX = np.uint64(0x9E3779B97F4A7C15)

#: the public tree as the kernels read it, made once per game (PokerGame.kernel_tree): the betting
#: tree, the boards, and per player its hands (hands<p> [H_p, k], valid<p> [boards, H_p], perms<p>
#: hand maps of suit orbits, sd_* showdown orders of the last round's boards, same<p>[h] the
#: other player's index of hand h or -1); shared: both players hold one list (limit games);
#: has_lock[n]: node n has locked hands, whose policies lock<p> holds from lock_start[n] on: the block
#: of board g (a board of n's round r) at lock_start[n] + (g - round_board_lo[r]) x H_p x A, hands
#: outer, actions inner, NaN for a hand that is not locked (boards counted over the whole game, so
#: a segment of a split game finds its locks as the whole game does)
PublicTree = namedtuple("PublicTree", (
    "kind", "player", "spent", "extra", "nact", "children", "re_index",
    "child_start", "child_end", "perm_start", "perm_end", "bcode",
    "hands0", "hands1", "valid0", "valid1", "perms0", "perms1", "same0", "same1",
    "sd_order0", "sd_order1", "sd_strength0", "sd_strength1", "sd_count0", "sd_count1",
    "shared", "last_board_lo", "deck", "scale", "has_lock", "lock_start", "lock0", "lock1", "round_board_lo"))
#: what one walk covers (see _walk): rounds r0..r_end from node n0 on board b0, dealing b0's
#: children c_first..c_last-1; node ranges per round; where each node's values start
Walk = namedtuple("Walk", ("r0", "r_end", "n0", "b0", "c_first", "c_last", "round_lo", "round_hi", "node_off",
                           "stride", "seg_board_lo", "block_off", "block_stride"))
#: the players' value arrays a walk reads (src: policy source) and writes (reg, avg). compact: the
#: values are block16 instead (q* int16 values, s* a scale per (node, board) block, the block of
#: node n on board g at block_off[n] + (g - seg_board_lo[r]) * block_stride[player, r]; solverkit.core.block16):
#: each block is decoded into a scratch buffer, updated there with the float kernels, and encoded
#: back; the float arrays are then 1-value dummies. A compact walk's regrets are its policy source
#: (qreg<p> is qsrc<p>).
Values = namedtuple("Values", ("src0", "src1", "reg0", "reg1", "avg0", "avg1", "compact",
                               "qsrc0", "qsrc1", "ssrc0", "ssrc1", "qavg0", "qavg1", "savg0", "savg1"))
#: one pass's settings: masks of updated / averaging / evaluated players, the best responder,
#: the rule's and averaging's coefficients, pruning and sampling
Pass = namedtuple("Pass", ("upd_mask", "avg_mask", "val_mask", "br_player", "pre", "pos", "neg", "floor", "decay",
                           "weight", "prune", "mode", "key", "samp_player"))
_NO_Q = np.zeros(1, dtype=np.int16)
_NO_S = np.zeros(1)


def float_values(src0, src1, reg0, reg1, avg0, avg1) -> Values:
    """Values of float64 arrays (no compact blocks)."""
    return Values(src0, src1, reg0, reg1, avg0, avg1, False, _NO_Q, _NO_Q, _NO_S, _NO_S, _NO_Q, _NO_Q, _NO_S, _NO_S)


def compact_values(src, avg) -> Values:
    """Values of block16 arrays: src[p] and avg[p] are (scales, int16 values) pairs (None: unused)."""
    z = np.zeros(1)
    (ss0, qs0), (ss1, qs1) = [x if x is not None else (_NO_S, _NO_Q) for x in src]
    (sa0, qa0), (sa1, qa1) = [x if x is not None else (_NO_S, _NO_Q) for x in avg]
    return Values(z, z, z, z, z, z, True, qs0, qs1, ss0, ss1, qa0, qa1, sa0, sa1)


#: per-thread buffers: reach and values [nodes, 2, H], live flags [nodes], root values out [2, H]
Buffers = namedtuple("Buffers", ("reach", "cfv", "live", "out_cfv"))


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


#: showdown nodes of one board evaluated together by _showdown2_batch (its scratch is sized by it)
SD_BATCH = 16


@njit(cache=True, nogil=True, inline="always")
def _lanes(M, width):
    """Lanes a batch of M nodes runs on: M rounded up to a whole vector of 4 doubles, at most the
    scratch's width (a subgame's board has few terminal nodes: full-width steps wasted up to 5x)."""
    w = (M + 3) // 4 * 4
    return w if w < width else width


@njit(cache=True, nogil=True)
def _showdown2_batch(reach, nodes, fs, M, o, hands, order, strength, count, hands_o, order_o, strength_o, count_o,
                     i, R, C, acc, cfv, p, OUT):
    """Showdown values of M nodes of one board (nodes[:M], stakes fs[:M]) when the players hold
    different hand lists: cfv = f x (opponent mass strictly below h - strictly above h), both
    without the hands sharing a card with h. Two sweeps of the opponent's hands, ascending for
    the mass below p's hand (row i of order / strength), descending for the mass above, each a
    running total and one per card (inclusion-exclusion: the only hand holding both of h's cards
    is h itself, of equal strength, in neither sum). Every step is a loop over the nodes on the
    batch's lanes (_lanes: contiguous, vectorised; lanes past M hold zeros). Scratch, width
    SD_BATCH: R [hands] the opponent's reach in strength order, C [deck] per-card mass, acc [1],
    OUT [hands] the mass below p's t-th hand until its value is written."""
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
def _sample_board(key, g, bcode, child_start, child_end, perm_start, perm_end):
    """(child of board g, 1 / q): a child drawn with q = its orbit size / its siblings' (the
    share of the raw boards it stands for), by the draw of g's code in stream `key`."""
    c0 = child_start[g]
    c1 = child_end[g]
    total = 0
    for c in range(c0, c1):
        total += 1 + perm_end[c] - perm_start[c]
    u = uniform(key, bcode[g]) * total
    acc = 0
    for c in range(c0, c1):
        m = 1 + perm_end[c] - perm_start[c]
        acc += m
        if u < acc:
            return c, total / m
    m = 1 + perm_end[c1 - 1] - perm_start[c1 - 1]
    return c1 - 1, total / m


@njit(cache=True, nogil=True)
def sample_path(key, b0, depth, bcode, child_start, child_end, perm_start, perm_end):
    """The boards a sampled walk from board b0 deals over `depth` rounds below it, and their
    weights 1 / q (path[0] = b0, weight 1): what the trunk draws, computed where the subgames
    to hand out are chosen."""
    path = np.zeros(depth + 1, dtype=np.int64)
    inv = np.ones(depth + 1)
    path[0] = b0
    for level in range(depth):
        c, w = _sample_board(key, path[level], bcode, child_start, child_end, perm_start, perm_end)
        path[level + 1] = c
        inv[level + 1] = w
    return path, inv


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
def _forward_round(T, W, V, r, g, lo, hi, avg_mask, reach_mask, decay, weight, reach, live, prune, samp_player,
                   key, code, S, Av):
    """Reach vectors down one round at board g, for the players in reach_mask only (a player's
    own reach matters only for its average; its values use the opponent's reach). Policies are
    computed per hand only where the acting player's reach is nonzero.

    With `prune`, live[n] = 0 marks a node whose masked reach vectors are all zero (set by its
    parent); its children inherit that and nothing below it is computed. Without, all live.
    samp_player >= 0 (public_external sampling): that player's hands each follow one sampled action
    (_reach_sample; draws keyed by `key` and the board's `code`). A compact walk (V.compact) works on
    each block decoded into scratch S (policy source) and Av (average)."""
    kind, player, nact, children, has_lock = T.kind, T.player, T.nact, T.children, T.has_lock
    node_off, stride, seg_board_lo = W.node_off, W.stride, W.seg_board_lo
    block_off, block_stride = W.block_off, W.block_stride
    src0, src1, avg0, avg1 = V.src0, V.src1, V.avg0, V.avg1
    compact = V.compact
    qsrc0, qsrc1, ssrc0, ssrc1 = V.qsrc0, V.qsrc1, V.ssrc0, V.ssrc1
    qavg0, qavg1, savg0, savg1 = V.qavg0, V.qavg1, V.savg0, V.savg1
    H0 = T.hands0.shape[0]
    H1 = T.hands1.shape[0]
    zero = np.int64(0)  # a block's offset in scratch (typed: a literal 0 compiles a callee twice)
    for n in range(lo, hi):
        if kind[n] != DECISION:
            continue
        A = nact[n]
        if not live[n]:
            for a in range(A):
                live[children[n, a]] = 0
            continue
        q = player[n]
        o = 1 - q
        Hq = H0 if q == 0 else H1
        Ho = H1 if q == 0 else H0
        for a in range(A):
            live[children[n, a]] = 0 if prune else 1
        if (reach_mask >> o) & 1:
            nz = 0
            for h in range(Ho):
                if reach[n, o, h] != 0.0:
                    nz = 1
                    break
            for a in range(A):
                c = children[n, a]
                for h in range(Ho):
                    reach[c, o, h] = reach[n, o, h]
                if nz:
                    live[c] = 1
        if not (reach_mask >> q) & 1:
            continue
        off = node_off[n] + (g - seg_board_lo[r]) * stride[q, r]
        do_avg = (avg_mask >> q) & 1
        if compact:
            bid = block_off[n] + (g - seg_board_lo[r]) * block_stride[q, r]
            nv = Hq * A
            if q == 0:
                decode_block(qsrc0, off, nv, ssrc0, bid, S, zero)
                if do_avg:
                    decode_block(qavg0, off, nv, savg0, bid, Av, zero)
            else:
                decode_block(qsrc1, off, nv, ssrc1, bid, S, zero)
                if do_avg:
                    decode_block(qavg1, off, nv, savg1, bid, Av, zero)
            if has_lock[n]:
                lb = T.lock_start[n] + (g - T.round_board_lo[r]) * Hq * A
                if q == 0:
                    _reach_down_locked(n, q, A, Hq, zero, children, S, T.lock0, lb, Av, do_avg, decay, weight, reach,
                                       live)
                else:
                    _reach_down_locked(n, q, A, Hq, zero, children, S, T.lock1, lb, Av, do_avg, decay, weight, reach,
                                       live)
            else:
                _reach_down_block(n, q, A, Hq, children, S, Av, do_avg, decay, weight, reach, live, samp_player, key,
                                  code)
            if do_avg:
                if q == 0:
                    encode_block(Av, zero, nv, qavg0, off, savg0, bid)
                else:
                    encode_block(Av, zero, nv, qavg1, off, savg1, bid)
            continue
        # (branches rather than `src = src0 if q == 0 else src1`: an array-valued select costs
        # reference-count updates per node)
        if has_lock[n]:
            lb = T.lock_start[n] + (g - T.round_board_lo[r]) * Hq * A
            if q == 0:
                _reach_down_locked(n, q, A, Hq, off, children, src0, T.lock0, lb, avg0, do_avg, decay, weight,
                                   reach, live)
            else:
                _reach_down_locked(n, q, A, Hq, off, children, src1, T.lock1, lb, avg1, do_avg, decay, weight,
                                   reach, live)
        elif q == samp_player:
            hk = _hand_key(code, n)
            if q == 0:
                _reach_sample(n, q, A, Hq, off, children, src0, avg0, do_avg, decay, weight, reach, live, key, hk)
            else:
                _reach_sample(n, q, A, Hq, off, children, src1, avg1, do_avg, decay, weight, reach, live, key, hk)
        elif q == 0:
            _reach_down_any(n, q, A, Hq, off, children, src0, avg0, do_avg, decay, weight, reach, live)
        else:
            _reach_down_any(n, q, A, Hq, off, children, src1, avg1, do_avg, decay, weight, reach, live)


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
# update is its own loop after the reach sweep (same values, same rounding).


@njit(cache=True, nogil=True, inline="always")
def _avg_down(a, A, H, c, k, q, reach, weight, decay):
    """Average values a[A * h + k] += weight x the reach of child c (after decay), over a block view."""
    if decay == 1.0:
        for h in range(H):
            a[A * h + k] = a[A * h + k] + weight * reach[c, q, h]
    else:
        for h in range(H):
            a[A * h + k] = a[A * h + k] * decay + weight * reach[c, q, h]


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
        _avg_down(a, 2, H, c0, 0, q, reach, weight, decay)
        _avg_down(a, 2, H, c1, 1, q, reach, weight, decay)
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
        _avg_down(a, 3, H, c0, 0, q, reach, weight, decay)
        _avg_down(a, 3, H, c1, 1, q, reach, weight, decay)
        _avg_down(a, 3, H, c2, 2, q, reach, weight, decay)
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
        _avg_down(a, 4, H, c0, 0, q, reach, weight, decay)
        _avg_down(a, 4, H, c1, 1, q, reach, weight, decay)
        _avg_down(a, 4, H, c2, 2, q, reach, weight, decay)
        _avg_down(a, 4, H, c3, 3, q, reach, weight, decay)
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


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
def _terminals_batched(T, r, g, lo, hi, card, val_mask, reach, cfv, live, sd):
    """_terminals for players with their own hand lists: the board's live folds and showdowns
    SD_BATCH nodes at a time (_fold_batch, _showdown2_batch), each node's numbers as one at a time."""
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
            for p in range(2):
                if (val_mask >> p) & 1:
                    for h in range(H0 if p == 0 else H1):
                        cfv[n, p, h] = 0.0
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
        for b in range(0, nf, SD_BATCH):
            M = min(SD_BATCH, nf - b)
            nodes = fnodes[b: b + M]
            for m in range(M):
                n = nodes[m]
                fs[m] = (-spent[n, p] if player[n] == p else spent[n, 1 - p] + extra[n]) * scale[r]
            if p == 0:
                _fold_batch(reach, nodes, fs, M, 1 - p, T.hands0, T.hands1, T.same0, T.valid0, g, R, C, acc, cfv, p)
            else:
                _fold_batch(reach, nodes, fs, M, 1 - p, T.hands1, T.hands0, T.same1, T.valid1, g, R, C, acc, cfv, p)
        for b in range(0, ns, SD_BATCH):
            M = min(SD_BATCH, ns - b)
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
    batch's lanes (_lanes: lanes past M hold zeros; contiguous, vectorised). Scratch, width SD_BATCH:
    R [opponent hands], C [deck] per-card mass, acc [2]."""
    H = hands.shape[0]
    Ho, k = hands_o.shape
    W = _lanes(M, R.shape[1])
    deck = C.shape[0]
    for h in range(Ho):
        for m in range(M):
            R[h, m] = reach[nodes[m], o, h]
        for m in range(M, W):
            R[h, m] = 0.0
    for m in range(W):
        acc[0, m] = 0.0
    for h in range(Ho):
        for m in range(W):
            acc[0, m] += R[h, m]
    if k == 1:
        for h in range(H):
            s = same[h]
            ok = valid[g, h] != 0
            for m in range(M):
                cfv[nodes[m], p, h] = fs[m] * (acc[0, m] - (R[s, m] if s >= 0 else 0.0)) if ok else 0.0
        return
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
            c0 = hands[h, 0]
            c1 = hands[h, 1]
            if s >= 0:
                for m in range(W):
                    acc[1, m] = acc[0, m] + R[s, m] - C[c0, m] - C[c1, m]
            else:
                for m in range(W):
                    acc[1, m] = acc[0, m] + 0.0 - C[c0, m] - C[c1, m]
        else:
            for m in range(W):
                acc[1, m] = acc[0, m] + (R[s, m] if s >= 0 else 0.0)
            for j in range(k):
                c = hands[h, j]
                for m in range(W):
                    acc[1, m] -= C[c, m]
        for m in range(M):
            cfv[nodes[m], p, h] = fs[m] * acc[1, m]


@njit(cache=True, nogil=True)
def _backward_round(T, W, V, r, g, lo, hi, upd_mask, val_mask, br_player, pre, pos, neg, floor, cfv, live, S):
    """Counterfactual values up one round at board g and regret updates, one fused loop per
    hand at the acting player's own nodes (policy, value, regrets). A dead node (see
    _forward_round) has zero values and, the caller guarantees, regrets that a zero update
    leaves unchanged. A compact walk decodes a node's block into scratch S, updates it there (its
    regrets are its policy source) and encodes it back."""
    kind, player, nact, children, has_lock = T.kind, T.player, T.nact, T.children, T.has_lock
    node_off, stride, seg_board_lo = W.node_off, W.stride, W.seg_board_lo
    block_off, block_stride = W.block_off, W.block_stride
    src0, src1, reg0, reg1 = V.src0, V.src1, V.reg0, V.reg1
    compact = V.compact
    qsrc0, qsrc1, ssrc0, ssrc1 = V.qsrc0, V.qsrc1, V.ssrc0, V.ssrc1
    H0 = T.hands0.shape[0]
    H1 = T.hands1.shape[0]
    zero = np.int64(0)  # a block's offset in scratch (typed: a literal 0 compiles a callee twice)
    for n in range(hi - 1, lo - 1, -1):
        if kind[n] != DECISION:
            continue
        if not live[n]:
            for p in range(2):
                if (val_mask >> p) & 1:
                    for h in range(H0 if p == 0 else H1):
                        cfv[n, p, h] = 0.0
            continue
        q = player[n]
        A = nact[n]
        for p in range(2):
            if not (val_mask >> p) & 1:
                continue
            H = H0 if p == 0 else H1
            if p != q:
                # the opponent's policy is already in the reach: values add up
                c = children[n, 0]
                for h in range(H):
                    cfv[n, p, h] = cfv[c, p, h]
                for a in range(1, A):
                    c = children[n, a]
                    for h in range(H):
                        cfv[n, p, h] += cfv[c, p, h]
            elif has_lock[n] and compact:
                off = node_off[n] + (g - seg_board_lo[r]) * stride[q, r]
                bid = block_off[n] + (g - seg_board_lo[r]) * block_stride[q, r]
                lb = T.lock_start[n] + (g - T.round_board_lo[r]) * H * A
                update = (upd_mask >> q) & 1
                nv = H * A
                if q == 0:
                    decode_block(qsrc0, off, nv, ssrc0, bid, S, zero)
                    _own_values_locked(n, p, A, H, zero, children, S, T.lock0, lb, S, update, pre, pos, neg, floor, cfv,
                                       p == br_player)
                    if update:
                        encode_block(S, zero, nv, qsrc0, off, ssrc0, bid)
                else:
                    decode_block(qsrc1, off, nv, ssrc1, bid, S, zero)
                    _own_values_locked(n, p, A, H, zero, children, S, T.lock1, lb, S, update, pre, pos, neg, floor, cfv,
                                       p == br_player)
                    if update:
                        encode_block(S, zero, nv, qsrc1, off, ssrc1, bid)
            elif has_lock[n]:
                off = node_off[n] + (g - seg_board_lo[r]) * stride[q, r]
                lb = T.lock_start[n] + (g - T.round_board_lo[r]) * H * A
                update = (upd_mask >> q) & 1
                if q == 0:
                    _own_values_locked(n, p, A, H, off, children, src0, T.lock0, lb, reg0, update, pre, pos, neg,
                                       floor, cfv, p == br_player)
                else:
                    _own_values_locked(n, p, A, H, off, children, src1, T.lock1, lb, reg1, update, pre, pos, neg,
                                       floor, cfv, p == br_player)
            elif p == br_player:
                c = children[n, 0]
                for h in range(H):
                    cfv[n, p, h] = cfv[c, p, h]
                for a in range(1, A):
                    c = children[n, a]
                    for h in range(H):
                        x = cfv[c, p, h]
                        if x > cfv[n, p, h]:
                            cfv[n, p, h] = x
            elif compact:
                off = node_off[n] + (g - seg_board_lo[r]) * stride[q, r]
                bid = block_off[n] + (g - seg_board_lo[r]) * block_stride[q, r]
                update = (upd_mask >> q) & 1
                nv = H * A
                if q == 0:
                    decode_block(qsrc0, off, nv, ssrc0, bid, S, zero)
                else:
                    decode_block(qsrc1, off, nv, ssrc1, bid, S, zero)
                _own_values_block(n, p, A, H, children, S, update, pre, pos, neg, floor, cfv)
                if update:
                    if q == 0:
                        encode_block(S, zero, nv, qsrc0, off, ssrc0, bid)
                    else:
                        encode_block(S, zero, nv, qsrc1, off, ssrc1, bid)
            else:
                off = node_off[n] + (g - seg_board_lo[r]) * stride[q, r]
                update = (upd_mask >> q) & 1
                if q == 0:
                    _own_values_any(n, p, A, H, off, children, src0, reg0, update, pre, pos, neg, floor, cfv)
                else:
                    _own_values_any(n, p, A, H, off, children, src1, reg1, update, pre, pos, neg, floor, cfv)


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
def _regrets_up(g, A, H, k, p, c, n, cfv, pre, pos, neg, floor):
    """The rule's step on regrets g[A * h + k] (a block view) with child c's value - node n's."""
    for h in range(H):
        g[A * h + k] = rule_step(g[A * h + k], cfv[c, p, h] - cfv[n, p, h], pre, pos, neg, floor)


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
        _regrets_up(g, 2, H, 0, p, c0, n, cfv, pre, pos, neg, floor)
        _regrets_up(g, 2, H, 1, p, c1, n, cfv, pre, pos, neg, floor)


@njit(cache=True, nogil=True, inline="always")
def _own_values3(n, p, H, off, c0, c1, c2, src, reg, update, pre, pos, neg, floor, cfv):
    """_own_values for three actions, unrolled (as _own_values2)."""
    s = src[off: off + 3 * H]
    for h in range(H):
        s0, s1, s2 = rm3(s[3 * h], s[3 * h + 1], s[3 * h + 2])
        cfv[n, p, h] = s0 * cfv[c0, p, h] + s1 * cfv[c1, p, h] + s2 * cfv[c2, p, h]
    if update:
        g = reg[off: off + 3 * H]
        _regrets_up(g, 3, H, 0, p, c0, n, cfv, pre, pos, neg, floor)
        _regrets_up(g, 3, H, 1, p, c1, n, cfv, pre, pos, neg, floor)
        _regrets_up(g, 3, H, 2, p, c2, n, cfv, pre, pos, neg, floor)


@njit(cache=True, nogil=True, inline="always")
def _own_values4(n, p, H, off, c0, c1, c2, c3, src, reg, update, pre, pos, neg, floor, cfv):
    """_own_values for four actions, unrolled (as _own_values2)."""
    s = src[off: off + 4 * H]
    for h in range(H):
        s0, s1, s2, s3 = rm4(s[4 * h], s[4 * h + 1], s[4 * h + 2], s[4 * h + 3])
        cfv[n, p, h] = s0 * cfv[c0, p, h] + s1 * cfv[c1, p, h] + s2 * cfv[c2, p, h] + s3 * cfv[c3, p, h]
    if update:
        g = reg[off: off + 4 * H]
        _regrets_up(g, 4, H, 0, p, c0, n, cfv, pre, pos, neg, floor)
        _regrets_up(g, 4, H, 1, p, c1, n, cfv, pre, pos, neg, floor)
        _regrets_up(g, 4, H, 2, p, c2, n, cfv, pre, pos, neg, floor)
        _regrets_up(g, 4, H, 3, p, c3, n, cfv, pre, pos, neg, floor)


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
def dfs_pass(T, W, V, P, entry_reach, boundary_mode, boundary, do_backward, B):
    """One walk (see _walk) of the pass P: the engine's entry point, compiled for one signature."""
    _walk(T, W, V, entry_reach, P.upd_mask, P.avg_mask, P.val_mask, P.br_player, P.pre, P.pos, P.neg, P.floor,
          P.decay, P.weight, boundary_mode, boundary, do_backward, P.prune, B.reach, B.cfv, B.live, B.out_cfv,
          P.mode, P.key, P.samp_player)


@njit(cache=True, nogil=True)
def dfs_block(T, W, V, entry_reach, upd_masks, avg_masks, coeffs, prunes, modes, keys, samp_players, B):
    """Passes k = 0, 1, ... of a whole unsplit game in one call, each a _walk with its own masks,
    coefficients (pre, pos, neg, floor, decay, weight), pruning and sampling: the regrets are
    their own policy sources, so each pass sees the previous one's updates, exactly as separate
    calls would."""
    boundary = np.zeros((1, 1, 2, 1))
    # (typed variables, not literals: _walk then compiles once for both entry points)
    no_br = np.int64(-1)
    mode0 = np.int64(0)
    backward = upd_masks.shape[0] >= 0
    for k in range(upd_masks.shape[0]):
        _walk(T, W, V, entry_reach, upd_masks[k], avg_masks[k], upd_masks[k], no_br,
              coeffs[k, 0], coeffs[k, 1], coeffs[k, 2], coeffs[k, 3], coeffs[k, 4], coeffs[k, 5],
              mode0, boundary, backward, prunes[k], B.reach, B.cfv, B.live, B.out_cfv, modes[k], keys[k],
              samp_players[k])


@njit(cache=True, nogil=True, inline="always")
def _deal(reach, e, m, p, H, valid, c, w, live):
    """Player p's reach into round-end node e's child m on dealt board c (weight w = 1 / q)."""
    for h in range(H):
        x = reach[e, p, h] * valid[c, h] * w
        reach[m, p, h] = x
        if x != 0.0:
            live[m] = 1


@njit(cache=True, nogil=True, inline="always")
def _collect(cfv, e, x, p, H, perms, j0, j1):
    """Round end e adds its child's values x (player p's, on the dealt board) and, through the hand
    maps perms[j0:j1], those of the other boards of the dealt board's suit orbit."""
    for h in range(H):
        cfv[e, p, h] += x[h]
    for j in range(j0, j1):
        for h in range(H):
            cfv[e, p, h] += x[perms[j, h]]


@njit(cache=True, nogil=True)
def _walk(T, W, V, entry_reach, upd_mask, avg_mask, val_mask, br_player, pre, pos, neg, floor, decay, weight,
          boundary_mode, boundary, do_backward, prune, reach, cfv, live, out_cfv, mode, key, samp_player):
    """One walk from betting node W.n0 at board W.b0 (round W.r0) down to round W.r_end, dealing the
    boards W.c_first..W.c_last-1 (children of b0) below the first round. T is the public tree
    (PublicTree), V the players' value arrays (Values).

    boundary_mode 0: r_end is the last round. 1: at round r_end's round-end nodes, write reach
    into boundary[re_index[e], board - round start, player, hand] and stop. 2: read the
    counterfactual values of those nodes from `boundary` instead: [.., 2, H] for both players,
    or one slot per player in val_mask, in player order (the trunk of a one-player pass keeps
    half the values). 3 (one chunk of a whole walk whose boards below round r0 run on several
    threads): no averages at round r0, no terminals or backward sweep there; the values of round-end
    node e's child on the k-th child board of b0 go to boundary[re_index[e], k, p, h]. 4 (that
    walk's own round r0, r_end = r0): round-end node e collects them from there, board by board in
    order as one walk does (the same sums, bit for bit).
    Values of decision node n on board g start at node_off[n] + (g - seg_board_lo[r]) *
    stride[player, r] in the player's arrays.
    T.scale[r] = the weight of one deal of hands and boards up to round r.
    Values out: out_cfv[p, h] at n0 for players in val_mask.
    prune: skip subtrees where every needed reach vector is zero; the caller sets it only when
    a zero regret update and a zero average contribution leave the stored values unchanged.
    mode MODE_CHANCE / MODE_EXTERNAL: one board per round (the path sample_path draws from
    b0 with stream `key` and board codes T.bcode; the first level's draw is among all of b0's
    children, and a chunk that does not hold it walks nothing below b0), reach into a board
    scaled by its 1 / q; public_external: samp_player's hands also sample their actions.
    Each player p has its own hands (T.hands<p>, with valid<p>, perms<p>, sd tables): a spot's
    range; limit games share one list (T.shared).
    """
    kind, children, re_index = T.kind, T.children, T.re_index
    child_start, child_end, perm_start, perm_end, bcode = T.child_start, T.child_end, T.perm_start, T.perm_end, T.bcode
    round_lo, round_hi, seg_board_lo = W.round_lo, W.round_hi, W.seg_board_lo
    r0, r_end, n0, b0 = W.r0, W.r_end, W.n0, W.b0
    valid0, valid1, perms0, perms1 = T.valid0, T.valid1, T.perms0, T.perms1
    H0 = T.hands0.shape[0]
    H1 = T.hands1.shape[0]
    card = np.zeros(3 * T.deck, dtype=np.float64)
    # batched showdowns' scratch (players with their own hand lists)
    nsd = 1 if T.shared else SD_BATCH
    nn = 1 if T.shared else T.kind.shape[0]
    sd = (np.empty((max(H0, H1) if not T.shared else 1, nsd)), np.empty((T.deck, nsd)), np.empty((2, nsd)),
          np.empty(nsd), np.empty(nn, dtype=np.int64), np.empty(nn, dtype=np.int64),
          np.empty((max(H0, H1) if not T.shared else 1, nsd)))
    # a compact walk's scratch: one decoded block of the policy source, one of the average
    nscr = max(H0, H1) * T.children.shape[1] if V.compact else 1
    S = np.empty(nscr)
    Av = np.empty(nscr)
    nlev = r_end - r0 + 1
    cur = np.zeros(nlev, dtype=np.int64)
    nxt = np.zeros(nlev, dtype=np.int64)
    for p in range(2):
        for h in range(H0 if p == 0 else H1):
            reach[n0, p, h] = entry_reach[p, h]
    level = 0
    cur[0] = b0
    lim = np.zeros(nlev, dtype=np.int64)
    wq = np.ones(nlev)  # weight 1 / q of the board at each level (1: full walks)
    path = np.zeros(nlev, dtype=np.int64)
    if mode != MODE_FULL:
        path[0] = b0
        for lv in range(nlev - 1):
            path[lv + 1], wq[lv + 1] = _sample_board(key, path[lv], bcode, child_start, child_end, perm_start, perm_end)
    sp = samp_player if mode == MODE_EXTERNAL else -1
    amask = avg_mask if do_backward else 0
    if br_player >= 0:
        amask &= ~(1 << br_player)
    # reach is needed for the players whose averages grow and for the opponents of the players
    # whose values are computed
    reach_mask = amask
    for p in range(2):
        if (val_mask >> p) & 1:
            reach_mask |= 1 << (1 - p)
    live[n0] = 0 if prune else 1
    for p in range(2):
        if (reach_mask >> p) & 1:
            for h in range(H0 if p == 0 else H1):
                if entry_reach[p, h] != 0.0:
                    live[n0] = 1
    _forward_round(T, W, V, r0, b0, round_lo[r0], round_hi[r0], amask if boundary_mode != 3 else 0, reach_mask,
                   decay, weight, reach, live, prune, sp, key, bcode[b0], S, Av)
    nxt[0] = W.c_first
    lim[0] = W.c_last
    if mode != MODE_FULL and nlev > 1:
        nxt[0] = path[1]
        lim[0] = path[1] + 1 if W.c_first <= path[1] < W.c_last else path[1]
    for n in range(round_lo[r0], round_hi[r0]):
        if kind[n] == ROUND_END:
            for p in range(2):
                for h in range(H0 if p == 0 else H1):
                    cfv[n, p, h] = 0.0
    while True:
        r = r0 + level
        g = cur[level]
        if r < r_end and nxt[level] < lim[level]:
            c = nxt[level]
            nxt[level] += 1
            w = wq[level + 1]
            any_live = False
            for e in range(round_lo[r], round_hi[r]):
                if kind[e] == ROUND_END:
                    m = children[e, 0]
                    live[m] = 0 if prune else 1
                    if not live[e]:
                        continue
                    if reach_mask & 1:
                        _deal(reach, e, m, 0, H0, valid0, c, w, live)
                    if (reach_mask >> 1) & 1:
                        _deal(reach, e, m, 1, H1, valid1, c, w, live)
                    if live[m]:
                        any_live = True
            if not any_live:
                # nothing reaches this board: its values are zero and nothing below changes
                continue
            level += 1
            r += 1
            cur[level] = c
            _forward_round(T, W, V, r, c, round_lo[r], round_hi[r], amask, reach_mask, decay, weight, reach, live,
                           prune, sp, key, bcode[c], S, Av)
            if mode == MODE_FULL or level + 1 >= nlev:
                nxt[level] = child_start[c]
                lim[level] = child_end[c]
            else:
                nxt[level] = path[level + 1]
                lim[level] = path[level + 1] + 1
            for n in range(round_lo[r], round_hi[r]):
                if kind[n] == ROUND_END:
                    for p in range(2):
                        for h in range(H0 if p == 0 else H1):
                            cfv[n, p, h] = 0.0
            continue
        if boundary_mode == 3 and level == 0:
            break
        if boundary_mode == 4:
            # the chunks' child values, collected board by board as one walk would (same sums)
            for c in range(child_start[b0], child_end[b0]):
                k = c - child_start[b0]
                for e in range(round_lo[r], round_hi[r]):
                    if kind[e] == ROUND_END:
                        if val_mask & 1:
                            _collect(cfv, e, boundary[re_index[e], k, 0], 0, H0, perms0, perm_start[c], perm_end[c])
                        if (val_mask >> 1) & 1:
                            _collect(cfv, e, boundary[re_index[e], k, 1], 1, H1, perms1, perm_start[c], perm_end[c])
        elif r == r_end and boundary_mode != 0:
            bi = g - seg_board_lo[r]
            for e in range(round_lo[r], round_hi[r]):
                if kind[e] == ROUND_END:
                    j = re_index[e]
                    q = 0  # mode 2 with one slot per player in val_mask: the slot of player p
                    for p in range(2):
                        H = H0 if p == 0 else H1
                        if boundary_mode == 1:
                            for h in range(H):
                                boundary[j, bi, p, h] = reach[e, p, h] if live[e] and (reach_mask >> p) & 1 else 0.0
                        elif boundary.shape[2] == 2:
                            for h in range(H):
                                cfv[e, p, h] = boundary[j, bi, p, h]
                        elif (val_mask >> p) & 1:
                            for h in range(H):
                                cfv[e, p, h] = boundary[j, bi, q, h]
                            q += 1
                        else:  # a value nobody asked for (the kernel never reads it)
                            for h in range(H):
                                cfv[e, p, h] = 0.0
        if do_backward:
            _terminals(T, r, g, round_lo[r], round_hi[r], card, val_mask, reach, cfv, live, sd)
            _backward_round(T, W, V, r, g, round_lo[r], round_hi[r], upd_mask, val_mask, br_player, pre, pos, neg,
                            floor, cfv, live, S)
        if level == 0:
            break
        # the parent's round ends collect this board's values and, through the hand maps,
        # those of the other boards of its suit orbit
        for e in range(round_lo[r - 1], round_hi[r - 1]):
            if kind[e] == ROUND_END:
                m = children[e, 0]
                if not live[m]:
                    continue
                if boundary_mode == 3 and level == 1:  # the first round's sums are the last walk's
                    k = g - child_start[b0]
                    for p in range(2):
                        if (val_mask >> p) & 1:
                            for h in range(H0 if p == 0 else H1):
                                boundary[re_index[e], k, p, h] = cfv[m, p, h]
                    continue
                if val_mask & 1:
                    _collect(cfv, e, cfv[m, 0], 0, H0, perms0, perm_start[g], perm_end[g])
                if (val_mask >> 1) & 1:
                    _collect(cfv, e, cfv[m, 1], 1, H1, perms1, perm_start[g], perm_end[g])
        level -= 1
    for p in range(2):
        for h in range(H0 if p == 0 else H1):
            out_cfv[p, h] = cfv[n0, p, h]


@njit(cache=True)
def copy_runs(src, dst, src_start, dst_start, length):
    """dst[dst_start[i] : + length[i]] = src[src_start[i] : + length[i]] for every run i."""
    for i in range(src_start.shape[0]):
        a = src_start[i]
        b = dst_start[i]
        for j in range(length[i]):
            dst[b + j] = src[a + j]
