"""The N-player full passes over the compact node table (solverkit.efg.npasses, issue 27's
speed-up of 6-player Kuhn): the same numbers bit for bit as the reference pass over the tree's
node rows (nkernels.cfr_pass_one for one player, alternating updates; nkernels.cfr_pass_n for all,
simultaneous), on random profiles that play some actions with probability 0 (the pruned paths);
and one player's pass equal to the all-player pass's numbers to rounding (the reach products
are multiplied in another order)."""

from __future__ import annotations

import numpy as np
import pytest

from solverkit.core.arith import regret_matching
from solverkit.core.config import load_config
from solverkit.efg import nkernels, npasses

GAMES = [{"name": "kuhn_tree", "players": 3}, {"name": "kuhn_tree", "players": 4},
         {"name": "acpc", "gamedef": "kuhn.limit.3p"}]


def _game(table):
    return load_config({"preset": "cfr", "game": table}).game


def _profile(game, seed):
    """A random policy of every player, concatenated: regret matching of regrets of which about a
    third are negative (actions played with probability 0)."""
    rng = np.random.default_rng(seed)
    reg = rng.normal(size=int(game._base[-1])) + 0.3
    sig = np.zeros_like(reg)
    regret_matching(reg, *game._concat_blocks(), sig)
    assert (sig == 0.0).any()
    return sig


def _reference(game, sig, upd, am):
    t, N, P, S = game.tree, game.tree.num_nodes, game.num_players, int(game._base[-1])
    d, ac = np.full(S, 7.0), np.zeros(S)
    if upd & (upd - 1) == 0:  # one player: the pass of two reaches and one value per node
        i = upd.bit_length() - 1
        nkernels.cfr_pass_one(t.node, t.prob, t.utils, game._base, sig, i, (i - 1) % P, am != 0, np.zeros(N),
                              np.zeros(N), np.zeros(N), d, ac)
        return d, ac
    nkernels.cfr_pass_n(t.node, t.prob, t.utils, game._base, sig, upd, am, np.zeros((N, P + 1)), np.zeros((N, P)), d, ac)
    return d, ac


def _compact(game, sig, upd, am):
    t, N, P, S = game.tree, game.tree.num_nodes, game.num_players, int(game._base[-1])
    cn, ut = npasses.compact_nodes(t.node, t.utils, game._base)
    d, ac = np.full(S, 7.0), np.zeros(S)
    npasses.pass_any(cn, t.prob, ut, t.utils, game._base, sig, upd, am, np.zeros((N, P + 1)), np.zeros((N, P)), d, ac,
                     np.zeros(N), np.zeros(N), np.zeros(N))
    return d, ac


@pytest.mark.parametrize("table", GAMES, ids=lambda t: f"{t['name']}{t.get('players', '')}")
def test_compact_passes_equal_the_reference_pass_bit_for_bit(table):
    game = _game(table)
    P, base = game.num_players, game._base
    for seed in range(3):
        sig = _profile(game, seed)
        for i in range(P):  # alternating: player i's regrets, the average of the player before it
            qa = (i - 1) % P
            (d0, a0), (d1, a1) = _reference(game, sig, 1 << i, 1 << qa), _compact(game, sig, 1 << i, 1 << qa)
            lo, hi = base[i], base[i + 1]
            assert np.any(d0[lo:hi] != 0.0)
            assert np.array_equal(d0[lo:hi], d1[lo:hi]) and np.array_equal(a0[base[qa]:base[qa + 1]],
                                                                           a1[base[qa]:base[qa + 1]])
            d2 = _reference(game, sig, 1 << i | 1 << (i + 1) % P, 0)[0]  # two players: cfr_pass_n's numbers
            assert np.allclose(d2[lo:hi], d1[lo:hi], rtol=1e-12, atol=1e-15)
        every = (1 << P) - 1  # simultaneous: everyone's regrets and averages
        (d0, a0), (d1, a1) = _reference(game, sig, every, every), _compact(game, sig, every, every)
        assert np.array_equal(d0, d1) and np.array_equal(a0, a1) and np.any(a0 != 0.0)


def test_compact_table_decodes_to_the_tree():
    game = _game(GAMES[1])
    t, base = game.tree, game._base
    cn, ut = npasses.compact_nodes(t.node, t.utils, base)
    assert cn.dtype == np.int32 and cn.shape == (t.num_nodes, 4)
    kind = cn[:, 0] & npasses.KIND_MASK
    assert np.array_equal(kind, t.node[:, 0])
    dec = kind == npasses.DECISION
    player = (cn[:, 0] >> npasses.PLAYER_SHIFT) & npasses.PLAYER_MASK
    assert np.array_equal(player[dec], t.node[dec, 1])
    assert np.array_equal((cn[:, 0] >> npasses.REP_SHIFT) & 1, t.node[:, 3] != 0)
    assert np.array_equal(cn[:, 1:3], t.node[:, [5, 4]])
    assert np.array_equal(cn[dec, 3], base[t.node[dec, 1]] + t.node[dec, 2])
    term = kind == npasses.TERMINAL
    assert np.array_equal(ut[:, cn[term, 3]].T, t.utils[term])
