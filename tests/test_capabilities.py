"""Capability protocols (solverkit.core.capabilities): which games have which, by structure; and the
refusals where a game lacks the one a command or transport needs."""

from __future__ import annotations

import pytest

from solverkit.core.capabilities import (Decomposes, Decomposition, ExportsOpenSpiel, TakesAbstraction,
                                         holds_subgames, subgame_keys)
from solverkit.core.config import load_config
from solverkit.errors import ConfigError

SPOT = {"name": "holdem_spot", "board": "QsJh2h8d3c", "pot": 20, "stack": 80, "oop_range": "AA,KK",
        "ip_range": "QQ,JJ", "sizes": {"river": {"bet": "50%"}}}


def _game(table):
    return load_config({"preset": "cfr_plus", "game": table}).game


@pytest.mark.parametrize("table, decomposes, exports, abstracts", [
    ({"name": "skewed_pennies"}, False, False, False),
    ({"name": "kuhn"}, True, True, True),
    ({"name": "leduc", "split_round": 1}, True, True, True),
    (SPOT, True, False, True),
    ({"name": "kuhn_tree"}, True, True, False),
])
def test_each_game_has_the_capabilities_its_methods_give(table, decomposes, exports, abstracts):
    game = _game(table)
    assert isinstance(game, Decomposes) is decomposes
    assert isinstance(game, ExportsOpenSpiel) is exports
    assert isinstance(game, TakesAbstraction) is abstracts
    assert issubclass(type(game), ExportsOpenSpiel) is exports  # what export's refusal lists


def test_a_game_not_cut_has_no_subgames_and_one_without_the_capability_neither():
    assert subgame_keys(_game({"name": "skewed_pennies"})) == []
    assert subgame_keys(_game({"name": "leduc"})) == []
    assert len(subgame_keys(_game({"name": "leduc", "split_round": 1}))) > 1
    assert holds_subgames(_game({"name": "skewed_pennies"}))


def test_a_plugin_game_has_a_capability_by_its_methods_alone():
    class Split(Decomposition):  # no Game base: structure is what counts
        name = "split"
        num_players = 2

        def subgame_keys(self):
            return [(0, 1), (0, 2)]

        def subgame_pass(self, key, job, inputs, store):
            return inputs

        def subgame_shape(self):
            return (2, 3)

    game = Split()
    assert isinstance(game, Decomposes)
    assert game.subgame_key_at([0, 2]) == (0, 2) and game.subgame_output_shape(None) == (2, 3)
    with pytest.raises(KeyError, match=r"no subgame at \[9\] in game 'split'"):
        game.subgame_key_at([9])


def test_an_abstraction_of_a_game_without_cards_is_refused_naming_the_game():
    with pytest.raises(ConfigError, match="game 'skewed_pennies' (takes no \\[abstraction\\]|has no card structure)"):
        load_config({"preset": "cfr_plus", "game": {"name": "skewed_pennies"},
                     "abstraction": {"name": "ehs", "buckets": [4]}})


def test_the_zmq_transport_refuses_a_game_without_subgames():
    from solverkit.core.solver import Solver

    a = load_config({"preset": "cfr_plus", "game": {"name": "skewed_pennies"},
                     "transport": {"name": "zmq", "spawn": 0, "workers": 1}})
    with pytest.raises(ConfigError, match="game 'skewed_pennies' has no subgames to run on workers"):
        Solver(a)
