"""The Figure 5 analogue (Bowling et al., CACM): for strategies of increasing quality, their
exploitability against their loss to an essentially optimal strategy, both in mbb/g.

For each game, CFR (alternating) and CFR+ are run once to the largest iteration count, the
strategy saved at each count on the way (a checkpointed run extended with --resume); the "best"
strategy is CFR+ run longer. Each strategy's exploitability is the solver's exact best
response; its loss to the best is the exact expected value of the match (every deal, both
seats), so no sampling noise enters. Writes bench/results/fig5_matches.{json,md} and
docs/img/fig5_matches.png.

    python bench/fig5_matches.py [--games leduc rhode_island] [--counts 3 10 30 100 300]
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"

GAMES = {
    "leduc": ({"name": "leduc"}, 5000),
    "rhode_island": ({"name": "rhode_island", "split_round": 1}, 1200),
}
ALGORITHMS = {"cfr": {"preset": "cfr", "solver": {"update": "alternating"}}, "cfr_plus": {"preset": "cfr_plus"}}


def strategies(game_table, name, cfg, counts, work):
    """{iterations: run directory} of one algorithm, by extending one checkpointed run."""
    from solverkit.core.config import load_config
    from solverkit.core.solver import run_solve

    out = work / name
    runs = {}
    raw = {**cfg, "game": dict(game_table), "solver": {**cfg.get("solver", {}), "eval_every": 10 ** 9}}
    for i, n in enumerate(sorted(counts)):
        if i == 0:
            run_solve(load_config(raw), iterations=n, out=out, checkpoint_every=str(10 ** 9))
        else:
            run_solve(load_config(out / "config.toml"), iterations=n, out=out, resume=True,
                      checkpoint_every=str(10 ** 9))
        keep = work / f"{name}_{n}"
        shutil.copytree(out, keep, ignore=shutil.ignore_patterns("checkpoint.skc", "store"))
        runs[n] = keep
    return runs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", nargs="+", default=["leduc"], choices=sorted(GAMES))
    ap.add_argument("--counts", nargs="+", type=int, default=[3, 10, 30, 100, 300, 1000])
    ap.add_argument("--work", default="runs/fig5", help="where the runs go")
    args = ap.parse_args()

    from solverkit.core.config import load_config
    from solverkit.core.solver import exploitability, run_solve
    from solverkit.poker.match import exact_value, mbb
    from solverkit.poker.players import load_player

    rows = []
    for gname in args.games:
        table, best_iters = GAMES[gname]
        work = Path(args.work) / gname
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        t0 = time.perf_counter()
        best_dir = work / "best"
        run_solve(load_config({"preset": "cfr_plus", "game": dict(table), "solver": {"eval_every": 10 ** 9}}),
                  iterations=best_iters, out=best_dir)
        game = load_config(best_dir / "config.toml").game
        unit = mbb(game)
        best = load_player(str(best_dir), game)
        best_expl = exploitability(game, best.strategy)[0] / unit
        rows.append({"game": gname, "algorithm": "cfr_plus (best)", "iterations": best_iters,
                     "exploitability_mbb": best_expl, "loss_to_best_mbb": 0.0})
        for aname, cfg in ALGORITHMS.items():
            for n, run in strategies(table, aname, cfg, args.counts, work).items():
                player = load_player(str(run), game)
                expl = exploitability(game, player.strategy)[0] / unit
                loss = -exact_value(game, player, best) / unit
                rows.append({"game": gname, "algorithm": aname, "iterations": n, "exploitability_mbb": expl,
                             "loss_to_best_mbb": loss})
                print(f"{gname:13} {aname:9} {n:6}  exploitability {expl:10.3f}  loss to best {loss:9.3f} mbb/g",
                      flush=True)
        print(f"{gname}: {time.perf_counter() - t0:.0f} s")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "fig5_matches.json").write_text(json.dumps({"rows": rows, "counts": args.counts}, indent=2) + "\n")
    lines = ["| game | algorithm | iterations | exploitability (mbb/g) | loss to the best (mbb/g) |",
             "|---|---|---|---|---|"]
    lines += [f"| {r['game']} | {r['algorithm']} | {r['iterations']:,} | {r['exploitability_mbb']:.3f} | "
              f"{r['loss_to_best_mbb']:.3f} |" for r in rows]
    (RESULTS / "fig5_matches.md").write_text("\n".join(lines) + "\n")
    plot(rows, ROOT / "docs" / "img" / "fig5_matches.png")


def plot(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    games = list(dict.fromkeys(r["game"] for r in rows))
    fig, axes = plt.subplots(1, len(games), figsize=(5.6 * len(games), 4.6), squeeze=False)
    for ax, gname in zip(axes[0], games):
        for aname, marker in (("cfr", "o"), ("cfr_plus", "s")):
            pts = [r for r in rows if r["game"] == gname and r["algorithm"] == aname]
            ax.plot([r["exploitability_mbb"] for r in pts], [max(r["loss_to_best_mbb"], 1e-3) for r in pts],
                    marker=marker, ls="-", label=aname)
            for r in pts:
                ax.annotate(f"{r['iterations']}", (r["exploitability_mbb"], max(r["loss_to_best_mbb"], 1e-3)),
                            xytext=(3, 3), textcoords="offset points", fontsize=7)
        lim = [min(r["exploitability_mbb"] for r in rows if r["game"] == gname) / 2,
               max(r["exploitability_mbb"] for r in rows if r["game"] == gname) * 2]
        ax.plot(lim, lim, color="grey", ls=":", lw=0.8, label="loss = exploitability")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("exploitability (mbb/g)")
        ax.set_ylabel("loss to the best strategy, exact (mbb/g)")
        ax.set_title(f"{gname}: strategies after N iterations (labels)")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
