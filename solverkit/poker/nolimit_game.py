"""The ``acpc`` game's no-limit side: ACPC ``nolimit`` files under an action abstraction.

A no-limit file's full action space is every bet size in chips, so the game solves an
abstraction of it: ``abstraction = "fcpa"`` (the default) is exactly OpenSpiel universal_poker's
``bettingAbstraction=fcpa`` (fold, call/check, pot-sized bet/raise, all-in;
solverkit.poker.action_tree), so that ``export --format openspiel`` is a policy of the same game
OpenSpiel evaluates; ``[game.sizes]`` tables (the same as holdem_spot's, player tables ``p0`` /
``p1``) give bet-size lists instead, with ``raise_limit`` and the all-in thresholds. Limit files
take none of these: :func:`check_params` refuses them there.
"""

from __future__ import annotations

from ..core.params import Param
from ..errors import ConfigError
from .action_tree import FCPA, betting_counts, build_action_tree, nolimit_rules, to_betting_tree
from .betting import ACTION_CHARS
from .gamedef_nolimit import NoLimitGameDef
from .size_tables import game_size_tables, size_options, street_names

#: [game] parameters of no-limit files (a limit file refuses any of them away from its default)
PARAMS = {
    "abstraction": Param("str", "auto", "no-limit files: fcpa (fold, call, pot, all-in: OpenSpiel's) or sizes "
                         "([game.sizes] tables); auto: sizes when [game.sizes] is given, else fcpa",
                         choices=("auto", "fcpa", "sizes")),
    "sizes": Param("table", {}, "no-limit bet sizes per round: [game.sizes.flop] bet = \"50%, a\", raise = \"3x\" "
                   "(streets preflop..river in hold'em-like files, else round0..); [game.sizes.p1.river] for one "
                   "player"),
    **size_options("with sizes: "),
}
#: the parameters that only bet-size lists use
SIZE_OPTIONS = ("raise_limit", "allin_commit_threshold", "add_allin_threshold", "force_allin_threshold")


def given(config: dict) -> list[str]:
    """The no-limit parameters set away from their defaults."""
    return [k for k, p in PARAMS.items() if k in config and config[k] != p.default]


def abstraction_of(config: dict) -> str:
    """"fcpa" or "sizes": the abstraction a no-limit file is solved under."""
    chosen = config.get("abstraction", "auto")
    if chosen == "auto":
        return "sizes" if config.get("sizes") else FCPA
    return chosen


def check_params(gd, config: dict):
    """ConfigError, before anything is built, for no-limit parameters a game cannot take: any of
    them with a limit file, size options under fcpa, or abstraction = "sizes" without tables."""
    extra = given(config)
    if not isinstance(gd, NoLimitGameDef):
        if extra:
            key = extra[0]
            raise ConfigError(f"[game] {key} = {config[key]!r}: {gd.source} is a limit game (every bet is its "
                              f"raiseSize); {', '.join(PARAMS)} apply to no-limit files only; remove {key}")
        return
    kind = abstraction_of(config)
    if kind == FCPA:
        bad = [k for k in extra if k in ("sizes", *SIZE_OPTIONS)]
        if bad:
            raise ConfigError(f"[game] {bad[0]} = {config[bad[0]]!r}: abstraction = \"fcpa\" is OpenSpiel's fixed "
                              "fold, call, pot, all-in (its raise cap is the file's maxRaises); set abstraction = "
                              "\"sizes\" with [game.sizes] tables, or remove it")
    elif not config.get("sizes"):
        raise ConfigError(f"[game] abstraction = \"sizes\" needs [game.sizes] tables, e.g. [game.sizes.round0] "
                          f"bet = \"100%, a\" (rounds of {gd.source}: {', '.join(street_names(gd.num_board_cards))})")


def rules(game):
    """The BettingRules of a no-limit acpc game (made once per game)."""
    made = game.__dict__.get("_nolimit_rules")
    if made is None:
        c, gd = game.config, game.gd
        if abstraction_of(c) == FCPA:
            made = nolimit_rules(gd, FCPA)
        else:
            abst = game_size_tables(c, street_names(gd.num_board_cards), ("p0", "p1"), min_bet=gd.big_blind)
            made = nolimit_rules(gd, abst)
        game._nolimit_rules = made
    return made


def counts(game):
    """size.BettingCounts of the abstracted tree, counted without building it."""
    return betting_counts(rules(game))


def tree(game):
    """The BettingTree the kernels walk (the ActionTree kept as ``game.action_tree``)."""
    game.action_tree = build_action_tree(rules(game))
    return to_betting_tree(game.action_tree)


def action_labels(game, node: int) -> list[str]:
    """ACPC tokens of a node's actions: 'f', 'c', and 'r<N>' (raise to N chips over the hand), as
    the betting strings of information-set keys write them."""
    bet = game.tree.bet
    out = []
    for a in range(int(bet.num_actions[node])):
        code = int(bet.actions[node, a])
        out.append(f"r{int(bet.amounts[node, a])}" if code >= 2 else ACTION_CHARS[code])
    return out


def report_tables(game, strategy, limit: int = 200):
    """``solverkit report`` of a no-limit game with two hole cards: at the first decision and at
    the answer to an opening pot raise, one row per hand class up to suits (the mean over its
    hands) with each action's probability."""
    import numpy as np

    from ..core.html_table import table
    from .cards import card_name
    from .game import suit_class
    from .preflop import preflop_nodes

    S, R = game.gd.num_suits, game.gd.num_ranks
    out = []
    for title, node in preflop_nodes(game):
        labels = action_labels(game, node)
        p = int(game.tree.bet.player[node])
        classes: dict[tuple, list] = {}
        for h, cards in enumerate(game.tree.hands):
            off = game.value_offset(node, 0, h)
            entry = classes.setdefault(suit_class(cards, S), ["".join(card_name(int(c), S, R) for c in cards), []])
            entry[1].append(strategy[p][off: off + len(labels)])
        rows = [(name, *(f"{x:.3f}" for x in np.mean(probs, axis=0))) for name, probs in classes.values()]
        more = f" (first {limit} of {len(rows)})" if len(rows) > limit else ""
        out.append((f"{title}: mean action probabilities per hand up to suits{more}",
                    table(("hand", *labels), rows[:limit])))
    return out
