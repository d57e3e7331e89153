"""`solverkit strategy --infoset KEY`, solverkit.read_policy and Solution.policy: a poker key in
any suits and card order answers with the set the solver stored (checked against a solve
without suit isomorphism), an impossible key (a card twice) and a key the game cannot have are
refused naming the bad part with a valid key of the game, and a damaged slice is never printed."""

import json
import random
import re
import shutil

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import solverkit
from solverkit.cli import cli
from solverkit.core.strategy_query import read_infoset
from solverkit.errors import SolverkitError

from .conftest import fuzz_examples


def _solve(out, game, iterations, preset="cfr_plus"):
    return solverkit.solve({"game": game}, iterations=iterations, preset=preset, out=out)


@pytest.fixture(scope="module")
def leduc(tmp_path_factory):
    """Leduc solved with suit isomorphism (the stored keys are canonical) and without."""
    base = tmp_path_factory.mktemp("query")
    iso = _solve(base / "iso", {"name": "leduc", "isomorphism": True}, 30)
    raw = _solve(base / "raw", {"name": "leduc", "isomorphism": False}, 30)
    return base, iso, raw


def _possible(key) -> bool:
    """Whether a key's cards are all different (the layout keeps slots for impossible ones)."""
    hand, board, _ = key.split("|")
    cards = [c[i:i + 2] for c in (hand, board) for i in range(0, len(c), 2)]
    return len(set(cards)) == len(cards)


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_any_suits_answer_with_the_set_the_solver_stored(leduc):
    base, iso, raw = leduc
    asked = 0
    for p in (0, 1):
        for key in raw.game.infoset_keys(p):  # every real set, most of them not canonical
            if not _possible(key):
                continue
            want = read_infoset(base / "raw", key, game=raw.game).probabilities
            assert read_infoset(base / "iso", key, game=iso.game).probabilities == want  # the same arithmetic
            assert iso.policy(key) == want
            if asked % 100 == 0:  # the API too (it builds the game from the run's config every call)
                assert solverkit.read_policy(base / "iso", key) == want
            asked += 1
    assert asked == 936


def test_the_stored_key_is_shown(leduc):
    base, _, _ = leduc
    res = invoke("strategy", base / "iso", "--infoset", "Ks|Qs|cc/", "--infoset", "Kh|Qh|cc/", "--json")
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in res.output.splitlines()]
    assert [r["stored_as"] for r in rows] == ["Kh|Qh|cc/", "Kh|Qh|cc/"] and rows[0]["policy"] == rows[1]["policy"]
    text = invoke("strategy", base / "iso", "--infoset", "Ks|Qs|cc/").output
    assert text.startswith("Ks|Qs|cc/  (player 0, stored as Kh|Qh|cc/, average strategy after iteration 30)\n")


@pytest.mark.parametrize("key, card, where", [
    ("Qh|Qh|cc/", "Qh", "both in the hand and in the board"),
    ("Ks|Ks|cc/r", "Ks", "both in the hand and in the board"),
])
def test_an_impossible_key_is_refused(leduc, key, card, where):
    base, iso, _ = leduc
    message = f"information set {key!r} is impossible: card {card} is {where}; no deal gives a card twice"
    for ask in (lambda: solverkit.read_policy(base / "iso", key), lambda: iso.policy(key)):
        with pytest.raises(SolverkitError) as err:
            ask()
        assert message in str(err.value)
    res = invoke("strategy", base / "iso", "--infoset", key)
    assert res.exit_code == 2 and res.stderr.strip() == f"Error: {message}"


BAD_KEYS = [
    ("Kh|Qh", r"key 'Kh\|Qh' of game 'leduc' is invalid: expected '<hand>\|<board>\|<betting>', like '(.+?)'"),
    ("Kx|Qh|cc/", r"hand 'Kx': bad card 'Kx': not a card of the game's deck of 6 cards: ranks QKA, suits hs .*; "
                  r"like '(.+?)'"),
    ("KhQs|Qh|cc/", r"hand 'KhQs' is 4 letters; expected 1 card\(s\) of two letters \(rank, suit\), like '(.+?)'"),
    ("Kh||cc/r", r"board '' is 0 letters; expected 1 card\(s\) of two letters \(rank, suit\) \(betting 'cc/r' is in "
                 r"round 1\), like '(.+?)'"),
    ("Kh|Qh|", r"board 'Qh' is 2 letters; expected 0 card\(s\) .*\(betting '' is in round 0\), like '(.+?)'"),
    ("Kh|Qh|cc/x", r"betting 'cc/x' is not a point of game 'leduc' where a player acts; close matches: '(.+?)'"),
    ("Kh|Qh|zzzz", r"betting 'zzzz' is not a point of game 'leduc' where a player acts; betting sequences look "
                   r"like '(.*?)'"),
    (7, r"information set key 7 of game 'leduc' is invalid: expected '<hand>\|<board>\|<betting>', like '(.+?)'"),
]


@pytest.mark.parametrize("key, pattern", BAD_KEYS, ids=[str(k) for k, _ in BAD_KEYS])
def test_a_key_the_game_cannot_have_is_named_with_a_valid_one(leduc, key, pattern):
    base, iso, _ = leduc
    with pytest.raises(SolverkitError) as err:  # the API checks a key's type itself: the game is asked here
        solverkit.read_policy(base / "iso", key) if isinstance(key, str) else iso.game.infoset_place(key)
    found = re.search(pattern, str(err.value))
    assert found, str(err.value)
    shown = found.group(1)
    if "|" in shown:  # the example key is real: it answers
        assert sum(solverkit.read_policy(base / "iso", shown).values()) == pytest.approx(1.0)
    if isinstance(key, str):
        res = invoke("strategy", base / "iso", "--infoset", key)
        assert res.exit_code == 2 and len(res.stderr.splitlines()) == 1 and "Traceback" not in res.output


@pytest.mark.parametrize("key", ["K" * 100_000, "K" * 100_000 + "||", "Kh||" + "c" * 100_000,
                                 "Kh|" + "Q" * 100_000 + "|c/"], ids=["no-bars", "hand", "betting", "board"])
def test_a_key_of_a_megabyte_is_quoted_shortened(leduc, key):
    base, iso, _ = leduc
    with pytest.raises(SolverkitError) as err:
        iso.game.infoset_place(key)
    assert len(str(err.value)) < 400, str(err.value)[:400]
    res = invoke("strategy", base / "iso", "--infoset", key)
    assert res.exit_code == 2 and len(res.stderr.splitlines()) == 1 and len(res.stderr) < 400


def test_a_key_below_the_cut_of_a_trunk_only_game_is_refused():
    game = solverkit.load_game("hulhe", ranks=4, suits=2, rounds=2, split_round=1, trunk_only=True)
    assert game.infoset_place("AsKs||c").stored_key == "KsAs||c"  # the trunk's rounds answer
    with pytest.raises(SolverkitError, match=r"information set 'AsKs\|JhQhKh\|cc/': betting 'cc/' is in round 1, whose "
                                             r"boards game 'hulhe' does not hold \(it was built with \[game\] "
                                             r"trunk_only = true"):
        game.infoset_place("AsKs|JhQhKh|cc/")  # was an IndexError


def test_a_damaged_slice_is_refused_not_printed(leduc, tmp_path):
    base, _, _ = leduc
    out = tmp_path / "damaged"
    shutil.copytree(base / "iso", out)
    with np.load(out / "strategy.npz") as data:
        arrays = {k: data[k] for k in data.files}
    place = solverkit.load_game("leduc").infoset_place("Kh||")
    arrays["policy0"][place.offset] = np.nan
    with open(out / "strategy.npz", "wb") as fh:
        np.savez(fh, **arrays)  # stored, not compressed: read in place
    with pytest.raises(SolverkitError, match=r"information set 'Kh\|\|' has probabilities \[nan, .*\]; expected 2 "
                                             r"finite numbers >= 0 summing to 1 \(a damaged file"):
        solverkit.read_policy(out, "Kh||")
    res = invoke("strategy", out, "--infoset", "Kh||")
    assert res.exit_code == 2 and "nan" not in res.stdout


def test_suits_and_card_order_map_to_the_canonical_board_of_a_flop_game(tmp_path):
    """Three suits, a three-card flop: every real key (in any card order) answers as the solve
    without isomorphism does (plain CFR: the same numbers up to rounding), stored under a key
    that is the asked one with its suits renamed."""
    game = {"name": "hulhe", "ranks": 3, "suits": 3, "rounds": 2}
    # (simultaneous updates: with alternating ones this game has exact ties whose +-1e-17 regrets the
    # two layouts round differently, and regret matching makes that a pure or a uniform policy)
    iso = solverkit.solve({"game": {**game, "isomorphism": True}, "solver": {"update": "simultaneous"}}, iterations=3,
                          preset="cfr", out=tmp_path / "iso")
    raw = solverkit.solve({"game": {**game, "isomorphism": False}, "solver": {"update": "simultaneous"}}, iterations=3,
                          preset="cfr", out=tmp_path / "raw")
    stored = set(iso.game.infoset_keys(1))
    rng = random.Random(5)
    keys = [k for k in rng.sample(raw.game.infoset_keys(1), 600) if _possible(k)]
    assert len(keys) > 150
    for key in keys:
        hand, board, betting = key.split("|")
        shuffled = "".join(rng.sample([board[i:i + 2] for i in range(0, len(board), 2)], len(board) // 2))
        ask = f"{hand[2:]}{hand[:2]}|{shuffled}|{betting}"  # cards in another order
        got = iso.game.infoset_place(ask)
        assert got.stored_key in stored
        assert _suit_renaming(key, got.stored_key), (key, got.stored_key)
        want = raw.policy(key)
        assert iso.policy(ask) == pytest.approx(want, abs=1e-12)
        assert read_infoset(tmp_path / "iso", ask, game=iso.game).probabilities == iso.policy(ask)


def _suit_renaming(key, stored) -> bool:
    """Whether `stored` is `key` with its suits renamed one to one (card order aside)."""
    def cards(k):
        hand, board, betting = k.split("|")
        split = lambda s: [s[i:i + 2] for i in range(0, len(s), 2)]  # noqa: E731
        return split(hand), split(board), betting

    (h1, b1, x1), (h2, b2, x2) = cards(key), cards(stored)
    if x1 != x2:
        return False
    for perm in __import__("itertools").permutations("dhs"):
        rename = dict(zip("dhs", perm))
        move = lambda cs: sorted(c[0] + rename[c[1]] for c in cs)  # noqa: B023 (called in this iteration)
        if move(h1) == sorted(h2) and move(b1) == sorted(b2):
            return True
    return False


def test_exports_and_policy_tables_leave_out_impossible_sets(leduc):
    base, iso, _ = leduc
    game = iso.game
    exported = json.loads(invoke("export", base / "iso").stdout)
    for p in (0, 1):
        keys = game.infoset_keys(p)
        impossible = game.impossible_infosets(p)
        assert impossible.any() and [k for k, bad in zip(keys, impossible) if bad] == [k for k in keys
                                                                                        if not _possible(k)]
        possible = [k for k, bad in zip(keys, impossible) if not bad]
        assert list(exported["players"][p]) == possible and list(exported["actions"][p]) == possible
        assert list(iso.policy_tables[p]) == possible
    # a policy without the impossible sets is complete; one with them (an older export) too
    assert solverkit.exploitability(game, iso.policy_table) == pytest.approx(iso.exploitability, abs=1e-12)
    full = {k: v for p in (0, 1) for k, v in zip(game.infoset_keys(p), _rows(iso.strategy[p], game, p))}
    assert solverkit.exploitability(game, full) == pytest.approx(iso.exploitability, abs=1e-12)


def _rows(policy, game, player):
    """Player `player`'s flat policy as one list of probabilities per information set."""
    return [list(policy[start:start + n]) for start, n in game.layout(player).infoset_slices()]


@pytest.mark.parametrize("key", [["Ks||c"], 5, None, b"Ks||c"])
def test_a_key_that_is_no_string_is_refused_by_every_game(leduc, key):
    _, iso, _ = leduc
    kuhn = solverkit.solve({"game": "kuhn_tree"}, iterations=5, preset="cfr_plus")
    for sol, like in ((kuhn, "Qs||"), (iso, "Qh||")):
        with pytest.raises(SolverkitError, match=rf"information set key .* of game '{sol.game.name}' is invalid: "
                                                 rf"expected .*like '{re.escape(like)}'"):
            sol.game.infoset_place(key)  # (the API checks a key's type before asking the game)


KEY_TEXT = "QKAhs|/crf2x "


@settings(max_examples=fuzz_examples(300), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_key_gives_a_policy_or_one_named_error(leduc, data):
    """Fuzz: text near real keys (a real key edited) or made of key letters either answers with
    probabilities of the set stored (a key of the iso game) or is a SolverkitError, never
    another exception or an invented policy for an impossible key."""
    _, iso, raw = leduc
    real = raw.game.infoset_keys(data.draw(st.sampled_from([0, 1])))
    if data.draw(st.booleans()):
        key = list(data.draw(st.sampled_from(real)))
        for _ in range(data.draw(st.integers(0, 3))):
            at = data.draw(st.integers(0, len(key)))
            edit = data.draw(st.sampled_from(["drop", "insert", "replace"]))
            if edit == "insert" or not key:
                key.insert(at, data.draw(st.sampled_from(KEY_TEXT)))
            elif edit == "drop":
                del key[min(at, len(key) - 1)]
            else:
                key[min(at, len(key) - 1)] = data.draw(st.sampled_from(KEY_TEXT))
        key = "".join(key)
    else:
        key = data.draw(st.text(KEY_TEXT, max_size=14))
    player = data.draw(st.sampled_from([None, 0, 1]))
    try:
        got = iso.policy(key, player)
    except SolverkitError as exc:
        assert "\n" not in str(exc)
        return
    assert key.count("|") == 2 and _possible(key)
    assert sum(got.values()) == pytest.approx(1.0)
    stored = iso.game.infoset_place(key, player).stored_key
    assert stored in set(iso.game.infoset_keys(0)) | set(iso.game.infoset_keys(1))
