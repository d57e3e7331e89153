"""N-player no-limit ACPC games (2 to 6 players) and their betting tree under an action
abstraction, for the blueprint engine. The two-player no-limit code (solverkit.poker.gamedef_nolimit,
action_tree) is left as it is; this reads the same files for any number of players.

Rules as the ACPC server's game.c: blinds, a raise to at least the highest bet plus the last
raise (at least the big blind), at most the player's stack; a fold only when facing a bet; the
round ends when every player still in and not all-in has acted since the last raise and matched
it; the hand ends when one player is left, after the last round, or when at most one player can
still act and has matched (the board is then dealt to the end). Stacks must be equal, so the pot
never splits into side pots (every player in at a showdown has put in the same).

Action abstractions: ``fcpa`` (fold, call, pot-sized raise, all-in; the pot raise only where it
is a legal raise below the stack) and ``fc`` (fold, call: a tiny test tree).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError
from ..poker.gamedef import CANONICAL, MISSING_HINT, AcpcDeck, gamedef_text, read_gamedef
from ..poker.nplayer import check_rounds_and_deal
from .betting import DECISION, TERMINAL, BettingTree

ABSTRACTIONS = ("fcpa", "fc", "sizes")


@dataclass(frozen=True)
class NoLimitTable(AcpcDeck):
    """An N-player no-limit game definition: per-player blinds and stacks, per-round lists."""

    num_players: int
    num_rounds: int
    blind: tuple
    stack: tuple
    first_player: tuple  # 0-based

    @property
    def big_blind(self) -> int:
        return max(self.blind)


def parse_nolimit_table(text: str, source: str = "<string>") -> NoLimitTable:
    """A no-limit ACPC game of 2..6 players with equal stacks; ConfigError naming the field."""
    betting, line, fields = read_gamedef(text, source)
    if betting != "nolimit":
        raise ConfigError(f"{source}:{line}: betting type {betting!r}: expected a line 'nolimit'")

    def get(key, default=None):
        if key not in fields:
            if default is None:
                raise ConfigError(f"{source}: missing field {CANONICAL[key]}{MISSING_HINT.get(key, '')}")
            return default
        return list(fields[key][1])

    P, R = get("numplayers")[0], get("numrounds")[0]
    if not 2 <= P <= 6:
        raise ConfigError(f"{source}: numPlayers = {P} is invalid: expected 2..6")
    stack = get("stack")
    stack = stack * P if len(stack) == 1 else stack
    blind = get("blind")
    if len(stack) != P or len(blind) != P or len(set(stack)) != 1:
        raise ConfigError(f"{source}: stack = {stack}, blind = {blind}: expected {P} blinds and {P} equal stacks "
                          "(or one stack for all)")
    if stack[0] <= max(blind):
        raise ConfigError(f"{source}: stack = {stack[0]} must exceed the largest blind {max(blind)}")
    first = get("firstplayer", [1] * R)[:R]
    boards = get("numboardcards")[:R]
    if len(first) < R or len(boards) < R:
        raise ConfigError(f"{source}: firstPlayer and numBoardCards need {R} values (one per round)")
    table = NoLimitTable(P, R, tuple(blind), tuple(stack), tuple(f - 1 for f in first), num_suits=get("numsuits")[0],
                         num_ranks=get("numranks")[0], num_hole_cards=get("numholecards")[0],
                         num_board_cards=tuple(boards), source=source)
    check_rounds_and_deal(table)
    return table


def load_any_table(name_or_path: str):
    """A limit TableDef or a NoLimitTable, by the file's betting line."""
    from ..poker.nplayer import parse_table

    text, source = gamedef_text(name_or_path)
    betting = read_gamedef(text, source)[0]
    return parse_nolimit_table(text, source) if betting == "nolimit" else parse_table(text, source)


class _State:
    """One betting state (plain lists, copied per child)."""

    __slots__ = ("spent", "folded", "round", "acted", "last_raise", "betting", "over", "raises", "base")

    def __init__(self, gd: NoLimitTable):
        self.spent = list(gd.blind)
        self.folded = [False] * gd.num_players
        self.round = 0
        self.acted = [False] * gd.num_players
        self.last_raise = gd.big_blind
        self.betting = ""
        self.over = False
        self.raises = 0
        self.base = [0] * gd.num_players  # chips each had put in when the round began

    def copy(self):
        c = object.__new__(_State)
        c.spent, c.folded, c.round, c.acted = list(self.spent), list(self.folded), self.round, list(self.acted)
        c.last_raise, c.betting, c.over, c.raises = self.last_raise, self.betting, self.over, self.raises
        c.base = self.base
        return c


def _can_act(gd, s, p) -> bool:
    return not s.folded[p] and s.spent[p] < gd.stack[p]


def _to_act(gd, s, start) -> int:
    """The first player from `start` (inclusive) who can act and must: -1 when the round is done."""
    P = gd.num_players
    top = max(s.spent)
    for k in range(P):
        p = (start + k) % P
        if _can_act(gd, s, p) and (not s.acted[p] or s.spent[p] < top):
            return p
    return -1


def _after(gd, s, p) -> int:
    """Who acts after player p in this round, or -1 when it is over (then the state moves on)."""
    return _to_act(gd, s, (p + 1) % gd.num_players)


def _start_round(gd, s) -> int:
    """The first player to act in s.round, or -1 once the hand is over (s.over)."""
    P = gd.num_players
    if s.folded.count(False) == 1:
        s.over = True
        return -1
    actors = [p for p in range(P) if _can_act(gd, s, p)]
    top = max(s.spent)
    if len(actors) <= 1 and all(s.spent[p] == top for p in actors):
        s.over = True  # nobody left to bet against: the board runs out
        return -1
    p = _to_act(gd, s, gd.first_player[s.round])
    return p if p >= 0 else _close_round(gd, s)


def _close_round(gd, s) -> int:
    """The round's betting is over: the next round's first player, or -1 (s.over)."""
    if s.folded.count(False) == 1 or s.round + 1 >= gd.num_rounds:
        s.over = True
        return -1
    s.round += 1
    s.acted = [False] * gd.num_players
    s.base = list(s.spent)
    s.last_raise = gd.big_blind
    s.raises = 0
    s.betting += "/"
    return _start_round(gd, s)


def _actions(gd, s, p, abstraction, max_raises=0, sizes=None):
    """(label, raise-to amount or -1 for fold / -2 for call) of player p's abstract actions; no
    raise once the round has had `max_raises` (0: no cap). ``sizes``: the per-round lists of
    abstraction "sizes" (solverkit.blueprint.sizes), labels ``r<amount>`` and ``a``."""
    top = max(s.spent)
    stack = gd.stack[p]
    acts = []
    if s.spent[p] < top:
        acts.append(("f", -1))
    acts.append(("c", -2))
    capped = max_raises and s.raises >= max_raises
    if abstraction == "sizes":
        if not capped and top < stack and any(_can_act(gd, s, q) for q in range(gd.num_players) if q != p):
            from .sizes import raise_amounts

            for amount in raise_amounts(gd, s, p, sizes):
                acts.append(("a" if amount >= stack else f"r{amount}", min(amount, stack)))
        return acts
    if abstraction == "fcpa" and not capped and top < stack and any(_can_act(gd, s, q) for q in range(gd.num_players) if q != p):
        pot_after_call = sum(s.spent) + (top - s.spent[p])
        pot_to = top + pot_after_call
        if pot_to >= top + s.last_raise and pot_to < stack:
            acts.append(("p", pot_to))
        acts.append(("a", stack))
    return acts


def _apply(gd, s, p, label, amount):
    c = s.copy()
    top = max(c.spent)
    c.acted[p] = True
    if label == "f":
        c.folded[p] = True
        c.betting += "f"
    elif label == "c":
        c.spent[p] = min(top, gd.stack[p])
        c.betting += "c"
    else:
        c.last_raise = max(c.last_raise, amount - top)
        c.raises += 1
        c.spent[p] = amount
        c.betting += f"r{amount}"
    return c


def nolimit_tree(gd: NoLimitTable, abstraction: str = "fcpa", max_nodes: int = 5_000_000,
                 max_raises: int = 0, sizes=None) -> BettingTree:
    """The betting tree of `gd` under `abstraction` (one of :data:`ABSTRACTIONS`; "sizes" with
    the per-round lists `sizes` of solverkit.blueprint.sizes.parse_sizes), at most `max_raises`
    raises a round (0: as the stacks allow)."""
    if abstraction not in ABSTRACTIONS:
        raise ConfigError(f"[game] abstraction = {abstraction!r} is invalid: expected one of {', '.join(ABSTRACTIONS)}")
    if abstraction == "sizes" and sizes is None:
        raise ConfigError("[game] abstraction = \"sizes\" needs [game.sizes] tables")
    P = gd.num_players
    root = _State(gd)
    todo = [(root, _start_round(gd, root))]
    kind, player, rnd, first, nact, spent, alive, betting, labels = [], [], [], [], [], [], [], [], [""]
    i = 0
    while i < len(todo):
        s, p = todo[i]
        spent.append(list(s.spent))
        alive.append([not f for f in s.folded])
        betting.append(s.betting)
        rnd.append(s.round)
        if p < 0:
            kind.append(TERMINAL)
            player.append(-1)
            first.append(-1)
            nact.append(0)
        else:
            acts = _actions(gd, s, p, abstraction, max_raises, sizes)
            kind.append(DECISION)
            player.append(p)
            first.append(len(todo))
            nact.append(len(acts))
            for label, amount in acts:
                c = _apply(gd, s, p, label, amount)
                nxt = -1 if c.folded.count(False) == 1 else _after(gd, c, p)
                if c.folded.count(False) == 1:
                    c.over = True
                todo.append((c, nxt if nxt >= 0 or c.over else _close_round(gd, c)))
                labels.append(label)
        if len(todo) > max_nodes:
            raise ConfigError(f"betting tree of {gd.source} under {abstraction!r} has more than {max_nodes} nodes; "
                              "raise [game] max_nodes or use a coarser action abstraction")
        todo[i] = None
        i += 1
    a = np.asarray
    return BettingTree(a(kind, np.int64), a(player, np.int64), a(rnd, np.int64), a(first, np.int64),
                       a(nact, np.int64), a(spent, np.float64).reshape(-1, P), a(alive, np.bool_).reshape(-1, P),
                       betting, labels, P, gd.num_rounds)
