"""Bet-size lists for the blueprint's N-player no-limit trees (``[game] abstraction = "sizes"``):
``[game.sizes.<street>] bet = "50%, 100%, a"``, ``raise = "100%, a"`` and optionally ``raise2``,
``raise3``, ... for the second, third, ... raise of a street (the "raise depth"; later raises fall
back to the highest given, then to ``raise``), in the spot game's size syntax
(solverkit.poker.bet_sizes: ``52%`` of the pot after the call, ``2.5x`` the bet raised, ``40c``
chips, ``e`` geometric, ``a`` all-in). Streets: preflop, flop, turn, river in hold'em-like files,
else round0, round1, ...; a street left out offers no bet or raise (check, call and fold only).

A ``bet`` list is read where the mover faces no bet this street; otherwise a raise list (preflop,
the blinds are the street's bets: opening is a raise). Amounts are the spot game's (rounded as
postflop-solver, at least the minimum raise, at most the all-in; equal amounts merged), with the
pot the whole hand's chips after the mover calls: for two players the spot game's amounts exactly.
"""

from __future__ import annotations

import re

from ..errors import BetSizeError, ConfigError
from ..poker.bet_sizes import bet_amounts, parse_bet_sizes
from ..poker.size_tables import street_names

_RAISE_DEPTH = re.compile(r"raise([2-9]|[1-9][0-9])")


def parse_sizes(table, num_board_cards) -> list[dict[int, tuple]]:
    """Per round, {0: bet sizes, 1: first-raise sizes, k: k-th raise sizes}; ConfigError naming a
    bad street, key or size."""
    names = street_names(num_board_cards)
    if not isinstance(table, dict) or not table:
        raise ConfigError(f"[game] abstraction = \"sizes\" needs [game.sizes] tables, e.g. [game.sizes.{names[0]}] "
                          f"raise = \"100%, a\" (streets: {', '.join(names)})")
    alias = {f"round{i}": name for i, name in enumerate(names)}
    out: list[dict[int, tuple]] = [{} for _ in names]
    for street, spec in table.items():
        name = alias.get(street, street)
        if name not in names:
            raise ConfigError(f"[game.sizes.{street}]: unknown street; valid: {', '.join(names)}")
        if not isinstance(spec, dict):
            raise ConfigError(f"[game.sizes.{street}] = {spec!r}: expected a table such as {{ bet = \"50%, a\" }}")
        for key, text in spec.items():
            if key == "bet":
                depth = 0
            elif key == "raise":
                depth = 1
            else:
                m = _RAISE_DEPTH.fullmatch(str(key))
                if m is None:
                    raise ConfigError(f"[game.sizes.{street}] {key}: unknown key; valid: bet, raise, raise2, raise3, ...")
                depth = int(m.group(1))
            try:
                out[names.index(name)][depth] = parse_bet_sizes(text, raises=depth > 0)
            except BetSizeError as exc:
                raise ConfigError(f"[game.sizes.{street}] {key}: {exc}") from None
    return out


def raise_amounts(gd, s, p: int, per_round: list[dict[int, tuple]]) -> list[int]:
    """Raise-to amounts over the hand (sorted) of player p's sizes at betting state `s`
    (solverkit.blueprint.nolimit._State): the street's list for its raise depth, through
    bet_amounts with the whole hand's pot."""
    lists = per_round[s.round]
    mine, top = s.spent[p] - s.base[p], max(s.spent[q] - s.base[q] for q in range(gd.num_players))
    facing = top > mine
    # bets and raises made this street: the blinds are the first round's first bet
    made = s.raises + (1 if s.round == 0 and max(gd.blind) > 0 else 0)
    depth = max(made, 1) if facing else 0  # facing the k-th bet, a raise is the k-th raise
    sizes = lists.get(depth)
    if sizes is None and depth > 1:
        deeper = [d for d in lists if 1 <= d < depth]
        sizes = lists.get(max(deeper)) if deeper else None
    if not sizes:
        return []
    total = sum(s.spent)
    behind = gd.stack[p] - s.spent[p]
    streets = gd.num_rounds - s.round
    if not facing:  # a bet (the big blind's option preflop too): the chips in so far are all pot
        amounts = bet_amounts(sizes, pot=total, stacks=(behind, behind), bets_this_street=0,
                              remaining_streets=streets, min_bet=gd.big_blind)
        return [s.spent[p] + a for a in amounts]
    pot = total - mine - top  # so that the spot's pot + 2 x top is the hand's pot after the call
    amounts = bet_amounts(sizes, pot=max(pot, 0), stacks=(behind, behind + mine - top), committed=(mine, top),
                          bets_this_street=depth, remaining_streets=streets, min_raise=s.last_raise,
                          min_bet=gd.big_blind)
    return [s.base[p] + a for a in amounts]
