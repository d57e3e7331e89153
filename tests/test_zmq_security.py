"""Security of the zmq transport: CURVE keys and the allow-list (a peer without keys cannot join
or disturb a run), the loopback rule, a peer dropped before it is ready, results checked
(finite, shaped), a target confirmed by an evaluation that trusts no worker's value, worker
message caps, and game files travelling as content.

Over 500 lines on purpose: every check needs the same fake peers and keyed trunks set up
here; they are one threat model, read together.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import zmq
from click.testing import CliRunner

from solverkit import __version__
from solverkit.cli import cli
from solverkit.core.config import load_config
from solverkit.core.solver import Solver, run_solve
from solverkit.core.wire import pack_header, unpack_header
from solverkit.errors import ConfigError, ProtocolError, TransportError
from solverkit.poker.gamedef import BUNDLED_DIR
from solverkit_transports.gamefiles import pack_files, unpack_files
from solverkit_transports.keys import WorkerKeys, load_trunk_keys, load_worker_keys, make_keys
from solverkit_transports.protocol import PROTOCOL
from solverkit_transports.worker import EXIT_LOST, Worker

from .zmq_peers import STATS, fake_worker

LEDUC = {"name": "leduc", "split_round": 1, "chunks": 2}
FAST = {"heartbeat": 0.1, "timeout": 4.0, "connect_timeout": 30.0}
HELLO = {"type": "hello", "protocol": PROTOCOL, "solverkit": __version__, "host": "rogue", "pid": 666, "threads": 1}


def config(transport=None, iterations=4, game=None, **extra):
    return {"preset": "cfr_plus", "game": dict(game or LEDUC), "solver": {"iterations": iterations, "eval_every": 1},
            **({"transport": transport} if transport else {}), **extra}


def one_worker(**transport):
    return {"name": "zmq", "workers": 1, **FAST, **transport}


@pytest.fixture(scope="module")
def keydir(tmp_path_factory):
    d = tmp_path_factory.mktemp("keys") / "k"
    make_keys(d, workers=2)
    return d


def _worker_thread(asm, worker_cls=Worker, before=None, **kwargs):
    """Run a worker of `worker_cls` in a thread once the trunk of `asm` has bound its socket."""
    box = {}

    def run():
        while asm.transport.endpoint is None:
            time.sleep(0.01)
        if before is not None:
            before()
        box["status"] = worker_cls(asm.transport.endpoint, 1, wait=30, log=lambda text: None, **kwargs).run()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, box


@contextlib.contextmanager
def _started(asm):
    """A Solver of `asm` started in a thread (the caller brings its workers); yields a
    function that waits for it."""
    box = {}

    def start():
        try:
            box["solver"] = Solver(asm)
        except BaseException as exc:  # noqa: BLE001 - re-raised by wait()
            box["error"] = exc

    thread = threading.Thread(target=start)
    thread.start()
    while asm.transport.endpoint is None and thread.is_alive():
        time.sleep(0.01)

    def wait():
        thread.join(60)
        if "error" in box:
            raise box["error"]
        return box["solver"]

    try:
        yield wait
    finally:
        thread.join(60)
        if "solver" in box:
            box["solver"].close()


def _dealer(ctx, endpoint, curve=None):
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.RCVTIMEO, 1500)
    sock.setsockopt(zmq.SNDTIMEO, 1000)
    if curve is not None:
        public, secret, server = curve
        sock.curve_publickey, sock.curve_secretkey, sock.curve_serverkey = public, secret, server
    sock.connect(endpoint)
    return sock


# --- keys ------------------------------------------------------------------------------------------


def test_keys_command_writes_private_pairs_refuses_to_overwrite_and_says_how_to_use_them(tmp_path):
    d = tmp_path / "keys"
    res = CliRunner().invoke(cli, ["keys", str(d), "--workers", "2"])
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in d.iterdir()) == ["trunk.key", "trunk.key_secret", "worker-1.key",
                                                   "worker-1.key_secret", "worker-2.key", "worker-2.key_secret"]
    for secret in d.glob("*.key_secret"):
        assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    assert f'[transport] keys = "{d}"' in res.output and "solverkit worker --connect" in res.output
    trunk = load_trunk_keys(d)
    assert len(trunk.allowed) == 2 and trunk.public not in trunk.allowed
    worker = load_worker_keys(d, "worker-2")
    assert worker.server == trunk.public and worker.public in trunk.allowed
    res = CliRunner().invoke(cli, ["keys", str(d)])
    assert res.exit_code == 2 and "already holds keys" in res.output and "--force" in res.output
    assert load_trunk_keys(d).public == trunk.public
    res = CliRunner().invoke(cli, ["keys", str(d), "--force"])
    assert res.exit_code == 0, res.output
    fresh = load_trunk_keys(d)
    assert fresh.public != trunk.public and len(fresh.allowed) == 1  # worker-2 left the allow-list


def test_missing_unreadable_or_malformed_key_files_are_named_with_the_fix(tmp_path, keydir):
    d = tmp_path / "k"
    shutil.copytree(keydir, d)
    with pytest.raises(ConfigError, match=r"\[transport\] keys = '/nowhere': no such directory; make keys with "
                                          r"`solverkit keys DIR`"):
        load_trunk_keys("/nowhere")
    with pytest.raises(ConfigError, match=r"--keys '.*': expected one worker secret key file .* found several "
                                          r"\(worker-1, worker-2\): pick one with --key-name"):
        load_worker_keys(d)
    (d / "trunk.key").write_text("curve\n    public-key = \"short\"\n")
    with pytest.raises(ConfigError, match=rf"key file {d}/trunk.key: public-key is not a 40-character Z85"):
        load_worker_keys(d, "worker-1")
    (d / "worker-1.key_secret").write_bytes(b"\xff\xfe garbage")
    with pytest.raises(ConfigError, match=rf"key file {d}/worker-1.key_secret cannot be read \(No public key found"):
        load_worker_keys(d, "worker-1")
    os.chmod(d / "trunk.key_secret", 0o644)
    with pytest.raises(ConfigError, match=rf"secret key file {d}/trunk.key_secret is readable by other users "
                                          r"\(mode 0644\): run `chmod 600"):
        load_trunk_keys(d)
    (d / "trunk.key_secret").unlink()
    with pytest.raises(ConfigError, match=rf"key file {d}/trunk.key_secret not found; make keys with "
                                          r"`solverkit keys DIR`"):
        load_trunk_keys(d)
    res = CliRunner().invoke(cli, ["worker", "--connect", "tcp://127.0.0.1:1", "--keys", str(tmp_path / "none")])
    assert res.exit_code == 2 and "no such directory; make keys with `solverkit keys DIR`" in res.output


@pytest.mark.parametrize("bind", ["tcp://*:5555", "tcp://0.0.0.0:5555", "tcp://10.1.2.3:5555", "tcp://[::]:5555",
                                  "tcp://trunk.example.org:5555", "tcp://eth0:5555"])
def test_a_bind_beyond_this_machine_needs_keys(bind):
    with pytest.raises(ConfigError, match=r"reaches beyond this machine and \[transport\] keys is not set: .*"
                                          r"`solverkit keys DIR`, set \[transport\] keys = \"DIR\""):
        load_config(config(one_worker(bind=bind)))
    load_config(config(one_worker(bind=bind, keys="/some/dir")))  # checked when the trunk starts


@pytest.mark.parametrize("bind", ["tcp://127.0.0.1:0", "tcp://127.3.4.5:0", "tcp://localhost:0", "tcp://[::1]:0",
                                  "ipc:///tmp/solverkit-test.sock"])
def test_loopback_and_ipc_binds_need_no_keys(bind):
    load_config(config(one_worker(bind=bind)))


# --- who may join ----------------------------------------------------------------------------------


@pytest.mark.slow  # (CI time)
def test_a_peer_without_the_run_keys_cannot_join_or_disturb_a_keyed_run(keydir):
    asm = load_config(config(one_worker(keys=str(keydir), bind="tcp://127.0.0.1:0"), **{"solver": {
        "iterations": 4, "eval_every": 1}}))
    reference = Solver(load_config(config()))
    ctx = zmq.Context()
    try:
        with _started(asm) as wait:
            plain = _dealer(ctx, asm.transport.endpoint)
            public, secret = zmq.curve_keypair()  # a valid CURVE key that is not on the allow-list
            stranger = _dealer(ctx, asm.transport.endpoint, (public, secret, load_trunk_keys(keydir).public))
            for sock in (plain, stranger):
                with contextlib.suppress(zmq.Again):  # may block: the connection never opens
                    sock.send(pack_header(HELLO))
                    sock.send(b"\xc1junk")
            for sock in (plain, stranger):  # no setup, no error: the connection never opens
                with pytest.raises(zmq.Again):
                    sock.recv_multipart()
            thread, box = _worker_thread(asm, keys=load_worker_keys(keydir, "worker-1"))
            solver = wait()
            for sock in (plain, stranger):
                with contextlib.suppress(zmq.Again):
                    sock.send(pack_header(HELLO))
            for _ in range(4):
                solver.step()
                reference.step()
            assert solver.evaluate(exact=True) == {**reference.evaluate(exact=True), "seconds": solver.solve_seconds}
            assert [w.host for w in solver.transport._workers.values()] != ["rogue"]
        thread.join(20)
        assert box["status"] == 0
    finally:
        reference.close()
        ctx.destroy(0)


@pytest.mark.parametrize("case, says", [
    ("unlisted", "the trunk refused this worker's key (not on its allow-list"),
    ("other_trunk", "the CURVE handshake failed (is trunk.key the key of the trunk at this address?)"),
])
@pytest.mark.slow  # (CI time)
def test_a_worker_with_an_unlisted_key_or_another_trunks_key_is_never_served_and_says_why(keydir, tmp_path, case,
                                                                                           says):
    other = tmp_path / "other"
    make_keys(other)
    keys = load_worker_keys(other)
    if case == "unlisted":  # the right trunk, a key of its own that the trunk does not list
        keys = WorkerKeys(keys.public, keys.secret, load_trunk_keys(keydir).public, keys.name)
    asm = load_config(config(one_worker(keys=str(keydir), connect_timeout=3.0)))
    said = []
    box = {}

    def run():
        while asm.transport.endpoint is None:
            time.sleep(0.01)
        box["status"] = Worker(asm.transport.endpoint, 1, wait=3.0, log=said.append, keys=keys).run()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    with pytest.raises(TransportError, match=r"0 of 1 zmq workers ready after 3 s"):
        Solver(asm)
    thread.join(40)
    assert box["status"] == EXIT_LOST
    assert sum(says in line for line in said) == 1, said


def test_a_peer_that_breaks_off_before_it_is_ready_is_dropped_and_the_run_goes_on():
    """Loopback without keys: a hello is a worker only once it is ready; junk or an error before
    then lets it go, its share goes to the next worker, and the run is unharmed."""
    asm = load_config(config(one_worker()))
    ctx = zmq.Context()
    try:
        with _started(asm) as wait:
            replies = []
            for last in (b"\xc1junk", pack_header({"type": "error", "id": 1, "message": "boom", "traceback": ""})):
                rogue = _dealer(ctx, asm.transport.endpoint)
                rogue.setsockopt(zmq.RCVTIMEO, 10000)
                rogue.send(pack_header(HELLO))
                setup = unpack_header(rogue.recv_multipart()[0], "test")
                assert setup["type"] == "setup" and setup["keys"]
                rogue.send(last)
                replies.append(unpack_header(rogue.recv_multipart()[0], "test"))
            assert "dropped before it was ready: message to the trunk: malformed header" in replies[0]["message"]
            assert "dropped before it was ready: boom" in replies[1]["message"]
            thread, box = _worker_thread(asm)
            solver = wait()
            assert [w.host for w in solver.transport._workers.values()] != ["rogue"]
            assert len(solver.transport._dropped) == 2
            assert sum(len(w.keys) for w in solver.transport._workers.values()) == 10
            solver.step()
            assert np.isfinite(solver.evaluate(exact=True)["exploitability"])
    finally:
        ctx.destroy(0)


@pytest.mark.slow  # (CI time: runs with -m slow)
def test_a_peer_silent_after_its_hello_is_dropped_and_a_real_worker_takes_its_share():
    """Loopback without keys: a peer that says hello, takes its setup and then says nothing
    holds the only share for no longer than [transport] timeout; the worker that comes next
    (sending heartbeats while it builds the game) takes it and the run goes on."""
    asm = load_config(config(one_worker(timeout=3.0)))
    ctx = zmq.Context()
    try:
        with _started(asm) as wait:
            rogue = _dealer(ctx, asm.transport.endpoint)
            rogue.setsockopt(zmq.RCVTIMEO, 10000)
            rogue.send(pack_header(HELLO))
            assert unpack_header(rogue.recv_multipart()[0], "test")["type"] == "setup"
            t0 = time.monotonic()
            dropped = unpack_header(rogue.recv_multipart()[0], "test")  # silent from here on
            assert 3.0 <= time.monotonic() - t0 < 6.0
            assert "dropped before it was ready: silent for 3." in dropped["message"]
            assert "[transport] timeout 3 s; a worker sends heartbeats while it sets up" in dropped["message"]
            thread, box = _worker_thread(asm)
            solver = wait()
            assert [w.host for w in solver.transport._workers.values()] != ["rogue"]
            assert len(solver.transport._dropped) == 1 and "rogue:666: silent for" in solver.transport._dropped[0]
            solver.step()
            assert np.isfinite(solver.evaluate(exact=True)["exploitability"])
    finally:
        ctx.destroy(0)


def test_a_peer_that_keeps_saying_hello_after_its_setup_is_dropped():
    """A peer that answers its setup with more hellos (a worker stops once its setup arrives)
    holds the share for [transport] timeout only; a real worker then takes it."""
    asm = load_config(config(one_worker(timeout=2.0)))
    ctx = zmq.Context()
    try:
        with _started(asm) as wait:
            rogue = _dealer(ctx, asm.transport.endpoint)
            rogue.send(pack_header(HELLO))
            assert unpack_header(rogue.recv_multipart()[0], "test")["type"] == "setup"
            t0, reply = time.monotonic(), None
            while reply is None and time.monotonic() - t0 < 10:
                rogue.send(pack_header(HELLO))
                if rogue.poll(300):
                    reply = unpack_header(rogue.recv_multipart()[0], "test")
            assert reply is not None and 2.0 <= time.monotonic() - t0 < 6.0
            assert "dropped before it was ready: still saying hello 2." in reply["message"]
            assert "after its setup was sent ([transport] timeout 2 s)" in reply["message"]
            rogue.send(pack_header(HELLO))  # and it cannot come back for another share
            again = unpack_header(rogue.recv_multipart()[0], "test")
            assert again["type"] == "error" and "this peer was dropped before it was ready" in again["message"]
            thread, box = _worker_thread(asm)
            solver = wait()
            assert [w.host for w in solver.transport._workers.values()] != ["rogue"]
    finally:
        ctx.destroy(0)


def test_a_worker_beats_while_it_sets_up():
    """A worker's setup that outlasts the trunk's timeout (a big game, kernels to compile) is not
    silence: it sends heartbeats from its socket's thread while the setup runs on another."""
    from solverkit_transports import worker as worker_module

    asm = load_config(config(one_worker(timeout=1.0, heartbeat=0.1)))
    slow = worker_module.Worker._build

    def slow_build(self, *args):
        time.sleep(2.5)  # 2.5 x the timeout
        return slow(self, *args)

    ctx = zmq.Context()
    try:
        with _started(asm) as wait:
            with pytest.MonkeyPatch.context() as mp:
                mp.setattr(worker_module.Worker, "_build", slow_build)
                thread, box = _worker_thread(asm)
                solver = wait()
            assert not solver.transport._dropped
            solver.step()
    finally:
        ctx.destroy(0)


def test_the_connect_timeout_names_the_peers_it_dropped():
    asm = load_config(config(one_worker(connect_timeout=2.0)))
    ctx = zmq.Context()
    try:
        with pytest.raises(TransportError, match=r"0 of 1 zmq workers ready after 2 s .* \(dropped before ready: "
                                                 r"rogue:666: sent 'result' \(id 7\) instead of 'ready' to its setup\)"):
            with _started(asm) as wait:
                rogue = _dealer(ctx, asm.transport.endpoint)
                rogue.send(pack_header(HELLO))
                rogue.recv_multipart()  # its setup
                rogue.send(pack_header(HELLO))  # a repeated hello is ignored (it may cross the setup)
                rogue.send(pack_header({"type": "result", "id": 7}))
                wait()
    finally:
        ctx.destroy(0)


# --- what comes back -------------------------------------------------------------------------------




def _result(h, values, **over):
    header = {"type": "result", "id": h["id"], "keys": h["keys"], "shape": _out(h), "dtype": "<f8", **STATS}
    return [pack_header({**header, **over}), np.ascontiguousarray(values, dtype="<f8").tobytes()]


def _out(h):
    """The shape of a result to pass `h`: the updated player's values only ([n, 1, hands])."""
    n, _, hands = h["shape"]
    return [n, 1, hands]


def _poisoned(value):
    def answer(h):
        values = np.zeros(_out(h))
        values[1, 0, 2] = value
        return _result(h, values)
    return answer


@pytest.mark.parametrize("answer, message", [
    (_poisoned(np.nan), r"result from zmq worker evil:13: array value at \[1, 0, 2\] = nan: expected finite"),
    (_poisoned(np.inf), r"result from zmq worker evil:13: array value at \[1, 0, 2\] = inf: expected finite"),
    (lambda h: _result(h, np.zeros(_out(h))[:, :, :-1]),
     r"result from zmq worker evil:13: array frame of \d+ bytes, expected \d+ \(float64 \[10, 1, 6\]\)"),
    (lambda h: _result(h, np.zeros((10, 2, 6)), shape=[10, 2, 6]),
     r"result from zmq worker evil:13: field 'shape' = \[10, 2, 6\] is invalid: expected \[10, 1, 6\]"),
    (lambda h: _result(h, np.zeros(_out(h)), keys=h["keys"][::-1]),
     r"result from zmq worker evil:13: keys .* are not the 10 keys sent"),
    (lambda h: _result(h, np.zeros(_out(h)), dtype="<f4"),
     r"result from zmq worker evil:13: field 'dtype' = '<f4' is invalid"),
])
def test_a_worker_returning_non_finite_or_wrongly_shaped_values_is_rejected(answer, message):
    asm = load_config(config(one_worker()))
    with _started(asm) as wait:
        fake = fake_worker(asm.transport.endpoint, answer, host="evil", pid=13, timeout_ms=20000)
        solver = wait()
        with pytest.raises(TransportError, match=message):
            solver.step()
    fake.join(20)


class _Zeros(Worker):
    """A worker that answers every subgame with zeros (and never updates its values)."""

    def _one(self, i, key, job, reach, out):
        out[i] = 0.0


def test_a_worker_returning_zeros_cannot_make_the_run_report_target_reached(tmp_path):
    """Its evaluation says 0.001 chips after 30 iterations (the true value is 2.7): the target is
    confirmed on the trunk from the stored strategy, which disagrees, and the run stops."""
    asm = load_config(config(one_worker(), iterations=40))
    thread, _ = _worker_thread(asm, worker_cls=_Zeros)
    seen = []
    with pytest.raises(TransportError, match=r"the zmq workers' evaluation at iteration \d+ gives br_0 = .*, but the "
                                             r"same strategy \(the workers' stored values, read and evaluated here\) "
                                             r"gives .*: a worker computes wrong values"):
        run_solve(asm, target=0.01, out=tmp_path / "run", on_metrics=seen.append)
    assert not (tmp_path / "run" / "result.json").exists()
    assert all(row["exploitability"] > 0.01 for row in seen)  # no row below the target was ever written
    thread.join(20)


def test_an_honest_zmq_run_reports_the_confirmed_target(tmp_path):
    local = run_solve(load_config(config(iterations=200)), target=0.3)
    remote = run_solve(load_config(config(one_worker(spawn=1), iterations=200)), target=0.3)
    assert remote.reached_target and remote.stop_reason.startswith("target reached")
    assert (remote.iterations, remote.exploitability, remote.br) == (local.iterations, local.exploitability, local.br)


# --- worker limits and game files ------------------------------------------------------------------


def test_a_worker_caps_message_sizes_whatever_the_trunk_says():
    ctx = zmq.Context()
    router = ctx.socket(zmq.ROUTER)
    router.setsockopt(zmq.LINGER, 0)
    router.setsockopt(zmq.RCVTIMEO, 10000)
    endpoint = f"tcp://127.0.0.1:{router.bind_to_random_port('tcp://127.0.0.1')}"
    worker = Worker(endpoint, 1, wait=3.0, log=lambda text: None, max_message=1 << 20)
    assert worker.sock.getsockopt(zmq.MAXMSGSIZE) == 1 << 20
    box = {}
    thread = threading.Thread(target=lambda: box.setdefault("status", worker.run()), daemon=True)
    try:
        thread.start()
        ident, hello = router.recv_multipart()
        assert unpack_header(hello, "test")["type"] == "hello"
        router.send_multipart([ident, pack_header({"type": "setup", "id": 1, "pad": b"x" * (2 << 20)})])
        thread.join(20)
        assert box["status"] == EXIT_LOST  # the oversized setup dropped the connection; none came in time
    finally:
        ctx.destroy(0)
    res = CliRunner().invoke(cli, ["worker", "--help"])
    assert "--max-message" in res.output and "--keys" in res.output


def _game_file(tmp_path) -> Path:
    from importlib import resources

    path = tmp_path / "mine.game"
    path.write_text(resources.files("solverkit.poker").joinpath(BUNDLED_DIR, "leduc.game").read_text())
    return path


def test_game_files_travel_as_content_and_a_worker_opens_no_path_the_trunk_names(tmp_path):
    from solverkit_matrix.games import MatrixFile
    from solverkit_poker.games import AcpcGame

    path = _game_file(tmp_path)
    packed = pack_files(AcpcGame, {"name": "acpc", "gamedef": str(path), "split_round": 1})
    assert packed["gamedef"] == {"file": "mine.game", "content": path.read_bytes()}
    mine = tmp_path / "worker"
    mine.mkdir()
    got = unpack_files(packed, mine)
    assert got["gamedef"] == str(mine / "gamedef.game") and Path(got["gamedef"]).read_bytes() == path.read_bytes()
    assert pack_files(AcpcGame, {"name": "acpc", "gamedef": "leduc"})["gamedef"] == "leduc"  # a bundled name
    assert unpack_files({"name": "acpc", "gamedef": "leduc"}, mine)["gamedef"] == "leduc"
    for table in ({"name": "acpc", "gamedef": str(path)}, {"name": "acpc", "gamedef": "../x.game"},
                  {"name": "matrix_file", "path": "/etc/passwd"},
                  {"name": "openspiel", "game": "efg_game(filename=/etc/passwd)"}):
        with pytest.raises(ProtocolError, match=r"setup: \[game\] \w+ = .* names a file on this machine; a trunk "
                                                r"sends game files as content"):
            unpack_files(table, mine)
    with pytest.raises(ProtocolError, match=r"setup: \[game\] split_round: file content for a parameter that takes"):
        unpack_files({"name": "acpc", "gamedef": "leduc", "split_round": {"file": "x", "content": b""}}, mine)
    with pytest.raises(ConfigError, match=r"\[game\] path = '/nonexistent.npy': cannot read the file to send it"):
        pack_files(MatrixFile, {"name": "matrix_file", "path": "/nonexistent.npy"})


def test_a_zmq_run_of_a_game_file_works_after_the_file_is_gone(tmp_path):
    """The worker builds the game from the content in its setup: the file it would have
    opened is deleted before it connects, and the numbers are the local transport's."""
    path = _game_file(tmp_path)
    game = {"name": "acpc", "gamedef": str(path), "split_round": 1}
    local = run_solve(load_config(config(game=game)))
    asm = load_config(config(one_worker(), game=game))
    thread, box = _worker_thread(asm, before=path.unlink)
    remote = run_solve(asm)
    thread.join(20)
    assert not path.exists() and box["status"] == 0
    assert [r["exploitability"] for r in remote.metrics] == [r["exploitability"] for r in local.metrics]
