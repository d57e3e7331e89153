"""Chance-sampled CFR+ against full CFR+ on true Rhode Island hold'em: time to a target.

The same run (one process, one after the other, the same machine load) solves the game three
ways, each CFR+ (rm_plus + linear averaging, alternating updates): full passes (configs/
rhode_island.toml: cut after round 1, 2 subgame threads); ``[sampler] name = "public_chance"``
(public chance sampling: one flop and one turn per pass, every hand of both players) on the
same cut; and chance sampling on the uncut game, whose blocks of passes run in one kernel call.
It records exploitability against solve time (evaluations excluded) and wall time (included),
and the time each run first measured each target (mbb/g).

    python bench/ri_chance_sampling.py [--target 10] [--time-limit 300] [--seed 1]

Results: bench/results/ri_chance_sampling.json and .md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
RESULTS = ROOT / "bench" / "results"
MARKS = (1000.0, 300.0, 100.0, 30.0, 20.0, 15.0, 10.0, 5.0, 1.0)

RUNS = {
    "full CFR+ (split_round 1)": {"game": {"split_round": 1}, "solver": {}},
    "chance CFR+ (split_round 1)": {"game": {"split_round": 1}, "sampler": "public_chance",
                                    "solver": {"eval_every": "10s"}},
    "chance CFR+ (uncut, blocks)": {"game": {"split_round": 0}, "sampler": "public_chance",
                                    "solver": {"eval_every": "5s"}},
}


def run(label: str, spec: dict, target: float, time_limit: float, seed: int) -> dict:
    from solverkit.core.config import load_config
    from solverkit.core.solver import run_solve

    cfg = {
        "preset": "cfr_plus",
        "game": {"name": "rhode_island", **spec["game"]},
        "transport": {"name": "local", "threads": 2},
        "solver": {"iterations": 10_000_000, "target_mbb": target, "time_limit": time_limit, "seed": seed,
                   **spec["solver"]},
    }
    if "sampler" in spec:
        cfg["sampler"] = spec["sampler"]
    asm = load_config(cfg)
    walls = {}
    t0 = time.perf_counter()

    def on_metrics(row):
        walls[row["iteration"]] = time.perf_counter() - t0
        print(f"{label}: iteration {row['iteration']}, {row['seconds']:.1f} s, {row['exploitability_mbb']:.2f} mbb/g",
              flush=True)

    res = run_solve(asm, on_metrics=on_metrics)
    end = time.perf_counter() - t0
    # (the row of a run stopped by its time limit is measured after the loop: no callback)
    curve = [{"iteration": r["iteration"], "solve_s": round(r["seconds"], 2),
              "wall_s": round(walls.get(r["iteration"], end), 2), "mbb": r["exploitability_mbb"],
              "nodes": r.get("nodes_touched")} for r in res.metrics]
    to_mark = {}
    for m in MARKS:
        hit = next((r for r in curve if r["mbb"] <= m), None)
        to_mark[f"{m:g}"] = None if hit is None else {"solve_s": hit["solve_s"], "wall_s": hit["wall_s"],
                                                       "iteration": hit["iteration"]}
    last = curve[-1]
    return {"run": label, "config": cfg, "iterations": last["iteration"], "solve_s": last["solve_s"],
            "wall_s": last["wall_s"], "final_mbb": last["mbb"], "reached_target": res.reached_target,
            "to_mark": to_mark, "curve": curve}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", type=float, default=10.0, help="mbb/g")
    ap.add_argument("--time-limit", type=float, default=300.0, help="solve seconds per run")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--runs", nargs="+", default=list(RUNS), choices=list(RUNS))
    args = ap.parse_args(argv)
    rows = [run(label, RUNS[label], args.target, args.time_limit, args.seed) for label in args.runs]
    result = {
        "command": " ".join(["python bench/ri_chance_sampling.py", *(argv if argv is not None else sys.argv[1:])]),
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, load average "
                   f"{os.getloadavg()[0]:.1f} at the end",
        "date": time.strftime("%Y-%m-%d"),
        "target_mbb": args.target,
        "rows": rows,
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "ri_chance_sampling.json").write_text(json.dumps(result, indent=2) + "\n")
    marks = [m for m in MARKS if m >= args.target]
    lines = [
        "# Chance-sampled CFR+ against full CFR+, true Rhode Island hold'em",
        "",
        f"`{result['command']}` on {result['machine']}, {result['date']}. Solve seconds (evaluations "
        "excluded; wall seconds, evaluations included, in brackets) until the first evaluation at or below "
        "each exploitability; '-' not reached within the time limit.",
        "",
        "| run | " + " | ".join(f"{m:g} mbb/g" for m in marks) + " | iterations | final mbb/g |",
        "|---|" + "---|" * (len(marks) + 2),
    ]
    for r in rows:
        cells = []
        for m in marks:
            hit = r["to_mark"][f"{m:g}"]
            cells.append("-" if hit is None else f"{hit['solve_s']:g} ({hit['wall_s']:g})")
        lines.append(f"| {r['run']} | " + " | ".join(cells) + f" | {r['iterations']} | {r['final_mbb']:.2f} |")
    lines += ["", "Exploitability (mbb/g) against solve seconds:", ""]
    for r in rows:
        pts = r["curve"][:: max(1, len(r["curve"]) // 12)] + r["curve"][-1:]
        lines.append(f"- {r['run']}: " + ", ".join(f"{p['solve_s']:g} s: {p['mbb']:.1f}" for p in pts))
    (RESULTS / "ri_chance_sampling.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
