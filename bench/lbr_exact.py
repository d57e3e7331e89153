"""Local best response against the exact best response on games where both run: few-iteration
CFR+ strategies and the baselines of Kuhn, Leduc, no-limit Leduc (fcpa, LBR betting the tree's
pot and all-in) and Rhode Island (its own evaluator): each strategy's exact exploitability
(`solverkit exploit`) next to LBR's value with its 95% interval, per seat too. LBR must stay
below the exact value (plus its interval) and should find a good part of it. Writes
bench/results/lbr_exact.{json,md}.

    python bench/lbr_exact.py [--hands 20000] [--seed 0]
"""

from __future__ import annotations

import argparse
import platform
import sys
import tempfile
import time
from pathlib import Path

from common import md_table, write_results

GAMES = {
    "kuhn": ({"name": "kuhn"}, None, (2, 10)),
    "leduc": ({"name": "leduc"}, None, (3, 10, 30)),
    "leduc.nolimit (fcpa)": ({"name": "acpc", "gamedef": "leduc.nolimit"}, "1p,a", (5, 20)),
    "rhode_island": ({"name": "rhode_island", "split_round": 1}, None, (3, 30)),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    from solverkit.api import solve
    from solverkit.core.solver import exploitability
    from solverkit.poker.lbr import LocalBestResponse, opponent_for
    from solverkit.poker.players import NoLimitPlayer, Player, baseline_strategy, is_nolimit, load_player

    rows = []
    work = Path(tempfile.mkdtemp(prefix="lbr_exact_"))
    for label, (table, sizes, counts) in GAMES.items():
        players = []
        for n in counts:
            out = work / f"{label.split()[0]}_{n}"
            solve({"preset": "cfr_plus", "game": table}, iterations=n, out=out)
            players.append((f"CFR+, {n} iterations", load_player(str(out))))
        game = players[0][1].game
        kind = NoLimitPlayer if is_nolimit(game) else Player
        for name in ("call", "random", "raise"):
            players.append((f"always {name}" if name != "random" else "uniform random",
                            kind(game, baseline_strategy(game, name), name)))
        for what, player in players:
            expl, br0, br1 = exploitability(game, player.strategy)
            start = time.perf_counter()
            r = LocalBestResponse(game, opponent_for(game, player), sizes=sizes).run(args.hands, seed=args.seed)
            wall = time.perf_counter() - start
            rows.append({"game": label, "strategy": what, "exact": expl, "br0": br0, "br1": br1, "lbr": r.value,
                         "half_width": r.half_width, "lbr0": r.seat_values[0], "lbr1": r.seat_values[1],
                         "share": r.value / expl if expl else None, "below": r.value <= expl + r.half_width,
                         "hands": args.hands, "hands_per_second": args.hands / wall})
            print(f"{label:22} {what:22} exact {expl:8.4f}  LBR {r.value:+8.4f} +/- {r.half_width:.4f}  "
                  f"({args.hands / wall:,.0f} hands/s)", flush=True)
    meta = {"machine": platform.platform(), "python": sys.version.split()[0], "command": " ".join(sys.argv),
            "seed": args.seed}
    lines = ["# Local best response against the exact best response", "",
             f"`{meta['command']}` on {meta['machine']} (Python {meta['python']}), seed {args.seed}; chips per "
             "game. exact = (br_0 + br_1) / 2 of `solverkit exploit`; LBR's interval is 95% over deals.", "",
             *md_table(["game", "strategy", "exact", "LBR", "LBR / exact", "below", "br_0 / LBR seat 0",
                        "br_1 / LBR seat 1", "hands/s"],
                       ([r["game"], r["strategy"], f"{r['exact']:.4f}", f"{r['lbr']:+.4f} ± {r['half_width']:.4f}",
                         f"{r['share']:.2f}", "yes" if r["below"] else "NO", f"{r['br0']:.3f} / {r['lbr0']:+.3f}",
                         f"{r['br1']:.3f} / {r['lbr1']:+.3f}", f"{r['hands_per_second']:,.0f}"] for r in rows))]
    md = write_results("lbr_exact", {"meta": meta, "rows": rows}, "\n".join(lines) + "\n")
    print(f"wrote {md}")


if __name__ == "__main__":
    main()
