"""Review of the compact N-player passes (solverkit.efg.npasses): on random small games of 3 to
10 players with chance nodes inside the tree and imperfect information (perfect recall), every
full pass (one player's, alternating; several players' at once) gives nkernels' reference passes'
numbers bit for bit. A game of more than 8 players once lost its player's high bits in the
compact table (3 bits a player: player 8 read as player 0) and got another player's regrets."""

from __future__ import annotations

import zlib

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solverkit.core.arith import regret_matching
from solverkit.efg import TreeGame, nkernels, npasses


class RandomNGame(TreeGame):
    """A random game fixed by (seed, players): who acts, how many actions, where chance moves and
    the terminal utilities are hashes of the history; a player's information set is what it
    observed in order (its own actions and chance's outcomes), so recall is perfect and the others'
    actions are hidden."""

    name = "random_n"

    def __init__(self, seed: int, players: int, depth: int = 5):
        self.seed, self.num_players, self.depth = seed, players, depth
        super().__init__()

    def _h(self, *parts) -> int:
        return zlib.crc32(repr((self.seed, *parts)).encode())

    def _kind(self, s):
        """'t' terminal, 'c' chance or the acting player."""
        r = self._h("kind", s) % 10
        if len(s) >= self.depth or (s and r < 2):
            return "t"
        if s and r < 4:
            return "c"
        return self._h("who", s) % self.num_players

    def initial_state(self):
        return ()

    def is_terminal(self, s):
        return self._kind(s) == "t"

    def returns(self, s):
        return tuple(((self._h("u", s, p) % 2001) - 1000) / 100.0 for p in range(self.num_players))

    def player(self, s):
        k = self._kind(s)
        return self.CHANCE if k == "c" else k

    def chance_outcomes(self, s):
        w = [1 + self._h("p", s, a) % 7 for a in range(2 + self._h("n", s) % 2)]
        return [(f"c{a}", x / sum(w)) for a, x in enumerate(w)]

    def _seen(self, s, p):
        out = []
        for j in range(len(s)):
            k = self._kind(s[:j])
            if k == "c" or k == p:
                out.append(s[j])
        return out

    def infoset_key(self, s, p):
        return f"{p}|" + ",".join(self._seen(s, p))

    def legal_actions(self, s):
        p = self._kind(s)
        return [f"a{a}" for a in range(2 + self._h("acts", self.infoset_key(s, p)) % 2)]

    def child(self, s, a):
        return (*s, a)


def _profile(game, seed):
    """Every player's policy (concatenated), some actions at probability 0."""
    reg = np.random.default_rng(seed).normal(size=int(game._base[-1])) + 0.3
    sig = np.zeros_like(reg)
    regret_matching(reg, *game._concat_blocks(), sig)
    return sig


def _passes(game, sig, upd, am):
    """(reference d, ac), (compact d, ac) of the pass updating `upd`'s players, averaging `am`'s."""
    t, N, P, S, base = game.tree, game.tree.num_nodes, game.num_players, int(game._base[-1]), game._base
    ref = np.full(S, 7.0), np.zeros(S)
    if upd & (upd - 1) == 0 and (am == 0 or am == 1 << ((upd.bit_length() - 2) % P)):
        i = upd.bit_length() - 1
        nkernels.cfr_pass_one(t.node, t.prob, t.utils, base, sig, i, (i - 1) % P, am != 0, np.zeros(N), np.zeros(N),
                              np.zeros(N), *ref)
    else:
        nkernels.cfr_pass_n(t.node, t.prob, t.utils, base, sig, upd, am, np.zeros((N, P + 1)), np.zeros((N, P)), *ref)
    cn, ut = npasses.compact_nodes(t.node, t.utils, base)
    got = np.full(S, 7.0), np.zeros(S)
    npasses.pass_any(cn, t.prob, ut, t.utils, base, sig, upd, am, np.zeros((N, P + 1)), np.zeros((N, P)), *got,
                     np.zeros(N), np.zeros(N), np.zeros(N))
    return ref, got


def _check(game, seed):
    P, base = game.num_players, game._base
    sig = _profile(game, seed)
    rng = np.random.default_rng(seed)
    for i in range(P):
        qa = (i - 1) % P
        lo, hi = base[i], base[i + 1]
        (d0, a0), (d1, a1) = _passes(game, sig, 1 << i, 1 << qa)
        assert np.array_equal(d0[lo:hi], d1[lo:hi]), (P, i)
        assert np.array_equal(a0[base[qa]:base[qa + 1]], a1[base[qa]:base[qa + 1]]), (P, qa)
    for upd in (int(rng.integers(1, 1 << P)), (1 << P) - 1):
        am = int(rng.integers(0, 1 << P))
        (d0, a0), (d1, a1) = _passes(game, sig, upd, am)
        for p in range(P):
            if (upd >> p) & 1:
                assert np.array_equal(d0[base[p]:base[p + 1]], d1[base[p]:base[p + 1]]), (P, p, upd)
            if (am >> p) & 1:
                assert np.array_equal(a0[base[p]:base[p + 1]], a1[base[p]:base[p + 1]]), (P, p, am)


def test_a_game_of_more_than_eight_players_keeps_each_players_regrets():
    """Player 8 of 9 (and 9 of 10) acts in these games: the compact table must name it."""
    for seed, P in ((3, 9), (5, 10)):
        game = RandomNGame(seed, P, depth=6)
        acting = set(game.tree.node[game.tree.node[:, 0] == npasses.DECISION, 1].tolist())
        assert max(acting) >= 8, acting
        _check(game, seed)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), players=st.integers(3, 6))
def test_random_n_player_games_give_the_reference_passes_numbers(seed, players):
    game = RandomNGame(seed, players)
    _check(game, seed)


def test_the_int64_table_of_a_huge_tree_gives_the_same_numbers():
    """Past 2^31 nodes or values the table is int64 (no tree here is that large: the same table
    widened runs the int64 specialisation of the passes)."""
    game = RandomNGame(11, 4, depth=6)
    t, N, P, S, base = game.tree, game.tree.num_nodes, game.num_players, int(game._base[-1]), game._base
    cn, ut = npasses.compact_nodes(t.node, t.utils, base)
    sig = _profile(game, 11)
    for upd, am in ((1 << 2, 1 << 1), ((1 << P) - 1, (1 << P) - 1)):
        out = []
        for table in (cn, cn.astype(np.int64)):
            d, ac = np.full(S, 7.0), np.zeros(S)
            npasses.pass_any(table, t.prob, ut, t.utils, base, sig, upd, am, np.zeros((N, P + 1)), np.zeros((N, P)),
                             d, ac, np.zeros(N), np.zeros(N), np.zeros(N))
            out.append((d, ac))
        assert np.array_equal(out[0][0], out[1][0]) and np.array_equal(out[0][1], out[1][1])
