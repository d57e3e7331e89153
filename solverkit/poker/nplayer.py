"""ACPC limit games of 2 to 6 players at the table: game definitions, the ACPC server's betting
rules (game.c) for N players, deals, showdowns and payoffs, for the dealer and the agents of
N-player matches (``solverkit dealer`` / ``match`` / ``play`` with three or more seats).

The poker engine solves two-player games; an N-player strategy comes from the generic tree engine
(``kuhn_tree`` / ``leduc_tree`` with ``players = N``, or ``openspiel`` games such as
``kuhn_poker(players=3)``), whose information sets the agents find from match states
(:mod:`solverkit.poker.players`). Nothing here builds a tree: the dealer needs only the rules.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError
from .acpc_protocol import MAX_NUM_ACTIONS, ProtocolMismatch
from .evaluator import acpc_strengths
from .gamedef import CANONICAL, AcpcDeck, field_reader, gamedef_text, read_gamedef

#: players at a table of an N-player game (ACPC's game.c allows 10; the tree engine solves up to 6)
MIN_PLAYERS, MAX_PLAYERS = 2, 6


@dataclass(frozen=True)
class TableDef(AcpcDeck):
    """An ACPC limit game definition of `num_players` players (per-round lists; ``blind`` per
    player): what the N-player dealer and agents read. Field names follow
    :class:`~solverkit.poker.gamedef.GameDef` so the protocol code reads either."""

    num_players: int
    num_rounds: int
    blind: tuple[int, ...]
    raise_size: tuple[int, ...]
    first_player: tuple[int, ...]  # 0-based
    max_raises: tuple[int, ...]

    @property
    def big_blind(self) -> int:
        """The unit of mbb/g: the largest blind, or with equal blinds (antes) the first bet."""
        return max(self.blind) if len(set(self.blind)) > 1 else self.raise_size[0]

    def validate(self) -> "TableDef":
        where = self.source
        if not MIN_PLAYERS <= self.num_players <= MAX_PLAYERS:
            raise ConfigError(f"{where}: numPlayers = {self.num_players} is invalid: expected {MIN_PLAYERS}.."
                              f"{MAX_PLAYERS}")
        check_rounds_and_deal(self)
        if len(self.blind) != self.num_players:
            raise ConfigError(f"{where}: field blind has {len(self.blind)} values, expected {self.num_players} "
                              "(one per player)")
        if any(r <= 0 for r in self.raise_size):
            raise ConfigError(f"{where}: raiseSize = {list(self.raise_size)}: every round needs a positive bet size")
        if any(b < 0 for b in self.blind) or any(not 0 <= m <= 255 for m in self.max_raises):
            raise ConfigError(f"{where}: blind = {list(self.blind)}, maxRaises = {list(self.max_raises)}: expected "
                              "blinds >= 0 and 0..255 raises a round")
        return self


def check_rounds_and_deal(gd) -> None:
    """ConfigError unless an N-player definition's rounds, first players and deal fit: 1..8 rounds,
    firstPlayer 1..numPlayers, 1..4 suits, 1..13 ranks, 1..4 hole cards, no board cards in the first
    round, and a deck that holds the whole deal (limit TableDef and the blueprint's no-limit table)."""
    where, P = gd.source, gd.num_players
    if not 1 <= gd.num_rounds <= 8:
        raise ConfigError(f"{where}: numRounds = {gd.num_rounds}: expected 1..8")
    if any(not 0 <= f < P for f in gd.first_player):
        raise ConfigError(f"{where}: firstPlayer = {[f + 1 for f in gd.first_player]}: expected 1..{P} per round")
    if not 1 <= gd.num_suits <= 4 or not 1 <= gd.num_ranks <= 13 or not 1 <= gd.num_hole_cards <= 4:
        raise ConfigError(f"{where}: numSuits = {gd.num_suits}, numRanks = {gd.num_ranks}, numHoleCards = "
                          f"{gd.num_hole_cards}: expected 1..4 suits, 1..13 ranks, 1..4 hole cards")
    if gd.num_board_cards[0] or any(b < 0 for b in gd.num_board_cards):
        raise ConfigError(f"{where}: numBoardCards = {list(gd.num_board_cards)}: expected 0 in the first round "
                          "and >= 0 after")
    need = P * gd.num_hole_cards + sum(gd.num_board_cards)
    if need > gd.deck_size:
        raise ConfigError(f"{where}: the deal needs {need} cards but the deck has {gd.deck_size}")

def parse_table(text: str, source: str = "<string>") -> TableDef:
    """An ACPC limit game definition of any number of players (2..6); ConfigError names the line."""
    betting, line, fields = read_gamedef(text, source)
    if betting != "limit":
        raise ConfigError(f"{source}:{line}: betting type {betting!r}: N-player matches play limit games; expected "
                          "a line 'limit'")
    if "stack" in fields:
        raise ConfigError(f"{source}:{fields['stack'][0]}: field stack is not supported in a limit game (stacks never "
                          "bind); remove the stack line")

    get = field_reader(fields, source)

    players, rounds = get("numplayers")[0], get("numrounds")[0]

    def per_round(key, default=None):
        vals = get(key, default)
        if len(vals) < rounds:
            raise ConfigError(f"{source}:{fields[key][0]}: field {CANONICAL[key]} has {len(vals)} values, expected "
                              f"{rounds} (one per round)")
        return tuple(vals[:rounds])

    first = per_round("firstplayer", [1] * rounds)
    return TableDef(players, rounds, tuple(get("blind")), per_round("raisesize"), tuple(f - 1 for f in first),
                    per_round("maxraises"), num_suits=get("numsuits")[0], num_ranks=get("numranks")[0],
                    num_hole_cards=get("numholecards")[0], num_board_cards=per_round("numboardcards"),
                    source=source).validate()


def load_table(name_or_path: str) -> TableDef:
    """A limit game of any number of players by bundled name (``kuhn.limit.3p``) or path."""
    return parse_table(*gamedef_text(name_or_path))


def two_player_table(gd) -> TableDef:
    """The TableDef of a two-player limit GameDef (the same rules, read by the N-player code)."""
    return TableDef(2, gd.num_rounds, tuple(gd.blind), tuple(gd.raise_size), tuple(gd.first_player),
                    tuple(gd.max_raises), num_suits=gd.num_suits, num_ranks=gd.num_ranks,
                    num_hole_cards=gd.num_hole_cards, num_board_cards=tuple(gd.num_board_cards),
                    source=gd.source).validate()


def tree_table(game) -> TableDef:
    """The ACPC game definition of a tree-engine Kuhn or Leduc of N players (OpenSpiel's rules:
    antes of 1 as blinds, N + 1 ranks, player 0 first in every round)."""
    P, R = game.num_players, len(game.raise_size)
    return TableDef(P, R, (game.ante,) * P, tuple(game.raise_size), (0,) * R, tuple(game.max_raises),
                    num_suits=game.suits, num_ranks=game.ranks, num_hole_cards=1,
                    num_board_cards=tuple(game.board_cards), source=f"{game.name}(players={P})").validate()


class LimitState:
    """The betting of one hand of an N-player limit game under the ACPC server's rules (game.c):
    blinds, a raise to the highest bet plus the round's raise size while the round's raises are
    under maxRaises, a fold only when facing a bet, the player to act the next one still in, a
    round that ends when every player still in has called the last raise (or checked), the hand
    over when one player is left or the last round ends. Actions are 'f', 'c', 'r'."""

    def __init__(self, gd: TableDef):
        self.gd = gd
        self.spent = list(gd.blind)
        self.max_spent = max(gd.blind)
        self.round = 0
        self.actions: list[list[tuple[str, int]]] = [[] for _ in range(gd.num_rounds)]  # (letter, player)
        self.folded = [False] * gd.num_players
        self.finished = False

    @classmethod
    def from_betting(cls, gd: TableDef, betting: str) -> "LimitState":
        """The state after `betting`, every action legal and rounds ending where the rules end
        them; ProtocolMismatch naming the first bad action."""
        state = cls(gd)
        for i, ch in enumerate(betting):
            if ch == "/":
                continue
            if ch not in "fcr":
                raise ProtocolMismatch(f"betting {betting!r}: unknown action {ch!r} at {i}; limit games use f, c, r "
                                       "and '/'")
            why = state.invalid(ch)
            if why:
                raise ProtocolMismatch(f"betting {betting!r}: {why} at {i}")
            state.apply(ch)
        if state.betting() != betting:
            raise ProtocolMismatch(f"betting {betting!r}: the dealer writes these actions as {state.betting()!r} (a "
                                   "round ends where the rules end it)")
        return state

    def current_player(self) -> int:
        """The player to act (game.c's currentPlayer); -1 once the hand is over."""
        if self.finished:
            return -1
        P = self.gd.num_players
        acts = self.actions[self.round]
        p = acts[-1][1] if acts else (self.gd.first_player[self.round] + P - 1) % P
        for _ in range(P):
            p = (p + 1) % P
            if not self.folded[p]:
                return p
        return -1

    def _acting(self) -> int:
        return self.folded.count(False)

    def can_raise(self) -> bool:
        acts = self.actions[self.round]
        return (not self.finished and sum(a == "r" for a, _ in acts) < self.gd.max_raises[self.round]
                and len(acts) + self.gd.num_players <= MAX_NUM_ACTIONS and self._acting() > 1)

    def can_fold(self) -> bool:
        p = self.current_player()
        return p >= 0 and self.spent[p] != self.max_spent

    def legal(self) -> list[str]:
        """The legal actions of the player to act, in the tree engine's order (f, c, r)."""
        if self.finished:
            return []
        return (["f"] if self.can_fold() else []) + ["c"] + (["r"] if self.can_raise() else [])

    def invalid(self, letter: str) -> str:
        if self.finished:
            return "an action after the hand ended"
        if letter == "f" and not self.can_fold():
            return "a fold with nothing to call"
        if letter == "r" and not self.can_raise():
            return "a raise where no raise is legal"
        return "" if letter in "fcr" else f"unknown action {letter!r}"

    def fix(self, letter: str) -> tuple[str, bool]:
        """The action the ACPC dealer plays for a reply: an illegal one is a call."""
        return (letter, True) if not self.invalid(letter) else ("c", False)

    def apply(self, letter: str) -> None:
        """Play a legal action (game.c's doAction)."""
        gd = self.gd
        p = self.current_player()
        self.actions[self.round].append((letter, p))
        if letter == "f":
            self.folded[p] = True
        elif letter == "c":
            self.spent[p] = self.max_spent
        else:
            self.max_spent += gd.raise_size[self.round]
            self.spent[p] = self.max_spent
        if self._acting() == 1:
            self.finished = True
        elif self._called() >= self._acting():
            if self.round + 1 < gd.num_rounds:
                self.round += 1
            else:
                self.finished = True

    def _called(self) -> int:
        """Players who have matched the current bet this round (game.c's numCalled)."""
        n = 0
        for letter, _ in reversed(self.actions[self.round]):
            if letter in "rc":
                n += 1
            if letter == "r":
                break
        return n

    def betting(self) -> str:
        return "/".join("".join(a for a, _ in self.actions[r]) for r in range(self.round + 1))

    @property
    def showdown(self) -> bool:
        return self.finished and self._acting() > 1

    def payoffs(self, strengths=None) -> tuple[float, ...]:
        """Chips each player wins: the pot to the one left, or split among the best hands still in
        at a showdown (`strengths`: one per player, higher wins), less what each put in."""
        left = [p for p in range(self.gd.num_players) if not self.folded[p]]
        if len(left) > 1:
            best = max(strengths[p] for p in left)
            left = [p for p in left if strengths[p] == best]
        pot = float(sum(self.spent))
        return tuple((pot / len(left) if p in left else 0.0) - self.spent[p] for p in range(self.gd.num_players))


@dataclass
class TableDeal:
    """The cards of one deal: hole cards per position, board cards per round after the first."""

    hole: tuple[tuple[int, ...], ...]
    board: tuple[tuple[int, ...], ...]


def deal_cards(gd: TableDef, seed: int, index: int) -> TableDeal:
    """Deal `index` of the stream `seed`: the same cards whoever sits where."""
    k, P = gd.num_hole_cards, gd.num_players
    need = P * k + sum(gd.num_board_cards)
    cards = np.random.default_rng([seed, index]).permutation(gd.deck_size)[:need]
    hole = tuple(tuple(sorted(int(c) for c in cards[p * k:(p + 1) * k])) for p in range(P))
    board, pos = [], P * k
    for r in range(1, gd.num_rounds):
        n = gd.num_board_cards[r]
        board.append(tuple(int(c) for c in cards[pos:pos + n]))
        pos += n
    return TableDeal(hole, tuple(board))


def strengths(gd: TableDef, deal: TableDeal) -> np.ndarray:
    """ACPC hand ranks of every position's hole cards with the whole board (higher wins)."""
    board = np.array([c for b in deal.board for c in b], dtype=np.int64)
    out = np.empty(gd.num_players, dtype=np.int64)
    acpc_strengths(np.array(deal.hole, dtype=np.int64), board, gd.num_suits, out)
    return out
