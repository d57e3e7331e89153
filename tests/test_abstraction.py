"""Card abstraction: the suit-isomorphism indexer against brute-force orbits, equities against
brute-force showdowns (phevaluator for hold'em), k-means determinism, table files and the
[abstraction] config table."""

from itertools import combinations, permutations

import numpy as np
import pytest

from solverkit.abstraction.equity import QMAX, FinalBoards
from solverkit.abstraction.indexer import HandIndexer
from solverkit.abstraction.kmeans import kmeans, nearest
from solverkit.abstraction.plugin import Ehs, Emd, Isomorphism, Ochs
from solverkit.abstraction.rollout import Rollout
from solverkit.abstraction.spec import CardSpec
from solverkit.abstraction.table import BucketTable
from solverkit.errors import ConfigError

HOLDEM = CardSpec(13, 4, 2, (0, 3, 1, 1))
LEDUC13 = CardSpec(13, 2, 1, (0, 1))


def test_holdem_sizes():
    ix = HandIndexer(HOLDEM)
    assert [ix.size(r) for r in range(4)] == [169, 1286792, 13960050, 123156254]


def _orbit_key(hole, board, ns):
    """The least (hole, board) over every suit permutation: equal exactly within an orbit."""
    best = None
    for perm in permutations(range(ns)):
        h = tuple(sorted((c // ns) * ns + perm[c % ns] for c in hole))
        b = tuple(sorted((c // ns) * ns + perm[c % ns] for c in board))
        if best is None or (h, b) < best:
            best = (h, b)
    return best


@pytest.mark.parametrize("spec", [pytest.param(CardSpec(4, 3, 2, (0, 2, 1)), id="4x3-hole2"),
                                  pytest.param(CardSpec(5, 4, 1, (0, 1, 1)), id="5x4-hole1", marks=pytest.mark.slow)])
def test_indexer_matches_brute_force_orbits(spec):
    ix = HandIndexer(spec)
    deck = spec.deck_size
    for r in range(spec.rounds):
        nb = sum(spec.board_cards[: r + 1])
        rows, keys = [], []
        for hole in combinations(range(deck), spec.hole_cards):
            rest = [c for c in range(deck) if c not in hole]
            for board in combinations(rest, nb):
                rows.append(hole + board[::-1])  # board order within a round is irrelevant
                keys.append(_orbit_key(hole, board, spec.num_suits))
        ids = ix.index(r, np.array(rows))
        orbits = sorted(set(keys))
        assert ix.size(r) == len(orbits)
        by_orbit = {}
        for key, i in zip(keys, ids):
            assert by_orbit.setdefault(key, i) == i  # invariant under suit permutation
        assert sorted(by_orbit.values()) == list(range(ix.size(r)))  # distinct across orbits, dense
        back = ix.unindex(r, ids)
        for row, key in zip(back, keys):  # unindex(index(x)) lies in x's orbit
            assert _orbit_key(row[: spec.hole_cards], row[spec.hole_cards:], spec.num_suits) == key


def test_holdem_index_round_trip_and_suit_invariance():
    ix = HandIndexer(HOLDEM)
    rng = np.random.default_rng(1)
    for r in range(4):
        cards = np.array([rng.permutation(52)[: HOLDEM.cards_in(r)] for _ in range(500)])
        ids = ix.index(r, cards)
        assert ids.min() >= 0 and ids.max() < ix.size(r)
        perm = rng.permutation(4)
        assert np.array_equal(ix.index(r, cards // 4 * 4 + perm[cards % 4]), ids)
        assert np.array_equal(ix.index(r, ix.unindex(r, ids)), ids)


def _name(card):
    return "23456789TJQKA"[card // 4] + "cdhs"[card % 4]


def test_holdem_river_equity_matches_brute_force():
    from phevaluator import evaluate_cards

    rng = np.random.default_rng(7)
    flush = [12 * 4 + 2, 11 * 4 + 2, 5 * 4 + 2, 0, 7 * 4 + 1]  # Ah Kh 7h 2c 9d: hearts can make a flush
    boards = [rng.permutation(52)[:5] for _ in range(2)] + [np.array(flush)]
    fb = FinalBoards(HOLDEM, boards=np.array(boards))
    q = fb.equity()
    for board in boards:
        rest = [c for c in range(52) if c not in board]
        holes = [list(rng.choice(rest, 2, replace=False)) for _ in range(3)] + [[10 * 4 + 2, 9 * 4 + 2], [1 * 4 + 2, 4]]
        holes = [h for h in holes if not set(h) & set(board)]
        rows = np.array([list(h) + list(board) for h in holes])
        got = q[fb.indexer.index(3, rows)] / QMAX
        for hole, value in zip(holes, got):
            mine = evaluate_cards(*map(_name, list(hole) + list(board)))  # lower is better
            score = n = 0
            for opp in combinations([c for c in rest if c not in hole], 2):
                theirs = evaluate_cards(*map(_name, list(opp) + list(board)))
                score += 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
                n += 1
            assert n == 990
            assert value == pytest.approx(score / n, abs=2e-5)


def test_leduc13_equities_match_brute_force():
    """Preflop EHS and river equity of 13-rank Leduc (pair beats high card, else higher card)."""
    fb = FinalBoards(LEDUC13)
    ix = fb.indexer
    q = fb.equity()
    roll = Rollout(LEDUC13, ix)
    deck = range(26)

    def showdown(a, b, board):
        sa = (a // 2 == board // 2, a // 2)
        sb = (b // 2 == board // 2, b // 2)
        return 1.0 if sa > sb else 0.5 if sa == sb else 0.0

    for hole in (0, 13, 25):
        total = n = 0
        for board in deck:
            if board == hole:
                continue
            opps = [o for o in deck if o not in (hole, board)]
            river = sum(showdown(hole, o, board) for o in opps) / len(opps)
            assert q[ix.index(1, np.array([[hole, board]]))[0]] / QMAX == pytest.approx(river, abs=2e-5)
            total += river
            n += 1
        pre = ix.index(0, np.array([[hole]]))
        assert roll.mean(0, pre, q.astype(np.float32), 1.0 / QMAX)[0] == pytest.approx(total / n, abs=2e-5)
        counts = roll.bins(0, pre, q, 4)[0]
        assert counts.sum() == 25 == roll.completions(0)


def test_kmeans_deterministic_and_separates():
    rng = np.random.default_rng(0)
    points = np.concatenate([rng.normal(c, 0.1, size=(200, 3)) for c in (0.0, 1.0, 2.0)])
    a, ia = kmeans(points, 3, False, seed=5, restarts=2, iterations=30)
    b, ib = kmeans(points, 3, False, seed=5, restarts=2, iterations=30)
    assert np.array_equal(a, b) and ia == ib
    labels = nearest(points, a, False)
    assert len(set(labels[:200])) == len(set(labels[200:400])) == len(set(labels[400:])) == 1
    assert len(set(labels)) == 3


def _emd(**kw):
    return Emd(**{"buckets": [4, 10], "seed": 3, "bins": 8, "restarts": 1, "iterations": 20, "sample": 100000,
                  "table": None, **kw})


def test_emd_same_seed_same_table_and_file_round_trip(tmp_path):
    a = _emd().table(LEDUC13)
    b = _emd().table(LEDUC13)
    assert all(np.array_equal(x, y) for x, y in zip(a.assign, b.assign))
    assert a.buckets == (4, 10)
    path = a.save(tmp_path / "t.npz")
    c = BucketTable.load(path, LEDUC13, "emd", _emd().table_params(LEDUC13))
    assert c.name == "emd" and c.buckets == a.buckets and c.params == a.params
    assert all(np.array_equal(x, y) for x, y in zip(a.assign, c.assign))
    rows = np.array([[0, 5], [3, 24]])
    assert np.array_equal(c.bucket_of(1, rows), a.assign[1][a.indexer.index(1, rows)])


def test_table_path_builds_then_reuses_and_refuses_other_params(tmp_path):
    path = tmp_path / "leduc.npz"
    first = _emd(table=str(path)).table(LEDUC13)
    assert path.exists()
    again = _emd(table=str(path)).table(LEDUC13)
    assert all(np.array_equal(x, y) for x, y in zip(first.assign, again.assign))
    with pytest.raises(ConfigError, match=r"leduc.npz was built with .*buckets = \[4, 10\].*asks for .*buckets = \[4, 6\]"):
        _emd(table=str(path), buckets=[4, 6]).table(LEDUC13)
    with pytest.raises(ConfigError, match="built for cards"):
        BucketTable.load(path, CardSpec(13, 2, 1, (0, 1), "custom", len), "emd", None)


def test_lossless_rounds_are_arange():
    t = Isomorphism(buckets=[], seed=0, table=None).table(LEDUC13)
    assert t.buckets == (13, 325) and t.lossless(0) and t.lossless(1)
    assert np.array_equal(t.assign[1], np.arange(325))
    e = Ehs(buckets=[0, 5], seed=0, table=None).table(LEDUC13)
    assert e.lossless(0) and not e.lossless(1) and e.buckets == (13, 5)


def test_ochs_final_round_buckets():
    t = Ochs(buckets=[0, 12], seed=1, bins=8, restarts=1, iterations=20, sample=100000, clusters=3,
             table=None).table(LEDUC13)
    assert t.buckets[1] == 12 and t.lossless(0)


def _config(abstraction, game="leduc"):
    return {"preset": "cfr_plus", "game": game, "abstraction": abstraction}


@pytest.mark.parametrize("table, message", [
    ({"name": "emd", "buckets": [0, 3, 3]}, r"buckets = \[0, 3, 3\] is invalid: expected 2 integers >= 0, one per "
                                            r"round of the game \(rounds 0 \(0 board cards\), 1 \(1 board card\)\)"),
    ({"name": "ehs", "buckets": [0, -1]}, r"buckets = \[0, -1\] is invalid"),
    ({"name": "kmeans"}, r"unknown abstraction 'kmeans' in \[abstraction\] name; available: ehs, emd, isomorphism, ochs"),
    ({"name": "emd", "bins": 1}, r"\[abstraction\] \(emd\) bins = 1 is invalid"),
    ({"name": "isomorphism", "buckets": [0, 4]}, r"buckets = \[0, 4\] is invalid for name = 'isomorphism'"),
    ({"name": "ehs", "restarts": 2}, r"unknown parameter 'restarts' in \[abstraction\] \(ehs\)"),
])
def test_bad_config_values_refused(table, message):
    from solverkit.core.config import load_config

    with pytest.raises(ConfigError, match=message):
        load_config(_config(table))


def test_config_carries_the_abstraction(tmp_path):
    from solverkit.core.config import load_config

    cfg = tmp_path / "c.toml"
    cfg.write_text('preset = "cfr_plus"\ngame = "leduc"\n[abstraction]\nname = "emd"\nbuckets = [0, 2]\n'
                   'table = "tables/l.npz"\n')
    a = load_config(cfg)
    assert a.abstraction.name == "emd" and a.abstraction.spec == CardSpec(3, 2, 1, (0, 1))
    assert a.resolved["abstraction"]["table"] == str(tmp_path / "tables" / "l.npz")
    assert a.resolved["abstraction"]["buckets"] == [0, 2]
    t = a.abstraction.table(a.abstraction.spec)
    assert (tmp_path / "tables" / "l.npz").exists() and t.buckets == (3, 2)
    assert load_config({"preset": "cfr_plus", "game": "leduc"}).abstraction is None


def test_cli_build_and_info(tmp_path):
    from click.testing import CliRunner

    from solverkit.cli import cli

    out = tmp_path / "leduc.npz"
    result = CliRunner().invoke(cli, ["abstraction", "build", "leduc", "--method", "ehs", "--buckets", "0,2",
                                      "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert f"wrote {out}" in result.output and "buckets [3, 2]" in result.output
    info = CliRunner().invoke(cli, ["abstraction", "info", str(out)])
    assert info.exit_code == 0 and 'name: "ehs"' in info.output and "buckets: [3, 2]" in info.output
    bad = CliRunner().invoke(cli, ["abstraction", "build", "leduc", "--method", "ehs", "--buckets", "0,2,2",
                                   "-o", str(out)])
    assert bad.exit_code != 0 and "expected 2 integers >= 0" in bad.output


def test_index_refuses_cards_outside_the_deck_or_repeated():
    ix = HandIndexer(LEDUC13)
    with pytest.raises(ConfigError, match=r"hand \[0, 26\] is invalid: expected distinct cards 0..25"):
        ix.index(1, np.array([[1, 2], [0, 26]]))
    with pytest.raises(ConfigError, match=r"hand \[3, 3\] is invalid"):
        ix.index(1, np.array([[3, 3]]))
    with pytest.raises(ConfigError, match="round 1 hands have 2 cards"):
        ix.index(1, np.array([[3]]))


def test_rhode_island_custom_ranking_equity_and_table():
    """True Rhode Island ranks three cards its own way (the game's strength function): river
    equities against a pairwise count with that ranking, and an EHS table of every round."""
    from solverkit.core.config import load_config
    from solverkit_rhode_island.evaluator import ri_rank

    game = load_config({"preset": "cfr_plus", "game": "rhode_island"}).game
    spec = CardSpec.of_game(game)
    assert spec.evaluator == "custom" and spec.board_cards == (0, 1, 1)
    fb = FinalBoards(spec)
    q = fb.equity()
    for hole, board in ((51, (0, 4)), (3, (8, 12)), (20, (21, 30))):
        mine = ri_rank(hole, board[0], board[1], 4)
        score = n = 0
        for opp in range(52):
            if opp in (hole, *board):
                continue
            theirs = ri_rank(opp, board[0], board[1], 4)
            score += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
            n += 1
        got = q[fb.indexer.index(2, np.array([[hole, *board]]))[0]] / QMAX
        assert got == pytest.approx(score / n, abs=2e-5)
    t = Ehs(buckets=[0, 6, 6], seed=0, table=None).table(spec)
    assert t.buckets == (13, 6, 6) and t.lossless(0)


def test_card_spec_of_the_leduc13_gamedef():
    from solverkit.core.config import load_config

    game = load_config({"preset": "cfr_plus", "game": {"name": "acpc", "gamedef": "leduc13"}}).game
    assert CardSpec.of_game(game) == LEDUC13
    assert CardSpec.of(game.gamedef()) == LEDUC13


def test_table_of_another_format_or_version_refused(tmp_path):
    import json

    path = Ehs(buckets=[0, 3], seed=0, table=None).table(LEDUC13).save(tmp_path / "t.npz")
    with np.load(path) as npz:
        arrays = {k: npz[k] for k in npz.files}
    meta = json.loads(str(arrays.pop("meta")))
    for key, value, message in (("solverkit", "0.0.1", "has format 1 of solverkit 0.0.1"), ("format", 99, "has format 99")):
        bad = tmp_path / f"{key}.npz"
        np.savez(bad, meta=np.array(json.dumps({**meta, key: value})), **arrays)
        with pytest.raises(ConfigError, match=f"{key}.npz {message}.*rebuild it"):
            BucketTable.load(bad)
    (tmp_path / "junk.npz").write_bytes(b"not a table")
    with pytest.raises(ConfigError, match="junk.npz is not a solverkit table file"):
        BucketTable.load(tmp_path / "junk.npz")
