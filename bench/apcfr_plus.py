"""APCFR+ and APDCFR+ (learned asymmetry, cap 5; Meng et al., arXiv 2503.12770) beside PCFR+, SAPCFR+
and PDCFR+: exploitability of the average at 100 .. 1,000 iterations on Kuhn, Leduc, Goofspiel(4)
and liar's dice (the last two through the OpenSpiel bridge), the learned alphas at the end, and
the time per iteration on Leduc (one thread; the predictive presets in the kernels, APCFR+ and
APDCFR+ on the per-pass path).

    python bench/apcfr_plus.py                       # every game, 1,000 iterations
    python bench/apcfr_plus.py --games kuhn leduc --iterations 500

Writes bench/results/apcfr_plus.{json,md}. The iterates themselves are checked against an
independent reference in tests/test_apcfr_plus.py (Kuhn, to 1e-12).
"""

from __future__ import annotations

import os

os.environ.setdefault("NUMBA_NUM_THREADS", "1")  # one thread, before numba loads

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

RESULTS = Path(__file__).parent / "results"
GAMES = {
    "kuhn": {"name": "kuhn"},
    "leduc": {"name": "leduc"},
    "goofspiel": {"name": "openspiel", "game": "goofspiel(num_cards=4,imp_info=True,points_order=descending)"},
    "liars_dice": {"name": "openspiel", "game": "liars_dice"},
}
PRESETS = ("pcfr_plus", "sapcfr_plus", "apcfr_plus", "pdcfr_plus", "apdcfr_plus")
CHECKPOINTS = (100, 200, 500, 1000)

NOTES = """## Against the paper

- **The alpha rule is the paper's** (Meng et al., AAAI 2026, Eq. (3)): alpha_I = min(sqrt(E_I /
  S_I), alpha_max) per information set, E_I the summed squared prediction errors ||r - last r||^2
  and S_I the summed squared moves of the regrets, with the paper's cap alpha_max = 5 ("we
  directly set it as 5"), solverkit's default since issue 30 (docs/config.md,
  solverkit/rules_adaptive.py). The table above runs with it (earlier runs used 9; the cap moved
  these rows by under 10%).
- **The paper's numbers** for these algorithms are its Table 2 (Leduc with 5, 9 and 13 ranks,
  5,000 iterations), reproduced by bench/apcfr_paper.py (bench/results/apcfr_paper.md); its
  curves on Kuhn, Leduc, Goofspiel and liar's dice are figures without printed values. Its claims
  these rows can be held against: APCFR+ and SAPCFR+ ahead of PCFR+ on most games, SAPCFR+ about
  as fast as APCFR+. APDCFR+ (the paper's Appendix C) is not verified: solverkit's is PDCFR+
  with the learned damping.
- **Cost**: the learned alpha needs an information set's actions together at the policy step,
  which the kernels' fused predictive update does not have, so APCFR+ runs on the per-pass path
  (update after each pass, policy from the rule); the table above gives its time per iteration
  against the kernel path of PCFR+ and SAPCFR+ on Leduc, and the rows "per pass" time PCFR+ and
  SAPCFR+ on that same path: the path, not the rule's three extra arrays, is most of the
  difference (timings on a shared 2-core machine move by 10-20% between runs).
"""


def _config(game, preset, iterations):
    return {"preset": preset, "game": dict(game), "solver": {"iterations": iterations, "eval_every": 100}}


def run(game, preset, iterations):
    """(exploitability by iteration, seconds, learned-alpha summary or None) of one run."""
    from solverkit.core.config import load_config
    from solverkit.core.solver import Solver

    solver = Solver(load_config(_config(game, preset, iterations)))
    try:
        curve = {}
        t0 = time.perf_counter()
        for t in range(100, iterations + 1, 100):
            solver.step(100)
            curve[t] = solver.evaluate()["exploitability"]
        secs = time.perf_counter() - t0
        return curve, secs, alpha_summary(solver)
    finally:
        solver.close()


def alpha_summary(solver):
    """Quartiles of the learned alpha over both players' information sets (None for a rule
    without one)."""
    from solverkit.core.passes import blocks_of

    rule = solver.assembly.rule
    if not hasattr(rule, "alphas"):
        return None
    values, learned = [], []
    for key in solver.store.specs:
        with solver.store.open(key, ()) as seg:
            for p in (0, 1):
                state = {s: np.array(seg[f"{s}{p}"]) for s in rule.state}
                blocks = blocks_of(solver.store, key, f"regret{p}")
                values.append(rule.alphas(state, blocks))
                both = state["err"] + state["move"]
                learned += [both[s0:s0 + c * na].reshape(c, na).sum(axis=1) > 0 for s0, c, na in zip(*blocks)]
    a = np.concatenate(values)[np.concatenate(learned)]  # information sets the run reached with a regret
    q = np.percentile(a, [0, 25, 50, 75, 100])
    return {"infosets": int(a.size), "quartiles": [round(float(x), 3) for x in q],
            "at_cap": round(float(np.mean(a >= rule.config["alpha_max"])), 3)}


def time_per_iteration(game, preset, iterations=200, repeats=3, per_pass=False):
    """Best of `repeats` timings of `iterations` steps (after a warm-up), microseconds per
    iteration; `per_pass`: a predictive rule kept out of the kernels (the path APCFR+ takes)."""
    from solverkit.core.config import load_config
    from solverkit.core.solver import Solver
    from solverkit.poker.pass_settings import GamePassSettings

    if per_pass:
        kept = GamePassSettings.kernel_predictive
        GamePassSettings.kernel_predictive = lambda self, rule, store, sampler=None: False
        try:
            return time_per_iteration(game, preset, iterations, repeats)
        finally:
            GamePassSettings.kernel_predictive = kept
    solver = Solver(load_config(_config(game, preset, 10**6)))
    try:
        solver.step(5)
        best = math.inf
        for _ in range(repeats):
            t0 = time.perf_counter()
            solver.step(iterations)
            best = min(best, time.perf_counter() - t0)
        return best / iterations * 1e6
    finally:
        solver.close()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="+", default=list(GAMES), choices=list(GAMES))
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--name", default="apcfr_plus")
    args = ap.parse_args(argv)
    n = args.iterations
    rows = []
    for gname in args.games:
        for preset in PRESETS:
            curve, secs, alphas = run(GAMES[gname], preset, n)
            rows.append({"game": gname, "run": preset, "curve": {str(k): v for k, v in curve.items()},
                         "seconds": round(secs, 2), "alpha": alphas})
            print(gname, preset, {k: f"{v:.3g}" for k, v in curve.items()}, alphas, flush=True)
    timing = {p: round(time_per_iteration(GAMES["leduc"], p), 1) for p in PRESETS}
    for p in ("pcfr_plus", "sapcfr_plus"):
        timing[f"{p} (per pass)"] = round(time_per_iteration(GAMES["leduc"], p, per_pass=True), 1)
    print("leduc us/iteration", timing, flush=True)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{args.name}.json").write_text(json.dumps({"rows": rows, "leduc_us_per_iteration": timing,
                                                           "threads": os.environ["NUMBA_NUM_THREADS"]}, indent=1))
    cols = [str(k) for k in CHECKPOINTS if k <= n]
    given = sys.argv[1:] if argv is None else argv
    command = "python bench/apcfr_plus.py" + (" " + " ".join(given) if given else "")
    lines = ["# APCFR+ and APDCFR+ (learned asymmetry) beside PCFR+, SAPCFR+ and PDCFR+", "",
             f"`{command}` (NUMBA_NUM_THREADS={os.environ['NUMBA_NUM_THREADS']}; exploitability of the average "
             "strategy in chips, NashConv / 2; alternating updates; each preset's published averaging). "
             "alpha: quartiles (min, 25%, median, 75%, max) of the learned alpha over the information sets "
             "the run reached with a regret, at the end, and the share at the cap (alpha_max = 5, the paper's).", "",
             f"| game | run | {' | '.join('t = ' + c for c in cols)} | seconds (with {n // 100} evaluations) | "
             "alpha quartiles | at cap |",
             "|---|---|" + "---|" * len(cols) + "---|---|---|"]
    for r in rows:
        cells = [f"{r['curve'][c]:.3g}" if c in r["curve"] else "" for c in cols]
        al = r["alpha"]
        qs = " / ".join(f"{x:g}" for x in al["quartiles"]) if al else ""
        lines.append(f"| {r['game']} | {r['run']} | {' | '.join(cells)} | {r['seconds']} | {qs} | "
                     f"{al['at_cap'] if al else ''} |")
    lines += ["", "Time per iteration on Leduc (microseconds, best of 3 x 200 iterations, one thread):", "",
              "| preset | us / iteration | path |", "|---|---|---|"]
    for p, us in timing.items():
        path = "per pass (rule update + policy)" if p.startswith("ap") or "per pass" in p else "kernel blocks"
        lines.append(f"| {p} | {us} | {path} |")
    (RESULTS / f"{args.name}.md").write_text("\n".join(lines) + "\n\n" + NOTES)


if __name__ == "__main__":
    main()
