"""``[store] precision = "block16"``: 16-bit values with a power-of-two scale per block.

The compact store's kernels update block16 values in place; a store held decoded (whole arrays
rounded after each pass) and one on disk (segments decoded and encoded whole) must give the
same numbers bit for bit, and a run must stay close to the float64 store's."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solverkit.core import block16
from solverkit.core import checkpoint as ckpt
from solverkit.core.codec import ValueCodec
from solverkit.core.config import load_config
from solverkit.core.solver import run_solve
from solverkit.errors import ConfigError

from .test_store import COMPRESSORS, random_grid

LEDUC = {"preset": "cfr_plus", "game": {"name": "leduc", "split_round": 1, "chunks": 2},
         "solver": {"iterations": 12, "eval_every": 4}}
TURN = {"preset": "dcfr", "solver": {"iterations": 12, "eval_every": 4},
        "game": {"name": "holdem_spot", "board": "Ks9d7h2c", "pot": 20, "stack": 40, "oop_range": "AA,KQs,T9s",
                 "ip_range": "QQ,T8s:0.5,AK", "sizes": {"turn": {"bet": "50%, a"}, "river": {"bet": "75%", "raise": "a"}}}}


def _rows(res):
    """The numbers of every metrics row (not timings, memory or stored bytes: the compact store
    holds bodies, the others frames)."""
    skip = ("seconds", "peak_rss_mb", "stored_bytes", "compression_ratio")
    return [{k: v for k, v in r.items() if k not in skip} for r in res.metrics]


def _with(cfg, **tables):
    out = {k: (dict(v) if isinstance(v, dict) else v) for k, v in cfg.items()}
    for table, values in tables.items():
        out[table] = {**out.get(table, {}), **values} if isinstance(values, dict) else values
    return out


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), magnitude=st.sampled_from([1e-9, 0.3, 1.0, 7.5, 1e6]))
def test_a_block_keeps_its_largest_value_and_re_encodes_to_itself(seed, magnitude):
    rng = np.random.default_rng(seed)
    grid, n = random_grid(rng)
    x = rng.normal(0.0, magnitude, n) * rng.integers(0, 2, n)
    codec = ValueCodec(COMPRESSORS["zlib"](), precision="block16")
    y = codec.decode(codec.encode(x, grid, "regret"), grid, "regret", "test")
    for o, h, a in zip(grid.offset, grid.hands, grid.actions):
        xb, yb = x[o:o + h * a], y[o:o + h * a]
        m = np.abs(xb).max(initial=0.0)
        if m == 0.0:
            assert not yb.any()
            continue
        scale = block16.block_scale(m)
        assert scale == 2.0 ** np.round(np.log2(scale))  # a power of two: values decode exactly
        assert 16383.5 <= m / scale <= 32767  # nothing clipped, at least 15 bits for the largest
        assert np.abs(xb - yb).max() <= scale / 2
    again = codec.decode(codec.encode(y, grid, "regret"), grid, "regret", "test")
    np.testing.assert_array_equal(again, y)  # what is stored re-encodes to itself
    rounded = x.copy()
    codec.round_in_place(rounded, grid, "regret")
    np.testing.assert_array_equal(rounded, y)


@pytest.mark.parametrize("cfg", [
    pytest.param(LEDUC, id="leduc-split"),
    pytest.param(_with(LEDUC, preset="dcfr", game={"split_round": 0}), id="leduc-dcfr"),
    pytest.param(TURN, id="turn-spot"),
    pytest.param(_with(TURN, game={"split_round": 1}), id="turn-spot-split"),
    pytest.param(_with(TURN, preset="pcfr_plus"), id="turn-spot-stateful-rule"),  # decoded for the rule
    pytest.param(_with(TURN, preset="cfr_plus", sampler={"name": "public_external"}), id="turn-spot-sampled"),
])
def test_in_kernel_blocks_equal_whole_arrays_rounded(cfg, tmp_path):
    """The compact store (kernels on blocks) == held decoded (arrays rounded after each pass) ==
    on disk (segments decoded and encoded whole), bit for bit."""
    compact = run_solve(load_config(_with(cfg, store={"precision": "block16"})))
    held = run_solve(load_config(_with(cfg, store={"precision": "block16", "hold": "decoded"})))
    disk = run_solve(load_config(_with(cfg, store={"precision": "block16", "backend": "disk",
                                                   "path": str(tmp_path / "store")})))
    assert _rows(compact) == _rows(held)
    assert [r["exploitability"] for r in disk.metrics] == [r["exploitability"] for r in compact.metrics]
    for p in (0, 1):
        np.testing.assert_array_equal(compact.strategy[p], held.strategy[p])
        np.testing.assert_array_equal(compact.strategy[p], disk.strategy[p])


def test_a_compact_spot_stays_close_to_the_float_store_and_takes_a_quarter_of_its_bytes():
    cfg = _with(TURN, solver={"iterations": 60, "eval_every": 60})
    f64 = run_solve(load_config(cfg))
    b16 = run_solve(load_config(_with(cfg, store={"precision": "block16"})))
    assert b16.exploitability <= 1.25 * f64.exploitability + 1e-3
    values = sum(f64.strategy[p].size for p in (0, 1))  # regrets + averages of both players
    assert b16.stored_bytes < 0.3 * 16 * values  # 2 bytes a value (and a scale a block) against 8


def test_a_compact_run_resumes_to_the_uninterrupted_numbers(tmp_path):
    cfg = _with(TURN, store={"precision": "block16"}, game={"split_round": 1})
    cfg["solver"] = {"iterations": 16, "eval_every": 4}
    full = run_solve(load_config(cfg))
    part = tmp_path / "part"
    run_solve(load_config(cfg), iterations=8, out=part, checkpoint_every="4")
    assert ckpt.read_footer(part / ckpt.FILENAME)["iteration"] == 8
    back = run_solve(load_config(cfg), out=part, resume=True)
    got = {r["iteration"]: r["exploitability"] for r in back.metrics}
    assert {i: got[i] for i in (4, 8, 12, 16)} == {r["iteration"]: r["exploitability"] for r in full.metrics}
    for p in (0, 1):
        np.testing.assert_array_equal(back.strategy[p], full.strategy[p])


def test_a_changed_precision_is_refused_on_resume(tmp_path):
    cfg = _with(LEDUC, store={"precision": "block16"})
    run_solve(load_config(cfg), iterations=4, out=tmp_path / "run", checkpoint_every="4")
    with pytest.raises(ckpt.CheckpointError, match=r"\[store\] precision is \"float64\".*written with \"block16\""):
        run_solve(load_config(_with(cfg, store={"precision": "float64"})), out=tmp_path / "run", resume=True)


def test_bad_precision_settings_are_refused_in_one_line():
    with pytest.raises(ConfigError, match=r"precision.*'block32'.*block16.*float64|block32.*float64"):
        load_config(_with(LEDUC, store={"precision": "block32"}))
    with pytest.raises(ConfigError, match=r"block16.*regret_scale"):
        run_solve(load_config(_with(LEDUC, store={"precision": "block16", "regret_scale": 16})))
