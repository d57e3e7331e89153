"""Fuzzing the zmq wire protocol both ways: header frames, fields, subgame keys, array frames and
jobs fed to the decoding functions of solverkit/core/wire.py and plugins/transports/protocol.py,
and random requests sent to a live ``solverkit worker`` (the fixture of test_zmq_transport.py).

Every bad message must end in a ProtocolError (or, from the worker, an ``error`` reply) whose one
line names the field; nothing else may escape, and the worker must keep computing afterwards.
"""

from __future__ import annotations

import math

import msgpack
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solverkit.core.config import load_config
from solverkit.core.game import PassJob
from solverkit.core.store import new_run_id
from solverkit.core.solver import make_store
from solverkit.core.wire import MAX_HEADER_BYTES, _KINDS, array_frame, check_array_header, field, pack_header, unpack_header
from solverkit.errors import ProtocolError
from solverkit_transports.protocol import PROTOCOL, key_from_wire

from .conftest import fuzz_examples

EXAMPLES = fuzz_examples(40)
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES < 100,
                suppress_health_check=[HealthCheck.too_slow])

# everything msgpack carries: nil, bools, 64-bit ints, floats (NaN and infinities too), text,
# bytes, lists and maps with string or integer keys
LEAF = st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**64 - 1), st.floats(), st.text(max_size=10),
                 st.binary(max_size=10))
MSGPACK = st.recursive(LEAF, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.one_of(st.text(max_size=6), st.integers(-5, 5)), inner, max_size=4)),
    max_leaves=12)


def one_line(exc: ProtocolError, *names) -> str:
    msg = str(exc)
    assert "\n" not in msg and msg, msg
    for n in names:
        assert n in msg, (n, msg)
    return msg


# --- header frames -------------------------------------------------------------------------------


@FUZZ
@given(raw=st.one_of(st.binary(max_size=200), MSGPACK.map(lambda v: msgpack.packb(v, use_bin_type=True)),
                     st.builds(lambda t, v: msgpack.packb({"type": t, "x": v}), st.one_of(LEAF, st.text()), MSGPACK)))
def test_any_header_frame_is_a_map_with_a_type_or_a_protocol_error(raw):
    try:
        header = unpack_header(raw, "fuzz")
    except ProtocolError as exc:
        one_line(exc, "fuzz")
        return
    assert isinstance(header, dict) and isinstance(header["type"], str)
    assert pack_header(header)  # what was accepted can be sent on


def test_oversized_and_extension_headers_are_refused():
    with pytest.raises(ProtocolError, match="exceeds the limit"):
        unpack_header(b"\x80" * (MAX_HEADER_BYTES + 1), "fuzz")
    with pytest.raises(ProtocolError, match="malformed header"):
        unpack_header(msgpack.packb({"type": "pass", "x": msgpack.ExtType(5, b"\x00")}), "fuzz")


# --- fields, keys and array frames ---------------------------------------------------------------


@FUZZ
@given(kind=st.sampled_from(sorted(_KINDS)), value=MSGPACK, present=st.booleans(),
       lo=st.one_of(st.none(), st.integers(-3, 3)), length=st.one_of(st.none(), st.integers(0, 3)))
def test_a_field_is_what_its_kind_says_or_a_protocol_error_naming_it(kind, value, present, lo, length):
    if length is not None and kind not in ("list", "int_list", "float_list", "str_list", "str"):
        length = None
    if lo is not None and kind not in ("int", "float", "int_list", "float_list"):
        lo = None
    data = {"f": value} if present else {}
    try:
        got = field(data, "f", "fuzz", kind, lo=lo, length=length)
    except ProtocolError as exc:
        one_line(exc, "fuzz", "'f'" if present else "missing field")
        return
    assert present and _KINDS[kind][0](got)
    if kind == "float":
        assert not math.isnan(got)
    if length is not None:
        assert len(got) == length
    if lo is not None:
        assert all(x >= lo for x in (got if isinstance(got, list) else [got]))


@FUZZ
@given(obj=MSGPACK)
def test_subgame_keys_are_int_tuples_or_strings_or_a_protocol_error(obj):
    try:
        key = key_from_wire(obj, "fuzz")
    except ProtocolError as exc:
        one_line(exc, "fuzz", "subgame key")
        return
    assert isinstance(key, str) or (isinstance(key, tuple) and key and all(type(x) is int for x in key))


@FUZZ
@given(buf=st.binary(max_size=120), shape=st.lists(st.integers(0, 4), min_size=1, max_size=3),
       declared=st.one_of(MSGPACK, st.lists(st.integers(0, 4), max_size=3)), dtype=st.one_of(MSGPACK, st.just("<f8")))
def test_array_frames_match_their_shape_are_finite_or_are_refused(buf, shape, declared, dtype):
    shape = tuple(shape)
    try:
        check_array_header({"shape": declared, "dtype": dtype}, shape, "fuzz")
        assert list(declared) == list(shape) and dtype == "<f8"
    except ProtocolError as exc:
        one_line(exc, "fuzz", "field")
    try:
        arr = array_frame(buf, shape, "fuzz", finite=True)
    except ProtocolError as exc:
        one_line(exc, "fuzz")
        assert len(buf) != 8 * math.prod(shape) or not np.isfinite(np.frombuffer(buf, "<f8")).all()
        return
    assert arr.shape == shape and np.isfinite(arr).all() and arr.dtype == np.dtype("<f8")


# --- jobs ------------------------------------------------------------------------------------------

LEDUC = {"preset": "cfr_plus", "game": {"name": "leduc", "split_round": 1, "chunks": 2}}


@pytest.fixture(scope="module")
def leduc():
    asm = load_config(LEDUC)
    pj = PassJob(3, (0,), asm.rule, asm.averaging)
    wire = unpack_header(pack_header({"type": "pass", "job": asm.game.job_to_wire((asm.game.kernel_job(pj), pj))}),
                         "test")["job"]
    return asm, wire


@st.composite
def mutated_job(draw, wire):
    """A job with one field replaced, deleted or added (kernel, pass or top level)."""
    job = {"kernel": dict(wire["kernel"]), "pass": dict(wire["pass"])}
    where = draw(st.sampled_from(["kernel", "pass", "top"]))
    table = job if where == "top" else job[where]
    action = draw(st.sampled_from(["replace", "delete", "add"]))
    key = draw(st.sampled_from(sorted(table)))
    if action == "replace":
        table[key] = draw(MSGPACK)
    elif action == "delete":
        del table[key]
    else:
        table[draw(st.text(min_size=1, max_size=6).filter(lambda k: k not in table))] = draw(MSGPACK)
    return draw(st.one_of(st.just(job), MSGPACK)) if draw(st.integers(0, 9)) == 0 else job


@FUZZ
@given(data=st.data())
def test_mutated_jobs_decode_to_valid_jobs_or_a_protocol_error(leduc, data):
    asm, wire = leduc
    job = data.draw(mutated_job(wire))
    try:
        kjob, pj = asm.game.job_from_wire(job, asm.rule, asm.averaging)
    except ProtocolError as exc:
        one_line(exc, "job")
        return
    assert kjob.source in ("regret", "avg") and len(kjob.coeffs) == 6
    assert not any(math.isnan(c) for c in kjob.coeffs)
    assert all(0 <= m <= 3 for m in (kjob.upd_mask, kjob.avg_mask, kjob.val_mask)) and -1 <= kjob.br_player <= 1
    assert pj is None or (pj.iteration >= 1 and pj.players in ((0,), (1,), (0, 1)))


# --- a live worker ---------------------------------------------------------------------------------


def _request(draw, good, keys, segment):
    """A request the worker must answer with an ``error`` (each is wrong in at least one field)."""
    kind = draw(st.sampled_from(["type", "pass_field", "pass_frames", "fetch", "put", "flush", "setup", "nonfinite",
                                 "parts"]))
    rid = draw(st.integers(100, 10**6))
    if kind == "type":
        t = draw(st.text(max_size=8).filter(lambda s: s not in ("pass", "fetch", "put", "flush", "stop", "setup",
                                                                 "heartbeat", "error", "save", "load", "strategy")))
        return {"type": t, "id": rid}, [], "unknown message type"
    if kind == "pass_field":
        name = draw(st.sampled_from(["job", "keys", "shape", "dtype", "extra"]))
        header = {**good, "id": rid, name: draw(MSGPACK.filter(lambda v: v != good.get(name)))}
        if name == "keys":  # a list of held keys is fine; anything else is not
            header["keys"] = draw(st.one_of(MSGPACK.filter(lambda v: not isinstance(v, list)),
                                            st.just([[999, 9, 9]]), st.just([keys[0], "nope"])))
        return header, [draw(st.binary(max_size=64))] if name != "shape" else [], "pass"
    if kind == "pass_frames":
        return {**good, "id": rid}, draw(st.lists(st.binary(max_size=32), max_size=3)), "pass"
    if kind == "nonfinite":
        return {**good, "id": rid}, ["nonfinite"], "expected finite numbers"
    if kind == "fetch" or kind == "put":
        header = {"type": kind, "id": rid, "segment": segment, "arrays": ["regret0"]}
        name = draw(st.sampled_from(["segment", "arrays", "id", "extra"]))
        header[name] = draw(MSGPACK.filter(lambda v: not (name == "arrays" and v in ([], ["regret0"]))
                                           and not (name == "id" and type(v) is int)))
        return header, [], kind
    if kind == "flush":
        return {"type": "flush", "id": draw(MSGPACK.filter(lambda v: type(v) is not int))}, [], "flush"
    if kind == "parts":  # a distributed checkpoint's requests: this worker has no --checkpoint-dir, any field
        t = draw(st.sampled_from(["save", "load", "strategy"]))
        fields = draw(st.dictionaries(st.sampled_from(["file", "iteration", "keep", "kind", "parts"]), MSGPACK,
                                      max_size=3))
        return {"type": t, "id": rid, **fields}, [], t
    return {"type": "setup", "id": rid, "protocol": PROTOCOL}, [], "already set up"


def test_a_live_worker_answers_random_bad_requests_and_keeps_computing():
    from .test_zmq_transport import ZMQ2, _worker_of_fake_trunk, config

    with _worker_of_fake_trunk("--threads", "1") as (router, proc):
        asm = load_config(config(ZMQ2))
        game = asm.game
        keys = game.subgame_keys()[:2]
        ident, _ = router.recv_multipart()

        def send(header, *frames):
            router.send_multipart([ident, pack_header(header), *frames])

        def reply():
            while True:
                frames = router.recv_multipart()
                header = unpack_header(frames[1], "test")
                if header["type"] != "heartbeat":
                    return header, frames[2:]

        send({"type": "setup", "id": 1, "protocol": PROTOCOL, "config": asm.resolved,
              "keys": [list(k) for k in keys], "addresses": [game.subgame_address(k) for k in keys],
              "segments": [game.subgame_segment(k) for k in keys], "run": new_run_id(), "heartbeat": 0.1,
              "timeout": 30.0})
        assert reply()[0]["type"] == "ready"
        H = game.tree.num_hands
        pj = PassJob(1, (0,), asm.rule, asm.averaging)
        good = {"type": "pass", "id": 7, "job": game.job_to_wire((game.kernel_job(pj), pj)),
                "keys": [list(k) for k in keys], "shape": [len(keys), 2, H], "dtype": "<f8"}
        reach = np.random.default_rng(0).random((len(keys), 2, H))

        @settings(max_examples=fuzz_examples(25), deadline=None, derandomize=True,
                  suppress_health_check=list(HealthCheck))
        @given(data=st.data())
        def probe(data):
            header, frames, expect = _request(data.draw, good, keys, game.subgame_segment(keys[0]))
            if frames == ["nonfinite"]:
                bad = reach.copy()
                bad.flat[data.draw(st.integers(0, bad.size - 1))] = data.draw(st.sampled_from([np.nan, np.inf, -np.inf]))
                frames = [bad]
            send(header, *frames)
            got, _ = reply()
            assert got["type"] == "error", (header, got)
            assert got["traceback"] == "" and "\n" not in got["message"], got  # a protocol error, not a crash
            # a header msgpack cannot map (integer keys) is refused before its fields are read
            assert expect in got["message"] or "malformed header" in got["message"], (expect, got["message"])
            unreadable = "malformed header" in got["message"]
            assert got["id"] == (header["id"] if type(header.get("id")) is int and not unreadable else None)

        probe()
        send(good, reach)  # still computing what the game computes
        result, frames = reply()
        assert result["type"] == "result"
        got = np.frombuffer(frames[0], dtype="<f8").reshape(len(keys), 1, H)  # player 0's values: an alternating pass
        store = make_store(asm)
        for i, key in enumerate(keys):
            np.testing.assert_array_equal(got[i], game.subgame_pass(key, (game.kernel_job(pj), pj), reach[i], store))
        send({"type": "stop", "id": 11})
        assert reply()[0]["type"] == "bye"
        assert proc.wait(10) == 0
