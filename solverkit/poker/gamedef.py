"""ACPC game definitions (``GAMEDEF ... END GAMEDEF``) for two-player poker.

Keys are case-insensitive, ``#`` starts a comment, and per-round fields take one value per
round. :func:`read_gamedef` reads the lines of limit and no-limit files alike; this module
builds limit games (GameDef), solverkit.poker.gamedef_nolimit no-limit ones, and
:func:`load_any_gamedef` either, as the file's betting line says. Malformed files name the
line and field.
An accepted file builds the game the ACPC server builds from it (tests/test_acpc_vs_openspiel.py);
what solverkit cannot build that way (board cards before the first round, a limit file's stacks) is
refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from ..errors import ConfigError, choices

PER_ROUND = ("blind", "raisesize", "firstplayer", "maxraises", "numboardcards", "stack")
#: the ACPC server stores every field in 32 bits or fewer; larger values describe no game
INT_MAX = 2**31 - 1
_INT = re.compile(r"[+-]?[0-9]+")
SCALAR = ("numplayers", "numrounds", "numsuits", "numranks", "numholecards")
#: why a missing field has no default (the ACPC server refuses files without blind or
#: numBoardCards; its maxRaises default, 255 raises a round, makes trees too large to solve)
MISSING_HINT = {
    "blind": "; expected one value per player (write 'blind = 0 0' for none; the ACPC format has no default)",
    "numboardcards": "; expected one value per round (0 where a round deals no board cards; the ACPC format has "
                     "no default)",
    "maxraises": "; expected the cap on raises per round (ACPC's default, 255 a round, is not supported)",
    "raisesize": "; expected the bet size per round (limit games need one)",
}
CANONICAL = {
    "blind": "blind", "raisesize": "raiseSize", "firstplayer": "firstPlayer",
    "maxraises": "maxRaises", "numboardcards": "numBoardCards", "stack": "stack",
    "numplayers": "numPlayers", "numrounds": "numRounds", "numsuits": "numSuits",
    "numranks": "numRanks", "numholecards": "numHoleCards",
}


def field_reader(fields: dict, source: str):
    """get(key, default=None): the values of field `key` of a game definition read by
    :func:`read_gamedef`, `default` when it is missing, or a ConfigError naming the missing field
    (no default)."""

    def get(key, default=None):
        if key not in fields:
            if default is None:
                raise ConfigError(f"{source}: missing field {CANONICAL[key]}{MISSING_HINT.get(key, '')}")
            return default
        return fields[key][1]

    return get


@dataclass(frozen=True, kw_only=True)
class AcpcDeck:
    """The cards of an ACPC game definition, every kind of it (limit or no-limit, two players or
    more): keyword fields after each definition's own."""

    num_suits: int
    num_ranks: int
    num_hole_cards: int
    num_board_cards: tuple[int, ...]
    source: str = "<string>"

    @property
    def deck_size(self) -> int:
        return self.num_suits * self.num_ranks


@dataclass(frozen=True)
class GameDef(AcpcDeck):
    """A two-player limit game. Lists are per round, except ``blind`` which is per player."""

    num_rounds: int
    blind: tuple[int, int]
    raise_size: tuple[int, ...]
    first_player: tuple[int, ...]  # 0-based
    max_raises: tuple[int, ...]

    @property
    def big_blind(self) -> int:
        """The unit of mbb/g: the big blind; in games with antes instead (equal or no blinds,
        Kuhn, Leduc, Rhode Island) the first round's bet size, as the original CFR+ code's
        "mSBet/h"."""
        if self.blind[0] != self.blind[1]:
            return max(self.blind)
        return self.raise_size[0]

    def validate(self):
        """Raise ConfigError when the definition cannot describe a playable game, or one that
        solverkit would build differently from the ACPC rules (also for GameDefs that plugins
        make with dataclasses.replace, which the parser never sees)."""
        where = self.source
        if not 1 <= self.num_rounds <= 8:
            raise ConfigError(f"{where}: numRounds = {self.num_rounds}: expected 1..8")
        for name, values in (("raiseSize", self.raise_size), ("firstPlayer", self.first_player),
                             ("maxRaises", self.max_raises), ("numBoardCards", self.num_board_cards)):
            if len(values) != self.num_rounds:
                raise ConfigError(f"{where}: field {name} has {len(values)} values, expected {self.num_rounds} "
                                  "(one per round)")
        if len(self.blind) != 2:
            raise ConfigError(f"{where}: field blind has {len(self.blind)} values, expected 2 (one per player)")
        if any(f not in (0, 1) for f in self.first_player):
            raise ConfigError(f"{where}: firstPlayer = {[f + 1 for f in self.first_player]}: expected 1 or 2 per round")
        if self.num_hole_cards not in (1, 2):
            raise ConfigError(f"{where}: numHoleCards = {self.num_hole_cards} is not supported; valid: 1, 2")
        if not 1 <= self.num_suits <= 4 or not 1 <= self.num_ranks <= 13:
            raise ConfigError(f"{where}: numSuits = {self.num_suits}, numRanks = {self.num_ranks}: expected 1..4 suits and 1..13 ranks")
        cards = 2 * self.num_hole_cards + sum(self.num_board_cards)
        if cards > self.deck_size:
            raise ConfigError(f"{where}: the deal needs {cards} cards but the deck has {self.deck_size}")
        if any(r <= 0 for r in self.raise_size):
            raise ConfigError(f"{where}: raiseSize = {list(self.raise_size)}: every round needs a positive bet size")
        if any(b < 0 for b in self.blind):
            raise ConfigError(f"{where}: blind = {list(self.blind)}: blinds must be >= 0")
        if any(not 0 <= m <= 255 for m in self.max_raises):
            raise ConfigError(f"{where}: maxRaises = {list(self.max_raises)}: expected 0..255 per round "
                              "(the ACPC format's 8 bits)")
        if any(b < 0 for b in self.num_board_cards):
            raise ConfigError(f"{where}: numBoardCards = {list(self.num_board_cards)}: must be >= 0")
        if self.num_board_cards[0]:
            raise ConfigError(f"{where}: numBoardCards = {list(self.num_board_cards)}: board cards before the first "
                              f"betting round ({self.num_board_cards[0]}) are not supported; expected 0 for the "
                              "first round (deal them in a later round)")
        return self


def _shown(text: str, limit: int = 40) -> str:
    """A bad value for a one-line message: repr (no raw control characters), shortened."""
    r = repr(text)
    return r if len(r) <= limit else r[: limit - 3] + "..."


def decode_gamedef(data: bytes, source: str) -> str:
    """The bytes of a game file as text, or a ConfigError naming the line of the first byte that is
    not UTF-8 (ACPC game files are ASCII)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ConfigError(f"{source}:{line}: byte {data[exc.start]:#04x} at offset {exc.start} is not UTF-8 text; "
                          "expected an ACPC game definition (ASCII text)") from None


def read_gamedef(text: str, source: str = "<string>") -> tuple[str | None, int, dict[str, tuple[int, list[int]]]]:
    """The betting type ('limit', 'nolimit' or None when missing), its line, and the ``field =
    integers`` lines of a GAMEDEF block by lower-case key with their line numbers: the one line
    reader of limit and no-limit files. ConfigError names the line of anything malformed."""
    fields: dict[str, tuple[int, list[int]]] = {}
    betting = None
    inside = False
    ended = False
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        low = line.lower()
        if low == "gamedef":
            inside = True
            continue
        if low == "end gamedef":
            ended = True
            break
        if not inside:
            raise ConfigError(f"{source}:{lineno}: expected GAMEDEF before {_shown(line)}")
        if low in ("limit", "nolimit"):
            if betting is not None:
                raise ConfigError(f"{source}:{lineno}: betting type {line!r} repeats line {betting[1]} "
                                  f"({betting[0]!r}); expected one line 'limit' or 'nolimit' (remove one)")
            betting = (low, lineno)
            continue
        if "=" not in line:
            raise ConfigError(f"{source}:{lineno}: expected 'field = values' or limit/nolimit, got {_shown(line)}")
        key, _, value = line.partition("=")
        key = key.strip().lower()
        if key not in CANONICAL:
            raise ConfigError(f"{source}:{lineno}: unknown field {_shown(key)}; valid: {choices(CANONICAL.values())}")
        name = CANONICAL[key]
        shown = _shown(value.strip())
        words = value.split()
        if not all(_INT.fullmatch(w) for w in words):
            bad = next(w for w in words if not _INT.fullmatch(w))
            raise ConfigError(f"{source}:{lineno}: field {name} = {shown}: expected integers in 0..{INT_MAX} "
                              f"({_shown(bad)} is not one)")
        # more than 10 significant digits is out of range (and int() refuses past 4,300 digits)
        nums = [int(w) if len(w.lstrip("+-").lstrip("0")) <= 10 else INT_MAX + 1 for w in words]
        if not nums:
            raise ConfigError(f"{source}:{lineno}: field {name} has no value; expected "
                              f"{'one integer' if key in SCALAR else 'integers, one per round'}")
        big = [w for w, n in zip(words, nums) if abs(n) > INT_MAX]
        if big:
            raise ConfigError(f"{source}:{lineno}: field {name} = {shown}: {_shown(big[0])} is out of range; "
                              f"expected integers in 0..{INT_MAX} (the ACPC format's 32 bits)")
        if key in SCALAR and len(nums) != 1:
            raise ConfigError(f"{source}:{lineno}: field {name} = {shown}: expected one integer")
        if key in fields:
            raise ConfigError(f"{source}:{lineno}: field {name} = {shown} repeats line {fields[key][0]}; "
                              "expected each field once (remove one)")
        fields[key] = (lineno, nums)
    if not inside:
        raise ConfigError(f"{source}: no GAMEDEF block found")
    if not ended:
        raise ConfigError(f"{source}: missing END GAMEDEF")
    return (betting[0], betting[1], fields) if betting else (None, 0, fields)


def two_players(fields, source: str) -> int:
    """numRounds, once numPlayers is 2 and numRounds in 1..8 (ConfigError naming the line)."""
    players = fields["numplayers"][1][0] if "numplayers" in fields else None
    if players is None:
        raise ConfigError(f"{source}: missing field numPlayers")
    if players != 2:
        raise ConfigError(f"{source}:{fields['numplayers'][0]}: numPlayers = {players}: only 2-player games are "
                          "supported; valid: 2")
    if "numrounds" not in fields:
        raise ConfigError(f"{source}: missing field numRounds")
    rounds = fields["numrounds"][1][0]
    if not 1 <= rounds <= 8:
        raise ConfigError(f"{source}:{fields['numrounds'][0]}: numRounds = {rounds}: expected 1..8")
    return rounds


def parse_gamedef(text: str, source: str = "<string>") -> GameDef:
    """Parse the text of an ACPC limit game definition (no-limit files: parse_any_gamedef)."""
    betting, line, fields = read_gamedef(text, source)
    if betting is None:
        raise ConfigError(f"{source}: betting type missing; expected a line 'limit'")
    if betting == "nolimit":
        raise ConfigError(f"{source}:{line}: no-limit games are not supported here (only limit betting; the acpc "
                          "game reads them: [game] name = \"acpc\")")
    if "stack" in fields:
        raise ConfigError(f"{source}:{fields['stack'][0]}: field stack = {_shown(' '.join(map(str, fields['stack'][1])))} "
                          "is not supported: solverkit solves limit games, where stacks never bind (every bet is "
                          "raiseSize and maxRaises caps them); remove the stack line")

    get = field_reader(fields, source)

    rounds = two_players(fields, source)

    def per_round(key, default=None):
        vals = get(key, default)
        if len(vals) < rounds:
            line = fields[key][0] if key in fields else "?"
            raise ConfigError(f"{source}:{line}: field {CANONICAL[key]} has {len(vals)} values, expected {rounds} (one per round)")
        return tuple(vals[:rounds])

    blind = get("blind")
    if len(blind) != 2:
        raise ConfigError(f"{source}:{fields['blind'][0]}: field blind has {len(blind)} values, expected 2 (one per player)")
    first = per_round("firstplayer", [1] * rounds)
    if any(f not in (1, 2) for f in first):
        raise ConfigError(f"{source}:{fields['firstplayer'][0]}: firstPlayer = {list(first)}: expected 1 or 2 per round")
    return GameDef(
        num_rounds=rounds,
        blind=(blind[0], blind[1]),
        raise_size=per_round("raisesize"),
        first_player=tuple(f - 1 for f in first),
        max_raises=per_round("maxraises"),
        num_suits=get("numsuits")[0],
        num_ranks=get("numranks")[0],
        num_hole_cards=get("numholecards")[0],
        num_board_cards=per_round("numboardcards"),
        source=source,
    ).validate()


BUNDLED_DIR = "gamedefs"
#: game files are a few hundred bytes; a larger one is another file, read no further
MAX_FILE_BYTES = 1 << 20


def bundled_names(betting: str = "limit", players: int | None = 2) -> list[str]:
    """Names of the game definitions shipped with solverkit (file stems) of one betting type:
    "limit", "nolimit", or "any"; of `players` players (None: any number; the poker engine's
    are the two-player ones, ``kuhn.limit.3p`` is for N-player matches, solverkit.poker.nplayer)."""
    return [name for name, (kind, n) in _bundled().items()
            if betting in ("any", kind) and players in (None, n)]


@lru_cache(maxsize=1)
def _bundled() -> dict[str, tuple[str, int]]:
    """Bundled name -> its betting type (read from the file's betting line) and numPlayers."""
    folder = resources.files("solverkit.poker").joinpath(BUNDLED_DIR)
    out = {}
    for p in sorted(folder.iterdir(), key=lambda p: p.name):
        if p.name.endswith(".game"):
            kind, _, fields = read_gamedef(p.read_text(), p.name)
            out[p.name[: -len(".game")]] = (kind or "limit", fields.get("numplayers", (0, [2]))[1][0])
    return out


def gamedef_text(name_or_path: str) -> tuple[str, str]:
    """(text, source) of a bundled game by name (``leduc``; a bundled name is never taken for a
    file of that name) or of a game file by path; ConfigError when it cannot be read."""
    from ..core.params import expand_path
    from ..core.small_file import read_small_file

    names = bundled_names("any", None)
    path = expand_path(name_or_path, "[game] gamedef")  # ~ and ~user as in every path parameter
    try:  # a name the OS refuses (too long, say) is a bad value, not a crash
        exists, is_file = path.exists(), path.is_file()
    except OSError as exc:
        raise ConfigError(f"[game] gamedef = {_shown(name_or_path)}: {exc.strerror}; expected a bundled name "
                          f"({choices(names)}) or a path to a .game file") from None
    if name_or_path not in names and (path.suffix == ".game" or exists or "/" in name_or_path):
        if not is_file:
            if exists:  # a directory, a device, a pipe: nothing to read a game from
                raise ConfigError(f"[game] gamedef = {_shown(name_or_path)} is not a regular file; expected a path "
                                  "to a .game file")
            raise ConfigError(f"game definition file not found: {name_or_path}")
        data = read_small_file(
            path, MAX_FILE_BYTES,
            lambda size: (f"{name_or_path}: {size:,} bytes is too large for an ACPC game definition (a few hundred "
                          f"bytes; at most {MAX_FILE_BYTES:,} are read)"),
            lambda why: f"cannot read game definition file {name_or_path}: {why}")
        return decode_gamedef(data, str(path)), str(path)
    if name_or_path not in names:
        raise ConfigError(f"unknown bundled game definition {name_or_path!r}; available: {choices(names)} (or a path "
                          "to a .game file)")
    return resources.files("solverkit.poker").joinpath(BUNDLED_DIR, name_or_path + ".game").read_text(), name_or_path


def load_gamedef(name_or_path: str) -> GameDef:
    """A limit game by bundled name or path (no-limit files: :func:`load_any_gamedef`)."""
    return parse_gamedef(*gamedef_text(name_or_path))


def parse_any_gamedef(text: str, source: str = "<string>"):
    """A GameDef (limit) or a NoLimitGameDef, as the file's betting line says."""
    betting = read_gamedef(text, source)[0]
    if betting == "nolimit":
        from .gamedef_nolimit import parse_nolimit_gamedef

        return parse_nolimit_gamedef(text, source)
    if betting is None:
        raise ConfigError(f"{source}: betting type missing; expected a line 'limit' or 'nolimit'")
    return parse_gamedef(text, source)


def load_any_gamedef(name_or_path: str):
    """A limit or no-limit game (GameDef or NoLimitGameDef) by bundled name or path."""
    return parse_any_gamedef(*gamedef_text(name_or_path))
