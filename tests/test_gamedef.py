"""ACPC game definitions: bundled files load, errors name the file, line and field."""

import re

from pathlib import Path

import pytest

from solverkit.errors import ConfigError
from solverkit.poker.gamedef import bundled_names, load_gamedef, parse_gamedef

LEDUC = """# Leduc
GAMEDEF
limit
numPlayers = 2
numRounds = 2
blind = 1 1
raiseSize = 2 4
firstPlayer = 1 1
maxRaises = 2 2
numSuits = 2
numRanks = 3
numHoleCards = 1
numBoardCards = 0 1
END GAMEDEF
"""


def test_bundled_games_load():
    assert {"kuhn", "leduc", "rhode", "holdem.limit.2p.reverse_blinds", "royal", "holdem2r"} <= set(bundled_names())
    for name in bundled_names():
        gd = load_gamedef(name)
        assert gd.num_rounds >= 1


def test_hulhe_definition():
    gd = load_gamedef("holdem.limit.2p.reverse_blinds")
    assert gd.blind == (10, 5) and gd.raise_size == (10, 10, 20, 20)
    assert gd.first_player == (1, 0, 0, 0) and gd.max_raises == (3, 4, 4, 4)
    assert gd.num_board_cards == (0, 3, 1, 1) and gd.big_blind == 10


def test_units():
    assert load_gamedef("rhode").big_blind == 10  # antes: the first round's bet
    assert load_gamedef("leduc").big_blind == 2
    assert load_gamedef("kuhn").big_blind == 1


def test_keys_are_case_insensitive_and_comments_ignored():
    text = LEDUC.replace("numRounds", "NUMROUNDS").replace("blind = 1 1", "blind = 1 1   # antes")
    assert parse_gamedef(text) == parse_gamedef(LEDUC)


def test_unknown_bundled_name_lists_choices():
    with pytest.raises(ConfigError) as err:
        load_gamedef("ledoc")
    assert "unknown bundled game definition 'ledoc'" in str(err.value) and "leduc" in str(err.value)


def test_missing_file():
    with pytest.raises(ConfigError, match="game definition file not found: /nope/x.game"):
        load_gamedef("/nope/x.game")
    for not_a_file in (str(Path(__file__).parent), "/dev/null"):  # it exists: 'not found' was wrong
        with pytest.raises(ConfigError, match=r"\[game\] gamedef = '.*' is not a regular file; expected a path"):
            load_gamedef(not_a_file)


@pytest.mark.parametrize("data, expected", [
    (LEDUC.replace("numRanks = 3", "numRanks = 3\nnumRanks = 4").encode(),
     ":12: field numRanks = '4' repeats line 11; expected each field once"),
    (LEDUC.replace("numRanks = 3", "numRanks = 3\nstack = 100").encode(),
     ":12: field stack = '100' is not supported: solverkit solves limit games"),
    (LEDUC.replace("raiseSize = 2 4", "raiseSize = 2 99999999999999999999").encode(),
     "field raiseSize = '2 99999999999999999999': '99999999999999999999' is out of range; expected integers in 0..2147483647"),
    (LEDUC.replace("raiseSize = 2 4", "raiseSize = 2 \u0664").encode(), "expected integers in 0..2147483647 ('\u0664' is not one)"),
    (LEDUC.encode().replace(b"limit", b"limit\xff"), ": byte 0xff at offset"),
])
def test_bad_bytes_big_numbers_repeats_and_stack_name_file_line_and_value(tmp_path, data, expected):
    path = tmp_path / "g.game"
    path.write_bytes(data)
    with pytest.raises(ConfigError) as info:
        load_gamedef(str(path))
    msg = str(info.value)
    assert msg.startswith(str(path)) and expected in msg and "\n" not in msg, msg


@pytest.mark.parametrize("old, new, expected", [
    ("limit\n", "nolimit\n", "no-limit games are not supported"),
    ("numPlayers = 2", "numPlayers = 3", ":4: numPlayers = 3: only 2-player games"),
    ("raiseSize = 2 4", "raiseSize = 2 x", ":7: field raiseSize = '2 x': expected integers"),
    ("raiseSize = 2 4", "raiseSize = 2", ":7: field raiseSize has 1 values, expected 2"),
    ("maxRaises = 2 2", "maxRaise = 2 2", ":9: unknown field 'maxraise'"),
    ("numHoleCards = 1", "numHoleCards = 3", "numHoleCards = 3 is not supported"),
    ("firstPlayer = 1 1", "firstPlayer = 1 3", ":8: firstPlayer = [1, 3]: expected 1 or 2"),
    ("END GAMEDEF\n", "", "missing END GAMEDEF"),
    ("numRanks = 3", "numRanks = 1", "the deal needs 3 cards but the deck has 2"),
    ("blind = 1 1", "blind = 1 1 1", "field blind has 3 values, expected 2"),
    ("numSuits = 2\n", "", "missing field numSuits"),
    ("numRounds = 2", "numRounds = 2 2", "field numRounds = '2 2': expected one integer"),
    ("numBoardCards = 0 1", "numBoardCards = 1 0",
     "numBoardCards = [1, 0]: board cards before the first betting round (1) are not supported; expected 0"),
    ("numBoardCards = 0 1", "numBoardCards = 2 1", "numBoardCards = [2, 1]: board cards before the first"),
    ("blind = 1 1\n", "", "missing field blind; expected one value per player"),
    ("numBoardCards = 0 1\n", "", "missing field numBoardCards; expected one value per round"),
    ("maxRaises = 2 2\n", "", "missing field maxRaises; expected the cap on raises per round"),
    ("limit\n", "limit\nnolimit\n", ":4: betting type 'nolimit' repeats line 3 ('limit')"),
    ("limit\n", "nolimit\nlimit\n", ":4: betting type 'limit' repeats line 3 ('nolimit')"),
    ("numPlayers = 2", "numPlayers = 3", "numPlayers = 3: only 2-player games are supported; valid: 2"),
    ("numRounds = 2", "numRounds = 0", "numRounds = 0: expected 1..8"),
    ("firstPlayer = 1 1", "firstPlayer = 0 1", "firstPlayer = [0, 1]: expected 1 or 2 per round"),
])
def test_malformed_files_and_fields_the_acpc_rules_would_build_differently_are_refused(old, new, expected):
    """Every accepted file builds the ACPC game; the rest are refused in one line naming the file,
    line, field and value (board cards before the first round were once ignored, missing blinds taken as 0)."""
    text = LEDUC.replace(old, new)
    assert text != LEDUC
    with pytest.raises(ConfigError) as err:
        parse_gamedef(text, "x.game")
    msg = str(err.value)
    assert msg.startswith("x.game") and expected in msg and "\n" not in msg, msg


def test_gamedefs_made_by_plugins_are_checked_too():
    """validate() refuses what a plugin's dataclasses.replace can make but no file can."""
    from dataclasses import replace

    leduc = parse_gamedef(LEDUC, "leduc")
    for change, expected in [
        (dict(num_board_cards=(1, 1)), "numBoardCards = [1, 1]: board cards before the first betting round"),
        (dict(max_raises=(2,)), "field maxRaises has 1 values, expected 2 (one per round)"),
        (dict(first_player=(0, 2)), "firstPlayer = [1, 3]: expected 1 or 2 per round"),
        (dict(blind=(1, 1, 1)), "field blind has 3 values, expected 2"),
        (dict(num_rounds=9), "numRounds = 9: expected 1..8"),
    ]:
        with pytest.raises(ConfigError, match=re.escape(expected)):
            replace(leduc, **change).validate()


def test_extra_per_round_values_are_ignored_as_the_acpc_server_does():
    """The ACPC server reads the first numRounds values of a per-round field (so a file cut to
    fewer rounds keeps working); solverkit builds the same game."""
    one = parse_gamedef(LEDUC.replace("numRounds = 2", "numRounds = 1"))
    assert (one.raise_size, one.first_player, one.max_raises, one.num_board_cards) == ((2,), (0,), (2,), (0,))


def test_a_missing_first_player_is_player_1_in_every_round_as_in_acpc():
    """firstPlayer is the one per-round field the ACPC server defaults (to 1 in every round)."""
    text = LEDUC.replace("firstPlayer = 1 1\n", "")
    assert parse_gamedef(text) == parse_gamedef(LEDUC)


def test_too_many_boards_is_a_solverkit_error_naming_the_game():
    """The board enumeration's cap raises ConfigError (the API's error class), not MemoryError."""
    from solverkit.poker.cards import hand_table
    from solverkit.poker.tree import enumerate_boards

    gd = parse_gamedef(LEDUC, "leduc.game")
    expected = "leduc.game: more than 2 boards in round 1 (numBoardCards = [0, 1]"
    with pytest.raises(ConfigError, match=re.escape(expected)):
        enumerate_boards(gd, hand_table(gd.deck_size, 1), max_boards=2)


def test_a_huge_file_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "big.game"
    path.write_bytes(LEDUC.encode() + b"#" * (2 << 20))
    with pytest.raises(ConfigError, match="bytes is too large for an ACPC game definition"):
        load_gamedef(str(path))


def test_a_name_the_os_refuses_is_a_config_error():
    with pytest.raises(ConfigError, match=r"\[game\] gamedef = 'aaaa.*File name too long; expected a bundled name"):
        load_gamedef("a" * 5000 + ".game")


def test_a_number_of_thousands_of_digits_is_out_of_range_not_a_traceback():
    text = "GAMEDEF\nlimit\nnumPlayers = 2\nnumRounds = 1\nblind = 1 " + "9" * 5000 + "\nEND GAMEDEF\n"
    with pytest.raises(ConfigError, match="out of range"):
        parse_gamedef(text)
