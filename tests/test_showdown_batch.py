"""The batched terminal kernels (players with their own hand lists: spots): showdowns equal the
brute-force sum over the opponent's disjoint hands, folds the one-node kernel's doubles."""

from __future__ import annotations

import numpy as np
import pytest

from solverkit.poker.kernels import SD_BATCH, _showdown2_batch



def _hands(rng, n, deck):
    """n distinct two-card hands from a deck of `deck` cards."""
    pairs = [(a, b) for a in range(deck) for b in range(a + 1, deck)]
    idx = rng.choice(len(pairs), size=n, replace=False)
    return np.array([pairs[i] for i in idx], dtype=np.int64)


def _consistent_orders(rng, hands_by_player, deck, rows):
    """_orders for both players where a combo has one strength per row whoever holds it (as on a
    real board: the one opponent hand that holds both of h's cards is h itself, a tie)."""
    table = rng.integers(0, 12, (rows, deck, deck))  # few values: many ties
    out = []
    for hands in hands_by_player:
        H = hands.shape[0]
        order = np.zeros((rows, H), dtype=np.int64)
        strength = np.zeros((rows, H), dtype=np.int64)
        count = np.zeros(rows, dtype=np.int64)
        for i in range(rows):
            keep = rng.permutation(H)[: rng.integers(1, H + 1)]
            s = table[i, hands[keep, 0], hands[keep, 1]]
            o = np.argsort(s, kind="stable")
            count[i] = keep.size
            order[i, : keep.size] = keep[o]
            strength[i, : keep.size] = s[o]
        out.append((order, strength, count))
    return out


def _brute_showdown(reach_o, hands, order, strength, count, hands_o, order_o, strength_o, count_o, f):
    """O(H x H_o): f x (mass of the opponent's disjoint hands below h - above h), 0 off the board."""
    out = np.zeros(hands.shape[0])
    s_o = {int(order_o[t]): int(strength_o[t]) for t in range(count_o)}
    for t in range(count):
        h = int(order[t])
        cards = set(hands[h].tolist())
        v = 0.0
        for q, sq in s_o.items():
            if cards & set(hands_o[q].tolist()):
                continue
            v += reach_o[q] * np.sign(strength[t] - sq)
        out[h] = f * v
    return out


@pytest.mark.parametrize("seed", range(6))
def test_a_batch_of_showdowns_equals_the_brute_force_sum(seed):
    rng = np.random.default_rng(seed)
    deck = 20
    H0, H1 = int(rng.integers(3, 30)), int(rng.integers(3, 30))
    hands0 = _hands(rng, H0, deck)
    hands1 = np.concatenate([hands0[: H0 // 2], _hands(rng, H1, deck)])  # some combos in both lists
    hands1 = np.unique(np.sort(hands1, axis=1), axis=0)[:H1]
    H1 = hands1.shape[0]
    rows = 3
    (o0, s0, c0), (o1, s1, c1) = _consistent_orders(rng, (hands0, hands1), deck, rows)
    nodes_total = 24
    reach = rng.random((nodes_total, 2, max(H0, H1))) * rng.integers(0, 2, (nodes_total, 2, max(H0, H1)))
    M = int(rng.integers(1, SD_BATCH + 1))
    nodes = np.sort(rng.choice(nodes_total, size=SD_BATCH, replace=False)).astype(np.int64)
    fs = rng.normal(size=SD_BATCH) * 7
    i = int(rng.integers(0, rows))
    for p, (hp, op_, sp, cp, ho, oo, so, co) in enumerate([(hands0, o0, s0, c0, hands1, o1, s1, c1),
                                                           (hands1, o1, s1, c1, hands0, o0, s0, c0)]):
        got = np.full((nodes_total, 2, max(H0, H1)), np.nan)
        R = np.full((max(H0, H1), SD_BATCH), np.nan)  # scratch: garbage must not leak
        C = np.full((3 * deck, SD_BATCH), np.nan)
        _showdown2_batch(reach, nodes, fs, M, 1 - p, hp, op_, sp, cp[i], ho, oo, so, co[i], i, R, C,
                         np.full((3, SD_BATCH), np.nan), got, p, np.full((max(H0, H1), SD_BATCH), np.nan))
        for m in range(M):
            want = _brute_showdown(reach[nodes[m], 1 - p], hp, op_[i], sp[i], cp[i], ho, oo[i], so[i], co[i], fs[m])
            np.testing.assert_allclose(got[nodes[m], p, : hp.shape[0]], want, rtol=1e-12, atol=1e-12)
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
