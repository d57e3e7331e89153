"""A spot keeps each player's own range: an information set named by its key (``solverkit strategy
--infoset``, the Python API) is found at the slot the layout gives that key, for both players, on
every street (it was found at the hand's place among both ranges' combos: another hand's policy)."""

from __future__ import annotations

import pytest

from solverkit.core.config import load_config
from solverkit.errors import SolverkitError

RIVER = {"name": "holdem_spot", "board": "QsJh2h8d3c", "pot": 20, "stack": 80,
         "oop_range": "AA,KK,33,22,AK,A5s,KQs", "ip_range": "QQ:0.5,JJ,99,88,AQs,A4s,A3s,KJs,65s",
         "sizes": {"river": {"bet": "50%, a", "raise": "a"}}}
TURN = {**RIVER, "board": "QsJh2h8d", "sizes": {"turn": {"bet": "50%"}, "river": {"bet": "a"}}}


@pytest.mark.parametrize("table", [RIVER, TURN], ids=["river", "turn"])
def test_every_key_is_found_at_its_layout_slot(table):
    game = load_config({"preset": "dcfr", "game": table}).game
    assert game.tree.side(0).rows.tolist() != game.tree.side(1).rows.tolist()  # the ranges differ
    for p in (0, 1):
        keys = game.infoset_keys(p)
        slots = list(game.layout(p).infoset_slices())
        assert len(keys) == len(slots)
        impossible = game.impossible_infosets(p)
        step = max(1, len(keys) // 400)
        for i in range(0, len(keys), step):
            if impossible[i]:
                continue
            place = game.infoset_place(keys[i], p)
            assert (place.player, place.offset, len(place.labels)) == (p, *slots[i]), keys[i]


def test_a_hand_outside_the_players_range_is_refused_naming_the_key():
    game = load_config({"preset": "dcfr", "game": RIVER}).game
    with pytest.raises(SolverkitError, match=r"'KhKd\|2h3c8dJhQs\|c': player 1's range does not hold this hand"):
        game.infoset_place("KhKd|2h3c8dJhQs|c")
