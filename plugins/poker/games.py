"""Poker games defined by ACPC game files: limit files, and no-limit files under an action
abstraction (solverkit.poker.nolimit_game)."""

from solverkit.core.params import Param
from solverkit.efg.tree import TreeGame
from solverkit.errors import ConfigError
from solverkit.poker import nolimit_game
from solverkit.poker.game import PokerGame
from solverkit.poker.gamedef import bundled_names, load_any_gamedef, load_gamedef
from solverkit.poker.gamedef_nolimit import NoLimitGameDef


#: parameters of the games of 3+ players (the tree engine's), refused with two players
NPLAYER_PARAMS = {k: TreeGame.engine_params[k] for k in ("max_nodes", "split_actions")}


def _applicable(params: dict, tree: bool) -> list[str]:
    """The parameter names `solverkit info` lists for a poker game name: on the tree engine (3+
    players) none of the poker engine's own (refused there), on the poker engine none of the
    tree engine's (refused with 2 players)."""
    drop = PokerGame.engine_params if tree else NPLAYER_PARAMS
    return [k for k in params if k not in drop]


def _two_player_only(game: str, config: dict) -> None:
    """ConfigError for a tree-engine parameter given to a two-player poker-engine game."""
    for key, p in NPLAYER_PARAMS.items():
        if config.get(key, p.default) not in (p.default, None):
            raise ConfigError(f"[game] {key} = {config[key]!r} applies to games of 3 or more players (the tree engine); "
                              f"{game} here has 2 players (the poker engine: [game] split_round cuts it); remove {key}")


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
        **NPLAYER_PARAMS,
    }

    def __new__(cls, *args, **params):
        """A file of 3 to 6 players is solved on the tree engine (solverkit_poker.nplayer_tree);
        two players on the poker engine."""
        from .nplayer_tree import acpc_game, players_of

        if params.get("gamedef") is not None and players_of(params["gamedef"]) > 2:
            return acpc_game(params)
        return super().__new__(cls)

    def __init__(self, **params):
        _two_player_only("acpc", params)
        super().__init__(**params)

    @classmethod
    def size_report(cls, params: dict) -> list[tuple[str, str]]:
        from .nplayer_tree import players_of

        if params.get("gamedef") is not None and players_of(params["gamedef"]) > 2:
            return cls(**params).tree_size_rows()  # 3+ players: the tree engine's game, built
        return super().size_report(params)

    @classmethod
    def info_params(cls, params: dict) -> list[str]:
        """The parameters that apply to this file's game (its number of players): `solverkit info`'s list."""
        from .nplayer_tree import players_of

        return _applicable(cls.params, params.get("gamedef") is not None and players_of(params["gamedef"]) > 2)

    @classmethod
    def local_files(cls, params):
        """`gamedef` when it is a file, not a bundled name."""
        name = params.get("gamedef")
        return {} if name in bundled_names("any", None) else super().local_files(params)

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


class NPlayerPoker(PokerGame):
    """Kuhn or Leduc: two players on the poker engine; ``players = 3..6`` gives OpenSpiel's
    N-player rules on the tree engine (the tree game named :attr:`tree_name`)."""

    tree_name = ""
    params = {
        **PokerGame.params,
        "players": Param("int", 2, "players (2 to 6; 3+ follow OpenSpiel's N-player rules on the tree engine, "
                         "docs/players.md)", min=2, max=6),
        **NPLAYER_PARAMS,
    }

    def __new__(cls, *args, **params):
        players = int(params.get("players") or 2)
        if players > 2:
            from solverkit.core.registry import get_registry

            from .nplayer_tree import tree_params

            tree_cls = get_registry().get("game", cls.tree_name)
            return tree_cls(**{**tree_params(params, cls.name, players), "players": players})
        return super().__new__(cls)

    def __init__(self, **params):
        _two_player_only(self.name, params)
        super().__init__(**params)

    def engine_for_sampler(self, scheme: str):
        """The tree engine's two-player game (:attr:`tree_name`) when it runs `scheme` (outcome
        sampling) and no poker-engine-only parameter is set (the error then names the engines)."""
        from solverkit.core.registry import get_registry

        from .nplayer_tree import REFUSED, tree_params

        tree_cls = get_registry().get("game", self.tree_name)
        if scheme not in tuple(getattr(tree_cls, "samplers", ("full",))):
            return None
        if any(self.config.get(k, d) not in (d, None) for k, d in REFUSED.items()):
            return None
        return tree_cls(**tree_params(self.config, self.name, 2))

    def gamedef(self):
        """The bundled ACPC definition named as the game (kuhn, leduc)."""
        return load_gamedef(self.name)

    @classmethod
    def size_report(cls, params: dict) -> list[tuple[str, str]]:
        if int(params.get("players") or 2) > 2:
            return cls(**params).tree_size_rows()  # 3+ players: the tree engine's game, built
        return super().size_report(params)

    @classmethod
    def info_params(cls, params: dict) -> list[str]:
        """The parameters that apply with these players (`solverkit info`'s list)."""
        return _applicable(cls.params, int(params.get("players") or 2) > 2)


class Kuhn(NPlayerPoker):
    """Kuhn poker (Kuhn 1950): 3 cards, ante 1, one bet of 1. Value for the first player: -1/18."""

    name = "kuhn"
    description = "Kuhn poker (3 cards, one bet; players = 3..6 on the tree engine)"
    tree_name = "kuhn_tree"


class Leduc(NPlayerPoker):
    """Leduc hold'em (Southey et al. 2005): 6 cards, two rounds, one board card."""

    name = "leduc"
    description = "Leduc hold'em (6 cards, 2 rounds; players = 3..6 on the tree engine)"
    tree_name = "leduc_tree"
