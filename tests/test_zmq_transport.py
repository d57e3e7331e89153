"""The zmq transport: worker processes give the numbers of the local transport bit for bit
(metrics, strategy, checkpoints and --resume); malformed messages get clear errors on both
sides; dead, stopped and silent workers and trunks are found out; nothing is left running.

Over 500 lines on purpose: one transport's contract (equal numbers, clear errors, no
process left), with one set of worker fixtures; security and faults have their own files.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

import msgpack
import numpy as np
import pytest
import zmq
from click.testing import CliRunner

from solverkit import __version__
from solverkit.cli import cli
from solverkit.core.config import load_config
from solverkit.core.game import PassJob
from solverkit.core.solver import Solver, make_store, run_solve
from solverkit.core.store import new_run_id
from solverkit.core.wire import pack_header, unpack_header
from solverkit.errors import ConfigError, ProtocolError, TransportError
from solverkit_transports.protocol import PROTOCOL
from solverkit_transports.zmq import partition

from .zmq_peers import STATS, fake_worker

LEDUC = {"name": "leduc", "split_round": 1, "chunks": 2}
FAST = {"heartbeat": 0.1, "timeout": 4.0, "connect_timeout": 30.0}
ZMQ2 = {"name": "zmq", "workers": 2, "spawn": 2, "threads": 2, **FAST}
COMPRESSED = {"compressor": {"name": "blosc2"}, "store": {"regret_scale": 64, "avg_scale": 64}}
HELD = {**COMPRESSED, "store": {**COMPRESSED["store"], "hold": "decoded"}}  # workers round, encode on demand


def config(transport=None, iterations=12, **extra):
    return {"preset": "cfr_plus", "game": dict(LEDUC), "solver": {"iterations": iterations, "eval_every": 1},
            **({"transport": transport} if transport else {}), **extra}


def curve(path):
    """metrics.csv rows without the seconds and memory columns (full-precision text)."""
    import csv

    with open(path) as fh:
        return [{k: v for k, v in r.items() if k not in ("seconds", "peak_rss_mb")} for r in csv.DictReader(fh)]


def pids_gone(pids, within=10.0):
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        alive = [p for p in pids if _alive(p)]
        if not alive:
            return True
        time.sleep(0.1)
    return False


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie of a process we did not reap counts as gone
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


# --- the same numbers as the local transport -----------------------------------------------------


@pytest.mark.parametrize("store", [{}, COMPRESSED, pytest.param(HELD, marks=pytest.mark.slow),  # (CI time)
                                   {"store": {"precision": "float32"}}],
                         ids=["float64", "fixed_point_blosc2", "held_decoded", "float32"])
def test_zmq_gives_the_local_metrics_strategy_and_store_sizes(tmp_path, store):
    local = run_solve(load_config(config(**store)), out=tmp_path / "local")
    remote = run_solve(load_config(config(ZMQ2, **store)), out=tmp_path / "zmq")
    assert curve(tmp_path / "zmq" / "metrics.csv") == curve(tmp_path / "local" / "metrics.csv")
    assert [r["exploitability"] for r in remote.metrics] == [r["exploitability"] for r in local.metrics]
    a, b = np.load(tmp_path / "local" / "strategy.npz"), np.load(tmp_path / "zmq" / "strategy.npz")
    assert sorted(a.files) == sorted(b.files)
    for name in a.files:
        np.testing.assert_array_equal(a[name], b[name])
    # the store columns count the workers' segments: the same bytes as one process holds
    assert remote.stored_bytes == local.stored_bytes > 0
    result = json.loads((tmp_path / "zmq" / "result.json").read_text())
    assert result["stored_bytes"] == local.stored_bytes
    assert len(result["workers"]) == 2 and sum(w["subgames"] for w in result["workers"]) == 10
    assert result["worker_peak_rss_mb"] > 0 and all(w["stored_bytes"] > 0 for w in result["workers"])
    # every pass sends each subgame's reach vectors [2, H] and gets the updated player's values
    # [1, H] back (float64): at least that much
    passes = 2 * remote.iterations
    shape = int(np.prod(load_config(config(**store)).game.subgame_shape()))
    assert result["wire_bytes_sent"] >= passes * 10 * shape * 8
    assert result["wire_bytes_received"] >= passes * 10 * shape // 2 * 8


@pytest.mark.slow
def test_checkpoint_and_resume_through_zmq_match_an_uninterrupted_run(tmp_path):
    disk = {**COMPRESSED, "store": {**COMPRESSED["store"], "backend": "disk"}}
    run_solve(load_config(config(iterations=14, **disk)), out=tmp_path / "full")
    part = tmp_path / "part"
    run_solve(load_config(config(ZMQ2, iterations=9, **disk)), out=part, checkpoint_every="4")
    assert sorted(p.name for p in (part / "store").iterdir()) == [".lock", "seg0000000.skseg", "worker0", "worker1"]
    assert (part / "store" / "worker0" / ".lock").exists()  # each worker locks its own directory
    res = CliRunner().invoke(cli, ["solve", "--resume", str(part), "--iterations", "14", "--quiet"])
    assert res.exit_code == 0, res.output
    assert curve(part / "metrics.csv") == curve(tmp_path / "full" / "metrics.csv")
    a, b = np.load(tmp_path / "full" / "strategy.npz"), np.load(part / "strategy.npz")
    for name in a.files:
        np.testing.assert_array_equal(a[name], b[name])


HULHE = {"name": "hulhe", "ranks": 4, "rounds": 3, "max_raises": [1, 2, 1], "split_round": 2, "chunks": 2}


def test_a_hulhe_worker_builds_only_its_flops_and_computes_the_same_subgames():
    """subgame_config deals a worker only the flops of its subgames; its smaller game finds each
    subgame by address and gives the whole game's values and regrets."""
    from solverkit.core.solver import make_store

    asm = load_config({"preset": "cfr_plus", "game": HULHE})
    game = asm.game
    keys = game.subgame_keys()[::7][:4]
    cfg = game.subgame_config(keys)
    assert 1 <= len(cfg["flops"].split(",")) <= 4
    small = load_config({"preset": "cfr_plus", "game": {**HULHE, **cfg}})
    sg = small.game
    assert sg.tree.boards.round_start[-1] < game.tree.boards.round_start[-1] / 4  # far fewer boards
    big_store, small_store = make_store(asm), make_store(small)
    rng = np.random.default_rng(3)
    for t in (1, 2):
        for p in (0, 1):
            pj = PassJob(t, (p,), asm.rule, asm.averaging)
            job = (game.kernel_job(pj), pj)
            for k in keys:
                local = sg.subgame_key_at(game.subgame_address(k))
                reach = rng.random((2, game.tree.num_hands))
                np.testing.assert_array_equal(game.subgame_pass(k, job, reach.copy(), big_store),
                                              sg.subgame_pass(local, job, reach.copy(), small_store))
    for k in keys:
        a = big_store.read(game.subgame_segment(k))
        b = small_store.read(sg.subgame_segment(sg.subgame_key_at(game.subgame_address(k))))
        for name in a:
            np.testing.assert_array_equal(a[name], b[name])
    other = next(k for k in game.subgame_keys() if k[1] not in {b for _, b, _ in keys})
    with pytest.raises(KeyError, match="no subgame at"):
        sg.subgame_key_at(game.subgame_address(other))


@pytest.mark.slow
def test_hulhe_through_zmq_workers_with_their_own_flops_equals_local(tmp_path):
    base = {"preset": "cfr_plus", "game": HULHE, "solver": {"iterations": 4, "eval_every": 2}}
    local = run_solve(load_config(base), out=tmp_path / "local")
    remote = run_solve(load_config({**base, "transport": ZMQ2}), out=tmp_path / "zmq")
    assert curve(tmp_path / "zmq" / "metrics.csv") == curve(tmp_path / "local" / "metrics.csv")
    assert remote.exploitability == local.exploitability
    result = json.loads((tmp_path / "zmq" / "result.json").read_text())
    assert result["stored_bytes"] == local.stored_bytes


def test_partition_balances_segment_sizes():
    keys = [(i, 0, 0) for i in range(10)]
    sizes = {k: s for k, s in zip(keys, [9, 1, 8, 2, 7, 3, 6, 4, 5, 5])}
    shares = partition(keys, sizes, 3)
    assert sorted(k for s in shares for k in s) == keys
    loads = [sum(sizes[k] for k in s) for s in shares]
    assert max(loads) - min(loads) <= 1
    assert all(s == sorted(s) for s in shares)  # each share in the keys' order


# --- jobs on the wire ----------------------------------------------------------------------------


def test_poker_jobs_round_trip_and_bad_fields_are_named():
    asm = load_config(config())
    game = asm.game
    pj = PassJob(7, (1,), asm.rule, asm.averaging)
    job = (game.kernel_job(pj), pj)
    wire = unpack_header(pack_header({"type": "pass", "job": game.job_to_wire(job)}), "test")["job"]
    kjob, back = game.job_from_wire(wire, asm.rule, asm.averaging)
    assert kjob == job[0] and (back.iteration, back.players, back.rule) == (7, (1,), asm.rule)
    assert game.job_from_wire({**wire, "pass": None}, asm.rule, asm.averaging)[1] is None
    bad = [
        ({**wire, "kernel": {**wire["kernel"], "upd_mask": 9}}, r"field 'upd_mask' = 9 is invalid: expected an integer >= 0 and <= 3"),
        ({**wire, "kernel": {**wire["kernel"], "source": "x"}}, r"field 'source' = 'x' is invalid: expected one of avg, regret"),
        ({**wire, "kernel": {**wire["kernel"], "coeffs": [1.0]}}, r"field 'coeffs' = \[1.0\] is invalid: expected a list of numbers of length 6"),
        ({**wire, "pass": {"iteration": 3, "players": [2]}}, r"field 'players' = \[2\] is invalid: expected \[0\], \[1\] or \[0, 1\]"),
        ({**wire, "pass": {"iteration": "3", "players": [0]}}, r"field 'iteration' = '3' is invalid: expected an integer >= 1"),
        ({**wire, "extra": 1}, r"unknown field\(s\) extra; valid: kernel, pass"),
        ([1, 2], r"subgame job: list \[1, 2\], expected a map"),
    ]
    for data, message in bad:
        with pytest.raises(ProtocolError, match=message):
            game.job_from_wire(data, asm.rule, asm.averaging)


def test_headers_are_unpacked_with_limits():
    with pytest.raises(ProtocolError, match="malformed header"):
        unpack_header(b"\xc1", "here")
    with pytest.raises(ProtocolError, match="header is a list, expected a msgpack map"):
        unpack_header(msgpack.packb([1]), "here")
    with pytest.raises(ProtocolError, match="no string field 'type'"):
        unpack_header(msgpack.packb({"id": 1}), "here")
    with pytest.raises(ProtocolError, match="exceeds the limit"):
        unpack_header(b"\x00" * (17 << 20), "here")
    with pytest.raises(ProtocolError, match="malformed header"):  # extension types are refused
        unpack_header(msgpack.packb({"type": msgpack.ExtType(1, b"x")}), "here")


# --- parameters ----------------------------------------------------------------------------------


@pytest.mark.parametrize("params, message", [
    ({"workers": 0}, r"\[transport\] \(zmq\) workers = 0 is invalid: expected an integer >= 1 and <= 4096"),
    ({"workers": 2, "spawn": 3}, r"spawn = 3 is invalid: expected <= workers \(2\)"),
    ({"bind": "http://x:1"}, r"bind = 'http://x:1' is invalid: expected tcp://HOST:PORT or ipc://PATH"),
    # zmq itself binds port 70000 as 4464 and -1 as 65535 without a word
    ({"bind": "tcp://127.0.0.1:70000"}, r"bind = 'tcp://127.0.0.1:70000': port '70000' is invalid: expected a number "
                                        r"from 0 to 65535 \(0: a free port picked by the system\)"),
    ({"bind": "tcp://127.0.0.1:-1"}, r"bind = 'tcp://127.0.0.1:-1': port '-1' is invalid"),
    ({"bind": "tcp://127.0.0.1"}, r"bind = 'tcp://127.0.0.1' is invalid: expected tcp://HOST:PORT \(a port after"),
    ({"bind": "ipc://"}, r"bind = 'ipc://': ipc:// needs a path"),
    ({"heartbeat": 1.0, "timeout": 1.5}, r"timeout = 1.5 is invalid: expected >= 2 x heartbeat \(2\)"),
    ({"connect_timeout": 0}, r"connect_timeout = 0 is invalid: expected a number > 0"),
    ({"wrokers": 2}, r"unknown parameter 'wrokers' in \[transport\] \(zmq\); valid: bind, checkpoint, connect_timeout, heartbeat, keys, max_recoveries, replace_timeout, spawn, threads, timeout, workers"),
])
def test_bad_parameters_name_the_value_and_the_valid_ones(params, message):
    with pytest.raises(ConfigError, match=message):
        load_config(config({"name": "zmq", **params}))


def test_a_game_without_subgames_or_with_too_few_is_refused():
    with pytest.raises(ConfigError, match=r"game 'leduc' has no subgames to run on workers; .*split_round >= 1"):
        Solver(load_config({**config({"name": "zmq"}), "game": "leduc"}))
    with pytest.raises(ConfigError, match=r"workers = 11 is invalid: game 'leduc' has 10 subgames"):
        Solver(load_config(config({"name": "zmq", "workers": 11})))


def test_too_few_workers_time_out_naming_the_count_and_address():
    t0 = time.monotonic()
    with pytest.raises(TransportError, match=r"0 of 1 zmq workers ready after 0.5 s on tcp://127.0.0.1:\d+; start "
                                             r"workers with `solverkit worker --connect tcp://127.0.0.1:\d+`"):
        Solver(load_config(config({"name": "zmq", "connect_timeout": 0.5})))
    assert time.monotonic() - t0 < 5


def test_worker_command_checks_its_address():
    res = CliRunner().invoke(cli, ["worker", "--connect", "localhost:5555"])
    assert res.exit_code == 2 and "--connect 'localhost:5555' is invalid: expected tcp://HOST:PORT" in res.output
    res = CliRunner().invoke(cli, ["worker", "--connect", "tcp://*:5555", "--wait", "1"])  # was a ZMQError traceback
    assert res.exit_code == 2 and "'*' is a wildcard to bind, not a host to connect to" in res.output
    res = CliRunner().invoke(cli, ["worker", "--connect", "tcp://a b:5555", "--wait", "1"])
    assert res.exit_code == 2 and "--connect 'tcp://a b:5555': host 'a b' is not a host name or address" in res.output
    res = CliRunner().invoke(cli, ["worker", "--connect", "tcp://" + "a" * 5000 + ":5555", "--wait", "1"])
    assert res.exit_code == 2 and "is not a host name or address" in res.output and len(res.output) < 400
    res = CliRunner().invoke(cli, ["worker", "--connect", "tcp://a@b:5555", "--wait", "1"])  # what zmq itself refuses
    assert res.exit_code == 2 and "--connect 'tcp://a@b:5555': cannot connect there (" in res.output
    for port, low in (("70000", 1), ("0", 1), ("-5", 1)):  # zmq would connect to port 4464 for 70000
        res = CliRunner().invoke(cli, ["worker", "--connect", f"tcp://127.0.0.1:{port}", "--wait", "1"])
        assert res.exit_code == 2, res.output
        assert (f"--connect 'tcp://127.0.0.1:{port}': port '{port}' is invalid: expected a number from {low} to "
                "65535") in res.output
    res = CliRunner().invoke(cli, ["worker", "--help"])
    assert "--connect" in res.output and "--store-dir" in res.output and "--threads" in res.output


# --- a bound trunk and a running worker survive malformed messages ------------------------------


def _dealer(ctx, endpoint):
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.RCVTIMEO, 5000)
    sock.connect(endpoint)
    return sock


def _reply(sock):
    frames = sock.recv_multipart()
    return unpack_header(frames[0], "test"), frames[1:]


def test_trunk_answers_strangers_with_errors_and_keeps_solving():
    asm = load_config(config(ZMQ2, **COMPRESSED))
    reference = Solver(load_config(config(**COMPRESSED)))
    solver = Solver(asm)
    ctx = zmq.Context()
    try:
        rogue = _dealer(ctx, solver.transport.endpoint)
        probes = [
            ([b"\xc1\xc1"], "malformed header (not msgpack"),
            ([msgpack.packb([1, 2])], "header is a list, expected a msgpack map"),
            ([pack_header({"type": "result", "id": 1})], "unknown peer: send a hello message first (got 'result')"),
            ([pack_header({"type": "hello", "protocol": PROTOCOL + 1, "solverkit": __version__, "host": "x",
                           "pid": 1, "threads": 1})], f"worker speaks protocol {PROTOCOL + 1}"),
            ([pack_header({"type": "hello", "protocol": PROTOCOL, "solverkit": __version__, "host": "x",
                           "pid": 1, "threads": 1})], "this trunk already has its 2 workers"),
        ]
        for i, (frames, message) in enumerate(probes):
            rogue.send_multipart(frames)
            if i >= 3:  # hellos are answered by the main thread, at its next wait
                solver.step()
                reference.step()
            header, _ = _reply(rogue)
            assert header["type"] == "error" and message in header["message"], header
        for _ in range(3):
            solver.step()
            reference.step()
        assert solver.evaluate() == {**reference.evaluate(), "seconds": solver.solve_seconds}
    finally:
        solver.close()
        reference.close()
        ctx.destroy(0)


@contextlib.contextmanager
def _worker_of_fake_trunk(*args):
    """(router, worker process): a real `solverkit worker` connected to a bare ROUTER socket."""
    ctx = zmq.Context()
    router = ctx.socket(zmq.ROUTER)
    router.setsockopt(zmq.LINGER, 0)
    router.setsockopt(zmq.RCVTIMEO, 20000)
    endpoint = f"tcp://127.0.0.1:{router.bind_to_random_port('tcp://127.0.0.1')}"
    proc = subprocess.Popen([sys.executable, "-m", "solverkit", "worker", "--connect", endpoint, *args,
                             "--wait", "30"], stderr=subprocess.PIPE, text=True)
    try:
        yield router, proc
    finally:
        proc.kill()
        proc.wait()
        ctx.destroy(0)


def test_worker_answers_malformed_requests_and_computes_what_the_game_computes(tmp_path):
    with _worker_of_fake_trunk("--threads", "2") as (router, proc):
        asm = load_config(config(ZMQ2))
        game = asm.game
        keys = game.subgame_keys()[:4]

        def send(header, *frames):
            router.send_multipart([ident, pack_header(header), *frames])

        def reply(kind):
            while True:
                frames = router.recv_multipart()
                header = unpack_header(frames[1], "test")
                if header["type"] != "heartbeat":
                    assert header["type"] == kind, header
                    return header, frames[2:]

        ident, hello = router.recv_multipart()
        hello = unpack_header(hello, "test")
        assert hello["type"] == "hello" and hello["protocol"] == PROTOCOL and hello["pid"] == proc.pid
        router.send_multipart([ident, b"\xc1"])
        assert "malformed header" in reply("error")[0]["message"]
        run = new_run_id()
        send({"type": "setup", "id": 1, "protocol": PROTOCOL, "config": asm.resolved,
              "keys": [list(k) for k in keys], "addresses": [game.subgame_address(k) for k in keys],
              "segments": [game.subgame_segment(k) for k in keys], "run": run, "heartbeat": 0.1, "timeout": 30.0})
        ready, _ = reply("ready")
        assert ready["id"] == 1 and ready["stored_bytes"] == 0
        H = game.tree.num_hands
        pj = PassJob(1, (0,), asm.rule, asm.averaging)
        wire = game.job_to_wire((game.kernel_job(pj), pj))
        rng = np.random.default_rng(0)
        reach = rng.random((len(keys), 2, H))
        good = {"type": "pass", "id": 7, "job": wire, "keys": [list(k) for k in keys], "shape": [len(keys), 2, H],
                "dtype": "<f8"}
        probes = [
            ({"type": "bogus", "id": 2}, [], "unknown message type 'bogus'; valid: error, fetch, flush, heartbeat, load, pass, put, save, setup, stop, strategy"),
            ({**good, "id": 3, "shape": [len(keys), 2, H + 1]}, [reach], f"field 'shape' = [{len(keys)}, 2, {H + 1}] is invalid: expected [{len(keys)}, 2, {H}]"),
            ({**good, "id": 4}, [reach[:, :, :-1].copy()], f"array frame of {reach.nbytes - 8 * 2 * len(keys)} bytes, expected {reach.nbytes}"),
            ({**good, "id": 5, "keys": [[999, 0, 0]]}, [reach[:1]], "subgame (999, 0, 0) is not held by this worker"),
            ({**good, "id": 6, "job": {"kernel": {}, "pass": None}}, [reach], "missing field"),
            ({"type": "fetch", "id": 8, "segment": "trunk", "arrays": ["regret0"]}, [], "segment 'trunk' is not held by this worker"),
            ({"type": "setup", "id": 9}, [], "already set up"),
        ]
        for header, frames, message in probes:
            send(header, *frames)
            err, _ = reply("error")
            assert err["id"] == header["id"] and message in err["message"], (err, message)
        send(good, reach)
        result, frames = reply("result")
        got = np.frombuffer(frames[0], dtype="<f8").reshape(len(keys), 1, H)  # player 0's values: an alternating pass
        store = make_store(asm, run_id=run)
        for i, key in enumerate(keys):  # the worker's numbers are the game's own, bit for bit
            np.testing.assert_array_equal(got[i], game.subgame_pass(key, (game.kernel_job(pj), pj), reach[i], store))
        assert result["stored_bytes"] > 0
        segment = game.subgame_segment(keys[0])
        send({"type": "fetch", "id": 10, "segment": segment, "arrays": ["regret0"]})
        header, frames = reply("segment")
        np.testing.assert_array_equal(store.decoded(segment, {"regret0": frames[0]})["regret0"],
                                      store.read(segment)["regret0"])
        # payloads of another run (or another segment) are refused, naming what they belong to
        other = make_store(asm)
        theirs = other.payloads(segment)
        send({"type": "put", "id": 12, "segment": segment, "arrays": list(theirs)}, *theirs.values())
        assert f"the frame belongs to run id '{other.run_id}', not '{run}'" in reply("error")[0]["message"]
        wrong = game.subgame_segment(keys[1])
        swapped = store.payloads(wrong)
        send({"type": "put", "id": 13, "segment": segment, "arrays": list(swapped)}, *swapped.values())
        assert f"the frame belongs to segment '{wrong}', not '{segment}'" in reply("error")[0]["message"]
        send({"type": "stop", "id": 11})
        assert reply("bye")[0]["id"] == 11
        assert proc.wait(10) == 0
        assert "stopped by the trunk" in proc.stderr.read()


def test_a_once_worker_exits_when_its_trunk_goes_silent():
    with _worker_of_fake_trunk("--once") as (router, proc):
        asm = load_config(config(ZMQ2))
        key = asm.game.subgame_keys()[0]
        ident, _ = router.recv_multipart()
        router.send_multipart([ident, pack_header({"type": "setup", "id": 1, "protocol": PROTOCOL,
                                                   "config": asm.resolved, "keys": [list(key)],
                                                   "addresses": [asm.game.subgame_address(key)],
                                                   "segments": [asm.game.subgame_segment(key)],
                                                   "run": new_run_id(), "heartbeat": 0.1, "timeout": 1.0})])
        t0 = time.monotonic()
        assert proc.wait(30) == 1
        assert time.monotonic() - t0 < 10
        assert re.search(r"no message from the trunk at tcp://127.0.0.1:\d+ for 1.\d s \(timeout 1 s\): it is gone",
                         proc.stderr.read())


def test_a_worker_that_cannot_build_the_assembly_says_why_and_exits():
    with _worker_of_fake_trunk() as (router, proc):
        ident, _ = router.recv_multipart()
        router.send_multipart([ident, pack_header({"type": "setup", "id": 1, "protocol": PROTOCOL,
                                                   "config": {"game": "nosuch"}, "keys": [], "addresses": [],
                                                   "segments": [], "run": new_run_id(), "heartbeat": 0.1,
                                                   "timeout": 5.0})])
        header = unpack_header(router.recv_multipart()[1], "test")
        while header["type"] == "heartbeat":  # sent while it sets up
            header = unpack_header(router.recv_multipart()[1], "test")
        assert header["type"] == "error" and header["id"] == 1
        assert header["message"].startswith("cannot set up: unknown game 'nosuch' in [game] name; available:")
        assert proc.wait(10) == 2


# --- failing, dying and silent workers -----------------------------------------------------------


@pytest.mark.parametrize("answer, message", [
    (lambda h: [pack_header({"type": "error", "id": h["id"], "message": "ValueError: boom", "traceback": "tb"})],
     r"zmq worker fake:4242 failed: ValueError: boom"),
    (lambda h: [pack_header({"type": "result", "id": h["id"], "keys": h["keys"], "shape": [1, 2, 3],
                             "dtype": "<f8", **STATS}), b"\0" * 48],
     r"result from zmq worker fake:4242: field 'shape' = \[1, 2, 3\] is invalid: expected \[10, 1, 6\]"),
    (lambda h: [pack_header({"type": "result", "id": h["id"], "keys": h["keys"][:-1], "shape": h["shape"],
                             "dtype": "<f8", **STATS}), b"\0" * 8],
     r"keys .* are not the 10 keys sent"),
    (lambda h: [pack_header({"type": "result", "id": h["id"] + 1, "keys": h["keys"], "shape": h["shape"],
                             "dtype": "<f8", **STATS})],
     r"zmq worker fake:4242: replied to request \d+, expected \d+"),
    (lambda h: [pack_header({"type": "done", "id": h["id"]})],
     r"sent 'done' in reply to request \d+, expected 'result'"),
    (lambda h: [pack_header({"type": "frobnicate", "id": h["id"]})],
     r"zmq worker fake:4242: unknown message type 'frobnicate'; valid: bye, done, error, heartbeat, hello"),
])
def test_a_worker_that_fails_or_breaks_the_protocol_stops_the_run_with_its_name(answer, message):
    transport = {"name": "zmq", "workers": 1, "bind": "tcp://127.0.0.1:0", **FAST}
    asm = load_config(config(transport))
    box = {}

    def start():
        try:
            box["solver"] = Solver(asm)
        except BaseException as exc:  # noqa: BLE001 - reported below
            box["error"] = exc

    starter = threading.Thread(target=start)
    starter.start()
    while asm.transport.endpoint is None and starter.is_alive():
        time.sleep(0.01)
    fake = fake_worker(asm.transport.endpoint, answer)
    starter.join(30)
    assert "error" not in box, box.get("error")
    solver = box["solver"]
    try:
        with pytest.raises(TransportError, match=message):
            solver.step()
    finally:
        solver.close()
    fake.join(0.2)  # (a daemon: it waits for a STOP the trunk never sends a failed worker)


@pytest.mark.parametrize("sig, message", [(signal.SIGKILL, r"(exited with status -9|cannot be reached)"),
                                          pytest.param(signal.SIGSTOP, r"silent for \d+\.\d s \(timeout 4 s\): it died, hung",
                                                       marks=pytest.mark.slow)])
def test_a_dead_or_stopped_worker_stops_the_run_within_the_timeout(sig, message):
    solver = Solver(load_config(config(ZMQ2)))
    victim = next(iter(solver.transport._workers.values()))
    try:
        solver.step()
        os.kill(victim.pid, sig)
        t0 = time.monotonic()
        with pytest.raises(TransportError, match=rf"zmq worker \S+:{victim.pid} {message}.*--resume"):
            for _ in range(100):
                solver.step()
        assert time.monotonic() - t0 < FAST["timeout"] + 1.5
    finally:
        solver.close()  # kills the stopped one too
    assert pids_gone([w.pid for w in solver.transport._workers.values()])


# --- the command line: Ctrl-C and kill -9 leave no worker behind --------------------------------


def _solve(tmp_path, iterations=100000):
    cfg = tmp_path / "leduc.toml"
    import tomli_w

    cfg.write_text(tomli_w.dumps(config(ZMQ2, iterations=iterations)))
    proc = subprocess.Popen([sys.executable, "-m", "solverkit", "solve", str(cfg), "--out", str(tmp_path / "out"),
                             "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = ""
    while "worker(s) ready" not in line:
        line = proc.stderr.readline()
        assert line, "the trunk exited before its workers were ready"
    pids = [int(p) for p in re.findall(r":(\d+) \(\d+ subgames\)", line)]
    assert len(pids) == 2
    return proc, pids


@pytest.mark.parametrize("presses", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_ctrl_c_on_the_trunk_stops_its_workers(tmp_path, presses):
    """Once: the iteration ends, the outputs are saved; twice: the trunk stops at once. Either
    way its workers (in a session of their own, so the terminal's SIGINT reaches the trunk only)
    are stopped."""
    proc, pids = _solve(tmp_path)
    try:
        time.sleep(1.0)
        for _ in range(presses):
            proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        if presses == 1:
            assert proc.returncode == 130, err
            assert "interrupted after iteration" in err
            assert json.loads((tmp_path / "out" / "result.json").read_text())["interrupted"] is True
        else:
            assert proc.returncode != 0
        assert pids_gone(pids)
    finally:
        proc.kill()


@pytest.mark.slow
def test_workers_of_a_killed_trunk_exit_after_the_timeout(tmp_path):
    proc, pids = _solve(tmp_path)
    try:
        proc.kill()
        proc.wait()
        assert all(_alive(p) for p in pids)
        assert pids_gone(pids, within=2.0 + 5.0)
    finally:
        for p in pids:
            if _alive(p):
                os.kill(p, signal.SIGKILL)


def _free_port():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_hello_repeated_while_the_trunk_sets_the_worker_up_is_ignored():
    """A worker says hello every 2 s until its setup comes: a repeat that crosses the setup on
    the wire must not cost the worker its place (it used to be dropped as 'not ready')."""
    endpoint = f"tcp://127.0.0.1:{_free_port()}"
    asm = load_config(config({"name": "zmq", "workers": 1, "bind": endpoint, **FAST}))
    built, failed = [], []

    def trunk():
        try:
            built.append(Solver(asm))
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            failed.append(exc)

    thread = threading.Thread(target=trunk)
    thread.start()
    ctx = zmq.Context()
    try:
        sock = _dealer(ctx, endpoint)
        hello = pack_header({"type": "hello", "protocol": PROTOCOL, "solverkit": __version__, "host": "elsewhere",
                             "pid": 1, "threads": 1})
        sock.send_multipart([hello])
        while True:
            setup, _ = _reply(sock)
            if setup["type"] != "heartbeat":
                break
        assert setup["type"] == "setup", setup
        sock.send_multipart([hello])  # the repeat, sent before the setup had reached us
        sock.send_multipart([pack_header({"type": "ready", "id": setup["id"], "stored_bytes": 0, "num_values": 0,
                                          "peak_rss_mb": 1.0, "saturated": 0})])
        thread.join(20)
        assert not failed and len(built) == 1, failed
        assert [w.name for w in built[0].transport._workers.values()] == ["elsewhere:1"]
        sock.setsockopt(zmq.RCVTIMEO, 300)
        until = time.monotonic() + 1.0
        while time.monotonic() < until:  # heartbeats only: no error ("dropped before it was ready")
            try:
                header, _ = _reply(sock)
            except zmq.Again:
                break
            assert header["type"] == "heartbeat", header
    finally:
        thread.join(20)
        for solver in built:
            solver.transport._workers.clear()  # the fake worker answers no stop
            solver.close()
        ctx.destroy(0)


@pytest.mark.parametrize("scheduler", ["tcp://scheduler.example:99999", "scheduler.example:0"])
def test_dask_scheduler_ports_are_checked(scheduler):
    port = scheduler.rsplit(":", 1)[1]
    with pytest.raises(ConfigError, match=rf"\[transport\] \(dask\) scheduler = '{scheduler}': port '{port}' is "
                                          r"invalid: expected a number from 1 to 65535"):
        load_config(config({"name": "dask", "scheduler": scheduler}))
