"""``[store] hold = "decoded"``: values kept decoded and rounded to the fixed point after every
update must give the numbers, the stored bytes and the checkpoints of a store held encoded."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solverkit.core import checkpoint as ckpt
from solverkit.core.codec import PREDICTORS, ValueCodec
from solverkit.core.config import load_config
from solverkit.core.solver import run_solve
from solverkit.core.store import SegmentSpec, Store
from solverkit.errors import ConfigError, SolverkitError

from .test_store import COMPRESSORS, random_grid

LEDUC = {"preset": "cfr_plus", "game": {"name": "leduc", "split_round": 1, "chunks": 2},
         "solver": {"iterations": 30, "eval_every": 3}}


def _rows(res):
    """Every metrics row but its timings and memory: what must be bit-identical."""
    return [{k: v for k, v in r.items() if k not in ("seconds", "peak_rss_mb")} for r in res.metrics]


@pytest.mark.parametrize("predictor", sorted(PREDICTORS))
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), scale=st.sampled_from([0.1, 0.75, 3.0, 16.0, 1e6, 1e12]))
def test_rounding_in_place_is_the_encode_decode_round_trip(predictor, seed, scale):
    """Same doubles and the same saturation count as encode + decode, for any predictor, any
    grid and factors that are not powers of two or that saturate."""
    rng = np.random.default_rng(seed)
    grid, n = random_grid(rng)
    x = rng.normal(0.0, 1e3, n) * rng.integers(0, 2, n)  # zeros among the values, as in regrets
    scales = np.array([scale, scale * 1.3])
    coded = ValueCodec(COMPRESSORS["zlib"](), {"regret": scales}, predictor=predictor)
    held = ValueCodec(COMPRESSORS["zlib"](), {"regret": scales}, predictor=predictor)
    want = coded.decode(coded.encode(x, grid, "regret"), grid, "regret", "test")
    got = x.copy()
    held.round_in_place(got, grid, "regret")
    np.testing.assert_array_equal(got.view(np.uint64), want.view(np.uint64))
    assert held.saturated == coded.saturated and held.saturated_by == coded.saturated_by
    assert held.clip_peak == pytest.approx(coded.clip_peak, rel=1e-12)  # what a clip warning suggests from
    again = got.copy()  # rounding what is already rounded changes nothing
    held.round_in_place(again, grid, "regret")
    np.testing.assert_array_equal(again, got)


def test_a_family_without_a_factor_is_left_as_it_is():
    codec = ValueCodec(COMPRESSORS["zlib"](), {"regret": np.array([16.0])})
    store = Store([SegmentSpec("s", {"avg0": 5})], codec, hold="decoded")
    x = np.array([0.1, 1 / 3, -2.5e-9, 7.0, np.pi])
    y = x.copy()
    codec.round_in_place(y, store.grid("s", "avg0"), "avg")
    np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("store, compressor, preset", [
    ({"regret_scale": 0.75, "avg_scale": [8, 16]}, {"name": "blosc2", "codec": "zstd", "level": 1}, "cfr_plus"),
    ({"regret_scale": [3, 0.5], "avg_scale": 16, "predictor": "gradient"}, {"name": "huffman"}, "cfr_plus"),
    ({"regret_scale": 16}, {"name": "zlib"}, "dcfr"),  # averages as float64, compressed
    ({"regret_scale": 256, "state_scale": 4, "avg_scale": 4096}, {"name": "huffman"}, "pcfr_plus"),  # rule state
])
def test_a_solve_held_decoded_is_bit_identical_to_one_held_encoded(store, compressor, preset):
    base = {**LEDUC, "preset": preset, "compressor": compressor}
    enc = run_solve(load_config({**base, "store": store}))
    dec = run_solve(load_config({**base, "store": {**store, "hold": "decoded"}}))
    assert _rows(dec) == _rows(enc)  # exploitability, nodes, stored_bytes and ratio at every row
    assert dec.stored_bytes == enc.stored_bytes and dec.compression_ratio == enc.compression_ratio
    assert dec.exploitability == enc.exploitability
    for p in (0, 1):
        np.testing.assert_array_equal(dec.strategy[p], enc.strategy[p])


def test_saturation_and_the_too_small_factor_are_reported_as_when_encoded(tmp_path):
    base = {"preset": "cfr_plus", "game": "kuhn", "solver": {"iterations": 20, "eval_every": 20}}
    tight = {"regret_scale": 1e9, "avg_scale": 1e9}  # kuhn's averages pass 2^31 units: clipped
    enc = run_solve(load_config({**base, "store": tight}), out=tmp_path / "enc")
    dec = run_solve(load_config({**base, "store": {**tight, "hold": "decoded"}}), out=tmp_path / "dec")
    clipped = [json.loads((tmp_path / d / "result.json").read_text())["saturated_values"] for d in ("enc", "dec")]
    assert clipped[0] > 0 and clipped[1] == clipped[0]
    assert dec.exploitability == enc.exploitability
    with pytest.raises(ConfigError, match=r"regret_scale is too small"):
        run_solve(load_config({**base, "store": {"regret_scale": 0.001, "hold": "decoded"}}))


def test_a_run_resumes_across_hold_settings_exactly(tmp_path):
    """hold is how values are kept, not what they are: a checkpoint written held encoded goes on
    held decoded (and back) to the numbers of an uninterrupted run."""
    cfg = {**LEDUC, "compressor": {"name": "blosc2"}, "store": {"regret_scale": 0.75, "avg_scale": 16}}
    full = run_solve(load_config(cfg))
    part = tmp_path / "part"
    run_solve(load_config(cfg), iterations=10, out=part, checkpoint_every="5")
    assert ckpt.read_footer(part / ckpt.FILENAME)["iteration"] == 10
    held = {**cfg, "store": {**cfg["store"], "hold": "decoded"}}
    run_solve(load_config(held), iterations=20, out=part, resume=True, checkpoint_every="5")
    back = run_solve(load_config(cfg), out=part, resume=True)
    # the stops at 10 and 20 evaluated there, off the schedule; a resumed run drops those rows,
    # so every row is the uninterrupted run's
    got = {r["iteration"]: r["exploitability"] for r in back.metrics}
    want = {r["iteration"]: r["exploitability"] for r in full.metrics}
    assert set(got) == set(want)
    assert {i: got[i] for i in want} == want
    assert back.stored_bytes == full.stored_bytes
    for p in (0, 1):
        np.testing.assert_array_equal(back.strategy[p], full.strategy[p])


def test_the_stored_size_is_encoded_once_per_change():
    codec = ValueCodec(COMPRESSORS["zlib"](), {"regret": np.array([16.0])})
    store = Store([SegmentSpec("a", {"regret0": 50}), SegmentSpec("b", {"regret0": 50})], codec, hold="decoded")
    assert store.stored_bytes() == 0  # nothing written yet: nothing stored, as when encoded
    calls = []
    encode = codec.encode
    codec.encode = lambda *a, **k: calls.append(1) or encode(*a, **k)
    with store.open("a") as seg:
        seg["regret0"][:] = np.linspace(-3, 3, 50)
    first = store.stored_bytes()
    assert first > 0 and store.stored_bytes() == first and store.compression_ratio() > 0 and len(calls) == 1
    with store.open("b") as seg:
        seg["regret0"][:] = 1.03
    assert store.stored_bytes() > first and len(calls) == 3
    np.testing.assert_array_equal(store.read("b")["regret0"], np.full(50, 16 / 16))  # 1.03 x 16 rounds to 16


def test_bad_hold_settings_are_refused():
    with pytest.raises(ConfigError, match=r"hold = 'decodd' is invalid.*decoded.*encoded|decodd.*valid"):
        load_config({**LEDUC, "store": {"hold": "decodd"}})
    with pytest.raises(ConfigError, match=r'hold = "decoded" keeps every value in memory.*backend = "disk"'):
        load_config({**LEDUC, "store": {"hold": "decoded", "backend": "disk"}})
    codec = ValueCodec(COMPRESSORS["zlib"](), {"regret": np.array([16.0])})
    with pytest.raises(SolverkitError, match=r"unknown store hold 'lazy'; valid: encoded, decoded"):
        Store([SegmentSpec("a", {"regret0": 5})], codec, hold="lazy")


def test_a_held_store_that_cannot_fit_is_refused_with_the_fix(monkeypatch):
    import solverkit.core.solver as solver_module

    monkeypatch.setattr(solver_module, "physical_memory", lambda: 50_000_000)
    asm = load_config({"preset": "cfr_plus", "game": "rhode_island", "compressor": {"name": "zlib"},
                       "store": {"regret_scale": 16, "hold": "decoded"}})
    with pytest.raises(ConfigError, match=r'need about 267 MB as float64 in memory and this machine has 50 MB; '
                                          r'store them encoded \(\[store\] hold = "encoded"'):
        solver_module.make_store(asm)
