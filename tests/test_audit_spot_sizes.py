"""Audit of a spot's betting tree against docs/spots.md (the spec): per-player overrides of one
street (`[game.sizes.ip.river]`), donk sizes (the first actor leading into the player who bet the
last street; the bet sizes by default; `donk = ""`: none), "52%" (a raise: of the pot after
calling), "2.5x", "40c", "a", "e" / "2e" / "2e150%", raise_limit. Every expected label below was
worked out by hand from the docs' wording, not read off the code."""

from __future__ import annotations

import pytest

from solverkit.poker.betting import DECISION, ROUND_END
from solverkit.poker.spot import HoldemSpot


def labels_by_path(board, sizes, **extra):
    """{path: action labels} of every decision node (street-end cards skipped)."""
    game = HoldemSpot(board=board, pot=100, stack=1000, oop_range="AA", ip_range="KK", sizes=sizes, **extra)
    bet = game.tree.bet
    out = {}

    def walk(node, path):
        if bet.kind[node] == ROUND_END:
            walk(int(bet.children[node, 0]), path)
        elif bet.kind[node] == DECISION:
            labels = game.action_labels(node)
            out[",".join(path)] = labels
            for a, lab in enumerate(labels):
                walk(int(bet.children[node, a]), path + [lab])

    walk(0, [])
    return out


RIVER = "QsJh2h7d3c"
TURN = "QsJh2h7d"


def test_river_per_player_override_and_raise_sizes():
    """pot 100, stack 1000. Both: bet 50%, all-in; raise 60% of the pot after calling. ip's
    override: bet 70% only (its raise stays the shared 60%). raise_limit 1: no re-raise."""
    got = labels_by_path(RIVER, {"river": {"bet": "50%, a", "raise": "60%"}, "ip": {"river": {"bet": "70%"}}},
                         raise_limit=1)
    assert got[""] == ["check", "bet 50", "allin 1000"]
    assert got["check"] == ["check", "bet 70"]  # ip's own bet sizes, no all-in
    assert got["bet 50"] == ["fold", "call", "raise 170"]  # 50 + 60% x (100 + 2 x 50)
    assert got["check,bet 70"] == ["fold", "call", "raise 214"]  # 70 + 60% x (100 + 2 x 70)
    assert got["bet 50,raise 170"] == ["fold", "call"]  # raise_limit 1
    assert got["allin 1000"] == ["fold", "call"]


def test_chips_and_multiples():
    """"40c" bets 40 chips; "2.5x" raises to 2.5 times the bet faced."""
    got = labels_by_path(RIVER, {"river": {"bet": "40c", "raise": "2.5x"}}, raise_limit=1)
    assert got[""] == ["check", "bet 40"] and got["check"] == ["check", "bet 40"]
    assert got["bet 40"] == ["fold", "call", "raise 100"]


def test_geometric_sizes():
    """Turn, pot 100, stack 1000: "e" spreads the stack over the streets left (two): (1 + 2f)^2 x
    100 = 2100, f = 1.791, a bet of 179; "2e" the same; "1e" all-in now; "2e150%" at most 150."""
    got = labels_by_path(TURN, {"turn": {"bet": "e"}})
    assert got[""] == ["check", "bet 179"]
    got = labels_by_path(TURN, {"turn": {"bet": "2e, 1e, 2e150%"}})
    assert got[""] == ["check", "bet 150", "bet 179", "allin 1000"]
    got = labels_by_path(RIVER, {"river": {"bet": "e"}})
    assert got[""] == ["check", "allin 1000"]


DONK_CASES = {
    # donk unset: oop leads the river with its bet sizes after calling ip's turn bet
    "default": ({"turn": {"bet": "50%"}, "river": {"bet": "75%"}, "ip": {"river": {"bet": "33%"}}},
                "bet 150", "bet 150", "bet 75", ["check", "bet 66"]),
    "donk 25%": ({"turn": {"bet": "50%"}, "river": {"bet": "75%", "donk": "25%"}},
                 "bet 50", "bet 150", "bet 75", ["check", "bet 150"]),
    "no donk": ({"turn": {"bet": "50%"}, "river": {"bet": "75%", "donk": ""}},
                None, "bet 150", "bet 75", ["check", "bet 150"]),
    # oop's own river bet sizes are its donk sizes when no donk is given
    "oop override bet": ({"turn": {"bet": "50%"}, "river": {"bet": "75%"}, "oop": {"river": {"bet": "40%"}}},
                         "bet 80", "bet 80", "bet 40", ["check", "bet 150"]),
    "oop override donk": ({"turn": {"bet": "50%"}, "river": {"bet": "75%", "donk": "25%"},
                           "oop": {"river": {"donk": "60%"}}},
                          "bet 120", "bet 150", "bet 75", ["check", "bet 150"]),
}


@pytest.mark.parametrize("case", list(DONK_CASES))
def test_donk_sizes(case):
    """Turn pot 100 (river pot 200 after a 50-chip bet and call, 100 after checks): oop's river
    lead after check, bet 50, call (ip bet the turn: a donk) / after bet 50, call (oop bet it: a
    bet) / after check, check (a bet), and ip's river answer to a check after the donk line."""
    sizes, donk, lead, checked, ip_after = DONK_CASES[case]
    got = labels_by_path(TURN, sizes)
    assert got["check,bet 50,call"] == ["check"] + ([donk] if donk else [])
    assert got["bet 50,call"] == ["check", lead]
    assert got["check,check"] == ["check", checked]
    assert got["check,bet 50,call,check"] == ip_after


def test_raise_limit_zero_and_the_all_in_thresholds():
    """raise_limit 0: a bet, no raise. allin_commit_threshold 0.5 (stack 1000, pot 100): a bet
    after which the bettor has more than 500 in (50 of the pot counted) is an all-in: 460 (510 in)
    and 480 become it, 50 stays. force_allin_threshold 0.3: a bet leaving at most 0.3 x the pot
    behind once called is an all-in: 700 (300 behind, pot 1500) is, 600 (400 behind, 1300) is not."""
    got = labels_by_path(RIVER, {"river": {"bet": "50%, 460c", "raise": "2x"}}, raise_limit=0)
    assert got[""] == ["check", "bet 50", "bet 460"] and got["bet 50"] == ["fold", "call"]
    got = labels_by_path(RIVER, {"river": {"bet": "50%, 460c, 480c"}}, allin_commit_threshold=0.5)
    assert got[""] == ["check", "bet 50", "allin 1000"]
    got = labels_by_path(RIVER, {"river": {"bet": "600c, 700c"}}, force_allin_threshold=0.3)
    assert got[""] == ["check", "bet 600", "allin 1000"]
