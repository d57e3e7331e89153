"""Workers that can fail: a zmq worker killed (kill -9) at any moment of a run is replaced, the
run goes back to its last checkpoint and ends with the metrics and strategy of an uninterrupted
local run, bit for bit; a killed trunk resumed with --resume takes back the workers that wait for
it; a worker that keeps dying, or is not replaced in time, stops the run with a clear error."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time

import numpy as np
import pytest
import tomli_w
from click.testing import CliRunner

from solverkit.cli import cli
from solverkit.core import solver as solver_module
from solverkit.core.config import load_config
from solverkit.core.solver import run_solve
from solverkit.core.wire import pack_header, unpack_header
from solverkit.core.store import new_run_id
from solverkit.errors import TransportError
from solverkit_transports.protocol import PROTOCOL

from .test_zmq_transport import COMPRESSED, ZMQ2, _worker_of_fake_trunk, config, curve, pids_gone

ITERATIONS = 12


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The uninterrupted local runs: {store kind: output directory}."""
    root = tmp_path_factory.mktemp("reference")
    for name, store in (("float64", {}), ("compressed", COMPRESSED)):
        run_solve(load_config(config(iterations=ITERATIONS, **store)), out=root / name)
    return root


def assert_same_outputs(out, ref):
    assert curve(out / "metrics.csv") == curve(ref / "metrics.csv")
    a, b = np.load(ref / "strategy.npz"), np.load(out / "strategy.npz")
    assert sorted(a.files) == sorted(b.files)
    for name in a.files:
        np.testing.assert_array_equal(a[name], b[name])


def _kill(w):
    os.kill(w.pid, signal.SIGKILL)
    return w.pid


# --- spawned workers killed at chosen moments ----------------------------------------------------


def _hooks(monkeypatch, asm, moment, killed):
    """Kill a worker at `moment` (once, or for "recovery" also its replacement while the run is
    being put back); returns the on_metrics callback."""
    t = asm.transport
    victim = lambda: next(iter(t._workers.values()))  # noqa: E731
    passes = {"n": 0, "armed": False}
    if moment == "pass":  # while the workers compute the first pass of iteration 5
        orig_map, orig_await = t.map_subgames, t._await

        def map_subgames(job, inputs):
            passes["n"] += 1
            passes["armed"] = passes["n"] == 17  # 4 passes an iteration: 2 updates, 2 best responses
            return orig_map(job, inputs)

        def await_(pending):
            if passes["armed"] and not killed:
                passes["armed"] = False
                killed.append(_kill(victim()))
            return orig_await(pending)

        monkeypatch.setattr(t, "map_subgames", map_subgames)
        monkeypatch.setattr(t, "_await", await_)
    if moment == "checkpoint":  # half-way through the second checkpoint (iteration 6)
        orig_save, orig_fetch = solver_module.Solver.save_checkpoint, t.fetch
        phase = {"ckpt": 0, "fetches": 0}

        def save_checkpoint(self, path, metrics):
            phase["ckpt"] += 1
            phase["fetches"] = 0
            return orig_save(self, path, metrics)

        def fetch(segment, names=None):
            phase["fetches"] += 1
            if phase["ckpt"] == 2 and phase["fetches"] == 4 and not killed:
                killed.append(_kill(t._segment_owner[segment]))
            return orig_fetch(segment, names)

        monkeypatch.setattr(solver_module.Solver, "save_checkpoint", save_checkpoint)
        monkeypatch.setattr(t, "fetch", fetch)
    if moment == "recovery":  # then the replacement, while the checkpoint is put back
        orig_put = t.put
        puts = {"n": 0}

        def put(segment, blobs):
            puts["n"] += 1
            if puts["n"] == 3 and len(killed) == 1:
                killed.append(_kill(t._segment_owner[segment]))
            return orig_put(segment, blobs)

        monkeypatch.setattr(t, "put", put)

    def on_metrics(row):
        at = {"between": 7, "recovery": 7, "start": 2}.get(moment)
        if row["iteration"] == at and not killed:
            killed.append(_kill(victim()))

    return on_metrics


@pytest.mark.parametrize("moment, store, every, losses", [
    ("pass", "float64", "3", 1),
    pytest.param("between", "compressed", "3", 1, marks=pytest.mark.slow),  # (CI time: -m slow runs them)
    pytest.param("checkpoint", "compressed", "3", 1, marks=pytest.mark.slow),
    pytest.param("recovery", "float64", "3", 2, marks=pytest.mark.slow),
    pytest.param("start", "float64", None, 1, marks=pytest.mark.slow),  # no checkpoint: back to iteration 0
    pytest.param("start", "compressed", None, 1, marks=pytest.mark.slow),
])
def test_a_killed_worker_is_replaced_and_the_run_ends_as_an_uninterrupted_one(
        tmp_path, reference, monkeypatch, moment, store, every, losses):
    asm = load_config(config(ZMQ2, iterations=ITERATIONS, **({} if store == "float64" else COMPRESSED)))
    killed = []
    on_metrics = _hooks(monkeypatch, asm, moment, killed)
    out = tmp_path / "out"
    t0 = time.monotonic()
    result = run_solve(asm, out=out, checkpoint_every=every, on_metrics=on_metrics)
    assert len(killed) == losses
    assert result.iterations == ITERATIONS and not result.interrupted
    assert_same_outputs(out, reference / store)
    summary = json.loads((out / "result.json").read_text())
    assert len(summary["recoveries"]) == losses
    for record, pid in zip(summary["recoveries"], killed):
        # the exit may be seen first as the dropped connection: either way, the worker killed
        assert f":{pid} exited with status -9" in record["lost"] or f":{pid} cannot be reached" in record["lost"]
    assert summary["recoveries"][-1]["resumed_from"] == {"pass": 3, "between": 6, "checkpoint": 3, "recovery": 6,
                                                         "start": 0}[moment]
    assert not {w["worker"].split(":")[1] for w in summary["workers"]} & {str(p) for p in killed}
    assert time.monotonic() - t0 < 120
    assert pids_gone([int(w["worker"].split(":")[1]) for w in summary["workers"]])


@pytest.mark.slow  # (CI time)
def test_a_worker_that_keeps_dying_stops_the_run_after_max_recoveries(tmp_path):
    asm = load_config(config({**ZMQ2, "max_recoveries": 1}, iterations=ITERATIONS))
    killed = []

    def on_metrics(row):  # iteration 4, after each rollback to the checkpoint at 3
        if row["iteration"] == 4:
            killed.append(_kill(next(iter(asm.transport._workers.values()))))

    with pytest.raises(TransportError, match=r"(exited with status -9|cannot be reached).*gave up: 1 recoveries in a row did not get "
                                             r"the run past this point; \[transport\] max_recoveries = 1"):
        run_solve(asm, out=tmp_path / "out", checkpoint_every="3", on_metrics=on_metrics)
    assert len(killed) == 2
    assert pids_gone(killed)


# --- hand-started workers ------------------------------------------------------------------------


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _hand_worker(endpoint, *args):
    return subprocess.Popen([sys.executable, "-m", "solverkit", "worker", "--connect", endpoint, "--threads", "1",
                             "--wait", "60", *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _stop(*procs):
    for p in procs:
        if p.poll() is None:
            p.kill()
        p.wait()


@pytest.mark.slow
def test_a_hand_started_worker_is_replaced_by_a_spare_started_by_hand(tmp_path, reference):
    """Three workers start before their trunk and wait for it; it takes two, and the third waits
    as a spare (refused: the trunk has its workers). A worker killed is found out by its dropped
    connection within seconds, and the spare replaces it."""
    endpoint = f"tcp://127.0.0.1:{_free_port()}"
    procs = [_hand_worker(endpoint) for _ in range(3)]
    try:
        asm = load_config(config({**ZMQ2, "spawn": 0, "bind": endpoint}, iterations=ITERATIONS))
        roles = {}

        def on_metrics(row):
            if row["iteration"] == 5 and not roles:
                members = {w.pid for w in asm.transport._workers.values()}
                roles["victim"] = next(p for p in procs if p.pid in members)
                (roles["spare"],) = [p for p in procs if p.pid not in members]
                roles["victim"].kill()

        out = tmp_path / "out"
        run_solve(asm, out=out, checkpoint_every="4", on_metrics=on_metrics)
        assert_same_outputs(out, reference / "float64")
        summary = json.loads((out / "result.json").read_text())
        (lost,) = summary["recoveries"]
        assert f":{roles['victim'].pid} dropped its connection" in lost["lost"] and lost["resumed_from"] == 4
        assert str(roles["spare"].pid) in {w["worker"].split(":")[1] for w in summary["workers"]}
        for p in procs:
            if p is not roles["victim"]:
                assert p.wait(15) == 0  # stopped by the trunk at the end
        assert "this trunk already has its 2 workers" in roles["spare"].stderr.read()
    finally:
        _stop(*procs)


@pytest.mark.slow  # (CI time)
def test_a_lost_worker_not_replaced_in_time_stops_the_run(tmp_path):
    endpoint = f"tcp://127.0.0.1:{_free_port()}"
    worker = _hand_worker(endpoint)
    try:
        asm = load_config(config({**ZMQ2, "workers": 1, "spawn": 0, "bind": endpoint, "replace_timeout": 1.0},
                                 iterations=ITERATIONS))

        def on_metrics(row):
            if row["iteration"] == 2:
                worker.kill()

        t0 = time.monotonic()
        with pytest.raises(TransportError, match=r"1 lost zmq worker\(s\) not replaced within 1 s \(\[transport\] "
                                                 r"replace_timeout\); start workers with `solverkit worker --connect "
                                                 rf"{endpoint}`.*--resume"):
            run_solve(asm, out=tmp_path / "out", on_metrics=on_metrics)
        assert time.monotonic() - t0 < 60
    finally:
        _stop(worker)


TRUNK = """
import os, signal, sys
from solverkit.core import solver
step = solver.Solver.step
def dying_step(self, n=1):
    step(self, n)
    if self.iteration == 8:
        os.kill(os.getpid(), signal.SIGKILL)
solver.Solver.step = dying_step
from solverkit.cli import cli
cli(sys.argv[1:])
"""


@pytest.mark.slow  # (CI time: 13 s; a killed worker's replacement stays in the default run)
def test_a_killed_trunk_resumed_takes_back_the_workers_that_waited_for_it(tmp_path, reference):
    endpoint = f"tcp://127.0.0.1:{_free_port()}"
    workers = [_hand_worker(endpoint) for _ in range(2)]
    try:
        cfg = tmp_path / "run.toml"
        cfg.write_text(tomli_w.dumps(config({**ZMQ2, "spawn": 0, "bind": endpoint}, iterations=ITERATIONS)))
        out = tmp_path / "out"
        trunk = subprocess.run([sys.executable, "-c", TRUNK, "solve", str(cfg), "--out", str(out),
                                "--checkpoint-every", "3", "--quiet"], capture_output=True, text=True, timeout=120)
        assert trunk.returncode == -signal.SIGKILL, trunk.stderr
        assert len(curve(out / "metrics.csv")) == 7  # killed in iteration 8, before its row
        assert all(w.poll() is None for w in workers)  # waiting for a trunk
        t0 = time.monotonic()
        res = CliRunner().invoke(cli, ["solve", "--resume", str(out), "--quiet"])
        assert res.exit_code == 0, res.output
        assert time.monotonic() - t0 < 60
        assert_same_outputs(out, reference / "float64")
        summary = json.loads((out / "result.json").read_text())
        assert sorted(int(w["worker"].split(":")[1]) for w in summary["workers"]) == sorted(w.pid for w in workers)
        for w in workers:
            assert w.wait(15) == 0
            assert "dropping its subgames and waiting for a trunk" in w.stderr.read()
    finally:
        _stop(*workers)


# --- the worker's side ---------------------------------------------------------------------------


def _setup(asm, timeout):
    key = asm.game.subgame_keys()[0]
    return pack_header({"type": "setup", "id": 1, "protocol": PROTOCOL, "config": asm.resolved, "keys": [list(key)],
                        "addresses": [asm.game.subgame_address(key)], "segments": [asm.game.subgame_segment(key)],
                        "run": new_run_id(), "heartbeat": 0.1, "timeout": timeout})


def _next(router, kind):
    while True:
        ident, frame, *_ = router.recv_multipart()
        header = unpack_header(frame, "test")
        if header["type"] != "heartbeat":
            assert header["type"] == kind, header
            return ident, header


def test_a_worker_whose_trunk_is_lost_says_hello_again_and_waits_for_one():
    """Silence past the timeout, or a trunk that no longer knows it (restarted): the worker drops
    its subgames and says hello again (the same routing id); after --wait without a setup it exits."""
    asm = load_config(config(ZMQ2))
    with _worker_of_fake_trunk("--threads", "1") as (router, proc):
        ident, _ = _next(router, "hello")
        t0 = time.monotonic()
        router.send_multipart([ident, _setup(asm, 1.0)])
        _next(router, "ready")
        assert _next(router, "hello")[0] == ident  # silence (from its setup on): hello again
        assert 1.0 <= time.monotonic() - t0 < 40
        router.send_multipart([ident, _setup(asm, 30.0)])
        _next(router, "ready")
        router.send_multipart([ident, pack_header({"type": "error", "id": None, "rejoin": True,
                                                   "message": "unknown peer: send a hello message first"})])
        t0 = time.monotonic()
        assert _next(router, "hello")[0] == ident  # told: hello again at once
        assert time.monotonic() - t0 < 3
        router.send_multipart([ident, pack_header({"type": "stop", "id": 5})])
        assert _next(router, "bye")[1]["id"] == 5
        assert proc.wait(10) == 0
        err = proc.stderr.read()
        assert "it is gone; dropping its subgames and waiting for a trunk" in err
        assert "the trunk no longer knows this worker" in err


def test_a_worker_exits_when_no_trunk_sets_it_up_within_wait():
    endpoint = f"tcp://127.0.0.1:{_free_port()}"  # nobody there
    proc = subprocess.run([sys.executable, "-m", "solverkit", "worker", "--connect", endpoint, "--wait", "0.5"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert f"no setup from a trunk at {endpoint} within 0.5 s; exiting" in proc.stderr


@pytest.mark.slow
def test_a_silent_replacement_is_dropped_and_the_next_worker_replaces_the_lost_one(tmp_path, reference):
    """No keys, loopback: while a lost worker is replaced, a peer that says hello, takes the lost
    worker's setup and then says nothing holds its share for [transport] timeout only; a real
    worker started after it replaces the lost one and the run ends as an uninterrupted one."""
    import threading

    import zmq

    from solverkit import __version__

    endpoint = f"tcp://127.0.0.1:{_free_port()}"
    first = _hand_worker(endpoint)
    procs, rogue = [first], {}
    hello = {"type": "hello", "protocol": PROTOCOL, "solverkit": __version__, "host": "rogue", "pid": 666, "threads": 1}

    def silent_peer():
        """Say hello until a setup comes, then nothing; note the trunk's last word."""
        ctx = zmq.Context()
        sock = ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        sock.connect(endpoint)
        try:
            while "setup" not in rogue:
                sock.send(pack_header(hello))
                if sock.poll(500):
                    header = unpack_header(sock.recv_multipart()[0], "test")
                    if header["type"] == "setup":
                        rogue["setup"] = time.monotonic()
                        procs.append(_hand_worker(endpoint))  # the real replacement, after the rogue
            while sock.poll(20000):
                header = unpack_header(sock.recv_multipart()[0], "test")
                if header["type"] == "error":
                    rogue["dropped"] = (time.monotonic() - rogue["setup"], header["message"])
                    return
        finally:
            sock.close(0)
            ctx.term()

    try:
        asm = load_config(config({**ZMQ2, "workers": 1, "spawn": 0, "bind": endpoint, "timeout": 3.0,
                                  "replace_timeout": 20.0},
                                 iterations=ITERATIONS))

        def on_metrics(row):
            if row["iteration"] == 5 and not rogue:
                rogue["thread"] = threading.Thread(target=silent_peer, daemon=True)
                rogue["thread"].start()
                first.kill()

        out = tmp_path / "out"
        run_solve(asm, out=out, checkpoint_every="4", on_metrics=on_metrics)
        assert_same_outputs(out, reference / "float64")
        rogue["thread"].join(10)
        waited, message = rogue["dropped"]
        assert 3.0 <= waited < 10 and "dropped before it was ready: silent for 3." in message
        (lost,) = json.loads((out / "result.json").read_text())["recoveries"]
        assert f":{first.pid} " in lost["lost"]
    finally:
        _stop(*procs)
