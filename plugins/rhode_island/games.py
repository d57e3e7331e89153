"""Rhode Island hold'em: 52 cards, ante 5, one hole card, two board cards, bets 10/20/20."""

from solverkit.poker.game import PokerGame
from solverkit.poker.gamedef import load_gamedef

from .evaluator import strength_function


class RhodeIsland(PokerGame):
    """True Rhode Island hold'em (Shi and Littman 2001; Gilpin and Sandholm 2005), with
    three-card straights and flushes (A-2-3 the lowest straight)."""

    name = "rhode_island"
    description = "Rhode Island hold'em, true three-card ranking"

    def gamedef(self):
        return load_gamedef("rhode")

    def strength_function(self):
        return strength_function


class RhodeIslandAcpc(PokerGame):
    """Rhode Island hold'em ranked by the ACPC evaluator (no three-card straights or flushes),
    the game of the "rhode.game" file."""

    name = "rhode_island_acpc"
    description = "Rhode Island hold'em, ACPC ranking (rhode.game)"

    def gamedef(self):
        return load_gamedef("rhode")
