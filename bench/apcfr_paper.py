"""Table 2 of Meng et al. (AAAI 2026, "Faster Game Solving via Asymmetry of Step Sizes"): the
final exploitability of DCFR, PCFR+, APCFR+, SAPCFR+, DCFR+ and APDCFR+ on Leduc poker with 5, 9
and 13 ranks, solverkit's beside the paper's, with the ratio and a verdict per cell.

    python bench/apcfr_paper.py                    # 5,000 iterations (checkpoints up to 10,000)
    python bench/apcfr_paper.py --ranks 5 --iterations 5000 --horizon 5000

The games: bench/gamedefs/leduc5.game, leduc9.game and the bundled leduc13 (2 suits, ante 1,
bets 2 then 4, 2 bets a round, one board card), the larger Leduc of Farina, Kroer and Sandholm
(2021) that the paper names. Every run alternates updates, and averages with weight t^2 ("For
all algorithms, we utilize quadratic averaging"); DCFR+ and APDCFR+ also run with their presets'
t^4 and t^5, and APCFR+ with the cap 9 solverkit used before. Writes
bench/results/apcfr_paper.{json,md}.
"""

from __future__ import annotations

import os

os.environ.setdefault("NUMBA_NUM_THREADS", "1")  # one thread, before numba loads

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

HERE = Path(__file__).parent
RESULTS = HERE / "results"
GAMEDEFS = {5: str(HERE / "gamedefs" / "leduc5.game"), 9: str(HERE / "gamedefs" / "leduc9.game"), 13: "leduc13"}

#: Table 2 of the paper (final exploitability; Leduc Poker (5), (9), (13))
PAPER = {
    "dcfr": {5: 2.79e-5, 9: 1.27e-5, 13: 1.09e-5},
    "pcfr_plus": {5: 2.69e-5, 9: 5.21e-5, 13: 3.15e-5},
    "apcfr_plus": {5: 4.80e-6, 9: 4.03e-5, 13: 1.45e-5},
    "sapcfr_plus": {5: 3.49e-6, 9: 4.07e-5, 13: 1.42e-5},
    "dcfr_plus": {5: 1.15e-5, 9: 6.41e-6, 13: 8.56e-6},
    "apdcfr_plus": {5: 3.69e-6, 9: 3.42e-6, 13: 3.02e-6},
}
QUADRATIC = {"name": "power", "gamma": 2.0}
#: (label, preset, [averaging] override or None for the preset's own (t^2 already), [rule] parameters);
#: the first six are the table's, the rest how much the choices the paper leaves open move them
RUNS = [(p, p, None if p in ("dcfr", "pcfr_plus", "apcfr_plus", "sapcfr_plus") else QUADRATIC, None) for p in PAPER]
RUNS += [("dcfr_plus (t^4, preset)", "dcfr_plus", None, None), ("apdcfr_plus (t^5, preset)", "apdcfr_plus", None, None),
         ("apcfr_plus (alpha_max 9)", "apcfr_plus", None, {"alpha_max": 9.0})]
MATCH = 1.5  # within this factor of the paper's value: a match (no spread is published)

NOTES = """## Notes

- **The paper** (Meng, Yang, Zhang, Ge and Gao, AAAI 2026; arXiv 2503.12770): Table 2 gives "the
  final exploitability" without its iteration count; elsewhere the paper runs 5,000 ("the same
  number of iterations (i.e., 5000)"), the count used here. The games: "Leduc Poker variants that
  are used in the original PCFR+ paper (Farina, Kroer, and Sandholm 2021) ... with ranks of 5, 9,
  or 13"; the rules beyond the rank count are not restated. Here: 2 suits, ante 1, bets 2 then 4,
  2 bets a round, one board card: the Leduc file LiteEFG ships (a generator's output, its header
  num_ranks 3, num_copies 2; payoffs in chips) with only the rank count changed. Whether the
  PCFR+ paper's variants change anything else is not stated. Settings: "we employ alternating updates" and "For all algorithms,
  we utilize quadratic averaging" (t^2: the presets of DCFR, PCFR+, APCFR+ and SAPCFR+ already;
  DCFR+ and APDCFR+ set here, their presets' t^4 / t^5 in the extra rows).
- **Units.** The paper defines exploitability as the sum of the players' best-response gains
  over |N| (NashConv / 2, solverkit's eps), but its numbers sit at twice solverkit's: DCFR, PCFR+,
  APCFR+ and SAPCFR+ land at 0.4-0.56 of the paper's value in all three games, a constant factor
  that neither the iteration count nor the rate explains (the same runs move 2.5-11x between
  2,000 and 5,000 iterations, each at its own rate). LiteEFG, which the paper's code builds on,
  returns each player's gain as a list, and its own best-iterate tracking sums them: the paper's
  values are most likely the sum, NashConv. The authors' code is not in the index to confirm it.
- **APDCFR+** is the paper's Appendix C, which the text read here does not contain; solverkit's
  apdcfr_plus is its own combination (PDCFR+'s discount, a = 2.3, with APCFR+'s learned damping).
  Where it misses (9 and 13 ranks, 4-5x above the paper on NashConv) the algorithm, not the
  game, is the first suspect: DCFR+, PCFR+ and APCFR+ match on the same games. Variants tried
  by hand at 5,000 iterations (a = 1.5 with t^2 or t^4; a = 2.3 with t^5) brought neither
  game within 1.5x of the paper's 3e-6 (the closest: a = 1.5, t^4 on 13 ranks, 1.8x; 9 ranks
  stayed 3.4x or more above).
- **DCFR+ on 5 ranks** (1.8x above; 1.9x with its preset's t^4) is the one miss outside
  APDCFR+; the DCFR+ runs converge slowly there (eps 1.9e-5 at 2,000, 1.0e-5 at
  5,000). Its rule (Xu et al. 2024: regrets discounted by (t-1)^1.5 / ((t-1)^1.5 + 1) before
  adding, then clipped at 0) gives the paper's values on 9 and 13 ranks; why this cell differs
  is not known.
- **The cap.** alpha_max = 5 (the paper's) against 9 (solverkit's old default) moves APCFR+ by
  5% at most here (the extra rows).
"""


def averaging_of(preset, override):
    from solverkit.core.registry import get_registry

    spec = override or get_registry().presets[preset].averaging
    if isinstance(spec, str):
        return spec
    extra = ", ".join(f"{k}={v:g}" for k, v in spec.items() if k != "name")
    return f"{spec['name']}({extra})" if extra else spec["name"]


def run(ranks, preset, override, rule, checkpoints, average_pass="opponent", jitter=0.0, seed=0):
    """{iteration: exploitability} of one run at `checkpoints`, and its seconds (evaluations
    excluded)."""
    from solverkit.core.config import load_config
    from solverkit.core.solver import Solver

    cfg = {"preset": preset, "game": {"name": "acpc", "gamedef": GAMEDEFS[ranks]},
           "solver": {"iterations": checkpoints[-1], "eval_every": 0, "average_pass": average_pass,
                      "jitter": jitter, "seed": seed}}
    if override:
        cfg["averaging"] = dict(override)
    if rule:
        cfg["rule"] = {"name": preset, **rule}
    solver = Solver(load_config(cfg))
    try:
        curve, done, secs = {}, 0, 0.0
        for t in checkpoints:
            t0 = time.perf_counter()
            solver.step(t - done)
            secs += time.perf_counter() - t0
            done = t
            curve[t] = solver.evaluate()["exploitability"]
        return curve, secs
    finally:
        solver.close()


def verdict(ours, paper):
    """(ours / paper, 'match' within a factor MATCH, else 'lower' or 'higher')."""
    ratio = ours / paper
    if 1 / MATCH <= ratio <= MATCH:
        return ratio, "match"
    return ratio, "lower" if ratio < 1 else "higher"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", nargs="+", type=int, default=[5, 9, 13], choices=sorted(GAMEDEFS))
    ap.add_argument("--iterations", type=int, default=5000, help="the iteration compared with the paper")
    ap.add_argument("--horizon", type=int, default=10000, help="the last checkpoint")
    ap.add_argument("--name", default="apcfr_paper")
    ap.add_argument("--average-pass", default="opponent", choices=("opponent", "own"),
                    help="[solver] average_pass: whose pass adds a player's strategy to its average")
    ap.add_argument("--jitter-seeds", type=int, default=0, metavar="N",
                    help="also run each table cell N times with [solver] jitter = 1e-15 (seeds 1..N): the band "
                         "float rounding alone spans at the compared iteration")
    args = ap.parse_args(argv)
    n = args.iterations
    checkpoints = sorted({c for c in (500, 1000, 2000, n, args.horizon) if c <= max(n, args.horizon)})
    rows = []
    for ranks in args.ranks:
        for label, preset, override, rule in RUNS:
            curve, secs = run(ranks, preset, override, rule, checkpoints, args.average_pass)
            row = {"ranks": ranks, "run": label, "preset": preset, "averaging": averaging_of(preset, override),
                   "rule": rule, "curve": {str(k): v for k, v in curve.items()}, "seconds": round(secs, 2),
                   "ms_per_iteration": round(1e3 * secs / checkpoints[-1], 3)}
            if label in PAPER:
                row["paper"] = PAPER[label][ranks]
                row["ratio_exploitability"] = curve[n] / row["paper"]
                row["ratio_nash_conv"], row["verdict"] = verdict(2 * curve[n], row["paper"])
                if args.jitter_seeds:
                    band = [2 * run(ranks, preset, override, rule, [n], args.average_pass, 1e-15, seed)[0][n]
                            for seed in range(1, args.jitter_seeds + 1)]
                    row["jitter_nash_conv"] = [min(band), max(band)]
                    row["paper_in_band"] = min(band) <= row["paper"] <= max(band)
            rows.append(row)
            print(ranks, label, {k: f"{v:.3g}" for k, v in curve.items()}, row.get("verdict", ""),
                  f"{secs:.1f}s", flush=True)
    load = os.getloadavg()[0]
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{args.name}.json").write_text(json.dumps(
        {"iterations": n, "checkpoints": checkpoints, "match_factor": MATCH, "rows": rows,
         "threads": os.environ["NUMBA_NUM_THREADS"], "load_at_end": round(load, 2)}, indent=1))
    given = sys.argv[1:] if argv is None else argv
    command = "python bench/apcfr_paper.py" + (" " + " ".join(given) if given else "")
    (RESULTS / f"{args.name}.md").write_text(markdown(rows, n, checkpoints, command, load))


def markdown(rows, n, checkpoints, command, load):
    table = [r for r in rows if "paper" in r]
    ranks = sorted({r["ranks"] for r in rows})
    family = [r["ratio_exploitability"] for r in table if r["run"] in ("dcfr", "pcfr_plus", "apcfr_plus", "sapcfr_plus")]
    lines = [f"# Table 2 of Meng et al. (AAAI 2026): Leduc poker with {', '.join(map(str, ranks))} ranks", "",
             f"`{command}` (NUMBA_NUM_THREADS={os.environ['NUMBA_NUM_THREADS']}, load {load:.2f} at the end). "
             f"After {n:,} iterations (the paper's run length elsewhere; Table 2 does not state its own), "
             "alternating updates, average weight t^2 for every algorithm as the paper states, APCFR+ with "
             "alpha_max = 5. solverkit's exploitability of the average strategy in chips, eps = NashConv / 2, "
             "and NashConv = 2 eps, the unit the paper's numbers agree with (notes below). Verdict on "
             f"NashConv / paper: **match** within a factor {MATCH}, else lower / higher.", "",
             "| algorithm | ranks | paper | solverkit eps | solverkit NashConv | eps / paper | NashConv / paper | "
             "verdict |", "|---|---|---|---|---|---|---|---|"]
    for label in PAPER:
        for r in (x for x in table if x["run"] == label):
            e = r["curve"][str(n)]
            lines.append(f"| {label} | {r['ranks']} | {r['paper']:.3g} | {e:.3g} | {2 * e:.3g} | "
                         f"{r['ratio_exploitability']:.2f} | {r['ratio_nash_conv']:.2f} | {r['verdict']} |")
    matched = [f"{r['run']} ({r['ranks']})" for r in table if r["verdict"] == "match"]
    missed = [f"{r['run']} ({r['ranks']}, {r['ratio_nash_conv']:.2f}x)" for r in table if r["verdict"] != "match"]
    lines += ["", f"On NashConv, {len(matched)} of {len(table)} cells match; not matching: "
              f"{', '.join(missed) or 'none'}. On eps (NashConv / 2, the paper's stated definition) DCFR, PCFR+, "
              f"APCFR+ and SAPCFR+ sit at {min(family):.2f} to {max(family):.2f} of the paper's value in every "
              "game.", "",
              *_band_lines(table, n),
              "Every run at each checkpoint (eps = NashConv / 2; seconds for the iterations without the "
              "evaluations, one thread):", "",
              "| ranks | run | averaging | " + " | ".join(f"t = {c:,}" for c in checkpoints) + " | seconds | ms / it |",
              "|---|---|---|" + "---|" * len(checkpoints) + "---|---|"]
    for r in rows:
        lines.append(f"| {r['ranks']} | {r['run']} | {r['averaging']} | "
                     + " | ".join(f"{r['curve'][str(c)]:.3g}" for c in checkpoints)
                     + f" | {r['seconds']} | {r['ms_per_iteration']} |")
    return "\n".join(lines) + "\n\n" + NOTES


def _band_lines(table, n) -> list[str]:
    """The jittered seeds' NashConv band per cell (``--jitter-seeds``), and whether the paper's value is inside."""
    banded = [r for r in table if "jitter_nash_conv" in r]
    if not banded:
        return []
    lines = [f"**The rounding band** (`--jitter-seeds`: each cell run again with `[solver] jitter = 1e-15`, seeds "
             f"1..N; NashConv at t = {n:,}): alternating CFR is chaotic at float precision on these games, so a "
             "value published by another implementation is comparable only within the band its own "
             "sequence's rounding spans.", "", "| algorithm | ranks | paper | band (NashConv) | paper inside |",
             "|---|---|---|---|---|"]
    for r in banded:
        lo, hi = r["jitter_nash_conv"]
        lines.append(f"| {r['run']} | {r['ranks']} | {r['paper']:.3g} | {lo:.3g} to {hi:.3g} | "
                     f"{'yes' if r['paper_in_band'] else 'no'} |")
    return lines + [""]


if __name__ == "__main__":
    main()
