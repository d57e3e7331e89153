"""Data-parallel blueprint MCCFR ([game] replicas, docs/blueprint.md) on 3-player Leduc (leduc_tree's
rules): NashConv per iteration of W = 2 replicas at several sync_every against one thread (exact,
the tree engine's best responses over the mapped strategy), several seeds; and wall time per
iteration, the median of interleaved repeats, W = 1 against W = 2 on the local transport's threads
(nodes touched: the machine-independent work), by the engine and through the solver. Writes bench/results/blueprint_threads.md (the new
section on top, earlier runs kept below).

    python3 bench/blueprint_threads.py [--iterations 200000] [--seeds 1,2,3,4,5] [--variants 1000:50,1000:200]
        [--repeats 5] [--threads 2]

A variant is sync_every:sync_ramp (rounds grow from one iteration a replica, doubling every
sync_ramp rounds, up to sync_every; ramp 0: sync_every from the first).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import tempfile
import time
from pathlib import Path

from solverkit_transports.local import LocalTransport
from solverkit.blueprint.engine import Blueprint
from solverkit.blueprint.tree_map import tree_strategy
from solverkit.core.config import load_config
from solverkit.core.solver import nash_conv, run_solve
from solverkit.poker.nplayer import tree_table

OUT = Path(__file__).parent / "results" / "blueprint_threads.md"


def recipes(n: int) -> dict[str, tuple[dict, dict]]:
    """name -> (rule and averaging tables, Blueprint pruning arguments)."""
    return {
        "plain": ({"rule": {"name": "rm"}, "averaging": {"name": "uniform"}}, {}),
        "pruned + lcfr early": ({"rule": {"name": "lcfr", "until": n // 4}, "averaging": {"name": "linear", "until": n // 4}},
                                {"prune_threshold": -100.0, "prune_start": n // 10}),
    }


def assembly(parts: dict):
    return load_config({"game": {"name": "leduc_tree", "players": 3}, "sampler": {"name": "external"},
                        "solver": {"seed": 1, "eval_every": 10**9}, **parts})


def engine(a, prune: dict, seed: int) -> Blueprint:
    return Blueprint(tree_table(a.game), seed=seed, rule=a.rule, averaging=a.averaging, **prune)


def run(bp: Blueprint, n: int, W: int, sync: int, ramp: int, pool) -> tuple[float, int]:
    """(seconds, nodes) of n iterations in blocks of 5,000 (the solver's blocks are smaller and
    follow the clock; the replicas' rounds do not depend on them)."""
    t0 = time.perf_counter()
    nodes = 0
    while bp.iteration < n:
        nodes += bp.run(min(5000, n - bp.iteration), replicas=W, sync=sync, map_local=pool.map_local, ramp=ramp)
    return time.perf_counter() - t0, nodes


#: 3-player Leduc as leduc_tree plays it, as an ACPC file (the blueprint game reads files)
LEDUC3 = """GAMEDEF
limit
numPlayers = 3
numRounds = 2
blind = 1 1 1
raiseSize = 2 4
firstPlayer = 1 1
maxRaises = 2 2
numSuits = 2
numRanks = 4
numHoleCards = 1
numBoardCards = 0 1
END GAMEDEF
"""


def solve(gamedef, n: int, v, threads: int) -> dict:
    """The last metrics row of a solver run of `n` iterations of variant v (pruned + lcfr early)."""
    parts, prune = recipes(n)["pruned + lcfr early"]
    game = {"name": "blueprint", "gamedef": str(gamedef), "exact_nodes": 0}
    if v[0] > 1:
        game.update({"replicas": v[0], "sync_every": v[1], "sync_ramp": v[2]})
    a = load_config({"game": game, **parts, "sampler": {"name": "external", **prune},
                     "solver": {"seed": 1, "eval_every": 10**9}, "transport": {"name": "local", "threads": threads}})
    return run_solve(a, iterations=n).metrics[-1]


def _label(v) -> str:
    return "1 thread" if v[0] == 1 else f"W = {v[0]}, sync_every = {v[1]}, sync_ramp = {v[2]}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=200_000)
    ap.add_argument("--seeds", default="1,2,3,4,5")
    ap.add_argument("--variants", default="1000:50,1000:200", help="sync_every:sync_ramp, comma-separated")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    n, W = args.iterations, args.threads
    seeds = [int(s) for s in args.seeds.split(",")]
    variants = [(1, 0, 0)] + [(W, *map(int, v.split(":"))) for v in args.variants.split(",")]
    pool = LocalTransport(threads=W)
    t0 = time.time()
    lines = [f"## {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}", "",
             f"`python3 bench/blueprint_threads.py --iterations {n} --seeds {args.seeds} --variants {args.variants} "
             f"--repeats {args.repeats} --threads {W}` ({platform.machine()}, 2 cores shared with other jobs: "
             "seconds are noisy, nodes are not)", ""]
    # convergence
    lines += ["### NashConv after the iterations (exact), per seed", "",
              "| recipe | variant | " + " | ".join(f"seed {s}" for s in seeds) + " | mean |",
              "|---|---|" + "---|" * (len(seeds) + 1)]
    for name, (parts, prune) in recipes(n).items():
        a = assembly(parts)
        for var in variants:
            vals = []
            for seed in seeds:
                bp = engine(a, prune, seed)
                run(bp, n, *var, pool)
                vals.append(nash_conv(a.game, tree_strategy(bp, a.game))[0])
                print(name, var, seed, vals[-1], flush=True)
            label = _label(var)
            lines.append(f"| {name} | {label} | " + " | ".join(f"{v:.4f}" for v in vals)
                         + f" | {statistics.mean(vals):.4f} |")
    # time
    a = assembly(recipes(n)["pruned + lcfr early"][0])
    prune = recipes(n)["pruned + lcfr early"][1]
    lines += ["", f"### Wall time of {n} iterations (pruned + lcfr early, seed 1), median of {args.repeats} "
              "interleaved repeats", "",
              "| variant | median s | runs (s) | nodes touched | s vs 1 thread |", "|---|---|---|---|---|"]
    times: dict = {v: [] for v in variants}
    nodes: dict = {}
    run(engine(a, prune, 1), 4 * W, W, 1, 0, pool)  # compile and load every kernel
    for _ in range(args.repeats):
        for v in variants:
            s, c = run(engine(a, prune, 1), n, *v, pool)
            times[v].append(s)
            nodes[v] = c
            print("time", v, s, c, flush=True)
    base = statistics.median(times[(1, 0, 0)])
    for v in variants:
        med = statistics.median(times[v])
        lines.append(f"| {_label(v)} | {med:.3f} | " + ", ".join(f"{x:.2f}" for x in times[v])
                     + f" | {nodes[v]:,} | {med / base:.2f}x |")
    # through the solver: blocks that follow the clock, the local transport's threads
    lines += ["", f"### Through the solver (`solverkit solve`'s path, [game] exact_nodes = 0: no evaluation), "
              f"{n} iterations, solve seconds, median of {args.repeats} interleaved repeats", "",
              "| variant | median s | runs (s) | nodes touched | s vs 1 thread |", "|---|---|---|---|---|"]
    stimes: dict = {v: [] for v in variants}
    snodes: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        gamedef = Path(tmp) / "leduc3.game"
        gamedef.write_text(LEDUC3)
        for _ in range(args.repeats):
            for v in variants:
                m = solve(gamedef, n, v, W)
                stimes[v].append(m["seconds"])
                snodes[v] = m["nodes_touched"]
                print("solve", v, m["seconds"], m["nodes_touched"], flush=True)
    base = statistics.median(stimes[(1, 0, 0)])
    for v in variants:
        med = statistics.median(stimes[v])
        lines.append(f"| {_label(v)} | {med:.3f} | " + ", ".join(f"{x:.2f}" for x in stimes[v])
                     + f" | {snodes[v]:,} | {med / base:.2f}x |")
    lines += ["", f"({time.time() - t0:.0f} s in all)", ""]
    pool.close()
    old = OUT.read_text().split("\n", 2)[2] if OUT.exists() else ""
    OUT.write_text("# Data-parallel blueprint MCCFR on 3-player Leduc\n\n" + "\n".join(lines) + "\n" + old)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
