"""The searching agent plays the re-solved policy of its own hand: a spot keeps each player's range's
hands (tree.side(p)), not every combo either range holds, so where the two ranges differ (Bayes
ranges of a blueprint with zeros) a hand's place in the strategy is its place among its player's
hands. Before the fix the agent read the row of another hand there."""

from __future__ import annotations

import numpy as np

from solverkit.poker.acpc_protocol import MatchState
from solverkit.poker.cards import card_name
from solverkit.poker.ranges import COMBO_CARDS

from .test_spot_search import _player

BOARD = [20, 30, 40, 50, 9]
STATE = "cr300c/cc/cc/"  # the river, 300 chips each in; position 0 acts first


def _spot_and_strategy():
    """A river spot (pot 600, stack 19,700) whose ranges differ, and a pure strategy: at the root, the
    k-th hand of player 0's range takes action k mod A."""
    from solverkit.search.spot_search import _with_ranges

    live = ~np.isin(COMBO_CARDS, BOARD).any(axis=1)
    rng = np.random.default_rng(3)
    w = np.stack([live * (rng.random(1326) < 0.5), live * (rng.random(1326) < 0.5)]).astype(np.float64)
    table = {"name": "holdem_spot", "board": "".join(card_name(c, 4, 13) for c in BOARD), "pot": 600,
             "stack": 19700, "oop_range": "AA", "ip_range": "AA", "sizes": {"river": {"bet": "100%", "raise": "a"}}}
    game = _with_ranges(w, table)
    bet = game.tree.bet
    A = int(bet.num_actions[0])
    mine = np.flatnonzero(w[0] > 0)  # player 0's hands, in combo order (written here from the ranges)
    own = (bet.kind == 0) & (bet.player == 0)
    strategy = [np.zeros(game.tree.side(0).num_hands * int(bet.num_actions[own].sum())), None]
    for k in range(mine.size):
        g, _ = game.locate((tuple(sorted(BOARD)),), tuple(int(c) for c in COMBO_CARDS[mine[k]]))
        off = game.value_offset(0, g, k)
        strategy[0][off + k % A] = 1.0
    return game, strategy, w, mine, A


def test_the_agent_plays_its_own_hands_row_of_the_re_solve():
    game, strategy, w, mine, A = _spot_and_strategy()
    kept = np.flatnonzero((w[0] > 0) | (w[1] > 0))
    # hands whose place among all kept combos differs from their place in player 0's range
    moved = [k for k in range(mine.size) if int(np.flatnonzero(kept == mine[k])[0]) != k and k % A != 0]
    assert len(moved) > 20
    for k in moved[:: max(1, len(moved) // 25)]:
        hole = tuple(int(c) for c in COMBO_CARDS[mine[k]])
        p = _player(iterations=1, first_round=3)
        state = MatchState(0, 1, STATE, (hole, ()), ((20, 30, 40), (50,), (9,)))
        p._spot = lambda *_: (game, strategy)
        token = p.act(state, np.random.default_rng(0))
        want = k % A
        amount = int(game.tree.bet.amounts[0, want])
        expected = "c" if want == 0 else f"r{min(amount, 20000)}"
        assert token == expected, (k, token, expected)


def test_spot_policies_is_spot_policy_of_every_combo():
    """The vectorised lookup (one board id and row per combo, then offsets) equals the per-hand
    spot_policy at the first street's nodes of a turn spot whose two ranges differ."""
    from solverkit.search.spot_search import spot_policies, spot_policy

    p = _player("random", iterations=3, first_round=2)
    state = MatchState(0, 7, "cr300c/cc/", ((0, 1), ()), ((20, 30, 40), (50,)))
    _, real = p._replay(state)
    game, strategy = p._spot(state, real, p._round_start(state))
    bet = game.tree.bet
    board = (20, 30, 40, 50)
    for n in [int(x) for x in np.flatnonzero((bet.kind == 0) & (bet.round == 0))][:6]:
        got = spot_policies(game, strategy, n, board)
        for c in range(0, 1326, 7):
            row = spot_policy(game, strategy, n, tuple(int(x) for x in COMBO_CARDS[c]), board)
            assert np.array_equal(got[c], row if row is not None else np.zeros(got.shape[1]))
