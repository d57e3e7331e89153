"""Real-time search of a heads-up no-limit blueprint (solverkit.search.spot_search) on a stub
blueprint: the real fcpa betting tree of holdem.nolimit.2p.reverse_blinds, one bucket a round (no
bucket table to build) and a policy given per node. Checks Bayes' ranges against a product
written here, the real betting's sizes (off the blueprint's tree) found in the re-solved spot,
and whole hands at the dealer."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from solverkit.blueprint.betting import TERMINAL
from solverkit.blueprint.nolimit import load_any_table, nolimit_tree
from solverkit.errors import SolverkitError
from solverkit.poker.acpc_protocol import MatchState
from solverkit.poker.ranges import COMBO_CARDS

GAMEDEF = "holdem.nolimit.2p.reverse_blinds"


def _stub(policy="uniform", seed=0):
    """(game, strategy): a BlueprintGame-like object over the real fcpa tree, one bucket per round."""
    gd = load_any_table(GAMEDEF)
    tree = nolimit_tree(gd, "fcpa")
    nodes = [np.flatnonzero((tree.kind != TERMINAL) & (tree.player == p)) for p in (0, 1)]
    sizes = [int(tree.nact[n].sum()) for n in nodes]
    base = np.array([0, sizes[0], sizes[0] + sizes[1]], dtype=np.int64)
    off = np.zeros(tree.num_nodes, dtype=np.int64)
    for p in (0, 1):
        off[nodes[p]] = base[p] + np.concatenate(([0], np.cumsum(tree.nact[nodes[p]])[:-1]))
    rng = np.random.default_rng(seed)
    strategy = []
    for p in (0, 1):
        x = np.empty(sizes[p])
        for n in nodes[p]:
            A = int(tree.nact[n])
            o = int(off[n] - base[p])
            w = np.ones(A) if policy == "uniform" else rng.random(A) + 0.05
            x[o:o + A] = w / w.sum()
        strategy.append(x)
    table = SimpleNamespace(bucket_of=lambda r, cards: np.zeros(len(cards), dtype=np.int32))
    bp = SimpleNamespace(tree=tree, off=off, base=base, table=table)
    game = SimpleNamespace(num_players=2, name="blueprint", config={"gamedef": GAMEDEF}, bp=bp)
    return game, strategy


def _player(policy="uniform", **kw):
    from solverkit.search.spot_search import SpotSearchPlayer

    game, strategy = _stub(policy)
    return SpotSearchPlayer(game, strategy, "stub", **kw)


def test_ranges_are_the_blueprints_action_probabilities_per_combo():
    """A random policy (one bucket: the same for every combo): each player's range is the product of
    its action probabilities along the hand's path, zero on combos that meet the board."""
    p = _player("random", iterations=5, first_round=3)
    state = MatchState(0, 1, "cr300c/cc/", ((0, 1), ()), ((20, 30, 40), (50,)))
    p._replay(state)
    start = p._round_start(state)
    assert start == 5
    board = [20, 30, 40, 50]
    reach = p._ranges(state, start, board)
    t, bp = p.tree, p.bp
    want = [1.0, 1.0]
    node = 0
    for child in p._path[:start]:
        q = int(t.player[node])
        want[q] *= p.strategy[q][int(bp.off[node] - bp.base[q]) + child - int(t.first[node])]
        node = child
    live = ~np.isin(COMBO_CARDS, board).any(axis=1)
    for q in (0, 1):
        assert np.allclose(reach[q][live], want[q], rtol=1e-12) and not reach[q][~live].any()


def test_off_tree_sizes_are_in_the_spot_and_whole_hands_play(tmp_path):
    """A bet of a size the blueprint lacks (r777 on the river) is a node of the re-solved spot with
    that amount; a short match through the dealer searches and plays only legal actions."""
    from solverkit.poker.match import run_match
    from solverkit.poker.players import load_player

    p = _player(iterations=20, first_round=3)
    # the river: the opponent (position 0 acts first after the flop) bets 777 chips over 300 each
    state = MatchState(1, 7, "cr300c/cc/cc/r1077", ((), (0, 1)), ((20, 30, 40), (50,), (9,)))
    n, real = p._replay(state)
    assert p.to_act(state) and real.round == 3
    game, _ = p._spot(state, real, p._round_start(state))
    bet = game.tree.bet
    amounts = [int(bet.amounts[0, a]) for a in range(int(bet.num_actions[0]))]
    assert 1077 in amounts  # the real bet, re-solved rather than translated
    token = p.act(state, np.random.default_rng(1))
    assert token == "f" or token == "c" or (token.startswith("r") and 1854 <= int(token[1:]) <= 20000)
    assert p.stats["searched"] == 1
    fresh = _player(iterations=10, first_round=3)
    report = run_match(fresh.game, fresh, load_player("call", fresh.game), hands=8, seed=2, exact=False)
    assert report.illegal == (0, 0) and report.hands == 8 and fresh.stats["searched"] > 0


def test_search_needs_full_holdem():
    from solverkit.search.spot_search import SpotSearchPlayer

    game, strategy = _stub()
    game.config = {"gamedef": "leduc.nolimit"}
    gd = load_any_table("leduc.nolimit")
    from solverkit.blueprint.nolimit import nolimit_tree as nt

    game.bp.tree = nt(gd, "fcpa")
    with pytest.raises(SolverkitError, match="hold'em"):
        SpotSearchPlayer(game, strategy, "x")


def test_a_turn_re_solve_bets_on_the_river_too():
    """A re-solve from the turn has bets on the river (later streets get their own size lists:
    before, a spot built with the current street's sizes alone checked every later street down)."""
    p = _player(iterations=2, first_round=2)
    state = MatchState(1, 7, "cr300c/cc/r900", ((), (0, 1)), ((20, 30, 40), (50,)))
    n, real = p._replay(state)
    assert p.to_act(state) and real.round == 2
    game, _ = p._spot(state, real, p._round_start(state))
    bet = game.tree.bet
    river = (bet.round == 1) & (bet.kind == 0)
    assert river.any() and int(bet.num_actions[river].max()) >= 3  # check, pot, all-in (or more facing)


def test_a_turn_re_solve_bets_the_blueprints_sizes_and_a_river_one_more():
    """A turn spot's first street bets the pot or all-in (TURN_SIZES: a tree small enough for about 100
    iterations in a 3 s budget) plus the real sizes of the round; a river spot keeps 50%, 100%, 200%."""
    p = _player(iterations=1, first_round=2)
    state = MatchState(0, 7, "cr300c/cc/", ((0, 1), ()), ((20, 30, 40), (50,)))
    _, real = p._replay(state)
    game, _ = p._spot(state, real, p._round_start(state))
    bet = game.tree.bet
    assert sorted(int(bet.amounts[0, a]) for a in range(1, int(bet.num_actions[0]))) == [900, 20000]
    state = MatchState(0, 8, "cr300c/cc/cc/", ((0, 1), ()), ((20, 30, 40), (50,), (9,)))
    _, real = p._replay(state)
    game, _ = p._spot(state, real, p._round_start(state))
    bet = game.tree.bet
    assert sorted(int(bet.amounts[0, a]) for a in range(1, int(bet.num_actions[0]))) == [600, 900, 1500, 20000]


def test_an_opponents_raise_off_the_spot_is_re_solved_at_its_size():
    """The turn spot raises all-in only; the opponent's raise to 2,700 over the agent's pot bet is not
    mapped to the all-in but re-solved (the round again, with the real sizes) before the agent acts."""
    p = _player(iterations=3, first_round=2)
    state = MatchState(0, 7, "cr300c/cc/", ((0, 1), ()), ((20, 30, 40), (50,)))
    _, real = p._replay(state)
    first, _ = p._spot(state, real, p._round_start(state))
    state = MatchState(0, 7, "cr300c/cc/r900r2700", ((0, 1), ()), ((20, 30, 40), (50,)))
    _, real = p._replay(state)
    game, strategy, n = p.spot_node(state, real, p._round_start(state))
    assert game is not first and p.stats["searched"] == 2
    bet = game.tree.bet
    assert int(bet.spent[n].max()) == 2700  # the agent faces the real raise in the new spot
    again, _, _ = p.spot_node(state, real, p._round_start(state))
    assert again is game and p.stats["searched"] == 2  # (on the new spot's tree: kept)


def test_a_nested_river_re_solve_takes_the_agents_range_from_its_turn_re_solve():
    """From the turn, the river is re-solved with the agent's range as it played: the turn spot's range
    times the turn re-solve's probability of the agent's bet, per combo (0 on the river card), not the
    blueprint's probabilities at the node its bet maps to (uniform here: every combo alike)."""
    from solverkit.search.spot_search import spot_policy

    p = _player(iterations=5, first_round=2)
    turn = MatchState(0, 7, "cr300c/cc/", ((0, 1), ()), ((20, 30, 40), (50,)))
    _, real = p._replay(turn)
    tgame, tstrategy = p._spot(turn, real, p._round_start(turn))
    river = MatchState(0, 7, "cr300c/cc/r900c/", ((0, 1), ()), ((20, 30, 40), (50,), (9,)))
    _, real = p._replay(river)
    rgame, _ = p._spot(river, real, p._round_start(river))
    bet = tgame.tree.bet
    slot = next(a for a in range(int(bet.num_actions[0])) if int(bet.amounts[0, a]) == 900)
    want = np.zeros(1326)
    base = tgame.ranges()[0]
    for c in range(1326):
        hole = tuple(int(x) for x in COMBO_CARDS[c])
        if base[c] > 0 and 9 not in hole:
            row = spot_policy(tgame, tstrategy, 0, hole, (20, 30, 40, 50))
            want[c] = base[c] * row[slot] / row.sum()
    got = rgame.ranges()[0]
    assert want.std() > 0.01 * want.max()  # (the re-solve's bet does depend on the hand)
    assert np.allclose(got / got.max(), want / want.max(), rtol=1e-6, atol=1e-9)


def test_a_re_solve_after_an_off_tree_raise_keeps_the_nested_range():
    """On the river after a turn re-solve, a re-solve for the opponent's off-tree raise keeps the agent's
    range as it played (the first river spot's), not the blueprint's probabilities again."""
    p = _player("random", iterations=5, first_round=2)
    turn = MatchState(0, 7, "cr300c/cc/", ((0, 1), ()), ((20, 30, 40), (50,)))
    _, real = p._replay(turn)
    p._spot(turn, real, p._round_start(turn))
    river = MatchState(0, 7, "cr300c/cc/r900c/", ((0, 1), ()), ((20, 30, 40), (50,), (9,)))
    _, real = p._replay(river)
    first, _ = p._spot(river, real, p._round_start(river))
    raised = MatchState(0, 7, "cr300c/cc/r900c/r1800r5000", ((0, 1), ()), ((20, 30, 40), (50,), (9,)))
    _, real = p._replay(raised)
    again, _, _ = p.spot_node(raised, real, p._round_start(raised))
    assert again is not first and p.stats["searched"] == 3
    assert np.allclose(again.ranges()[0], first.ranges()[0], rtol=1e-12, atol=0)
    blueprint = p._ranges(raised, p._round_start(raised), [20, 30, 40, 50, 9])[0]
    assert not np.allclose(first.ranges()[0] / first.ranges()[0].max(), blueprint / blueprint.max())


@pytest.mark.parametrize("key", ["nested", "per_card"])
def test_a_blueprint_runs_search_refuses_settings_it_would_ignore(tmp_path, key):
    """A blueprint run's spot search always re-solves each round after its cards, nested: a
    [search] table asking otherwise is refused (one line naming the key), not silently ignored."""
    from solverkit.errors import SolverkitError
    from solverkit.poker.players import _blueprint_player
    from solverkit.search.params import resolve_search

    search = resolve_search({"name": "unsafe", "round": 2, key: False})
    with pytest.raises(SolverkitError, match=rf"\[search\] {key} = false") as err:
        _blueprint_player(tmp_path, None, None, search)
    assert "\n" not in str(err.value)
