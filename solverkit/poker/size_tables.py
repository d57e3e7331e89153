"""``[game.sizes]`` tables: bet-size lists per street and player, as a SizeAbstraction.

``[game.sizes.flop]`` (keys ``bet``, ``raise``, ``donk``) applies to both players;
``[game.sizes.ip.river]`` (or ``oop``; ``p0`` / ``p1`` in ACPC games) overrides one player's
street. Streets are named by the cards on the board (``preflop``, ``flop``, ``turn``, ``river``)
in hold'em-like games, else ``round0``, ``round1``, ...; ``round<i>`` always works. A street
without a table has no bets (checks and calls).
"""

from __future__ import annotations

from ..core.params import Param
from ..errors import BetSizeError
from .action_tree import SIZE_KEYS, SizeAbstraction, size_abstraction
from .bet_sizes import parse_bet_sizes

STREETS = ("preflop", "flop", "turn", "river")


def street_names(num_board_cards, first_round: int = 0) -> list[str]:
    """Names of rounds first_round.. of a game dealing ``num_board_cards`` (all rounds): preflop,
    flop, turn, river for hold'em's 0, 3, 1, 1; else round0, round1, ..."""
    holdem = tuple(num_board_cards) == (0, 3, 1, 1)
    return [STREETS[r] if holdem else f"round{r}" for r in range(first_round, len(num_board_cards))]


def parse_size_tables(table: dict, names: list[str], players: tuple[str, str], where: str = "[game.sizes]",
                      ignored: tuple = (), **options) -> SizeAbstraction:
    """The SizeAbstraction of a ``[game.sizes]`` table for the rounds named ``names`` (in
    order; ``round<i>`` aliases the i-th), player override tables named ``players``; streets in
    ``ignored`` are accepted and unused (a turn spot given the flop's sizes too);
    ``options``: SizeAbstraction's other fields (raise_limit, thresholds, min_bet)."""
    if not isinstance(table, dict):
        raise BetSizeError(f"{where} = {table!r}: expected a table of streets ({', '.join(names)})")
    alias = {f"round{i}": name for i, name in enumerate(names)}

    def street_of(key, at):
        name = alias.get(key, key)
        if name not in names and name not in ignored:
            raise BetSizeError(f"{at}.{key}: unknown street; valid: {', '.join(names)}"
                               f"{'' if at != where else ', ' + ', '.join(players) + ' (one player)'}")
        return name

    both: dict[str, dict] = {}
    own: list[dict[str, dict]] = [{}, {}]
    for key, value in table.items():
        if key in players:
            if not isinstance(value, dict):
                raise BetSizeError(f"{where}.{key} = {value!r}: expected a table of streets ({', '.join(names)})")
            for street, spec in value.items():
                own[players.index(key)][street_of(street, f"{where}.{key}")] = _spec(spec, f"{where}.{key}.{street}")
        else:
            both[street_of(key, where)] = _spec(value, f"{where}.{key}")
    per_round = []
    for name in names:  # (ignored streets were collected under their names and are never read)
        pair = []
        for p in (0, 1):
            spec = dict(both.get(name, {}))
            spec.update(own[p].get(name, {}))
            pair.append(spec)
        per_round.append(tuple(pair))
    try:
        return size_abstraction(per_round, len(names), **options)
    except BetSizeError as exc:
        raise BetSizeError(f"{where}: {exc}") from None


def _spec(spec, at: str) -> dict:
    if not isinstance(spec, dict):
        raise BetSizeError(f"{at} = {spec!r}: expected a table with keys {', '.join(SIZE_KEYS)} "
                           "(e.g. bet = \"52%, a\")")
    for key, value in spec.items():
        if key not in SIZE_KEYS:
            raise BetSizeError(f"{at}.{key}: unknown key; valid: {', '.join(SIZE_KEYS)}")
        if not isinstance(value, str):
            raise BetSizeError(f"{at}.{key} = {value!r}: expected a string of sizes such as \"52%, 2.5x, a\"")
        try:  # a bad size names its street and key
            parse_bet_sizes(value, raises=key == "raise")
        except BetSizeError as exc:
            raise BetSizeError(f"{at}.{key}: {exc}") from None
    return dict(spec)


def size_options(prefix: str = "") -> dict:
    """The [game] parameters that shape a bet-size tree beside its sizes (the raise cap and the
    all-in thresholds), each help text starting with `prefix`."""
    return {
        "raise_limit": Param("int", -1, f"{prefix}raises per street after the opening bet (-1: no cap)", min=-1,
                             max=100),
        "allin_commit_threshold": Param("float", 0.0, f"{prefix}TexasSolver's rule: a bet or raise that would put "
                                        "more than this x stack in (half the pot counted) is an all-in (0: off)",
                                        min=0.0),
        "add_allin_threshold": Param("float", 0.0, f"{prefix}postflop-solver's: add an all-in when it is at most "
                                     "this x the pot (0: off)", min=0.0),
        "force_allin_threshold": Param("float", 0.0, f"{prefix}postflop-solver's: a bet leaving at most this x "
                                       "the pot behind becomes all-in (0: off)", min=0.0),
    }


def game_size_tables(config: dict, names: list[str], players: tuple[str, str], **options) -> SizeAbstraction:
    """:func:`parse_size_tables` of a [game] table's ``sizes`` with its :func:`size_options`."""
    limit = int(config.get("raise_limit", -1))
    commit = float(config.get("allin_commit_threshold", 0.0))
    return parse_size_tables(config.get("sizes") or {}, names, players,
                             raise_limit=None if limit < 0 else limit,
                             allin_commit_threshold=commit or None,
                             add_allin_threshold=float(config.get("add_allin_threshold", 0.0)),
                             force_allin_threshold=float(config.get("force_allin_threshold", 0.0)), **options)
