"""Review of blueprint replicas on zmq workers (solverkit.blueprint.distributed): a piece of a
round longer than CHUNK iterations goes to the workers as several passes (the first opens the
round, the last closes it, the middle ones only carry the iterations); with CHUNK cut down to a
few iterations (the trunk's: the workers only check a job's length against their own, larger
one) the run is still the threads run bit for bit, with and without kept averages."""

from __future__ import annotations

import numpy as np
import pytest

from solverkit.core.config import load_config
from solverkit.core.solver import run_solve

pytest.importorskip("zmq")


def _config(transport, averaging):
    return {"game": {"name": "blueprint", "gamedef": "kuhn.limit.3p", "replicas": 3, "sync_every": 40,
                     "sync_ramp": 2},
            "rule": {"name": "lcfr", "until": 500}, "averaging": averaging,
            "sampler": {"name": "external", "prune_threshold": -1.0, "prune_start": 200},
            "solver": {"seed": 2, "eval_every": 10**6}, "transport": transport}


@pytest.mark.parametrize("averaging", [{"name": "linear", "until": 500}, {"name": "current"}],
                         ids=["averages", "current"])
def test_pieces_cut_into_chunks_are_the_threads_run(monkeypatch, averaging):
    from solverkit.blueprint import distributed

    threads = run_solve(load_config(_config({"name": "local", "threads": 2}, averaging)), iterations=700)
    monkeypatch.setattr(distributed, "CHUNK", 5)
    zmq = {"name": "zmq", "workers": 2, "spawn": 2, "threads": 1, "heartbeat": 0.1, "timeout": 4.0,
           "connect_timeout": 60.0}
    chunked = run_solve(load_config(_config(zmq, averaging)), iterations=700)
    assert all(np.array_equal(a, b) for a, b in zip(threads.strategy, chunked.strategy))
    assert threads.metrics[-1]["nodes_touched"] == chunked.metrics[-1]["nodes_touched"]
