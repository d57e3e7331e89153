"""Limit poker games defined by ACPC game files."""

from solverkit.core.params import Param
from solverkit.poker.game import PokerGame
from solverkit.poker.gamedef import bundled_names, load_gamedef


class AcpcGame(PokerGame):
    """Any two-player limit game from an ACPC game definition (a bundled name or a path)."""

    name = "acpc"
    description = "2-player limit poker from an ACPC game file (bundled name or path)"
    params = {
        **PokerGame.params,
        "gamedef": Param("str", None, "bundled name (kuhn, leduc, rhode, ...) or .game path", required=True,
                         file=True),
    }

    @classmethod
    def local_files(cls, params):
        """`gamedef` when it is a file, not a bundled name."""
        name = params.get("gamedef")
        return {} if name in bundled_names() else super().local_files(params)

    def gamedef(self):
        return load_gamedef(self.config["gamedef"])


class Kuhn(PokerGame):
    """Kuhn poker (Kuhn 1950): 3 cards, ante 1, one bet of 1. Value for the first player: -1/18."""

    name = "kuhn"
    description = "Kuhn poker (3 cards, one bet)"

    def gamedef(self):
        return load_gamedef("kuhn")


class Leduc(PokerGame):
    """Leduc hold'em (Southey et al. 2005): 6 cards, two rounds, one board card."""

    name = "leduc"
    description = "Leduc hold'em (6 cards, 2 rounds)"

    def gamedef(self):
        return load_gamedef("leduc")
