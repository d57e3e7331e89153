"""Bet-size lists in postflop-solver's syntax ("52%, 2.5x, a") and the chip amounts they give in
a spot (for the no-limit postflop spots of issue 25).

The facts come from postflop-solver (github.com/b-inary/postflop-solver, read at commit 25373ce):
the grammar from ``src/bet_size.rs`` (``bet_size_from_str``), the amounts from
``src/action_tree.rs`` (``push_actions``). Sizes, comma-separated, case-insensitive, one trailing
comma allowed, the empty string meaning no sizes:

* ``"52%"``: 52% of the pot after the mover calls; a raise adds it to the bet it calls;
* ``"2.5x"``: 2.5 times the previous bet or raise (its raise-to amount); raises only, above 1;
* ``"40c"``: 40 chips (a whole number); a raise adds them to the bet it calls;
  ``"40c3r"`` (raises only): offered while the street has seen at most 3 bets and raises;
* ``"e"`` / ``"2e"`` / ``"3e150%"``: the geometric size, the pot fraction that, bet on each of
  ``n`` streets and called, puts the effective stack in: ``((2 * behind / pot + 1) ** (1 / n) - 1)
  / 2`` of the pot, at most ``150%`` when given; ``n`` (1 to 100) defaults to the streets left
  (flop 3, turn 2, river 1); a raise subtracts the raises made before it this street,
  ``max(n - bets_this_street + 1, 1)`` (facing the first bet: ``n``), and adds the size to the
  bet it calls;
* ``"a"``: all-in.

Letters are read before numbers, as postflop-solver reads them: ``"1e3%"`` is the geometric size
over 1 street capped at 3% of the pot, not 1000%. "pot" is the pot after the mover calls and
"behind" the effective stack after that call (the smaller of what each player has left).
postflop-solver's tree options that add or force an all-in or merge close sizes (its
add_allin_threshold, force_allin_threshold, merging_threshold) belong to the tree builder and are
not applied here.

Amounts are raise-to totals for the street (the chips the mover has put in this street after
the action, as postflop-solver's ``Bet(amount)`` / ``Raise(amount)``). Rounding: the product
``pot * fraction`` (or ``bet * multiplier``) is computed in float64 as postflop-solver computes
it, then rounded half away from zero (Rust's ``f64::round``): "50%" of a pot of 9 is 5, and "29%"
of 50 is 14 (the float product is 14.499999999999998). Then each amount is clamped between the
minimum and the all-in: a bet is at least ``min_bet`` chips (1 by default, as postflop-solver); a
raise adds at least the last bet or raise increment (the chips the mover must call, as
postflop-solver, or ``min_raise`` when given) and at least ``min_bet``; anything at or above the
effective stack is the all-in. Equal amounts are merged, and the list is sorted.
"""

from __future__ import annotations

import math
import operator
import re
from dataclasses import dataclass

from ..errors import BetSizeError

#: the forms a size may take, for error messages
VALID_FORMS = ("N% (of the pot), Nx (times the previous bet, raises only, N > 1), Nc (chips), "
               "NcMr (chips, while at most M bets and raises this street, raises only), "
               "e / Ne / NeM% (geometric over N streets, at most M% of the pot), a (all-in)")

_NUM = r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+"
_POT = re.compile(rf"({_NUM})%")
_PREV = re.compile(rf"({_NUM})x")
_CHIPS = re.compile(rf"({_NUM})c(?:({_NUM})r)?")
_GEOMETRIC = re.compile(rf"({_NUM})?e(?:({_NUM})%)?")


@dataclass(frozen=True)
class BetSize:
    """One size of a list. ``kind``: "pot" (``value`` = fraction of the pot), "prev" (``value`` =
    multiplier of the previous bet), "chips" (``value`` = chips, ``raise_cap`` = at most that many
    bets and raises, 0 = no cap), "geometric" (``streets``, 0 = the streets left; ``value`` = the
    largest fraction of the pot, inf = none) or "allin"; ``text``: the token as written."""

    kind: str
    value: float = 0.0
    streets: int = 0
    raise_cap: int = 0
    text: str = ""

    def __str__(self) -> str:
        return self.text


class _SizeError(Exception):
    """A size token is malformed; the caller adds which token."""


def _number(text: str) -> float:
    """A finite non-negative decimal (digits and one point; no sign, no exponent)."""
    value = float(text)
    if not math.isfinite(value):
        raise _SizeError(f"{_clip(text)} is too large")
    return value


def _whole(text: str, what: str, low: int, high: float) -> int:
    """A whole number from ``low`` to ``high`` ("12" or "12.0")."""
    value = float(text)
    if not math.isfinite(value) or value != math.floor(value) or not low <= value <= high:
        upper = "" if math.isinf(high) else f" to {int(high)}"
        raise _SizeError(f"{what} {_clip(text)} is not a whole number from {low}{upper}")
    return int(value)


def _parse_size(token: str, raises: bool) -> BetSize:
    """One size token (already stripped), in the order postflop-solver tries the forms."""
    low = token.lower()
    if re.search(r"[^0-9.%xcrea]", low):
        raise _SizeError("not a size")
    if low.endswith("x"):
        if not raises:
            raise _SizeError("a multiple of the previous bet is a raise size; a bet has no previous bet")
        m = _PREV.fullmatch(low)
        if not m:
            raise _SizeError("a multiplier is a number before 'x' (e.g. 2.5x)")
        value = _number(m.group(1))
        if value <= 1.0:
            raise _SizeError(f"multiplier {_clip(m.group(1))} must be above 1")
        return BetSize("prev", value, text=token)
    if "c" in low:
        m = _CHIPS.fullmatch(low)
        if not m:
            raise _SizeError("chips are a whole number before 'c' (e.g. 40c), optionally a raise cap "
                             "(e.g. 40c3r)")
        chips = _whole(m.group(1), "chips", 0, math.inf)
        cap = 0
        if m.group(2) is not None:
            if not raises:
                raise _SizeError("a raise cap ('r') applies to raise sizes only")
            cap = _whole(m.group(2), "raise cap", 1, 100)
        return BetSize("chips", float(chips), raise_cap=cap, text=token)
    if "e" in low:
        m = _GEOMETRIC.fullmatch(low)
        if not m:
            raise _SizeError("a geometric size is 'e', 'Ne' or 'NeM%' (e.g. e, 2e, 3e150%)")
        streets = 0 if m.group(1) is None else _whole(m.group(1), "number of streets", 1, 100)
        cap = math.inf if m.group(2) is None else _number(m.group(2)) / 100.0
        return BetSize("geometric", cap, streets=streets, text=token)
    if low.endswith("%"):
        m = _POT.fullmatch(low)
        if not m:
            raise _SizeError("a pot fraction is a number before '%' (e.g. 52%)")
        return BetSize("pot", _number(m.group(1)) / 100.0, text=token)
    if low == "a":
        return BetSize("allin", text=token)
    raise _SizeError("not a size")


def parse_bet_sizes(text: str, raises: bool = False) -> tuple[BetSize, ...]:
    """The sizes of a comma-separated list such as "52%, a" (``raises``: the list is for raises,
    which allows "2.5x" and raise caps). BetSizeError names the bad token and the valid forms."""
    if not isinstance(text, str):
        raise BetSizeError(f"bet sizes {text!r}: expected a string such as '52%, a'; valid forms: {VALID_FORMS}")
    tokens = [t.strip() for t in text.split(",")]
    if not tokens[-1]:
        tokens.pop()  # no sizes, or one trailing comma
    sizes = []
    for number, token in enumerate(tokens, 1):
        try:
            if not token:
                raise _SizeError("empty size")
            sizes.append(_parse_size(token, raises))
        except _SizeError as exc:
            kind = "raise" if raises else "bet"
            raise BetSizeError(f"{kind} size {number} {_clip(token, 40)} of {_clip(text)}: {exc}; "
                               f"valid forms: {VALID_FORMS}") from None
    return tuple(sizes)


def _clip(text: str, limit: int = 60) -> str:
    """repr of ``text``, cut after ``limit`` characters for one-line messages."""
    return repr(text if len(text) <= limit else text[:limit] + "...")


# --- amounts ----------------------------------------------------------------------------------


def round_half_away(x: float) -> int:
    """Round a non-negative float to the nearest integer, halves up (Rust's f64::round)."""
    whole = math.floor(x)
    return int(whole) + (1 if x - whole >= 0.5 else 0)


def _chip_count(name: str, value) -> int:
    """A chip count argument: a non-negative integer (BetSizeError otherwise)."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise BetSizeError(f"{name} {value!r}: expected a whole number of chips")
    value = operator.index(value)
    if value < 0:
        raise BetSizeError(f"{name} {value}: expected 0 or more chips")
    return value


def _pair(name: str, value) -> tuple[int, int]:
    """(mover, opponent) chip counts."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise BetSizeError(f"{name} {value!r}: expected (mover, opponent) chip counts")
    return _chip_count(f"{name}[0]", value[0]), _chip_count(f"{name}[1]", value[1])


def _geometric_fraction(size: BetSize, behind: int, pot_after_call: int, streets: int) -> float:
    """The pot fraction that, bet and called on each of ``streets`` streets, puts ``behind`` in."""
    spr = behind / pot_after_call
    fraction = ((2.0 * spr + 1.0) ** (1.0 / streets) - 1.0) / 2.0
    return min(fraction, size.value)


def bet_amounts(sizes, *, pot: int, stacks, committed=(0, 0), bets_this_street: int = 0,
                remaining_streets: int = 1, min_bet: int = 1, min_raise: int | None = None) -> list[int]:
    """Raise-to chip amounts this street of ``sizes`` (from :func:`parse_bet_sizes`, or a string)
    for the player to act, sorted and without repeats.

    ``pot``: chips in the pot from earlier streets (0 allowed facing a bet, e.g. blinds); ``stacks``: (mover, opponent) chips behind
    now; ``committed``: (mover, opponent) chips put in this street, the opponent's being the bet
    or raise to call (equal: no bet yet, the sizes are bets); ``bets_this_street``: bets and
    raises so far this street (0 when no bet, at least 1 when facing one); ``remaining_streets``:
    streets left including this one (river 1); ``min_bet`` / ``min_raise``: see the module
    docstring. Empty when the mover cannot bet or raise (a stack is all in, or calling is all in).
    """
    if isinstance(sizes, str):
        raise BetSizeError(f"bet_amounts takes parsed sizes: call parse_bet_sizes({_clip(sizes)}) first")
    if not isinstance(sizes, (tuple, list)) or not all(isinstance(size, BetSize) for size in sizes):
        raise BetSizeError(f"sizes {_clip(repr(sizes))}: expected a list of BetSize from parse_bet_sizes")
    pot = _chip_count("pot", pot)
    (stack, opp_stack), (mine, theirs) = _pair("stacks", stacks), _pair("committed", committed)
    if pot + 2 * theirs < 1:  # pot 0 is fine facing a bet: the first round's blinds are this street's bets
        raise BetSizeError("pot 0: the pot of a postflop spot holds at least 1 chip")
    bets = _chip_count("bets_this_street", bets_this_street)
    streets = _chip_count("remaining_streets", remaining_streets)
    min_bet = _chip_count("min_bet", min_bet)
    if streets < 1:
        raise BetSizeError("remaining_streets 0: expected 1 (river) or more")
    if mine > theirs:
        raise BetSizeError(f"committed {tuple(committed)}: the mover has put in more than the opponent, "
                           f"so it is the opponent's turn")
    facing = theirs > mine
    if facing and bets < 1 or not facing and bets != 0:
        raise BetSizeError(f"bets_this_street {bets} with committed {tuple(committed)}: expected "
                           f"{'1 or more (facing a bet)' if facing else '0 (no bet yet)'}")
    to_call = theirs - mine
    if stack <= to_call or opp_stack == 0:
        return []  # calling puts the mover all in, or the opponent is all in: no bet or raise
    all_in = min(mine + stack, theirs + opp_stack)
    pot_after_call = pot + 2 * theirs
    behind = all_in - theirs
    if facing:
        step = to_call if min_raise is None else _chip_count("min_raise", min_raise)
        smallest = min(theirs + max(step, min_bet, 1), all_in)
    else:
        smallest = min(max(min_bet, 1), all_in)
    amounts = set()
    for size in sizes:
        raw = _raw_amount(size, facing, theirs, bets, pot_after_call, behind, streets, all_in)
        if raw is not None:
            amounts.add(min(max(raw, smallest), all_in))
    return sorted(amounts)


def _raw_amount(size: BetSize, facing: bool, theirs: int, bets: int, pot_after_call: int,
                behind: int, streets: int, all_in: int) -> int | None:
    """The unclamped raise-to amount of one size (None: not offered here)."""
    base = theirs if facing else 0  # a raise adds its size to the bet it calls
    if size.kind == "allin":
        return all_in
    if size.kind == "pot":
        return base + _rounded(pot_after_call * size.value, all_in)
    if size.kind == "chips":
        if facing and size.raise_cap and bets > size.raise_cap:
            return None
        return base + min(int(size.value), all_in)
    if size.kind == "geometric":
        n = size.streets or streets
        if facing:
            n = max(n - bets + 1, 1)
        return base + _rounded(pot_after_call * _geometric_fraction(size, behind, pot_after_call, n), all_in)
    if size.kind == "prev":
        if not facing:
            raise BetSizeError(f"size {size.text!r} multiplies the previous bet, and there is none to raise: "
                               f"use it in a raise list")
        return _rounded(theirs * size.value, all_in)
    raise BetSizeError(f"size {size!r} is not one of: {VALID_FORMS}")


def _rounded(x: float, cap: int) -> int:
    """round_half_away(x), first capped at ``cap`` so huge sizes stay finite integers."""
    return round_half_away(min(x, float(cap)))
