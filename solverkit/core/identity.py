"""A game's identity: a hash of its full definition (name, every parameter, the content of the
files it reads, the rules it builds), stored with every strategy, result and checkpoint a run
writes and checked whenever one is read back, so that a file of another game is refused even
when its arrays happen to have the right shapes (games differing in blinds or first player)."""

from __future__ import annotations

import hashlib
import json
import warnings

from ..errors import SolverkitError, SolverkitWarning

#: the field holding the identity (hex sha256) in strategy meta, result.json, checkpoint and
#: part footers; DEFINITION_FIELD holds the definition hashed, to name what differs
ID_FIELD = "game_id"
DEFINITION_FIELD = "game_definition"


def file_digest(path) -> str:
    """sha256 of a file's bytes (a game read from a file is the file's content, not its name)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def files_digest(paths) -> str:
    """sha256 (24 hex digits) of the files' bytes one after another, in the order given: the code
    that decides something a cache keeps (an edit of any of them is a new key)."""
    digest = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as fh:
            digest.update(fh.read())
    return digest.hexdigest()[:24]


def game_definition(game) -> dict:
    """`game`'s definition (:meth:`Game.definition`) as plain JSON data (tuples become lists)."""
    return json.loads(json.dumps(game.definition(), sort_keys=True, default=_plain))


def game_identity(game) -> str:
    """The hex sha256 of `game`'s canonical definition (computed once per game object)."""
    cached = game.__dict__.get("_identity")
    if cached is None:
        text = json.dumps(game_definition(game), sort_keys=True, separators=(",", ":"))
        cached = game._identity = hashlib.sha256(text.encode()).hexdigest()
    return cached


def identity_fields(game) -> dict:
    """What a file written for `game` records: its identity and the definition hashed."""
    return {ID_FIELD: game_identity(game), DEFINITION_FIELD: game_definition(game)}


def check_identity(source, record: dict, game, where: str, warn: bool = True) -> bool:
    """Raise a SolverkitError naming both games unless `record` (a file's meta or footer) was
    written for `game` (`where`: how `game` was obtained, e.g. its config file). A record of
    an older solverkit without an identity passes, with a warning unless `warn` is False (the
    caller then warns once the file is read: an error after it stays a single line); returns
    whether the identity was checked."""
    stored = record.get(ID_FIELD)
    if stored is None:
        if warn:
            warn_unchecked(source, game)
        return False
    if stored == game_identity(game):
        return True
    theirs = record.get(DEFINITION_FIELD)
    mine = game_definition(game)
    if not isinstance(stored, str) or not isinstance(theirs, dict):
        raise SolverkitError(f"{source}: field {ID_FIELD} = {stored!r:.80} or {DEFINITION_FIELD} is damaged "
                             f"(expected a hex string and the game's definition); solve again")
    diff = sorted(differences(theirs, mine), key=lambda d: ".sha256 = " in d)  # rules first, file hashes last
    shown = "; ".join(diff[:4]) + (f"; and {len(diff) - 4} more" if len(diff) > 4 else "")
    raise SolverkitError(f"{source} belongs to another game: game {theirs.get('name')!r}, not game "
                         f"{game.name!r} of {where} ({shown or 'their definitions hash differently'}); use the "
                         "files of one run together, or solve this game again")


def warn_unchecked(source, game) -> None:
    """The warning for a file without a recorded identity: read as before, by its shapes only."""
    warnings.warn(f"{source} records no game identity (written by an older solverkit): checked against game "
                  f"{game.name!r} by its array shapes only", SolverkitWarning, stacklevel=3)


def differences(theirs: dict, mine: dict, prefix: str = "") -> list[str]:
    """'field = A in the file, B in the game' for every field where two definitions differ (nested fields
    dotted), in field order."""
    out = []
    for key in sorted(set(theirs) | set(mine)):
        a, b = theirs.get(key, "(absent)"), mine.get(key, "(absent)")
        if isinstance(a, dict) and isinstance(b, dict):
            out.extend(differences(a, b, f"{prefix}{key}."))
        elif a != b:
            out.append(f"{prefix}{key} = {_short(a)} in the file, {_short(b)} in the game")
    return out


def _short(value) -> str:
    """A definition's value in a message: JSON, shortened (a file hash to 12 digits)."""
    text = json.dumps(value)
    limit = 14 if isinstance(value, str) and len(value) == 64 else 60
    return text if len(text) <= limit else text[: limit - 1] + '..."'



def _plain(value):
    """json.dumps fallback: numpy scalars and arrays, paths, sets as plain JSON data."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    return str(value)
