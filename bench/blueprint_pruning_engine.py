"""The pruning recipe of configs/blueprint_leduc3.toml on the blueprint engine (3-player Leduc's
ACPC rules, lossless buckets, the average kept on every round so that NashConv reads the average
as the tree engine's bench does): node visits and seconds to plain external sampling's final
NashConv (the blueprint engine's own plain run: rm, uniform averaging, no pruning), several seeds,
against the recipe without its regret floor. Exact NashConv (the tree engine's best responses
over the mapped strategy); the same seed run twice gives the same regrets and averages bit for
bit. Writes bench/results/blueprint_pruning_engine.md (the new section on top).

    python3 bench/blueprint_pruning_engine.py [--iterations 1000000] [--seeds 1,2,3,4,5,6,7,8] [--evals 20]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

from solverkit.blueprint.engine import Blueprint
from solverkit.blueprint.tree_map import tree_strategy
from solverkit.core.config import load_config
from solverkit.core.solver import nash_conv
from solverkit.poker.nplayer import tree_table

sys.path.insert(0, str(Path(__file__).parent))
from blueprint_pruning import PRESET, preset_parts  # noqa: E402

OUT = Path(__file__).parent / "results" / "blueprint_pruning_engine.md"
GAME = {"name": "leduc_tree", "players": 3}


def engine(game, parts: dict | None, seed: int, floor: bool = True) -> Blueprint:
    """A blueprint of the tree game's rules: plain (parts None) or the recipe's rule, averaging and
    sampler (`floor` False: without its regret floor)."""
    if parts is None:
        return Blueprint(tree_table(game), seed=seed, average_rounds=2)
    a = load_config({"game": GAME, **parts, "solver": {"seed": seed}})
    s = a.sampler
    return Blueprint(tree_table(game), seed=seed, average_rounds=2, rule=a.rule, averaging=a.averaging,
                     prune_threshold=s.prune_threshold(), prune_probability=s.prune_probability(),
                     prune_start=s.prune_start(), sampler_floor=s.regret_floor() if floor else 0.0)


def curve(game, bp: Blueprint, n: int, evals: int) -> list[tuple[int, float, float, int]]:
    """(iteration, NashConv, solve seconds, nodes) every n / evals iterations."""
    out, spent, nodes = [], 0.0, 0
    step = max(n // evals, 1)
    while bp.iteration < n:
        t = time.perf_counter()
        nodes += bp.run(min(step, n - bp.iteration))
        spent += time.perf_counter() - t
        out.append((bp.iteration, nash_conv(game, tree_strategy(bp, game))[0], spent, nodes))
    return out


def first_at(points, target):
    """The first point at or below target, or None."""
    return next((p for p in points if p[1] <= target), None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=1000000)
    ap.add_argument("--seeds", default="1,2,3,4,5,6,7,8")
    ap.add_argument("--evals", type=int, default=20)
    args = ap.parse_args()
    n, seeds = args.iterations, [int(s) for s in args.seeds.split(",")]
    game = load_config({"game": GAME, "rule": {"name": "rm"}, "averaging": {"name": "uniform"},
                        "sampler": {"name": "external"}}).game
    parts = preset_parts(n, PRESET)
    load, t0 = os.getloadavg()[0], time.time()
    engine(game, parts, 1).run(10)  # compile
    runs = [engine(game, parts, seeds[0]) for _ in range(2)]
    for b in runs:
        b.run(min(n, 100000))
    same = np.array_equal(runs[0].reg, runs[1].reg) and np.array_equal(runs[0].avg, runs[1].avg)
    rows = []
    for seed in seeds:
        curves = {"plain": curve(game, engine(game, None, seed), n, args.evals),
                  "recipe without floor": curve(game, engine(game, parts, seed, False), n, args.evals),
                  "recipe": curve(game, engine(game, parts, seed), n, args.evals)}
        target = curves["plain"][-1][1]
        base = first_at(curves["plain"], target)
        for name, pts in curves.items():
            hit = first_at(pts, target)
            rows.append((seed, name, target, hit, base, pts[-1]))
            print(seed, name, target, hit, pts[-1], flush=True)
    sp = parts["sampler"]
    lines = [f"## {n:,} iterations, seeds {args.seeds}, blueprint engine, configs/blueprint_leduc3.toml's recipe "
             f"(threshold {sp['prune_threshold']:g}, floor {sp.get('regret_floor', 0):g}, p {sp['prune_probability']:g}, "
             f"start {sp['prune_start']}; {parts['rule']['name']} / {parts['averaging']['name']} until "
             f"{parts['rule'].get('until', 0)})", "",
             f"`python3 bench/blueprint_pruning_engine.py --iterations {n} --seeds {args.seeds} --evals {args.evals}` "
             f"({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {time.time() - t0:.0f} s, load {load:.1f} at the "
             "start; 2 shared cores: seconds are noisy, nodes are not).", "",
             "The blueprint engine on 3-player Leduc's ACPC rules (`tree_table(leduc_tree, 3 players)`), lossless "
             "buckets, the average on both rounds; target: the NashConv the engine's plain run (rm, uniform "
             f"averaging, no pruning) reaches at {n}; a variant's nodes and seconds at its first evaluation (every "
             f"{max(n // args.evals, 1)} iterations) at or below it.", "",
             "| variant | reached | nodes vs plain, mean | worst | time vs plain, mean | worst |", "|---|---|---|---|---|---|"]
    for name in dict.fromkeys(r[1] for r in rows):
        hits = [(r[3][3] / r[4][3], r[3][2] / r[4][2]) for r in rows if r[1] == name and r[3]]
        cells = [f"{sum(x) / len(x):.2f}x | {max(x):.2f}x" for x in zip(*hits)] if hits else ["- | -", "- | -"]
        lines.append(f"| {name} | {len(hits)} of {len(seeds)} | {cells[0]} | {cells[1]} |")
    lines += ["", f"| seed | variant | target | iterations to target | nodes vs plain | time vs plain | NashConv at {n} |",
              "|---|---|---|---|---|---|---|"]
    for seed, name, target, hit, base, last in rows:
        lines.append(f"| {seed} | {name} | {target:.4f} | {hit[0] if hit else 'not reached'} | "
                     + (f"{hit[3] / base[3]:.2f}x | {hit[2] / base[2]:.2f}x" if hit else "- | -") + f" | {last[1]:.4f} |")
    lines += ["", f"Reproduction: seed {seeds[0]}'s recipe run twice for {min(n, 100000)} iterations: "
              + ("the same regrets and averages bit for bit." if same else "DIFFERENT regrets or averages.")]
    old = OUT.read_text().split("\n", 2)[2] if OUT.exists() else ""
    OUT.write_text("# Blueprint engine: the pruning recipe on 3-player Leduc\n\n" + "\n".join(lines) + "\n\n" + old)
    print("\n".join(lines[:12]))


if __name__ == "__main__":
    main()
