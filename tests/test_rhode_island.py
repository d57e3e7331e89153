"""True Rhode Island hold'em ranking against a direct reading of the rules."""

import itertools

from solverkit.poker.cards import parse_card
from solverkit_rhode_island.evaluator import ri_rank

ORDER = ["high", "pair", "flush", "straight", "trips", "straight flush"]


def category(cards):
    """The rules, written plainly: category name of three cards."""
    ranks = sorted(c // 4 for c in cards)
    suits = {c % 4 for c in cards}
    straight = ranks in ([0, 1, 12],) or (ranks[1] == ranks[0] + 1 and ranks[2] == ranks[1] + 1)
    if straight and len(suits) == 1:
        return "straight flush"
    if ranks[0] == ranks[2]:
        return "trips"
    if straight:
        return "straight"
    if len(suits) == 1:
        return "flush"
    if len(set(ranks)) == 2:
        return "pair"
    return "high"


def test_categories_of_all_three_card_hands():
    for cards in itertools.combinations(range(52), 3):
        assert ri_rank(*cards, 4) // 4096 == ORDER.index(category(cards))


def r(text):
    return ri_rank(*(parse_card(x, 4, 13) for x in text.split()), 4)


def test_order_within_categories():
    assert r("Ac 2d 3h") < r("2c 3d 4h") < r("Qc Kd Ah")  # A-2-3 is the lowest straight
    assert r("Ac 2c 3c") < r("Qd Kd Ad")
    assert r("Ac Ad 2h") > r("Kc Kd Ah")  # pair rank first, then kicker
    assert r("Kc Kd Ah") > r("Kc Kd Qh")
    assert r("Ac Kc 9c") > r("Ac Qc Jc")
    assert r("Ah Kd 9c") == r("As Kc 9d")  # suits do not matter outside flushes
