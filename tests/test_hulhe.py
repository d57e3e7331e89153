"""HULHE and its family: exact sizes, the full game refused, the evaluator against phevaluator,
small members solved through the trunk/subgame split."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from numba import njit

from solverkit.cli import cli
from solverkit.core.config import load_config
from solverkit.core.solver import Solver, run_solve
from solverkit.errors import ConfigError
from solverkit.poker.evaluator import acpc_rank
from solverkit.poker.gamedef import load_gamedef
from solverkit.poker.size import canonical_pairs, game_size


def test_full_hulhe_sizes_match_the_published_counts():
    z = game_size(load_gamedef("holdem.limit.2p.reverse_blinds"))
    assert z.infosets_raw == 319_365_922_522_608
    assert z.infosets_iso == 13_803_249_787_132  # "1.38e13 after suit isomorphism"
    assert z.boards_iso == [1, 1_755, 63_193, 2_554_656]
    assert z.decision_nodes == [8, 70, 630, 5_670] and z.sequences_to_round == [1, 7, 63, 567]
    assert z.subgames(2, True) == 63 * 1_755 == 110_565
    assert z.pairs_iso[0] == 169  # canonical preflop hands


@pytest.mark.parametrize("name, raw, iso", [("leduc", 936, 468), ("rhode", 52_128_128, 3_937_128), ("kuhn", 12, 12)])
def test_sizes_of_the_small_games(name, raw, iso):
    z = game_size(load_gamedef(name))
    assert (z.infosets_raw, z.infosets_iso) == (raw, iso)


def test_burnside_counts_equal_the_enumerated_tree():
    """The formula's canonical counts equal what the engine enumerates on a small member."""
    asm = load_config({"preset": "cfr_plus", "game": {"name": "hulhe", "ranks": 4, "rounds": 3, "split_round": 0}})
    game = asm.game
    z = game_size(game.gd)
    assert game.tree.num_infosets() == z.infosets_iso
    assert list(np.diff(game.tree.boards.round_start)) == z.boards_iso
    for r in range(3):
        assert canonical_pairs(game.gd, r + 1) == z.pairs_iso[r]


def test_full_game_is_refused_before_anything_is_allocated():
    with pytest.raises(ConfigError) as err:
        load_config({"preset": "cfr_plus", "game": "hulhe"})
    msg = str(err.value)
    assert "game 'hulhe'" in msg and "does not fit on this machine" in msg
    assert "13,803,249,787,132 information sets up to suit symmetry" in msg and "public tree alone needs" in msg
    assert "110,565 subgames (cut at round 2)" in msg and "solverkit info hulhe" in msg


def test_info_prints_the_counts():
    res = CliRunner().invoke(cli, ["info", "hulhe"])
    assert res.exit_code == 0, res.output
    for text in ("319,365,922,522,608", "13,803,249,787,132", "110,565", "1,755, 63,193, 2,554,656", "401 TB"):
        assert text in res.output
    assert "fits this engine on this machine" in res.output and "no: its tree" in res.output


def test_info_of_the_shipped_config_judges_the_trunk():
    """configs/hulhe.toml (docs/cluster.md) is a trunk_only zmq trunk: what must fit is the trunk."""
    res = CliRunner().invoke(cli, ["info", str(Path(__file__).parent.parent / "configs" / "hulhe.toml")])
    assert res.exit_code == 0, res.output
    assert "423,565,506 (both players), 6.78 GB" in res.output
    assert "fits this machine (the trunk" in res.output and "fits this engine" not in res.output


def test_info_rejects_a_bad_parameter():
    res = CliRunner().invoke(cli, ["info", "hulhe", "--set", "ranks=1"])
    assert res.exit_code == 2 and "ranks = 1 is invalid: expected an integer >= 2" in res.stderr


def test_bad_parameters_name_the_value():
    with pytest.raises(ConfigError, match=r"max_raises = \[3, 4\] has 2 values; rounds = 3 needs one per round"):
        load_config({"preset": "cfr_plus", "game": {"name": "hulhe", "rounds": 3, "max_raises": [3, 4]}})
    with pytest.raises(ConfigError, match=r"split_round = 3: the game has 2 rounds"):
        load_config({"preset": "cfr_plus", "game": {"name": "hulhe", "ranks": 4, "rounds": 2, "split_round": 3}})


# --- the evaluator against an independent one ----------------------------------------------------


@njit(cache=True)
def _ranks(hands, out):
    for i in range(hands.shape[0]):
        out[i] = acpc_rank(hands[i].astype(np.int64), 4)


def _same_order(ours, theirs):
    """ours (higher is better) and phevaluator's (lower is better) rank hands identically."""
    order = np.argsort(ours, kind="stable")
    a, b = ours[order], theirs[order]
    assert np.all(np.diff(b) <= 0)  # never better by theirs where ours is worse
    assert np.array_equal(np.diff(a) == 0, np.diff(b) == 0)  # ties are the same ties


@pytest.mark.slow
def test_evaluator_ranks_every_five_card_hand_like_phevaluator():
    from phevaluator import evaluate_cards

    hands = np.fromiter((c for combo in combinations(range(52), 5) for c in combo), dtype=np.int8).reshape(-1, 5)
    assert hands.shape[0] == 2_598_960
    ours = np.empty(hands.shape[0], dtype=np.int64)
    _ranks(hands, ours)
    theirs = np.fromiter((evaluate_cards(*map(int, h)) for h in hands), dtype=np.int64, count=hands.shape[0])
    assert np.unique(ours).size == np.unique(theirs).size == 7_462  # distinct five-card hand values
    _same_order(ours, theirs)


@pytest.mark.slow  # (CI time)
def test_evaluator_ranks_random_seven_card_hands_like_phevaluator():
    from phevaluator import evaluate_cards

    rng = np.random.default_rng(7)
    hands = np.array([rng.choice(52, 7, replace=False) for _ in range(200_000)], dtype=np.int8)
    ours = np.empty(hands.shape[0], dtype=np.int64)
    _ranks(hands, ours)
    theirs = np.array([evaluate_cards(*map(int, h)) for h in hands], dtype=np.int64)
    _same_order(ours, theirs)


# --- small members end to end --------------------------------------------------------------------


SMALL = {"name": "hulhe", "ranks": 3, "rounds": 3, "max_raises": [1, 1, 1]}


@pytest.mark.slow  # (CI time: 8 s; tests/test_poker_engine.py checks trunk + subgames = whole tree on smaller games)
def test_split_and_unsplit_solves_agree():
    """The same kernels through the trunk and its subgames (threads) as in one walk."""
    curves = []
    for split in (0, 1, 2):
        asm = load_config({"preset": "cfr_plus", "game": {**SMALL, "split_round": split},
                           "solver": {"iterations": 30, "eval_every": 10}})
        res = run_solve(asm)
        curves.append([(r["iteration"], r["exploitability"]) for r in res.metrics])
    for other in curves[1:]:
        for (i, a), (j, b) in zip(curves[0], other):
            assert i == j and a == pytest.approx(b, rel=1e-10, abs=1e-12)
    assert curves[0][-1][1] < curves[0][0][1]


@pytest.mark.slow  # (CI time: 10 s; the split/unsplit and proof tests keep hold'em's smaller members in the default run)
def test_small_member_converges():
    game = {"name": "hulhe", "ranks": 4, "rounds": 2, "max_raises": [2, 2], "split_round": 1}
    asm = load_config({"preset": "cfr_plus", "game": game, "solver": {"iterations": 300, "eval_every": 300}})
    s = Solver(asm)
    first = s.evaluate(exact=True)["exploitability_mbb"]
    for _ in range(300):
        s.step()
    row = s.evaluate(exact=True)
    assert row["exploitability_mbb"] < 2.0 < first
    s.close()


def test_plot_preflop_chart(tmp_path):
    from solverkit.poker.preflop import chart, preflop_nodes

    out = tmp_path / "run"
    game = {"name": "hulhe", "ranks": 4, "rounds": 2, "max_raises": [2, 2], "split_round": 1}
    asm = load_config({"preset": "cfr_plus", "game": game, "solver": {"iterations": 50, "eval_every": 50}})
    run_solve(asm, out=out)
    res = CliRunner().invoke(cli, ["plot", "preflop", str(out), "-o", str(tmp_path / "chart.png")])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "chart.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    from solverkit.core.strategy_file import load_strategy

    strategy, _, _ = load_strategy(out / "strategy.npz")
    panels = preflop_nodes(asm.game)
    assert [t[:3] for t, _ in panels] == ["(a)", "(b)"]
    for _, node in panels:
        probs, letters = chart(asm.game, strategy, node)
        assert probs.shape == (4, 4, len(letters)) and letters[-1] == "r"
        np.testing.assert_allclose(probs.sum(axis=-1), 1.0, atol=1e-12)  # every cell has hands
    res = CliRunner().invoke(cli, ["plot", "preflop", str(tmp_path / "nowhere")])
    assert res.exit_code == 2 and "not a solve output directory" in res.stderr
    # -o chart.toml and -o RUN/strategy.npz were a ValueError traceback from savefig (issue 26 round 2),
    # a missing folder an OSError one; the run's own files are never written
    before = (out / "strategy.npz").read_bytes()
    for output, expect in [(tmp_path / "chart.toml", "'.toml' is no image format; valid: "),
                           (out / "strategy.npz", "is the run's own strategy.npz"),
                           (tmp_path / "no" / "chart.png", "cannot write ")]:
        res = CliRunner().invoke(cli, ["plot", "preflop", str(out), "-o", str(output)])
        assert res.exit_code == 2 and expect in res.stderr and len(res.stderr.splitlines()) == 1, res.output
    assert (out / "strategy.npz").read_bytes() == before


def test_small_config_loads():
    from pathlib import Path

    asm = load_config(Path(__file__).resolve().parent.parent / "configs" / "hulhe_small.toml")
    assert asm.game.name == "hulhe" and asm.game.split == 1


def test_restricted_flops_give_real_subgames():
    """`flops` deals only the named flops: the turn and river below one flop are exactly those
    of the full deal, and the subgames run."""
    base = {"name": "hulhe", "ranks": 4, "rounds": 3, "max_raises": [1, 1, 1], "split_round": 2}
    game = load_config({"preset": "cfr_plus", "game": {**base, "flops": "AcKdJh"}}).game
    b = game.tree.boards
    assert list(np.diff(b.round_start)) == [1, 1, 13]  # 16 cards - 3 on the flop, no suit symmetry left
    full = load_config({"preset": "cfr_plus", "game": base}).game
    assert len(game.subgame_keys()) * (np.diff(full.tree.boards.round_start)[1]) == len(full.subgame_keys())
    res = run_solve(load_config({"preset": "cfr_plus", "game": {**base, "flops": "AcKdJh,JcJdQh"},
                                 "solver": {"iterations": 5, "eval_every": 5}}))
    assert np.isfinite(res.exploitability)


@pytest.mark.parametrize("flops, msg", [
    ("AcKd", "'AcKd' is not three cards like 'AsKd7c'"),
    ("AcKd2s", "bad card '2s': not a card of the game's deck of 16 cards: ranks JQKA, suits cdhs"),
    ("AcAcJh", "'AcAcJh' repeats a card"),
])
def test_bad_flops_are_named(flops, msg):
    with pytest.raises(ConfigError, match=msg):
        load_config({"preset": "cfr_plus", "game": {"name": "hulhe", "ranks": 4, "rounds": 3, "flops": flops}})


def test_a_float_store_that_cannot_fit_is_refused(monkeypatch):
    import solverkit.core.solver as solver_mod

    monkeypatch.setattr(solver_mod, "physical_memory", lambda: 50_000_000)
    asm = load_config({"preset": "cfr_plus", "game": {"name": "hulhe", "ranks": 4, "rounds": 2, "max_raises": [2, 2]},
                       "solver": {"iterations": 1}})
    game = asm.game
    game.store_estimate = 10**12  # as if the regrets needed a terabyte
    with pytest.raises(ConfigError, match=r"as float64 in memory and this machine has 50 MB; store them as float32 "
                                          r"\(\[store\] precision = \"float32\": half the memory\), as 16-bit values "
                                          r"\(\[store\] precision = \"block16\".*as fixed point"):
        Solver(asm)
    # asked for float32, it counts float32's bytes and offers what is left
    asm = load_config({"preset": "cfr_plus", "game": {"name": "hulhe", "ranks": 4, "rounds": 2, "max_raises": [2, 2]},
                       "solver": {"iterations": 1}, "store": {"precision": "float32"}})
    asm.game.store_estimate = 10**12
    with pytest.raises(ConfigError, match=r"about 500 GB as float32 in memory.*store them as 16-bit values"):
        Solver(asm)


def _board(game, g):
    from solverkit.poker.cards import card_name

    b = game.tree.boards
    return "".join(card_name(c, game.gd.num_suits, game.gd.num_ranks) for c in b.cards[g, : b.num_cards[g]])


def test_boards_sort_by_flush_suits_then_rank():
    """Cepheus's board order: fewer suits that can still make a flush first, ties by rank."""
    game = load_config({"preset": "cfr_plus", "game": {"name": "hulhe", "ranks": 6, "rounds": 4,
                                                        "max_raises": [1, 1, 1, 1], "flops": "AcQd9h,AcQc9c"}}).game
    keys = game.board_keys()
    b = game.tree.boards
    names = {_board(game, g): int(keys[g]) for g in range(int(b.round_start[1]), int(b.round_start[3]))}
    assert keys[0] > max(names.values())  # preflop: all four suits can flush
    # a flop suit can still flush with one board card of it (+ turn + river + 2 hole cards):
    # monotone 9cQcAc has one such suit, rainbow 9cQdAh three
    assert names["9cQcAc"] < names["9cQdAh"]
    # on the turn a suit needs two board cards: 9cQdAh9s has none, 9cQdAhTc clubs
    assert names["9cQdAh9s"] < names["9cQdAhTc"]
    # same flush suits (none): by rank, highest cards first
    assert names["9cQdAh9s"] < names["9cQdAhTs"] < names["9cQdAhKs"]
    assert names["9cQdAhTc"] == names["9cQdAhTd"]  # alike to the predictor: one flush suit, same ranks


@pytest.mark.parametrize("board_order", [True, False])
def test_board_ordered_grids_round_trip(board_order, predictor="gradient"):
    """Subgame grids linking each board to the previous one in board order pass the grid checks
    and code every real segment back exactly with the north-predicting modes."""
    from solverkit.core.codec import ValueCodec, check_grid

    asm = load_config({"preset": "cfr_plus", "game": {"name": "hulhe", "ranks": 5, "rounds": 3, "split_round": 2},
                       "compressor": {"name": "blosc2", "codec": "lz4"}})
    game = asm.game
    codec = ValueCodec(asm.compressor, {"regret": np.full(3, 16.0)}, predictor=predictor)
    rng = np.random.default_rng(1)
    seen_sorted = False
    for spec in game.segments(True)[:6]:
        for name, n in spec.arrays.items():
            g = game.segment_grid(spec.key, name, board_order=board_order)
            check_grid(g, n, spec.key)
            if board_order and g.visit is not None and not np.array_equal(g.visit, np.sort(g.visit)):
                seen_sorted = True
            x = np.rint(rng.normal(0, 50, n)) / 16
            y = codec.decode(codec.encode(x, g, "regret"), g, "regret", spec.key)
            np.testing.assert_array_equal(y, x)
    assert seen_sorted == board_order
