"""Blueprint replicas on zmq workers (solverkit.blueprint.distributed, docs/blueprint.md) against the
same replicas on threads: 3-player Leduc through the solver, bench/blueprint_threads.py's config
(pruning + early Linear CFR, [game] exact_nodes = 0: no evaluation), W = 2 (one worker) and W = 3
(two workers), each worker spawned on this machine with one thread; the default ramp
(sync_every 1,000, sync_ramp 200) and fixed rounds (1,000:0). Reports the solve seconds (the
solver's clock, compilation left out), the wall time of the whole run (worker start included),
the bytes on the wire a round, and checks that the strategies are equal bit for bit. Writes
bench/results/blueprint_zmq.md (the new section on top).

    python3 bench/blueprint_zmq.py [--iterations 200000] [--repeats 3] [--variants 1000:200,1000:0]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from blueprint_threads import LEDUC3, recipes  # noqa: E402

from solverkit.core.config import load_config  # noqa: E402
from solverkit.core.solver import Solver  # noqa: E402

OUT = Path(__file__).parent / "results" / "blueprint_zmq.md"
BLOCK = 5000
FAST = {"heartbeat": 0.5, "timeout": 30.0, "connect_timeout": 120.0}


def assembly(gamedef, n: int, W: int, sync: int, ramp: int, transport: dict):
    parts, prune = recipes(n)["pruned + lcfr early"]
    game = {"name": "blueprint", "gamedef": str(gamedef), "exact_nodes": 0, "replicas": W, "sync_every": sync,
            "sync_ramp": ramp}
    return load_config({"game": game, **parts, "sampler": {"name": "external", **prune},
                        "solver": {"seed": 1, "eval_every": 10**9}, "transport": transport})


def rounds_of(a, n: int) -> tuple[int, int]:
    """(rounds closed in n iterations, iterations of the last round)."""
    plan, t, k, last = a.game.plan, 1, 0, 0
    while t <= n:
        lo, hi = plan.round_of(t)
        k, last, t = k + (hi <= n), hi - lo + 1, hi + 1
    return k, last


def one(gamedef, n: int, W: int, sync: int, ramp: int, mode: str) -> dict:
    """A run of the solver (the run loop's final evaluation left out: on this game the tree engine's
    enumeration, a minute), in blocks of 5,000 iterations."""
    transport = ({"name": "local", "threads": W} if mode == "threads"
                 else {"name": "zmq", "workers": W - 1, "spawn": W - 1, "threads": 1, **FAST})
    a = assembly(gamedef, n, W, sync, ramp, transport)
    t0 = time.perf_counter()
    s = Solver(a)
    try:
        s.planned_iterations = n
        while s.iteration < n:
            s.step(min(BLOCK, n - s.iteration))
        wall = time.perf_counter() - t0
        report = s.transport.report()
        pol = [np.asarray(x).copy() for x in s.strategy()]
    finally:
        s.close()
    return {"seconds": s.solve_seconds, "wall": wall, "nodes": s.nodes_touched,
            "sent": report.get("wire_bytes_sent", 0), "received": report.get("wire_bytes_received", 0),
            "policy": pol, "rounds": rounds_of(a, n), "values": a.game.plan.size + a.game.plan.asize}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=200_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--variants", default="1000:200,1000:0", help="sync_every:sync_ramp, comma-separated")
    ap.add_argument("--replicas", default="2,3", help="W values, comma-separated (W - 1 workers each)")
    args = ap.parse_args()
    n = args.iterations
    variants = [tuple(map(int, v.split(":"))) for v in args.variants.split(",")]
    Ws = [int(w) for w in args.replicas.split(",")]
    load = os.getloadavg()[0]
    t00 = time.time()
    lines = [f"## {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}", "",
             f"`python3 bench/blueprint_zmq.py --iterations {n} --repeats {args.repeats} --variants {args.variants} "
             f"--replicas {args.replicas}` ({platform.machine()}, {os.cpu_count()} cores shared with other jobs, "
             f"load average {load:.1f} at the start: seconds are noisy; nodes and bytes are not)", "",
             f"3-player Leduc (bench/blueprint_threads.py's game and recipe: pruning + early Linear CFR), {n:,} "
             "iterations through the solver; zmq: W - 1 workers spawned on this machine, one thread each, the trunk "
             "running replica 0; threads: the local transport with W threads. Solve s: the solver's clock (no "
             "compilation); wall s: the solver's start (workers spawned and set up) and its steps, in blocks of "
             f"{BLOCK:,}. Median of the repeats.", "",
             "| W | sync_every:sync_ramp | rounds | transport | solve s (runs) | wall s | vs threads (solve) | "
             "nodes touched | wire bytes a round (down + up, one worker) | strategy |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as tmp:
        gamedef = Path(tmp) / "leduc3.game"
        gamedef.write_text(LEDUC3)
        one(gamedef, 2000, 2, 1000, 200, "zmq")  # kernels compiled and cached
        for W in Ws:
            for sync, ramp in variants:
                runs: dict = {"threads": [], "zmq": []}
                for _ in range(args.repeats):
                    for mode in runs:
                        res = one(gamedef, n, W, sync, ramp, mode)
                        runs[mode].append(res)
                        print(W, sync, ramp, mode, res["seconds"], res["wall"], res["sent"], flush=True)
                same = all(np.array_equal(x, y) for t, z in zip(runs["threads"], runs["zmq"])
                           for x, y in zip(t["policy"], z["policy"]))
                base = statistics.median(r["seconds"] for r in runs["threads"])
                for mode, rs in runs.items():
                    med = statistics.median(r["seconds"] for r in rs)
                    wall = statistics.median(r["wall"] for r in rs)
                    k, last = rs[0]["rounds"]
                    per = ""
                    if mode == "zmq":
                        per = (f"{rs[0]['sent'] / k / (W - 1):,.0f} + {rs[0]['received'] / k / (W - 1):,.0f} "
                               f"(values x 8 = {8 * rs[0]['values']:,})")
                    lines.append(f"| {W} | {sync}:{ramp} | {k:,} (last {last:,} it.) | {mode} | {med:.2f} ("
                                 + ", ".join(f"{r['seconds']:.2f}" for r in rs) + f") | {wall:.2f} | "
                                 f"{med / base:.2f}x | {rs[0]['nodes']:,} | {per} | "
                                 f"{'equal' if same else 'DIFFERENT'} |")
    lines += ["", f"({time.time() - t00:.0f} s in all; load average {os.getloadavg()[0]:.1f} at the end)", ""]
    old = OUT.read_text().split("\n", 2)[2] if OUT.exists() else ""
    OUT.write_text("# Blueprint replicas on zmq workers against threads, 3-player Leduc\n\n" + "\n".join(lines)
                   + "\n" + old)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
