"""Figure 1a/1b plots and table from a finished `solverkit study configs/fig1ab.toml` run.

    solverkit study configs/fig1ab.toml --out runs/fig1ab
    python bench/fig1ab_plots.py runs/fig1ab [--img docs/img]

Writes fig1a_rhode_island.png (CFR, RM+ alone, linear weighting alone, CFR+: exploitability of
the average strategy), fig1b_rhode_island.png (average vs current strategy of CFR and CFR+) and
fig1ab_summary.csv (first evaluated iteration at or below 10 and 1 mbb/g, and the exploitability
at the last iteration), and prints the table as markdown.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

FIG1A = {"cfr": "CFR (rm + uniform)", "rm_plus_only": "RM+ alone (rm_plus + uniform)",
         "linear_only": "linear weighting alone (rm + linear)", "cfr_plus": "CFR+ (rm_plus + linear)"}
FIG1B = {"cfr": "CFR, average", "cfr_current": "CFR, current", "cfr_plus": "CFR+, average",
         "cfr_plus_current": "CFR+, current"}
TARGETS_MBB = (10.0, 1.0)


def load(run_dir: Path) -> dict[str, list[tuple[int, float]]]:
    curves = {}
    for path in sorted((run_dir / "runs").glob("*__rhode_island__seed0/metrics.csv")):
        assembly = path.parent.name.split("__")[0]
        with path.open() as f:
            curves[assembly] = [(int(r["iteration"]), float(r["exploitability_mbb"])) for r in csv.DictReader(f)]
    return curves


def first_at(curve, target):
    return next((t for t, v in curve if v <= target), None)


def plot(curves, names, path, title):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    for key, label in names.items():
        if key in curves:
            c = curves[key]
            ax.plot([p[0] for p in c], [p[1] for p in c], lw=1.6, label=label,
                    ls="--" if key.endswith("_current") else "-")
    for t in TARGETS_MBB:
        ax.axhline(t, color="grey", ls=":", lw=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("iterations")
    ax.set_ylabel("exploitability (mbb/g)")
    ax.set_title(title)
    ax.legend()
    ax.grid(True, which="major", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run_dir", type=Path)
    ap.add_argument("--img", type=Path, default=Path(__file__).resolve().parent.parent / "docs" / "img")
    args = ap.parse_args(argv)
    curves = load(args.run_dir)
    if not curves:
        raise SystemExit(f"no rhode_island metrics under {args.run_dir / 'runs'}: run the fig1ab study first")
    args.img.mkdir(parents=True, exist_ok=True)
    plot(curves, FIG1A, args.img / "fig1a_rhode_island.png", "Fig. 1a: Rhode Island hold'em, average strategy")
    plot(curves, FIG1B, args.img / "fig1b_rhode_island.png", "Fig. 1b: Rhode Island hold'em, current vs average")
    rows = []
    for key in dict.fromkeys([*FIG1A, *FIG1B]):
        if key not in curves:
            continue
        c = curves[key]
        rows.append({"assembly": key, "iterations_to_10_mbb": first_at(c, 10.0), "iterations_to_1_mbb": first_at(c, 1.0),
                     "last_iteration": c[-1][0], "mbb_at_last": round(c[-1][1], 3)})
    with (args.img / "fig1ab_summary.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print("| assembly | to 10 mbb/g | to 1 mbb/g | mbb/g at the last iteration |")
    print("|---|---|---|---|")
    for r in rows:
        fmt = lambda x: "not reached" if x is None else f"{x:,}"  # noqa: E731
        print(f"| {r['assembly']} | {fmt(r['iterations_to_10_mbb'])} | {fmt(r['iterations_to_1_mbb'])} | "
              f"{r['mbb_at_last']} at {r['last_iteration']:,} |")


if __name__ == "__main__":
    main()
