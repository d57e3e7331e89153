"""Full heads-up limit hold'em on a cluster, projected from parts measured on this machine.

An iteration of the distributed solver is: two trunk passes (one per player; the trunk walks
the preflop and the flop), the 110,565 subgames' updates on the workers, the reach vectors
down and the values up through the trunk's network card, and now and then an exploitability
evaluation (two best-response passes, priced as an iteration) and a checkpoint (every worker
writes its part at once). Each part comes from a measurement:

- trunk pass: ``bench/results/hulhe_trunk.json`` (CPU seconds of a full-game trunk pass);
- subgame update: ``bench/results/hulhe_subgame_converged.json`` (ns per stored value and
  update, both passes, on real full-deck subgames) times the subgames' values, counted;
- transfer: the bytes per iteration from hulhe_trunk.json at the rate zmq moves 64 MB frames
  over TCP on this machine (measured here: the software stack's ceiling), and at a 10 Gb/s
  trunk link (a line rate, named as such: not measured);
- checkpoint: the stored bytes per node (the subgames' values at a measured compression
  ratio) at the rate this machine writes, checksums and fsyncs a part file (measured here);
- the end-to-end check: the mid-scale proof (``bench/results/hulhe_2round_proof.json``) when
  it exists.

    python bench/hulhe_projection.py [--nodes 200] [--cores-per-node 24] [--eval-every 10]

Results: bench/results/hulhe_projection.json and .md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import threading
import time
import zlib
from pathlib import Path

import numpy as np

from common import write_results

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
#: Cepheus (Bowling et al. 2015; ../shared/REFERENCE.md): iterations, minutes per iteration on
#: 200 nodes x 24 cores, compressed regrets' ratio
CEPHEUS = {"iterations": 1579, "minutes_per_iteration": 61.0, "nodes": 200, "cores_per_node": 24, "regret_ratio": 13.0}
LINE_RATE = 10e9 / 8  # bytes/s of a 10 Gb/s link (a line rate, not a measurement)


def zmq_rate(total_mb: int = 2048, frame_mb: int = 64) -> float:
    """Bytes per second that zmq moves as `frame_mb` MB frames over TCP loopback (one sender
    thread, one receiver, zero-copy sends as the transport does)."""
    import zmq

    ctx = zmq.Context()
    pull = ctx.socket(zmq.PULL)
    port = pull.bind_to_random_port("tcp://127.0.0.1")
    push = ctx.socket(zmq.PUSH)
    push.connect(f"tcp://127.0.0.1:{port}")
    frame = np.random.default_rng(0).random(frame_mb * 2 ** 20 // 8)
    n = total_mb // frame_mb
    push.send(frame[:1].tobytes())
    pull.recv()  # connected
    got = []

    def receive():
        for _ in range(n):
            got.append(len(pull.recv(copy=False)))

    t = threading.Thread(target=receive)
    t0 = time.perf_counter()
    t.start()
    for _ in range(n):
        push.send(frame, copy=False)
    t.join()
    seconds = time.perf_counter() - t0
    push.close(0)
    pull.close(0)
    ctx.term()
    return sum(got) / seconds


def disk_rate(total_mb: int = 1024, where: str | None = None) -> float:
    """Bytes per second this machine writes a part file: crc32 of each block, write, fsync (as a
    distributed checkpoint's part)."""
    block = np.random.default_rng(1).integers(0, 255, 16 * 2 ** 20, dtype=np.uint8).tobytes()
    with tempfile.TemporaryDirectory(dir=where) as d:
        path = Path(d) / "part"
        t0 = time.perf_counter()
        crc = 0
        with open(path, "wb") as fh:
            for _ in range(total_mb // 16):
                crc = zlib.crc32(block, crc)
                fh.write(block)
            fh.flush()
            os.fsync(fh.fileno())
        seconds = time.perf_counter() - t0
    return total_mb * 2 ** 20 / seconds


def load(name: str) -> dict | None:
    path = RESULTS / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else None


def total_parts(parts: dict, subgame_factor: float = 1.0) -> float:
    """Seconds of one iteration: the trunk's passes, the subgame updates (times `subgame_factor`)
    and the slower of the two transfer rates, one after another."""
    return (parts["trunk_s"] + subgame_factor * parts["subgames_s"]
            + max(parts["transfer_s_measured_rate"], parts["transfer_s_10gbit"]))


def project(args) -> dict:
    trunk = load("hulhe_trunk")
    sub = load(args.subgame_result)
    if trunk is None or sub is None:
        raise SystemExit(f"needs bench/results/hulhe_trunk.json and {args.subgame_result}.json: run "
                         "bench/hulhe_trunk.py and bench/hulhe_subgame.py first (see bench/README.md)")
    proof = load("hulhe_2round_proof")
    cores = args.nodes * args.cores_per_node
    # the first pass writes a fresh segment: the steady passes are the later ones
    steady = [p["cpu_seconds"] for p in trunk["passes"][1:]] or [p["cpu_seconds"] for p in trunk["passes"]]
    trunk_pass = float(np.median(steady))
    values = int(trunk["subgame_values"])
    ns = float(sub["ns_per_value_update"])
    subgame_core_s = values * ns * 1e-9
    per_iter_bytes = int(trunk["bytes_per_iteration"])
    zrate = zmq_rate()
    drate = disk_rate(where=args.disk)
    ratios = {"subgame bench (reach fixed, full deck)": float(sub["rows"][0]["ratio_all"]) if sub.get("rows") and
              "ratio_all" in sub["rows"][0] else None}
    if proof is not None:
        ratios["mid-scale proof, end of run"] = float(proof["compression_ratio"])
    ratios = {k: v for k, v in ratios.items() if v}
    parts = {
        "trunk_s": 2 * trunk_pass,
        "subgames_s": subgame_core_s / cores,
        "transfer_s_measured_rate": per_iter_bytes / zrate,
        "transfer_s_10gbit": per_iter_bytes / LINE_RATE,
    }
    # the trunk walks down, waits for every subgame, walks up: the parts add up
    iteration_s = total_parts(parts)
    eval_s = iteration_s / args.eval_every  # two best-response passes cost about what two CFR passes do
    checkpoints = {}
    for label, ratio in ratios.items():
        stored = 4.0 * values / ratio
        per_node = stored / args.nodes
        checkpoints[label] = {"ratio": ratio, "stored_bytes": stored, "bytes_per_node": per_node,
                              "seconds": per_node / drate}
    check = None
    if proof is not None and len(proof.get("curve", [])) >= 2:
        # the same price per value applied to the proof's own game, against its measured pace
        # (solve seconds per iteration between its last two evaluations; stored values counted
        # from the stored bytes and the ratio)
        a, b = proof["curve"][-2], proof["curve"][-1]
        measured = (b["seconds"] - a["seconds"]) / (b["iteration"] - a["iteration"])
        proof_values = b["stored_bytes"] * (b["ratio"] or 0.0) / 4.0
        workers = max(1, len(proof.get("workers", [])))
        predicted = proof_values * ns * 1e-9 / workers
        check = {"values": proof_values, "workers": workers, "predicted_s": predicted, "measured_s": measured,
                 "measured_over_predicted": measured / predicted if predicted else None}
        # the subgame updates priced at the pace the whole machinery kept at mid scale
        factor = check["measured_over_predicted"] or 1.0
        calibrated = total_parts(parts, factor)
        check.update(calibrated_iteration_s=calibrated,
                     calibrated_days=calibrated * CEPHEUS["iterations"] / 86400)
    worst_ckpt = max((c["seconds"] for c in checkpoints.values()), default=0.0)
    ckpt_per_iter = worst_ckpt / args.checkpoint_every
    total_s = iteration_s + eval_s + ckpt_per_iter
    return {
        "command": "python bench/hulhe_projection.py " + " ".join(args.argv),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "date": time.strftime("%Y-%m-%d"),
        "nodes": args.nodes, "cores_per_node": args.cores_per_node, "cores": cores,
        "eval_every": args.eval_every, "checkpoint_every": args.checkpoint_every,
        "subgames": trunk["subgames"], "subgame_values": values,
        "trunk_pass_cpu_s": trunk_pass, "trunk_peak_rss_gb": trunk["peak_rss_gb"],
        "ns_per_value_update": ns, "subgame_core_seconds_per_iteration": subgame_core_s,
        "bytes_per_iteration": per_iter_bytes, "zmq_bytes_per_s": zrate, "line_rate_bytes_per_s": LINE_RATE,
        "disk_bytes_per_s": drate,
        "parts_s": parts, "checkpoints": checkpoints,
        "iteration_s": iteration_s, "evaluation_s_per_iteration": eval_s,
        "checkpoint_s_per_iteration": ckpt_per_iter, "total_s_per_iteration": total_s,
        "days_for_cepheus_iterations": total_s * CEPHEUS["iterations"] / 86400,
        "cepheus": CEPHEUS,
        "proof": proof,
        "model_check": check,
        "sources": {"trunk": "bench/results/hulhe_trunk.json", "subgame": f"bench/results/{args.subgame_result}.json",
                    "proof": "bench/results/hulhe_2round_proof.json" if proof else None},
    }


def markdown(r: dict) -> str:
    p = r["parts_s"]
    c = r["cepheus"]
    gb = 1e9
    lines = [
        "# Full heads-up limit hold'em, projected from measured parts",
        "",
        f"`{r['command']}` on {r['machine']}, {r['date']}. Cluster: {r['nodes']} nodes x {r['cores_per_node']} "
        f"cores = {r['cores']:,} cores (Cepheus's), one trunk; an evaluation every {r['eval_every']} iterations, "
        f"a checkpoint every {r['checkpoint_every']}.",
        "",
        "| part of an iteration | measured | source | seconds per iteration |",
        "|---|---|---|---|",
        f"| trunk: 2 passes (preflop + flop, compressed store) | {r['trunk_pass_cpu_s']:.1f} CPU-s a pass, peak "
        f"{r['trunk_peak_rss_gb']:.2f} GB | {r['sources']['trunk']} | {p['trunk_s']:.1f} |",
        f"| subgames: {r['subgames']:,} updates, {r['subgame_values']:.3g} values | {r['ns_per_value_update']:.2f} ns "
        f"per value and update (both passes) = {r['subgame_core_seconds_per_iteration']:,.0f} core-s | "
        f"{r['sources']['subgame']} | {p['subgames_s']:.1f} |",
        f"| transfer: {r['bytes_per_iteration'] / gb:.2f} GB through the trunk | zmq over TCP here: "
        f"{r['zmq_bytes_per_s'] / gb:.2f} GB/s | measured by this script | {p['transfer_s_measured_rate']:.1f} |",
        f"| (the same at a 10 Gb/s trunk link) | {r['line_rate_bytes_per_s'] / gb:.2f} GB/s | a line rate, not "
        f"measured | {p['transfer_s_10gbit']:.1f} |",
        f"| exploitability evaluation (2 passes), every {r['eval_every']} | priced as an iteration | - | "
        f"{r['evaluation_s_per_iteration']:.1f} |",
        f"| checkpoint, every {r['checkpoint_every']} (worst ratio below) | part files written here at "
        f"{r['disk_bytes_per_s'] / gb:.2f} GB/s | measured by this script | {r['checkpoint_s_per_iteration']:.1f} |",
        f"| **total** (slower transfer of the two) | | | **{r['total_s_per_iteration']:.1f}** "
        f"({r['total_s_per_iteration'] / 60:.1f} min) |",
        "",
        f"Cepheus: {c['minutes_per_iteration']:g} minutes per iteration on the same {c['nodes']} x "
        f"{c['cores_per_node']} cores, {c['iterations']:,} iterations. Projected here: "
        f"{r['total_s_per_iteration'] / 60:.1f} minutes per iteration ("
        f"{60 * c['minutes_per_iteration'] / r['total_s_per_iteration']:.1f}x faster), "
        f"**{r['days_for_cepheus_iterations']:.1f} days** for {c['iterations']:,} iterations.",
        "",
        "Stored values and checkpoints (the subgames' values as 4-byte floats over the measured ratio):",
        "",
        "| compression ratio from | ratio | stored (TB) | per node (GB) | checkpoint write (s) |",
        "|---|---|---|---|---|",
    ]
    for label, ck in r["checkpoints"].items():
        lines.append(f"| {label} | {ck['ratio']:.1f}:1 | {ck['stored_bytes'] / 1e12:.2f} | "
                     f"{ck['bytes_per_node'] / gb:.2f} | {ck['seconds']:.1f} |")
    lines += [
        "",
        f"Cepheus kept about 11 TB at {c['regret_ratio']:g}:1 on regrets. The subgame bench's ratio is an upper bound "
        "(its reach is fixed, so regrets settle); the mid-scale proof's is a whole run's, but of a game whose "
        "subgames are one round deep.",
    ]
    proof = r.get("proof")
    if proof:
        lines += [
            "",
            "End to end at mid scale (`bench/results/hulhe_2round_proof.md`): full-deck two-round hold'em, "
            f"{proof['iterations']} iterations to {proof['exploitability_mbb']:.3f} mbb/g through zmq with "
            f"{len(proof['workers'])} workers, {proof['seconds'] / proof['iterations']:.1f} s of solve time per iteration.",
        ]
    check = r.get("model_check")
    if check:
        lines += [
            "",
            f"**The model against that run**: the same {r['ns_per_value_update']:.2f} ns per value and update, applied to "
            f"its {check['values']:.3g} stored values on {check['workers']} workers, predicts "
            f"{check['predicted_s']:.1f} s per iteration; it ran at {check['measured_s']:.1f} s (x"
            f"{check['measured_over_predicted']:.2f}; same machine, loaded by other work at times). Where the two "
            "differ, the projection above is off by about that factor too: with the subgame updates at the pace "
            f"measured there, an iteration of full hold'em takes {check['calibrated_iteration_s'] / 60:.1f} minutes "
            f"and {r['cepheus']['iterations']:,} iterations **{check['calibrated_days']:.1f} days** (without "
            "evaluations and checkpoints). Not separated here: the subgame bench's values compress about 245:1 (reach "
            "fixed, 0.5 per chip after the turn) where this run's compress 7-10:1 (16 per chip), and the codec's "
            "time grows with what it has to keep; the two games' subgames also differ in depth.",
        ]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=CEPHEUS["nodes"])
    ap.add_argument("--cores-per-node", type=int, default=CEPHEUS["cores_per_node"])
    ap.add_argument("--eval-every", type=int, default=10, help="iterations between exploitability evaluations")
    ap.add_argument("--checkpoint-every", type=int, default=10, help="iterations between checkpoints")
    ap.add_argument("--subgame-result", default="hulhe_subgame_converged",
                    help="bench/results/<name>.json of bench/hulhe_subgame.py to price subgame updates")
    ap.add_argument("--disk", help="directory to time part-file writes in (default: the temp directory)")
    args = ap.parse_args()
    args.argv = sys.argv[1:]
    r = project(args)
    text = markdown(r)
    write_results("hulhe_projection", r, text)
    print(text)


if __name__ == "__main__":
    main()
