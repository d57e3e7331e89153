"""float64 against float32 store values on one spot, in one process (issue 25): two solvers of the
same config, one per ``[store] precision``, step one iteration each in turn (one thread), so both
see the same machine load; minimum and median seconds an iteration, their ratio, and both solvers'
exploitability at the end (the float32 trajectory parts from float64's in the last digits).

    python bench/store_precision_ab.py                                  # the preset, 156M values
    python bench/store_precision_ab.py --set game.board=QsJh2h8d --iterations 20

Writes bench/results/store_precision_ab.md and .json.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from common import step_ab, step_ab_parser  # noqa: E402


def main(argv=None):
    args = step_ab_parser(__doc__, "store_precision_ab", 12).parse_args(argv)

    from solverkit.core.config import load_config
    from solverkit.core.solver import Solver

    solvers = {}
    for precision in ("float64", "float32"):
        sets = [*args.overrides, "transport.name=local", "transport.threads=1", f"store.precision={precision}"]
        solvers[precision] = Solver(load_config(args.config, sets))
    times, load0, load1 = step_ab(solvers, args.warm, args.iterations)
    rows = {}
    for p, s in solvers.items():
        ev = s.evaluate(exact=True)
        rows[p] = {**times[p], "exploitability": ev["exploitability"],
                   "stored_bytes": s.store.stored_bytes()}
        s.close()
    result = {"config": args.config, "overrides": args.overrides, "warm": args.warm, "iterations": args.iterations,
              "machine": platform.machine(), "cpus": os.cpu_count(), "when": time.strftime("%Y-%m-%d %H:%M UTC",
                                                                                         time.gmtime()),
              "load_before": load0, "load_after": load1, "rows": rows}
    out = ROOT / "bench" / "results" / args.results
    out.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n")
    f64, f32 = rows["float64"], rows["float32"]
    lines = [
        "# float64 against float32 store values, one process (issue 25)", "",
        f"`python bench/store_precision_ab.py {' '.join('--set ' + o for o in args.overrides)}"
        f" --iterations {args.iterations}` ({result['machine']}, {result['cpus']} cores, {result['when']}; load "
        f"{load0[0]:.2f} before, {load1[0]:.2f} after): {args.config}, one thread, {args.warm} untimed iterations, "
        f"then {args.iterations} iterations of each solver in turn (order alternating).", "",
        "| precision | wall s / iteration, min | median | CPU s, min | median | stored bytes | exploitability at "
        f"{args.warm + args.iterations} |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for p, r in rows.items():
        lines.append(f"| {p} | {r['wall_min']:.3f} | {r['wall_median']:.3f} | {r['cpu_min']:.3f} | "
                     f"{r['cpu_median']:.3f} | {r['stored_bytes']:,} | {r['exploitability']:.6g} |")
    lines += ["", f"float32 / float64: wall {f32['wall_min'] / f64['wall_min']:.3f}x (min), "
              f"{f32['wall_median'] / f64['wall_median']:.3f}x (median); CPU {f32['cpu_min'] / f64['cpu_min']:.3f}x "
              f"(min); stored bytes {f32['stored_bytes'] / f64['stored_bytes']:.2f}x.", ""]
    out.with_suffix(".md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
