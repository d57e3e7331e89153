"""ACPC game definitions with ``nolimit`` betting (``stack`` per player, no ``raiseSize``), for the
no-limit action trees of issue 25 (solverkit.poker.action_tree).

Same file format, line reader and messages as solverkit.poker.gamedef (read_gamedef):
keys are case-insensitive, ``#`` starts a comment, per-round fields take one value per round.
``stack`` gives each player's chips for the whole hand (one value: both players), as the ACPC
server reads it; ``maxRaises`` is optional (missing: no cap, as ACPC's 255-a-round default).
The ``acpc`` game solves them under an action abstraction (solverkit.poker.nolimit_game).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ConfigError
from .gamedef import CANONICAL, MISSING_HINT, AcpcDeck, gamedef_text, read_gamedef, two_players


@dataclass(frozen=True)
class NoLimitGameDef(AcpcDeck):
    """A two-player no-limit game: ``blind`` and ``stack`` per player, other lists per round;
    ``max_raises`` None means no cap (ACPC's default)."""

    num_rounds: int
    blind: tuple[int, int]
    stack: tuple[int, int]
    first_player: tuple[int, ...]  # 0-based
    max_raises: tuple[int, ...] | None

    @property
    def big_blind(self) -> int:
        """The largest blind: the smallest bet and raise increment of no-limit ACPC games."""
        return max(self.blind)

    def validate(self):
        """Raise ConfigError when the definition describes no playable two-player no-limit game."""
        where = self.source
        if not 1 <= self.num_rounds <= 8:
            raise ConfigError(f"{where}: numRounds = {self.num_rounds}: expected 1..8")
        lists = [("firstPlayer", self.first_player), ("numBoardCards", self.num_board_cards)]
        if self.max_raises is not None:
            lists.append(("maxRaises", self.max_raises))
        for name, values in lists:
            if len(values) != self.num_rounds:
                raise ConfigError(f"{where}: field {name} has {len(values)} values, expected {self.num_rounds} "
                                  "(one per round)")
        if len(self.blind) != 2 or len(self.stack) != 2:
            raise ConfigError(f"{where}: blind = {list(self.blind)}, stack = {list(self.stack)}: expected 2 values "
                              "each (one per player)")
        if any(f not in (0, 1) for f in self.first_player):
            raise ConfigError(f"{where}: firstPlayer = {[f + 1 for f in self.first_player]}: expected 1 or 2 per round")
        if self.num_hole_cards not in (1, 2):
            raise ConfigError(f"{where}: numHoleCards = {self.num_hole_cards} is not supported; valid: 1, 2")
        if not 1 <= self.num_suits <= 4 or not 1 <= self.num_ranks <= 13:
            raise ConfigError(f"{where}: numSuits = {self.num_suits}, numRanks = {self.num_ranks}: expected 1..4 "
                              "suits and 1..13 ranks")
        cards = 2 * self.num_hole_cards + sum(self.num_board_cards)
        if cards > self.deck_size:
            raise ConfigError(f"{where}: the deal needs {cards} cards but the deck has {self.deck_size}")
        if any(b < 0 for b in self.blind) or max(self.blind) < 1:
            raise ConfigError(f"{where}: blind = {list(self.blind)}: expected blinds >= 0, at least one positive "
                              "(no-limit bets are at least the big blind)")
        if any(s <= max(self.blind) for s in self.stack):
            raise ConfigError(f"{where}: stack = {list(self.stack)}: each player's stack must exceed the largest "
                              f"blind ({max(self.blind)})")
        if self.max_raises is not None and any(not 0 <= m <= 255 for m in self.max_raises):
            raise ConfigError(f"{where}: maxRaises = {list(self.max_raises)}: expected 0..255 per round")
        if any(b < 0 for b in self.num_board_cards) or self.num_board_cards[0]:
            raise ConfigError(f"{where}: numBoardCards = {list(self.num_board_cards)}: expected >= 0 per round and "
                              "0 for the first round")
        return self


def parse_nolimit_gamedef(text: str, source: str = "<string>") -> NoLimitGameDef:
    """Parse the text of an ACPC no-limit game definition (ConfigError names line and field)."""
    betting, line, fields = read_gamedef(text, source)
    if betting != "nolimit":
        where = f"{source}:{line}" if betting else source
        raise ConfigError(f"{where}: betting type {betting or 'missing'}: expected a line 'nolimit' "
                          "(limit files: solverkit.poker.gamedef)")
    if "raisesize" in fields:
        raise ConfigError(f"{source}:{fields['raisesize'][0]}: field raiseSize: raiseSize applies to limit games; "
                          "remove it (no-limit bets are sized by the action abstraction)")

    def get(key, default=None):
        if key in fields:
            return fields[key][1]
        if default is None:
            hint = "; expected each player's chips for the hand" if key == "stack" else MISSING_HINT.get(key, "")
            raise ConfigError(f"{source}: missing field {CANONICAL[key]}{hint}")
        return default

    def sized(key, count, what, default=None, single_ok=False, extra_ok=False):
        """The field's values, ``count`` of them (per-round fields may give more, as ACPC reads them)."""
        vals = get(key, default)
        if single_ok and len(vals) == 1:
            vals = vals * count
        if extra_ok:
            vals = vals[:count] if len(vals) >= count else vals
        if len(vals) != count:
            line = fields[key][0] if key in fields else "?"
            raise ConfigError(f"{source}:{line}: field {CANONICAL[key]} has {len(vals)} values, expected {count} "
                              f"({what})")
        return tuple(vals)

    rounds = two_players(fields, source)
    first = sized("firstplayer", rounds, "one per round", [1] * rounds, extra_ok=True)
    if any(f not in (1, 2) for f in first):
        raise ConfigError(f"{source}: firstPlayer = {list(first)}: expected 1 or 2 per round")
    caps = sized("maxraises", rounds, "one per round", extra_ok=True) if "maxraises" in fields else None
    return NoLimitGameDef(
        num_rounds=rounds,
        blind=sized("blind", 2, "one per player"),
        stack=sized("stack", 2, "one per player, or one for both", single_ok=True),
        first_player=tuple(f - 1 for f in first),
        max_raises=caps,
        num_suits=get("numsuits")[0],
        num_ranks=get("numranks")[0],
        num_hole_cards=get("numholecards")[0],
        num_board_cards=sized("numboardcards", rounds, "one per round", extra_ok=True),
        source=source,
    ).validate()


def load_nolimit_gamedef(name_or_path: str) -> NoLimitGameDef:
    """A no-limit game file by bundled name or path (ConfigError when missing, unreadable or malformed)."""
    return parse_nolimit_gamedef(*gamedef_text(name_or_path))
