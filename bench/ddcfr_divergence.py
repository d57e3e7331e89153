"""Where solverkit's curves leave the DDCFR authors' (issue 30): each of their whole curves
(bench/ddcfr_curves/ALGO_GAME.csv: exploitability at every iteration 0..1,000, from their
repository rpSebastian/DDCFR, results/<ALGO>/<GAME>/data.csv) against solverkit's run of the same
algorithm with the authors' averaging convention ([solver] average_pass = "own"), evaluated after
every iteration: the first iteration past each relative difference. A difference that starts at
the last bits and grows by a steady factor is two correct implementations parting by rounding on
a chaotic sequence; one that jumps is a tie at regret 0 landing on the other side.

    python bench/ddcfr_divergence.py          # about a minute; writes bench/results/ddcfr_divergence.md
"""

from __future__ import annotations

import argparse
import csv
import os
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")
os.environ.setdefault("SOLVERKIT_AOT_BUILD", "0")

HERE = Path(__file__).parent
CURVES = HERE / "ddcfr_curves"
GAMES = {
    "GoofSpiel4": {"name": "openspiel", "game": "goofspiel(num_cards=4,imp_info=True,points_order=descending)"},
    "BattleShip2": {"name": "openspiel", "game": "battleship(board_width=2,board_height=2,ship_sizes=[2],"
                                                 "ship_values=[2],num_shots=3,allow_repeated_shots=False)"},
    "BattleShip3": {"name": "openspiel", "game": "battleship(board_width=2,board_height=3,ship_sizes=[2],"
                                                 "ship_values=[2],num_shots=3,allow_repeated_shots=False)"},
    "LeducPoker": "leduc_tree",
}
PRESETS = {"CFR": "cfr", "CFRPlus": "cfr_plus", "DCFR": "dcfr"}
MARKS = (1e-12, 1e-9, 1e-6, 1e-3, 1e-2)


def divergence(algo: str, game: str) -> dict:
    from solverkit.core.config import load_config
    from solverkit.core.solver import Solver

    with open(CURVES / f"{algo}_{game}.csv", newline="") as fh:
        ref = {int(r["step"]): float(r["conv"]) for r in csv.DictReader(fh)}
    s = Solver(load_config({"preset": PRESETS[algo], "game": GAMES[game],
                            "solver": {"eval_every": 0, "average_pass": "own", "iterations": 1000}}))
    first: dict[float, int] = {}
    v = float("nan")
    for t in range(1, 1001):
        s.step(1)
        v = s.evaluate()["exploitability"]
        d = abs(v / ref[t] - 1)
        for m in MARKS:
            if d > m and m not in first:
                first[m] = t
    s.close()
    return {"algo": algo, "game": game, "first": {f"{m:g}": first.get(m) for m in MARKS},
            "solverkit_1000": v, "paper_1000": ref[1000]}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--name", default="ddcfr_divergence")
    args = ap.parse_args(argv)
    rows = []
    for path in sorted(CURVES.glob("*.csv")):
        algo, game = path.stem.split("_")
        rows.append(divergence(algo, game))
        print(rows[-1], flush=True)
    lines = ["# Where solverkit's curves leave the DDCFR authors'", "",
             "`python bench/ddcfr_divergence.py` (one thread; [solver] average_pass = \"own\"). The first "
             "iteration at which |solverkit / paper - 1| exceeds each bound (\"-\": never within 1,000), and "
             "both exploitabilities at 1,000.", "",
             "| algorithm | game | " + " | ".join(f"> {m:g}" for m in MARKS) + " | solverkit at 1,000 | paper |",
             "|---|---|" + "---|" * len(MARKS) + "---|---|"]
    for r in rows:
        cells = [str(r["first"][f"{m:g}"] or "-") for m in MARKS]
        lines.append(f"| {r['algo']} | {r['game']} | " + " | ".join(cells)
                     + f" | {r['solverkit_1000']:.6g} | {r['paper_1000']:.6g} |")
    (HERE / "results" / f"{args.name}.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
