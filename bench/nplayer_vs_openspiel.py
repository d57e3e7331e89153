"""Games of three and four players: seconds per CFR / CFR+ iteration and NashConv after the same
iterations, solverkit's generic tree engine against OpenSpiel's C++ solvers (pyspiel.CFRSolver,
pyspiel.CFRPlusSolver), on 3- and 4-player Kuhn and 3-player Leduc.

Both run in this process on one thread, interleaved in blocks of iterations so that background
load falls on both alike; the figure is the ratio of medians OpenSpiel / solverkit (goal: >= 20).
CFR is regret matching, uniform average, alternating updates (what CFRSolver runs); CFR+ is the
cfr_plus preset (RM+, linear average, alternating: CFRPlusSolver's). NashConv is each tool's own
(solverkit's exact best responses; pyspiel.nash_conv) and, as a check, pyspiel.nash_conv of
solverkit's policy exported (it must equal solverkit's). Building the trees is not timed.

    python bench/nplayer_vs_openspiel.py [--quick] [--render bench/results/nplayer_vs_openspiel.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

from common import interleave, md_table, medians, openspiel_policy, repeated, write_results

os.environ.setdefault("NUMBA_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

#: (label, solverkit [game] table, OpenSpiel game string, iterations, block)
GAMES = [
    ("Kuhn, 3 players", {"name": "kuhn_tree", "players": 3}, "kuhn_poker(players=3)", 1000, 100),
    ("Kuhn, 4 players", {"name": "kuhn_tree", "players": 4}, "kuhn_poker(players=4)", 200, 20),
    ("Leduc, 3 players", {"name": "leduc_tree", "players": 3}, "leduc_poker(players=3)", 10, 2),
]
#: (label, solverkit config without the game, OpenSpiel solver class name)
ALGORITHMS = [
    ("CFR", {"rule": "rm", "averaging": "uniform", "solver": {"update": "alternating"}}, "CFRSolver"),
    ("CFR+", {"preset": "cfr_plus"}, "CFRPlusSolver"),
]


def run_pair(pyspiel, game, table, os_game, cfg, os_cls, iterations, block):
    """Interleaved blocks of OpenSpiel's and solverkit's iterations: (per-iteration medians, NashConvs)."""
    import dataclasses

    from solverkit.core.config import load_config
    from solverkit.core.solver import Solver

    # the assembly of a small game, given the game built once (Leduc's tree takes a while)
    a = load_config({**cfg, "game": {"name": "kuhn_tree", "players": 3}})
    a = dataclasses.replace(a, game=game, resolved={**a.resolved, "game": dict(table)})
    ours = Solver(a)
    theirs = getattr(pyspiel, os_cls)(os_game)
    try:
        per_it = medians(interleave({"openspiel": repeated(theirs.evaluate_and_update_policy), "solverkit": ours.step},
                                    iterations, block))
        row = ours.evaluate(exact=True)
        table = a.game.openspiel_table(ours.strategy())
    finally:
        ours.close()
    os_nc = pyspiel.nash_conv(os_game, theirs.average_policy())
    exported = pyspiel.nash_conv(os_game, openspiel_policy(pyspiel, table))
    return (per_it, {"openspiel": os_nc, "solverkit": row["nash_conv"], "solverkit_by_openspiel": exported})


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a tenth of the iterations, Kuhn only (a smoke run)")
    ap.add_argument("--render", metavar="JSON", help="write the markdown of an earlier result again and stop")
    args = ap.parse_args(argv)
    if args.render:
        path = Path(args.render)
        text = render(json.loads(path.read_text()))
        path.with_suffix(".md").write_text(text)
        print(text)
        return

    import pyspiel

    from solverkit.core.config import load_config

    rows = []
    for label, table, spec, iterations, block in GAMES:
        if args.quick:
            if "leduc" in spec:
                continue
            iterations, block = max(iterations // 10, 2), max(block // 10, 1)
        t0 = time.perf_counter()
        game = load_config({"preset": "cfr_plus", "game": table}).game
        build = time.perf_counter() - t0
        os_game = pyspiel.load_game(spec)
        for alg, cfg, os_cls in ALGORITHMS:
            per_it, nc = run_pair(pyspiel, game, table, os_game, cfg, os_cls, iterations, block)
            rows.append({"game": label, "openspiel_game": spec, "algorithm": alg, "iterations": iterations,
                         "nodes": game.tree.num_nodes, "build_seconds": build, "seconds_per_iteration": per_it,
                         "speedup": per_it["openspiel"] / per_it["solverkit"], "nash_conv": nc})
            print(json.dumps(rows[-1]), flush=True)
    result = {
        "command": " ".join(["python", "bench/" + Path(sys.argv[0]).name, *sys.argv[1:]]),
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores (shared)",
        "openspiel": getattr(pyspiel, "__version__", "") or _version("open_spiel"),
        "rows": rows,
    }
    text = render(result)
    write_results("nplayer_vs_openspiel" + ("_quick" if args.quick else ""), result, text)
    print(text)


def render(result: dict) -> str:
    """The markdown table of a result (``python bench/nplayer_vs_openspiel.py --render FILE.json``
    writes it again from the JSON)."""
    rows = result["rows"]
    lines = [
        "# Games of 3 and 4 players: solverkit's tree engine vs OpenSpiel's C++ CFR / CFR+",
        "",
        f"`{result['command']}` on {result['machine']}, one thread each, interleaved blocks in one process; "
        "per-iteration times are medians of the blocks. NashConv in chips after the same iterations: each "
        "tool's own, and OpenSpiel's `pyspiel.nash_conv` of solverkit's exported policy (the last column: its "
        "relative difference from solverkit's own).",
        "",
    ]
    table = []
    for r in rows:
        t, nc = r["seconds_per_iteration"], r["nash_conv"]
        rel = abs(nc["solverkit_by_openspiel"] - nc["solverkit"]) / abs(nc["solverkit"])
        table.append([f"{r['game']} ({r['nodes']:,} nodes)", r["algorithm"], r["iterations"],
                      f"{t['openspiel'] * 1e6:,.0f}", f"{t['solverkit'] * 1e6:,.1f}", f"{r['speedup']:,.0f}x",
                      f"{nc['openspiel']:.6g}", f"{nc['solverkit']:.6g}",
                      f"{nc['solverkit_by_openspiel']:.6g} (rel. {rel:.1e})"])
    lines += md_table(["game", "algorithm", "iterations", "OpenSpiel us/it", "solverkit us/it", "speed-up",
                       "NashConv OpenSpiel", "NashConv solverkit", "pyspiel's of solverkit's policy"], table)
    lines += ["", "Tree enumeration (Python, once, not timed above): " + ", ".join(
        f"{r['game']} {r['build_seconds']:.1f} s" for r in rows if r["algorithm"] == "CFR") + "."]
    return "\n".join(lines) + "\n"


def _version(dist: str) -> str:
    try:
        from importlib.metadata import version

        return version(dist)
    except Exception:
        return ""


if __name__ == "__main__":
    main()
