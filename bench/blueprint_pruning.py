"""Time to NashConv on 3-player Leduc (leduc_tree): plain external sampling against the
blueprint recipe of configs/blueprint_leduc3.toml (negative-regret pruning with a regret floor just
below its threshold, and Linear CFR with linear averaging for the first iterations; its `until` and
`prune_start` scaled to the run as fractions of the preset's iterations), its sampler alone, its
schedule alone and the recipe without pruning, in the same process, several seeds. The target of a seed is the NashConv plain external sampling reaches at
its last iteration; each variant's time is the solve time (evaluations excluded) at its first
evaluation at or below it, and its nodes the node visits until then (load-independent). Also
measured: the most node visits pruning can remove (every action of negative regret skipped in
every traversal from the first), seed 1's recipe run twice (the same strategy bit for bit), and
seed 1's last NashConv of the recipe against pyspiel.nash_conv of its exported policy. Writes
bench/results/blueprint_pruning.md (the new section on top, earlier runs kept below).

    python3 bench/blueprint_pruning.py [--iterations 1000000] [--seeds 1,2,3,4,5] [--evals 20]   # ~20 min quiet
    python3 bench/blueprint_pruning.py --iterations 200000 --threshold -300 --probability 0.95  # override the preset
"""

from __future__ import annotations

import argparse
import os
import platform
import time
import tomllib
from pathlib import Path

import numpy as np

from solverkit.core.config import load_config
from solverkit.core.solver import run_solve

OUT = Path(__file__).parent / "results" / "blueprint_pruning.md"
PRESET = Path(__file__).resolve().parents[1] / "configs" / "blueprint_leduc3.toml"
RECIPE = "recipe (pruned + lcfr)"


def preset_parts(n: int, path: Path = PRESET, **sampler) -> dict[str, dict]:
    """The preset's [rule], [averaging] and [sampler] for a run of n iterations: `until` and
    `prune_start` scaled by n / the preset's iterations; `sampler` overrides its values (None: kept)."""
    raw = tomllib.loads(path.read_text())
    k = n / raw["solver"]["iterations"]
    parts = {t: dict(raw[t]) for t in ("rule", "averaging", "sampler")}
    for t in ("rule", "averaging"):
        for key in ("until", "start"):
            if parts[t].get(key):
                parts[t][key] = max(int(parts[t][key] * k), 1)
    s = parts["sampler"]
    s["prune_start"] = int(s.get("prune_start", 0) * k)
    s.update({key: v for key, v in sampler.items() if v is not None})
    return parts


def variants(parts: dict) -> dict[str, dict]:
    """The assemblies compared (sampler, rule, averaging): plain external sampling, the recipe's
    sampler alone (pruning and regret floor), its schedule alone, the recipe without pruning (its
    schedule and floor), and the recipe."""
    plain = {"rule": {"name": "rm"}, "averaging": {"name": "uniform"}}
    external = {"name": "external"}
    unpruned = {k: v for k, v in parts["sampler"].items() if not k.startswith("prune_")}
    return {
        "plain": {"sampler": external, **plain},
        "pruned": {"sampler": parts["sampler"], **plain},
        "lcfr early": {"sampler": external, "rule": parts["rule"], "averaging": parts["averaging"]},
        "floored": {**parts, "sampler": unpruned},
        RECIPE: parts,
    }


def run(parts: dict, n: int, seed: int, evals: int = 20):
    """(assembly, result) of one run with `evals` evaluations."""
    cfg = {"game": {"name": "leduc_tree", "players": 3}, "solver": {"seed": seed, "eval_every": max(n // evals, 1)},
           **parts}
    a = load_config(cfg)
    return a, run_solve(a, iterations=n)


def openspiel_nash_conv(a, strategy) -> float:
    """pyspiel.nash_conv of the exported policy on leduc_poker(players=3): shares no code with
    solverkit's evaluation."""
    import pyspiel

    table = {k: list(v.items()) for k, v in a.game.openspiel_table(strategy).items()}
    return pyspiel.nash_conv(pyspiel.load_game("leduc_poker(players=3)"), pyspiel.TabularPolicy(table))


def time_to(metrics, target: float):
    """(seconds, iteration, nodes touched) of the first evaluation at or below target, or None."""
    for m in metrics:
        if m["nash_conv"] <= target:
            return m["seconds"], m["iteration"], m["nodes_touched"]
    return None


def reproduces(parts: dict, n: int, seed: int) -> tuple[int, bool]:
    """(iterations, whether two runs of `parts` with the same seed give the same strategy and node
    count bit for bit)."""
    out = [run(parts, n, seed, 1)[1] for _ in range(2)]
    same = [np.concatenate([np.asarray(x, dtype=np.float64).ravel() for x in r.strategy]) for r in out]
    return n, bool(np.array_equal(same[0], same[1]) and out[0].metrics[-1]["nodes_touched"]
                   == out[1].metrics[-1]["nodes_touched"])


def summary(rows, seeds) -> list[str]:
    """Mean and worst seed of each variant's time and nodes against plain (rows that reached the target)."""
    lines = []
    for name in dict.fromkeys(r[1] for r in rows):
        hits = [(r[3][0] / r[4][0], r[3][2] / r[4][1]) for r in rows if r[1] == name and r[3]]
        reached = f"{len(hits)} of {len(seeds)}"
        if hits:
            lines.append(f"| {name} | {reached} | {sum(h[0] for h in hits) / len(hits):.2f}x | "
                         f"{max(h[0] for h in hits):.2f}x | {sum(h[1] for h in hits) / len(hits):.2f}x | "
                         f"{max(h[1] for h in hits):.2f}x |")
        else:
            lines.append(f"| {name} | {reached} | - | - | - | - |")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=1000000)
    ap.add_argument("--seeds", default="1,2,3,4,5")
    ap.add_argument("--evals", type=int, default=20, help="evaluations a run")
    ap.add_argument("--preset", default=str(PRESET), help="the recipe's config (its rule, averaging and sampler)")
    ap.add_argument("--threshold", type=float, default=None, help="prune_threshold (default: the preset's)")
    ap.add_argument("--probability", type=float, default=None, help="prune_probability (default: the preset's)")
    ap.add_argument("--start", type=int, default=None, help="prune_start (default: the preset's, scaled)")
    ap.add_argument("--floor", type=float, default=None, help="regret_floor (default: the preset's)")
    ap.add_argument("--variants", default="plain,pruned,lcfr early,floored,recipe",
                    help="which to run, comma-separated (plain always runs: it sets the target)")
    ap.add_argument("--no-bound", action="store_true", help="skip the most-pruning bound (2 runs a seed)")
    args = ap.parse_args()
    n = args.iterations
    seeds = [int(s) for s in args.seeds.split(",")]
    parts = preset_parts(n, Path(args.preset), prune_threshold=args.threshold, prune_probability=args.probability,
                         prune_start=args.start, regret_floor=args.floor)
    load = os.getloadavg()[0]
    run({"sampler": {"name": "external"}, "rule": {"name": "rm"}, "averaging": {"name": "uniform"}}, 10, 0)  # compile
    rows = []
    t0 = time.time()
    most = {"name": "external", "prune_threshold": -1e-12, "prune_probability": 1.0}
    plain_parts = {"rule": {"name": "rm"}, "averaging": {"name": "uniform"}}
    bound = []
    for seed in [] if args.no_bound else seeds:
        full = run({"sampler": {"name": "external"}, **plain_parts}, n, seed, 1)[1].metrics[-1]["nodes_touched"]
        least = run({"sampler": most, **plain_parts}, n, seed, 1)[1].metrics[-1]["nodes_touched"]
        bound.append((seed, full, least))
        print("bound", seed, full, least, flush=True)
    repro = reproduces(parts, min(n, 100000), seeds[0])
    print("reproduces", repro, flush=True)
    check = None
    for seed in seeds:
        curves = {}
        wanted = {"plain", *args.variants.split(",")}
        for name, v in variants(parts).items():
            if name.split(" (")[0] not in wanted:
                continue
            a, r = run(v, n, seed, args.evals)
            curves[name] = r.metrics
            if check is None and name == RECIPE:
                check = (seed, r.metrics[-1]["nash_conv"], openspiel_nash_conv(a, r.strategy))
                print("check", check, flush=True)
        target = curves["plain"][-1]["nash_conv"]
        plain_s, _, plain_nodes = time_to(curves["plain"], target)
        for name, metrics in curves.items():
            hit = time_to(metrics, target)
            last = metrics[-1]
            rows.append((seed, name, target, hit, (plain_s, plain_nodes), last))
            print(seed, name, target, hit, last["nash_conv"], last["seconds"], last["nodes_touched"], flush=True)
    every = max(n // args.evals, 1)
    sp, ru, av = parts["sampler"], parts["rule"], parts["averaging"]
    recipe = (f"prune_threshold {sp['prune_threshold']:g}, prune_probability {sp['prune_probability']:g}, "
              f"prune_start {sp['prune_start']}, regret_floor {sp.get('regret_floor', 0):g}; rule {ru['name']} until "
              f"{ru.get('until', 0)}, averaging {av['name']} until {av.get('until', 0)}"
              + (f" start {av['start']}" if av.get("start") else ""))
    table = summary(rows, seeds)
    lines = [
        "# Blueprint MCCFR: pruning and early Linear CFR on 3-player Leduc",
        "",
        f"## {n:,} iterations, {len(seeds)} seeds, the recipe of configs/blueprint_leduc3.toml ({recipe})",
        "",
        f"`python3 bench/blueprint_pruning.py --iterations {n} --seeds {args.seeds} --evals {args.evals}"
        + (f" --variants '{args.variants}'" if args.variants != ap.get_default("variants") else "")
        + (" --no-bound" if args.no_bound else "")
        + "".join(f" --{k} {getattr(args, k):g}" for k in ("threshold", "probability", "start", "floor")
                  if getattr(args, k) is not None)
        + f"` ({platform.machine()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {time.time() - t0:.0f} s, "
        f"load {load:.1f} at the start; 2 cores shared with other jobs, so seconds are noisy: nodes are not).",
        "",
        f"Each seed: the target is the NashConv plain external sampling (rm, uniform averaging) reaches after {n} "
        "iterations; a variant's time is its solve time (evaluations excluded) at its first evaluation (every "
        f"{every} iterations) at or below the target; nodes: the node visits until then (the same on any machine). "
        "pruned: the recipe's sampler (pruning and regret floor) with rm and uniform averaging; lcfr early: the "
        "recipe's rule and averaging without pruning or floor; floored: the recipe without pruning (its rule, "
        "averaging and regret floor).",
        "",
        "| variant | reached | time vs plain, mean | worst seed | nodes vs plain, mean | worst seed |",
        "|---|---|---|---|---|---|",
        *table,
        "",
        "| seed | variant | target NashConv | time to target (s) | iterations to target | time vs plain | nodes vs plain "
        f"| NashConv at {n} | seconds for {n} | nodes for {n} |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for seed, name, target, hit, (plain_s, plain_nodes), last in rows:
        t = f"{hit[0]:.3f}" if hit else "not reached"
        it = str(hit[1]) if hit else "-"
        ratio = f"{hit[0] / plain_s:.2f}x" if hit else "-"
        nodes = f"{hit[2] / plain_nodes:.2f}x" if hit else "-"
        lines.append(f"| {seed} | {name} | {target:.4f} | {t} | {it} | {ratio} | {nodes} | {last['nash_conv']:.4f} | "
                     f"{last['seconds']:.3f} | {last['nodes_touched']} |")
    lines += [] if not bound else ["", f"The most pruning can remove: every action of negative regret skipped in every traversal from the "
              f"first (prune_threshold -1e-12, prune_probability 1), nodes visited in {n} iterations:", "",
              "| seed | plain | pruning all it can | removed |", "|---|---|---|---|"]
    lines += [f"| {s} | {f} | {m} | {1 - m / f:.1%} |" for s, f, m in bound]
    lines += ["", f"Reproduction: seed {seeds[0]}'s recipe run twice for {repro[0]} iterations: "
              + ("the same strategy and node count bit for bit." if repro[1] else "DIFFERENT strategies.")]
    if check:
        lines += ["", f"Cross-check: seed {check[0]}'s recipe NashConv at {n}, solverkit {check[1]:.10f}, "
                  f"pyspiel.nash_conv of the exported policy {check[2]:.10f}."]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    old = OUT.read_text().split("\n", 1)[1].lstrip("\n") if OUT.exists() else ""
    OUT.write_text("\n".join(lines) + "\n\n" + old)
    print("\n".join(table))
    print(OUT)


if __name__ == "__main__":
    main()
