"""Seconds per CFR+ iteration on Leduc hold'em: solverkit against OpenSpiel's C++ CFR+.

Both run in this process, interleaved in blocks of iterations so that background load falls on
both alike; the ratio OpenSpiel / solverkit is the figure (goal: >= 100). Exploitability after
the same number of iterations is reported for both, each from its own tools.

    python bench/leduc_vs_openspiel.py [--iterations 1000] [--block 50]
"""

from __future__ import annotations

import argparse
import platform
import sys
from pathlib import Path

from common import interleave, md_table, medians, repeated, write_results


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
    runs = {"openspiel": repeated(os_solver.evaluate_and_update_policy),
            "solverkit_iso": repeated(ours[True].step), "solverkit_raw": repeated(ours[False].step)}
    per_it = medians(interleave(runs, args.iterations, args.block))
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
    lines = [
        "# Leduc hold'em: CFR+ seconds per iteration, solverkit vs OpenSpiel C++",
        "",
        f"`python bench/{result['command']}`, {args.iterations} iterations each, medians of blocks of {args.block}.",
        "",
        *md_table(["program", "us / iteration", "speed-up vs OpenSpiel", "exploitability (chips)"], [
            ["OpenSpiel CFRPlusSolver (C++)", f"{per_it['openspiel'] * 1e6:.0f}", 1, f"{os_expl:.4g}"],
            *([label, f"{per_it[k] * 1e6:.0f}", f"{result['speedup_vs_openspiel'][k]:.1f}", f"{expl[k]:.4g}"]
              for k, label in (("solverkit_iso", "solverkit leduc, suit isomorphism"),
                               ("solverkit_raw", "solverkit leduc, no isomorphism")))]),
    ]
    text = "\n".join(lines) + "\n"
    write_results("leduc_vs_openspiel", result, text)
    print(text)


if __name__ == "__main__":
    main()
