"""A solved three-player Kuhn strategy seated with two players of the ACPC server's equilibrium
family (the ``kuhn3p_eq`` table baseline, solverkit/poker/kuhn3p_equilibrium.py).

solverkit solves ``[game] name = "kuhn", players = 3`` (preset cfr_plus). For each family member:
its NashConv in OpenSpiel (pyspiel.nash_conv of the member's policy), the seats' values when all
three play it (closed form, checked against a walk of OpenSpiel's game), and the solved player's
exact expected chips in each seat against two players of the member, computed twice: solverkit's
tree engine and a plain recursion over OpenSpiel's states (every deal and action, no sampling).
Its loss in a seat is the member's own value there minus its value. Then a duplicate match
through solverkit's N-seat dealer (every deal played in all 6 seatings) with 95% intervals.

    python bench/kuhn3p_equilibrium.py [--iterations 5000] [--hands 36000] [--seed 1]
"""

from __future__ import annotations

import argparse
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from common import md_table, write_results

#: the members: the ACPC server's three scripts' parameters (b32 at the top of its range: the
#: scripts' 0.791667 rounds 19/24 up), then corners of each sub-family
MEMBERS = [
    ("ACPC c11 = 0", "c11=0,b11=0.25,b21=0.25,b32=0.9375,c33=0,c34=1"),
    ("ACPC 0 < c11 < 1/2 (the default)", "c11=0.33,b11=0.166667,b32=0.791667,c33=0,c34=0.75"),
    ("ACPC c11 = 1/2", "c11=0.5,b11=0.25,b21=0,b23=0.125,b32=0.75,c33=0,c34=0.75"),
    ("c11 = 0, b11 = 0, b21 = 1/4 (the worst for a c11 = 1/2 solve)", "c11=0,b11=0,b21=0.25"),
    ("c11 = 0, b11 = b21 = 0", "c11=0,b11=0,b21=0"),
    ("c11 = 1/2, b11 = 1/4, b21 = b23 = 0", "c11=0.5,b11=0.25,b21=0,b23=0"),
    ("c11 = 1/2, b11 = b21 = 1/6", "c11=0.5,b11=0.1666666667,b21=0.1666666667"),
    ("c11 = 0.49, b11 = b21 at the top", "c11=0.49,b11=0.1724137931"),
]


def _walk(state, tables) -> np.ndarray:
    """Every position's expected return when position p plays tables[p] (OpenSpiel's states)."""
    if state.is_terminal():
        return np.array(state.returns())
    if state.is_chance_node():
        return sum(p * _walk(state.child(a), tables) for a, p in state.chance_outcomes())
    probs = tables[state.current_player()][state.information_state_string()]
    return sum(probs[a] * _walk(state.child(a), tables) for a in state.legal_actions())


def _own_parameters(table: dict) -> dict:
    """The solved strategy's probabilities at the decisions whose choice the family's members
    disagree on (OpenSpiel keys: card id then p/b history)."""
    return {"b11": table["0p"][1], "b21": table["1p"][1], "b23": table["1ppbp"][1],
            "c11": table["0pp"][1], "c21": table["1pp"][1], "a41": table["3"][1]}


def _predicted(own: dict, m) -> list[float]:
    """Each seat's loss the family's indifference conditions predict from `own` (the decisions
    whose gain is not zero against member m; the rest of the solved strategy taken as exact)."""
    seat1 = own["b23"] * (1 - own["b21"]) * (1 - 2 * m.c11) / 12
    c11_gain = (m.b11 - m.b21) / 12 if m.c11 == 0 else 0.0  # c11's gain against P2 (<= 0)
    c21_gain = -(m.b11 - m.b21 - 2 * m.b23 * (1 - m.b21)) / 12 if m.c11 == 0.5 else 0.0
    return [0.0, seat1, -(own["c11"] * c11_gain + own["c21"] * c21_gain)]


def robust_edit(table: dict) -> dict:
    """The solved table with the three decisions the members disagree on set to their safe
    side: position 1 never calls with Q after check, check, bet, fold (b23 = 0), position 2
    never bets J or Q after two checks (c11 = c21 = 0). An observation, not a solver option:
    a best response to every member, far from an equilibrium itself."""
    out = {k: dict(v) for k, v in table.items()}
    for key in ("1ppbp", "0pp", "1pp"):
        out[key] = {0: 1.0, 1: 0.0}
    return out


def solve(iterations: int, out: Path) -> Path:
    from solverkit.core.config import load_config
    from solverkit.core.solver import run_solve

    res = run_solve(load_config({"preset": "cfr_plus", "game": {"name": "kuhn", "players": 3},
                                 "solver": {"iterations": iterations}}), out=out)
    return out, res.metrics[-1]["nash_conv"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--iterations", type=int, default=5000)
    ap.add_argument("--hands", type=int, default=36000, help="a multiple of 6; 0: no sampled matches")
    ap.add_argument("--match-members", type=int, default=3, help="how many members (from the first) to sample")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    import pyspiel

    from solverkit.poker.kuhn3p_equilibrium import parse_spec, seat_values
    from solverkit.poker.table import load_table_player, run_table_match
    from tests.test_kuhn3p_equilibrium import _tables

    tmp = Path(tempfile.mkdtemp(prefix="kuhn3p_eq_"))
    os_game = pyspiel.load_game("kuhn_poker(players=3)")
    convergence = []
    for n in sorted({1000, args.iterations, 4 * args.iterations}):
        run, nc = solve(n, tmp / f"run{n}")
        convergence.append((n, nc, run))
    run = next(r for n, _, r in convergence if n == args.iterations)
    a = load_table_player(str(run))
    game = a.tree_game
    mine = game.openspiel_table(a.strategy)
    own = _own_parameters(mine)
    robust = robust_edit(mine)
    as_list = lambda t: {k: list(v.items()) for k, v in t.items()}  # noqa: E731
    robust_nash_conv = pyspiel.nash_conv(os_game, as_list(robust))
    rows, members = [], []
    for label, spec in MEMBERS:
        m = parse_spec(f"kuhn3p_eq:{spec}")
        eq = load_table_player(f"kuhn3p_eq:{spec}", game)
        theirs = {k: dict(v) for k, v in _tables(m).items()}
        nash_conv = pyspiel.nash_conv(os_game, {k: list(v.items()) for k, v in theirs.items()})
        family = seat_values(m)
        walked_family = _walk(os_game.new_initial_state(), [theirs] * 3)
        seats, losses = [], []
        for seat in range(3):
            strategy = [a.strategy[p] if p == seat else eq.strategy[p] for p in range(3)]
            exact = float(game.expected_values(strategy)[seat])
            walked = float(_walk(os_game.new_initial_state(), [mine if p == seat else theirs for p in range(3)])[seat])
            if abs(exact - walked) > 1e-12:
                sys.exit(f"{label}: seat {seat}: tree engine {exact!r} != OpenSpiel walk {walked!r}")
            seats.append(exact)
            losses.append(family[seat] - exact)
        robust_loss = [family[s] - float(_walk(os_game.new_initial_state(),
                                               [robust if p == s else theirs for p in range(3)])[s]) for s in range(3)]
        per_iteration = {}
        for n, _, r in convergence:
            other = load_table_player(str(r), game)
            per_iteration[n] = float(np.mean([family[s] - game.expected_values(
                [other.strategy[p] if p == s else eq.strategy[p] for p in range(3)])[s] for s in range(3)]))
        members.append({"label": label, "params": m.label(), "nash_conv_openspiel": nash_conv,
                        "family_values": family, "family_values_walked": [float(x) for x in walked_family],
                        "solved_values": seats, "loss": losses, "loss_mean": float(np.mean(losses)),
                        "loss_predicted": _predicted(own, m), "robust_edit_loss": robust_loss, "loss_mean_by_iterations": per_iteration})
        rows.append((label, m.label().split(":", 1)[1], f"{nash_conv:.1e}",
                     " / ".join(f"{v:+.5f}" for v in family),
                     " / ".join(f"{v * 1000:+.3f}" for v in losses), f"{np.mean(losses) * 1000:+.4f}",
                     " / ".join(f"{v * 1000:+.3f}" for v in _predicted(own, m)),
                     f"{max(robust_loss) * 1000:+.4f}"))
    matches = []
    if args.hands:
        for label, spec in MEMBERS[:args.match_members]:
            players = [a, load_table_player(f"kuhn3p_eq:{spec}", game), load_table_player(f"kuhn3p_eq:{spec}", game)]
            t0 = time.perf_counter()
            rep = run_table_match(players, hands=args.hands, seed=args.seed)
            matches.append({"label": label, "hands": rep.hands, "deals": rep.deals, "exact": rep.exact,
                            "sampled": rep.sampled, "half_width": rep.half_width, "seconds": time.perf_counter() - t0,
                            "illegal": rep.illegal})
    result = {"iterations": args.iterations, "nash_conv_solved": {n: nc for n, nc, _ in convergence},
              "solved_parameters": own, "robust_edit_nash_conv": robust_nash_conv, "members": members, "matches": matches,
              "machine": platform.platform(), "python": platform.python_version()}
    lines = ["# A solved 3-player Kuhn strategy with two players of the ACPC equilibrium family", "",
             "`python bench/kuhn3p_equilibrium.py " + " ".join(sys.argv[1:]) + "` "
             f"({time.strftime('%Y-%m-%d')}, {platform.machine()}). solverkit solved `[game] name = \"kuhn\", "
             f"players = 3` with preset cfr_plus, {args.iterations} iterations: NashConv "
             + ", ".join(f"{nc:.2e} at {n}" for n, nc, _ in convergence) + " chips. "
             "Chips per game; mbb/g is 1000 x chips/g (the bet is 1 chip).", "",
             "The solved strategy's probabilities at the decisions the members disagree on (OpenSpiel keys): "
             + ", ".join(f"{k} {v:.4f}" for k, v in own.items())
             + " (a41: the first player bets A; the family never does).", "",
             "## Exact values (every deal and action, no sampling)", "",
             "Family values: each seat's chips when all three play the member (closed form = a walk of OpenSpiel's "
             "game to 1e-12). Loss: the member's own value in the seat minus the solved player's there, with the "
             "other two seats the member's (solverkit's tree engine = a walk of OpenSpiel's game to 1e-12); "
             "never negative, since the member is a Nash equilibrium. Predicted: the loss the family's "
             "indifference conditions give from the solved strategy's b23, c11 and c21 alone. Edited: the solved "
             "strategy with b23 = c11 = c21 = 0 (never call Q after check, check, bet, fold in seat 1; never bet J "
             "or Q after two checks in seat 2), a best response to every member (its loss is the solve's residual), "
             f"but no equilibrium itself: NashConv {robust_nash_conv:.4f} chips when three copies play.", ""]
    lines += md_table(["member", "parameters", "NashConv (OpenSpiel)", "family values, seats 0 / 1 / 2",
                       "loss mbb/g, seats 0 / 1 / 2", "loss mbb/g, rotated", "predicted mbb/g, seats 0 / 1 / 2",
                       "edited: worst seat's loss mbb/g"],
                      rows)
    lines += ["", "Loss over rotated seats (mbb/g) by the solved strategy's iterations:", ""]
    lines += md_table(["member"] + [f"{n} iterations" for n, _, _ in convergence],
                      [(x["label"], *(f"{x['loss_mean_by_iterations'][n] * 1000:+.4f}" for n, _, _ in convergence))
                       for x in members])
    if matches:
        lines += ["", "## Duplicate matches through solverkit's dealer", "",
                  f"A = the solved strategy, B and C = two players of the member; seed {args.seed}; every deal "
                  "played in all 6 seatings; 95% intervals over the deals (chips/game).", ""]
        lines += md_table(["member", "hands", "A exact", "A sampled", "B sampled", "C sampled", "seconds"],
                          [(x["label"], f"{x['hands']:,}", f"{x['exact'][0]:+.5f}",
                            *(f"{m:+.4f} +/- {h:.4f}" for m, h in zip(x["sampled"], x["half_width"])),
                            f"{x['seconds']:.0f}") for x in matches])
    md = write_results("kuhn3p_equilibrium", result, "\n".join(lines) + "\n")
    print(md.read_text())


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    main()
