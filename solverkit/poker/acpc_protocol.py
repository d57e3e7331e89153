"""The ACPC dealer protocol 2.0.0: match-state lines, read and written (two positions, or N for
the limit tables of :mod:`solverkit.poker.nplayer`), and the ACPC server's no-limit betting
rules for two players (:class:`NoLimitState`).

A line is ``MATCHSTATE:<position>:<hand>:<betting>:<cards>`` (a reply repeats it and appends
``:<action>``). ``betting`` is the hand's actions, ``f`` / ``c`` / ``r`` (in no-limit games
``r<N>``, a raise to N chips over the whole hand), rounds separated by ``/``; ``cards`` is each
position's hole cards separated by ``|`` (empty when unseen), then ``/`` and the board cards of
each later round. Cards are a rank of ``23456789TJQKA`` and a suit
of ``cdhs``; a smaller deck is the top of the full one, as the ACPC dealer deals it (Leduc: Q, K, A
of hearts and spades; see :mod:`solverkit.poker.cards`). Lines end with ``\\r\\n``; server lines
starting with ``#`` or ``;`` are comments. Position 0 is the game's player 0.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import SolverkitError
from .cards import card_name, parse_card
from .gamedef import GameDef
from .gamedef_nolimit import NoLimitGameDef

VERSION = "VERSION:2.0.0"
PREFIX = "MATCHSTATE"
ACTIONS = "fcr"
#: ACPC's MAX_NUM_ACTIONS: a round of more actions refuses raises (game.c's raiseIsValid)
MAX_NUM_ACTIONS = 64
#: the most digits of a no-limit raise size read (ACPC reads an int32)
MAX_SIZE_DIGITS = 10


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
    players = getattr(gd, "num_players", 2)  # an N-player table (solverkit.poker.nplayer.TableDef) says how many
    if pos not in [str(p) for p in range(players)]:  # isdigit would take '²' and '١', and int() refuses 4,301 digits
        valid = "0 or 1 (two-player games only)" if players == 2 else f"0..{players - 1} (a game of {players} players)"
        raise ProtocolMismatch(f"position {pos[:20]!r} in {line[:120]!r}: expected {valid}")
    if not (hand.isascii() and hand.isdigit()) or len(hand) > 18:
        raise ProtocolMismatch(f"hand number {hand[:20]!r} in {line[:120]!r}: expected an integer >= 0")
    if isinstance(gd, NoLimitGameDef):
        try:
            NoLimitState.from_betting(gd, betting)
        except ProtocolMismatch as exc:
            raise ProtocolMismatch(f"{exc} in {line[:200]!r}") from None
    elif players != 2:
        from .nplayer import LimitState

        try:
            LimitState.from_betting(gd, betting)
        except ProtocolMismatch as exc:
            raise ProtocolMismatch(f"{exc} in {line[:200]!r}") from None
    else:
        bad = set(betting) - set(ACTIONS + "/")
        if bad:
            raise ProtocolMismatch(f"betting {betting!r} in {line!r}: unknown actions {''.join(sorted(bad))!r}; "
                                   f"limit games use {', '.join(ACTIONS)} and '/' (a no-limit raise size is not "
                                   "supported in a limit game)")
    segments = cards.split("/")
    holes = segments[0].split("|")
    if len(holes) != players:
        count = "two" if players == 2 else str(players)
        raise ProtocolMismatch(f"cards {cards!r} in {line!r}: expected {count} positions' hole cards separated by '|'")
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


def parse_action(token: str, nolimit: bool) -> tuple[str, int] | None:
    """(letter, raise-to size) of one action as a reply carries it: 'f', 'c', 'r' (limit) or
    'r<N>' (no-limit, N digits; size 0 otherwise); None when it is no such action."""
    if token in ("f", "c"):
        return token, 0
    if not nolimit:
        return ("r", 0) if token == "r" else None
    digits = token[1:]
    if token[:1] != "r" or not (digits.isascii() and digits.isdigit()) or len(digits) > MAX_SIZE_DIGITS:
        return None
    return "r", int(digits)


def split_betting(betting: str, nolimit: bool) -> list[tuple[str, int]]:
    """The actions of a betting string, in order, with '/' kept as ('/', 0): ProtocolMismatch
    for anything else than f, c, r (limit) or r<N> (no-limit) and '/'."""
    out, i, n = [], 0, len(betting)
    while i < n:
        ch = betting[i]
        if ch in "fc/":
            out.append((ch, 0))
            i += 1
        elif ch == "r":
            j = i + 1
            while j < n and betting[j] in "0123456789":
                j += 1
            if nolimit and j == i + 1:
                raise ProtocolMismatch(f"betting {betting!r}: raise at {i} has no size (no-limit raises are r<N>, "
                                       "a raise to N chips over the hand)")
            if not nolimit and j > i + 1:
                raise ProtocolMismatch(f"betting {betting!r}: a raise size {betting[i:j]!r} in a limit game")
            if j - i - 1 > MAX_SIZE_DIGITS:
                raise ProtocolMismatch(f"betting {betting!r}: raise size {betting[i + 1:j][:20]!r} is too long")
            out.append(("r", int(betting[i + 1:j]) if j > i + 1 else 0))
            i = j
        else:
            what = "f, c, r<N>" if nolimit else "f, c, r"
            raise ProtocolMismatch(f"betting {betting[:120]!r}: unknown action {ch!r} at {i}; expected {what} and '/'")
    return out


class NoLimitState:
    """The betting of one hand of a two-player no-limit game under the ACPC server's rules
    (game.c): blinds, stacks, the minimum raise (the last raise's increment, at least the big
    blind), calls for less, all-in players who no longer act, a round that ends when every acting
    player has called, and the remaining rounds passed without betting once fewer than two
    players can act. Actions are ('f'|'c'|'r', raise-to size)."""

    def __init__(self, gd: NoLimitGameDef):
        self.gd = gd
        self.spent = list(gd.blind)
        self.max_spent = max(gd.blind)
        self.min_raise_to = 2 * self.max_spent if self.max_spent else 1
        self.round = 0
        self.actions: list[list[tuple[str, int, int]]] = [[] for _ in range(gd.num_rounds)]  # (letter, size, player)
        self.folded = -1
        self.finished = False

    @classmethod
    def from_betting(cls, gd: NoLimitGameDef, betting: str) -> "NoLimitState":
        """The state after `betting`, each action checked as the ACPC server reads a state (no
        fixing) and the '/' where rounds end; ProtocolMismatch naming the first bad action."""
        state = cls(gd)
        for letter, size in split_betting(betting, True):
            if letter == "/":
                continue  # where rounds end is checked below: the string must be the state's own
            if state.finished:
                raise ProtocolMismatch(f"betting {betting!r}: an action after the hand ended")
            why = state.invalid(letter, size)
            if why:
                raise ProtocolMismatch(f"betting {betting!r}: {why}")
            state.apply(letter, size)
        if state.betting() != betting:
            raise ProtocolMismatch(f"betting {betting!r}: the dealer writes these actions as {state.betting()!r} "
                                   "(a round ends where the rules end it, a size has no leading zeros)")
        return state

    # --- what the rules allow ---------------------------------------------------------------

    def _can_act(self, p: int) -> bool:
        return self.folded != p and self.spent[p] < self.gd.stack[p]

    def current_player(self) -> int:
        """The player to act (game.c's currentPlayer); -1 once the hand is over."""
        if self.finished:
            return -1
        acts = self.actions[self.round]
        p = acts[-1][2] if acts else (self.gd.first_player[self.round] + 1) % 2
        for _ in range(2):
            p = (p + 1) % 2
            if self._can_act(p):
                return p
        return -1

    def raise_range(self) -> tuple[int, int] | None:
        """(smallest, largest) raise-to size the player to act may choose, None when no raise is
        legal (the cap, the action limit, no one left to call, or a stack that cannot go higher)."""
        if self.finished:
            return None
        acts = self.actions[self.round]
        cap = self.gd.max_raises[self.round] if self.gd.max_raises is not None else 255
        if sum(a[0] == "r" for a in acts) >= cap or len(acts) + 2 > MAX_NUM_ACTIONS:
            return None
        if sum(self._can_act(p) for p in (0, 1)) <= 1:
            return None
        p = self.current_player()
        lo, hi = self.min_raise_to, self.gd.stack[p]
        if lo > hi:
            if self.max_spent >= hi:
                return None
            lo = hi
        return lo, hi

    def can_fold(self) -> bool:
        """Folding is legal only facing a bet one is not all in against (game.c's isValidAction)."""
        p = self.current_player()
        return p >= 0 and self.spent[p] != self.max_spent and self.spent[p] != self.gd.stack[p]

    def invalid(self, letter: str, size: int = 0) -> str:
        """Why the action is not legal for the player to act ('' when it is)."""
        if self.finished:
            return "the hand is over"
        if letter == "f":
            return "" if self.can_fold() else "a fold with nothing to call"
        if letter == "c":
            return ""
        if letter != "r":
            return f"unknown action {letter!r}"
        span = self.raise_range()
        if span is None:
            return f"a raise to {size} where no raise is legal"
        if not span[0] <= size <= span[1]:
            return f"a raise to {size} outside the legal {span[0]}..{span[1]}"
        return ""

    def fix(self, letter: str, size: int = 0) -> tuple[str, int, bool]:
        """The action the ACPC dealer plays for a reply (game.c's isValidAction with fixing): a raise
        outside the legal sizes is moved to the nearest, an impossible raise or fold is a call;
        the flag says whether the reply was legal as sent."""
        if not self.invalid(letter, size):
            return letter, size, True
        if letter == "r" and self.raise_range() is not None:
            lo, hi = self.raise_range()
            return "r", min(max(size, lo), hi), False
        return "c", 0, False

    # --- playing ----------------------------------------------------------------------------

    def apply(self, letter: str, size: int = 0) -> None:
        """Play a legal action (game.c's doAction)."""
        gd = self.gd
        p = self.current_player()
        self.actions[self.round].append((letter, size if letter == "r" else 0, p))
        if letter == "f":
            self.folded = p
        elif letter == "c":
            self.spent[p] = min(self.max_spent, gd.stack[p])
        else:
            self.min_raise_to = max(self.min_raise_to, 2 * size - self.max_spent)
            self.max_spent = size
            self.spent[p] = size
        if self.folded >= 0:
            self.finished = True
            return
        acting = sum(self._can_act(q) for q in (0, 1))
        if self._called() >= acting:
            if acting > 1:
                if self.round + 1 < gd.num_rounds:
                    self.round += 1
                    self.min_raise_to = max(max(gd.blind), 1) + self.max_spent
                else:
                    self.finished = True
            else:
                self.finished = True
                self.round = gd.num_rounds - 1

    def _called(self) -> int:
        """Acting players who have matched the current bet (game.c's numCalled)."""
        n = 0
        for letter, _, p in reversed(self.actions[self.round]):
            if letter in "rc" and self.spent[p] < self.gd.stack[p]:
                n += 1
            if letter == "r":
                break
        return n

    def betting(self) -> str:
        """The betting string the dealer writes (game.c's printBetting)."""
        return "/".join("".join(a + (str(s) if a == "r" else "") for a, s, _ in self.actions[r])
                        for r in range(self.round + 1))

    @property
    def showdown(self) -> bool:
        return self.finished and self.folded < 0

    def payoffs(self, loser: int | None) -> tuple[int, int]:
        """Chips each player wins at the end: a fold loses the folder's spent; at a showdown
        `loser` (None: a tie) loses the matched stake, the rest of a bigger all-in returns."""
        if self.folded >= 0:
            won = self.spent[self.folded]
            return (-won, won) if self.folded == 0 else (won, -won)
        if loser is None:
            return 0, 0
        won = min(self.spent)
        return (-won, won) if loser == 0 else (won, -won)

    def pot_fraction(self, size: int) -> float:
        """A raise to `size` by the player to act as a fraction of the pot after his call: the
        size of bets and raises that action abstractions and translation speak of."""
        return pot_fraction(size, self.spent, self.current_player())


def pot_fraction(size: int, spent, player: int) -> float:
    """A raise to `size` chips (over the hand) by `player`, given each player's chips in, as a
    fraction of the pot once he has called: (size - max) / (pot + max - own)."""
    top = max(spent)
    pot = spent[0] + spent[1] + top - spent[player]
    return (size - top) / pot
