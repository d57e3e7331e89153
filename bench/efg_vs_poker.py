"""Seconds per CFR+ iteration on Leduc hold'em: the generic extensive-form engine against the
poker public-tree engine (no suit isomorphism), the OpenSpiel bridge (the generic engine on
OpenSpiel's enumeration of leduc_poker) and OpenSpiel's C++ CFRPlusSolver.

All four run in this process, interleaved in blocks of iterations so that background load falls
on all alike; the figure is the ratio generic / poker (goal: <= 3). Exploitability after the
same number of iterations is reported for each (the three solverkit runs must agree to 1e-12).

    python bench/efg_vs_poker.py [--iterations 500] [--block 50]
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

from common import interleave, md_table, medians, repeated, write_results

GAMES = {
    "poker": {"name": "leduc", "isomorphism": False},
    "generic": {"name": "leduc_tree"},
    "openspiel_bridge": {"name": "openspiel", "game": "leduc_poker"},
}
LABELS = {
    "poker": "poker engine, `leduc`, isomorphism = false",
    "generic": "generic tree engine, `leduc_tree` (TreeGame in Python)",
    "openspiel_bridge": "generic tree engine, `openspiel` game = \"leduc_poker\"",
    "openspiel_cpp": "OpenSpiel `pyspiel.CFRPlusSolver` (C++)",
}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=500)
    ap.add_argument("--block", type=int, default=50)
    args = ap.parse_args(argv)

    import pyspiel
    from open_spiel.python.algorithms import exploitability as os_exploitability

    from solverkit.core.config import load_config
    from solverkit.core.solver import Solver

    solvers, build = {}, {}
    for key, game in GAMES.items():
        t0 = time.perf_counter()
        a = load_config({"preset": "cfr_plus", "game": game})
        build[key] = time.perf_counter() - t0
        solvers[key] = Solver(a)  # compiles or loads the kernels (not timed)
    os_game = pyspiel.load_game("leduc_poker")
    os_solver = pyspiel.CFRPlusSolver(os_game)
    runs = {key: repeated(s.step) for key, s in solvers.items()}
    runs["openspiel_cpp"] = repeated(os_solver.evaluate_and_update_policy)
    per_it = medians(interleave(runs, args.iterations, args.block))
    expl = {k: s.evaluate(exact=True)["exploitability"] for k, s in solvers.items()}
    expl["openspiel_cpp"] = os_exploitability.exploitability(os_game, os_solver.average_policy())
    result = {
        "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
        "machine": platform.processor() or platform.machine(),
        "iterations": args.iterations,
        "seconds_per_iteration": per_it,
        "ratio_to_poker_engine": {k: per_it[k] / per_it["poker"] for k in per_it},
        "build_seconds": build,
        "nodes": {k: int(solvers[k].game.tree.num_nodes) for k in ("generic", "openspiel_bridge")},
        "exploitability": expl,
    }
    lines = [
        "# Leduc hold'em: CFR+ seconds per iteration, generic tree engine vs poker engine",
        "",
        f"`python bench/{result['command']}`, {args.iterations} iterations each, medians of blocks of "
        f"{args.block}, all in one process. Generic trees: {result['nodes']['generic']:,} nodes; building "
        f"(enumeration) took {build['generic']:.2f} s for `leduc_tree` and {build['openspiel_bridge']:.2f} s "
        "through OpenSpiel.",
        "",
        *md_table(["program", "us / iteration", "time / poker engine", "exploitability (chips)"],
                  ([LABELS[k], f"{per_it[k] * 1e6:.0f}", f"{result['ratio_to_poker_engine'][k]:.2f}", f"{expl[k]:.10g}"]
                   for k in ("poker", "generic", "openspiel_bridge", "openspiel_cpp"))),
        "",
        "The engines agree to about 1e-14 for the first ~75 iterations (tests/test_efg_engine.py checks",
        "25); after that the CFR+ dynamics amplify the last-bit rounding differences of their different",
        "summation orders (2e-15 at 25, 8e-13 at 100, 6e-9 at 125, 4e-6 at 150), so",
        "after 500 iterations their exploitabilities differ in the third digit while both converge.",
    ]
    text = "\n".join(lines) + "\n"
    write_results("efg_vs_poker", result, text)
    print(text)


if __name__ == "__main__":
    main()
