"""The ACPC dealer protocol 2.0.0 for two-player limit games: match-state lines, read and written.

A line is ``MATCHSTATE:<position>:<hand>:<betting>:<cards>`` (a reply repeats it and appends
``:<action>``). ``betting`` is the hand's actions, ``f`` / ``c`` / ``r``, rounds separated by
``/``; ``cards`` is each position's hole cards separated by ``|`` (empty when unseen), then
``/`` and the board cards of each later round. Cards are a rank of ``23456789TJQKA`` and a suit
of ``cdhs``; a smaller deck is the top of the full one, as the ACPC dealer deals it (Leduc: Q, K, A
of hearts and spades; see :mod:`solverkit.poker.cards`). Lines end with ``\\r\\n``; server lines
starting with ``#`` or ``;`` are comments. Position 0 is the game's player 0.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import SolverkitError
from .cards import card_name, parse_card
from .gamedef import GameDef

VERSION = "VERSION:2.0.0"
PREFIX = "MATCHSTATE"
ACTIONS = "fcr"


class ProtocolMismatch(SolverkitError):
    """A line that is not ACPC protocol 2.0.0, or a state the game cannot have."""


@dataclass(frozen=True)
class MatchState:
    """One parsed MATCHSTATE line."""

    position: int
    hand: int
    betting: str
    hole: tuple[tuple[int, ...], ...]  # per position; () where unseen
    board: tuple[tuple[int, ...], ...]  # per round from round 1 (round 0 has no board cards)

    def line(self, gd: GameDef) -> str:
        """The state as the dealer writes it."""
        S, R = gd.num_suits, gd.num_ranks
        holes = "|".join("".join(card_name(c, S, R) for c in h) for h in self.hole)
        boards = "".join("/" + "".join(card_name(c, S, R) for c in b) for b in self.board)
        return f"{PREFIX}:{self.position}:{self.hand}:{self.betting}:{holes}{boards}"

    def board_sets(self) -> tuple[tuple[int, ...], ...]:
        """Card sets per round dealt so far, round 0's (empty) first: what PokerGame.locate takes."""
        return ((),) + tuple(tuple(sorted(b)) for b in self.board)


def check_game(gd: GameDef) -> None:
    """The protocol as read here needs two players and no board cards before the first round."""
    if gd.num_board_cards and gd.num_board_cards[0]:
        raise ProtocolMismatch(f"{gd.source}: board cards in the first round (numBoardCards = "
                               f"{list(gd.num_board_cards)}) are not supported by this ACPC agent/dealer")


def _cards(text: str, gd: GameDef, line: str, what: str) -> tuple[int, ...]:
    if len(text) % 2:
        raise ProtocolMismatch(f"{what} {text!r} in {line!r} is not a list of two-character cards")
    try:
        return tuple(parse_card(text[i:i + 2], gd.num_suits, gd.num_ranks) for i in range(0, len(text), 2))
    except ValueError as exc:
        raise ProtocolMismatch(f"{what} in {line!r}: {exc}") from None


def parse_matchstate(line: str, gd: GameDef) -> MatchState:
    """A MATCHSTATE line (without a trailing action), checked against the game: cards of its deck,
    the right number per position and round, no card twice; ProtocolMismatch otherwise."""
    parts = line.split(":")
    if len(parts) != 5 or parts[0] != PREFIX:
        raise ProtocolMismatch(f"expected 'MATCHSTATE:<position>:<hand>:<betting>:<cards>' (ACPC protocol 2.0.0), "
                               f"got {line[:120]!r}")
    _, pos, hand, betting, cards = parts
    if pos not in ("0", "1"):  # isdigit would take '²' and '١', and int() refuses 4,301 digits
        raise ProtocolMismatch(f"position {pos[:20]!r} in {line[:120]!r}: expected 0 or 1 (two-player games only)")
    if not (hand.isascii() and hand.isdigit()) or len(hand) > 18:
        raise ProtocolMismatch(f"hand number {hand[:20]!r} in {line[:120]!r}: expected an integer >= 0")
    bad = set(betting) - set(ACTIONS + "/")
    if bad:
        raise ProtocolMismatch(f"betting {betting!r} in {line!r}: unknown actions {''.join(sorted(bad))!r}; "
                               f"limit games use {', '.join(ACTIONS)} and '/' (a no-limit raise size is not supported)")
    segments = cards.split("/")
    holes = segments[0].split("|")
    if len(holes) != 2:
        raise ProtocolMismatch(f"cards {cards!r} in {line!r}: expected two positions' hole cards separated by '|'")
    hole = tuple(_cards(h, gd, line, "hole cards") for h in holes)
    for p, h in enumerate(hole):
        if h and len(h) != gd.num_hole_cards:
            raise ProtocolMismatch(f"position {p} holds {len(h)} cards in {line!r}; the game deals {gd.num_hole_cards}")
    if not hole[int(pos)]:
        raise ProtocolMismatch(f"{line!r}: no hole cards for this agent's position {pos}")
    board = tuple(_cards(b, gd, line, "board cards") for b in segments[1:])
    if len(board) > gd.num_rounds - 1:
        raise ProtocolMismatch(f"{line!r} has board cards for {len(board) + 1} rounds; the game has {gd.num_rounds}")
    for r, b in enumerate(board, start=1):
        if len(b) != gd.num_board_cards[r]:
            raise ProtocolMismatch(f"round {r} shows {len(b)} board cards in {line!r}; the game deals "
                                   f"{gd.num_board_cards[r]}")
    every = [c for h in hole for c in h] + [c for b in board for c in b]
    if len(set(every)) != len(every):
        raise ProtocolMismatch(f"{line!r} shows a card twice")
    if betting.count("/") != len(board):
        raise ProtocolMismatch(f"{line!r}: betting {betting!r} is in round {betting.count('/')} but the cards show "
                               f"round {len(board)}")
    return MatchState(int(pos), int(hand), betting, hole, board)
