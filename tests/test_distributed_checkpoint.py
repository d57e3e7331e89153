"""Distributed checkpoints and strategy ([transport] checkpoint = "distributed"): every zmq
worker writes and restores its own segments as a part file, the trunk writes a manifest naming
them; runs resumed or rolled back from them end as an uninterrupted local run, bit for bit; a
damaged or missing part is refused naming it; `solverkit strategy RUN --infoset KEY` reads one
information set from the part that holds it, or from its slice of strategy.npz."""

from __future__ import annotations

import json
import time

import msgpack
import pytest
from click.testing import CliRunner

import solverkit
from solverkit.cli import cli
from solverkit.core import solver as solver_module
from solverkit.core.checkpoint import read_footer
from solverkit.core.config import load_config
from solverkit.core.parts import open_part
from solverkit.core.solver import run_solve
from solverkit.core.strategy_query import read_infoset
from solverkit.errors import SolverkitError, TransportError

from .test_zmq_faults import _kill, assert_same_outputs
from .test_zmq_transport import ZMQ2, config

ITERATIONS = 12
DIST = {**ZMQ2, "checkpoint": "distributed"}


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The uninterrupted local run."""
    out = tmp_path_factory.mktemp("reference") / "local"
    run_solve(load_config(config(iterations=ITERATIONS)), out=out)
    return out


@pytest.fixture(scope="module")
def stopped(tmp_path_factory):
    """A distributed run stopped at iteration 7 with checkpoints every 3 (the last at 7)."""
    out = tmp_path_factory.mktemp("stopped") / "out"
    run_solve(load_config(config(DIST, iterations=7)), out=out, checkpoint_every="3")
    return out


def _copy(src, dst):
    import shutil

    shutil.copytree(src, dst)
    return dst


def _resume(out, *extra):
    return CliRunner().invoke(cli, ["solve", "--resume", str(out), "--iterations", str(ITERATIONS), "--quiet",
                                    *extra])


def test_a_distributed_checkpoint_names_every_part_and_resumes_to_the_uninterrupted_run(stopped, reference, tmp_path):
    footer = read_footer(stopped / "checkpoint.skc")
    parts = footer["parts"]
    assert [p["owner"] for p in parts] == ["w0000", "w0001"]
    assert sum(len(p["segments"]) for p in parts) == 10  # every subgame in a worker's part
    assert [k for k, _ in footer["segments"]] == ["trunk"]  # the manifest holds the trunk's own
    # the previous checkpoint's parts are gone once the manifest names newer ones
    on_disk = sorted(p.name for p in (stopped / "checkpoint.d").glob("*.skp"))
    assert on_disk == sorted(p["file"] for p in parts)
    for p in parts:
        part = open_part(stopped / "checkpoint.d" / p["file"], p, kind="checkpoint", run=footer["run"])
        assert part["iteration"] == 7 and sorted(part["_offsets"]) == sorted(p["segments"])
    out = _copy(stopped, tmp_path / "out")
    res = _resume(out)
    assert res.exit_code == 0, res.output
    assert_same_outputs(out, reference)


def test_a_distributed_checkpoint_resumes_in_one_process_too(stopped, reference, tmp_path):
    """The parts are read by the trunk itself when the resumed run has no workers."""
    out = _copy(stopped, tmp_path / "out")
    run_solve(load_config(config(iterations=ITERATIONS)), out=out, resume=True)
    assert_same_outputs(out, reference)


@pytest.mark.slow  # (CI time: runs with -m slow)
def test_a_worker_killed_after_a_distributed_checkpoint_is_replaced_and_the_run_ends_identical(
        tmp_path, reference, monkeypatch):
    asm = load_config(config(DIST, iterations=ITERATIONS))
    t = asm.transport
    moved = {"fetch": 0, "put": 0}
    saving = {"on": False}
    orig_save, orig_fetch, orig_put = solver_module.Solver.save_checkpoint, t.fetch, t.put

    def save_checkpoint(self, path, metrics):
        saving["on"] = True
        try:
            return orig_save(self, path, metrics)
        finally:
            saving["on"] = False

    def fetch(segment, names=None):
        moved["fetch"] += saving["on"]
        return orig_fetch(segment, names)

    def put(segment, blobs):
        moved["put"] += 1
        return orig_put(segment, blobs)

    monkeypatch.setattr(solver_module.Solver, "save_checkpoint", save_checkpoint)
    monkeypatch.setattr(t, "fetch", fetch)
    monkeypatch.setattr(t, "put", put)
    killed = []

    def on_metrics(row):
        if row["iteration"] == 7 and not killed:
            killed.append(_kill(next(iter(t._workers.values()))))

    out = tmp_path / "out"
    t0 = time.monotonic()
    run_solve(asm, out=out, checkpoint_every="3", on_metrics=on_metrics)
    assert len(killed) == 1
    assert_same_outputs(out, reference)
    (record,) = json.loads((out / "result.json").read_text())["recoveries"]
    assert f":{killed[0]} exited with status -9" in record["lost"] or f":{killed[0]} cannot be reached" in record["lost"]
    assert record["resumed_from"] == 6
    # no worker segment went through the trunk: saved and restored by their owners
    assert moved == {"fetch": 0, "put": 0}
    assert time.monotonic() - t0 < 120


def _damage(path, how):
    if how == "missing":
        path.unlink()
    elif how == "flipped":
        data = bytearray(path.read_bytes())
        data[len(data) // 2] ^= 0xFF
        path.write_bytes(bytes(data))
    else:  # truncated
        path.write_bytes(path.read_bytes()[:-10])


@pytest.mark.parametrize("how, transport", [("missing", DIST), pytest.param("flipped", DIST, marks=pytest.mark.slow),
                                             ("truncated", None)],
                         ids=["missing-workers", "flipped-workers", "truncated-local"])
def test_a_damaged_or_missing_part_is_refused_naming_it(stopped, tmp_path, how, transport):
    out = _copy(stopped, tmp_path / "out")
    part = read_footer(out / "checkpoint.skc")["parts"][1]
    path = out / "checkpoint.d" / part["file"]
    _damage(path, how)
    expect = {"missing": "is missing", "flipped": "checksum mismatch against its manifest",
              "truncated": f"has {part['bytes'] - 10} bytes, its manifest says {part['bytes']}"}[how]
    with pytest.raises((SolverkitError, TransportError)) as info:
        run_solve(load_config(config(transport, iterations=ITERATIONS)), out=out, resume=True)
    message = str(info.value)
    assert str(path) in message and expect in message and f"worker {part['worker']}" in message


@pytest.mark.slow  # (CI time: 8 s; the other distributed-checkpoint tests stay in the default run)
def test_the_strategy_query_reads_exactly_the_local_runs_policy(stopped, reference, tmp_path):
    out = _copy(stopped, tmp_path / "out")
    assert _resume(out).exit_code == 0
    (out / "strategy.npz").unlink()  # the query reads the parts alone
    game = load_config(reference / "config.toml").game
    npz = dict(load_npz(reference))
    for p in (0, 1):
        for i, key in enumerate(game.infoset_keys(p)):
            if i % 5:
                continue
            if _impossible(key):  # a hand card on the board: refused, no invented policy
                with pytest.raises(SolverkitError, match=r"is impossible: card \w\w is both in the hand and in the board"):
                    read_infoset(out, key, game=game)
                continue
            got = read_infoset(out, key, game=game)
            place = game.infoset_place(key)
            want = npz[f"policy{p}"][place.offset:place.offset + len(place.labels)]
            assert got.player == p and list(got.probabilities.values()) == want.tolist()
            assert got.source.suffix == (".skm" if place.segment == "trunk" else ".sks")
            assert solverkit.read_policy(reference, key) == got.probabilities  # strategy.npz, read in place
    res = CliRunner().invoke(cli, ["strategy", str(out), "--infoset", "As|Kh|cc/r", "--infoset", "Kh||", "--json"])
    assert res.exit_code == 0, res.output
    lines = [json.loads(line) for line in res.output.splitlines()]
    assert [x["infoset"] for x in lines] == ["As|Kh|cc/r", "Kh||"] and lines[0]["player"] == 1
    assert lines[0]["policy"] == solverkit.read_policy(reference, "As|Kh|cc/r")
    assert lines[1]["policy"] == solverkit.read_policy(reference, "Kh||") and lines[1]["iteration"] == ITERATIONS
    text = CliRunner().invoke(cli, ["strategy", str(out), "--infoset", "Kh||"]).output
    assert text.startswith("Kh||  (player 0, average strategy after iteration 12)\n  c  ")


def _impossible(key):
    """Whether a Leduc key's hand card is also its board card (its layout keeps a slot for it)."""
    hand, board, _ = key.split("|")
    return bool(board) and hand == board


def load_npz(run_dir):
    import numpy as np

    with np.load(run_dir / "strategy.npz") as data:
        for name in data.files:
            yield name, data[name]


@pytest.mark.parametrize("key, message", [
    ("As|Kh", r"key 'As\|Kh' of game 'leduc' is invalid: expected '<hand>\|<board>\|<betting>', like 'Qh\|\|'"),
    ("Ax|Kh|cc/r", r"information set 'Ax\|Kh\|cc/r': hand 'Ax': bad card 'Ax': not a card of the game's deck"),
    ("As|Kc|cc/r", r"board 'Kc': bad card 'Kc': not a card of the game's deck of 6 cards: ranks QKA, suits hs"),
    ("As|Kh|cc/x", r"betting 'cc/x' is not a point of game 'leduc' where a player acts; close matches: 'cc/'"),
    ("As||cc/r", r"board '' is 0 letters; expected 1 card\(s\) of two letters \(rank, suit\) \(betting 'cc/r' is "
                 r"in round 1\), like 'Qs\|Qh\|cc/r'"),
    ("Kh|Kh|cc/r", r"information set 'Kh\|Kh\|cc/r' is impossible: card Kh is both in the hand and in the board"),
])
def test_bad_keys_are_refused_with_close_matches(reference, key, message):
    with pytest.raises(SolverkitError, match=message):
        solverkit.read_policy(reference, key)
    res = CliRunner().invoke(cli, ["strategy", str(reference), "--infoset", key])
    assert res.exit_code == 2 and "Error: " in res.output


def test_a_missing_strategy_part_is_named_with_its_worker(stopped, tmp_path):
    out = _copy(stopped, tmp_path / "out")
    assert _resume(out).exit_code == 0
    top = open_part(out / "strategy.skm", kind="strategy")
    part = top["parts"][0]
    (out / "checkpoint.d" / part["file"]).unlink()
    key = _key_in(out, part["segments"][0])
    with pytest.raises(SolverkitError, match=rf"part .*{part['file']} \(written by worker {part['worker']} "
                                             rf"\(w0000, .*\) is missing"):
        solverkit.read_policy(out, key)


def _key_in(out, segment):
    game = load_config(out / "config.toml").game
    for p in (0, 1):
        for key in game.infoset_keys(p):
            if not _impossible(key) and game.infoset_place(key).segment == segment:
                return key
    raise AssertionError(segment)


def test_a_worker_without_a_checkpoint_dir_is_refused_by_a_distributed_run(tmp_path):
    from .test_zmq_transport import _worker_of_fake_trunk
    from solverkit.core.wire import pack_header, unpack_header
    from solverkit_transports.protocol import PROTOCOL

    asm = load_config(config(DIST))
    key = asm.game.subgame_keys()[0]
    with _worker_of_fake_trunk("--threads", "1") as (router, proc):
        ident, _ = router.recv_multipart()
        router.send_multipart([ident, pack_header({
            "type": "setup", "id": 1, "protocol": PROTOCOL, "config": asm.resolved, "keys": [list(key)],
            "addresses": [asm.game.subgame_address(key)], "segments": [asm.game.subgame_segment(key)],
            "run": "0" * 32, "heartbeat": 0.1, "timeout": 4.0, "parts": True})])
        while True:
            header = unpack_header(router.recv_multipart()[1], "test")
            if header["type"] != "hello":
                break
        assert header["type"] == "error" and "start the worker with --checkpoint-dir DIR" in header["message"]
        assert proc.wait(15) == 2


def test_manifest_parts_are_checked_field_by_field(stopped, tmp_path):
    """A manifest whose part record is malformed is refused naming the field (the footer's
    checksum is right: written by hand)."""
    import struct
    import zlib

    from solverkit.core.checkpoint import END, CheckpointError

    out = _copy(stopped, tmp_path / "out")
    path = out / "checkpoint.skc"
    raw = path.read_bytes()
    tail = struct.calcsize("<IQ") + len(END)
    _, flen = struct.unpack("<IQ", raw[-tail:-len(END)])
    footer = msgpack.unpackb(raw[-tail - flen:-tail], strict_map_key=False)
    footer["parts"][0]["file"] = "../../etc/passwd"
    packed = msgpack.packb(footer)
    path.write_bytes(raw[:-tail - flen] + packed + struct.pack("<IQ", zlib.crc32(packed), len(packed)) + END)
    with pytest.raises(CheckpointError, match=r"footer field parts\[0\]\.file = '\.\./\.\./etc/passwd' is invalid: "
                                              "expected a plain file name"):
        read_footer(path)


def test_the_query_reads_any_games_strategy_npz_in_place(tmp_path):
    """A game without a poker layout: the key is looked up among the game's own keys."""
    sol = solverkit.solve({"preset": "cfr_plus", "game": "kuhn_tree"}, iterations=50, out=tmp_path / "kuhn")
    for key in sol.policy_table:
        assert solverkit.read_policy(tmp_path / "kuhn", key) == sol.policy(key)
    with pytest.raises(SolverkitError, match=r"no information set 'As\|\|x' in game 'kuhn_tree'; close matches: "
                                             r"'As\|\|"):
        solverkit.read_policy(tmp_path / "kuhn", "As||x")


@pytest.mark.slow  # (CI time)
def test_a_replacement_that_cannot_see_the_lost_workers_part_stops_the_run_naming_it(tmp_path):
    """Checkpoints on each machine's own disk (a --checkpoint-dir per worker): a replacement
    elsewhere (here: a spare with a directory of its own) cannot restore the lost share."""
    from .test_zmq_faults import _free_port, _hand_worker, _stop

    endpoint = f"tcp://127.0.0.1:{_free_port()}"
    procs = [_hand_worker(endpoint, "--checkpoint-dir", str(tmp_path / f"disk{i}")) for i in range(3)]
    try:
        asm = load_config(config({**DIST, "spawn": 0, "bind": endpoint}, iterations=ITERATIONS))
        victim = {}

        def on_metrics(row):
            if row["iteration"] == 5 and not victim:
                members = {w.pid: w.name for w in asm.transport._workers.values()}
                proc = next(p for p in procs if p.pid in members)
                victim.update(pid=proc.pid, name=members[proc.pid])
                proc.kill()

        with pytest.raises(TransportError, match=r"part .*/disk\d/w000\d-000000003-[0-9a-f]{8}\.skp \(written by "
                                                 r"worker .*\) is missing on .*: a worker restores its segments from "
                                                 r"its --checkpoint-dir.*shared directory"):
            run_solve(asm, out=tmp_path / "out", checkpoint_every="3", on_metrics=on_metrics)
        assert victim
    finally:
        _stop(*procs)
