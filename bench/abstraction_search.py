"""What a card abstraction costs in the real game, and what search with the real cards wins back.

For each game and each number of buckets on the rounds with board cards, solve the abstracted
game with CFR+ (the exact poker engine: information sets (betting, bucket), imperfect recall;
solverkit/poker/abstracted.py), then measure the strategy's exploitability in the real
(unabstracted) game; then re-solve every public state from the second round on with the real
cards (`[search]`: unsafe, resolve, maxmargin; solverkit/search) and measure again. Buckets 0
(lossless) give the unabstracted solve. Writes bench/results/abstraction_search.{json,md} and a
plot of buckets against real exploitability (abstraction_search.png).

A search is a method name, or ``depth_limited`` with its settings after a colon (``key=value``
pairs, commas between them, ``+`` between the names of a list): depth-limited search (Brown,
Sandholm & Amos 2018) from round 0 of a two-round game is the only one with leaves there.

    python bench/abstraction_search.py                          # leduc13 and Rhode Island
    python bench/abstraction_search.py --games leduc13 --buckets 2 4 8 --iterations 1000
    python bench/abstraction_search.py --games leduc --buckets 0 --iterations 300 --search-iterations 1000 \
        --tag search_exploitability_leduc_audit3   # search on a near-equilibrium blueprint: unsafe's failure
    python bench/abstraction_search.py --games leduc13 --buckets 4 0 --tag depth_limited_leduc13 \
        --search unsafe resolve maxmargin depth_limited:round=0 depth_limited:round=0,nested=no \
        depth_limited:round=0,nested=no,continuations=blueprint
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results"
GAMES = {
    "leduc": ({"name": "leduc"}, 2),  # no abstraction to measure: buckets 0 only (search on a near-equilibrium)
    "leduc13": ({"name": "acpc", "gamedef": "leduc13"}, 2),
    "rhode_island": ({"name": "rhode_island"}, 3),
}


def solve(game_table, rounds, method, buckets, iterations):
    from solverkit.core.config import load_config
    from solverkit.core.solver import run_solve

    cfg = {"preset": "cfr_plus", "game": game_table, "solver": {"eval_every": 0}}
    if buckets:
        cfg["abstraction"] = {"name": method, "buckets": [0] + [buckets] * (rounds - 1)}
    t = time.perf_counter()
    a = load_config(cfg)
    result = run_solve(a, iterations=iterations)
    return a.game, result, time.perf_counter() - t


def search_spec(spec: str):
    """(method, keywords of searched_strategy) of a --search entry: a method name, or
    depth_limited:key=value,... (round, depth, nested yes/no, continuations a+b, bias)."""
    method, _, rest = spec.partition(":")
    kw = {}
    for item in filter(None, rest.split(",")):
        key, _, value = item.partition("=")
        if key in ("round", "depth"):
            kw["start_round" if key == "round" else key] = int(value)
        elif key == "nested":
            kw[key] = value in ("yes", "true", "1")
        elif key == "continuations":
            kw[key] = value.split("+")
        elif key == "bias":
            kw[key] = float(value)
        else:
            raise SystemExit(f"--search {spec}: unknown setting {key!r} (round, depth, nested, continuations, bias)")
    return method, kw


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", nargs="+", default=["leduc13", "rhode_island"], choices=list(GAMES))
    ap.add_argument("--buckets", nargs="+", type=int, default=[2, 4, 8, 16, 0])
    ap.add_argument("--method", default="ehs", choices=("ehs", "emd", "ochs"))
    ap.add_argument("--iterations", type=int, default=0, help="CFR+ iterations (default: 200 RI, 1000 the others)")
    ap.add_argument("--search", nargs="*", default=["unsafe", "resolve", "maxmargin", "reach"])
    ap.add_argument("--search-iterations", type=int, default=0, help="per re-solve (default: 100 RI, 300 the others)")
    ap.add_argument("--per-card", choices=("auto", "yes", "no"), default="auto",
                    help="re-solve after each round's cards (yes) or before them (no); auto: yes, but no for "
                         "Rhode Island (15,925 turn states after the card, 637 before)")
    ap.add_argument("--tag", default="abstraction_search")
    args = ap.parse_args()
    from solverkit.core.solver import exploitability
    from solverkit.search.resolve import searched_strategy

    rows = []
    for name in args.games:
        table, rounds = GAMES[name]
        its = args.iterations or (200 if name == "rhode_island" else 1000)
        sits = args.search_iterations or (100 if name == "rhode_island" else 300)
        per_card = args.per_card == "yes" or (args.per_card == "auto" and name != "rhode_island")
        for b in args.buckets:
            game, result, secs = solve(table, rounds, args.method, b, its)
            real, bp = game.real_policy(result.strategy)
            row = {"game": name, "method": args.method if b else "lossless", "buckets": b, "iterations": its,
                   "solve_seconds": round(secs, 2), "real_exploitability": result.exploitability}
            for m in args.search:
                t = time.perf_counter()
                method, kw = search_spec(m)
                st, stats = searched_strategy(real, bp, method, sits, per_card=per_card, **kw)
                row[f"search_{m}"] = exploitability(real, st)[0]
                row[f"search_{m}_seconds"] = round(time.perf_counter() - t, 2)
                row[f"search_{m}_kept"] = sum(stats.kept_blueprint.values())
            row["search_iterations"] = sits
            row["per_card"] = per_card
            rows.append(row)
            print(json.dumps(row), flush=True)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{args.tag}.json").write_text(json.dumps(rows, indent=1) + "\n")
    cols = ["game", "method", "buckets", "iterations", "real_exploitability"] + [f"search_{m}" for m in args.search]
    lines = [f"# {__doc__.splitlines()[0]}", "",
             "Exploitability in the real game, in chips per game (Rhode Island: chips; x100 for mbb/g at its "
             "big blind of 10). `search_*`: the blueprint with every public state re-solved from the second "
             "round on (nested), each method's re-solves with the real cards; `depth_limited:...`: depth-limited "
             "search with those settings (round 0: from the deal). Command: `python bench/abstraction_search.py "
             + " ".join(f"--{k.replace('_', '-')} {' '.join(map(str, v)) if isinstance(v, list) else v}"
                        for k, v in vars(args).items() if v not in (None, 0, "auto")) + "`.", "",
             "| " + " | ".join(cols) + " | re-solve seconds (" + ", ".join(args.search) + ") |", "|" + "---|" * (len(cols) + 1)]
    for r in rows:
        cells = [str(r[c]) if not isinstance(r[c], float) else f"{r[c]:.6g}" for c in cols]
        secs = "/".join(str(r.get(f"search_{m}_seconds", "")) for m in args.search)
        lines.append("| " + " | ".join(cells) + f" | {secs} |")
    (RESULTS / f"{args.tag}.md").write_text("\n".join(lines) + "\n")
    plotted = [g for g in args.games if any(r["game"] == g and r["buckets"] for r in rows)]
    if plotted:  # a plot of buckets needs abstracted rows
        plot(rows, plotted, args.search, RESULTS / f"{args.tag}.png")



def plot(rows: list[dict], games: list[str], searches: list[str], path: Path) -> None:
    """Exploitability in the real game against buckets (ascending), per game: the blueprint and each
    search beside it, the lossless solve as a line (no plot without matplotlib)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, axes = plt.subplots(1, len(games), figsize=(5.5 * len(games), 4.6), squeeze=False)
    for ax, name in zip(axes[0], games):
        rs = sorted((r for r in rows if r["game"] == name and r["buckets"]), key=lambda r: r["buckets"])
        lossless = [r for r in rows if r["game"] == name and not r["buckets"]]
        xs = [r["buckets"] for r in rs]
        ax.plot(xs, [r["real_exploitability"] for r in rs], "o-", label="blueprint (abstracted)")
        for m in searches:
            ax.plot(xs, [r[f"search_{m}"] for r in rs], ".--", label=f"+ search: {m}")
        if lossless:
            ax.axhline(lossless[0]["real_exploitability"], color="gray", lw=0.8, label="lossless (real game)")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("buckets per round with board cards")
        ax.set_ylabel("exploitability in the real game (chips)")
        ax.set_title(name)
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")


if __name__ == "__main__":
    main()
