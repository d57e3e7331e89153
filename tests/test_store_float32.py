"""``[store] precision = "float32"``: the poker engine's kernels read and write float32 arrays as
they are (computing in float64), so a spot takes half the memory and memory traffic.

A float32 run must stay close to the float64 run, hold half its bytes, give the same numbers in
memory and on disk (float32 frames) and after a resume, and be refused where an engine's kernels
cannot take float32 arrays."""

from __future__ import annotations

import numpy as np
import pytest

from solverkit.core import checkpoint as ckpt
from solverkit.core.codec import ValueCodec
from solverkit.core.config import load_config
from solverkit.core.frame import CorruptSegment
from solverkit.core.solver import run_solve
from solverkit.errors import ConfigError, SolverkitError
from solverkit.poker.kernels import float_values

from .test_block16 import TURN, _rows, _with
from .test_store import COMPRESSORS, random_grid

F32 = {"store": {"precision": "float32"}}


def test_float32_frames_hold_float32_values_and_round_trip():
    rng = np.random.default_rng(3)
    grid, n = random_grid(rng)
    x = rng.normal(0.0, 10.0, n)
    codec = ValueCodec(COMPRESSORS["zlib"](), precision="float32")
    y = codec.decode(codec.encode(x, grid, "regret", "root", "regret0"), grid, "regret", "test")
    assert y.dtype == np.float32
    np.testing.assert_array_equal(y, x.astype(np.float32))
    again = codec.decode(codec.encode(y, grid, "regret"), grid, "regret", "test")
    np.testing.assert_array_equal(again, y)  # what is stored re-encodes to itself
    rounded = x.copy()
    codec.round_in_place(rounded, grid, "regret")
    np.testing.assert_array_equal(rounded, x.astype(np.float32))
    f64 = ValueCodec(COMPRESSORS["zlib"]())
    with pytest.raises(CorruptSegment, match=r"holds float32 values.*configured for float64.*precision"):
        f64.decode(codec.encode(x, grid, "regret"), grid, "regret", "test")


def test_a_float32_spot_stays_close_to_float64_in_half_the_bytes():
    """Equal to 1e-4 at first (float32 values, and float32 reach and showdown sums in the walks:
    ~2e-5 apart at iteration 20); then regret matching's jumps where a hand's positive regrets
    vanish (pure to uniform) let the float32 and float64 trajectories part by a few percent, as
    any two CFR runs whose arithmetic differs (the preset reaches its target in as many
    iterations either way: bench/results/spot_preset.md)."""
    cfg = _with(TURN, solver={"iterations": 60, "eval_every": 20})
    f64 = run_solve(load_config(cfg))
    f32 = run_solve(load_config(_with(cfg, **F32)))
    assert f32.stored_bytes * 2 == f64.stored_bytes
    assert f32.metrics[0]["exploitability"] == pytest.approx(f64.metrics[0]["exploitability"], rel=1e-4)
    for a, b in zip(f64.metrics, f32.metrics):
        assert b["exploitability"] == pytest.approx(a["exploitability"], rel=0.05)
    for p in (0, 1):
        assert not np.array_equal(f32.strategy[p], f64.strategy[p])  # the values were float32
        np.testing.assert_allclose(f32.strategy[p], f64.strategy[p], atol=0.05)


@pytest.mark.parametrize("extra", [
    pytest.param({"game": {"split_round": 1}}, id="split"),
    pytest.param({"game": {"split_round": 0}}, id="whole"),
])
def test_float32_on_disk_equals_in_memory(extra, tmp_path):
    """The disk store decodes and encodes float32 frames around each pass; in memory the kernels
    update the live float32 arrays: the same numbers."""
    cfg = _with(TURN, **F32, **extra)
    mem = run_solve(load_config(cfg))
    disk = run_solve(load_config(_with(cfg, store={"precision": "float32", "backend": "disk",
                                                   "path": str(tmp_path / "store")})))
    assert _rows(mem) == _rows(disk)
    for p in (0, 1):
        np.testing.assert_array_equal(mem.strategy[p], disk.strategy[p])


def test_a_float32_run_resumes_to_the_uninterrupted_numbers(tmp_path):
    cfg = _with(TURN, **F32)
    cfg["solver"] = {"iterations": 16, "eval_every": 4}
    full = run_solve(load_config(cfg))
    part = tmp_path / "part"
    run_solve(load_config(cfg), iterations=8, out=part, checkpoint_every="4")
    back = run_solve(load_config(cfg), out=part, resume=True)
    got = {r["iteration"]: r["exploitability"] for r in back.metrics}
    assert {i: got[i] for i in (4, 8, 12, 16)} == {r["iteration"]: r["exploitability"] for r in full.metrics}
    for p in (0, 1):
        np.testing.assert_array_equal(back.strategy[p], full.strategy[p])
    with pytest.raises(ckpt.CheckpointError, match=r"\[store\] precision is \"float64\".*written with \"float32\""):
        run_solve(load_config(_with(cfg, store={"precision": "float64"})), out=part, resume=True)


def test_float32_is_refused_where_the_kernels_take_float64_only():
    cfg = {"preset": "cfr", "game": {"name": "kuhn", "players": 3}, "solver": {"iterations": 2}, **F32}
    with pytest.raises(ConfigError, match=r"precision = 'float32'.*kuhn_tree.*float64, block16"):
        run_solve(load_config(cfg))
    with pytest.raises(ConfigError, match=r"float32.*regret_scale"):
        run_solve(load_config(_with(TURN, store={"precision": "float32", "regret_scale": 16})))


def test_a_kernel_walk_takes_one_dtype():
    f32, f64, dummy = np.zeros(4, np.float32), np.zeros(4), np.zeros(1)
    v = float_values(f32, f32, dummy, dummy, f32, dummy)
    assert {a.dtype for a in (v.src0, v.reg0, v.avg1, v.pred0)} == {np.dtype(np.float32)}
    assert float_values(f64, f64, dummy, dummy, f64, dummy).reg0.dtype == np.float64
    with pytest.raises(SolverkitError, match="mixes float32 and float64"):
        float_values(f32, f32, f64, f64, dummy, dummy)


def test_a_float32_run_writes_float32_policies_that_load_and_sum_to_one(tmp_path):
    from solverkit.core.strategy_file import load_strategy

    cfg = load_config(_with(TURN, **F32))
    res = run_solve(cfg, out=tmp_path / "run")
    with np.load(tmp_path / "run" / "strategy.npz") as data:
        assert data["policy0"].dtype == np.float32 and data["policy1"].dtype == np.float32
    strategy, layouts, meta = load_strategy(tmp_path / "run" / "strategy.npz", cfg.game)
    for p in (0, 1):
        np.testing.assert_array_equal(strategy[p], res.strategy[p].astype(np.float32))


@pytest.mark.parametrize("split", [0, 1])
def test_a_large_float32_strategy_is_written_part_by_part_as_float32(split, tmp_path, monkeypatch):
    """Above STRATEGY_IN_MEMORY values the policy goes through a float32 memory map: the same
    numbers as the in-memory strategy rounded to float32."""
    from solverkit.core import solver as solver_mod
    from solverkit.core.strategy_file import load_strategy

    cfg = _with(TURN, **F32, game={"split_round": split})
    small = run_solve(load_config(cfg), out=tmp_path / "small")
    monkeypatch.setattr(solver_mod, "STRATEGY_IN_MEMORY", 0)
    run_solve(load_config(cfg), out=tmp_path / "large")
    big, _, _ = load_strategy(tmp_path / "large" / "strategy.npz", load_config(cfg).game)
    with np.load(tmp_path / "large" / "strategy.npz") as data:
        assert data["policy0"].dtype == np.float32
    for p in (0, 1):
        np.testing.assert_array_equal(big[p], small.strategy[p].astype(np.float32))
