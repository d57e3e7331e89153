"""Small N-player UX fixes (issue 27): an unknown information set's close matches come from the
asked player's keys; a two-seat match of a 3-player game says how many players it needs;
`solverkit info` shows players and tree nodes of every tree game and lists only the parameters
that apply with that many players."""

from __future__ import annotations

import re

from click.testing import CliRunner

from solverkit.cli import cli
from solverkit.core.config import load_config
from solverkit.errors import SolverkitError


def _kuhn3():
    return load_config({"preset": "cfr", "game": {"name": "kuhn_tree", "players": 3}}).game


def test_unknown_infoset_suggests_only_the_asked_players_keys():
    game = _kuhn3()
    own = set(game.infoset_keys(2))
    for key in ("9s||", "0pb"):  # close to player 0's 'Js||' ...; far from everything
        try:
            game.infoset_place(key, 2)
        except SolverkitError as e:
            shown = re.findall(r"'([^']*)'", str(e).split(";", 1)[1])
        else:
            raise AssertionError(f"{key!r} was found")
        assert shown and set(shown) <= own, (key, shown)


def test_two_seat_match_of_a_three_player_game_names_the_players_it_needs():
    res = CliRunner().invoke(cli, ["match", "random", "call", "--game", "kuhn", "--set", "players=3"])
    assert res.exit_code != 0
    assert "has 3 players" in res.output and "names 3 players" in res.output, res.output
    assert "not a poker game" not in res.output


def _openspiel_nodes(name: str) -> int:
    """Histories of an OpenSpiel game (the oracle of the node count)."""
    import pyspiel

    def walk(state):
        if state.is_terminal():
            return 1
        actions = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
        return 1 + sum(walk(state.child(a)) for a in actions)

    return walk(pyspiel.load_game(name).new_initial_state())


def _info(*args):
    res = CliRunner().invoke(cli, ["info", *args])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    head = lines.index("parameters (--set NAME=VALUE; * = given here, otherwise the default):")
    rows = dict(re.split(r"\s{2,}", ln, maxsplit=1) for ln in lines[:head])
    params = {ln.replace("*", " ").split()[0] for ln in lines[head + 1:]}
    return rows, params


def test_info_of_n_player_games_shows_players_and_nodes_and_only_applicable_parameters():
    poker_only = {"split_round", "chunks", "trunk_only", "parallel_deals", "isomorphism"}
    for args in (["kuhn", "--set", "players=3"], ["kuhn_tree", "--set", "players=3"],
                 ["openspiel", "--set", "game=kuhn_poker(players=3)"]):
        rows, params = _info(*args)
        assert rows["game"].endswith("(3 players, tree engine)"), (args, rows)
        assert rows["tree nodes"] == f"{_openspiel_nodes('kuhn_poker(players=3)'):,}", (args, rows)
        assert not params & poker_only, (args, params)
        assert {"max_nodes", "split_actions"} <= params
    _, params = _info("kuhn")  # two players: the poker engine's own, not the tree engine's
    assert poker_only <= params and not params & {"max_nodes", "split_actions"}
