"""Blueprint replicas on zmq workers (solverkit.blueprint.distributed): spawned worker processes give
the numbers of the in-process threads run bit for bit (strategy, nodes touched), across a
checkpoint in mid-round and --resume, with a worker holding two replicas; bad settings are
refused in one line; the pass job's wire form is checked field by field."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from solverkit.blueprint.distributed import CHUNK, ReplicaJob
from solverkit.core.config import load_config
from solverkit.core.solver import Solver
from solverkit.errors import ConfigError, ProtocolError

pytest.importorskip("zmq")

FAST = 'heartbeat = 0.1\ntimeout = 4.0\nconnect_timeout = 60.0\n'


def _cfg(tmp_path, replicas, transport, name, averaging='name = "linear"\nuntil = 500'):
    cfg = tmp_path / f"{name}.toml"
    cfg.write_text('[game]\nname = "blueprint"\ngamedef = "kuhn.limit.3p"\n'
                   f'replicas = {replicas}\nsync_every = 40\nsync_ramp = 3\n'
                   f'[rule]\nname = "lcfr"\nuntil = 500\n[averaging]\n{averaging}\n'
                   '[sampler]\nname = "external"\nprune_threshold = -1.0\nprune_start = 200\n'
                   '[solver]\nseed = 1\neval_every = 700\n'
                   f'[transport]\n{transport}')
    return cfg


def _threads(tmp_path, W):
    return _cfg(tmp_path, W, 'name = "local"\nthreads = 2\n', f"threads{W}")


def _zmq(tmp_path, W, workers):
    return _cfg(tmp_path, W, f'name = "zmq"\nworkers = {workers}\nspawn = {workers}\nthreads = 2\n{FAST}',
                f"zmq{W}-{workers}")


def _solve(*args):
    from click.testing import CliRunner

    from solverkit.cli import cli

    res = CliRunner().invoke(cli, ["solve", *map(str, args), "--quiet"])
    assert res.exit_code == 0, res.output


def _policy(out):
    with np.load(out / "strategy.npz") as z:
        return [z[f"policy{p}"] for p in range(3)]


def _nodes(out):
    with open(out / "metrics.csv") as fh:
        return [(r["iteration"], r["nodes_touched"], r["exploitability"]) for r in csv.DictReader(fh)]


def _same(a, b):
    pa, pb = _policy(a), _policy(b)
    assert all(np.array_equal(x, y) for x, y in zip(pa, pb))
    assert _nodes(a) == _nodes(b)


def test_workers_are_the_threads_run_bit_for_bit_and_resume_in_mid_round(tmp_path):
    """replicas = 2 over one spawned worker: the threads run's strategy and metrics (nodes
    touched, NashConv) bit for bit; stopped at a checkpoint in mid-round (1,000) and resumed to
    3,000 over workers again: the same."""
    _solve(_threads(tmp_path, 2), "--out", tmp_path / "t", "--iterations", 3000)
    _solve(_zmq(tmp_path, 2, 1), "--out", tmp_path / "z", "--iterations", 3000)
    _same(tmp_path / "t", tmp_path / "z")
    game = load_config(str(_threads(tmp_path, 2))).game
    lo, hi = game.plan.round_of(1000)
    assert lo < 1000 < hi  # the checkpoint is in mid-round: the worker's copy is in it
    _solve(_zmq(tmp_path, 2, 1), "--out", tmp_path / "r", "--iterations", 1000, "--checkpoint-every", 1000)
    _solve("--resume", tmp_path / "r", "--iterations", 3000)
    _same(tmp_path / "t", tmp_path / "r")
    one = tmp_path / "one"
    _solve(_cfg(tmp_path, 1, 'name = "local"\n', "one"), "--out", one, "--iterations", 3000)
    assert not all(np.array_equal(x, y) for x, y in zip(_policy(one), _policy(tmp_path / "z")))


def test_a_worker_may_hold_several_replicas(tmp_path):
    """replicas = 3 over one worker (replicas 1 and 2 on its two threads): the threads run's numbers."""
    _solve(_threads(tmp_path, 3), "--out", tmp_path / "t", "--iterations", 1500)
    _solve(_zmq(tmp_path, 3, 1), "--out", tmp_path / "z", "--iterations", 1500)
    _same(tmp_path / "t", tmp_path / "z")


def test_without_averages_the_copies_are_the_regrets_alone(tmp_path):
    """averaging "current" keeps no average: a worker's copy and frames hold the regrets only."""
    cur = 'name = "current"'
    _solve(_cfg(tmp_path, 2, 'name = "local"\nthreads = 2\n', "t", cur), "--out", tmp_path / "t", "--iterations", 1500)
    zmq = _cfg(tmp_path, 2, f'name = "zmq"\nworkers = 1\nspawn = 1\nthreads = 1\n{FAST}', "z", cur)
    _solve(zmq, "--out", tmp_path / "z", "--iterations", 1500)
    _same(tmp_path / "t", tmp_path / "z")
    game = load_config(str(zmq)).game
    assert [s.arrays for s in game.segments(False)[2:]] == [{"rcopy": game.plan.size}]


@pytest.mark.parametrize("W, workers, match", [
    (1, 1, r"^\[transport\] \(zmq\) game 'blueprint' runs on workers as data-parallel replicas, and \[game\] "
           r"replicas = 1 gives them none: set \[game\] replicas = W >= 2"),
    (2, 2, r"^\[transport\] \(zmq\) workers = 2 does not fit \[game\] replicas = 2: .* \(expected workers <= 1; "),
])
def test_settings_that_do_not_fit_are_refused_in_one_line(tmp_path, W, workers, match):
    cfg = _cfg(tmp_path, W, f'name = "zmq"\nworkers = {workers}\nspawn = {workers}\n{FAST}', "bad")
    with pytest.raises(ConfigError, match=match) as err:
        Solver(load_config(str(cfg)))
    assert "\n" not in str(err.value)


def test_distributed_checkpoints_are_refused(tmp_path):
    """Parts hold policies of subgames; a replica's copy is none (a two-player game, so that the
    players' check passes first)."""
    cfg = tmp_path / "d.toml"
    cfg.write_text('[game]\nname = "blueprint"\ngamedef = "kuhn"\nreplicas = 2\n'
                   f'[rule]\nname = "rm"\n[averaging]\nname = "uniform"\n[sampler]\nname = "external"\n[transport]\nname = "zmq"\ncheckpoint = "distributed"\n{FAST}')
    with pytest.raises(ConfigError, match=r"checkpoint = \"distributed\" is invalid for game 'blueprint': its workers "
                                          r"hold copies of the regrets"):
        Solver(load_config(str(cfg)), parts_dir=tmp_path / "parts")


def test_job_wire_round_trip_and_bad_fields():
    job = ReplicaJob(41, 80, 2, 7, 0, 0.95, 1, True, False, True)
    assert ReplicaJob.from_wire(job.to_wire(), 2, 3) == job
    bad = [({"replicas": 3}, r"field 'replicas' = 3 is invalid: expected 2 \(this worker's \[game\] replicas"),
           ({"round": [5, 4]}, r"field 'round' = \[5, 4\] is invalid"),
           ({"round": [1, CHUNK + 1]}, r"at most 131072 iterations"),
           ({"players": 8}, r"field 'players' = 8 is invalid: expected an integer >= 1 and <= 7"),
           ({"lead": 3}, r"field 'lead' = 3 is invalid"),
           ({"open": 1}, r"field 'open' = 1 is invalid: expected true or false"),
           ({"extra": 1}, r"unknown field\(s\)")]
    for change, match in bad:
        with pytest.raises(ProtocolError, match=match):
            ReplicaJob.from_wire({**job.to_wire(), **change}, 2, 3)


@pytest.mark.slow
def test_dask_workers_are_the_threads_run(tmp_path):
    """The dask transport (zmq workers placed as tasks of a local Dask cluster) runs the same replicas."""
    pytest.importorskip("distributed")
    _solve(_threads(tmp_path, 2), "--out", tmp_path / "t", "--iterations", 1500)
    _solve(_cfg(tmp_path, 2, f'name = "dask"\nworkers = 1\nthreads = 1\n{FAST}', "dask"), "--out", tmp_path / "d",
           "--iterations", 1500)
    _same(tmp_path / "t", tmp_path / "d")


def test_a_killed_worker_is_replaced_and_the_run_ends_as_the_threads_run(tmp_path):
    """The worker is killed after the checkpoint at 1,000 (in mid-round, its copy in the checkpoint):
    a restarted worker gets the copy back, the run rolls back to 1,000 and ends as the threads run."""
    import json
    import os
    import signal

    from solverkit.core.solver import run_solve

    _solve(_threads(tmp_path, 2), "--out", tmp_path / "t", "--iterations", 3000)
    asm = load_config(str(_zmq(tmp_path, 2, 1)))
    killed = []

    def on_metrics(row):
        if row["iteration"] == 1400 and not killed:
            w = next(iter(asm.transport._workers.values()))
            os.kill(w.pid, signal.SIGKILL)
            killed.append(w.pid)

    out = tmp_path / "z"
    result = run_solve(asm, iterations=3000, out=out, checkpoint_every="1000", on_metrics=on_metrics)
    assert killed and result.iterations == 3000 and not result.interrupted
    summary = json.loads((out / "result.json").read_text())
    assert [r["resumed_from"] for r in summary["recoveries"]] == [1000]
    assert all(np.array_equal(x, y) for x, y in zip(_policy(out), _policy(tmp_path / "t")))
