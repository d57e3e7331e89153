"""The value store: codec round trips, corruption, compressors, backends, fixed point.

Over 500 lines on purpose: the store's behaviours share its fixtures (grids, codecs,
backends); store integrity (refusals) lives in test_store_integrity.py.
"""

from __future__ import annotations

import errno

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from solverkit.core.codec import CorruptSegment, Grid, ValueCodec
from solverkit.core.config import load_config
from solverkit.core.diskstore import DiskBackend, DiskStoreError
from solverkit.core.params import spec_of
from solverkit.core.solver import Solver, run_solve
from solverkit.core.store import SegmentSpec, Store
from solverkit.errors import ConfigError
from solverkit_compressors.blosc2 import Blosc2Compressor
from solverkit_compressors.huffman import HuffmanCompressor
from solverkit_compressors.none import NoCompression
from solverkit_compressors.zlib import ZlibCompressor


def make(cls, **params):
    return cls(**spec_of(cls).resolve(params, cls.name))


COMPRESSORS = {
    "none": lambda: make(NoCompression),
    "zlib": lambda: make(ZlibCompressor, level=1),
    "blosc2-zstd-shuffle": lambda: make(Blosc2Compressor),
    "blosc2-lz4-bitshuffle": lambda: make(Blosc2Compressor, codec="lz4", filter="bitshuffle"),
    "blosc2-zstd-bytedelta": lambda: make(Blosc2Compressor, filter="bytedelta", level=9),
    "huffman": lambda: make(HuffmanCompressor),
}

finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)


def random_grid(rng, nblocks=6):
    """Blocks of hands x actions with north links and strength orders, in a shuffled layout."""
    H = int(rng.integers(1, 6))
    acts = rng.integers(1, 5, nblocks)  # 2 and 3 actions have specialised west kernels
    sizes = H * acts
    offset = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    # blocks are coded in a shuffled visit order; north links to a block visited earlier
    visit = rng.permutation(nblocks).astype(np.int64) if rng.random() < 0.5 else None
    seq = visit if visit is not None else np.arange(nblocks)
    north = np.full(nblocks, -1, dtype=np.int64)
    for i in range(1, nblocks):
        b = seq[i]
        same = [c for c in seq[:i] if acts[c] == acts[b]]
        if same and rng.random() < 0.7:
            north[b] = same[-1]
    orders = np.array([rng.permutation(H) for _ in range(3)], dtype=np.int64)
    order = rng.integers(-1, 3, nblocks).astype(np.int64)
    grid = Grid(offset, np.full(nblocks, H, np.int64), acts.astype(np.int64), north,
                rng.integers(0, 2, nblocks).astype(np.int64), order, orders, visit)
    return grid, int(sizes.sum())


@pytest.mark.parametrize("name", sorted(COMPRESSORS))
@settings(max_examples=25, deadline=None)
@given(values=arrays(np.float64, st.integers(0, 300), elements=finite))
def test_float64_round_trip_is_exact(name, values):
    codec = ValueCodec(COMPRESSORS[name]())
    grid = Grid.flat(values.size)
    out = codec.decode(codec.encode(values, grid, "regret"), grid, "regret", "x")
    np.testing.assert_array_equal(out, values)


@pytest.mark.parametrize("predictor", ["gradient", "west", "north", "none"])
@pytest.mark.parametrize("name", ["none", "blosc2-zstd-bytedelta", "zlib", "huffman"])
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), scale=st.sampled_from([0.25, 1.0, 16.0, 1e6]))
def test_fixed_point_round_trip_is_the_rounded_value(name, predictor, seed, scale):
    rng = np.random.default_rng(seed)
    grid, n = random_grid(rng)
    # values up to the int32 limit, so the predictor's sums wrap around
    x = rng.normal(0, 1, n) * rng.choice([1.0, 1e3, 2e9 / scale], n)
    scales = np.array([scale, 2 * scale])
    codec = ValueCodec(COMPRESSORS[name](), {"regret": scales}, predictor=predictor)
    out = codec.decode(codec.encode(x, grid, "regret"), grid, "regret", "x")
    q = np.empty(n)
    for o, h, a, r in zip(grid.offset, grid.hands, grid.actions, grid.round):
        sl = slice(o, o + h * a)
        q[sl] = np.clip(np.rint(x[sl] * scales[r]), -(2**31 - 1), 2**31 - 1) * (1.0 / scales[r])
    np.testing.assert_array_equal(out, q)
    # a second trip changes nothing: stored values are fixed points of the codec
    np.testing.assert_array_equal(codec.decode(codec.encode(out, grid, "regret"), grid, "regret", "x"), out)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_specialised_west_kernels_write_the_generic_residuals(seed):
    """The west fast path keeps the stored format: same residuals and saturation count as the
    generic kernel, and it decodes what the generic kernel wrote."""
    from solverkit.core.codec import _decode_fixed, _decode_west, _encode_fixed, _encode_west

    rng = np.random.default_rng(seed)
    g, n = random_grid(rng)
    x = rng.normal(0, 1, n) * rng.choice([1.0, 1e3, 5e9], n)
    s = np.array([16.0, 0.5])
    generic, fast = np.empty(n, np.uint32), np.empty(n, np.uint32)
    sat = _encode_fixed(x, g.offset, g.hands, g.actions, g.north, g.round, g.order, g.orders, g.visit_order, s, 1,
                        np.empty(n, np.int32), generic)
    assert _encode_west(x, g.offset, g.hands, g.actions, g.round, g.order, g.orders, s, fast) == sat
    np.testing.assert_array_equal(fast, generic)
    a, b = np.empty(n), np.empty(n)
    _decode_fixed(generic, g.offset, g.hands, g.actions, g.north, g.round, g.order, g.orders, g.visit_order, s, 1,
                  np.empty(n, np.int32), a)
    _decode_west(generic, g.offset, g.hands, g.actions, g.round, g.order, g.orders, s, b)
    np.testing.assert_array_equal(a, b)


def test_saturation_is_counted():
    codec = ValueCodec(make(NoCompression), {"regret": np.array([1.0])})
    codec.encode(np.array([1e10, -1e10, 3.0]), Grid.flat(3), "regret")
    assert codec.saturated == 2


def test_predictor_makes_smooth_values_smaller():
    """Smooth regrets over hands and boards compress better as residuals."""
    H, A, boards = 52, 3, 40
    rng = np.random.default_rng(0)
    base = np.cumsum(rng.normal(0, 1, (H, A)), axis=0)
    x = np.concatenate([(base + 0.1 * b + rng.normal(0, 0.05, (H, A))).ravel() for b in range(boards)])
    n = boards
    grid = Grid(np.arange(n, dtype=np.int64) * H * A, np.full(n, H, np.int64), np.full(n, A, np.int64),
                np.arange(-1, n - 1, dtype=np.int64), np.zeros(n, np.int64), np.full(n, -1, np.int64),
                np.zeros((0, H), np.int64))
    comp = make(Blosc2Compressor)
    sizes = {p: len(ValueCodec(comp, {"regret": [64.0]}, predictor=p).encode(x, grid, "regret"))
             for p in ("gradient", "west", "north", "none")}
    assert max(sizes["gradient"], sizes["north"]) < 0.8 * sizes["none"] and sizes["west"] < sizes["none"], sizes


def _payload():
    codec = ValueCodec(make(Blosc2Compressor), {"regret": np.array([16.0])})
    grid = Grid.flat(1000)
    return codec, grid, codec.encode(np.linspace(-5, 5, 1000), grid, "regret")


def test_corrupted_payload_is_detected():
    codec, grid, payload = _payload()
    bad = bytearray(payload)
    bad[40] ^= 0x10
    with pytest.raises(CorruptSegment, match="segment 'sub/3' array 'regret0': checksum mismatch"):
        codec.decode(bytes(bad), grid, "regret", "segment 'sub/3' array 'regret0'")


def test_truncated_and_foreign_payloads_are_detected():
    codec, grid, payload = _payload()
    with pytest.raises(CorruptSegment, match="checksum mismatch"):
        codec.decode(payload[:-10], grid, "regret", "s")
    with pytest.raises(CorruptSegment, match="truncated"):
        codec.decode(payload[:5], grid, "regret", "s")
    with pytest.raises(CorruptSegment, match="not a solverkit value payload"):
        codec.decode(b"PK" + payload[2:], grid, "regret", "s")
    float_codec = ValueCodec(make(Blosc2Compressor))
    with pytest.raises(CorruptSegment, match="holds fixed-point int32 values but the store is configured for float64"):
        float_codec.decode(payload, grid, "regret", "s")


def test_blosc2_parameters_are_checked():
    base = {"preset": "cfr_plus", "game": "kuhn"}
    with pytest.raises(ConfigError, match=r"\[compressor\] \(blosc2\) codec = 'snappy' is invalid: expected one of blosclz, lz4, lz4hc, zlib, zstd"):
        load_config({**base, "compressor": {"name": "blosc2", "codec": "snappy"}})
    with pytest.raises(ConfigError, match="filter = 'delta' is invalid: expected one of bitshuffle, bytedelta, none, shuffle"):
        load_config({**base, "compressor": {"name": "blosc2", "filter": "delta"}})
    with pytest.raises(ConfigError, match=r"\[store\] backend = 'tape' is invalid: expected one of disk, memory"):
        load_config({**base, "store": {"backend": "tape"}})
    with pytest.raises(ConfigError, match=r"\[store\] regret_scale = \[-1\] is invalid: expected a list of numbers > 0"):
        load_config({**base, "store": {"regret_scale": -1}})
    with pytest.raises(ConfigError, match=r"unknown parameter 'scale' in \[store\]; valid: avg_scale, backend"):
        load_config({**base, "store": {"scale": 1}})


def test_blosc2_splits_large_buffers(monkeypatch):
    import solverkit_compressors.blosc2 as mod

    monkeypatch.setattr(mod, "PIECE", 1000)
    comp = make(Blosc2Compressor)
    data = np.arange(10_000, dtype=np.int32)
    payload = comp.compress(memoryview(data).cast("B"), 4)
    assert np.array_equal(np.frombuffer(comp.decompress(payload), dtype=np.int32), data)


# --- the store and its backends ----------------------------------------------------------------


SPECS = [SegmentSpec("a", {"regret0": 50, "avg0": 50}), SegmentSpec("b", {"regret0": 7})]


def _fill(store, seed=0):
    rng = np.random.default_rng(seed)
    for key in store.specs:
        with store.open(key) as seg:
            for arr in seg.values():
                arr[:] = rng.normal(0, 10, arr.size)


def test_disk_backend_equals_memory_backend(tmp_path):
    codec = lambda: ValueCodec(make(Blosc2Compressor), {"regret": [16.0], "avg": [4.0]})  # noqa: E731
    mem = Store(SPECS, codec())
    disk = Store(SPECS, codec(), DiskBackend(tmp_path / "s", prefetch=1, write_behind=1), run_id=mem.run_id)
    for seed in range(3):
        _fill(mem, seed)
        _fill(disk, seed)
        disk.expect(["b", "a"])
        for key in SPECS:
            for name in key.arrays:
                assert mem.payloads(key.key)[name] == disk.payloads(key.key)[name]
    disk.flush()
    assert disk.stored_bytes() == sum((tmp_path / "s" / f).stat().st_size for f in ("seg0000000.skseg", "seg0000001.skseg"))
    disk.close()


@pytest.mark.parametrize("backend", ["memory", "disk", "passthrough"])
def test_a_segment_never_written_costs_nothing_and_reads_as_zeros(tmp_path, backend, monkeypatch):
    codec = ValueCodec(make(NoCompression)) if backend == "passthrough" else ValueCodec(make(ZlibCompressor), {"regret": [16.0], "avg": [4.0]})
    store = Store(SPECS, codec, DiskBackend(tmp_path / "s") if backend == "disk" else None)
    assert store.stored_bytes() == 0 and store.num_values() == sum(sum(s.arrays.values()) for s in SPECS)
    if backend == "disk":
        assert list((tmp_path / "s").glob("*.skseg")) == []  # the directory lock aside
    calls = []
    monkeypatch.setattr(codec, "decode", lambda *a, **k: calls.append(a))
    store.expect(["a", "b"])
    seg = store.read("b")
    assert sorted(seg) == sorted(SPECS[1].arrays) and all(not a.any() for a in seg.values())
    assert calls == []  # zeros without a codec call
    monkeypatch.undo()
    # payloads of a segment never written: zeros, encoded on demand (what a checkpoint saves)
    zeros = store.payloads("b")
    assert set(zeros) == set(SPECS[1].arrays) and store.stored_bytes() == 0
    assert all(not store.decoded("b", zeros)[n].any() for n in zeros)
    # writing one array of a new segment stores the whole segment (the others as zeros)
    with store.open("a", writes=("regret0",)) as seg:
        seg["regret0"][:] = 2.0
    store.flush()
    assert store.stored_bytes() > 0
    assert set(store.payloads("a")) == set(SPECS[0].arrays)
    np.testing.assert_array_equal(store.read("a")["regret0"], 2.0)
    assert not store.read("a")["avg0"].any() and not store.read("b")["regret0"].any()
    if backend == "disk":
        assert len(list((tmp_path / "s").glob("*.skseg"))) == 1
    store.close()


def test_disk_full_keeps_the_previous_segment(tmp_path, monkeypatch):
    import solverkit.core.atomic as atomic

    store = Store(SPECS, ValueCodec(make(ZlibCompressor)), DiskBackend(tmp_path / "s"))
    _fill(store, 1)
    store.flush()
    before = {k: store.read(k) for k in store.specs}

    class Full:
        def __init__(self, *a, **k):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *a):
            return False

        def write(self, data):
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic, "open", Full, raising=False)
    with store.open("a") as seg:
        seg["regret0"][:] = 0.0
    with pytest.raises(DiskStoreError, match=r"cannot write segment 'a' to .*seg0000000.skseg: the disk is full; its previous version on disk is intact"):
        store.flush()
    # nothing computed is lost: the store still serves the values the failed write held
    np.testing.assert_array_equal(store.read("a")["regret0"], np.zeros(50))
    monkeypatch.undo()
    # and the file on disk is the previous version, whole
    fresh = Store(SPECS, ValueCodec(make(ZlibCompressor)), DiskBackend(tmp_path / "other"), run_id=store.run_id)
    fresh.backend._files["a"] = tmp_path / "s" / "seg0000000.skseg"
    np.testing.assert_array_equal(fresh.read("a")["regret0"], before["a"]["regret0"])
    # once the disk has room again, the next update is written
    with store.open("a") as seg:
        seg["regret0"][:] = 1.0
    store.flush()
    fresh.backend._ahead.clear()
    np.testing.assert_array_equal(fresh.read("a")["regret0"], np.ones(50))
    fresh.close()
    store.close()


def test_damaged_segment_file_is_reported(tmp_path):
    store = Store(SPECS, ValueCodec(make(ZlibCompressor)), DiskBackend(tmp_path / "s"))
    _fill(store, 0)  # segments are files once written
    store.flush()
    path = tmp_path / "s" / "seg0000001.skseg"
    data = bytearray(path.read_bytes())
    data[-3] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(CorruptSegment, match="segment 'b' array 'regret0': checksum mismatch"):
        store.read("b")["regret0"]
    path.write_bytes(b"garbage")
    with pytest.raises(DiskStoreError, match="seg0000001.skseg: not a solverkit segment file"):
        store.read("b")["regret0"]
    store.close()


LEDUC_SPLIT = {"preset": "cfr_plus", "game": {"name": "leduc", "split_round": 1, "chunks": 2},
               "solver": {"iterations": 25, "eval_every": 5}}


def _curve(res):
    return [(r["iteration"], r["exploitability"], r["br_0"], r["br_1"]) for r in res.metrics]


def test_solve_on_disk_is_bit_identical_to_memory(tmp_path):
    store = {"regret_scale": 16, "avg_scale": [8, 16]}
    comp = {"name": "blosc2", "codec": "lz4", "filter": "bytedelta"}
    mem = run_solve(load_config({**LEDUC_SPLIT, "compressor": comp, "store": store}))
    disk = run_solve(load_config({**LEDUC_SPLIT, "compressor": comp,
                                  "store": {**store, "backend": "disk", "path": str(tmp_path / "st"), "prefetch": 3}}))
    assert _curve(mem) == _curve(disk)
    for p in (0, 1):
        np.testing.assert_array_equal(mem.strategy[p], disk.strategy[p])
    # float64 would be 0.5; Leduc's subgames are tiny, so each array's self-describing frame
    # header (about 70 bytes) is a sizeable share here
    assert mem.compression_ratio > 0.9
    game = load_config(LEDUC_SPLIT).game
    assert len(list((tmp_path / "st").glob("*.skseg"))) == len(game.segments(True)) > 2


def test_float_store_with_compression_is_exact():
    plain = run_solve(load_config(LEDUC_SPLIT))
    coded = run_solve(load_config({**LEDUC_SPLIT, "compressor": {"name": "zlib"}}))
    assert _curve(plain) == _curve(coded)
    assert plain.compression_ratio == 0.5


def test_fixed_point_follows_the_float_solve_and_small_scales_stall():
    """16 per chip is close to float64 (the paper's default); a coarse factor stalls; a tiny one,
    under which every regret rounds to 0 and stays 0 (it used to give the uniform strategy's
    2.37 chips with exit 0), is refused after the first iteration."""
    from solverkit.errors import ConfigError

    base = {"preset": "cfr_plus", "game": "leduc", "solver": {"iterations": 200, "eval_every": 200}}
    exact = run_solve(load_config(base)).exploitability
    fine = run_solve(load_config({**base, "store": {"regret_scale": 16, "avg_scale": 16}})).exploitability
    coarse = run_solve(load_config({**base, "store": {"regret_scale": 0.1}})).exploitability
    assert fine == pytest.approx(exact, rel=0.25)
    assert coarse > 3 * exact
    with pytest.raises(ConfigError, match=r"regret_scale is too small"):
        run_solve(load_config({**base, "store": {"regret_scale": 0.01}}))


def test_malformed_game_grids_are_refused():
    from solverkit.core.codec import check_grid
    from solverkit.errors import SolverkitError

    good = Grid(np.array([0, 6]), np.array([3, 3]), np.array([2, 2]), np.array([-1, 0]), np.zeros(2, np.int64),
                np.array([-1, 0]), np.array([[2, 0, 1]]))
    check_grid(good, 12, "g")
    bad = {
        "covers 10 values, the array has 12": dict(hands=np.array([3, 2]), north=np.array([-1, -1])),
        "does not cover the array exactly once": dict(offset=np.array([0, 5]), hands=np.array([3, 3])),
        "north neighbour must be visited before it": dict(north=np.array([1, 0])),
        "visited before it": dict(visit=np.array([1, 0])),
        "visit order is not a permutation": dict(visit=np.array([0, 0])),
        "differ in hands or actions": dict(actions=np.array([2, 2]), hands=np.array([4, 2]), offset=np.array([0, 8])),
        "names a hand order the grid does not have": dict(order=np.array([-1, 3])),
    }
    for msg, change in bad.items():
        fields = {f: getattr(good, f) for f in ("offset", "hands", "actions", "north", "round", "order", "orders",
                                                 "visit")}
        fields.update(change)
        with pytest.raises(SolverkitError, match=msg):
            check_grid(Grid(**fields), 12, "g")


def test_poker_grids_are_well_formed():
    """Every segment grid of a cut, chunked Leduc passes the checks (Store.grid runs them)."""
    asm = load_config({**LEDUC_SPLIT, "store": {"regret_scale": 16}})
    from solverkit.core.solver import make_store

    store = make_store(asm)
    for key, spec in store.specs.items():
        for name in spec.arrays:
            g = store.grid(key, name)
            assert g.size == spec.arrays[name]
            assert (g.order >= 0).any() or key == "trunk"


def test_large_game_strategy_file_is_streamed_and_equal(tmp_path, monkeypatch):
    """Above STRATEGY_IN_MEMORY values the strategy goes to strategy.npz one segment at a time
    through a memory-mapped scratch file; the file is the same as the in-memory path's."""
    import solverkit.core.solver as solver_mod

    cfg = {**LEDUC_SPLIT, "compressor": {"name": "blosc2"}, "store": {"regret_scale": 64, "avg_scale": 64}}
    small = run_solve(load_config(cfg), out=tmp_path / "a")
    monkeypatch.setattr(solver_mod, "STRATEGY_IN_MEMORY", 0)
    big = run_solve(load_config(cfg), out=tmp_path / "b")
    assert big.strategy is None and small.strategy is not None
    with np.load(tmp_path / "a" / "strategy.npz") as a, np.load(tmp_path / "b" / "strategy.npz") as b:
        assert sorted(a.files) == sorted(b.files)
        for name in a.files:
            np.testing.assert_array_equal(a[name], b[name])
    assert not list((tmp_path / "b").glob("*.policy*.npy"))  # scratch files are gone
    assert big.exploitability == pytest.approx(small.exploitability, rel=1e-12)


# --- a fixed point too coarse or too narrow for the values it holds (issue 26, item 7) -----------


def test_saturation_is_counted_per_family_with_the_peak_it_had_to_fit():
    codec = ValueCodec(make(NoCompression), {"regret": np.array([2.0]), "avg": np.array([1.0])})
    codec.encode(np.array([1e10, -3e10, 3.0]), Grid.flat(3), "regret")
    codec.encode(np.array([1.0, 2.0]), Grid.flat(2), "avg")
    assert codec.saturated == 2 and codec.saturated_by == {"regret": 2}
    assert codec.clip_peak["regret"] == pytest.approx(6e10)


def test_the_probe_measures_how_many_values_round_to_zero():
    codec = ValueCodec(make(NoCompression), {"regret": np.array([16.0])})
    x = np.array([0.0] * 5 + [0.01] * 80 + [1.0] * 20)  # 0.01 x 16 = 0.16 units: rounds to 0
    codec.encode(x, Grid.flat(x.size), "regret")
    assert codec.lost_share("regret") == pytest.approx(0.8)
    assert codec.factor_gain("regret") == 4.0  # 0.16 x 4 = 0.64 units: the 80% register
    assert codec.factor_gain("regret", share=0.05) == 4.0 and codec.factor_gain("regret", share=0.9) == 1.0


def test_a_factor_no_larger_factor_can_fix_is_not_suggested_again():
    """Values spanning more than the int32 range's room: half round to 0 at 16 per unit, the
    largest are already near 2^21 units. The warning named the same factor (16) as the fix."""
    from solverkit.core.store import precision_warnings

    codec = ValueCodec(make(NoCompression), {"regret": np.array([16.0])})
    x = np.array([0.005] * 50 + [2.0**17] * 50)  # 0.08 units and 2^21 units
    codec.encode(x, Grid.flat(x.size), "regret")
    [line] = precision_warnings(codec, {"regret": "regret_scale"}, {"regret_scale": [16.0]})
    assert "50.0% of the nonzero regret values" in line and "set regret_scale = [] (float64)" in line
    assert "set regret_scale = 16 " not in line


def test_a_decaying_average_on_a_coarse_fixed_point_is_refused():
    """power averaging rounds the whole average again every iteration: at 16 per unit PCFR+ on
    Leduc ended 23x the float store's exploitability without a word."""
    for preset in ("pcfr_plus", "dcfr_plus", "pdcfr_plus"):
        with pytest.raises(ConfigError, match=r"\[store\] avg_scale = 16 is too coarse for averaging 'power'.*"
                                              r"set avg_scale >= 4096"):
            load_config({"preset": preset, "game": "leduc", "store": {"regret_scale": 256, "avg_scale": 16}})
    load_config({"preset": "pcfr_plus", "game": "leduc", "store": {"regret_scale": 256, "avg_scale": 65536}})
    load_config({"preset": "pcfr_plus", "game": "leduc", "store": {"regret_scale": 256}})  # average in float64
    load_config({"preset": "cfr_plus", "game": "leduc", "store": {"regret_scale": 16, "avg_scale": 16}})


def test_a_predictive_rule_on_coarse_regrets_is_refused():
    """PCFR+ at 16 per chip ended 1.5x the float store's exploitability on Leduc (3,000x on
    Kuhn) after 300 iterations, with exit 0; CFR+ at 16 stays allowed (Figure 1c's setting)."""
    for preset in ("pcfr_plus", "pdcfr_plus"):
        with pytest.raises(ConfigError, match=rf"\[store\] regret_scale = 16 is too coarse for regret rule '{preset}'"
                                              r".*set regret_scale >= 256"):
            load_config({"preset": preset, "game": "leduc", "store": {"regret_scale": 16}})
    for preset in ("cfr_plus", "dcfr", "dcfr_plus"):
        load_config({"preset": preset, "game": "leduc", "store": {"regret_scale": 16}})


def test_pcfr_plus_on_a_fixed_point_store_it_accepts_stays_near_the_float_store():
    base = {"preset": "pcfr_plus", "game": "leduc", "solver": {"iterations": 100, "eval_every": 100}}
    exact = run_solve(load_config(base)).exploitability
    fine = run_solve(load_config({**base, "store": {"regret_scale": 4096, "avg_scale": 65536}}))
    assert fine.exploitability == pytest.approx(exact, rel=0.05)
    assert fine.store_warnings == [] and fine.saturated_values == 0


def test_a_factor_that_rounds_most_regrets_to_zero_is_warned_with_the_factor_to_use(tmp_path, capsys):
    """leduc_tree's chance-weighted regrets are tiny: at 16 per chip 81% of them round to 0 and
    CFR+ ended 600x the float store's exploitability, with exit 0 and no word."""
    res = run_solve(load_config({"preset": "cfr_plus", "game": "leduc_tree",
                                 "store": {"regret_scale": 16, "avg_scale": 16}}), iterations=5, out=tmp_path / "o")
    [line] = res.store_warnings
    assert line.startswith("[store] regret_scale = 16 is too coarse: ") and "round to 0" in line
    factor = float(line.split("set regret_scale = ")[1].split()[0])
    assert factor >= 256
    assert f"warning: {line}" in capsys.readouterr().err
    import json
    assert json.loads((tmp_path / "o" / "result.json").read_text())["store_warnings"] == [line]
    fixed = run_solve(load_config({"preset": "cfr_plus", "game": "leduc_tree",
                                   "store": {"regret_scale": factor, "avg_scale": 16}}), iterations=5)
    assert fixed.store_warnings == []


def test_a_factor_that_keeps_most_regrets_to_a_few_units_is_warned_as_coarse(capsys):
    """kuhn_tree at 16 per chip rounds few regrets to 0 but keeps most under 4 units: CFR+ ended
    15x the float store's exploitability at 100 iterations without a word (audit, round 2)."""
    res = run_solve(load_config({"preset": "cfr_plus", "game": "kuhn_tree", "store": {"regret_scale": 16}}),
                    iterations=10)
    [line] = res.store_warnings
    assert line.startswith("[store] regret_scale = 16 is coarse: ") and "under 4 stored units" in line
    factor = float(line.split("set regret_scale = ")[1].split()[0])
    assert factor >= 256
    fixed = run_solve(load_config({"preset": "cfr_plus", "game": "kuhn_tree", "store": {"regret_scale": factor}}),
                      iterations=100)
    floated = run_solve(load_config({"preset": "cfr_plus", "game": "kuhn_tree"}), iterations=100)
    assert fixed.store_warnings == [] and fixed.exploitability < 1.1 * floated.exploitability
    # the poker engine's kuhn and leduc at 16 per chip keep their values finely enough: no warning
    for game in ("kuhn", "leduc"):
        assert run_solve(load_config({"preset": "cfr_plus", "game": game,
                                      "store": {"regret_scale": 16, "avg_scale": 16}}), iterations=10).store_warnings == []


def test_a_huge_factor_that_clips_is_told_a_finite_factor_in_a_short_line():
    """regret_scale = 1e308 was told 'set regret_scale = inf (now 1000...', 309 digits)' (the fit
    overflowed, and factors were written with .0f) (issue 26 round 2)."""
    res = run_solve(load_config({"preset": "cfr", "game": "kuhn_tree", "store": {"regret_scale": 1e308}}),
                    iterations=2)
    [line] = [w for w in res.store_warnings if "clipped" in w]
    factor = float(line.split("set regret_scale = ")[1].split()[0])
    assert 1 <= factor < 2.0 ** 40 and "(now 1e+308;" in line and len(line) < 400, line


def test_clipping_is_warned_once_with_a_factor_that_fits_the_rest_of_the_run(capsys):
    """quadratic averaging (DCFR) sums t^2 weights: 16 per unit clips Kuhn's averages at about
    iteration 740, after which the average is silently wrong."""
    base = {"preset": "dcfr", "game": "kuhn", "solver": {"eval_every": 2000}}
    res = run_solve(load_config({**base, "store": {"regret_scale": 16, "avg_scale": 16}}), iterations=2000)
    assert res.saturated_values > 0
    [line] = [w for w in res.store_warnings if "clipped" in w]
    assert "by iteration 7" in line and "(avg: " in line
    factor = float(line.split("set avg_scale = ")[1].split()[0])
    assert capsys.readouterr().err.count("values clipped to the int32 range") == 1
    ok = run_solve(load_config({**base, "store": {"regret_scale": 16, "avg_scale": factor}}), iterations=2000)
    assert ok.saturated_values == 0


def test_a_clip_at_the_second_iteration_suggests_a_factor_that_fits_the_whole_run():
    """Linear averaging's weight grows ~t^2: from iteration 2 to 300 about 15,000x. Extrapolated
    from iterations 2..8 it was taken for 8,000x and the factor suggested (65536) clipped again."""
    base = {"preset": "cfr_plus", "game": "leduc", "solver": {"eval_every": 300}}
    res = run_solve(load_config({**base, "store": {"regret_scale": 65536, "avg_scale": 1e9}}), iterations=300)
    [line] = [w for w in res.store_warnings if "values clipped" in w]
    assert "by iteration 2 " in line
    factor = float(line.split("set avg_scale = ")[1].split()[0])
    ok = run_solve(load_config({**base, "store": {"regret_scale": 65536, "avg_scale": factor}}), iterations=300)
    assert ok.saturated_values == 0 and ok.store_warnings == []


def test_the_solve_line_repeats_the_clipping_beside_the_size():
    from solverkit.cli import store_line
    from solverkit.core.solver import Result

    res = Result(iterations=1, exploitability=0.1, br=(0.1, 0.1), seconds=1.0, reached_target=False,
                 stored_bytes=10**6, compression_ratio=2.0, saturated_values=1234)
    assert "WARNING: 1,234 fixed-point values clipped" in store_line(res)
    assert "WARNING" not in store_line(Result(iterations=1, exploitability=0.1, br=(0.1, 0.1), seconds=1.0,
                                              reached_target=False, stored_bytes=10**6, compression_ratio=2.0))
    coarse = Result(iterations=1, exploitability=0.1, br=(0.1, 0.1), seconds=1.0, reached_target=False,
                    stored_bytes=10**6, compression_ratio=2.0, store_warnings=["[store] regret_scale = 16 is too coarse"])
    assert "WARNING: the fixed point is too coarse or too narrow for this run (1 warning above" in store_line(coarse)


def test_the_command_line_solve_shows_the_warning_and_repeats_it_at_the_end(tmp_path):
    from click.testing import CliRunner

    from solverkit.cli import cli

    cfg = tmp_path / "c.toml"
    cfg.write_text('preset = "cfr_plus"\ngame = "leduc_tree"\n[store]\nregret_scale = 16\n')
    res = CliRunner().invoke(cli, ["solve", str(cfg), "--iterations", "4", "--out", str(tmp_path / "o"), "--quiet"])
    assert res.exit_code == 0, res.output
    assert "warning: [store] regret_scale = 16 is too coarse" in res.output
    assert "WARNING: the fixed point is too coarse or too narrow for this run" in res.output


def test_averages_that_will_outgrow_the_int32_range_are_foretold_at_the_start():
    """The cumulative weight of quadratic averaging x 16 passes 2^31 at iteration 738: Kuhn's
    first decisions clip exactly there. Said at the first iteration, before any value clipped."""
    from solverkit.averaging import LinearAveraging, QuadraticAveraging
    from solverkit.core.store import clip_forecast

    line = clip_forecast(QuadraticAveraging(), [16.0], 2000)
    assert "passes 2^31 at iteration 738" in line and "set avg_scale = 0.5 " in line
    assert clip_forecast(QuadraticAveraging(), [16.0], 700) is None  # the run ends before
    assert clip_forecast(LinearAveraging(), [16.0], 2000) is None  # CFR+ at 16: t^2/2 x 16 stays far below
    assert clip_forecast(QuadraticAveraging(), [], 2000) is None  # float64 averages
    solver = Solver(load_config({"preset": "dcfr", "game": "kuhn", "store": {"avg_scale": 16}}))
    solver.planned_iterations = 2000
    solver.step(1)
    assert solver.store_warnings == [line] and solver.values.saturated_values() == 0


def test_rules_that_rescale_every_regret_are_warned_on_a_coarse_fixed_point():
    """DCFR rescales every stored regret each iteration and the store rounds them again each
    time: at 16 per chip it ended 2.1x the float store's exploitability on Leduc."""
    from solverkit.core.store import rescale_warning

    for preset in ("dcfr", "dcfr_plus", "lcfr"):
        asm = load_config({"preset": preset, "game": "kuhn", "store": {"regret_scale": 16}})
        assert f"with regret rule '{preset}': the rule rescales every stored regret" in rescale_warning(asm.rule,
                                                                                                        asm.store)
        solver = Solver(asm)
        solver.step(1)
        assert rescale_warning(asm.rule, asm.store) in solver.store_warnings
    for preset, scale in (("cfr_plus", 16), ("dcfr", 4096)):
        asm = load_config({"preset": preset, "game": "kuhn", "store": {"regret_scale": scale}})
        assert rescale_warning(asm.rule, asm.store) is None


def test_a_delayed_average_is_probed_when_its_values_appear():
    """The average of delayed averaging is zero for `delay` iterations: the probe looks at the
    first updates that hold values, whenever they come, and warns then."""
    res = run_solve(load_config({"preset": "cfr_plus", "game": "leduc_tree", "averaging": {"name": "delayed",
                                 "delay": 10}, "store": {"avg_scale": 0.05}}), iterations=14)
    [line] = res.store_warnings
    assert line.startswith("[store] avg_scale = 0.05 is too coarse: 100.0% of the nonzero avg values")
