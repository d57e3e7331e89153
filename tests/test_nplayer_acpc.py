"""Poker game names with 3 to 6 players: ``kuhn`` / ``leduc`` with ``players = N`` and ``acpc``
files of numPlayers 3+ (limit, or no-limit under fcpa), on the tree engine. Oracles: OpenSpiel's
universal_poker (the ACPC server's game code) walked beside the rules, pyspiel.nash_conv of the
exported policies, and the tree engine's kuhn_tree of the same rules."""

from __future__ import annotations

import time

import numpy as np
import pytest

from solverkit.blueprint.nolimit import parse_nolimit_table
from solverkit.core.config import load_config
from solverkit.core.solver import run_solve
from solverkit.errors import ConfigError
from solverkit.poker.nplayer import parse_table

pyspiel = pytest.importorskip("pyspiel")

LEDUC3 = ("limit", 3, {"numRounds": 2, "blind": "1 1 1", "raiseSize": "2 4", "firstPlayer": "1 1",
                       "maxRaises": "2 2", "numSuits": 2, "numRanks": 4, "numHoleCards": 1, "numBoardCards": "0 1"})
HOLDEM4 = ("limit", 4, {"numRounds": 2, "blind": "1 2 0 0", "raiseSize": "2 4", "firstPlayer": "3 1",
                        "maxRaises": "3 2", "numSuits": 4, "numRanks": 6, "numHoleCards": 2, "numBoardCards": "0 3"})
NOLIMIT3 = ("nolimit", 3, {"numRounds": 2, "blind": "1 2 0", "stack": "12 12 12", "firstPlayer": "3 1",
                           "numSuits": 2, "numRanks": 3, "numHoleCards": 1, "numBoardCards": "0 1"})
NOLIMIT3_ONE = ("nolimit", 3, {"numRounds": 1, "blind": "1 2 0", "stack": "9 9 9", "firstPlayer": "3",
                               "numSuits": 1, "numRanks": 4, "numHoleCards": 1, "numBoardCards": "0"})


def _text(spec) -> str:
    betting, players, fields = spec
    return "\n".join(["GAMEDEF", betting, f"numPlayers = {players}", *(f"{k} = {v}" for k, v in fields.items()),
                      "END GAMEDEF"])


def _universal(spec):
    betting, players, fields = spec
    extra = {"bettingAbstraction": "fcpa"} if betting == "nolimit" else {}
    return pyspiel.load_game("universal_poker", {"betting": betting, "numPlayers": players, **fields, **extra})


def _rules(spec):
    """The rules of `spec` without enumerating its tree (walked through the description methods)."""
    from solverkit_poker.nplayer_tree import AcpcTreeGame

    game = object.__new__(AcpcTreeGame)
    table = parse_nolimit_table(_text(spec)) if spec[0] == "nolimit" else parse_table(_text(spec))
    game.set_rules(table, "fcpa", 10**15, "test")
    return game


@pytest.mark.parametrize("spec, limit", [(LEDUC3, 12_000), (HOLDEM4, 12_000), (NOLIMIT3, 12_000),
                                         (NOLIMIT3_ONE, None)],
                         ids=["leduc3", "holdem4", "nolimit3", "nolimit3-one-round"])
def test_rules_walk_beside_universal_poker(spec, limit):
    """Depth first beside OpenSpiel's universal_poker: the same player, chance cards, actions (f c r,
    or fcpa's f c p a), terminals and every player's returns (folds, showdowns, split pots, all-ins)."""
    ours, os_game = _rules(spec), _universal(spec)
    letters = "fcpa" if spec[0] == "nolimit" else "fcr"
    stack = [(ours.initial_state(), os_game.new_initial_state())]
    n = terminals = 0
    while stack and (limit is None or n < limit):
        a, b = stack.pop()
        n += 1
        assert ours.is_terminal(a) == b.is_terminal(), b.history_str()
        if b.is_terminal():
            terminals += 1
            assert np.allclose(ours.returns(a), b.returns(), rtol=0, atol=1e-12), b.history_str()
            continue
        if b.is_chance_node():
            assert ours.player(a) == ours.CHANCE, b.history_str()
            outcomes = ours.chance_outcomes(a)
            assert [c for c, _ in outcomes] == [c for c, _ in b.chance_outcomes()], b.history_str()
            stack.extend((ours.child(a, c), b.child(c)) for c, _ in outcomes)
        else:
            assert ours.player(a) == b.current_player(), b.history_str()
            acts = ours.legal_actions(a)
            assert list(acts) == [letters[x] for x in b.legal_actions()], b.history_str()
            stack.extend((ours.child(a, x), b.child(y)) for x, y in zip(acts, b.legal_actions()))
    assert terminals > 100
    if limit is None:
        assert n == ours.count_nodes()


def _solve(table, iterations=20, preset="cfr_plus", **solver):
    a = load_config({"preset": preset, "game": table, "solver": {"iterations": iterations, **solver}})
    return a, run_solve(a)


def _os_nash_conv(game, strategy, os_game):
    table = game.openspiel_table(strategy)
    return pyspiel.nash_conv(os_game, pyspiel.TabularPolicy({k: list(v.items()) for k, v in table.items()}))


@pytest.mark.parametrize("spec", [NOLIMIT3_ONE, ("limit", 3, LEDUC3[2] | {"numRanks": 2})],
                         ids=["nolimit3", "leduc3-small"])
def test_nash_conv_of_an_exported_policy_is_openspiels(spec, tmp_path):
    path = tmp_path / "g.game"
    path.write_text(_text(spec))
    a, r = _solve({"name": "acpc", "gamedef": str(path)}, iterations=15)
    row = r.metrics[-1]
    assert row["nash_conv"] > 0
    assert row["nash_conv"] == pytest.approx(_os_nash_conv(a.game, r.strategy, _universal(spec)), rel=1e-9)


@pytest.mark.parametrize("players", [3, 4])
def test_kuhn_players_and_the_acpc_file_are_kuhn_tree(players, tmp_path):
    """kuhn with players = N, kuhn_tree with players = N and the ACPC file of N-player Kuhn: the
    same rules, so the same NashConv after the same iterations (to the last bit where the trees
    are the same; the ACPC file's tree deals the same cards in the same order)."""
    want = _solve({"name": "kuhn_tree", "players": players})[1].metrics[-1]["nash_conv"]
    assert _solve({"name": "kuhn", "players": players})[1].metrics[-1]["nash_conv"] == want
    if players == 3:
        got = _solve({"name": "acpc", "gamedef": "kuhn.limit.3p"})[1].metrics[-1]["nash_conv"]
    else:
        path = tmp_path / "k4.game"
        path.write_text(_text(("limit", 4, {"numRounds": 1, "blind": "1 1 1 1", "raiseSize": "1", "firstPlayer": "1",
                                            "maxRaises": "1", "numSuits": 1, "numRanks": 5, "numHoleCards": 1,
                                            "numBoardCards": "0"})))
        got = _solve({"name": "acpc", "gamedef": str(path)})[1].metrics[-1]["nash_conv"]
    assert got == pytest.approx(want, rel=1e-12)


def test_a_three_player_acpc_strategy_plays_at_the_table(tmp_path):
    """A solved kuhn.limit.3p strategy at the N-seat dealer plays exactly as kuhn_tree's of the same
    rules: the same chips hand for hand (same seeds) and the same exact values."""
    from solverkit.poker.table import load_table_player, run_table_match

    reports = []
    for name, table in (("acpc", {"name": "acpc", "gamedef": "kuhn.limit.3p"}),
                        ("tree", {"name": "kuhn_tree", "players": 3})):
        run_solve(load_config({"preset": "cfr_plus", "game": table, "solver": {"iterations": 50}}), out=tmp_path / name)
        a = load_table_player(str(tmp_path / name))
        game = a.tree_game
        reports.append(run_table_match([a, load_table_player("call", game), load_table_player(str(tmp_path / name), game)],
                                       hands=60, seed=3))
    acpc, tree = reports
    assert acpc.illegal == [0, 0, 0] and acpc.hands == 60
    assert acpc.sampled == tree.sampled and acpc.exact == pytest.approx(tree.exact, rel=1e-12, abs=1e-15)
    assert acpc.exact[1] < -0.1  # always calling loses


@pytest.mark.parametrize("table, message", [
    ({"name": "acpc", "gamedef": "holdem.limit.3p"}, "hole-card deals as a tree.*blueprint"),
    ({"name": "acpc", "gamedef": "holdem.nolimit.3p"}, "hole-card deals as a tree.*blueprint"),
    ({"name": "acpc", "gamedef": "kuhn.limit.3p", "split_round": 1}, "split_round = 1 is invalid for acpc with 3"),
    ({"name": "kuhn", "players": 3, "trunk_only": True}, "trunk_only = True is invalid for kuhn with 3"),
    ({"name": "kuhn", "split_actions": 2}, "split_actions = 2 applies to games of 3 or more players"),
    ({"name": "leduc", "players": 7}, "players"),
    ({"name": "acpc", "gamedef": "kuhn.limit.3p", "abstraction": "fcpa"}, "limit game"),
    ({"name": "acpc", "gamedef": "kuhn.limit.3p", "max_nodes": 10}, "max_nodes = 10"),
])
def test_bad_n_player_tables_are_refused_at_once(table, message):
    start = time.perf_counter()
    with pytest.raises(ConfigError, match=message):
        load_config({"preset": "cfr", "game": table})
    assert time.perf_counter() - start < 20


def test_bet_size_lists_are_refused_for_n_player_no_limit(tmp_path):
    path = tmp_path / "n3.game"
    path.write_text(_text(NOLIMIT3_ONE))
    with pytest.raises(ConfigError, match="bet-size lists are for two-player games"):
        load_config({"preset": "cfr", "game": {"name": "acpc", "gamedef": str(path), "abstraction": "sizes",
                                               "sizes": {"round0": {"bet": "50%"}}}})
