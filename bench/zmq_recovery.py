"""Seconds from kill -9 of a zmq worker to the trunk noticing and to the run going on, with the
default heartbeat (1 s) and timeout (10 s): a spawned worker (restarted by the trunk), and one
started by hand (a spare started at the kill replaces it). Leduc, 2 workers, a checkpoint every
5 iterations, the kill after iteration 20's metrics row (tests/test_zmq_faults.py checks that the
outputs equal an uninterrupted run's). Writes bench/results/zmq_recovery.json.

    python bench/zmq_recovery.py
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from solverkit.core.config import load_config
from solverkit.core.solver import run_solve

GAME = {"name": "leduc", "split_round": 1, "chunks": 2}


def _config(transport=None):
    return {"preset": "cfr_plus", "game": GAME, "solver": {"iterations": 40, "eval_every": 1},
            **({"transport": transport} if transport else {})}


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _worker(endpoint):
    return subprocess.Popen([sys.executable, "-m", "solverkit", "worker", "--connect", endpoint, "--threads", "1"],
                            stderr=subprocess.DEVNULL)


def measure(kind: str, root: Path) -> dict:
    """{detected, resumed, first_row}: seconds after the kill."""
    endpoint = f"tcp://127.0.0.1:{_port()}"
    transport = {"name": "zmq", "workers": 2, "spawn": 2 if kind == "spawned" else 1, "threads": 1, "bind": endpoint}
    hand = [] if kind == "spawned" else [_worker(endpoint)]
    asm = load_config(_config(transport))
    marks = {}

    def on_metrics(row):
        if row["iteration"] == 20 and "kill" not in marks:
            w = next(w for w in asm.transport._workers.values() if (w.proc is not None) == (kind == "spawned"))
            marks["kill"] = time.monotonic()
            os.kill(w.pid, signal.SIGKILL)
            if kind == "hand":
                hand.append(_worker(endpoint))
        elif "resumed" in marks and "first_row" not in marks:
            marks["first_row"] = time.monotonic()

    def notice(line):
        if line.startswith("lost a worker"):
            marks["detected"] = time.monotonic()
        if line.startswith("resuming"):
            marks["resumed"] = time.monotonic()

    try:
        run_solve(asm, out=root / kind, checkpoint_every="5", on_metrics=on_metrics, notice=notice)
    finally:
        for p in hand:
            p.kill()
            p.wait()
    return {m: round(marks[m] - marks["kill"], 3) for m in ("detected", "resumed", "first_row")}


def main():
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        results = {kind: measure(kind, root) for kind in ("spawned", "hand")}
    out = Path(__file__).parent / "results" / "zmq_recovery.json"
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
