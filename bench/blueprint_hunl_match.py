"""Heads-up no-limit blueprint (configs/blueprint_hunl.toml) against the ACPC example player and
always-call, in duplicate matches through solverkit's dealer (issue 28's goal: the blueprint beats
the example player by a wide margin). Writes bench/results/blueprint_hunl_match.{json,md}.

    python bench/blueprint_hunl_match.py                    # solve (about 10 minutes), then the matches
    python bench/blueprint_hunl_match.py --run RUN_DIR      # matches of an existing blueprint run
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("SOLVERKIT_AOT_BUILD", "0")  # timed solves start no background kernel build (core.aot_auto)

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"


def match(run: Path, opponent: str, hands: int, seed: int) -> dict:
    from solverkit.poker.match import run_match
    from solverkit.poker.players import load_player

    a = load_player(str(run))
    report = run_match(a.game, a, load_player(opponent, a.game), hands=hands, seed=seed, exact=False)
    return {"opponent": opponent, "hands": report.hands, "mbb_per_game": report.sampled_mbb,
            "half_width_mbb": report.half_width_mbb, "seconds": report.seconds,
            "translated": a.stats["translated"], "off_tree_hands": a.stats["off_tree_hands"]}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", type=Path, help="an existing blueprint run directory (default: solve one)")
    ap.add_argument("--out", type=Path, default=Path("runs/blueprint_hunl"), help="where to solve")
    ap.add_argument("--hands", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=2)
    args = ap.parse_args(argv)
    run = args.run
    solve_seconds = None
    if run is None:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "solverkit", "solve", str(ROOT / "configs/blueprint_hunl.toml"),
                        "--out", str(args.out), "--force"], check=True)
        solve_seconds = time.perf_counter() - start
        run = args.out
    result = json.loads((run / "result.json").read_text())
    rows = [match(run, opp, args.hands, args.seed) for opp in ("example", "call")]
    out = {"run": str(run), "iterations": result.get("iterations"), "solve_seconds": solve_seconds,
           "hands": args.hands, "seed": args.seed, "matches": rows,
           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "blueprint_hunl_match.json").write_text(json.dumps(out, indent=2) + "\n")
    lines = ["# Heads-up no-limit blueprint against baselines (bench/blueprint_hunl_match.py)", "",
             f"{out['date']}, 2 shared cores. Blueprint: configs/blueprint_hunl.toml "
             f"({out['iterations']:,} external-sampling iterations, fcpa, EHS buckets [0, 50, 50, 50]). "
             f"Duplicate matches of {args.hands:,} hands (seed {args.seed}) through solverkit's dealer; "
             "the blueprint plays the real game (opponent sizes translated into its tree).", "",
             "| opponent | blueprint's winnings mbb/g | 95% interval | opponent sizes translated | hands off the tree |",
             "| --- | --- | --- | --- | --- |"]
    for r in rows:
        lines.append(f"| {r['opponent']} | {r['mbb_per_game']:+.1f} | +/- {r['half_width_mbb']:.1f} | "
                     f"{r['translated']:,} | {r['off_tree_hands']:,} |")
    lines += ["", "`example` is the ACPC server's example player (fold 0.06, call 0.47, raise 0.47 over the legal "
              "actions, a raise to a uniformly drawn legal size); `call` always checks or calls."]
    (RESULTS / "blueprint_hunl_match.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
