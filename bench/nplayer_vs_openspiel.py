"""Games of three to six players: seconds per CFR / CFR+ iteration and NashConv after the same
iterations, solverkit's generic tree engine against OpenSpiel's C++ solvers (pyspiel.CFRSolver,
pyspiel.CFRPlusSolver): by default 3- and 4-player Kuhn and 3-player Leduc (the issue's games);
``--games`` picks others (5- and 6-player Kuhn, ACPC files of 3 players, OpenSpiel games).

Both run in this process on one thread, interleaved in blocks of iterations so that background
load falls on both alike; the figure is the ratio of medians OpenSpiel / solverkit (goal: >= 20).
CFR is regret matching, uniform average, alternating updates (what CFRSolver runs); CFR+ is the
cfr_plus preset (RM+, linear average, alternating: CFRPlusSolver's). NashConv is each tool's own
(solverkit's exact best responses; pyspiel.nash_conv) and, as a check, pyspiel.nash_conv of
solverkit's policy exported (it must equal solverkit's). With ``--cli`` each game is also solved
and exported as a user would (``solverkit solve CONFIG``, ``solverkit export RUN --format
openspiel``) and pyspiel's NashConv of the exported file compared with the run's result.json.
Building the trees is not timed.

    python bench/nplayer_vs_openspiel.py [--quick] [--games kuhn5,acpc_limit3 --cli --stem NAME]
                                         [--render bench/results/nplayer_vs_openspiel.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

from common import interleave, md_table, medians, openspiel_policy, repeated, write_results

os.environ.setdefault("SOLVERKIT_AOT_BUILD", "0")  # timed solves start no background kernel build (core.aot_auto)

os.environ.setdefault("NUMBA_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")


class Game(NamedTuple):
    """A game of the bench: its solverkit [game] table, OpenSpiel's game (a pyspiel.load_game
    string, or universal_poker's parameters for an ACPC file), iterations and timing block."""

    label: str
    table: dict
    openspiel: str | dict
    iterations: int
    block: int
    gamedef: str = ""  # an ACPC file's text (written to a temporary file; [game] gamedef names it)


def _gamedef(betting: str, players: int, **fields) -> str:
    return "\n".join(["GAMEDEF", betting, f"numPlayers = {players}", *(f"{k} = {v}" for k, v in fields.items()),
                      "END GAMEDEF"]) + "\n"


#: a Leduc-like limit file of 3 players with 3 ranks (OpenSpiel's leduc_poker(players=3) has 4)
ACPC_LIMIT3 = dict(numRounds=2, blind="1 1 1", raiseSize="2 4", firstPlayer="1 1", maxRaises="2 2", numSuits=2,
                   numRanks=3, numHoleCards=1, numBoardCards="0 1")
#: a small no-limit file of 3 players (blinds 1 2, stacks 10), solved under fcpa
ACPC_NOLIMIT3 = dict(numRounds=2, stack="10 10 10", blind="1 2 0", firstPlayer="3 1", numSuits=2, numRanks=3,
                     numHoleCards=1, numBoardCards="0 1")

#: the games by name; DEFAULT are the issue's own
GAMES = {
    "kuhn3": Game("Kuhn, 3 players", {"name": "kuhn_tree", "players": 3}, "kuhn_poker(players=3)", 1000, 100),
    "kuhn4": Game("Kuhn, 4 players", {"name": "kuhn_tree", "players": 4}, "kuhn_poker(players=4)", 200, 20),
    "leduc3": Game("Leduc, 3 players", {"name": "leduc_tree", "players": 3}, "leduc_poker(players=3)", 10, 2),
    "kuhn5": Game("Kuhn, 5 players", {"name": "kuhn", "players": 5}, "kuhn_poker(players=5)", 60, 6),
    "kuhn6": Game("Kuhn, 6 players", {"name": "kuhn", "players": 6, "max_nodes": 20_000_000},
                  "kuhn_poker(players=6)", 6, 1),
    "acpc_limit3": Game("ACPC limit, 3 players, 3 ranks x 2 suits, 2 rounds", {"name": "acpc"},
                        {"betting": "limit", "numPlayers": 3, **ACPC_LIMIT3}, 20, 2,
                        _gamedef("limit", 3, **ACPC_LIMIT3)),
    "acpc_nolimit3": Game("ACPC no-limit fcpa, 3 players, stacks 10, 2 rounds", {"name": "acpc", "abstraction": "fcpa"},
                          {"betting": "nolimit", "numPlayers": 3, "bettingAbstraction": "fcpa", **ACPC_NOLIMIT3},
                          40, 4, _gamedef("nolimit", 3, **ACPC_NOLIMIT3)),
    "os_kuhn3": Game("openspiel kuhn_poker(players=3)", {"name": "openspiel", "game": "kuhn_poker(players=3)"},
                     "kuhn_poker(players=3)", 1000, 100),
    "os_goofspiel3": Game("openspiel goofspiel(players=3,num_cards=3), turn-based",
                          {"name": "openspiel", "game": "goofspiel(players=3,num_cards=3)"},
                          "goofspiel(players=3,num_cards=3)", 300, 30),
    "os_auction3": Game("openspiel first_sealed_auction(players=3), general-sum",
                        {"name": "openspiel", "game": "first_sealed_auction(players=3)"},
                        "first_sealed_auction(players=3)", 100, 10),
}
DEFAULT = ("kuhn3", "kuhn4", "leduc3")
#: (label, solverkit config without the game, OpenSpiel solver class name)
ALGORITHMS = [
    ("CFR", {"rule": "rm", "averaging": "uniform", "solver": {"update": "alternating"}}, "CFRSolver"),
    ("CFR+", {"preset": "cfr_plus"}, "CFRPlusSolver"),
]


def load_openspiel(pyspiel, spec):
    """OpenSpiel's game of a bench game: universal_poker of an ACPC file's fields, or a load_game
    string (simultaneous games turned turn-based, as solverkit's openspiel game does)."""
    if isinstance(spec, dict):
        return pyspiel.load_game("universal_poker", spec)
    game = pyspiel.load_game(spec)
    if game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
        game = pyspiel.convert_to_turn_based(game)
    return game


def cli_check(pyspiel, os_game, table: dict, cfg: dict, iterations: int, work: Path) -> dict:
    """Solve and export as a user would (``solverkit solve CONFIG``; ``solverkit export RUN --format
    openspiel -o FILE``): the run's own NashConv (result.json) and pyspiel's of the exported file."""
    import tomli_w

    work.mkdir(parents=True, exist_ok=True)
    config = work / "config.toml"
    config.write_text(tomli_w.dumps({**cfg, "game": table, "solver": {**cfg.get("solver", {}),
                                                                      "iterations": iterations}}))
    run, exported = work / "run", work / "policy.json"
    env = {**os.environ, "NUMBA_NUM_THREADS": "1"}
    subprocess.run(["solverkit", "solve", str(config), "--out", str(run), "--quiet", "--force"], check=True,
                   env=env, stdout=subprocess.DEVNULL)
    subprocess.run(["solverkit", "export", str(run), "--format", "openspiel", "-o", str(exported)], check=True, env=env)
    ours = json.loads((run / "result.json").read_text())["nash_conv"]
    policy = {k: {int(a): p for a, p in v.items()} for k, v in json.loads(exported.read_text()).items()}
    return {"solverkit": ours, "openspiel_of_export": pyspiel.nash_conv(os_game, openspiel_policy(pyspiel, policy))}


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
    ap.add_argument("--quick", action="store_true", help="a tenth of the iterations, no Leduc (a smoke run)")
    ap.add_argument("--games", default=",".join(DEFAULT),
                    help=f"comma-separated games (default {','.join(DEFAULT)}); choices: {', '.join(GAMES)}")
    ap.add_argument("--iterations", type=int, default=None, help="iterations of every game (default: each game's)")
    ap.add_argument("--block", type=int, default=None, help="iterations a timed block (default: each game's)")
    ap.add_argument("--cli", action="store_true",
                    help="also solve and export each game through the solverkit command (the export check)")
    ap.add_argument("--stem", default=None, help="results file name under bench/results (default "
                    "nplayer_vs_openspiel, _quick with --quick)")
    ap.add_argument("--render", metavar="JSON", help="write the markdown of an earlier result again and stop")
    args = ap.parse_args(argv)
    if args.render:
        path = Path(args.render)
        text = render(json.loads(path.read_text()))
        path.with_suffix(".md").write_text(text)
        print(text)
        return
    names = [g.strip() for g in args.games.split(",") if g.strip()]
    bad = [g for g in names if g not in GAMES]
    if bad or not names:
        ap.error(f"--games {args.games!r}: unknown {', '.join(bad) or '(none given)'}; choices: {', '.join(GAMES)}")

    import pyspiel

    from solverkit.core.config import load_config

    rows = []
    load_start = os.getloadavg()[0]  # the machine is shared: the load before and after is part of the result
    with tempfile.TemporaryDirectory(prefix="nplayer_bench_") as tmp:
        for name in names:
            g = GAMES[name]
            iterations, block = args.iterations or g.iterations, args.block or g.block
            if args.quick:
                if name == "leduc3":
                    continue
                iterations, block = max(iterations // 10, 2), max(block // 10, 1)
            table = dict(g.table)
            if g.gamedef:
                path = Path(tmp) / f"{name}.game"
                path.write_text(g.gamedef)
                table["gamedef"] = str(path)
            t0 = time.perf_counter()
            game = load_config({"preset": "cfr_plus", "game": table}).game
            build = time.perf_counter() - t0
            os_game = load_openspiel(pyspiel, g.openspiel)
            for alg, cfg, os_cls in ALGORITHMS:
                per_it, nc = run_pair(pyspiel, game, table, os_game, cfg, os_cls, iterations, block)
                row = {"game": g.label, "key": name, "openspiel_game": g.openspiel, "solverkit_game": g.table,
                       "algorithm": alg, "iterations": iterations, "nodes": game.tree.num_nodes,
                       "players": game.num_players, "build_seconds": build, "seconds_per_iteration": per_it,
                       "speedup": per_it["openspiel"] / per_it["solverkit"], "nash_conv": nc}
                if g.gamedef:
                    row["gamedef"] = g.gamedef
                if args.cli:
                    row["cli"] = cli_check(pyspiel, os_game, table, cfg, iterations, Path(tmp) / f"{name}-{alg}")
                rows.append(row)
                print(json.dumps(row), flush=True)
            del game
    result = {
        "command": " ".join(["python", "bench/" + Path(sys.argv[0]).name, *sys.argv[1:]]),
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores (shared)",
        "load_average_start": load_start,
        "load_average": os.getloadavg()[0],
        "openspiel": getattr(pyspiel, "__version__", "") or _version("open_spiel"),
        "rows": rows,
    }
    text = render(result)
    write_results(args.stem or ("nplayer_vs_openspiel" + ("_quick" if args.quick else "")), result, text)
    print(text)


def render(result: dict) -> str:
    """The markdown table of a result (``python bench/nplayer_vs_openspiel.py --render FILE.json``
    writes it again from the JSON)."""
    rows = result["rows"]
    players = sorted({r["players"] for r in rows if "players" in r}) or [3, 4]
    title = ", ".join(map(str, players[:-1])) + (" and " if len(players) > 1 else "") + str(players[-1])
    load = f" (load average {result['load_average']:.2f} at the end)" if "load_average" in result else ""
    if "load_average_start" in result:
        load = f" (load average {result['load_average_start']:.2f} at the start, {result['load_average']:.2f} at the end)"
    lines = [
        f"# Games of {title} players: solverkit's tree engine vs OpenSpiel's C++ CFR / CFR+",
        "",
        f"`{result['command']}` on {result['machine']}{load}, one thread each, interleaved blocks in one process; "
        "per-iteration times are medians of the blocks. NashConv in chips after the same iterations: each "
        "tool's own, and OpenSpiel's `pyspiel.nash_conv` of solverkit's exported policy (the last column: its "
        "relative difference from solverkit's own).",
        "",
    ]
    cli = any("cli" in r for r in rows)
    table = []
    for r in rows:
        t, nc = r["seconds_per_iteration"], r["nash_conv"]
        cells = [f"{r['game']} ({r['nodes']:,} nodes)", r["algorithm"], r["iterations"],
                 f"{t['openspiel'] * 1e6:,.0f}", f"{t['solverkit'] * 1e6:,.1f}", f"{r['speedup']:,.0f}x",
                 f"{nc['openspiel']:.6g}", f"{nc['solverkit']:.6g}",
                 f"{nc['solverkit_by_openspiel']:.6g} (rel. {_rel(nc['solverkit_by_openspiel'], nc['solverkit']):.1e})"]
        if cli:
            c = r.get("cli")
            cells.append(f"{c['openspiel_of_export']:.6g} vs {c['solverkit']:.6g} (rel. "
                         f"{_rel(c['openspiel_of_export'], c['solverkit']):.1e})" if c else None)
        table.append(cells)
    columns = ["game", "algorithm", "iterations", "OpenSpiel us/it", "solverkit us/it", "speed-up",
               "NashConv OpenSpiel", "NashConv solverkit", "pyspiel's of solverkit's policy"]
    lines += md_table(columns + (["`solve` + `export --format openspiel`: pyspiel's vs result.json"] if cli else []),
                      table)
    lines += ["", "Tree enumeration (Python, once, not timed above): " + ", ".join(
        f"{r['game']} {r['build_seconds']:.1f} s" for r in rows if r["algorithm"] == "CFR") + "."]
    if "load_average" in result:
        lines += ["", *goals(rows)]
    if result.get("notes"):  # findings added to the JSON by hand (end-to-end checks beyond the bench)
        lines += ["", *result["notes"]]
    return "\n".join(lines) + "\n"


def _rel(x: float, want: float) -> float:
    """|x - want| / |want| (0 when both are 0)."""
    return 0.0 if x == want else abs(x - want) / abs(want)


def goals(rows: list[dict]) -> list[str]:
    """The issue's goals, row by row: exported NashConv equal to 1e-9 relative, NashConv no worse
    than OpenSpiel's after the same iterations, speed-up >= 20."""
    def verdict(fails: list[str]) -> str:
        return "met in every row" if not fails else "NOT met: " + "; ".join(fails)

    def where(r: dict) -> str:
        return f"{r['key']} {r['algorithm']}"

    rel = [where(r) + f" ({_rel(r['nash_conv']['solverkit_by_openspiel'], r['nash_conv']['solverkit']):.1e})"
           for r in rows if _rel(r["nash_conv"]["solverkit_by_openspiel"], r["nash_conv"]["solverkit"]) > 1e-9]
    rel += [where(r) + " (solve + export)" for r in rows
            if "cli" in r and _rel(r["cli"]["openspiel_of_export"], r["cli"]["solverkit"]) > 1e-9]
    worse = [where(r) + f" ({r['nash_conv']['solverkit']:.6g} > {r['nash_conv']['openspiel']:.6g})" for r in rows
             if r["nash_conv"]["solverkit"] > r["nash_conv"]["openspiel"] * (1 + 1e-9)]
    slow = [where(r) + f" ({r['speedup']:.1f}x)" for r in rows if r["speedup"] < 20]
    return [f"- pyspiel's NashConv of the exported policy = solverkit's to 1e-9 relative: {verdict(rel)}.",
            f"- NashConv no worse than OpenSpiel's after the same iterations: {verdict(worse)}.",
            f"- speed-up >= 20x OpenSpiel's C++ per iteration: {verdict(slow)}."]


def _version(dist: str) -> str:
    try:
        from importlib.metadata import version

        return version(dist)
    except Exception:
        return ""


if __name__ == "__main__":
    main()
