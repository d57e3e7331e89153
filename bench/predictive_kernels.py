"""Predictive rules in the poker kernels against their update after each pass, same run.

A rule whose update is `predictive_update` (PCFR+, PDCFR+, SAPCFR+) runs inside the poker kernels
on a whole game's float64 store (RegretRule.kernel_prediction), so blocks of passes take it. This
times both ways in one process, interleaved by round: "kernel" (the default) and "after" (the
engine's choice forced off: the kernel writes instantaneous regrets, the rule's update runs over
the whole array after each pass), with CFR+ as the plain rule's floor, and checks that both ways
store the same regrets. CPU seconds per iteration, min over rounds.
Results: bench/results/predictive_kernels.{json,md}.

    python bench/predictive_kernels.py [--game leduc] [--iterations 5000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np

from solverkit.core.config import load_config
from solverkit.core.solver import Solver
from solverkit.poker.pass_settings import GamePassSettings

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
PRESETS = ("pcfr_plus", "pdcfr_plus", "sapcfr_plus", "cfr_plus")


def run(preset: str, game: str, iterations: int) -> tuple[float, np.ndarray, bool]:
    """(CPU seconds per iteration, player 0's regrets, whether passes ran in blocks)."""
    solver = Solver(load_config({"preset": preset, "game": {"name": game}}))
    try:
        solver.step(3)  # the first iterations run one by one; kernels loaded
        t0 = time.process_time()
        solver.step(iterations)
        per = (time.process_time() - t0) / iterations
        with solver.store.open("root", ()) as seg:
            regrets = np.array(seg["regret0"])
        return per, regrets, solver.batches
    finally:
        solver.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="leduc")
    ap.add_argument("--iterations", type=int, default=5000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    inside = GamePassSettings.kernel_predictive
    times = {(p, m): [] for p in PRESETS for m in ("kernel", "after")}
    regrets, blocks = {}, {}
    for _ in range(args.rounds):
        for mode in ("kernel", "after"):
            GamePassSettings.kernel_predictive = (inside if mode == "kernel"
                                                  else (lambda self, rule, store, sampler=None: False))
            for preset in PRESETS:
                per, reg, batched = run(preset, args.game, args.iterations)
                times[(preset, mode)].append(per)
                regrets[(preset, mode)], blocks[(preset, mode)] = reg, batched
    GamePassSettings.kernel_predictive = inside
    rows = []
    for preset in PRESETS:
        k, a = min(times[(preset, "kernel")]), min(times[(preset, "after")])
        same = bool(np.array_equal(regrets[(preset, "kernel")], regrets[(preset, "after")]))
        rows.append({"preset": preset, "kernel_us": k * 1e6, "after_us": a * 1e6, "speedup": a / k,
                     "blocks_kernel": blocks[(preset, "kernel")], "blocks_after": blocks[(preset, "after")],
                     "same_regrets": same})
    RESULTS.mkdir(parents=True, exist_ok=True)
    meta = {"game": args.game, "iterations": args.iterations, "rounds": args.rounds,
            "machine": platform.machine(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    (RESULTS / "predictive_kernels.json").write_text(json.dumps({**meta, "rows": rows}, indent=2) + "\n")
    lines = [f"# Predictive rules in the poker kernels vs their update after each pass ({args.game})", "",
             f"`python bench/predictive_kernels.py --game {args.game} --iterations {args.iterations} --rounds "
             f"{args.rounds}` ({meta['machine']}, {meta['date']}, one process, CPU seconds per iteration, min over "
             "rounds interleaved by mode; 2 cores shared with other work: compare rows of one run only).", "",
             "| preset | in the kernel (us/it) | update after each pass (us/it) | speed-up | blocks (kernel / after) "
             "| same regrets |", "| --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        lines.append(f"| {r['preset']} | {r['kernel_us']:.1f} | {r['after_us']:.1f} | {r['speedup']:.2f}x | "
                     f"{r['blocks_kernel']} / {r['blocks_after']} | {'yes' if r['same_regrets'] else 'NO'} |")
    lines += ["", "CFR+ has no prediction: both columns run the same kernel (the floor a predictive rule can reach)."]
    (RESULTS / "predictive_kernels.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
