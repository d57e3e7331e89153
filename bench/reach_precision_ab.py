"""float64 against float32 reach vectors in a float32 store's walks, in one process (issue 25): two
solvers of the same float32 config, one whose walks carry float64 reach (as before) and one with
float32 reach and float32 showdown sums (the engine's choice for float32 values), step one
iteration each in turn (one thread); minimum and median seconds an iteration, their ratio, and
each solver's exploitability at checkpoints (evaluated with float64 reach for both).

    python bench/reach_precision_ab.py                                  # the preset, 156M values
    python bench/reach_precision_ab.py --iterations 30 --checkpoints 50,100,168 --threads 2

Writes bench/results/reach_precision_ab.md and .json.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from common import step_ab, step_ab_parser  # noqa: E402


def main(argv=None):
    ap = step_ab_parser(__doc__, "reach_precision_ab", 10)
    ap.add_argument("--checkpoints", default="", help="then iterations (comma-separated totals) at which both "
                    "solvers' exploitability is evaluated, on --threads threads")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)

    import solverkit.poker.walks as walks
    from solverkit.core.config import load_config
    from solverkit.core.solver import Solver

    # both reach dtypes with float32 values are two signatures of one kernel: call through numba's
    # type dispatch (the same ~40 us a call for both; an iteration of the preset is ~1 s)
    walks._entry = lambda kernel, dtype=np.float64: kernel
    sets = [*args.overrides, "transport.name=local", "transport.threads=1", "store.precision=float32",
            "solver.target=0"]
    solvers = {name: Solver(load_config(args.config, sets)) for name in ("float64 reach", "float32 reach")}
    game64 = solvers["float64 reach"].game
    own = type(game64)._bufs
    game64._bufs = lambda dtype=np.float64: own(game64, np.float64)  # this solver's walks: float64 reach
    times, load0, load1 = step_ab(solvers, args.warm, args.iterations)
    rows = {p: {**times[p], "exploitability": {}} for p in solvers}
    done = args.warm + args.iterations
    for s in solvers.values():
        s.close()
    checkpoints = [int(x) for x in args.checkpoints.split(",") if x.strip()]
    if checkpoints:  # fresh solvers on --threads threads, the same iterations as the timed ones had
        sets = [x if x != "transport.threads=1" else f"transport.threads={args.threads}" for x in sets]
        for p in rows:
            s = Solver(load_config(args.config, sets))
            if p == "float64 reach":
                g = s.game
                g._bufs = lambda dtype=np.float64, g=g: own(g, np.float64)
            at = 0
            for c in checkpoints:
                s.step(c - at)
                at = c
                g = s.game
                keep = g.__dict__.get("_bufs")
                g._bufs = lambda dtype=np.float64, g=g: own(g, np.float64)  # evaluated with float64 reach
                rows[p]["exploitability"][c] = s.evaluate(exact=True)["exploitability"]
                if keep is None:
                    del g._bufs
                else:
                    g._bufs = keep
                print(p, c, rows[p]["exploitability"][c], flush=True)
            s.close()
    result = {"config": args.config, "overrides": args.overrides, "warm": args.warm, "iterations": args.iterations,
              "machine": platform.machine(), "cpus": os.cpu_count(),
              "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "load_before": load0, "load_after": load1,
              "timed_after": done, "rows": rows}
    out = ROOT / "bench" / "results" / args.results
    out.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n")
    f64, f32 = rows["float64 reach"], rows["float32 reach"]
    cmd = " ".join(["python bench/reach_precision_ab.py", *("--set " + o for o in args.overrides),
                    f"--iterations {args.iterations}", *([f"--checkpoints {args.checkpoints}"] if checkpoints else [])])
    lines = [
        "# float64 against float32 reach in a float32 store's walks, one process (issue 25)", "",
        f"`{cmd}` ({result['machine']}, {result['cpus']} cores, {result['when']}; load {load0[0]:.2f} before, "
        f"{load1[0]:.2f} after): {Path(args.config).name}, float32 values, one thread, {args.warm} untimed "
        f"iterations, then {args.iterations} of each solver in turn (order alternating).", "",
        "| walks | wall s / iteration, min | median | CPU s, min | median |"
        + "".join(f" % pot at {c} |" for c in checkpoints),
        "| --- | --- | --- | --- | --- |" + " --- |" * len(checkpoints),
    ]
    for p, r in rows.items():
        lines.append(f"| {p} | {r['wall_min']:.3f} | {r['wall_median']:.3f} | {r['cpu_min']:.3f} | "
                     f"{r['cpu_median']:.3f} |" + "".join(f" {r['exploitability'][c]:.5f} |" for c in checkpoints))
    lines += ["", f"float32 / float64 reach: wall {f32['wall_min'] / f64['wall_min']:.3f}x (min), "
              f"{f32['wall_median'] / f64['wall_median']:.3f}x (median); CPU {f32['cpu_min'] / f64['cpu_min']:.3f}x "
              f"(min), {f32['cpu_median'] / f64['cpu_median']:.3f}x (median).", ""]
    if checkpoints:
        lines += [f"Exploitability: fresh solvers of each kind on {args.threads} threads, evaluated with float64 "
                  "reach at the iterations above.", ""]
    out.with_suffix(".md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
