"""Negative-regret pruning (Pluribus) and Linear CFR for the first iterations in the tree
engine's external sampling: pruning skips nodes, reproduces bit for bit, keeps the averages
unbiased (against the full pass, a separate kernel), and lcfr's lazy weights are its discounts."""

from __future__ import annotations

import math

import numpy as np
import pytest

from solverkit.core.config import load_config
from solverkit.core.solver import run_solve
from solverkit.errors import ConfigError


def _cfg(players=3, game="kuhn_tree", **sampler):
    return {"game": {"name": game, "players": players}, "rule": {"name": "rm"}, "averaging": {"name": "uniform"},
            "sampler": {"name": "external", **sampler}, "solver": {"seed": 7, "eval_every": 1000}}


def _run(cfg, iterations):
    a = load_config(cfg)
    r = run_solve(a, iterations=iterations)
    return r, np.concatenate([np.asarray(s) for s in r.strategy])


@pytest.mark.parametrize("players", [2, 3])
def test_pruning_skips_nodes_and_reproduces(players):
    """The same seed gives the same strategy bit for bit; pruning visits fewer nodes than the
    same run without it; with prune_probability 0 nothing changes at all."""
    plain, s_plain = _run(_cfg(players), 3000)
    pruned, s_pruned = _run(_cfg(players, prune_threshold=-1.0), 3000)
    again, s_again = _run(_cfg(players, prune_threshold=-1.0), 3000)
    never, s_never = _run(_cfg(players, prune_threshold=-1.0, prune_probability=0.0), 3000)
    visited = [r.metrics[-1]["nodes_touched"] for r in (plain, pruned, again, never)]
    assert visited[1] < 0.85 * visited[0]
    assert visited[1] == visited[2] and np.array_equal(s_pruned, s_again)
    assert visited[3] == visited[0] and np.array_equal(s_never, s_plain)
    assert not np.array_equal(s_pruned, s_plain)


def test_prune_start_delays_pruning():
    """Before prune_start nothing is pruned: a run that ends there equals the plain run."""
    _, s_plain = _run(_cfg(), 400)
    _, s_late = _run(_cfg(prune_threshold=-0.5, prune_start=400), 400)
    _, s_early = _run(_cfg(prune_threshold=-0.5), 400)
    assert np.array_equal(s_late, s_plain) and not np.array_equal(s_early, s_plain)


def test_pruned_averages_and_regrets_are_unbiased():
    """One pruning-enabled pass of 3-player Kuhn over many seeds: the average increments of
    player 2 (who updated before player 0) and player 0's regret deltas, the pruned actions' and
    those below them included, average to the full pass's (nkernels, no sampling), although half
    the traversals prune (a skipped action's regret once got no share of the pruning traversals'
    updates: its expected delta was 1 - prune_probability of the unpruned one)."""
    from solverkit.efg import nkernels, sampled

    a = load_config(_cfg())
    game = a.game
    t, base, ib = game.tree, game._base, game._ibase
    S = int(base[-1])
    rng = np.random.default_rng(3)
    reg0 = np.abs(rng.normal(size=S)) + 0.05
    # player 0: the first action of every other set far below the threshold (policy 0 there)
    lay = game.layout(0)
    low = lay.block_start[::2]
    reg0[base[0] + low] = -50.0
    sig, d, ac, reach, v = game._nbufs()[:5]
    game._profile([reg0[base[p]:base[p + 1]] for p in range(3)], sig)
    nkernels.cfr_pass_n(t.node, t.prob, t.utils, base, sig, 1, 4, reach, v, d, ac)
    full = ac[base[2]:base[3]].copy()
    full_regret = d[base[0]:base[1]].copy()
    K = 6000
    draws = np.empty((K, full.size))
    deltas = np.empty((K, full_regret.size))
    visited = np.empty(K)
    for seed in range(K):
        reg, avg = reg0.copy(), np.zeros(S)
        visited[seed] = sampled.sampled_block_n(
            sampled.MODES["external"], 0.0, seed, 0, np.array([1]), np.array([1]), np.array([4]),
            np.array([-np.inf]), np.array([1.0]), np.ones(1), np.array([-10.0]), 0.5, t.node, t.prob, t.utils,
            t.infoset, base, ib, reg, avg, game._avg_scale_n("external"), *game._sampling_bufs_n())
        draws[seed] = avg[base[2]:base[3]]
        deltas[seed] = reg[base[0]:base[1]] - reg0[base[0]:base[1]]
    for got, want in ((draws, full), (deltas, full_regret)):
        err = np.abs(got.mean(axis=0) - want)
        se = got.std(axis=0) / np.sqrt(K)
        assert np.all(err <= 5.0 * se + 1e-9), (err / np.maximum(se, 1e-300)).max()
    pruned = np.flatnonzero(reg0[base[0]:base[1]] < -10.0)
    assert np.abs(full_regret[pruned]).max() > 0.02  # the pruned actions' expected deltas are not 0
    assert len(set(visited)) > 1  # some traversals pruned, some did not



def test_two_player_pruned_regrets_are_unbiased():
    """Two-player kernel, 2-player Leduc: player 0's traversal from the same regrets, seed by
    seed, pruning with probability 1/2 and not at all: the regret deltas differ by 0 in the mean
    (within 5 standard errors) everywhere, skipped actions and what lies below them included."""
    from solverkit.efg import sampled

    game = load_config(_cfg(2, "leduc_tree")).game
    t = game.tree
    rng = np.random.default_rng(4)
    start = [np.abs(rng.normal(size=game.layout(p).size)) + 0.05 for p in (0, 1)]
    start[0][::3] = -50.0  # far below the threshold; every set keeps a positive regret
    a0, a1 = game._avg_scale("external")
    one = np.ones(1, dtype=np.int64)
    K = 4000
    diff = np.empty((K, start[0].size))
    for seed in range(K):
        out = []
        for p in (0.5, 0.0):
            r0, r1 = start[0].copy(), start[1].copy()
            sampled.sampled_block(sampled.MODES["external"], 0.0, seed, 0, one, one, 0 * one, np.array([-np.inf]),
                                  np.ones(1), np.ones(1), np.array([-10.0]), p, t.node, t.prob, t.util, t.infoset,
                                  r0, r1, r0, r1, np.zeros(r0.size), np.zeros(r1.size), a0, a1,
                                  *game._sampling_bufs())
            out.append(r0)
        diff[seed] = out[0] - out[1]
    mean, se = diff.mean(axis=0), diff.std(axis=0) / np.sqrt(K)
    assert np.all(np.abs(mean) <= 5.0 * se + 1e-9), (np.abs(mean) / np.maximum(se, 1e-300)).max()
    assert (se > 0).sum() > 20  # pruning changed the updates of many values in some traversals

def test_lcfr_until_lazy_weights_are_its_discounts():
    """lcfr's increment weight w_t is 1 / (product of its discounts after iterations 1..t-1),
    so that weighted sums are the discounted regrets times a constant; until = N stops both."""
    from solverkit.rules import LinearCFR

    for until in (0, 5):
        rule = LinearCFR(until=until)
        prod = 1.0
        for t in range(1, 30):
            assert rule.increment_weight(t) == pytest.approx(1.0 / prod, rel=1e-12)
            pos, neg, _ = rule.coefficients(t)
            assert pos == neg
            prod *= pos
        if until:
            assert rule.coefficients(until + 1)[0] == 1.0 and rule.coefficients(until)[0] < 1.0


def test_lcfr_sampled_runs_in_the_tree_engine_only():
    """Sampled lcfr (lazy weights) runs in the tree engine and differs from rm once it
    discounts; the poker engine, which would have to rescale whole arrays, refuses it."""
    cfg = _cfg()
    _, s_rm = _run(cfg, 50)
    cfg["rule"] = {"name": "lcfr", "until": 20}
    r, s_lcfr = _run(cfg, 50)
    assert r.iterations == 50 and not np.array_equal(s_rm, s_lcfr)
    # poker's public-chance engine rescales whole arrays: lcfr stays refused there
    with pytest.raises(ConfigError, match="rescales every stored regret"):
        load_config({"game": {"name": "kuhn"}, "rule": {"name": "lcfr"}, "averaging": {"name": "uniform"},
                     "sampler": {"name": "public_chance"}})


def test_prune_threshold_refused_where_nothing_prunes():
    """A positive threshold, and a game whose engine runs external sampling without pruning,
    are refused by name; the poker engine's samplers have no such parameter."""
    import types

    a = load_config(_cfg(prune_threshold=-3))
    assert math.isclose(a.sampler.prune_threshold(), -3.0)
    other = types.SimpleNamespace(name="other", samplers=("external",))
    with pytest.raises(ConfigError, match="does not prune"):
        a.sampler.check(other, a.rule, a.averaging)
    with pytest.raises(ConfigError, match="prune_threshold"):
        load_config(_cfg(prune_threshold=5.0))
    with pytest.raises(ConfigError, match="prune_threshold"):
        load_config({"game": {"name": "kuhn"}, "rule": {"name": "rm"}, "averaging": {"name": "uniform"},
                     "sampler": {"name": "public_external", "prune_threshold": -5.0}})
