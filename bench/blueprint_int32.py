"""int32 blueprint regrets ([game] regrets = "int32", docs/blueprint.md) against float64 on Leduc with
2 and 3 players (leduc_tree's rules): exact NashConv (the tree engine's best responses over the
mapped strategy) at several iterations, the same seeds in both modes, four recipes (plain external
sampling, and Pluribus's pruning + Linear CFR for the first quarter; each exported as Pluribus does,
and averaged on every round); and the regrets' bytes and seconds
per run. Writes bench/results/blueprint_int32.md (the new section on top, earlier runs kept below).

    python3 bench/blueprint_int32.py [--iterations 200000] [--seeds 1,...,10] [--players 2,3] [--recipes 1,2]
    python3 bench/blueprint_int32.py --hashes   # the float64 default's strategy hashes
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from solverkit.blueprint.engine import Blueprint
from solverkit.blueprint.tree_map import tree_strategy
from solverkit.core.config import load_config
from solverkit.core.solver import nash_conv
from solverkit.poker.nplayer import tree_table

OUT = Path(__file__).parent / "results" / "blueprint_int32.md"
MODES = ("float64", "int32")


def recipes(n: int) -> dict[str, tuple[dict, dict]]:
    """name -> (rule and averaging tables, Blueprint arguments: pruning, average_rounds). The
    export is Pluribus's (the first round's average, the current strategy after: noisy across
    seeds) but in the last recipe, which averages every round (the smoother curve)."""
    early = {"rule": {"name": "lcfr", "until": n // 4}, "averaging": {"name": "linear", "until": n // 4}}
    pruned = {"prune_threshold": -100.0, "prune_start": n // 10}
    return {
        "plain": ({"rule": {"name": "rm"}, "averaging": {"name": "uniform"}}, {}),
        "plain, average on every round": ({"rule": {"name": "rm"}, "averaging": {"name": "uniform"}},
                                          {"average_rounds": 2}),
        "pruned + lcfr early": (early, pruned),
        "pruned + lcfr early, average on every round": (early, {**pruned, "average_rounds": 2}),
    }


def float_hashes() -> list[str]:
    """sha256 (16 digits) of the float64 default's strategies through the solver: configs/blueprint_kuhn3.toml
    at 5,000 iterations and a 3-player Leduc blueprint (pruning, lcfr until 1,000) at 3,000: equal
    before and after int32 regrets were added (the default unchanged bit for bit)."""
    import hashlib
    import tempfile
    import tomllib

    import numpy as np

    from solverkit.core.solver import run_solve

    from blueprint_threads import LEDUC3

    kuhn = tomllib.loads((Path(__file__).parents[1] / "configs" / "blueprint_kuhn3.toml").read_text())
    kuhn["solver"]["eval_every"] = 10**9
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        gd = Path(tmp) / "leduc3.game"
        gd.write_text(LEDUC3)
        leduc = {"game": {"name": "blueprint", "gamedef": str(gd), "exact_nodes": 0},
                 "rule": {"name": "lcfr", "until": 1000}, "averaging": {"name": "linear", "until": 1000},
                 "sampler": {"name": "external", "prune_threshold": -5.0, "prune_start": 500},
                 "solver": {"seed": 2, "eval_every": 10**9}}
        for name, cfg, n in (("blueprint_kuhn3.toml", kuhn, 5000), ("3-player Leduc", leduc, 3000)):
            r = run_solve(load_config(cfg), iterations=n)
            h = hashlib.sha256(b"".join(np.ascontiguousarray(s, dtype=np.float64).tobytes() for s in r.strategy))
            out.append(f"{name} {n} iterations: {h.hexdigest()[:16]}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iterations", type=int, default=200_000)
    ap.add_argument("--seeds", default="1,2,3,4,5,6,7,8,9,10")
    ap.add_argument("--players", default="2,3")
    ap.add_argument("--recipes", default="", help="comma-separated numbers of the recipes to run (1-based, in "
                    "recipes()' order; default: all)")
    ap.add_argument("--hashes", action="store_true", help="print the float64 default's strategy hashes and stop")
    args = ap.parse_args()
    if args.hashes:
        print("\n".join(float_hashes()))
        return
    print(f"seeds {args.seeds}", flush=True)
    n = args.iterations
    seeds = [int(s) for s in args.seeds.split(",")]
    marks = sorted({n // 20, n // 4, n // 2, n})
    load0 = os.getloadavg()[0]
    lines = []
    for P in (int(p) for p in args.players.split(",")):
        chosen = {int(x) for x in args.recipes.split(",") if x}
        for number, (name, (parts, prune)) in enumerate(recipes(n).items(), 1):
            if chosen and number not in chosen:
                continue
            a = load_config({"game": {"name": "leduc_tree", "players": P}, "sampler": {"name": "external"},
                             "solver": {"seed": 1, "eval_every": 10**9}, **parts})
            game = a.game
            rows = {m: {k: [] for k in marks} for m in MODES}
            secs = {m: [] for m in MODES}
            info = {}
            for seed in seeds:
                for mode in MODES:
                    bp = Blueprint(tree_table(game), seed=seed, rule=a.rule, averaging=a.averaging, regrets=mode, **prune)
                    spent = 0.0
                    for k in marks:
                        t0 = time.perf_counter()
                        bp.run(k - bp.iteration)
                        spent += time.perf_counter() - t0
                        rows[mode][k].append(nash_conv(game, tree_strategy(bp, game))[0])
                    secs[mode].append(spent)
                    info[mode] = (bp.reg.nbytes, bp.fixed, int(bp.clipped[0]))
            first = len(lines)
            lines.append(f"\n### {P}-player Leduc, {name}\n")
            lines.append("| iterations | " + " | ".join(f"{m} NashConv: mean +- sd (each seed)" for m in MODES)
                         + " | int32 / float64 (means) | seeds int32 below float64 |")
            lines.append("| --- | --- | --- | --- | --- |")
            for k in marks:
                means = [statistics.mean(rows[m][k]) for m in MODES]
                cells = [f"{mu:.3f} +- {statistics.stdev(rows[m][k]) if len(seeds) > 1 else 0:.3f} "
                         f"({', '.join(f'{x:.3g}' for x in rows[m][k])})" for m, mu in zip(MODES, means)]
                below = sum(b < a for a, b in zip(rows["float64"][k], rows["int32"][k]))
                lines.append(f"| {k:,} | " + " | ".join(cells) + f" | {means[1] / means[0]:.3f} | {below} of {len(seeds)} |")
            fx = info["int32"][1]
            lines.append(f"\nregrets: float64 {info['float64'][0]:,} bytes, int32 {info['int32'][0]:,} bytes "
                         f"({fx.scale:g} units a chip, floor {fx.floor:,} units, discount every "
                         f"{fx.interval(n // 4) if 'lcfr' in name else '-'} iterations; clipped values "
                         f"{info['int32'][2]}); seconds a run of {n:,} (median, loaded machine: noisy): "
                         f"float64 {statistics.median(secs['float64']):.2f}, int32 {statistics.median(secs['int32']):.2f}")
            print("\n".join(lines[first:]), flush=True)
    head = (f"## {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: `python3 bench/blueprint_int32.py "
            f"--iterations {n} --seeds {args.seeds} --players {args.players}"
            f"{' --recipes ' + args.recipes if args.recipes else ''}` (load average {load0:.2f} at the start, "
            f"{os.getloadavg()[0]:.2f} at the end; 2-core shared machine)\n")
    old = OUT.read_text() if OUT.exists() else "# int32 blueprint regrets against float64\n"
    cut = old.find("\n## ") + 1 or len(old)  # above the earlier runs, below the title and any summary
    OUT.write_text(old[:cut].rstrip("\n") + f"\n\n{head}" + "\n".join(lines) + "\n\n" + old[cut:])


if __name__ == "__main__":
    main()
