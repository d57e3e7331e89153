"""Where a solve's time goes: cProfile over N iterations of an assembly, after a warm-up.

Numba kernels show up as single built-in calls, so the table splits a pass into the CFR kernel,
the codec's kernels, the compressor and the Python around them. CPU seconds per iteration are
process CPU time (every thread).

    python bench/profile_solve.py configs/rhode_island.toml --set transport.threads=1 \\
        --set store.regret_scale=16 --set store.avg_scale=16 --set compressor.name=blosc2 \\
        --set compressor.codec=zstd --set compressor.level=1 --set game.chunks=13 --iterations 20
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

from solverkit.core.config import load_config
from solverkit.core.solver import Solver


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("config")
    ap.add_argument("--set", dest="overrides", action="append", default=[], help="SECTION.PARAM=VALUE")
    ap.add_argument("--warmup", type=int, default=30, help="iterations before profiling (regrets fill in)")
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--top", type=int, default=10)
    args = ap.parse_args(argv)
    solver = Solver(load_config(args.config, args.overrides))
    try:
        for _ in range(args.warmup):
            solver.step()
        prof = cProfile.Profile()
        c0 = time.process_time()
        prof.enable()
        for _ in range(args.iterations):
            solver.step()
        prof.disable()
        print(f"CPU seconds per iteration: {(time.process_time() - c0) / args.iterations:.3f}")
        pstats.Stats(prof).sort_stats("tottime").print_stats(args.top)
    finally:
        solver.close()


if __name__ == "__main__":
    main()
