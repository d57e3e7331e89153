"""Poker games defined by ACPC game files: limit files, and no-limit files under an action
abstraction (solverkit.poker.nolimit_game)."""

from solverkit.core.params import Param
from solverkit.poker import nolimit_game
from solverkit.poker.game import PokerGame
from solverkit.poker.gamedef import bundled_names, load_any_gamedef, load_gamedef
from solverkit.poker.gamedef_nolimit import NoLimitGameDef


class AcpcGame(PokerGame):
    """Any two-player game from an ACPC game definition (a bundled name or a path): limit files as
    the ACPC server plays them, no-limit files under fcpa or [game.sizes] bet-size lists."""

    name = "acpc"
    description = "2-player poker from an ACPC game file (bundled name or path; limit, or no-limit with fcpa/sizes)"
    params = {
        **PokerGame.params,
        "gamedef": Param("str", None, "bundled name (kuhn, leduc, rhode, leduc.nolimit, ...) or .game path",
                         required=True, file=True),
        **nolimit_game.PARAMS,
    }

    @classmethod
    def local_files(cls, params):
        """`gamedef` when it is a file, not a bundled name."""
        name = params.get("gamedef")
        return {} if name in bundled_names("any") else super().local_files(params)

    @property
    def nolimit(self) -> bool:
        return isinstance(self.gd, NoLimitGameDef)

    def gamedef(self):
        gd = load_any_gamedef(self.config["gamedef"])
        nolimit_game.check_params(gd, self.config)
        return gd

    def betting_counts(self):
        return nolimit_game.counts(self) if self.nolimit else None

    def betting_tree(self):
        return nolimit_game.tree(self) if self.nolimit else super().betting_tree()

    def action_labels(self, node: int) -> list[str]:
        return nolimit_game.action_labels(self, node) if self.nolimit else super().action_labels(node)

    def report_strategy(self, strategy, limit: int = 200):
        """No-limit games: the per-hand tables of any hole-card count (the preflop chart colours
        three limit actions)."""
        if not self.nolimit or self.gd.num_hole_cards == 1:
            return super().report_strategy(strategy, limit)
        return nolimit_game.report_tables(self, strategy, limit)


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
