"""Seconds per CFR+ iteration on Leduc hold'em: solverkit against OpenSpiel's C++ CFR+.

Both run in this process, interleaved in blocks of iterations so that background load falls on
both alike; the ratio OpenSpiel / solverkit is the figure (goal: >= 100). Exploitability after
the same number of iterations is reported for both, each from its own tools.

    python bench/leduc_vs_openspiel.py [--iterations 1000] [--block 50]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--block", type=int, default=50)
    args = ap.parse_args(argv)

    import pyspiel
    from open_spiel.python.algorithms import exploitability as os_exploitability

    from solverkit.core.config import load_config
    from solverkit.core.solver import Solver

    os_game = pyspiel.load_game("leduc_poker")
    os_solver = pyspiel.CFRPlusSolver(os_game)
    ours = {}
    for iso in (True, False):
        a = load_config({"preset": "cfr_plus", "game": {"name": "leduc", "isomorphism": iso}})
        ours[iso] = Solver(a)
    times = {"openspiel": [], "solverkit_iso": [], "solverkit_raw": []}
    done = 0
    while done < args.iterations:
        n = min(args.block, args.iterations - done)
        t0 = time.perf_counter()
        for _ in range(n):
            os_solver.evaluate_and_update_policy()
        times["openspiel"].append((time.perf_counter() - t0) / n)
        for iso, key in ((True, "solverkit_iso"), (False, "solverkit_raw")):
            s = ours[iso]
            t0 = time.perf_counter()
            for _ in range(n):
                s.step()
            times[key].append((time.perf_counter() - t0) / n)
        done += n
    per_it = {k: statistics.median(v) for k, v in times.items()}
    os_expl = os_exploitability.exploitability(os_game, os_solver.average_policy())
    expl = {k: ours[iso].evaluate(exact=True)["exploitability"] for iso, k in ((True, "solverkit_iso"), (False, "solverkit_raw"))}
    result = {
        "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
        "machine": platform.processor() or platform.machine(),
        "iterations": args.iterations,
        "seconds_per_iteration": per_it,
        "speedup_vs_openspiel": {k: per_it["openspiel"] / per_it[k] for k in ("solverkit_iso", "solverkit_raw")},
        "exploitability": {"openspiel": os_expl, **expl},
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "leduc_vs_openspiel.json").write_text(json.dumps(result, indent=2) + "\n")
    lines = [
        "# Leduc hold'em: CFR+ seconds per iteration, solverkit vs OpenSpiel C++",
        "",
        f"`python bench/{result['command']}`, {args.iterations} iterations each, medians of blocks of {args.block}.",
        "",
        "| program | us / iteration | speed-up vs OpenSpiel | exploitability (chips) |",
        "|---|---|---|---|",
        f"| OpenSpiel CFRPlusSolver (C++) | {per_it['openspiel'] * 1e6:.0f} | 1 | {os_expl:.4g} |",
    ]
    for k, label in (("solverkit_iso", "solverkit leduc, suit isomorphism"), ("solverkit_raw", "solverkit leduc, no isomorphism")):
        lines.append(f"| {label} | {per_it[k] * 1e6:.0f} | {result['speedup_vs_openspiel'][k]:.1f} | {expl[k]:.4g} |")
    text = "\n".join(lines) + "\n"
    (RESULTS / "leduc_vs_openspiel.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
