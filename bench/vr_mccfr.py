"""Variance-reduced outcome sampling (VR-MCCFR, Schmid et al. 2019) against plain outcome sampling
on Leduc hold'em (OpenSpiel's leduc_poker through the tree engine).

Runs: ``[sampler] name = "outcome"`` (epsilon 0.6, rule rm, uniform averaging, alternating
updates) with ``baseline = "none"``, ``"learned"`` (decay 0.5) and ``"oracle"`` (a full sweep per
traversal, so fewer iterations), several seeds each; NashConv of the average strategy at
log-spaced iterations (solverkit's best response; seed 1's last strategy of each baseline is also
judged by ``pyspiel.nash_conv``). From the medians over seeds: how many iterations plain outcome
sampling needs to reach the NashConv the learned baseline has at N (log-log interpolation).

Variance: the profile and learned baselines of seed 1's learned run are frozen at a few
iterations T; from each snapshot, 20,000 single passes per player (each from the frozen
baselines) give the variance of the root value estimate u^(root) (player 0's) with no baseline,
the learned one and the oracle one, and the summed variance of the regret deltas.

    python bench/vr_mccfr.py [--iterations 300000] [--seeds 5] [--oracle-iterations 30000]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from common import md_table, write_results

GAME = {"name": "openspiel", "game": "leduc_poker"}


def _solver(baseline, seed):
    from solverkit.core.config import load_config
    from solverkit.core.solver import Solver

    asm = load_config({"game": GAME, "rule": "rm", "averaging": "uniform",
                       "sampler": {"name": "outcome", "epsilon": 0.6, "baseline": baseline},
                       "solver": {"update": "alternating", "seed": seed}})
    return Solver(asm)


def _grid(last):
    marks, x = [], 1000
    while x < last:
        marks += [x, 3 * x] if 3 * x < last else [x]
        x *= 10
    return sorted(set(m for m in marks if m < last) | {last})


def run_curve(baseline, seed, last, snapshots=()):
    """NashConv at each grid point, seconds spent in steps, and frozen (regrets, baselines) at `snapshots`."""
    s = _solver(baseline, seed)
    curve, spent, frozen = [], 0.0, {}
    for mark in _grid(last):
        t0 = time.perf_counter()
        while s.iteration < mark:
            s.step(min(5000, mark - s.iteration))
        spent += time.perf_counter() - t0
        curve.append((mark, 2.0 * s.evaluate(exact=True)["exploitability"]))
        if mark in snapshots:
            seg = s.store.read("root")
            frozen[mark] = ([np.array(seg["regret0"]), np.array(seg["regret1"])],
                            s.game.vr_baseline(s.store).copy())
    strategy = s.strategy()
    game = s.game
    s.close()
    return curve, spent / last, frozen, game, strategy


def pass_variance(game, regrets, bl, bmode, draws):
    """Per player: (mean, variance) of the root estimate and summed variance of the regret
    deltas over `draws` single passes from profile `regrets`, each from a copy of `bl`."""
    from solverkit.efg import sampled_vr

    t = game.tree
    a0, a1 = game._avg_scale("outcome")
    b = game._sampling_bufs()
    one = np.ones(1)
    out = []
    for i in (0, 1):
        roots = np.zeros((draws, 2))
        deltas = np.zeros((draws, regrets[i].size))
        for k in range(draws):
            reg = [np.zeros_like(regrets[0]), np.zeros_like(regrets[1])]
            avg = [np.zeros_like(regrets[0]), np.zeros_like(regrets[1])]
            sampled_vr.vr_outcome_block(0.6, 99, 0, np.array([10**8 + k]), np.array([1 << i]),
                                        np.array([0]), np.array([-np.inf]), one, one, t.node, t.prob, t.util,
                                        t.infoset, regrets[0], regrets[1], reg[0], reg[1], avg[0], avg[1], a0, a1,
                                        *b[:7], b[9], *b[12:15], bmode, 0.5, bl.copy(), roots[k])
            deltas[k] = reg[i]
        r = roots[:, i]
        out.append((float(r.mean()), float(r.var()), float(deltas.var(axis=0).sum())))
    return out


def _iterations_to_reach(curve, target):
    """Iterations at which the (median) curve first reaches `target`, log-log interpolated; None if never."""
    for (n0, v0), (n1, v1) in zip(curve, curve[1:]):
        if v1 <= target < v0:
            f = (np.log(v0) - np.log(target)) / (np.log(v0) - np.log(v1))
            return float(np.exp(np.log(n0) + f * (np.log(n1) - np.log(n0))))
    return curve[0][0] if curve and curve[0][1] <= target else None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=300000)
    ap.add_argument("--oracle-iterations", type=int, default=30000)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--draws", type=int, default=20000)
    ap.add_argument("--markdown-only", action="store_true", help="rewrite the .md from the stored .json")
    args = ap.parse_args(argv)
    if args.markdown_only:
        import json

        result = json.loads((Path(__file__).parent / "results" / "vr_mccfr.json").read_text())
        stored = ap.parse_args(result["command"].split()[1:])
        result["variance"] = {int(k): v for k, v in result["variance"].items()}
        text = _markdown(result, stored)
        write_results("vr_mccfr", result, text)
        print(text)
        return
    import pyspiel

    from solverkit.efg import sampled_vr

    snaps = tuple(m for m in (1000, 10000, 100000) if m <= args.iterations)
    result = {"command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
              "machine": platform.processor() or platform.machine(), "runs": {}, "variance": {}}
    frozen, game, cross = {}, None, {}
    for baseline in ("none", "learned", "oracle"):
        last = args.oracle_iterations if baseline == "oracle" else args.iterations
        runs = []
        for seed in range(1, args.seeds + 1):
            curve, per_it, fr, game, strategy = run_curve(baseline, seed, last,
                                                          snaps if (baseline, seed) == ("learned", 1) else ())
            frozen.update(fr)
            if seed == 1:
                table = game.openspiel_table(strategy)
                policy = pyspiel.TabularPolicy({k: sorted(p.items()) for k, p in table.items()})
                cross[baseline] = (pyspiel.nash_conv(pyspiel.load_game("leduc_poker"), policy), curve[-1][1])
            runs.append({"seed": seed, "curve": curve, "us_per_iteration": per_it * 1e6})
            print(baseline, seed, curve[-1], f"{per_it * 1e6:.2f} us/it", flush=True)
        marks = [n for n, _ in runs[0]["curve"]]
        med = [(n, statistics.median(r["curve"][j][1] for r in runs)) for j, n in enumerate(marks)]
        result["runs"][baseline] = {"seeds": runs, "median": med,
                                    "us_per_iteration": statistics.median(r["us_per_iteration"] for r in runs),
                                    "pyspiel_nash_conv_seed1": cross[baseline][0],
                                    "solverkit_nash_conv_seed1": cross[baseline][1]}
    plain = result["runs"]["none"]["median"]
    for name in ("learned", "oracle"):
        result["runs"][name]["plain_iterations_to_match"] = [
            (n, v, _iterations_to_reach(plain, v)) for n, v in result["runs"][name]["median"]]
    for T, (regrets, bl) in sorted(frozen.items()):
        row = {}
        for name, mode, base in (("none", 0, np.zeros_like(bl)), ("learned", sampled_vr.LEARNED, bl),
                                 ("oracle", sampled_vr.ORACLE, np.zeros_like(bl))):
            row[name] = pass_variance(game, regrets, base, mode, args.draws)
        result["variance"][T] = row
        print("variance at", T, {k: [f"{v[1]:.3g}" for v in x] for k, x in row.items()}, flush=True)
    text = _markdown(result, args)
    write_results("vr_mccfr", result, text)
    print(text)


def _fmt(x):
    return "-" if x is None else f"{x:,.0f}"


def _markdown(result, args) -> str:
    runs = result["runs"]
    lines = ["# VR-MCCFR (outcome sampling with baselines) on Leduc hold'em", "",
             f"`python bench/{result['command']}` ({result['machine']}, one process, one thread). "
             f"Seeds 1..{args.seeds}; rule rm, uniform averaging, alternating updates, epsilon 0.6; NashConv "
             "(br_0 + br_1) of the average strategy, median over seeds. `oracle` recomputes every baseline "
             f"with a full sweep per traversal, so it ran {args.oracle_iterations:,} iterations only.", "",
             "## NashConv after the same iterations", ""]
    marks = [n for n, _ in runs["none"]["median"]]
    rows = []
    for n in marks:
        cells = [f"{n:,}"]
        for name in ("none", "learned", "oracle"):
            med = dict(runs[name]["median"])
            cells.append(f"{med[n]:.4f}" if n in med else "-")
        plain, learned = dict(runs["none"]["median"]), dict(runs["learned"]["median"])
        lm = dict((a, c) for a, _, c in runs["learned"]["plain_iterations_to_match"])
        if learned[n] >= plain[n]:
            cells += ["(plain is ahead)", "-"]
        elif lm.get(n) is None:
            cells += [f"> {marks[-1]:,} (beyond the run)", f"> {marks[-1] / n:.1f}x" if n < marks[-1] else "-"]
        else:
            cells += [_fmt(lm[n]), f"{lm[n] / n:.1f}x"]
        rows.append(cells)
    lines += md_table(["iterations", "none", "learned", "oracle", "plain needs (for learned's NashConv)",
                       "learned's speed-up in iterations"], rows)
    lines += ["", "Per iteration (median over seeds, steps only): " + ", ".join(
        f"{k} {v['us_per_iteration']:.2f} us" for k, v in runs.items()) + ". Seed 1's last strategy by "
        "pyspiel.nash_conv / solverkit: " + ", ".join(
        f"{k} {v['pyspiel_nash_conv_seed1']:.6f} / {v['solverkit_nash_conv_seed1']:.6f}" for k, v in runs.items())
        + ".", "", "## Variance of one pass's estimates (profile and learned baselines of seed 1's learned run "
        f"frozen at T; {args.draws:,} passes per player, each from the frozen baselines)", ""]
    rows = []
    for T, row in sorted(result["variance"].items()):
        for i in (0, 1):
            rows.append([f"{T:,}", i] + [f"{row[k][i][1]:.3g}" for k in ("none", "learned", "oracle")]
                        + [f"{row['none'][i][1] / max(row['learned'][i][1], 1e-300):.0f}x"]
                        + [f"{row[k][i][2]:.3g}" for k in ("none", "learned", "oracle")]
                        + [f"{row['none'][i][0]:.4f} / {row['learned'][i][0]:.4f} / {row['oracle'][i][0]:.4f}"])
    lines += md_table(["T", "updating player", "var root: none", "learned", "oracle", "none / learned",
                       "sum var regret deltas: none", "learned", "oracle", "mean root: none / learned / oracle"], rows)
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
