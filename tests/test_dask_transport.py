"""The dask transport: zmq workers placed as Dask tasks. The same equality and failure checks as
zmq: a run equals the local one bit for bit, and a worker killed (kill -9 of its Dask worker
process) is replaced by a new task, the run rolls back to its last checkpoint and ends as an
uninterrupted local run ends."""

from __future__ import annotations

import json
import os
import signal

import pytest

from solverkit.core.config import load_config
from solverkit.core.solver import run_solve
from solverkit.errors import ConfigError

from .test_zmq_faults import assert_same_outputs
from .test_zmq_transport import COMPRESSED, FAST, config

pytest.importorskip("distributed")

DASK2 = {"name": "dask", "workers": 2, "threads": 1, **FAST}
ITERATIONS = 12


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    root = tmp_path_factory.mktemp("reference")
    run_solve(load_config(config(iterations=ITERATIONS, **COMPRESSED)), out=root / "local")
    return root / "local"


@pytest.mark.slow
def test_a_dask_run_equals_the_local_run_and_a_killed_worker_is_replaced(tmp_path, reference):
    """One run, two checks (a local Dask cluster costs seconds to start): the worker process of
    one task is killed after iteration 5 (checkpoints every 3), a new task replaces it, and the
    metrics and strategy end as the local run's, bit for bit."""
    asm = load_config(config(DASK2, iterations=ITERATIONS, **COMPRESSED))
    killed = []

    def on_metrics(row):
        if row["iteration"] == 5 and not killed:
            w = next(iter(asm.transport._workers.values()))
            os.kill(w.pid, signal.SIGKILL)  # the Dask worker process running this task
            killed.append(w.pid)

    out = tmp_path / "dask"
    result = run_solve(asm, out=out, checkpoint_every="3", on_metrics=on_metrics)
    assert killed and result.iterations == ITERATIONS and not result.interrupted
    assert_same_outputs(out, reference)
    summary = json.loads((out / "result.json").read_text())
    assert len(summary["recoveries"]) == 1 and summary["recoveries"][0]["resumed_from"] == 3
    assert len(summary["workers"]) == 2
    assert str(killed[0]) not in {w["worker"].split(":")[1] for w in summary["workers"]}


def test_dask_settings_are_checked(tmp_path):
    with pytest.raises(ConfigError, match=r"unknown .*spawn|spawn.*(unknown|invalid)"):
        load_config(config({**DASK2, "spawn": 2}))
    with pytest.raises(Exception, match=r"scheduler = 'tcp://127\.0\.0\.1:9' cannot be reached"):
        run_solve(load_config(config({**DASK2, "scheduler": "tcp://127.0.0.1:9", "connect_timeout": 2.0},
                                     iterations=1)))
