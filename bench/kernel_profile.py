"""Where a no-limit spot's pass spends its time (issue 25): the public-tree kernel's pieces timed
one at a time on one thread over a whole round's boards, on the real tree and values of a spot
after a few iterations (forward reach sweeps, terminal values, backward value sweeps), next to
the whole pass (dfs_block) for both players.

    python bench/kernel_profile.py                         # configs/spot_preset.toml, 156M values
    python bench/kernel_profile.py --config X --set game.board=QsJh2h8d --repeats 5

Each piece's time is the minimum over `--repeats` interleaved runs (2 shared cores: others run
too). The pieces' drivers below call the kernels' own round sweeps (inlined, as _walk does).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from solverkit.core.config import load_config
from solverkit.core.game import PassBlock
from solverkit.core.solver import Solver
from solverkit.poker.betting import FOLD, SHOWDOWN
from solverkit.poker.kernels import _backward_round, _forward_round, _terminals, dfs_block, float_values
from solverkit.poker.terminal_kernels import _batch_size, _fold_batch, _showdown2_batch, batch_width

ROOT_CONFIG = "configs/spot_preset.toml"
SOLVE_SETTINGS = ["game.split_round=0", "transport.name=local", "transport.threads=1", "store.precision=float64"]


@njit(cache=False, nogil=True)
def forward_boards(T, W, V, r, g0, g1, amask, reach_mask, decay, weight, reach, live):
    """_forward_round at round r on boards g0..g1-1 (every node live, the reach the buffers hold)."""
    S = np.empty(1)
    Av = np.empty(1)
    lo, hi = W.round_lo[r], W.round_hi[r]
    for g in range(g0, g1):
        for n in range(lo, hi):
            live[n] = 1
        _forward_round(T, W, V, r, g, lo, hi, amask, reach_mask, decay, weight, reach, live, False, -1,
                       np.uint64(0), np.int64(0), S, Av)


@njit(cache=False, nogil=True)
def terminal_boards(T, W, r, g0, g1, val_mask, reach, cfv, live):
    """_terminals at round r on boards g0..g1-1 (its scratch made once, as _walk does)."""
    H0 = T.hands0.shape[0]
    H1 = T.hands1.shape[0]
    card = np.zeros(3 * T.deck)
    nn = T.kind.shape[0]
    nsd = batch_width(T.kind, W.round_lo, W.round_hi, W.r0, W.r_end)  # as _walk's
    sd = (np.empty((max(H0, H1), nsd)), np.empty((T.deck, nsd)), np.empty((2, nsd)), np.empty(nsd),
          np.empty(nn, dtype=np.int64), np.empty(nn, dtype=np.int64), np.empty((max(H0, H1), nsd)))
    lo, hi = W.round_lo[r], W.round_hi[r]
    for g in range(g0, g1):
        for n in range(lo, hi):
            live[n] = 1
        _terminals(T, r, g, lo, hi, card, val_mask, reach, cfv, live, sd)


@njit(cache=False, nogil=True)
def terminal_kind_boards(T, W, r, g0, g1, p, kinds, reach, cfv, width=0):
    """The batched terminals of one kind (FOLD or SHOWDOWN) of player p at round r on boards
    g0..g1-1, as _terminals_batched runs them (every node live; no dead-money fold terms), on
    scratch `width` lanes wide (0: _walk's width)."""
    H = max(T.hands0.shape[0], T.hands1.shape[0])
    if width == 0:
        width = batch_width(T.kind, W.round_lo, W.round_hi, W.r0, W.r_end)
    R, C, acc, fs, OUT = (np.empty((H, width)), np.empty((T.deck, width)), np.empty((2, width)),
                          np.empty(width), np.empty((H, width)))
    lo, hi = W.round_lo[r], W.round_hi[r]
    nodes = np.empty(hi - lo, dtype=np.int64)
    ns = 0
    for n in range(lo, hi):
        if T.kind[n] == kinds:
            nodes[ns] = n
            ns += 1
    step = _batch_size(ns, width)
    for g in range(g0, g1):
        i = g - T.last_board_lo
        for b in range(0, ns, step):
            M = min(step, ns - b)
            nd = nodes[b: b + M]
            for m in range(M):
                fs[m] = 1.0 + b + m
            if kinds == FOLD:
                if p == 0:
                    _fold_batch(reach, nd, fs, M, 1, T.hands0, T.hands1, T.same0, T.valid0, g, R, C, acc, cfv, 0)
                else:
                    _fold_batch(reach, nd, fs, M, 0, T.hands1, T.hands0, T.same1, T.valid1, g, R, C, acc, cfv, 1)
            elif p == 0:
                _showdown2_batch(reach, nd, fs, M, 1, T.hands0, T.sd_order0, T.sd_strength0, T.sd_count0[i],
                                 T.hands1, T.sd_order1, T.sd_strength1, T.sd_count1[i], i, R, C, acc, cfv, 0, OUT)
            else:
                _showdown2_batch(reach, nd, fs, M, 0, T.hands1, T.sd_order1, T.sd_strength1, T.sd_count1[i],
                                 T.hands0, T.sd_order0, T.sd_strength0, T.sd_count0[i], i, R, C, acc, cfv, 1, OUT)


@njit(cache=False, nogil=True)
def backward_boards(T, W, V, r, g0, g1, upd_mask, val_mask, pre, pos, neg, floor, cfv, live):
    """_backward_round at round r on boards g0..g1-1 (the values the buffers hold)."""
    S = np.empty(1)
    lo, hi = W.round_lo[r], W.round_hi[r]
    for g in range(g0, g1):
        for n in range(lo, hi):
            live[n] = 1
        _backward_round(T, W, V, r, g, lo, hi, upd_mask, val_mask, -1, pre, pos, neg, floor, 1.0, 1.0, cfv, live, S)


class Bench:
    """A spot's solver after `warm` iterations, its arrays held open for timing kernel pieces."""

    def __init__(self, config, overrides, warm):
        self.solver = Solver(load_config(config, SOLVE_SETTINGS + list(overrides)))
        self.solver.step(warm)
        s, a = self.solver, self.solver.assembly
        g = self.game = s.game
        block = PassBlock(s.iteration + 1, 1, s.groups, a.rule, a.averaging, a.sampler)
        self.plan = g._block_arrays(block)[:7]
        self._ctx = s.store.open("root")
        seg = self._ctx.__enter__()
        self.reg = [seg["regret0"], seg["regret1"]]
        self.avg = [seg["avg0"], seg["avg1"]]
        self.T = g.kernel_tree()
        self.W = g._whole_walk()
        self.V = float_values(self.reg[0], self.reg[1], self.reg[0], self.reg[1], self.avg[0], self.avg[1])
        self.B = g._bufs()
        self.entry = g._root_entry()
        self.values = sum(r.size for r in self.reg)

    def block(self, kernel=dfs_block, V=None):
        """One iteration (both players' passes) through `kernel` (dfs_block's signature)."""
        upd, avgm, coeffs, prunes, modes, keys, samp = self.plan
        kernel(self.T, self.W, V or self.V, self.entry, upd, avgm, coeffs, prunes, modes, keys, samp, self.B)

    def pieces(self, p, r):
        """Callables timing player p's pass pieces at round r over all its boards."""
        b = self.game.tree.boards
        g0, g1 = int(b.round_start[r]), int(b.round_start[r + 1]) if r + 1 < len(b.round_start) else int(
            b.cards.shape[0])
        upd, avgm, coeffs = self.plan[0], self.plan[1], self.plan[2]
        k = 0 if upd[0] == 1 << p else 1
        pre, pos, neg, floor, decay, weight = coeffs[k, :6]
        amask = int(avgm[k])
        reach_mask = amask | (1 << (1 - p))
        T, W, V, B = self.T, self.W, self.V, self.B
        return {
            "forward": lambda: forward_boards(T, W, V, r, g0, g1, amask, reach_mask, decay, weight, B.reach, B.live),
            "terminals": lambda: terminal_boards(T, W, r, g0, g1, 1 << p, B.reach, B.cfv, B.live),
            "folds": lambda: terminal_kind_boards(T, W, r, g0, g1, p, FOLD, B.reach, B.cfv),
            "showdowns": lambda: terminal_kind_boards(T, W, r, g0, g1, p, SHOWDOWN, B.reach, B.cfv),
            "backward": lambda: backward_boards(T, W, V, r, g0, g1, 1 << p, 1 << p, pre, pos, neg, floor, B.cfv,
                                                B.live),
        }

    def close(self):
        self._ctx.__exit__(None, None, None)
        self.solver.close()


def interleaved(fns: dict, repeats: int) -> dict:
    """Minimum seconds of each callable over `repeats` rounds, the callables interleaved."""
    for f in fns.values():
        f()  # compile / warm
    best = {k: float("inf") for k in fns}
    for _ in range(repeats):
        for k, f in fns.items():
            t = time.perf_counter()
            f()
            best[k] = min(best[k], time.perf_counter() - t)
    return best


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default=ROOT_CONFIG)
    ap.add_argument("--set", dest="overrides", action="append", default=[], help="SECTION.PARAM=VALUE")
    ap.add_argument("--warm", type=int, default=4, help="iterations before timing (regrets fill in)")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    bench = Bench(args.config, args.overrides, args.warm)
    try:
        nb = len(bench.game.tree.boards.round_start) - 1
        fns = {"iteration (dfs_block, both passes)": bench.block}
        for p in (0, 1):
            for r in range(nb):
                for name, f in bench.pieces(p, r).items():
                    fns[f"p{p} round {r} {name}"] = f
        best = interleaved(fns, args.repeats)
        total = best.pop("iteration (dfs_block, both passes)")
        print(f"values {bench.values:,}; one iteration {total:.3f} s = {total / bench.values * 1e9:.2f} ns a value")
        parts = 0.0
        for k, v in best.items():
            if not k.endswith(("folds", "showdowns")):  # (parts of "terminals")
                parts += v
            print(f"  {k:28s} {v:8.3f} s  {v / total:6.1%}")
        print(f"  {'rest (deals, collects, ...)':28s} {total - parts:8.3f} s  {(total - parts) / total:6.1%}")
    finally:
        bench.close()


if __name__ == "__main__":
    main()
