"""Local best response against the baselines of heads-up hold'em (no-limit: the bundled
holdem.nolimit.2p.reverse_blinds, 20,000-chip stacks, blinds 50/100; limit:
holdem.limit.2p.reverse_blinds), played in the real game without a solve: LBR's winnings in
mbb/g with their 95% interval, and hands per second on this machine. Lisý & Bowling (2017)
rate an always-call player as hugely exploitable; their LBR calls preflop and bets pot or
all-in later (the defaults here). Writes bench/results/lbr_hunl.{json,md}.

    python bench/lbr_hunl.py [--hands 10000] [--seed 0]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

from common import md_table, write_results

#: (label, game definition, opponent, LBR's sizes, first round, share of --hands)
CASES = [
    ("no-limit", "holdem.nolimit.2p.reverse_blinds", "call", "1p,a", "call", 1.0),
    ("no-limit", "holdem.nolimit.2p.reverse_blinds", "call", "1p", "call", 0.5),
    ("no-limit", "holdem.nolimit.2p.reverse_blinds", "call", "1p,a", "lbr", 0.5),
    ("no-limit", "holdem.nolimit.2p.reverse_blinds", "random", "1p,a", "call", 0.5),
    ("no-limit", "holdem.nolimit.2p.reverse_blinds", "raise", "1p,a", "call", 0.5),
    ("limit", "holdem.limit.2p.reverse_blinds", "call", None, "call", 0.5),
    ("limit", "holdem.limit.2p.reverse_blinds", "random", None, "call", 0.5),
    ("limit", "holdem.limit.2p.reverse_blinds", "raise", None, "call", 0.5),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=10_000, help="hands of the main case (always-call, no-limit)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    from solverkit.poker.lbr import LocalBestResponse, opponent_for, table_game

    rows = []
    for label, gamedef, opponent, sizes, preflop, share in CASES:
        game = table_game("acpc", {"gamedef": gamedef})
        lbr = LocalBestResponse(game, opponent_for(game, opponent), sizes=sizes, preflop=preflop)
        lbr.run(20, seed=10**6)  # compiles the kernel outside the timing
        hands = max(2, int(args.hands * share) // 2 * 2)
        start = time.perf_counter()
        r = lbr.run(hands, seed=args.seed)
        wall = time.perf_counter() - start
        row = {"game": label, "gamedef": gamedef, "opponent": opponent, "sizes": r.settings["sizes"],
               "preflop": preflop, "hands": hands, "mbb": r.mbb, "half_width_mbb": r.half_width_mbb,
               "seat0_mbb": r.seat_values[0] * r.mbb_per_chip, "seat1_mbb": r.seat_values[1] * r.mbb_per_chip,
               "seconds": wall, "hands_per_second": hands / wall}
        rows.append(row)
        print(f"{label:8} {opponent:6} sizes {row['sizes']:5} preflop {preflop:4}: {r.mbb:+10.1f} +/- "
              f"{r.half_width_mbb:7.1f} mbb/g over {hands:,} hands, {row['hands_per_second']:,.0f} hands/s", flush=True)
    meta = {"machine": platform.platform(), "processor": platform.processor() or platform.machine(),
            "python": sys.version.split()[0], "command": " ".join(sys.argv), "seed": args.seed,
            "cores": os.cpu_count(), "load_average": round(os.getloadavg()[0], 1)}
    lines = ["# Local best response against heads-up hold'em baselines", "",
             f"`{meta['command']}` on {meta['machine']} (Python {meta['python']}), one thread on a "
             f"{meta['cores']}-core machine shared with other work (load average {meta['load_average']} at the end), "
             f"seed {args.seed}. LBR's winnings per game, each deal played in both seats; the interval is 95% over "
             "deals; hands/s are this machine's under that load.", "",
             *md_table(["game", "opponent", "LBR sizes", "LBR preflop", "hands", "LBR value (mbb/g)", "seat 0",
                        "seat 1", "hands/s"],
                       ([r["game"], r["opponent"], r["sizes"], r["preflop"], f"{r['hands']:,}",
                         f"{r['mbb']:+,.0f} ± {r['half_width_mbb']:,.0f}", f"{r['seat0_mbb']:+,.0f}",
                         f"{r['seat1_mbb']:+,.0f}", f"{r['hands_per_second']:,.0f}"] for r in rows))]
    md = write_results("lbr_hunl", {"meta": meta, "rows": rows}, "\n".join(lines) + "\n")
    print(f"wrote {md}")


if __name__ == "__main__":
    main()
