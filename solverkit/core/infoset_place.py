"""Where one information set's probabilities are stored (InfosetPlace), and the error for a key naming none."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import SolverkitError


@dataclass(frozen=True)
class InfosetPlace:
    """Where one information set's action probabilities are stored (:meth:`Game.infoset_place`):
    at `offset` in `player`'s flat policy (strategy.npz), and at `segment_offset` in the policy
    of `segment` (a distributed strategy's part); one value per action of `labels`. `stored`:
    the key as the game stores it when it differs from `key` (poker: canonical suits)."""

    key: str
    player: int
    offset: int
    labels: tuple[str, ...]
    segment: str
    segment_offset: int
    stored: str = ""

    @property
    def stored_key(self) -> str:
        """The key the solver stored this information set under."""
        return self.stored or self.key


def unknown_infoset(game, key: str, player, names, what: str = "information set", context: str = "") -> SolverkitError:
    """The error for a key that names nothing in `game`: up to three close matches among
    `names` (cheap: only when there are at most 200,000), else a few keys as examples;
    `context` starts the message (the whole key, when `key` is a piece of it)."""
    import difflib

    names = list(names)
    who = f" of player {player}" if player is not None else ""
    close = difflib.get_close_matches(key, names, n=3, cutoff=0.5) if len(names) <= 200_000 else []
    hint = (f"close matches: {', '.join(repr(k) for k in close)}" if close
            else f"{what}s look like {', '.join(repr(k) for k in names[:3])}")
    return SolverkitError(f"{context}no {what} {key!r}{who} in game {game.name!r}; {hint}")
