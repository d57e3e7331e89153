"""Betting rules of a two-player poker tree: ACPC limit, ACPC no-limit under fcpa, or bet-size
lists (a spot's or a no-limit game's), validated, so that the tree depends on one checked value."""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass, field

from ..errors import BetSizeError, ConfigError
from .bet_sizes import BetSize, parse_bet_sizes

LIMIT, FCPA = "limit", "fcpa"
SIZE_KEYS = ("bet", "raise", "donk")


@dataclass(frozen=True)
class StreetSizes:
    """One player's sizes on one street: ``bet`` (no bet to face), ``raise_`` (facing a bet),
    ``donk`` (the street's first actor leading after calling the previous street's last bet;
    None: the bet sizes, as postflop-solver's default)."""

    bet: tuple[BetSize, ...] = ()
    raise_: tuple[BetSize, ...] = ()
    donk: tuple[BetSize, ...] | None = None


def street_sizes(spec) -> StreetSizes:
    """StreetSizes from a mapping such as ``{"bet": "52%, a", "raise": "45%"}`` (or a StreetSizes)."""
    if isinstance(spec, StreetSizes):
        return spec
    if not isinstance(spec, dict):
        raise BetSizeError(f"street sizes {spec!r}: expected a table with keys bet, raise, donk")
    unknown = [k for k in spec if k not in SIZE_KEYS]
    if unknown:
        raise BetSizeError(f"street sizes key {unknown[0]!r}: valid keys: {', '.join(SIZE_KEYS)}")
    donk = spec.get("donk")
    return StreetSizes(parse_bet_sizes(spec.get("bet", "")), parse_bet_sizes(spec.get("raise", ""), raises=True),
                       None if donk is None else parse_bet_sizes(donk))


@dataclass(frozen=True)
class SizeAbstraction:
    """Bet-size lists per round and player, with the optional caps and thresholds of issue 25.

    ``streets[r]`` = (player 0's, player 1's) StreetSizes for round r. ``raise_limit``: raises
    allowed per round after the opening bet (a big blind counts as the opening bet), None = no
    cap. ``allin_commit_threshold`` (TexasSolver): a bet or raise after which the mover would have
    more than this x the effective stack at the root in (chips already in the pot counted) is an
    all-in. ``add_allin_threshold`` / ``force_allin_threshold`` (postflop-solver, 0 = off): add
    an all-in when it is at most this x the pot after the call (plus the bet to call); turn a bet
    into an all-in when the stack-to-pot ratio after it is called would be at most this.
    ``min_bet``: the smallest bet (ACPC games: the big blind)."""

    streets: tuple[tuple[StreetSizes, StreetSizes], ...]
    raise_limit: int | None = None
    allin_commit_threshold: float | None = None
    add_allin_threshold: float = 0.0
    force_allin_threshold: float = 0.0
    min_bet: int = 1

    def validate(self, num_rounds: int):
        """BetSizeError / ConfigError naming the bad value."""
        if len(self.streets) != num_rounds:
            raise BetSizeError(f"bet sizes for {len(self.streets)} rounds; expected {num_rounds} (one per round)")
        if self.raise_limit is not None and (isinstance(self.raise_limit, bool) or not isinstance(self.raise_limit, int)
                                             or self.raise_limit < 0):
            raise ConfigError(f"raise_limit = {self.raise_limit!r}: expected a whole number >= 0, or none for no cap")
        for name in ("add_allin_threshold", "force_allin_threshold", "allin_commit_threshold"):
            value = getattr(self, name)
            if value is None and name == "allin_commit_threshold":
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise ConfigError(f"{name} = {value!r}: expected a finite number >= 0 (0: off)"
                                  if name != "allin_commit_threshold" else
                                  f"{name} = {value!r}: expected a finite number > 0, or none for off")
        if self.allin_commit_threshold is not None and self.allin_commit_threshold <= 0:
            raise ConfigError(f"allin_commit_threshold = {self.allin_commit_threshold!r}: expected a number > 0, "
                              "or none for off")
        if isinstance(self.min_bet, bool) or not isinstance(self.min_bet, int) or self.min_bet < 1:
            raise ConfigError(f"min_bet = {self.min_bet!r}: expected a whole number of chips >= 1")
        return self


def size_abstraction(sizes, num_rounds: int, **options) -> SizeAbstraction:
    """A SizeAbstraction from per-round specs: ``sizes[r]`` is a table ``{"bet": ..., "raise":
    ..., "donk": ...}`` for both players, a pair of such tables (player 0, player 1), or None for
    a round without bets (checks and calls only). ``options``: SizeAbstraction's other fields."""
    if not isinstance(sizes, (list, tuple)) or len(sizes) != num_rounds:
        raise BetSizeError(f"bet sizes {sizes!r}: expected one entry per round ({num_rounds})")
    streets = []
    for spec in sizes:
        if spec is None:
            spec = {}
        pair = spec if isinstance(spec, (list, tuple)) else (spec, spec)
        if len(pair) != 2:
            raise BetSizeError(f"bet sizes {spec!r}: expected one table, or two (player 0, player 1)")
        streets.append((street_sizes(pair[0]), street_sizes(pair[1])))
    return SizeAbstraction(tuple(streets), **options).validate(num_rounds)


@dataclass(frozen=True)
class BettingRules:
    """Everything the tree depends on. ``spent``: chips each player has in at the root (blinds,
    or half the pot of a spot each); ``stack``: each player's chips for the hand, ``spent``
    included (None in limit games); ``abstraction``: "limit", "fcpa" or a SizeAbstraction;
    ``raise_size`` (limit) and ``max_raises`` (limit; fcpa: ACPC maxRaises, None = no cap) per
    round; the tree starts in ``start_round`` and has ``num_rounds`` rounds in all."""

    num_rounds: int
    first_player: tuple[int, ...]
    spent: tuple[int, int]
    abstraction: object
    stack: tuple[int, int] | None = None
    raise_size: tuple[int, ...] = ()
    max_raises: tuple[int, ...] | None = None
    start_round: int = 0
    name: str = field(default="<rules>", compare=False)
    #: chips in the pot that belong to neither player (a spot's odd chip): sizes count them, the
    #: winner takes them (a tie splits them)
    dead: int = 0

    @property
    def is_limit(self) -> bool:
        return isinstance(self.abstraction, str) and self.abstraction == LIMIT

    @property
    def is_fcpa(self) -> bool:
        return isinstance(self.abstraction, str) and self.abstraction == FCPA

    @property
    def root_base(self) -> int:
        """Chips each player has in the pot from before the root's round (equal root spent: a
        spot's pot or antes; unequal: blinds, which are bets of the first round)."""
        return self.spent[0] if self.spent[0] == self.spent[1] else 0

    @property
    def effective_stack(self) -> int:
        """Chips behind at the root, the smaller stack's (the all-in commit threshold's unit)."""
        return min(self.stack) - min(self.spent) if self.stack else 0

    def validate(self):
        """ConfigError naming the bad value; a size-list tree also checks its sizes."""
        where = self.name
        if not isinstance(self.abstraction, SizeAbstraction) and self.abstraction not in (LIMIT, FCPA):
            raise ConfigError(f"{where}: abstraction {self.abstraction!r}: valid: fcpa, limit, or bet-size lists")
        if not 1 <= self.num_rounds <= 8 or not 0 <= self.start_round < self.num_rounds:
            raise ConfigError(f"{where}: rounds {self.start_round}..{self.num_rounds - 1}: expected 1..8 rounds and a "
                              "start round among them")
        if len(self.first_player) != self.num_rounds or any(f not in (0, 1) for f in self.first_player):
            raise ConfigError(f"{where}: first player {list(self.first_player)}: expected 0 or 1 per round")
        if len(self.spent) != 2 or any(s < 0 for s in self.spent):
            raise ConfigError(f"{where}: chips in at the root {list(self.spent)}: expected 2 counts >= 0")
        if self.is_limit:
            if len(self.raise_size) != self.num_rounds or any(r <= 0 for r in self.raise_size):
                raise ConfigError(f"{where}: raiseSize = {list(self.raise_size)}: expected a positive size per round")
            if self.max_raises is None or len(self.max_raises) != self.num_rounds:
                raise ConfigError(f"{where}: maxRaises = {self.max_raises}: expected one cap per round")
            return self
        if self.stack is None or len(self.stack) != 2 or any(s <= max(self.spent) for s in self.stack):
            raise ConfigError(f"{where}: stack = {self.stack}: expected 2 stacks, each above the chips in at the root "
                              f"({max(self.spent)})")
        if self.max_raises is not None and len(self.max_raises) != self.num_rounds:
            raise ConfigError(f"{where}: maxRaises = {list(self.max_raises)}: expected one cap per round")
        if isinstance(self.abstraction, SizeAbstraction):
            self.abstraction.validate(self.num_rounds)
            if min(self.spent) < 1:
                raise ConfigError(f"{where}: chips in at the root {list(self.spent)}: bet-size lists need both "
                                  "players to have put in at least 1 chip (a pot to size bets from)")
        return self


def limit_rules(gd) -> BettingRules:
    """The rules of an ACPC limit game (solverkit.poker.gamedef.GameDef)."""
    return BettingRules(gd.num_rounds, tuple(gd.first_player), tuple(gd.blind), LIMIT,
                        raise_size=tuple(gd.raise_size), max_raises=tuple(gd.max_raises), name=gd.source).validate()


def nolimit_rules(ngd, abstraction="fcpa") -> BettingRules:
    """The rules of an ACPC no-limit game (gamedef_nolimit.NoLimitGameDef) under ``abstraction``:
    "fcpa", or a SizeAbstraction (its min_bet is raised to the big blind, ACPC's smallest bet)."""
    if not isinstance(abstraction, SizeAbstraction) and abstraction != FCPA:
        raise ConfigError(f"{ngd.source}: abstraction {abstraction!r} for a no-limit game: valid: fcpa, or bet-size "
                          "lists")
    if isinstance(abstraction, SizeAbstraction) and abstraction.min_bet < ngd.big_blind:
        abstraction = SizeAbstraction(abstraction.streets, abstraction.raise_limit, abstraction.allin_commit_threshold,
                                      abstraction.add_allin_threshold, abstraction.force_allin_threshold,
                                      ngd.big_blind)
    return BettingRules(ngd.num_rounds, tuple(ngd.first_player), tuple(ngd.blind), abstraction,
                        stack=tuple(ngd.stack), max_raises=ngd.max_raises, name=ngd.source).validate()


def spot_rules(pot: int, stack: int, abstraction: SizeAbstraction, start_round: int, num_rounds: int = 4,
               name: str = "spot") -> BettingRules:
    """A postflop spot: ``pot`` chips (half each as spent; an odd chip dead), ``stack`` chips behind each player,
    player 0 (out of position) first in every round, from ``start_round`` of ``num_rounds``."""
    for what, value, low, high in (("pot", pot, 2, 2**40), ("stack", stack, 1, 2**40),
                                   ("num_rounds", num_rounds, 1, 8), ("start_round", start_round, 0, 7)):
        if isinstance(value, bool) or not hasattr(value, "__index__") or not low <= operator.index(value) <= high:
            raise ConfigError(f"{name}: {what} = {value!r}: expected a whole number from {low} to {high}")
    if not isinstance(abstraction, SizeAbstraction):
        raise ConfigError(f"{name}: abstraction {abstraction!r}: a spot needs bet-size lists (size_abstraction)")
    half = pot // 2  # an odd pot's last chip is dead money: sizes count it, the winner takes it
    return BettingRules(num_rounds, (0,) * num_rounds, (half, half), abstraction, stack=(half + stack, half + stack),
                        start_round=start_round, name=name, dead=pot % 2).validate()
