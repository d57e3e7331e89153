"""Figure 1c/1d plots and table from a finished `solverkit study configs/fig1cd.toml` run.

    solverkit study configs/fig1cd.toml --out runs/fig1cd
    python bench/fig1cd_plots.py runs/fig1cd [--img docs/img]

Writes fig1c_scale_factors.png (exploitability against iterations, one curve per regret scale
factor), fig1d_memory.png (the store's compressed megabytes when 1 mbb/g is first reached,
against the factor) and fig1cd_summary.csv, and prints the table as markdown. Runs that were cut
short (fewer iterations than the study asked) are marked as such in the table.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

TARGET_MBB = 1.0  # the paper's point; --target-mbb for a shortened study


def factor_of(name: str) -> float:
    return float(name[1:].replace("_", "."))


def load(run_dir: Path) -> dict[float, list[dict]]:
    runs = {}
    for path in sorted((run_dir / "runs").glob("s*__rhode_island__seed0/metrics.csv")):
        with path.open() as f:
            rows = list(csv.DictReader(f))
        if rows:
            runs[factor_of(path.parent.name.split("__")[0])] = rows
    return dict(sorted(runs.items()))


def summary(runs, target):
    out = []
    for f, rows in runs.items():
        hit = next((r for r in rows if float(r["exploitability_mbb"]) <= target), None)
        last = rows[-1]
        out.append({
            "regret_scale": f,
            "target_mbb": target,
            "iterations_to_target": int(hit["iteration"]) if hit else None,
            "stored_mb_at_target": round(int(hit["stored_bytes"]) / 1e6, 2) if hit else None,
            "ratio_at_target": round(float(hit["compression_ratio"]), 2) if hit else None,
            "last_iteration": int(last["iteration"]),
            "mbb_at_last": round(float(last["exploitability_mbb"]), 3),
            "stored_mb_at_last": round(int(last["stored_bytes"]) / 1e6, 2),
        })
    return out


def plots(runs, rows, img: Path, target: float, reference=None):
    import matplotlib
    import matplotlib.ticker

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    cmap = plt.get_cmap("viridis")
    for i, (f, r) in enumerate(runs.items()):
        ax.plot([int(x["iteration"]) for x in r], [float(x["exploitability_mbb"]) for x in r], lw=1.4,
                color=cmap(i / max(1, len(runs) - 1)), label=f"{f:g}")
    if reference:
        ax.plot([int(x["iteration"]) for x in reference], [float(x["exploitability_mbb"]) for x in reference],
                color="black", ls="--", lw=1.2, label="float64")
    ax.axhline(target, color="grey", ls=":", lw=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("iterations")
    ax.set_ylabel("exploitability (mbb/g)")
    ax.set_title("Fig. 1c: Rhode Island, CFR+ with fixed-point regrets")
    ax.legend(title="regret scale", fontsize=7, ncol=2)
    ax.grid(True, which="major", alpha=0.3)
    fig.tight_layout()
    fig.savefig(img / "fig1c_scale_factors.png", dpi=120)
    plt.close(fig)

    hit = [r for r in rows if r["stored_mb_at_target"] is not None]
    missed = [r["regret_scale"] for r in rows if r["stored_mb_at_target"] is None]
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    ax.plot([r["regret_scale"] for r in hit], [r["stored_mb_at_target"] for r in hit], "o-")
    ax.set_xscale("log")
    if missed:  # the left wall: factors that never reach the target
        ax.axvspan(min(missed) / 1.2, max(missed) * 1.2, color="grey", alpha=0.15, lw=0)
        ax.text((min(missed) * max(missed)) ** 0.5, 0.5, f"never reach\n{target:g} mbb/g", transform=ax.get_xaxis_transform(),
                ha="center", va="center", fontsize=8, color="dimgrey")
    factors = [r["regret_scale"] for r in rows]
    ax.set_xticks(factors, [f"{f:g}" for f in factors], fontsize=8)
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlabel("regret scale factor (per chip)")
    ax.set_ylabel(f"compressed store at {target:g} mbb/g (MB)")
    ax.set_title(f"Fig. 1d: memory when {target:g} mbb/g is reached")
    ax.grid(True, which="major", alpha=0.3)
    fig.tight_layout()
    fig.savefig(img / "fig1d_memory.png", dpi=120)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run_dir", type=Path)
    ap.add_argument("--img", type=Path, default=Path(__file__).resolve().parent.parent / "docs" / "img")
    ap.add_argument("--target-mbb", type=float, default=TARGET_MBB, help="the point of Fig. 1d (paper: 1 mbb/g)")
    ap.add_argument("--reference", type=Path, help="metrics.csv of a float64 CFR+ run to draw beside the curves "
                    "(e.g. runs/fig1ab/runs/cfr_plus__rhode_island__seed0/metrics.csv)")
    args = ap.parse_args(argv)
    runs = load(args.run_dir)
    if not runs:
        raise SystemExit(f"no fig1cd metrics under {args.run_dir / 'runs'}: run the study first")
    rows = summary(runs, args.target_mbb)
    args.img.mkdir(parents=True, exist_ok=True)
    reference = None
    if args.reference:  # the float64 run, up to the study's last iteration
        cap = max(int(r[-1]["iteration"]) for r in runs.values())
        with args.reference.open() as f:
            reference = [r for r in csv.DictReader(f) if int(r["iteration"]) <= cap]
    plots(runs, rows, args.img, args.target_mbb, reference)
    with (args.img / "fig1cd_summary.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    fmt = lambda x: "not reached" if x is None else f"{x:,}"  # noqa: E731
    t = f"{args.target_mbb:g} mbb/g"
    print(f"| regret scale | to {t} | store MB at {t} | ratio | mbb/g at the last iteration | store MB at the last |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['regret_scale']:g} | {fmt(r['iterations_to_target'])} | {fmt(r['stored_mb_at_target'])} | "
              f"{fmt(r['ratio_at_target'])} | {r['mbb_at_last']} at {r['last_iteration']:,} | {r['stored_mb_at_last']} |")


if __name__ == "__main__":
    main()
