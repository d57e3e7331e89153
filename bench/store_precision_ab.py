"""float64 against float32 store values on one spot, in one process (issue 25): two solvers of the
same config, one per ``[store] precision``, step one iteration each in turn (one thread), so both
see the same machine load; minimum and median seconds an iteration, their ratio, and both solvers'
exploitability at the end (the float32 trajectory parts from float64's in the last digits).

    python bench/store_precision_ab.py                                  # the preset, 156M values
    python bench/store_precision_ab.py --set game.board=QsJh2h8d --iterations 20

Writes bench/results/store_precision_ab.md and .json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default=str(ROOT / "configs" / "spot_preset.toml"))
    ap.add_argument("--set", dest="overrides", action="append", default=[], help="SECTION.PARAM=VALUE")
    ap.add_argument("--warm", type=int, default=3, help="untimed iterations first (kernels loaded, regrets filled)")
    ap.add_argument("--iterations", type=int, default=12, help="timed iterations of each solver")
    ap.add_argument("--results", default="store_precision_ab")
    args = ap.parse_args(argv)

    from solverkit.core.config import load_config
    from solverkit.core.solver import Solver

    solvers = {}
    for precision in ("float64", "float32"):
        sets = [*args.overrides, "transport.name=local", "transport.threads=1", f"store.precision={precision}"]
        solvers[precision] = Solver(load_config(args.config, sets))
    for s in solvers.values():
        s.step(args.warm)
    wall: dict[str, list[float]] = {p: [] for p in solvers}
    cpu: dict[str, list[float]] = {p: [] for p in solvers}
    load0 = os.getloadavg()
    for i in range(args.iterations):
        order = list(solvers) if i % 2 == 0 else list(reversed(solvers))
        for p in order:
            t, c = time.perf_counter(), time.process_time()
            solvers[p].step(1)
            wall[p].append(time.perf_counter() - t)
            cpu[p].append(time.process_time() - c)
    load1 = os.getloadavg()
    rows = {}
    for p, s in solvers.items():
        ev = s.evaluate(exact=True)
        rows[p] = {"wall_min": min(wall[p]), "wall_median": statistics.median(wall[p]), "cpu_min": min(cpu[p]),
                   "cpu_median": statistics.median(cpu[p]), "exploitability": ev["exploitability"],
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
