"""Time to NashConv on 3-player Leduc (leduc_tree): plain external sampling against the
blueprint recipe (negative-regret pruning, and Linear CFR for the first iterations), in the same
process, several seeds. The target of a seed is the NashConv plain external sampling reaches at
its last iteration; each variant's time is the solve time (evaluations excluded) at its first
evaluation at or below it. Also measured: the most node visits pruning can remove (every action of
negative regret skipped in every traversal from the first), and once, seed 1's last NashConv of the
pruned Linear CFR run against pyspiel.nash_conv of its exported policy. Writes
bench/results/blueprint_pruning.md (the new section on top, earlier runs kept below).

    python3 bench/blueprint_pruning.py [--iterations 20000] [--seeds 1,2,3] [--evals 10] [--probability 0.95]
    python3 bench/blueprint_pruning.py --iterations 1000000 --threshold -300 --probability 0.5   # ~8 min
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path

from solverkit.core.config import load_config
from solverkit.core.solver import run_solve

OUT = Path(__file__).parent / "results" / "blueprint_pruning.md"


def variants(n: int, threshold: float, start: int, probability: float = 0.95) -> dict[str, dict]:
    """The assemblies compared (sampler, rule, averaging)."""
    prune = {"name": "external", "prune_threshold": threshold, "prune_probability": probability, "prune_start": start}
    return {
        "plain": {"sampler": {"name": "external"}, "rule": {"name": "rm"}, "averaging": {"name": "uniform"}},
        "pruned": {"sampler": prune, "rule": {"name": "rm"}, "averaging": {"name": "uniform"}},
        "lcfr early": {"sampler": {"name": "external"}, "rule": {"name": "lcfr", "until": n // 4},
                       "averaging": {"name": "linear", "until": n // 4}},
        "pruned + lcfr early": {"sampler": prune, "rule": {"name": "lcfr", "until": n // 4},
                                "averaging": {"name": "linear", "until": n // 4}},
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=20000)
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--threshold", type=float, default=-100.0)
    ap.add_argument("--start", type=int, default=0, help="prune_start (default: iterations / 10)")
    ap.add_argument("--evals", type=int, default=20, help="evaluations a run")
    ap.add_argument("--probability", type=float, default=0.95, help="prune_probability of the pruned variants")
    args = ap.parse_args()
    n = args.iterations
    start = args.start or n // 10
    seeds = [int(s) for s in args.seeds.split(",")]
    run({"sampler": {"name": "external"}, "rule": {"name": "rm"}, "averaging": {"name": "uniform"}}, 10, 0)  # compile
    rows = []
    t0 = time.time()
    most = {"name": "external", "prune_threshold": -1e-12, "prune_probability": 1.0}
    plain_parts = {"rule": {"name": "rm"}, "averaging": {"name": "uniform"}}
    bound = []
    for seed in seeds:
        full = run({"sampler": {"name": "external"}, **plain_parts}, n, seed, 1)[1].metrics[-1]["nodes_touched"]
        least = run({"sampler": most, **plain_parts}, n, seed, 1)[1].metrics[-1]["nodes_touched"]
        bound.append((seed, full, least))
        print("bound", seed, full, least, flush=True)
    check = None
    for seed in seeds:
        curves = {}
        for name, parts in variants(n, args.threshold, start, args.probability).items():
            a, r = run(parts, n, seed, args.evals)
            curves[name] = r.metrics
            if check is None and name == "pruned + lcfr early":
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
    lines = [
        "# Blueprint MCCFR: pruning and early Linear CFR on 3-player Leduc",
        "",
        f"## {n:,} iterations, prune_probability {args.probability:g} (unbiased pruning: regret deltas below skippable "
        "actions scaled by 1 / (1 - prune_probability))",
        "",
        f"`python3 bench/blueprint_pruning.py --iterations {n} --seeds {args.seeds} --threshold {args.threshold:g} "
        f"--start {start} --evals {args.evals} --probability {args.probability:g}` ({platform.machine()}, "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"{time.time() - t0:.0f} s; 2 cores shared with other jobs, so seconds are noisy: nodes are not).",
        "",
        f"Each seed: the target is the NashConv plain external sampling reaches after {n} iterations; a variant's "
        "time is its solve time (evaluations excluded) at its first evaluation (every "
        f"{every} iterations) at or below the target; nodes: the node visits until then (the same on any machine). "
        f"pruned: prune_threshold {args.threshold:g}, prune_probability {args.probability:g}, prune_start {start}; "
        f"lcfr early: rule lcfr and averaging linear with until = {n // 4}.",
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
    for name in dict.fromkeys(r[1] for r in rows):
        hits = [(r[3][0] / r[4][0], r[3][2] / r[4][1]) for r in rows if r[1] == name and r[3]]
        if len(hits) == len(seeds):
            lines.append(f"| mean | {name} | | | | {sum(h[0] for h in hits) / len(hits):.2f}x | "
                         f"{sum(h[1] for h in hits) / len(hits):.2f}x | | | |")
    lines += ["", f"The most pruning can remove: every action of negative regret skipped in every traversal from the "
              f"first (prune_threshold -1e-12, prune_probability 1), nodes visited in {n} iterations:", "",
              "| seed | plain | pruning all it can | removed |", "|---|---|---|---|"]
    lines += [f"| {s} | {f} | {m} | {1 - m / f:.1%} |" for s, f, m in bound]
    if check:
        lines += ["", f"Cross-check: seed {check[0]}'s pruned + lcfr early NashConv at {n}, solverkit {check[1]:.10f}, "
                  f"pyspiel.nash_conv of the exported policy {check[2]:.10f}."]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    old = OUT.read_text().split("\n", 1)[1].lstrip("\n") if OUT.exists() else ""
    if old.startswith("`python3"):  # the first results, written before the section headings
        old = "## Earlier run (pruning before the fix): 60,000 iterations, 1 seed\n\n" + old.replace(
            "## Earlier run", "## Earlier run (pruning before the fix)")
    OUT.write_text("\n".join(lines) + "\n\n" + old)
    print(OUT)


if __name__ == "__main__":
    main()
