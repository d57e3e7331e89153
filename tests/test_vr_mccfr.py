"""Variance-reduced outcome sampling (VR-MCCFR, [sampler] baseline): the expected regret and
average updates of a pass equal the full pass's for every baseline (a plain recursive reference),
the oracle baseline makes every root estimate exact, a learned one lowers the variance, no
baseline is plain outcome sampling to the last bit, runs repeat by seed, bad values are refused;
three players too."""

import numpy as np
import pytest

from solverkit.core.config import load_config
from solverkit.core.solver import run_solve
from solverkit.efg import sampled, sampled_vr
from solverkit.errors import ConfigError

from .pass_updates import curve
from .test_samplers import _policy, _reference

DECISION, CHANCE, TERMINAL = 0, 1, 2


def _game(name="kuhn_tree", baseline="learned"):
    return load_config({"preset": "cfr", "game": name, "sampler": {"name": "outcome", "baseline": baseline}}).game


def _value(tree, sig, n=0):
    """Player 0's expected value of node n under `sig`, by plain recursion (shares no kernel)."""
    kind, q, off, _, first, A = (int(x) for x in tree.node[n])
    if kind == TERMINAL:
        return tree.util[n]
    w = tree.prob[first:first + A] if kind == CHANCE else sig[q][off:off + A]
    return sum(w[a] * _value(tree, sig, first + a) for a in range(A))


def _passes(game, src, i, bmode, bl, first, count, decay=0.5):
    """`count` passes for player i from the fixed policy sources `src` (iterations first.., so
    each its own draws): the summed regret deltas of i, the summed average increments of the
    other player and each pass's root estimate. `bl` (the baselines) is updated in place."""
    t = game.tree
    reg = [np.zeros(game.layout(p).size) for p in (0, 1)]
    avg = [np.zeros(game.layout(p).size) for p in (0, 1)]
    roots = np.zeros(2 * count)
    b = game._sampling_bufs()
    ones = np.ones(count)
    sampled_vr.vr_outcome_block(0.6, 11, 0, np.arange(first, first + count), np.full(count, 1 << i),
                                np.full(count, 1 << (1 - i)), np.full(count, -np.inf), ones, ones, t.node, t.prob,
                                t.util, t.infoset, src[0], src[1], reg[0], reg[1], avg[0], avg[1],
                                *game._avg_scale("outcome"), *b[:7], b[9], *b[12:15], bmode, decay, bl, roots)
    return reg[i], avg[1 - i], roots[i::2]


@pytest.mark.parametrize("baseline", ["none", "learned", "oracle"])
def test_expected_update_is_the_full_update(baseline):
    """Over 20,000 passes from one profile, the mean regret change and average increment equal
    the plain reference's within 5 standard errors, for each player. The learned baseline is
    first trained on another profile (so it is wrong, not zero) and every pass starts from it,
    learning as it goes (on a fixed profile it would soon be exact and hide a bias)."""
    game = _game()
    rng = np.random.default_rng(5)
    regrets = [rng.uniform(-0.3, 1.0, game.layout(p).size) for p in (0, 1)]
    sig = [_policy(game, regrets[p], p) for p in (0, 1)]
    mode = sampled_vr.BASELINES[baseline]
    bl = np.zeros(game.tree.num_nodes)
    if baseline == "learned":
        other = [rng.uniform(-0.3, 1.0, game.layout(p).size) for p in (0, 1)]
        for i in (0, 1):
            _passes(game, other, i, mode, bl, 10**6 + i * 5000, 5000)
        assert np.abs(bl).max() > 0.3
    K = 20000
    for i in (0, 1):
        want_delta, want_avg = _reference(game.tree, sig, i)
        assert np.abs(want_delta).max() > 0.01 and np.abs(want_avg).max() > 0.01
        got = [_passes(game, regrets, i, mode, bl.copy(), 1 + i * K + k, 1) for k in range(K)]
        for n, want in ((0, want_delta), (1, want_avg)):
            draws = np.array([g[n] for g in got])
            se = draws.std(axis=0) / np.sqrt(K)
            err = np.abs(draws.mean(axis=0) - want)
            assert np.all(err <= 5.0 * se + 1e-9), (baseline, i, n, (err / (se + 1e-12)).max())


def test_oracle_baseline_makes_the_root_estimate_exact_and_learned_lowers_its_variance():
    """Schmid et al.: with the true values as baselines every value estimate is exact. A learned
    baseline trained on the same profile is far below plain outcome sampling's variance (on a
    fixed profile it converges to the true values, from the terminals up)."""
    game = _game()
    rng = np.random.default_rng(2)
    regrets = [rng.uniform(-0.3, 1.0, game.layout(p).size) for p in (0, 1)]
    sig = [_policy(game, regrets[p], p) for p in (0, 1)]
    v = _value(game.tree, sig)
    N = game.tree.num_nodes
    _, _, roots = _passes(game, regrets, 1, sampled_vr.ORACLE, np.zeros(N), 1, 2000)
    assert np.allclose(roots, v, rtol=0, atol=1e-12)
    _, _, plain = _passes(game, regrets, 0, 0, np.zeros(N), 1, 20000)
    bl = np.zeros(N)
    _passes(game, regrets, 0, sampled_vr.LEARNED, bl, 10**6, 5000)
    _, _, learned = _passes(game, regrets, 0, sampled_vr.LEARNED, bl, 1, 20000)
    assert abs(plain.mean() - v) < 5 * plain.std() / np.sqrt(plain.size)
    assert abs(learned.mean() - v) < 5 * learned.std() / np.sqrt(learned.size) + 1e-12  # (it learns v exactly)
    assert learned.var() < 0.25 * plain.var()


def test_no_baseline_is_plain_outcome_sampling_to_the_last_bit():
    """The baseline kernel with zero baselines that do not learn returns the doubles of the plain
    outcome-sampling kernel over 300 alternating Leduc iterations (policies evolving); and a run
    with baseline = "none" is the run without the parameter."""
    game = _game("leduc_tree", "none")
    t = game.tree
    rng = np.random.default_rng(0)
    start = [rng.uniform(-1.0, 1.0, game.layout(p).size) for p in (0, 1)]
    K = 600
    iters = np.repeat(np.arange(1, 301), 2)
    masks = np.tile([1, 2], 300)
    plan = (iters, masks, 3 - masks, np.full(K, -np.inf), np.linspace(1.0, 2.0, K), np.ones(K))
    a0, a1 = game._avg_scale("outcome")
    out = []
    for kernel in ("plain", "vr"):
        reg = [x.copy() for x in start]
        avg = [np.zeros_like(x) for x in start]
        b = game._sampling_bufs()
        if kernel == "plain":
            sampled.sampled_block(sampled.MODE_OUTCOME, 0.6, 4, 0, *plan, np.zeros(K), 0.0, t.node, t.prob, t.util,
                                  t.infoset, reg[0], reg[1], reg[0], reg[1], avg[0], avg[1], a0, a1, *b)
        else:
            bl = np.zeros(t.num_nodes)
            sampled_vr.vr_outcome_block(0.6, 4, 0, *plan, t.node, t.prob, t.util, t.infoset, reg[0], reg[1], reg[0],
                                        reg[1], avg[0], avg[1], a0, a1, *b[:7], b[9], *b[12:15], 0, 0.5, bl,
                                        np.zeros(0))
            assert not bl.any()
        out.append(np.concatenate(reg + avg))
    assert not np.array_equal(out[0], np.concatenate(start + [np.zeros_like(x) for x in start]))
    assert np.array_equal(out[0], out[1])
    runs = [run_solve(load_config({"preset": "cfr", "game": "kuhn_tree", "sampler": s,
                                   "solver": {"seed": 3, "eval_every": 500}}), iterations=1500)
            for s in ({"name": "outcome"}, {"name": "outcome", "baseline": "none"})]
    assert curve(runs[0]) == curve(runs[1])


def _run(seed, baseline="learned", iterations=2000):
    a = load_config({"preset": "cfr", "game": "kuhn_tree", "sampler": {"name": "outcome", "baseline": baseline},
                     "solver": {"seed": seed, "eval_every": 500}})
    return run_solve(a, iterations=iterations)


def test_a_run_repeats_by_seed():
    """Two runs of one seed (the baselines live with each run's store) give the same curve and
    strategy; another seed another; the learned run converges."""
    a, b, c = _run(7), _run(7), _run(8)
    assert curve(a) == curve(b) and all(np.array_equal(x, y) for x, y in zip(a.strategy, b.strategy))
    assert curve(a) != curve(c)
    assert a.metrics[-1]["exploitability"] < 0.05  # (uniform play: 0.458)


@pytest.mark.parametrize("sampler, words", [
    ({"baseline": "mean"}, ["'mean'", "none", "learned", "oracle"]),
    ({"baseline": "learned", "baseline_decay": 1.5}, ["baseline_decay", "1.5"]),
    ({"baseline": "learned", "baseline_decay": -0.1}, ["baseline_decay", "-0.1"]),
])
def test_bad_values_are_refused_in_one_line(sampler, words):
    with pytest.raises(ConfigError) as e:
        load_config({"preset": "cfr", "game": "kuhn_tree", "sampler": {"name": "outcome", **sampler}})
    msg = str(e.value)
    assert "\n" not in msg and all(w in msg for w in words), msg


@pytest.mark.parametrize("baseline", ["learned", "oracle"])
def test_three_player_passes_are_unbiased(baseline):
    """3-player Kuhn, 6,000 single passes for player 0 from one profile (the learned baselines
    trained on another profile first): player 0's regret deltas and player 2's average increments
    average to the engine's full pass (itself checked against OpenSpiel in test_nplayer_tree)."""
    from solverkit.efg import nkernels

    game = load_config({"preset": "cfr", "game": {"name": "kuhn_tree", "players": 3},
                        "sampler": {"name": "outcome", "baseline": baseline}}).game
    t, base, ib = game.tree, game._base, game._ibase
    S = int(base[-1])
    rng = np.random.default_rng(1)
    reg0 = np.abs(rng.normal(size=S)) + 0.05
    sig, d, ac, reach, v = game._nbufs()[:5]
    game._profile([reg0[base[p]:base[p + 1]] for p in range(3)], sig)
    nkernels.cfr_pass_n(t.node, t.prob, t.utils, base, sig, 1, 4, reach, v, d, ac)
    full = np.concatenate([d[base[0]:base[1]], ac[base[2]:base[3]]])
    mode = sampled_vr.BASELINES[baseline]
    bl = np.zeros((t.num_nodes, 3))
    b = game._sampling_bufs_n()
    scale = game._avg_scale_n("outcome")

    def passes(reg, avg, first, count, masks, bl):
        ones = np.ones(count)
        sampled_vr.vr_outcome_block_n(0.6, 5, 0, np.arange(first, first + count), np.full(count, masks),
                                      np.full(count, 4), np.full(count, -np.inf), ones, ones, t.node, t.prob, t.utils,
                                      t.infoset, base, ib, reg, avg, scale, *b[:4], b[7], *b[10:13], mode, 0.5, bl,
                                      np.zeros(0))

    if baseline == "learned":
        passes(np.abs(rng.normal(size=S)) + 0.05, np.zeros(S), 10**6, 3000, 7, bl)
        assert np.abs(bl).max() > 0.3
    K = 6000
    draws = np.empty((K, full.size))
    for k in range(K):
        reg, avg = reg0.copy(), np.zeros(S)
        passes(reg, avg, 1 + k, 1, 1, bl.copy())
        draws[k] = np.concatenate([(reg - reg0)[base[0]:base[1]], avg[base[2]:base[3]]])
    err = np.abs(draws.mean(axis=0) - full)
    se = draws.std(axis=0) / np.sqrt(K)
    assert np.all(err <= 5.0 * se + 1e-12), (err / np.maximum(se, 1e-300)).max()


def test_a_three_player_run_with_a_learned_baseline():
    """The solver path of three players: 20,000 iterations of 3-player Kuhn lower NashConv from
    2.06 (uniform) below 0.12, as plain outcome sampling does (test_nplayer_tree)."""
    a = load_config({"game": {"name": "kuhn_tree", "players": 3}, "rule": "rm", "averaging": "linear",
                     "sampler": {"name": "outcome", "baseline": "learned"}, "solver": {"update": "alternating"}})
    r = run_solve(a, iterations=20_000)
    assert r.metrics[-1]["nash_conv"] < 0.12 < r.metrics[0]["nash_conv"]
