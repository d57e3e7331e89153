"""Checkpoint save and restore, the trunk's checkpoint size and one information set's query
with ``[transport] checkpoint = "file"`` (the trunk fetches every worker segment) against
``"distributed"`` (every worker writes and restores its own part), on a small hulhe member
(2,850 subgames) with two spawned workers of one thread, the same run for both. The figures
are the ratios file / distributed; both runs' outputs are identical.

    python bench/distributed_checkpoint.py [--out DIR]

Writes bench/results/distributed_checkpoint.json.
"""

from __future__ import annotations

import argparse
import json
import platform
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
HULHE = {"name": "hulhe", "ranks": 5, "rounds": 3, "max_raises": [1, 2, 1], "split_round": 2, "chunks": 2}


def run(mode: str, out: Path) -> dict:
    """Four iterations with checkpoints at 2 and 4, then --resume to 5: seconds of each save and load."""
    from solverkit.core import solver as sm
    from solverkit.core.config import load_config
    from solverkit.core.solver import run_solve

    times = {"save_s": [], "load_s": []}
    orig_save, orig_load = sm.Solver.save_checkpoint, sm.Solver.load_checkpoint

    def save(self, path, metrics):
        t = time.perf_counter()
        size = orig_save(self, path, metrics)
        times["save_s"].append(time.perf_counter() - t)
        return size

    def load(self, path):
        t = time.perf_counter()
        rows = orig_load(self, path)
        times["load_s"].append(time.perf_counter() - t)
        return rows

    cfg = {"preset": "cfr_plus", "game": HULHE, "solver": {"iterations": 4, "eval_every": 4},
           "transport": {"name": "zmq", "workers": 2, "spawn": 2, "threads": 1, "checkpoint": mode,
                         "connect_timeout": 120}}
    sm.Solver.save_checkpoint, sm.Solver.load_checkpoint = save, load
    try:
        run_solve(load_config(cfg), out=out, checkpoint_every="2")
        run_solve(load_config(cfg), out=out, resume=True, iterations=5)
    finally:
        sm.Solver.save_checkpoint, sm.Solver.load_checkpoint = orig_save, orig_load
    return {**times, "trunk_checkpoint_bytes": (out / "checkpoint.skc").stat().st_size}


def main():
    from solverkit.core.config import load_config
    from solverkit.core.strategy_query import read_infoset

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=None, help="Directory for the two runs (default: a temporary one).")
    args = ap.parse_args()
    root = args.out or Path(tempfile.mkdtemp(prefix="solverkit-bench-"))
    res = {mode: run(mode, root / mode) for mode in ("file", "distributed")}
    game = load_config(root / "file" / "config.toml").game
    key = game.infoset_keys(1)[-1]  # a river information set: in a worker's part
    for mode in res:
        t = time.perf_counter()
        found = read_infoset(root / mode, key, game=game)
        res[mode]["query_s"] = time.perf_counter() - t
        res[mode]["query_source"] = found.source.name
    assert read_infoset(root / "file", key, game=game).probabilities == found.probabilities
    res["ratio_save"] = sum(res["file"]["save_s"]) / sum(res["distributed"]["save_s"])
    res["ratio_load"] = sum(res["file"]["load_s"]) / sum(res["distributed"]["load_s"])
    res["game"] = HULHE
    res["policy_values"] = int(sum(game.layout(p).size for p in (0, 1)))
    res["machine"] = platform.platform()
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "distributed_checkpoint.json").write_text(json.dumps(res, indent=1) + "\n")
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
