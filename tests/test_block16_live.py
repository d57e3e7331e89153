"""A block16 store keeps the values of the hands each block's board leaves live only
(solverkit.core.grid live tables): a hand holding a card of the board never has reach there, so
its regrets and averages stay exactly 0 in every store, and dropping them loses nothing."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solverkit.core import block16
from solverkit.core.config import load_config
from solverkit.core.grid import Grid
from solverkit.core.solver import Solver

SPOT = {"name": "holdem_spot", "board": "Ks9d7h", "pot": 20, "stack": 40, "oop_range": "AA,KQs,T9s,98s,K7s",
        "ip_range": "QQ,T8s:0.5,AK,97s",
        "sizes": {"flop": {"bet": "50%"}, "turn": {"bet": "50%, a"}, "river": {"bet": "75%", "raise": "a"}}}


def _blocked_values(solver) -> tuple[int, int]:
    """(values of blocked (node, board, hand) entries over every array, how many are not 0)."""
    g = solver.game
    bet = g.tree.bet
    total = nonzero = 0
    for key in solver.store.specs:
        region, first = g._segment_region(key)
        seg = solver.store.read(key)
        for name in seg:
            p = int(name[-1])
            x = np.asarray(seg[name])
            nodes, k = region.units[p]
            rnd = bet.round[nodes]
            valid = g.tree.side(p).valid
            H = g.tree.hands_of(p)
            for o, n, b in zip(region.node_off[nodes] + k * region.stride[p, rnd], nodes, first[rnd] + k):
                blk = x[o:o + H * int(bet.num_actions[n])].reshape(H, -1)
                dead = valid[b] == 0
                total += int(dead.sum()) * blk.shape[1]
                nonzero += int(np.count_nonzero(blk[dead]))
    return total, nonzero


@pytest.mark.parametrize("preset, game, extra", [
    ("dcfr", SPOT, {}),
    ("pcfr_plus", SPOT, {}),
    ("cfr_plus", {"name": "leduc"}, {}),
    ("dcfr", {**SPOT, "lock": {"check,check": {"x": 0.5, "a": 0.5}}}, {}),
    ("cfr_plus", {**SPOT, "split_round": 2}, {}),
    ("cfr_plus", SPOT, {"sampler": {"name": "public_chance"}}),
])
def test_blocked_hands_keep_zero_values_in_a_float64_store(preset, game, extra):
    solver = Solver(load_config({"preset": preset, "game": game, **extra}))
    try:
        solver.step(5)
        total, nonzero = _blocked_values(solver)
    finally:
        solver.close()
    assert total > 0
    assert nonzero == 0


def test_a_block16_spot_store_holds_the_live_hands_only():
    cfg = {"preset": "dcfr", "game": SPOT, "store": {"precision": "block16"}}
    solver = Solver(load_config(cfg))
    try:
        solver.step(4)
        spec = solver.store.specs["root"].arrays
        blocks = {n: solver.store.grid("root", n).offset.shape[0] for n in spec}
        full = sum(8 * blocks[n] + 2 * spec[n] for n in spec)
        assert solver.store.stored_bytes() < full
        live = sum(block16.body_size(solver.store.grid("root", n)) for n in spec)
        assert solver.store.stored_bytes() == live
        total, nonzero = _blocked_values(solver)
        assert total > 0 and nonzero == 0  # decoded: the dropped hands read as 0
        assert any(np.asarray(a).any() for a in solver.store.read("root").values())
    finally:
        solver.close()


def _live_grid(rng):
    H = int(rng.integers(1, 7))
    nblocks = int(rng.integers(1, 7))
    acts = rng.integers(1, 4, nblocks).astype(np.int64)
    offset = np.concatenate([[0], np.cumsum(H * acts)[:-1]]).astype(np.int64)
    rows = rng.integers(0, 2, (3, H)).astype(np.uint8)
    live = rng.integers(-1, 3, nblocks).astype(np.int64)
    minus = np.full(nblocks, -1, dtype=np.int64)
    grid = Grid(offset, np.full(nblocks, H, np.int64), acts, minus, np.zeros(nblocks, np.int64), minus.copy(),
                np.zeros((0, 1), np.int64), None, live, rows)
    return grid, int((H * acts).sum())


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_a_live_grid_round_trips_its_live_hands_and_zeroes_the_rest(seed):
    rng = np.random.default_rng(seed)
    grid, n = _live_grid(rng)
    x = rng.normal(0.0, 3.0, n) * rng.integers(0, 2, n)
    raw = np.zeros(block16.body_size(grid), dtype=np.uint8)
    scales, q = block16.split_body(raw, grid)
    assert q.size == grid.stored
    block16.encode(x, grid, scales, q)
    y = np.full(n, np.nan)
    block16.decode(scales, q, grid, y)
    rounded = x.copy()
    block16.round_in_place(rounded, grid)
    np.testing.assert_array_equal(y, rounded)  # a store held decoded holds what the compact one does
    for b, (o, h, a) in enumerate(zip(grid.offset, grid.hands, grid.actions)):
        keep = np.ones(h, bool) if grid.live[b] < 0 else grid.live_rows[grid.live[b]].astype(bool)
        xb, yb = x[o:o + h * a].reshape(h, a), y[o:o + h * a].reshape(h, a)
        assert not yb[~keep].any()
        m = np.abs(xb[keep]).max(initial=0.0)  # the scale is the kept values' own
        if m:
            np.testing.assert_allclose(yb[keep], xb[keep], atol=m / 16384)
    # a part of the blocks decodes alone, as segment views read a range
    if grid.offset.size > 1:
        b0, b1 = 1, grid.offset.size
        part = np.full(n - int(grid.offset[1]), np.nan)
        block16.decode(scales, q, grid, part, b0, b1, int(grid.offset[1]))
        np.testing.assert_array_equal(part, y[grid.offset[1]:])


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), shape=st.tuples(st.integers(0, 6), st.integers(0, 9)))
def test_live_runs_are_the_rows_runs_of_live_hands(seed, shape):
    rows = np.random.default_rng(seed).integers(0, 2, shape).astype(np.uint8)
    start, runs = block16.live_runs(rows)
    assert start.shape == (shape[0] + 1,) and start[0] == 0
    for i, row in enumerate(rows):
        mine = runs[start[i]:start[i + 1]]
        kept = np.zeros(shape[1], bool)
        for h0, h1, before in mine:
            assert h0 < h1 and row[h0:h1].all() and before == row[:h0].sum()
            assert (h0 == 0 or not row[h0 - 1]) and (h1 == shape[1] or not row[h1])
            kept[h0:h1] = True
        np.testing.assert_array_equal(kept, row.astype(bool))


@pytest.mark.parametrize("compressor", ["none", "zlib"])
def test_a_frame_with_every_hand_is_refused_naming_why(compressor):
    """A block16 frame written before the live hands (every hand's values) is refused in one
    line that says so, not as an unexplained size mismatch."""
    import dataclasses

    from solverkit.core.store import CorruptSegment

    cfg = {"preset": "dcfr", "game": SPOT, "store": {"precision": "block16"}, "compressor": {"name": compressor}}
    solver = Solver(load_config(cfg))
    try:
        solver.step(2)
        store = solver.store
        grid = store.grid("root", "regret0")
        x = np.zeros(store.specs["root"].arrays["regret0"])
        old = store.codec.encode(x, dataclasses.replace(grid, live=None, live_rows=None), "regret", "root", "regret0",
                                 store.run_id)
        with pytest.raises(CorruptSegment, match="holds every hand's values.*start a new run"):
            store.codec.decode_body(old, grid, "regret", "segment 'root' array 'regret0'", "root", "regret0",
                                    store.run_id)
        with pytest.raises(CorruptSegment, match="holds every hand's values"):
            store.codec.decode(old, grid, "regret", "segment 'root' array 'regret0'", None, "root", "regret0",
                               store.run_id)
        new = store.codec.encode(x, grid, "regret", "root", "regret0", store.run_id)
        raw, n = store.codec.decode_body(new, grid, "regret", "here", "root", "regret0", store.run_id)
        assert n == x.size and raw.size == block16.body_size(grid)
    finally:
        solver.close()
