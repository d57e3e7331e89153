"""Every built-in algorithm on the same games: exploitability at 100, 1,000 and 10,000 iterations.

Runs the presets cfr, cfr_plus, lcfr, dcfr, pcfr_plus, dcfr_plus and pdcfr_plus (each with its
published averaging and alternating updates, as OpenSpiel and the comparison tables run them) on
Kuhn, Leduc, liar's dice (through the OpenSpiel bridge, when open-spiel is installed), a random
100 x 100 matrix game and true Rhode Island hold'em (up to 1 mbb/g or --ri-cap iterations), and
writes bench/results/rules_table.{json,md}. Exploitability is in the game's own unit (chips for
Kuhn, Leduc and liar's dice, payoff for the matrix, mbb/g for Rhode Island).

    python bench/rules_table.py                      # everything (Rhode Island takes the longest)
    python bench/rules_table.py --games kuhn leduc   # a subset
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results"
PRESETS = ["cfr", "cfr_plus", "lcfr", "dcfr", "pcfr_plus", "dcfr_plus", "pdcfr_plus"]
CHECKPOINTS = [100, 1000, 10000]
GAMES = {
    "kuhn": {"name": "kuhn"},
    "leduc": {"name": "leduc"},
    "liars_dice": {"name": "openspiel", "game": "liars_dice"},
    "matrix_100": {"name": "random_matrix", "rows": 100, "cols": 100, "seed": 0},
    "rhode_island": {"name": "rhode_island"},
}


def run(game_table, preset, iterations, target_mbb=0.0, eval_every=100):
    """metrics rows and seconds of one run (the solver's own clock, evaluations excluded)."""
    from solverkit.core.config import load_config
    from solverkit.core.solver import run_solve

    solver = {"eval_every": eval_every, "iterations": iterations}
    if target_mbb:
        solver["target_mbb"] = target_mbb
    asm = load_config({"preset": preset, "game": dict(game_table), "solver": solver})
    res = run_solve(asm, iterations=iterations)
    return res.metrics, res.seconds


def value_at(metrics, t, key):
    for m in metrics:
        if m["iteration"] == t:
            return m[key]
    return math.nan


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="+", default=list(GAMES), choices=list(GAMES))
    ap.add_argument("--presets", nargs="+", default=PRESETS, choices=PRESETS)
    ap.add_argument("--iterations", type=int, default=CHECKPOINTS[-1])
    ap.add_argument("--ri-cap", type=int, default=2000, help="Rhode Island: most iterations per preset")
    ap.add_argument("--name", default="rules_table")
    args = ap.parse_args(argv)
    rows = []
    for gname in args.games:
        table = GAMES[gname]
        if table["name"] == "openspiel":
            try:
                import pyspiel  # noqa: F401
            except ImportError:
                print(f"skipping {gname}: open-spiel is not installed (pip install open-spiel)")
                continue
        for preset in args.presets:
            t0 = time.perf_counter()
            if gname == "rhode_island":
                metrics, secs = run(table, preset, args.ri_cap, target_mbb=1.0, eval_every=25)
                key = "exploitability_mbb"
                hit = next((m["iteration"] for m in metrics if m[key] <= 1.0), None)
                row = {"game": gname, "preset": preset, "unit": "mbb/g", "iterations_to_1mbb": hit,
                       "final_iteration": metrics[-1]["iteration"], "final": metrics[-1][key]}
            else:
                metrics, secs = run(table, preset, args.iterations)
                key = "exploitability"
                row = {"game": gname, "preset": preset, "unit": {"matrix_100": "payoff", "liars_dice": "utility"}.get(gname, "chips")}
                for t in CHECKPOINTS:
                    if t <= args.iterations:
                        row[str(t)] = value_at(metrics, t, key)
            row["solve_seconds"] = secs
            row["wall_seconds"] = time.perf_counter() - t0
            rows.append(row)
            print(json.dumps(row))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{args.name}.json").write_text(json.dumps(rows, indent=2) + "\n")
    (RESULTS / f"{args.name}.md").write_text(markdown(rows))
    print(markdown(rows))


def markdown(rows) -> str:
    out = ["# Built-in algorithms side by side", "",
           "`python bench/rules_table.py` (2 cores, one run at a time). Exploitability of the average "
           "strategy (cfr, cfr_plus, ...: the presets of the same names).", ""]
    fixed = [r for r in rows if r["game"] != "rhode_island"]
    if fixed:
        out += ["| game | preset | " + " | ".join(f"t = {t:,}" for t in CHECKPOINTS) + " | seconds |",
                "|---|---|" + "---|" * (len(CHECKPOINTS) + 1)]
        for r in fixed:
            cells = " | ".join(f"{r.get(str(t), math.nan):.3g}" for t in CHECKPOINTS)
            out.append(f"| {r['game']} ({r['unit']}) | {r['preset']} | {cells} | {r['solve_seconds']:.1f} |")
        out.append("")
    ri = [r for r in rows if r["game"] == "rhode_island"]
    if ri:
        out += ["| Rhode Island | iterations to 1 mbb/g | last iteration | mbb/g there | seconds |", "|---|---|---|---|---|"]
        for r in ri:
            hit = f"{r['iterations_to_1mbb']:,}" if r["iterations_to_1mbb"] else "not reached"
            out.append(f"| {r['preset']} | {hit} | {r['final_iteration']:,} | {r['final']:.3g} | {r['solve_seconds']:.0f} |")
        out.append("")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    main()
