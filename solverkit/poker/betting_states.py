"""Betting states of an action tree and the actions each allows (limit, fcpa, size lists with
their caps and all-in thresholds): the rules of betting in one place, shared by building and counting."""

from __future__ import annotations

from .bet_sizes import bet_amounts, round_half_away
from .betting_rules import BettingRules, SizeAbstraction

#: edge kinds; the first three equal betting.py's FOLD_A / CALL_A / RAISE_A, and with ALLIN_K
#: they are OpenSpiel's fcpa action ids
FOLD_K, CALL_K, RAISE_K, ALLIN_K, DEAL_K = 0, 1, 2, 3, 4
KIND_NAMES = ("fold", "call", "raise", "allin", "deal")

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



def _next_decision(rules, r, payload):
    """The next round's first decision state after a round-ending call, or None (showdown, run-out)."""
    spent, facing, caller = payload
    if round_end_kind(rules, r, spent) != "next":
        return None
    return next_round_state(rules, r, spent, facing and caller == rules.first_player[r + 1])
