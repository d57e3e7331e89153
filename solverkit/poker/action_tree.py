"""The betting (action) tree of any two-player poker game as flat arrays: limit games, no-limit
games with OpenSpiel's fcpa abstraction, and no-limit games or postflop spots with bet-size lists.

Downstream code (public tree, kernels, export) reads these arrays and never the rules of betting.
Nodes are numbered as in solverkit.poker.betting: round by round, and within a round in preorder,
so parents precede children and every subtree is one contiguous range per round. Per node:
``round``, ``kind`` (DECISION / FOLD / SHOWDOWN / ROUND_END, betting.py's codes), ``player``
(acting, or folding; -1 otherwise), ``spent`` [n, 2] (chips committed over the hand, ACPC's
spent: a bigger all-in keeps its unmatched chips here, and they return at the showdown, so a
showdown pays min(spent) and a fold the folder's spent), ``parent``, ``history`` (ACPC betting
string: 'f', 'c', 'r' in limit games and 'r<N>' raise-to totals in no-limit games, rounds
separated by '/'; a spot's strings start in its first round), ``allin`` (some player has put his whole stack in) and ``runout`` (a board
is dealt without betting: the ROUND_END nodes after an all-in and call before the last round,
which chain through the remaining rounds to a SHOWDOWN in the last round).

Edges are CSR: the edges of node n are ``act_start[n]:act_end[n]`` in ``act_child``,
``act_kind`` (FOLD_K, CALL_K (call or check), RAISE_K (bet or raise), ALLIN_K, or DEAL_K for the
single edge of a ROUND_END node to the next round's first node, a chance deal between them) and
``act_amount`` (the mover's chips over the hand after the action, i.e. ACPC's raise-to total for a
bet or raise; 0 for DEAL_K). Decisions list fold, call, then bets by amount (all-in last).

Rules (see :class:`BettingRules`): ACPC limit rules as betting.py; ACPC no-limit with fcpa
exactly as OpenSpiel 2.0.2's universal_poker builds it (REFERENCE.md, "No-limit"); size lists
with postflop-solver's amounts (solverkit.poker.bet_sizes), its donk rule and its add / force
all-in thresholds, TexasSolver's all-in commit threshold, and a raise cap.
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass, field

import numpy as np

from ..errors import BetSizeError, ConfigError
from .bet_sizes import BetSize, bet_amounts, parse_bet_sizes, round_half_away
from .betting import DECISION, FOLD, ROUND_END, SHOWDOWN, BettingTree, NodeArrays

#: edge kinds; the first three equal betting.py's FOLD_A / CALL_A / RAISE_A, and with ALLIN_K
#: they are OpenSpiel's fcpa action ids
FOLD_K, CALL_K, RAISE_K, ALLIN_K, DEAL_K = 0, 1, 2, 3, 4
KIND_NAMES = ("fold", "call", "raise", "allin", "deal")
LIMIT, FCPA = "limit", "fcpa"
SIZE_KEYS = ("bet", "raise", "donk")


# --- rules ------------------------------------------------------------------------------------


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


# --- betting states ---------------------------------------------------------------------------
# A decision state is a tuple (round, spent0, spent1, player, raises, acted, base, donk):
# raises = bets and raises this round (a big blind counted as the round's opening bet in
# size-list trees), acted = actions this round, capped at 2 (only "is this the first" matters),
# base = chips each had in before the round, donk = the round's first actor called the last
# bet of the previous round. Every field the future depends on, and nothing else, so that
# count_nodes can memoise on it.

_DEC, _FOLD, _END = 0, 1, 2  # what an edge leads to: a decision, a fold, the round's end


def root_state(rules: BettingRules) -> tuple:
    """The decision state at the root."""
    s0, s1 = rules.spent
    opened = 1 if isinstance(rules.abstraction, SizeAbstraction) and s0 != s1 else 0
    return (rules.start_round, s0, s1, rules.first_player[rules.start_round], opened, 0, rules.root_base, False)


def next_round_state(rules: BettingRules, r: int, spent, donk: bool) -> tuple:
    """The first decision state of round r + 1, both players having matched."""
    donk = donk and isinstance(rules.abstraction, SizeAbstraction)
    return (r + 1, spent[0], spent[1], rules.first_player[r + 1], 0, 0, spent[0], donk)


def is_allin(rules: BettingRules, spent) -> bool:
    """Some player has his whole stack in."""
    return rules.stack is not None and (spent[0] >= rules.stack[0] or spent[1] >= rules.stack[1])


def expand(rules: BettingRules, state: tuple) -> list:
    """The actions of a decision: (kind, amount, token, target, payload) with target _DEC
    (payload: the child's state), _FOLD (payload: spent) or _END (the call ends the round;
    payload: (spent, whether it called a bet, the caller))."""
    if rules.is_limit:
        return _expand_limit(rules, state)
    if rules.is_fcpa:
        return _expand_fcpa(rules, state)
    return _expand_sizes(rules, state)


def _call_edge(state, new):
    """The call (or check): it ends the round unless it is the round's first action."""
    r, s0, s1, p, raises, acted, base, _ = state
    amount = new[p]
    if acted + 1 >= 2:
        facing = (s0, s1)[p] < (s0, s1)[1 - p]
        return (CALL_K, amount, "c", _END, (tuple(new), facing, p))
    return (CALL_K, amount, "c", _DEC, (r, new[0], new[1], 1 - p, raises, min(acted + 1, 2), base, False))


def _raise_edge(state, kind, amount, token):
    """A bet or raise to ``amount`` chips over the hand."""
    r, s0, s1, p, raises, acted, base, _ = state
    new = [s0, s1]
    new[p] = amount
    return (kind, amount, token, _DEC, (r, new[0], new[1], 1 - p, raises + 1, min(acted + 1, 2), base, False))


def _expand_limit(rules, state):
    """ACPC limit: fold when facing a bet, call, raise by raiseSize while under maxRaises."""
    r, s0, s1, p, raises, acted, _, _ = state
    spent = (s0, s1)
    top = max(spent)
    edges = []
    if spent[p] < top:
        edges.append((FOLD_K, spent[p], "f", _FOLD, spent))
    new = [s0, s1]
    new[p] = top  # never lowers: the first actor may have posted the larger blind
    edges.append(_call_edge(state, new))
    if raises < rules.max_raises[r]:
        edges.append(_raise_edge(state, RAISE_K, top + rules.raise_size[r], "r"))
    return edges


def _expand_fcpa(rules, state):
    """OpenSpiel 2.0.2's fcpa: fold (facing a bet), call (for less when short), a pot-sized
    raise when the stack allows it, all-in when it differs from the pot raise (REFERENCE.md)."""
    r, s0, s1, p, raises, acted, _, _ = state
    spent = (s0, s1)
    stack = rules.stack
    top, own = max(spent), spent[p]
    edges = []
    if own < top:
        edges.append((FOLD_K, own, "f", _FOLD, spent))
    new = [s0, s1]
    new[p] = min(top, stack[p])
    edges.append(_call_edge(state, new))
    # ACPC also refuses a raise past 62 actions in a round; pot raises at least double the bet,
    # so 32-bit stacks end every round long before that
    cap = rules.max_raises[r] if rules.max_raises is not None else 255
    if raises < cap and spent[1 - p] < stack[1 - p] and top < stack[p]:
        pot_to = s0 + s1 + 2 * top - own
        if pot_to <= stack[p]:
            edges.append(_raise_edge(state, RAISE_K, pot_to, f"r{pot_to}"))
        if pot_to != stack[p]:
            edges.append(_raise_edge(state, ALLIN_K, stack[p], f"r{stack[p]}"))
    return edges


def _expand_sizes(rules, state):
    """Size lists: fold (facing a bet), call, then bets or raises of bet_amounts' sizes, with the
    raise cap and the all-in thresholds."""
    r, s0, s1, p, raises, acted, base, donk = state
    abst = rules.abstraction
    spent = (s0, s1)
    top, own = max(spent), spent[p]
    facing = own < top
    edges = []
    if facing:
        edges.append((FOLD_K, own, "f", _FOLD, spent))
    new = [s0, s1]
    new[p] = top
    edges.append(_call_edge(state, new))
    if facing and abst.raise_limit is not None and raises - 1 >= abst.raise_limit:
        return edges
    for amount, kind in _size_amounts(rules, state):
        edges.append(_raise_edge(state, kind, amount, f"r{amount}"))
    return edges


def _size_amounts(rules, state) -> list:
    """(raise-to total over the hand, RAISE_K or ALLIN_K) of the mover's sizes, sorted, no repeats."""
    r, s0, s1, p, raises, acted, base, donk = state
    abst = rules.abstraction
    spent, stack = (s0, s1), rules.stack
    top, own = max(spent), spent[p]
    facing = own < top
    if not facing:
        base = own  # a street bet starts from what both have matched (a big blind's option after a limp)
    sizes = abst.streets[r][p]
    if facing:
        chosen = sizes.raise_
    elif donk and acted == 0 and sizes.donk is not None:
        chosen = sizes.donk
    else:
        chosen = sizes.bet
    mine, theirs = own - base, top - base
    behind = (stack[p] - own, stack[1 - p] - spent[1 - p])
    street = bet_amounts(chosen, pot=2 * base + rules.dead, stacks=behind, committed=(mine, theirs),
                         bets_this_street=raises if facing else 0, remaining_streets=rules.num_rounds - r,
                         min_bet=abst.min_bet)
    if not street and (stack[p] - own <= theirs - mine or behind[1] == 0):
        return []  # calling is all in, or the opponent is all in: no bet or raise
    all_in = min(mine + behind[0], theirs + behind[1])
    pot_after_call = 2 * top + rules.dead
    amounts = set(street)
    if abst.add_allin_threshold > 0:
        if all_in <= theirs + round_half_away(pot_after_call * abst.add_allin_threshold):
            amounts.add(all_in)
    out = set()
    for a in amounts:
        out.add(_forced_allin(rules, a, all_in, theirs, pot_after_call, base))
    return [(base + a, ALLIN_K if a == all_in else RAISE_K) for a in sorted(out)]


def _forced_allin(rules, amount, all_in, theirs, pot_after_call, base) -> int:
    """``amount`` (this street), or the all-in where a threshold turns it into one: postflop-solver's
    force threshold (the stack left after a call, over the pot then, at most the threshold) or
    TexasSolver's commit threshold (more than threshold x the root's effective stack in)."""
    abst = rules.abstraction
    if abst.force_allin_threshold > 0:
        new_pot = pot_after_call + 2 * (amount - theirs)
        if all_in <= amount + round_half_away(new_pot * abst.force_allin_threshold):
            return all_in
    if abst.allin_commit_threshold is not None:
        if base + rules.dead / 2 + amount > abst.allin_commit_threshold * rules.effective_stack:
            return all_in
    return amount


def round_end_kind(rules: BettingRules, r: int, spent) -> str:
    """How a round that ends with both matched goes on: "showdown" (last round), "runout" (an
    all-in before the last round: boards dealt without betting) or "next" (the next round's bets)."""
    if r + 1 == rules.num_rounds:
        return "showdown"
    return "runout" if is_allin(rules, spent) else "next"


# --- building ---------------------------------------------------------------------------------


@dataclass
class ActionTree(NodeArrays):
    """Flat arrays over betting nodes (module docstring); ``rules`` built it."""

    round: np.ndarray
    kind: np.ndarray
    player: np.ndarray
    spent: np.ndarray
    act_start: np.ndarray
    act_end: np.ndarray
    act_child: np.ndarray
    act_kind: np.ndarray
    act_amount: np.ndarray
    parent: np.ndarray
    history: list
    allin: np.ndarray
    runout: np.ndarray
    rules: BettingRules

    @property
    def num_actions(self) -> np.ndarray:
        """Edges per node (a ROUND_END node has one, its deal)."""
        return self.act_end - self.act_start

    def counts(self) -> tuple[int, ...]:
        """Nodes per round (rounds before the start round count 0)."""
        return tuple(int(c) for c in np.bincount(self.round, minlength=self.rules.num_rounds))

    def children(self, n: int) -> np.ndarray:
        return self.act_child[self.act_start[n]: self.act_end[n]]


_SHOW, _NEXT, _RUNOUT = 3, 4, 5  # a round-ending call resolved: showdown, next round, run-out


def _resolved_edges(rules: BettingRules, state: tuple) -> tuple:
    """expand(state) for the builder: (kinds, amounts, children in reverse action order as
    (action index, target, payload, token)), round ends resolved to _SHOW / _NEXT / _RUNOUT."""
    kids = expand(rules, state)
    r, p = state[0], state[3]
    out = []
    for i, (_, _, token, target, payload) in enumerate(kids):
        if target == _FOLD:
            out.append((i, _FOLD, (payload, p), token))
        elif target == _END:
            spent = payload[0]
            how = round_end_kind(rules, r, spent)
            if how == "next":
                out.append((i, _NEXT, (spent, _next_decision(rules, r, payload)), token))
            else:
                out.append((i, _SHOW if how == "showdown" else _RUNOUT, spent, token))
        else:
            out.append((i, _DEC, payload, token))
    out.reverse()
    return [k[0] for k in kids], [k[1] for k in kids], out


def build_action_tree(rules: BettingRules, max_nodes: int | None = None) -> ActionTree:
    """Build the whole tree of ``rules`` (refused with ConfigError before building when
    count_nodes says it has more than ``max_nodes`` nodes). One depth-first walk in preorder;
    the actions of each distinct betting state are computed once."""
    rules.validate()
    if max_nodes is not None:
        refuse_if_too_large(rules, max_nodes)
    last = rules.num_rounds - 1
    cols = _Columns()
    rnd = cols.round
    e_start, e_count, e_child, e_kind, e_amount = cols.e_start, cols.e_count, cols.e_child, cols.e_kind, cols.e_amount
    cache: dict[tuple, tuple] = {}
    # work items: (target, payload, round, history, parent node, parent's edge slot)
    work = [(_DEC, root_state(rules), rules.start_round, "", -1, -1)]
    pop, push = work.pop, work.append
    while work:
        target, payload, r, hist, par, slot = pop()
        n = len(rnd)
        if slot >= 0:
            e_child[slot] = n
        if target == _DEC:
            cols.add(r, DECISION, payload[3], payload[1], payload[2], par, hist, False)
            entry = cache.get(payload)
            if entry is None:
                entry = cache[payload] = _resolved_edges(rules, payload)
            kinds, amounts, children = entry
            first = len(e_child)
            e_start[n] = first
            e_count[n] = len(kinds)
            e_child.extend([-1] * len(kinds))
            e_kind.extend(kinds)
            e_amount.extend(amounts)
            for i, tgt, pay, token in children:
                push((tgt, pay, r, hist + token, n, first + i))
        elif target == _FOLD:
            spent, folder = payload
            cols.add(r, FOLD, folder, spent[0], spent[1], par, hist, False)
        elif target == _SHOW:
            cols.add(r, SHOWDOWN, -1, payload[0], payload[1], par, hist, False)
        elif target == _NEXT:
            spent, nxt = payload
            cols.add(r, ROUND_END, -1, spent[0], spent[1], par, hist, False)
            cols.deal_edge(n)
            push((_DEC, nxt, r + 1, hist + "/", n, len(e_child) - 1))
        else:  # run-out: ROUND_END nodes through the remaining rounds, then a showdown
            prev = par
            for rr in range(r, last + 1):
                m = len(rnd)
                if rr > r:
                    e_child[len(e_child) - 1] = m
                    hist += "/"
                cols.add(rr, SHOWDOWN if rr == last else ROUND_END, -1, payload[0], payload[1], prev, hist, True)
                if rr < last:
                    cols.deal_edge(m)
                prev = m
    return _finish(cols, rules)


class _Columns:
    """Node columns in visit (global preorder) order, and their edges."""

    def __init__(self):
        self.round, self.kind, self.player, self.s0, self.s1 = [], [], [], [], []
        self.parent, self.history, self.runout = [], [], []
        self.e_start, self.e_count = [], []
        self.e_child, self.e_kind, self.e_amount = [], [], []

    def add(self, r, kind, player, a, b, parent, history, runout):
        """Append a node without edges."""
        self.round.append(r)
        self.kind.append(kind)
        self.player.append(player)
        self.s0.append(a)
        self.s1.append(b)
        self.parent.append(parent)
        self.history.append(history)
        self.runout.append(runout)
        self.e_start.append(len(self.e_child))
        self.e_count.append(0)

    def deal_edge(self, n):
        """Give ROUND_END node ``n`` its one edge (the deal); its child is filled in later."""
        self.e_start[n] = len(self.e_child)
        self.e_count[n] = 1
        self.e_child.append(-1)
        self.e_kind.append(DEAL_K)
        self.e_amount.append(0)


def _finish(b: _Columns, rules: BettingRules) -> ActionTree:
    """Renumber the visit order by (round, preorder) and lay the edges out as CSR in that order."""
    rnd = np.array(b.round, dtype=np.int64)
    order = np.argsort(rnd, kind="stable")  # new id -> visit index; stable keeps preorder per round
    new_id = np.empty(len(order), dtype=np.int64)
    new_id[order] = np.arange(len(order), dtype=np.int64)
    count = np.array(b.e_count, dtype=np.int64)[order]
    old_start = np.array(b.e_start, dtype=np.int64)[order]
    act_end = np.cumsum(count)
    act_start = act_end - count
    pos = np.arange(int(act_end[-1]) if len(act_end) else 0, dtype=np.int64)
    pos += np.repeat(old_start - act_start, count)
    child_old = np.array(b.e_child, dtype=np.int64)[pos]
    if np.any(child_old < 0):
        raise AssertionError("action tree: an edge without a child")  # a builder bug, never input
    parent_old = np.array(b.parent, dtype=np.int64)[order]
    parent = np.where(parent_old >= 0, new_id[np.maximum(parent_old, 0)], -1)
    spent = np.stack([np.array(b.s0, dtype=np.int64), np.array(b.s1, dtype=np.int64)], axis=1)[order]
    allin = np.zeros(len(order), dtype=bool)
    if rules.stack is not None:
        allin = np.any(spent >= np.array(rules.stack, dtype=np.int64), axis=1)
    return ActionTree(
        round=rnd[order], kind=np.array(b.kind, dtype=np.int64)[order],
        player=np.array(b.player, dtype=np.int64)[order], spent=spent,
        act_start=act_start, act_end=act_end, act_child=new_id[child_old],
        act_kind=np.array(b.e_kind, dtype=np.int64)[pos], act_amount=np.array(b.e_amount, dtype=np.int64)[pos],
        parent=parent, history=[b.history[i] for i in order], allin=allin,
        runout=np.array(b.runout, dtype=bool)[order], rules=rules)


# --- counting without building ----------------------------------------------------------------


def count_nodes(rules: BettingRules) -> tuple[int, ...]:
    """Nodes per round of the tree ``rules`` builds (exact), without building it: a memoised
    walk over betting states, so a tree of 1e12 nodes with few distinct states counts at once."""
    return tuple(_count(rules)[: rules.num_rounds])


def _next_decision(rules, r, payload):
    """The next round's first decision state after a round-ending call, or None (showdown, run-out)."""
    spent, facing, caller = payload
    if round_end_kind(rules, r, spent) != "next":
        return None
    return next_round_state(rules, r, spent, facing and caller == rules.first_player[r + 1])


def refuse_if_too_large(rules: BettingRules, max_nodes: int) -> tuple[int, ...]:
    """count_nodes(rules), or ConfigError naming the size when it exceeds ``max_nodes``."""
    counts = count_nodes(rules)
    total = sum(counts)
    if total > max_nodes:
        raise ConfigError(f"{rules.name}: the betting tree has {total:,} nodes (per round: "
                          f"{', '.join(f'{c:,}' for c in counts)}), more than the {max_nodes:,} allowed; "
                          "use fewer bet sizes, a raise_limit or smaller stacks")
    return counts


# --- limit trees as today's BettingTree -------------------------------------------------------


def to_betting_tree(tree: ActionTree) -> BettingTree:
    """The BettingTree the kernels walk: ``children`` [n, width] with width the most actions of a
    node (at least 3, so that a limit tree's is identical to build_betting_tree's), action codes
    FOLD_K / CALL_K / RAISE_K / ALLIN_K, and ``amounts``. A showdown's ``spent`` is the matched
    stake, min(spent) for both players: the unmatched chips of a bigger all-in return to it."""
    n = tree.num_nodes
    num = tree.num_actions
    decision = tree.kind == DECISION
    width = max(3, int(num[decision].max()) if decision.any() else 0)
    children = np.full((n, width), -1, dtype=np.int64)
    actions = np.full((n, width), -1, dtype=np.int64)
    amounts = np.full((n, width), -1, dtype=np.int64)
    slot = np.arange(len(tree.act_child), dtype=np.int64) - np.repeat(tree.act_start, num)
    owner = np.repeat(np.arange(n, dtype=np.int64), num)
    children[owner, slot] = tree.act_child
    is_decision_edge = decision[owner]
    actions[owner[is_decision_edge], slot[is_decision_edge]] = tree.act_kind[is_decision_edge]
    amounts[owner[is_decision_edge], slot[is_decision_edge]] = tree.act_amount[is_decision_edge]
    spent = tree.spent.copy()
    show = tree.kind == SHOWDOWN
    spent[show] = spent[show].min(axis=1, keepdims=True)
    return BettingTree(tree.round.copy(), tree.kind.copy(), tree.player.copy(), spent,
                       np.where(decision, num, 0), actions, children, tree.parent.copy(), list(tree.history),
                       amounts=None if tree.rules.is_limit else amounts)


def betting_counts(rules: BettingRules):
    """The sizes of the tree ``rules`` builds, counted without building it (size.BettingCounts:
    decision nodes, their actions and the betting sequences entering each round, and all nodes)."""
    from .size import BettingCounts

    R = rules.num_rounds
    c = list(_count(rules))
    entering = c[3 * R:]
    entering[rules.start_round] += 1
    return BettingCounts(c[R:2 * R], c[2 * R:3 * R], entering, sum(c[:R]))


def _count(rules: BettingRules) -> tuple:
    """Per round: nodes, decision nodes, their actions and the round ends leading into the round
    (4 x rounds integers) of the tree ``rules`` builds: one memoised walk over betting states,
    each distinct state expanded once."""
    rules.validate()
    R = rules.num_rounds
    memo: dict[tuple, tuple] = {}

    def zero():
        return [0] * (4 * R)

    def add(total, sub):
        for i in range(4 * R):
            total[i] += sub[i]

    def end_counts(r, payload):
        out = zero()
        how = round_end_kind(rules, r, payload[0])
        if how == "showdown":
            out[r] += 1
            return out
        if how == "runout":
            for i in range(r, R):
                out[i] += 1
                if i + 1 < R:
                    out[3 * R + i + 1] += 1
            return out
        add(out, memo[_next_decision(rules, r, payload)])
        out[r] += 1
        out[3 * R + r + 1] += 1
        return out

    root = root_state(rules)
    work = [(root, None)]
    while work:
        state, kids = work.pop()
        if state in memo:
            continue
        if kids is None:
            kids = expand(rules, state)
            missing = [k[4] for k in kids if k[3] == _DEC and k[4] not in memo]
            missing += [nxt for nxt in (_next_decision(rules, state[0], k[4]) for k in kids if k[3] == _END)
                        if nxt is not None and nxt not in memo]
            if missing:
                work.append((state, kids))
                work.extend((m, None) for m in missing)
                continue
        r = state[0]
        total = zero()
        total[r] += 1
        total[R + r] += 1
        total[2 * R + r] += len(kids)
        for _, _, _, target, payload in kids:
            if target == _DEC:
                add(total, memo[payload])
            elif target == _FOLD:
                total[r] += 1
            else:
                add(total, end_counts(r, payload))
        memo[state] = tuple(total)
    return memo[root]
