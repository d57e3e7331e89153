"""Range syntax (solverkit.poker.ranges): expansions against a brute-force reference over the 1326
card pairs, hand-counted combo counts (the PioSOLVER preset of REFERENCE.md included), board
removal, errors, the 13x13 grid, and format_range's exact round trip."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solverkit.errors import ConfigError, RangeError
from solverkit.poker.cards import hand_table
from solverkit.poker.ranges import (COMBO_CARDS, NUM_COMBOS, board_mask, combo_index, combo_name,
                                    format_range, grid_labels, num_combos, parse_board, parse_range,
                                    range_grid)

RANKS, SUITS = "23456789TJQKA", "cdhs"

# The PioSOLVER-verified preset of postflop-solver's test suite (../shared/REFERENCE.md, "No-limit").
PRESET_OOP = ("88+,A8s+,A5s-A2s:0.5,AJo+,ATo:0.75,K9s+,KQo,KJo:0.75,KTo:0.25,Q9s+,QJo:0.5,J8s+,"
              "JTo:0.25,T8s+,T7s:0.45,97s+,96s:0.45,87s,86s:0.75,85s:0.45,75s+:0.75,74s:0.45,65s:0.75,"
              "64s:0.5,63s:0.45,54s:0.75,53s:0.5,52s:0.45,43s:0.5,42s:0.45,32s:0.45")
PRESET_IP = ("AA:0.25,99-22,AJs-A2s,AQo-A8o,K2s+,K9o+,Q2s+,Q9o+,J6s+,J9o+,T6s+,T9o,96s+,95s:0.5,98o,"
             "86s+,85s:0.5,75s+,74s:0.5,64s+,63s:0.5,54s,53s:0.5,43s")
PRESET_BOARD = "QsJh2h"


# --- a slow, obviously correct reference ---------------------------------------------------------


def card(name: str) -> int:
    return RANKS.index(name[0]) * 4 + SUITS.index(name[1])


def reference_class(name: str) -> set[tuple[int, int]]:
    """Card pairs of one grid hand ("AA", "AKs", "AKo", "AK"), enumerated over all 1326 pairs."""
    hi, lo, form = RANKS.index(name[0]), RANKS.index(name[1]), name[2:]
    out = set()
    for c1, c2 in combinations(range(52), 2):
        ranks = sorted((c1 // 4, c2 // 4), reverse=True)
        suited = c1 % 4 == c2 % 4
        if ranks == [hi, lo] and (form == "" or (form == "s") == suited):
            out.add((c1, c2))
    return out


def reference_weights(spec: list[tuple[str, float]]) -> np.ndarray:
    """Weights of grid hands listed one by one, later ones overriding."""
    w = np.zeros(NUM_COMBOS)
    rows = {tuple(row): i for i, row in enumerate(hand_table(52, 2).tolist())}
    for name, weight in spec:
        for pair in reference_class(name):
            w[rows[pair]] = weight
    return w


# --- combo index -------------------------------------------------------------------------------


def test_combo_index_is_the_row_of_hand_table_and_names_read_back():
    table = hand_table(52, 2)
    assert np.array_equal(COMBO_CARDS, table) and len(table) == NUM_COMBOS == 52 * 51 // 2
    for i, (c1, c2) in enumerate(table):
        assert combo_index(c1, c2) == combo_index(c2, c1) == i
        w = parse_range(combo_name(i))
        assert np.flatnonzero(w).tolist() == [i]
    assert combo_index(card("2c"), card("2d")) == 0 and combo_index(card("Ah"), card("As")) == 1325
    assert combo_name(combo_index(card("Kh"), card("As"))) == "AsKh"
    for bad in ((3, 3), (-1, 5), (51, 52)):
        with pytest.raises(RangeError, match="not a combo"):
            combo_index(*bad)
    for bad in (-1, 1326):
        with pytest.raises(RangeError, match="not in 0..1325"):
            combo_name(bad)


# --- expansions --------------------------------------------------------------------------------


@pytest.mark.parametrize("text, hands", [
    ("22+", ["AA", "KK", "QQ", "JJ", "TT", "99", "88", "77", "66", "55", "44", "33", "22"]),
    ("88+", ["AA", "KK", "QQ", "JJ", "TT", "99", "88"]),
    ("ATs+", ["AKs", "AQs", "AJs", "ATs"]),
    ("ATo+", ["AKo", "AQo", "AJo", "ATo"]),
    ("K9+", ["KQ", "KJ", "KT", "K9"]),
    ("98s+", ["AKs", "KQs", "QJs", "JTs", "T9s", "98s"]),
    ("T9o+", ["AKo", "KQo", "QJo", "JTo", "T9o"]),
    ("A5s-A2s", ["A5s", "A4s", "A3s", "A2s"]),
    ("K5-K2", ["K5", "K4", "K3", "K2"]),
    ("T9s-65s", ["T9s", "98s", "87s", "76s", "65s"]),
    ("AQo-86o", ["AQo", "KJo", "QTo", "J9o", "T8o", "97o", "86o"]),
    ("99-22", ["99", "88", "77", "66", "55", "44", "33", "22"]),
    ("AK", ["AKs", "AKo"]),
])
def test_plus_and_dash_ranges_expand_as_the_reference(text, hands):
    assert np.array_equal(parse_range(text), reference_weights([(h, 1.0) for h in hands]))


def test_exact_combos_with_plus_and_dash_keep_their_suits():
    expected = parse_range("AhAs,KhKs,QhQs,JhJs,ThTs,9h9s,8h8s")
    assert np.array_equal(parse_range("8s8h+"), expected)
    assert np.array_equal(parse_range("AhAs-QhQs,JJ"), parse_range("JJ,AhAs,KhKs,QhQs"))
    assert np.array_equal(parse_range("AsAh-QhQs"), parse_range("AsAh,KsKh,QsQh"))  # a pair's suits in any order
    assert num_combos(parse_range("AhKh")) == 1 and parse_range("AhKh")[combo_index(card("Ah"), card("Kh"))] == 1


@pytest.mark.parametrize("text, count", [
    ("AA", 6), ("AKs", 4), ("AKo", 12), ("AK", 16), ("22+", 13 * 6), ("ATs+", 4 * 4), ("ATo+", 4 * 12),
    ("A5s-A2s", 4 * 4), ("T9s-65s", 5 * 4), ("99-22", 8 * 6), ("AhKh", 1), ("KQo:0.5", 12 * 0.5),
    ("AA,AKs,AKo", 6 + 4 + 12), ("22+:0.25", 78 * 0.25), ("", 0),
])
def test_combo_counts_counted_by_hand(text, count):
    assert num_combos(parse_range(text)) == pytest.approx(count, abs=1e-12)


def test_preset_ranges_parse_with_the_combo_counts_counted_by_hand():
    # OOP: 88+ 42, A8s+ 24, A5s-A2s:0.5 8, AJo+ 36, ATo:0.75 9, K9s+ 16, KQo 12, KJo:0.75 9,
    # KTo:0.25 3, Q9s+ 12, QJo:0.5 6, J8s+ 12, JTo:0.25 3, T8s+ 8, T7s:0.45 1.8, 97s+ 8,
    # 96s:0.45 1.8, 87s 4, 86s:0.75 3, 85s:0.45 1.8, 75s+:0.75 6, 74s:0.45 1.8, 65s:0.75 3,
    # 64s:0.5 2, 63s:0.45 1.8, 54s:0.75 3, 53s:0.5 2, 52s:0.45 1.8, 43s:0.5 2, 42s:0.45 1.8,
    # 32s:0.45 1.8 = 247.4
    assert num_combos(parse_range(PRESET_OOP)) == pytest.approx(247.4)
    # IP: AA:0.25 1.5, 99-22 48, AJs-A2s 40, AQo-A8o 60, K2s+ 44, K9o+ 48, Q2s+ 40, Q9o+ 36,
    # J6s+ 20, J9o+ 24, T6s+ 16, T9o 12, 96s+ 12, 95s:0.5 2, 98o 12, 86s+ 8, 85s:0.5 2, 75s+ 8,
    # 74s:0.5 2, 64s+ 8, 63s:0.5 2, 54s 4, 53s:0.5 2, 43s 4 = 455.5
    assert num_combos(parse_range(PRESET_IP)) == pytest.approx(455.5)


def test_later_tokens_override_earlier_ones():
    aa = [combo_index(card("Ac"), card("Ad"))]
    assert parse_range("22+,AA:0.5")[aa] == 0.5 and num_combos(parse_range("22+,AA:0.5")) == 75
    assert parse_range("AA:0.5,22+")[aa] == 1.0
    assert parse_range("AK,AhKh:0.3")[combo_index(card("Ah"), card("Kh"))] == pytest.approx(0.3)
    assert num_combos(parse_range("AK,AKs:0")) == 12


def test_whitespace_case_and_trailing_comma_are_tolerated():
    expected = parse_range("98s-65s:0.25,AK,TT+")
    assert np.array_equal(parse_range("  98s - 65s : 0.25 ,\tAK,\nTT +, "), expected)
    assert np.array_equal(parse_range("98s-65s:.25,ak,tt+"), expected)
    assert np.array_equal(parse_range("AA:1.,KK:1"), parse_range("KK+"))


# --- the board -----------------------------------------------------------------------------------


@pytest.mark.parametrize("text, count", [
    ("AA", 6), ("QQ", 3), ("JJ", 3), ("22", 3), ("22+", 78 - 3 * 3),
    ("QJ", 3 * 3), ("QJs", 2), ("QJo", 7),  # live Qc Qd Qh x Jc Jd Js; suited only QcJc, QdJd
    ("AhKh", 1), ("QsKs", 0), ("KsQs", 0), ("Q2s", 2),
])
def test_board_removes_the_combos_it_blocks(text, count):
    try:
        w = parse_range(text, board=PRESET_BOARD)
    except RangeError:  # "QsKs" is written the wrong way round on purpose
        assert text == "QsKs"
        return
    assert num_combos(w) == pytest.approx(count)


def test_board_zeroes_exactly_the_combos_meeting_it():
    dead = {card(c) for c in ("Qs", "Jh", "2h")}
    meets = np.array([c1 in dead or c2 in dead for c1, c2 in COMBO_CARDS])
    assert meets.sum() == 1326 - 49 * 48 // 2 and np.array_equal(board_mask(PRESET_BOARD), meets)
    for text in (PRESET_OOP, PRESET_IP):
        full, on_board = parse_range(text), parse_range(text, board=PRESET_BOARD)
        assert np.array_equal(on_board[~meets], full[~meets]) and not on_board[meets].any()
        assert num_combos(full, board=PRESET_BOARD) == pytest.approx(on_board.sum())


@pytest.mark.parametrize("board", ["QsJh2h", "Qs Jh 2h", "Qs,Jh,2h", ["Qs", "Jh", "2h"],
                                   [card("Qs"), card("Jh"), card("2h")], np.array([43, 38, 2])])
def test_board_forms(board):
    assert sorted(parse_board(board)) == sorted([card("Qs"), card("Jh"), card("2h")])


@pytest.mark.parametrize("board, fragment", [
    ("QsQs", "Qs twice"), ("QsJh2h3c4d5s", "6 cards"), ("Qx", "'Qx'"), ("QsJh2", "'2'"),
    ([52], "card id 52"), ([-1], "card id -1"), ([True], "True"), (5, "expected cards"),
])
def test_bad_boards_raise_range_errors(board, fragment):
    with pytest.raises(RangeError) as err:
        parse_range("AA", board=board)
    assert fragment in str(err.value) and "\n" not in str(err.value)


# --- errors --------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, token, fragment", [
    ("A2s-K5s", "token 1 'A2s-K5s'", "share the first rank"),
    ("AA, KK ,A2s-K5s", "token 3 'A2s-K5s' (at character 9)", "share the first rank"),
    ("AsAs", "'AsAs'", "'As' twice"),
    ("KQo:1.5", "'KQo:1.5'", "above 1"),
    ("KQo:-0.5", "'KQo:-0.5'", "not a number from 0 to 1"),
    ("KQo:nan", "'KQo:nan'", "not a number from 0 to 1"),
    ("KQo:0.5:0.5", "'KQo:0.5:0.5'", "not a number"),
    ("KQo:", "'KQo:'", "not a number"),
    (":0.5", "':0.5'", "no hand"),
    ("AAs", "'AAs'", "write 'AA'"),
    ("89", "'89'", "write '98'"),
    ("KhAs", "'KhAs'", "write 'AsKh'"),
    ("22-AA", "'22-AA'", "write 'AA-22'"),
    ("A2s-A5s", "'A2s-A5s'", "write 'A5s-A2s'"),
    ("AA-AA", "'AA-AA'", "and differ"),
    ("AKs-AQo", "'AKs-AQo'", "differ in form"),
    ("A5s+-A2s", "'A5s+-A2s'", "'+' can only end"),
    ("A5s-", "'A5s-'", "not a dash range"),
    ("AK,,AQ", "token 2 '' (at character 4)", "empty token"),
    (",", "token 1", "empty token"),
    ("ZZ", "'ZZ'", "not a rank"),
    ("AhKH", "'AhKH'", "not a suit"),
    ("AKx", "'AKx'", "neither 's' (suited) nor 'o'"),
    ("A K", "'A K'", "space inside"),
    ("AKQJ", "'AKQJ'", "not a suit"),
    ("AKsx", "'AKsx'", "not a suit"),
    ("ＡＡ", "'ＡＡ'", "not a rank"),
    ("AA:٠.5", "'AA:٠.5'", "not a number"),
])
def test_malformed_tokens_raise_one_line_range_errors(text, token, fragment):
    with pytest.raises(RangeError) as err:
        parse_range(text)
    message = str(err.value)
    assert isinstance(err.value, ConfigError) and "\n" not in message
    assert token in message and fragment in message


def test_non_strings_and_huge_ranges_are_refused():
    for bad in (None, 5, ["AA"], b"AA"):
        with pytest.raises(RangeError, match="expected a string"):
            parse_range(bad)
    with pytest.raises(RangeError, match="longer than"):
        parse_range("AA," * 200_000)


def test_the_longest_formatted_range_reads_back():
    """1326 exact combos with 17-digit subnormal weights (326 characters each, positional)."""
    a = np.nextafter(2.2250738585072014e-308, 0.0)  # the largest subnormal
    w = np.where(np.arange(NUM_COMBOS) % 2 == 0, a, np.nextafter(a, 0.0))
    w[::3] = np.nextafter(np.nextafter(a, 0.0), 0.0)
    text = format_range(w)
    assert len(text.split(",")) == NUM_COMBOS and np.array_equal(parse_range(text), w)


@pytest.mark.parametrize("weights, fragment", [
    (np.zeros(1325), "shape"), (np.zeros((2, 1326)), "shape"), (np.full(1326, np.nan), "not a number from 0 to 1"),
    (np.full(1326, 1.5), "1.5"), (np.full(1326, -0.1), "-0.1"), ("AA", "expected 1326"), (None, "shape"),
])
def test_bad_weight_vectors_raise_range_errors(weights, fragment):
    for function in (format_range, num_combos, range_grid):
        with pytest.raises(RangeError) as err:
            function(weights)
        assert fragment in str(err.value)


# --- the grid ------------------------------------------------------------------------------------


def test_grid_labels_follow_pio_layout():
    labels = grid_labels()
    assert labels[0][:3] == ["AA", "AKs", "AQs"] and labels[1][:3] == ["AKo", "KK", "KQs"]
    assert labels[12][12] == "22" and labels[12][0] == "A2o" and labels[0][12] == "A2s"
    assert len({name for row in labels for name in row}) == 169


def test_grid_averages_weights_per_cell():
    grid = range_grid(parse_range("AKs,AA:0.5,KQo,AhQh:0.8,QJo:0.25"))
    labels = grid_labels()
    value = {labels[r][c]: grid[r, c] for r in range(13) for c in range(13)}
    assert value["AA"] == 0.5 and value["AKs"] == 1 and value["AKo"] == 0 and value["KQo"] == 1
    assert value["AQs"] == pytest.approx(0.2) and value["QJo"] == 0.25 and value["KQs"] == 0
    assert sum(value.values()) == pytest.approx(0.5 + 1 + 1 + 0.2 + 0.25)


def test_grid_with_a_board_averages_over_live_combos():
    w = parse_range("22+,QQ:0.5,QJs", board=PRESET_BOARD)
    labels = grid_labels()
    grid = range_grid(w, board=PRESET_BOARD)
    value = {labels[r][c]: grid[r, c] for r in range(13) for c in range(13)}
    assert value["QQ"] == 0.5 and value["QJs"] == 1 and value["22"] == 1 and value["AA"] == 1
    every = range_grid(parse_range("QsJs"), board=PRESET_BOARD)  # its only combo is dead
    assert not every.any()


# --- format_range --------------------------------------------------------------------------------


@pytest.mark.parametrize("text, formatted", [
    ("AA,KK", "KK+"), ("KK,QQ", "KK-QQ"), ("66-22,TT+", "TT+,66-22"),
    ("AA:0.5, KK:1.0, QQ:1.0, JJ:0.5", "AA:0.5,KK-QQ,JJ:0.5"), ("AA,AK,AQ", "AA,AQ+"),
    ("AK,AQ,AJs", "AQ+,AJs"), ("KQ,KT,K9,K8,K6,K5", "KQ,KT-K8,K6-K5"),
    ("AhAs-QhQs,JJ", "JJ,QsQh,KsKh,AsAh"), ("KJs+,KQo,KsJh", "KQ,KJs,KsJh"), ("", ""),
    ("AA:0.1,KK:0.30000000000000004", "AA:0.1,KK:0.30000000000000004"),
])
def test_format_range_is_compact(text, formatted):
    assert format_range(parse_range(text)) == formatted


def test_format_range_of_the_preset_reads_back_and_stays_compact_on_the_board():
    for text in (PRESET_OOP, PRESET_IP):
        w = parse_range(text)
        assert np.array_equal(parse_range(format_range(w)), w)
        wb = parse_range(text, board=PRESET_BOARD)
        short = format_range(wb, board=PRESET_BOARD)
        assert np.array_equal(parse_range(short, board=PRESET_BOARD), wb)
        assert short == format_range(w) and len(short.split(",")) <= len(text.split(","))
        assert np.array_equal(parse_range(format_range(wb)), wb)  # without the board: exact combos


_LABELS = [name for row in grid_labels() for name in row]


def _cell_of_combo() -> np.ndarray:
    """Grid cell (0..168) of each combo, from the labels and the card ranks (independent of the module)."""
    out = np.empty(NUM_COMBOS, dtype=np.int64)
    index = {name: i for i, name in enumerate(_LABELS)}
    for i, (c1, c2) in enumerate(COMBO_CARDS):
        hi, lo = max(c1 // 4, c2 // 4), min(c1 // 4, c2 // 4)
        form = "" if hi == lo else "s" if c1 % 4 == c2 % 4 else "o"
        out[i] = index[RANKS[hi] + RANKS[lo] + form]
    return out


CELL = _cell_of_combo()
WEIGHT = st.one_of(st.sampled_from([0.0, 0.0, 0.25, 0.5, 0.75, 1.0, 1.0]),
                   st.floats(0.0, 1.0, allow_subnormal=True))


@st.composite
def weight_vectors(draw):
    """Weights built cell by cell from a few drawn weights (hypothesis's edge values: 0, 1,
    subnormals): a cell is empty, takes the previous cell's weight, a new one, or one per combo,
    so runs ("22+", "A5s-A2s"), merged cells ("AK") and exact combos all get written."""
    palette = draw(st.lists(WEIGHT, min_size=1, max_size=4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    modes = rng.choice(["zero", "same", "new", "mixed"], size=169, p=draw(st.sampled_from(
        [[0.25, 0.25, 0.25, 0.25], [0.1, 0.6, 0.2, 0.1], [0.7, 0.1, 0.1, 0.1], [0.0, 0.0, 0.0, 1.0]])))
    w = np.zeros(NUM_COMBOS)
    previous = palette[0]
    for cell, mode in enumerate(modes):
        combos = CELL == cell
        if mode == "same":
            w[combos] = previous
        elif mode == "new":
            previous = palette[rng.integers(len(palette))]
            w[combos] = previous
        elif mode == "mixed":
            w[combos] = rng.choice(palette + [rng.random()], size=int(combos.sum()))
    return w


@settings(max_examples=25, deadline=None)
@given(weight_vectors(), st.sampled_from([None, "QsJh2h", "AcAd", "2c3d4h5s6c"]))
def test_format_range_round_trips_exactly(w, board):
    assert np.array_equal(parse_range(format_range(w)), w)
    on_board = np.where(board_mask(board), 0.0, w)
    assert np.array_equal(parse_range(format_range(w, board=board), board=board), on_board)


TOKEN = st.one_of(
    st.sampled_from(["AA", "AKs", "AKo", "AK", "22+", "ATs+", "ATo+", "A5s-A2s", "T9s-65s", "99-22", "AhKh",
                     "K9+", "8s8h+", "AhAs-QhQs", "QJ", "72o", "32s"]),
    st.builds(lambda a, b: RANKS[max(a, b)] + RANKS[min(a, b)], st.integers(0, 12), st.integers(0, 12)),
)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(TOKEN, st.one_of(st.none(), st.sampled_from(["0", "0.5", ".25", "1", "0.333"]))),
                max_size=12))
def test_parsed_ranges_format_and_read_back_to_the_same_weights(tokens):
    text = ",".join(t if w is None else f"{t}:{w}" for t, w in tokens)
    w = parse_range(text)
    assert np.array_equal(parse_range(format_range(w)), w)
    # the last token's weight wins on its combos
    if tokens:
        last, weight = tokens[-1]
        assert (w[parse_range(last) > 0] == (1.0 if weight is None else float(weight))).all()


RANGE_ALPHABET = st.sampled_from(list("AKQJT98765432akqjtcdhsoxX+-:,. 0.5\t\n") + ["ＡＡ", "٠", "\x00", "é"])


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(), st.lists(RANGE_ALPHABET, max_size=30).map("".join)), st.sampled_from([None, "QsJh2h", "Qs"]))
def test_any_text_gives_weights_or_a_one_line_range_error(text, board):
    try:
        w = parse_range(text, board=board)
    except RangeError as exc:
        assert "\n" not in str(exc)
        return
    assert w.shape == (NUM_COMBOS,) and ((w >= 0) & (w <= 1)).all()
    assert np.array_equal(parse_range(format_range(w)), w)
