"""How long a card abstraction table takes to build, step by step, and what the sorted equity
sweep saves over comparing hands pairwise.

Builds each (game, method, buckets) table with solverkit.abstraction.build and reports the
time of every step (final-board equities, each round's features, each round's k-means and
assignment), the peak memory, and the machine's load average (the machine may be shared: the
load says how many cores the build really had). The peer: on a sample of hold'em river boards,
the equity of every hand from the sorted sweep (_sweep) against the same equities from a
pairwise loop (_brute), both numba, same strengths. Writes
bench/results/abstraction_build.{json,md}.

    python bench/abstraction_build.py                                  # small games, hold'em ehs and emd
    python bench/abstraction_build.py --runs holdem:emd:0,200,200,200 holdem:ochs:0,200,200,200
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import time
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).parent / "results"
DEFAULT_RUNS = ["leduc13:emd:0,20", "rhode_island:emd:0,50,50", "rhode_island:ochs:0,50,50",
                "holdem:ehs:0,200,200,200", "holdem:emd:0,200,200,200"]


def card_spec(game: str):
    from solverkit.abstraction.spec import CardSpec

    if game == "holdem":
        return CardSpec(13, 4, 2, (0, 3, 1, 1))
    from solverkit.core.config import load_config

    table = {"leduc13": {"name": "acpc", "gamedef": "leduc13"}}.get(game, {"name": game})
    return CardSpec.of_game(load_config({"preset": "cfr_plus", "game": table}).game)


def sweep_vs_pairwise(boards: int = 200) -> dict:
    """Seconds per board of the sweep and of the pairwise loop on hold'em river boards."""
    from solverkit.abstraction.equity import _brute, _sweep
    from solverkit.abstraction.spec import CardSpec
    from solverkit.abstraction.equity import FinalBoards
    from solverkit.poker.evaluator import acpc_strengths

    fb = FinalBoards(CardSpec(13, 4, 2, (0, 3, 1, 1)), boards=np.random.default_rng(0).permuted(
        np.tile(np.arange(52), (boards, 1)), axis=1)[:, :5])
    hands, nh = fb.hands, fb.hands.shape[0]
    cluster = np.zeros(nh, dtype=np.int64)
    strengths = []
    for board in fb.boards:
        s = np.empty(nh, dtype=np.int64)
        acpc_strengths(hands, board, 4, s)
        strengths.append(s)
    out = {}
    for name, fn in (("sweep", lambda s, e: _sweep(s, hands, cluster, 1, 52, e)),
                     ("pairwise", lambda s, e: _brute(s, hands, cluster, 1, e))):
        a, b = np.zeros((nh, 1)), np.zeros((nh, 1))
        fn(strengths[0], a)  # compile
        t = time.perf_counter()
        for s in strengths:
            fn(s, b)
        out[name] = (time.perf_counter() - t) / len(strengths)
    e1, e2 = np.zeros((nh, 1)), np.zeros((nh, 1))
    _sweep(strengths[0], hands, cluster, 1, 52, e1)
    _brute(strengths[0], hands, cluster, 1, e2)
    out["max_difference"] = float(np.abs(e1 - e2).max())
    out["boards"] = len(strengths)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", nargs="+", default=DEFAULT_RUNS, help="GAME:METHOD:BUCKETS (comma-separated)")
    ap.add_argument("--bins", type=int, default=50)
    ap.add_argument("--sample", type=int, default=100000)
    ap.add_argument("--iterations", type=int, default=30)
    ap.add_argument("--clusters", type=int, default=8)
    ap.add_argument("--tag", default="abstraction_build")
    args = ap.parse_args()
    from solverkit.abstraction.build import build_table

    rows = []
    peer = sweep_vs_pairwise()
    print(f"river board sweep {peer['sweep'] * 1e3:.3f} ms vs pairwise {peer['pairwise'] * 1e3:.3f} ms "
          f"(x{peer['pairwise'] / peer['sweep']:.0f}), max difference {peer['max_difference']:.1e}", flush=True)
    for run in args.runs:
        game, method, buckets = run.split(":")
        spec = card_spec(game)
        params = {"buckets": [int(b) for b in buckets.split(",")], "seed": 0}
        if method in ("emd", "ochs"):
            params.update(bins=args.bins, restarts=1, iterations=args.iterations, sample=args.sample)
        if method == "ochs":
            params["clusters"] = args.clusters
        load0 = os.getloadavg()[0]
        t, c = time.perf_counter(), time.process_time()
        table = build_table(spec, method, params,
                            lambda text: print(f"  {run} {text}", flush=True))  # noqa: B023 (called during this build)
        total, cpu = time.perf_counter() - t, time.process_time() - c
        rows.append({"run": run, "game": game, "method": method, "buckets": list(table.buckets),
                     "sizes": [table.indexer.size(r) for r in range(spec.rounds)], "seconds": total,
                     "cpu_seconds": cpu, "steps": {k: round(v, 2) for k, v in table.times.items()},
                     "cpu_steps": {k: round(v, 2) for k, v in table.cpu_times.items()},
                     "load_before": load0, "load_after": os.getloadavg()[0],
                     "peak_rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6})
        print(f"{run}: {total:.1f}s wall, {cpu:.1f}s CPU; CPU per step {rows[-1]['cpu_steps']}", flush=True)
        write(args, peer, rows)  # after every run: a long hold'em run stopped early keeps the others


def write(args, peer, rows):
    """bench/results/<tag>.json and .md from the runs so far; the table is also printed."""
    machine = {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version()}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{args.tag}.json").write_text(json.dumps({"machine": machine, "peer": peer, "runs": rows,
                                                          "args": vars(args)}, indent=1))
    lines = [f"# Card abstraction build times ({args.tag})", "",
             f"Machine: {machine['cpus']} CPUs, {machine['platform']}. The machine is shared: the load average is "
             "given per run (above the CPU count, the build had less than the whole machine), and CPU seconds (all "
             f"threads) beside wall seconds; CPU / {machine['cpus']} is the wall time the machine would take alone "
             "(every step runs on all cores).", "",
             f"Peer: equity of all 1,326 hands on one hold'em river board: sorted sweep "
             f"{peer['sweep'] * 1e3:.3f} ms, pairwise loop {peer['pairwise'] * 1e3:.3f} ms "
             f"(x{peer['pairwise'] / peer['sweep']:.0f}; {peer['boards']} boards, same strengths, max difference "
             f"{peer['max_difference']:.1e}).", "",
             "| run | buckets | canonical hands | wall s | CPU s | CPU s per step | load before / after | peak RSS GB |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        steps = ", ".join(f"{k} {v:g}" for k, v in r["cpu_steps"].items())
        lines.append(f"| {r['run']} | {r['buckets']} | {r['sizes']} | {r['seconds']:.1f} | {r['cpu_seconds']:.1f} | "
                     f"{steps} | {r['load_before']:.1f} / {r['load_after']:.1f} | {r['peak_rss_gb']:.2f} |")
    (RESULTS / f"{args.tag}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
