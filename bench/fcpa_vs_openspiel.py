"""Seconds per CFR+ iteration on small no-limit (fcpa) games: solverkit against OpenSpiel's C++ CFR+.

The same ACPC no-limit file is solved by solverkit (``[game] name = "acpc"``, abstraction fcpa)
and by pyspiel.CFRPlusSolver on universal_poker loaded from the file's text with
``bettingAbstraction=fcpa``. Both run in this process, interleaved in blocks of iterations so
that background load falls on both alike; the ratio OpenSpiel / solverkit is the figure (goal:
>= 100). After the same number of iterations each side's exploitability is computed by OpenSpiel's
own C++ ``pyspiel.exploitability`` (solverkit's average strategy through ``export --format
openspiel``'s table) and by solverkit for its own strategy: the two numbers for solverkit must agree.

    python bench/fcpa_vs_openspiel.py [--iterations 200] [--block 20] [--game leduc.nolimit --game PATH]
"""

from __future__ import annotations

import argparse
import platform
import sys
from pathlib import Path

from common import interleave, md_table, medians, openspiel_policy, repeated, write_results

#: a second game of the bench: no-limit Leduc's betting on a 3-suit, 4-rank deck with 20-big-blind stacks
#: (4 suits x 6 ranks and 50 big blinds: OpenSpiel's exploitability ran out of 8 GB)
WIDER = ("GAMEDEF\nnolimit\nnumPlayers = 2\nnumRounds = 2\nstack = 40 40\nblind = 2 1\nfirstPlayer = 2 1\n"
         "numSuits = 3\nnumRanks = 4\nnumHoleCards = 1\nnumBoardCards = 0 1\nEND GAMEDEF\n")


def game_text(name: str) -> tuple[str, str]:
    """(text, the gamedef value solverkit takes) of a bundled name, a path, or 'wider'."""
    from solverkit.poker.gamedef import gamedef_text

    if name == "wider":
        import tempfile

        path = Path(tempfile.mkdtemp(prefix="fcpa_bench_")) / "wider.game"
        path.write_text(WIDER)
        return WIDER, str(path)
    return gamedef_text(name)[0], name


def bench_game(name: str, iterations: int, block: int) -> dict:
    import pyspiel

    from solverkit.core.config import load_config
    from solverkit.core.solver import Solver

    text, gamedef = game_text(name)
    loaded = pyspiel.universal_poker.load_universal_poker_from_acpc_gamedef(text)
    params = dict(loaded.get_parameters())
    params["bettingAbstraction"] = "fcpa"
    os_game = pyspiel.load_game("universal_poker", params)
    os_solver = pyspiel.CFRPlusSolver(os_game)
    ours = {}
    for iso in (True, False):
        a = load_config({"preset": "cfr_plus", "game": {"name": "acpc", "gamedef": gamedef, "isomorphism": iso}})
        ours[iso] = Solver(a)
        ours[iso].step()  # load the kernels before timing (OpenSpiel's first iteration below, too)
    os_solver.evaluate_and_update_policy()
    runs = {"openspiel": repeated(os_solver.evaluate_and_update_policy),
            "solverkit_iso": repeated(ours[True].step), "solverkit_raw": repeated(ours[False].step)}
    per_it = medians(interleave(runs, iterations, block, done=1))
    expl = {"openspiel": pyspiel.exploitability(os_game, os_solver.average_policy())}
    for iso, key in ((True, "solverkit_iso"), (False, "solverkit_raw")):
        s = ours[iso]
        game = s.game
        own = s.evaluate(exact=True)["exploitability"]
        table = game.openspiel_table(game.strategy(s.store, "average"))
        theirs = pyspiel.exploitability(os_game, openspiel_policy(pyspiel, table))
        expl[key] = own
        expl[key + "_by_openspiel"] = theirs
    game = ours[True].game
    return {
        "game": name,
        "information_states": game.game_size().infosets_raw,
        "betting_nodes": int(game.tree.bet.num_nodes),
        "seconds_per_iteration": per_it,
        "speedup_vs_openspiel": {k: per_it["openspiel"] / per_it[k] for k in ("solverkit_iso", "solverkit_raw")},
        "exploitability": expl,
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=200)
    ap.add_argument("--block", type=int, default=20)
    ap.add_argument("--game", action="append", help="bundled name, .game path, or 'wider' (default: leduc.nolimit "
                                                      "and wider)")
    args = ap.parse_args(argv)
    games = args.game or ["leduc.nolimit", "wider"]
    rows = []
    for name in games:
        rows.append(bench_game(name, args.iterations, args.block))
        print(f"{name}: OpenSpiel / solverkit per iteration {rows[-1]['speedup_vs_openspiel']}", flush=True)
    result = {
        "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
        "machine": platform.processor() or platform.machine(),
        "iterations": args.iterations,
        "games": rows,
    }
    rows_md = []
    for row in rows:
        per_it, expl = row["seconds_per_iteration"], row["exploitability"]
        label = f"{row['game']} ({row['information_states']:,})"
        rows_md.append([label, "OpenSpiel CFRPlusSolver (C++)", f"{per_it['openspiel'] * 1e6:.0f}", 1,
                        f"{expl['openspiel']:.6g}", None])
        for k, what in (("solverkit_iso", "solverkit, suit isomorphism"), ("solverkit_raw", "solverkit, no isomorphism")):
            rows_md.append([label, what, f"{per_it[k] * 1e6:.0f}", f"{row['speedup_vs_openspiel'][k]:.1f}",
                            f"{expl[k + '_by_openspiel']:.6g}", f"{expl[k]:.6g}"])
    lines = [
        "# No-limit (fcpa) games: CFR+ seconds per iteration, solverkit vs OpenSpiel C++",
        "",
        f"`python bench/{result['command']}`, {args.iterations} iterations each, medians of blocks of "
        f"{args.block}; both in one process, interleaved. Exploitability in chips per hand after the same "
        "iterations, by OpenSpiel's `exploitability` (solverkit's strategy through the openspiel export) and by "
        "solverkit itself. `wider`: no-limit Leduc's betting on 3 suits x 4 ranks, stacks 40, blinds 2/1.",
        "",
        *md_table(["game (OpenSpiel information states)", "program", "us / iteration", "speed-up vs OpenSpiel",
                   "exploitability (OpenSpiel)", "exploitability (solverkit)"], rows_md),
    ]
    text = "\n".join(lines) + "\n"
    write_results("fcpa_vs_openspiel", result, text)
    print(text)


if __name__ == "__main__":
    main()
