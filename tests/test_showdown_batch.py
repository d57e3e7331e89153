"""The batched showdown kernel (players with their own hand lists: spots) gives, node for node,
the doubles of the one-node kernel it replaced in the walk."""

from __future__ import annotations

import numpy as np
import pytest

from solverkit.poker.kernels import SD_BATCH, _showdown2_batch

from .showdown_reference import _showdown2


def _hands(rng, n, deck):
    """n distinct two-card hands from a deck of `deck` cards."""
    pairs = [(a, b) for a in range(deck) for b in range(a + 1, deck)]
    idx = rng.choice(len(pairs), size=n, replace=False)
    return np.array([pairs[i] for i in idx], dtype=np.int64)


def _orders(rng, H, rows):
    """Per row: hands in ascending strength (with ties), some hands left out (not on that board)."""
    order = np.zeros((rows, H), dtype=np.int64)
    strength = np.zeros((rows, H), dtype=np.int64)
    count = np.zeros(rows, dtype=np.int64)
    for i in range(rows):
        keep = rng.permutation(H)[: rng.integers(1, H + 1)]
        s = rng.integers(0, max(2, H // 3), keep.size)  # ties
        o = np.argsort(s, kind="stable")
        count[i] = keep.size
        order[i, : keep.size] = keep[o]
        strength[i, : keep.size] = s[o]
    return order, strength, count


@pytest.mark.parametrize("seed", range(6))
def test_a_batch_of_showdowns_equals_one_node_at_a_time(seed):
    rng = np.random.default_rng(seed)
    deck = 20
    H0, H1 = int(rng.integers(3, 30)), int(rng.integers(3, 30))
    hands0, hands1 = _hands(rng, H0, deck), _hands(rng, H1, deck)
    rows = 3
    o0, s0, c0 = _orders(rng, H0, rows)
    o1, s1, c1 = _orders(rng, H1, rows)
    nodes_total = 24
    reach = rng.random((nodes_total, 2, max(H0, H1))) * rng.integers(0, 2, (nodes_total, 2, max(H0, H1)))
    M = int(rng.integers(1, SD_BATCH + 1))
    nodes = np.sort(rng.choice(nodes_total, size=SD_BATCH, replace=False)).astype(np.int64)
    fs = rng.normal(size=SD_BATCH) * 7
    i = int(rng.integers(0, rows))
    for p, (hp, op_, sp, cp, ho, oo, so, co) in enumerate([(hands0, o0, s0, c0, hands1, o1, s1, c1),
                                                           (hands1, o1, s1, c1, hands0, o0, s0, c0)]):
        want = np.full((nodes_total, 2, max(H0, H1)), np.nan)
        card = np.zeros(3 * deck)
        for m in range(M):
            _showdown2(reach, nodes[m], 1 - p, hp, op_, sp, cp[i], ho, oo, so, co[i], i, card, fs[m], want, p)
        got = np.full_like(want, np.nan)
        R = np.empty((max(H0, H1), SD_BATCH))
        C = np.empty((3 * deck, SD_BATCH))
        _showdown2_batch(reach, nodes, fs, M, 1 - p, hp, op_, sp, cp[i], ho, oo, so, co[i], i, R, C,
                         np.empty((3, SD_BATCH)), got, p)
        for m in range(M):
            np.testing.assert_array_equal(got[nodes[m], p, : hp.shape[0]].view(np.uint64),
                                          want[nodes[m], p, : hp.shape[0]].view(np.uint64))
        untouched = np.ones(nodes_total, dtype=bool)
        untouched[nodes[:M]] = False
        assert np.isnan(got[untouched]).all()  # nodes beyond M are left alone


@pytest.mark.parametrize("seed", range(4))
def test_a_batch_of_folds_equals_one_node_at_a_time(seed):
    from solverkit.poker.kernels import _fold, _fold_batch

    rng = np.random.default_rng(100 + seed)
    deck = 20
    H0, H1 = int(rng.integers(3, 30)), int(rng.integers(3, 30))
    hands0, hands1 = _hands(rng, H0, deck), _hands(rng, H1, deck)
    # same[h]: the opponent's index of hand h itself (shared combos between the ranges)
    index1 = {tuple(h): i for i, h in enumerate(hands1)}
    same0 = np.array([index1.get(tuple(h), -1) for h in hands0], dtype=np.int64)
    valid0 = rng.integers(0, 2, (4, H0)).astype(np.float64)
    nodes_total = 24
    reach = rng.random((nodes_total, 2, max(H0, H1)))
    M = int(rng.integers(1, SD_BATCH + 1))
    nodes = rng.choice(nodes_total, size=SD_BATCH, replace=False).astype(np.int64)
    fs = rng.normal(size=SD_BATCH)
    g = int(rng.integers(0, 4))
    want = np.full((nodes_total, 2, max(H0, H1)), np.nan)
    for m in range(M):
        _fold(reach, nodes[m], 1, hands0, hands1, same0, valid0, g, np.zeros(3 * deck), fs[m], want, 0, False)
    got = np.full_like(want, np.nan)
    _fold_batch(reach, nodes, fs, M, 1, hands0, hands1, same0, valid0, g, np.empty((max(H0, H1), SD_BATCH)),
                np.empty((3 * deck, SD_BATCH)), np.empty((3, SD_BATCH)), got, 0)
    np.testing.assert_array_equal(got[nodes[:M], 0, :H0].view(np.uint64), want[nodes[:M], 0, :H0].view(np.uint64))
