"""Bet-size syntax and amounts (solverkit.poker.bet_sizes): postflop-solver's grammar (its own
valid and invalid examples from src/bet_size.rs), hand-computed chip amounts (the PioSOLVER preset's
52% / 45% included), rounding, the minimum raise, the all-in cap, and properties under hypothesis
against an exact rational reference."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solverkit.errors import BetSizeError, ConfigError
from solverkit.poker.bet_sizes import BetSize, bet_amounts, parse_bet_sizes, round_half_away

INF = math.inf


def amounts(text, raises=False, **spot):
    return bet_amounts(parse_bet_sizes(text, raises=raises), **spot)


# --- grammar -------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, kind, value, streets, cap", [
    ("0%", "pot", 0.0, 0, 0), ("75%", "pot", 0.75, 0, 0), ("112.5%", "pot", 1.125, 0, 0),
    ("1.001x", "prev", 1.001, 0, 0), ("3.5X", "prev", 3.5, 0, 0), ("0c", "chips", 0, 0, 0),
    ("123C", "chips", 123, 0, 0), ("0c1r", "chips", 0, 0, 1), ("100C100R", "chips", 100, 0, 100),
    ("12.0c", "chips", 12, 0, 0), ("e", "geometric", INF, 0, 0), ("E", "geometric", INF, 0, 0),
    ("2e", "geometric", INF, 2, 0), ("E37.5%", "geometric", 0.375, 0, 0),
    ("100e.5%", "geometric", 0.005, 100, 0), ("1e3%", "geometric", 0.03, 1, 0),  # not 1000%
    ("a", "allin", 0.0, 0, 0), ("A", "allin", 0.0, 0, 0),
])
def test_sizes_parse_as_postflop_solver_reads_them(text, kind, value, streets, cap):
    (size,) = parse_bet_sizes(text, raises=True)
    assert (size.kind, size.value, size.streets, size.raise_cap, str(size)) == (kind, value, streets, cap, text)


@pytest.mark.parametrize("text", [
    "0", "1.23", "%", "+42%", "-30%", "x", "0x", "1x", "c", "12.3c", "10c10", "42cr", "c3r", "0c0r",
    "123c101r", "1c2r3", "12c3.4r", "0e", "2.7e", "101e", "3e7", "E%", "1e2e3", "bet", "1a", "a1",
    "nan%", "inf%", "５0%", "50 %", "1" + "0" * 400 + "%", "1" + "0" * 400 + "x",
])
def test_malformed_sizes_raise_one_line_errors_naming_the_token_and_the_forms(text):
    with pytest.raises(BetSizeError) as err:
        parse_bet_sizes(f"52%, {text}", raises=True)
    message = str(err.value)
    assert isinstance(err.value, ConfigError) and "\n" not in message and len(message) < 600
    assert f"raise size 2 {text[:40]!r}" in message or f"raise size 2 {text[:40] + '...'!r}" in message
    assert "valid forms: N% (of the pot)" in message and "a (all-in)" in message


@pytest.mark.parametrize("text, fragment", [
    ("2.5x", "raise size"), ("20c3r", "raise sizes only"), (",", "empty size"), ("a,,52%", "size 2 ''"),
])
def test_bet_lists_refuse_raise_only_forms_and_empty_sizes(text, fragment):
    with pytest.raises(BetSizeError, match="bet size") as err:
        parse_bet_sizes(text)
    assert fragment in str(err.value)


def test_lists_split_on_commas_with_one_trailing_comma():
    assert [str(s) for s in parse_bet_sizes("40%, 70%")] == ["40%", "70%"]
    assert [s.kind for s in parse_bet_sizes("50c, e, a,")] == ["chips", "geometric", "allin"]
    assert [s.kind for s in parse_bet_sizes(" 25% ,2.5x, e200% ", raises=True)] == ["pot", "prev", "geometric"]
    assert parse_bet_sizes("") == () and parse_bet_sizes("  ") == ()
    with pytest.raises(BetSizeError, match="expected a string"):
        parse_bet_sizes(52)


# --- amounts, computed by hand -------------------------------------------------------------------

PRESET = dict(pot=180, stacks=(910, 910))  # REFERENCE.md's PioSOLVER preset on QsJh2h


def test_preset_flop_bet_and_raise():
    assert amounts("52%", **PRESET, remaining_streets=3) == [94]  # 180 x 0.52 = 93.6
    # IP raises 45% over 94: pot after the call 180 + 2 x 94 = 368; 368 x 0.45 = 165.6 -> 166; 94 + 166
    assert amounts("45%", True, pot=180, stacks=(910, 816), committed=(0, 94), bets_this_street=1) == [260]
    assert amounts("55%", pot=368, stacks=(816, 816), remaining_streets=2) == [202]  # turn: 202.4


@pytest.mark.parametrize("pot, text, expected", [
    (9, "50%", 5), (5, "50%", 3), (7, "50%", 4), (3, "50%", 2), (200, "33%", 66), (100, "0.5%", 1),
    (50, "29%", 14),  # the float product is 14.499999999999998, as in postflop-solver
])
def test_rounding_is_half_away_from_zero_on_the_float_product(pot, text, expected):
    assert amounts(text, pot=pot, stacks=(10_000, 10_000)) == [expected]


def test_round_half_away():
    assert [round_half_away(x) for x in (0.0, 0.49999999999999994, 0.5, 1.5, 2.5, 2.4999, 1e15 + 0.5)] == \
        [0, 0, 1, 2, 3, 2, 10**15 + 1]


def test_geometric_sizes():
    spot = dict(pot=100, stacks=(1000, 1000))
    # spr 10: ((2 x 10 + 1) ** (1 / n) - 1) / 2 of the pot
    assert amounts("e", **spot, remaining_streets=3) == [88]  # 0.87946
    assert amounts("2e", **spot, remaining_streets=3) == [179]  # 1.79129
    assert amounts("3e50%", **spot, remaining_streets=3) == [50]
    assert amounts("e", **spot, remaining_streets=1) == [1000]  # one street: all in
    assert amounts("e", **spot, remaining_streets=2) == amounts("2e", **spot, remaining_streets=3)
    # a raise over 50 into 100: pot after the call 200, 950 behind (spr 4.75); streets n - bets + 1
    facing = dict(pot=100, stacks=(1000, 950), committed=(0, 50))
    assert amounts("e", True, **facing, bets_this_street=1, remaining_streets=3) == [50 + 119]  # 0.59488 x 200
    assert amounts("e", True, **facing, bets_this_street=1, remaining_streets=1) == [1000]
    assert amounts("3e", True, **facing, bets_this_street=2, remaining_streets=1) == \
        amounts("2e", True, **facing, bets_this_street=1, remaining_streets=1)


def test_raise_sizes_and_the_minimum_raise():
    facing = dict(pot=100, stacks=(1000, 950), committed=(0, 50), bets_this_street=1)
    assert amounts("2.5x", True, **facing) == [125]
    assert amounts("10%", True, **facing) == [100]  # 50 + 20 = 70 is below the minimum raise to 100
    assert amounts("20c", True, **facing) == [100] and amounts("80c", True, **facing) == [130]
    assert amounts("a", True, **facing) == [1000]
    assert amounts("10%", True, **facing, min_raise=20) == [70]
    # facing a raise from 50 to 150: pot after the call 400; the last increment 100
    reraise = dict(pot=100, stacks=(950, 850), committed=(50, 150), bets_this_street=2)
    assert amounts("10%, 3x, 50%, a", True, **reraise) == [250, 350, 450, 1000]


def test_raise_caps_count_the_bets_of_the_street():
    facing = dict(pot=100, stacks=(1000, 950), committed=(0, 50))
    assert amounts("20c3r", True, **facing, bets_this_street=3) == [100]
    assert amounts("20c3r", True, **facing, bets_this_street=4) == []
    assert amounts("20c3r, a", True, **facing, bets_this_street=4) == [1000]


def test_amounts_are_capped_at_all_in_sorted_and_deduplicated():
    assert amounts("500%", pot=100, stacks=(200, 200)) == [200]
    assert amounts("a, 300%, 200%", pot=100, stacks=(200, 200)) == [200]
    assert amounts("75%, 50%, 50%, 40c, a", pot=100, stacks=(1000, 1000)) == [40, 50, 75, 1000]
    assert amounts("a, 100%", pot=100, stacks=(300, 150)) == [100, 150]  # the opponent covers 150
    assert amounts("a", pot=100, stacks=(150, 300)) == [150]
    assert amounts("1e300%, 99999999999999999999c", pot=100, stacks=(300, 150)) == [150]


def test_smallest_bet():
    assert amounts("0%, 0c", pot=100, stacks=(1000, 1000)) == [1]
    assert amounts("0%, 1%", pot=100, stacks=(1000, 1000), min_bet=2) == [2]
    assert amounts("1%", pot=100, stacks=(1, 1000), min_bet=2) == [1]  # all in for less


def test_no_bet_or_raise_when_someone_is_all_in():
    assert amounts("a", True, pot=100, stacks=(50, 950), committed=(0, 50), bets_this_street=1) == []
    assert amounts("a", True, pot=100, stacks=(1000, 0), committed=(0, 50), bets_this_street=1) == []
    assert amounts("a, 50%", pot=100, stacks=(0, 0)) == [] and amounts("a", pot=100, stacks=(10, 0)) == []
    assert amounts("", pot=100, stacks=(100, 100)) == []


@pytest.mark.parametrize("spot, fragment", [
    (dict(pot=0, stacks=(1, 1)), "pot 0"), (dict(pot=-5, stacks=(1, 1)), "pot -5"),
    (dict(pot=1.5, stacks=(1, 1)), "pot 1.5"), (dict(pot=True, stacks=(1, 1)), "pot True"),
    (dict(pot=10, stacks=(1, -1)), "stacks[1] -1"), (dict(pot=10, stacks=(1,)), "stacks (1,)"),
    (dict(pot=10, stacks="11"), "stacks '11'"), (dict(pot=10, stacks=(1.0, 1)), "stacks[0] 1.0"),
    (dict(pot=10, stacks=(9, 9), committed=(5, 0)), "opponent's turn"),
    (dict(pot=10, stacks=(9, 9), committed=(0, 5)), "bets_this_street 0"),
    (dict(pot=10, stacks=(9, 9), bets_this_street=1), "bets_this_street 1"),
    (dict(pot=10, stacks=(9, 9), remaining_streets=0), "remaining_streets 0"),
    (dict(pot=10, stacks=(9, 9), min_bet=-1), "min_bet -1"),
])
def test_bad_spots_raise_bet_size_errors(spot, fragment):
    with pytest.raises(BetSizeError) as err:
        bet_amounts(parse_bet_sizes("a"), **spot)
    assert fragment in str(err.value) and "\n" not in str(err.value)


def test_raise_only_sizes_need_a_bet_and_sizes_must_be_parsed():
    with pytest.raises(BetSizeError, match="no bet to raise|none to raise"):
        amounts("2.5x", True, pot=100, stacks=(100, 100))
    with pytest.raises(BetSizeError, match="parse_bet_sizes"):
        bet_amounts("52%", pot=100, stacks=(100, 100))
    with pytest.raises(BetSizeError, match="is not one of"):
        bet_amounts([BetSize("half")], pot=100, stacks=(100, 100))
    for bad in (["52%"], None, 5, [None]):
        with pytest.raises(BetSizeError, match="expected a list of BetSize"):
            bet_amounts(bad, pot=100, stacks=(100, 100))


# --- properties ----------------------------------------------------------------------------------

SIZE = st.one_of(
    st.builds(lambda p: f"{p}%", st.integers(0, 400)),
    st.builds(lambda p, q: f"{p}.{q}%", st.integers(0, 300), st.integers(0, 99)),
    st.builds(lambda m: f"{m}x", st.sampled_from(["1.5", "2", "2.5", "3", "10"])),
    st.builds(lambda c: f"{c}c", st.integers(0, 5000)),
    st.sampled_from(["e", "2e", "3e", "e150%", "2e75%", "a"]),
)


@st.composite
def spots(draw):
    """A consistent heads-up spot: either no bet yet, or facing a bet or raise."""
    pot = draw(st.integers(1, 100_000))
    stack = draw(st.integers(0, 200_000))
    opp_stack = draw(st.integers(0, 200_000))
    if draw(st.booleans()):
        return dict(pot=pot, stacks=(stack, opp_stack), remaining_streets=draw(st.integers(1, 3)))
    mine = draw(st.integers(0, 5_000))
    theirs = mine + draw(st.integers(1, 5_000))
    bets = draw(st.integers(1 if mine == 0 else 2, 6))
    return dict(pot=pot, stacks=(stack, opp_stack), committed=(mine, theirs), bets_this_street=bets,
                remaining_streets=draw(st.integers(1, 3)))


def bounds(spot):
    """(smallest, all-in) raise-to amounts of a spot, or None when no bet or raise is possible."""
    (stack, opp), (mine, theirs) = spot["stacks"], spot.get("committed", (0, 0))
    if stack <= theirs - mine or opp == 0:
        return None
    all_in = min(mine + stack, theirs + opp)
    smallest = theirs + (theirs - mine) if theirs > mine else 1
    return min(smallest, all_in), all_in


@settings(max_examples=150, deadline=None)
@given(spots(), st.lists(SIZE, min_size=1, max_size=6))
def test_amounts_are_sorted_unique_chip_counts_between_the_minimum_and_all_in(spot, sizes):
    facing = "committed" in spot
    text = ", ".join(s for s in sizes if facing or not s.endswith("x"))
    result = amounts(text, facing, **spot)
    limits = bounds(spot)
    if limits is None or not text:
        assert result == []
        return
    smallest, all_in = limits
    assert all(type(a) is int for a in result) and result == sorted(set(result))
    assert all(smallest <= a <= all_in for a in result)
    assert (all_in in result) == any(amounts(s, facing, **spot) == [all_in] for s in text.split(", "))
    if "a" in text.split(", "):
        assert all_in in result


@settings(max_examples=150, deadline=None)
@given(spots(), st.integers(0, 400), st.integers(0, 99))
def test_pot_sizes_match_exact_arithmetic(spot, whole, hundredths):
    """Against Fraction arithmetic: equal but where the exact product is within 1e-9 of a half."""
    text = f"{whole}.{hundredths:02d}%"
    facing = "committed" in spot
    limits = bounds(spot)
    result = amounts(text, facing, **spot)
    if limits is None:
        assert result == []
        return
    smallest, all_in = limits
    theirs = spot.get("committed", (0, 0))[1]
    exact = Fraction(spot["pot"] + 2 * theirs) * Fraction(whole * 100 + hundredths, 10_000)
    rounded = math.floor(exact + Fraction(1, 2))
    expected = min(max(theirs * facing + rounded, smallest), all_in)
    if abs(exact - math.floor(exact) - Fraction(1, 2)) > Fraction(1, 10**9):
        assert result == [expected]
    else:
        assert abs(result[0] - expected) <= 1


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 10_000), st.integers(1, 100_000), st.integers(1, 4))
def test_geometric_bets_put_the_stack_in_over_the_streets(pot, stack, streets):
    """Betting the geometric fraction f on each of n streets, called, grows the pot to pot + 2 x stack:
    pot x (1 + 2f) ** n = pot + 2 x stack, up to the rounding to a chip."""
    (amount,) = amounts(f"{streets}e", pot=pot, stacks=(stack, stack), remaining_streets=streets)
    target = pot + 2 * stack
    # the unrounded size lies within half a chip of the amount (or below it, raised to the 1-chip minimum)
    low, high = (amount - 0.5) / pot, (amount + 0.5) / pot
    if amount > 1:
        assert pot * (1 + 2 * low) ** streets <= target * (1 + 1e-9)
    assert pot * (1 + 2 * high) ** streets >= target * (1 - 1e-9)
    assert amount <= stack and (streets > 1 or amount == stack)


SIZE_ALPHABET = st.sampled_from(list("0123456789.%xXcCrReEaA, -+") + ["５", "\x00", "é", "inf", "nan"])


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(), st.lists(SIZE_ALPHABET, max_size=20).map("".join)), st.booleans(), spots())
def test_any_text_gives_amounts_or_a_one_line_bet_size_error(text, raises, spot):
    try:
        sizes = parse_bet_sizes(text, raises=raises)
        result = bet_amounts(sizes, **spot)
    except BetSizeError as exc:
        assert "\n" not in str(exc)
        return
    assert result == sorted(set(result)) and all(type(a) is int and a >= 1 for a in result)
