"""Numba kernels of the public-tree pass: forward reach, terminal values, backward values.

One depth-first walk over boards serves CFR and best response. At a board, a whole round of
betting nodes is processed at once with hand vectors: a forward sweep (policies from regret
matching, reach vectors down), the next round's boards one after another, then terminal values
and a backward sweep (counterfactual values up, regret updates). Terminal values are O(hands)
with card removal: fold by inclusion-exclusion over card sums, showdown by prefix sums over
hands sorted by strength.

Over 500 lines on purpose: this module is the walk itself (its records, the round sweeps that
read them, the entry points), one idea; the per-node sweeps and the terminal values it calls
live in sweep_kernels.py and terminal_kernels.py. The round sweeps (and _terminals) are inlined
into _walk, and _walk loops over a block's passes itself: a call that passes the tree and value
records increfs and decrefs each of their ~70 arrays atomically, which was half a pass's time on
Kuhn (the per-node sweeps take five arrays each and stay calls: inlining them quadrupled the cold
compile).

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
from ..core.jit import njit

from ..core.block16 import decode_live, encode_live
from ..errors import SolverkitError
from ..core.rng import uniform
from .sweep_kernels import (_hand_key, _own_values_any, _own_values_block, _own_values_locked, _predict,
                            _reach_down_any, _reach_down_block, _reach_down_locked, _reach_sample)
from .terminal_kernels import (SD_BATCH, _fold, _fold_batch, _showdown2_batch, _terminals,  # noqa: F401 (re-exported)
                               _terminals_batched, batch_width, fold_values, showdown_values, zero_values)

DECISION, FOLD, SHOWDOWN, ROUND_END = 0, 1, 2, 3
#: what a walk samples (docs/samplers.md, poker): nothing; one board per round ("public chance
#: sampling", [sampler] public_chance); boards and, per (node, board, hand), the sampling player's action
#: ([sampler] public_external: not the literature's external sampling, no private card is drawn)
MODE_FULL, MODE_CHANCE, MODE_EXTERNAL = 0, 1, 2

#: the public tree as the kernels read it, made once per game (PokerGame.kernel_tree): the betting
#: tree, the boards, and per player its hands (hands<p> [H_p, k], valid<p> [boards, H_p], perms<p>
#: hand maps of suit orbits, sd_* showdown orders of the last round's boards, same<p>[h] the
#: other player's index of hand h or -1); shared: both players hold one list (limit games);
#: has_lock[n]: node n has locked hands, whose policies lock<p> holds from lock_start[n] on: the block
#: of board g (a board of n's round r) at lock_start[n] + (g - round_board_lo[r]) x H_p x A, hands
#: outer, actions inner, NaN for a hand that is not locked (boards counted over the whole game, so
#: a segment of a split game finds its locks as the whole game does); lstart<p>, lruns<p>: the runs of
#: hands valid<p> marks live on each board (:func:`solverkit.core.block16.live_runs`), which a
#: compact walk's blocks keep
PublicTree = namedtuple("PublicTree", (
    "kind", "player", "spent", "extra", "nact", "children", "re_index",
    "child_start", "child_end", "perm_start", "perm_end", "bcode",
    "hands0", "hands1", "valid0", "valid1", "perms0", "perms1", "same0", "same1",
    "sd_order0", "sd_order1", "sd_strength0", "sd_strength1", "sd_count0", "sd_count1",
    "shared", "last_board_lo", "deck", "scale", "has_lock", "lock_start", "lock0", "lock1", "round_board_lo",
    "lstart0", "lruns0", "lstart1", "lruns1"))
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
#: qoff<p>[block]: where the block's kept values start in q*<p>: every hand's when qlive is False,
#: else only those of the hands its board leaves live (T.lstart<p> / T.lruns<p>; a hand holding a
#: card of the board always has values 0, decoded as 0).
#: predictive: a predictive rule's update in the kernel (:func:`_predict`): pred<p> its prediction
#: arrays, src<p> then R + pred (kept so by the update), reg<p> the stored regrets R
Values = namedtuple("Values", ("src0", "src1", "reg0", "reg1", "avg0", "avg1", "compact",
                               "qsrc0", "qsrc1", "ssrc0", "ssrc1", "qavg0", "qavg1", "savg0", "savg1",
                               "predictive", "pred0", "pred1", "qoff0", "qoff1", "qlive"))
#: one pass's settings: masks of updated / averaging / evaluated players, the best responder,
#: the rule's and averaging's coefficients (nxt: a predictive rule's, see _predict), pruning and sampling
Pass = namedtuple("Pass", ("upd_mask", "avg_mask", "val_mask", "br_player", "pre", "pos", "neg", "floor", "decay",
                           "weight", "prune", "mode", "key", "samp_player", "nxt", "pweight"))
_NO_Q = np.zeros(1, dtype=np.int16)
_NO_S = np.zeros(1)
_NO_I = np.zeros(1, dtype=np.int64)


_DUMMIES = {np.dtype(np.float64): _NO_S, np.dtype(np.float32): np.zeros(1, dtype=np.float32)}


def float_values(src0, src1, reg0, reg1, avg0, avg1, pred=None) -> Values:
    """Values of float arrays (no compact blocks); `pred`: a predictive rule's prediction
    arrays [pred0, pred1] (src<p> must then be R + pred, reg<p> the regrets R). The arrays are
    float64, or float32 (a ``[store] precision = "float32"`` store's, read and written as they
    are; the kernels compute in float64, the walk's reach vectors and showdown sums are float32,
    :meth:`.walks.GameWalks._bufs`): all of one dtype, float32 if any is, the other dtype's
    1-value dummies made so, so that each dtype is one kernel signature (:func:`.walks._entry`
    relies on it)."""
    p0, p1 = pred if pred is not None else (_NO_S, _NO_S)
    arrays = [src0, src1, reg0, reg1, avg0, avg1, p0, p1]
    dtypes = {a.dtype for a in arrays}
    if dtypes != {_NO_S.dtype}:
        if not dtypes <= set(_DUMMIES):
            raise SolverkitError(f"the poker kernels take float64 or float32 values, not "
                                 f"{', '.join(sorted(str(d) for d in dtypes - set(_DUMMIES)))}")
        dtype = np.dtype(np.float32) if np.dtype(np.float32) in dtypes else _NO_S.dtype
        for i, a in enumerate(arrays):
            if a.dtype != dtype:
                if a.size > 1:
                    raise SolverkitError(f"a kernel walk mixes {dtype} and {a.dtype} value arrays (one store "
                                         "precision per walk)")
                arrays[i] = _DUMMIES[dtype]
    return Values(*arrays[:6], False, _NO_Q, _NO_Q, _NO_S, _NO_S, _NO_Q, _NO_Q, _NO_S, _NO_S, pred is not None,
                  *arrays[6:], _NO_I, _NO_I, False)


def compact_values(src, avg, qoff, qlive: bool) -> Values:
    """Values of block16 arrays: src[p] and avg[p] are (scales, int16 values) pairs (None: unused),
    qoff[p] where each of player p's blocks starts in them (None: unused), qlive: the blocks keep
    the hands valid on their board only (see Values)."""
    z = np.zeros(1)
    (ss0, qs0), (ss1, qs1) = [x if x is not None else (_NO_S, _NO_Q) for x in src]
    (sa0, qa0), (sa1, qa1) = [x if x is not None else (_NO_S, _NO_Q) for x in avg]
    qo0, qo1 = [x if x is not None else _NO_I for x in qoff]
    return Values(z, z, z, z, z, z, True, qs0, qs1, ss0, ss1, qa0, qa1, sa0, sa1, False, _NO_S, _NO_S, qo0, qo1,
                  bool(qlive))


#: per-thread buffers: reach and values [nodes, 2, H], live flags [nodes], root values out [2, H]
Buffers = namedtuple("Buffers", ("reach", "cfv", "live", "out_cfv"))


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
            row = g if V.qlive else -1
            if q == 0:
                qo = V.qoff0[bid]
                decode_live(qsrc0, qo, Hq, A, T.lstart0, T.lruns0, row, ssrc0, bid, S, zero)
                if do_avg:
                    decode_live(qavg0, qo, Hq, A, T.lstart0, T.lruns0, row, savg0, bid, Av, zero)
            else:
                qo = V.qoff1[bid]
                decode_live(qsrc1, qo, Hq, A, T.lstart1, T.lruns1, row, ssrc1, bid, S, zero)
                if do_avg:
                    decode_live(qavg1, qo, Hq, A, T.lstart1, T.lruns1, row, savg1, bid, Av, zero)
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
                    encode_live(Av, zero, Hq, A, T.lstart0, T.lruns0, row, qavg0, qo, savg0, bid)
                else:
                    encode_live(Av, zero, Hq, A, T.lstart1, T.lruns1, row, qavg1, qo, savg1, bid)
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


@njit(cache=True, nogil=True, inline="always")
def _backward_round(T, W, V, r, g, lo, hi, upd_mask, val_mask, br_player, pre, pos, neg, floor, nxt, pw, cfv, live,
                    S):
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
            zero_values(cfv, n, val_mask, H0, H1)
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
                bid = block_off[n] + (g - seg_board_lo[r]) * block_stride[q, r]
                lb = T.lock_start[n] + (g - T.round_board_lo[r]) * H * A
                update = (upd_mask >> q) & 1
                row = g if V.qlive else -1
                if q == 0:
                    qo = V.qoff0[bid]
                    decode_live(qsrc0, qo, H, A, T.lstart0, T.lruns0, row, ssrc0, bid, S, zero)
                    _own_values_locked(n, p, A, H, zero, children, S, T.lock0, lb, S, update, pre, pos, neg, floor, cfv,
                                       p == br_player)
                    if update:
                        encode_live(S, zero, H, A, T.lstart0, T.lruns0, row, qsrc0, qo, ssrc0, bid)
                else:
                    qo = V.qoff1[bid]
                    decode_live(qsrc1, qo, H, A, T.lstart1, T.lruns1, row, ssrc1, bid, S, zero)
                    _own_values_locked(n, p, A, H, zero, children, S, T.lock1, lb, S, update, pre, pos, neg, floor, cfv,
                                       p == br_player)
                    if update:
                        encode_live(S, zero, H, A, T.lstart1, T.lruns1, row, qsrc1, qo, ssrc1, bid)
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
                bid = block_off[n] + (g - seg_board_lo[r]) * block_stride[q, r]
                update = (upd_mask >> q) & 1
                row = g if V.qlive else -1
                if q == 0:
                    qo = V.qoff0[bid]
                    decode_live(qsrc0, qo, H, A, T.lstart0, T.lruns0, row, ssrc0, bid, S, zero)
                else:
                    qo = V.qoff1[bid]
                    decode_live(qsrc1, qo, H, A, T.lstart1, T.lruns1, row, ssrc1, bid, S, zero)
                _own_values_block(n, p, A, H, children, S, update, pre, pos, neg, floor, cfv)
                if update:
                    if q == 0:
                        encode_live(S, zero, H, A, T.lstart0, T.lruns0, row, qsrc0, qo, ssrc0, bid)
                    else:
                        encode_live(S, zero, H, A, T.lstart1, T.lruns1, row, qsrc1, qo, ssrc1, bid)
            else:
                off = node_off[n] + (g - seg_board_lo[r]) * stride[q, r]
                update = (upd_mask >> q) & 1
                if q == 0:
                    _own_values_any(n, p, A, H, off, children, src0, reg0, update, pre, pos, neg, floor, cfv)
                    if update and V.predictive:
                        _predict(n, p, A, H, off, children, reg0, V.pred0, src0, nxt, pw, cfv)
                else:
                    _own_values_any(n, p, A, H, off, children, src1, reg1, update, pre, pos, neg, floor, cfv)
                    if update and V.predictive:
                        _predict(n, p, A, H, off, children, reg1, V.pred1, src1, nxt, pw, cfv)


@njit(cache=True, nogil=True)
def dfs_pass(T, W, V, P, entry_reach, boundary_mode, boundary, do_backward, B):
    """One walk (see _walk) of the pass P: the engine's entry point, compiled for one signature."""
    coeffs = np.empty((1, 8))
    coeffs[0, 0], coeffs[0, 1], coeffs[0, 2], coeffs[0, 3] = P.pre, P.pos, P.neg, P.floor
    coeffs[0, 4], coeffs[0, 5], coeffs[0, 6], coeffs[0, 7] = P.decay, P.weight, P.nxt, P.pweight
    _walk(T, W, V, entry_reach, np.full(1, P.upd_mask, dtype=np.int64), np.full(1, P.avg_mask, dtype=np.int64),
          np.full(1, P.val_mask, dtype=np.int64), np.full(1, P.br_player, dtype=np.int64), coeffs,
          np.full(1, P.prune, dtype=np.bool_), np.full(1, P.mode, dtype=np.int64), np.full(1, P.key, dtype=np.uint64),
          np.full(1, P.samp_player, dtype=np.int64), boundary_mode, boundary, do_backward, B.reach, B.cfv, B.live,
          B.out_cfv)


@njit(cache=True, nogil=True)
def dfs_block(T, W, V, entry_reach, upd_masks, avg_masks, coeffs, prunes, modes, keys, samp_players, B):
    """Passes k = 0, 1, ... of a whole unsplit game in one call, each a _walk with its own masks,
    coefficients (pre, pos, neg, floor, decay, weight, nxt, pweight), pruning and sampling: the regrets are
    their own policy sources (a predictive rule's policy sources R + pred are kept so by _predict),
    so each pass sees the previous one's updates, exactly as separate calls would."""
    boundary = np.zeros((1, 1, 2, 1))
    # (typed variables, not literals: _walk then compiles once for both entry points)
    mode0 = np.int64(0)
    backward = upd_masks.shape[0] >= 0
    _walk(T, W, V, entry_reach, upd_masks, avg_masks, upd_masks, np.full(upd_masks.shape[0], -1, dtype=np.int64),
          coeffs, prunes, modes, keys, samp_players, mode0, boundary, backward, B.reach, B.cfv, B.live, B.out_cfv)


@njit(cache=True, nogil=True, inline="always")
def _deal(reach, e, m, p, H, valid, c, w, live):
    """Player p's reach into round-end node e's child m on dealt board c (weight w = 1 / q)."""
    nz = False  # (a flag, not a store to live[m] per hand: the loop vectorises)
    for h in range(H):
        x = reach[e, p, h] * valid[c, h] * w
        reach[m, p, h] = x
        nz |= x != 0.0
    if nz:
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
def _walk(T, W, V, entry_reach, upd_masks, avg_masks, val_masks, br_players, coeffs, prunes, modes, keys,
          samp_players, boundary_mode, boundary, do_backward, reach, cfv, live, out_cfv):
    """Walks k = 0, 1, ... of passes with the masks upd_masks[k], avg_masks[k], val_masks[k],
    best responder br_players[k], coefficients coeffs[k] (pre, pos, neg, floor, decay, weight,
    nxt, pweight), prunes[k], modes[k], keys[k] and samp_players[k], one after another (the
    records are taken and the scratch made once for the whole block: a call per pass cost a
    small game a third of its time in reference counts and allocations). The passes run in
    :func:`_walk_passes`, compiled without numba's reference counts: there, every inlined round
    function took a reference to each of its records' ~70 arrays and gave it back (two atomic
    operations an array, per call, per board), over 80% of a Kuhn iteration. Each is one walk
    from betting node W.n0 at board W.b0 (round W.r0) down to round W.r_end, dealing the boards
    W.c_first..W.c_last-1 (children of b0) below the first round. T is the public tree
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
    H0 = T.hands0.shape[0]
    H1 = T.hands1.shape[0]
    card = np.zeros(3 * T.deck, dtype=np.float64)
    nsd = 1 if T.shared else batch_width(T.kind, W.round_lo, W.round_hi, W.r0, W.r_end)
    nn = 1 if T.shared else T.kind.shape[0]
    sH = max(H0, H1) if not T.shared else 1
    sd = (np.empty((sH, nsd), dtype=reach.dtype), np.empty((T.deck, nsd), dtype=reach.dtype),
          np.empty((2, nsd), dtype=reach.dtype), np.empty(nsd), np.empty(nn, dtype=np.int64),
          np.empty(nn, dtype=np.int64), np.empty((sH, nsd), dtype=reach.dtype))
    nscr = max(H0, H1) * T.children.shape[1] if V.compact else 1
    S = np.empty(nscr)
    Av = np.empty(nscr)
    nlev = W.r_end - W.r0 + 1
    scr = (np.zeros(nlev, dtype=np.int64), np.zeros(nlev, dtype=np.int64), np.zeros(nlev, dtype=np.int64),
           np.zeros(nlev, dtype=np.int64))
    wq = np.ones(nlev)
    _walk_passes(T, W, V, entry_reach, upd_masks, avg_masks, val_masks, br_players, coeffs, prunes, modes, keys,
                 samp_players, boundary_mode, boundary, do_backward, reach, cfv, live, out_cfv, card, sd, S, Av,
                 scr, wq)


@njit(cache=True, nogil=True, _nrt=False)
def _walk_passes(T, W, V, entry_reach, upd_masks, avg_masks, val_masks, br_players, coeffs, prunes, modes, keys,
                 samp_players, boundary_mode, boundary, do_backward, reach, cfv, live, out_cfv, card, sd, S, Av,
                 scr, wq):
    """_walk's passes on the scratch it made, compiled without numba's reference counts (NRT): the
    caller holds every array for the whole call, and nothing here allocates (a new array would fail
    to compile). Bit for bit the same numbers; Kuhn's CFR+ iteration 0.9-1.0 us instead of 5.5."""
    kind, children, re_index = T.kind, T.children, T.re_index
    child_start, child_end, perm_start, perm_end, bcode = T.child_start, T.child_end, T.perm_start, T.perm_end, T.bcode
    round_lo, round_hi, seg_board_lo = W.round_lo, W.round_hi, W.seg_board_lo
    r0, r_end, n0, b0 = W.r0, W.r_end, W.n0, W.b0
    valid0, valid1, perms0, perms1 = T.valid0, T.valid1, T.perms0, T.perms1
    H0 = T.hands0.shape[0]
    H1 = T.hands1.shape[0]
    nlev = r_end - r0 + 1
    cur, nxt, lim, path = scr
    for k in range(upd_masks.shape[0]):
        upd_mask, avg_mask, val_mask, br_player = upd_masks[k], avg_masks[k], val_masks[k], br_players[k]
        pre, pos, neg, floor = coeffs[k, 0], coeffs[k, 1], coeffs[k, 2], coeffs[k, 3]
        decay, weight, pnxt, pweight = coeffs[k, 4], coeffs[k, 5], coeffs[k, 6], coeffs[k, 7]
        prune, mode, key, samp_player = prunes[k], modes[k], keys[k], samp_players[k]
        for c in range(card.shape[0]):
            card[c] = 0.0
        for p in range(2):
            for h in range(H0 if p == 0 else H1):
                reach[n0, p, h] = entry_reach[p, h]
        level = 0
        cur[0] = b0
        for lv in range(nlev):
            wq[lv] = 1.0  # weight 1 / q of the board at each level (1: full walks)
            path[lv] = 0
        if mode != MODE_FULL:
            path[0] = b0
            for lv in range(nlev - 1):
                path[lv + 1], wq[lv + 1] = _sample_board(key, path[lv], bcode, child_start, child_end, perm_start, perm_end)
        sp = samp_player if mode == MODE_EXTERNAL else -1
        grow = avg_mask
        if br_player >= 0:
            grow &= ~(1 << br_player)
        amask = grow if do_backward else 0
        # reach is needed for the players whose averages grow (here, or on a trunk's way down in the
        # subgames below its cut: a player's own average when it updates, [solver] average_pass =
        # "own") and for the opponents of the players whose values are computed
        reach_mask = grow
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
                                floor, pnxt, pweight, cfv, live, S)
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
