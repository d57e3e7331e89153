"""A trunk-only game (``[game] trunk_only = true``) deals only the rounds above the cut and
still knows its subgames: the same keys, segment sizes, hand orders and layout as the whole
game, and a zmq run with it gives the local run's numbers bit for bit."""

from __future__ import annotations

import json

import numpy as np
import pytest

from solverkit.core.config import load_config
from solverkit.core.solver import run_solve
from solverkit.errors import ConfigError

# 4 rounds, cut after the flop: the trunk must never deal the turn (round 2) or the river (3)
HULHE4 = {"name": "hulhe", "ranks": 5, "suits": 2, "rounds": 4, "max_raises": [1, 0, 1, 0], "split_round": 2,
          "chunks": 2}
ZMQ2 = {"name": "zmq", "workers": 2, "spawn": 2, "threads": 1, "heartbeat": 0.1, "timeout": 20.0,
        "connect_timeout": 60.0}
COMPRESSED = {"compressor": {"name": "blosc2"}, "store": {"regret_scale": 64, "avg_scale": 64}}


def game(**extra):
    return load_config({"preset": "cfr_plus", "game": {**HULHE4, **extra}}).game


def test_the_trunk_deals_no_board_below_the_cut_and_knows_the_whole_games_subgames():
    whole, trunk = game(), game(trunk_only=True)
    rs = trunk.tree.boards.round_start
    assert rs[2] == rs[3] == rs[4] == whole.tree.boards.round_start[2]  # no turn, no river
    assert trunk.tree.sd_order.shape[0] == 0 and trunk.tree.valid.shape[0] == rs[2]
    np.testing.assert_array_equal(trunk.round_start, whole.tree.boards.round_start)
    assert trunk.subgame_keys() == whole.subgame_keys()
    assert [(s.key, s.arrays) for s in trunk.segments(True)] == [(s.key, s.arrays) for s in whole.segments(True)]
    np.testing.assert_array_equal(trunk.hand_strength(), whole.hand_strength()[: rs[2]])
    for p in (0, 1):
        for name in ("block_start", "block_count", "block_actions"):
            np.testing.assert_array_equal(getattr(trunk.layout(p), name), getattr(whole.layout(p), name))
    assert trunk.subgame_config(trunk.subgame_keys()[:1])["trunk_only"] is False


@pytest.mark.parametrize("extra", [{"split_round": 1}, {"split_round": 3}, {"split_round": 2, "isomorphism": False}],
                         ids=["cut_after_preflop", "cut_after_turn", "raw_boards"])
def test_board_counts_below_any_cut_match_the_whole_tree(extra):
    """Three suits (other stabilizers than two), cuts above two rounds or one, raw boards."""
    g = {**HULHE4, "ranks": 4, "suits": 3, "chunks": 3, **extra}
    whole, trunk = game(**g), game(**g, trunk_only=True)
    np.testing.assert_array_equal(trunk.round_start, whole.tree.boards.round_start)
    assert [(s.key, s.arrays) for s in trunk.segments(False)] == [(s.key, s.arrays) for s in whole.segments(False)]
    cut = trunk.tree.boards.round_start[trunk.split]
    np.testing.assert_array_equal(trunk.hand_strength(), whole.hand_strength()[:cut])


@pytest.mark.parametrize("name", ["leduc", "rhode_island"])
def test_other_poker_games_cut_trunk_only_match_their_whole_tree(name):
    """One hole card, the ACPC kernel (Leduc) or a Python strength function (Rhode Island)."""
    table = {"name": name, "split_round": 1}
    whole = load_config({"preset": "cfr_plus", "game": table}).game
    trunk = load_config({"preset": "cfr_plus", "game": {**table, "trunk_only": True}}).game
    assert trunk.tree.boards.round_start[-1] == 1  # the preflop alone
    assert [(s.key, s.arrays) for s in trunk.segments(True)] == [(s.key, s.arrays) for s in whole.segments(True)]
    np.testing.assert_array_equal(trunk.hand_strength(), whole.hand_strength()[:1])


def test_a_trunk_only_game_refuses_what_needs_the_whole_tree():
    trunk = game(trunk_only=True)
    with pytest.raises(ConfigError, match="needs the whole public tree.*trunk_only = true"):
        trunk.best_response([np.full(trunk.layout(p).size, 0.5) for p in (0, 1)])
    with pytest.raises(ConfigError, match="trunk_only = true: it holds no subgame"):
        trunk.subgame_pass(trunk.subgame_keys()[0], None, None, None)
    with pytest.raises(ConfigError, match="trunk_only = true needs a cut"):
        game(trunk_only=True, split_round=0)
    with pytest.raises(ConfigError, match=r"\[transport\] \(local\).*trunk_only = true"):
        run_solve(load_config({"preset": "cfr_plus", "game": {**HULHE4, "trunk_only": True},
                               "solver": {"iterations": 1}}))


@pytest.mark.slow
@pytest.mark.parametrize("store", [COMPRESSED, {"store": {"precision": "block16"}}], ids=["fixed_point", "block16"])
def test_zmq_with_a_trunk_only_game_equals_the_local_run(tmp_path, store):
    """Metrics, stored bytes and the strategy file are the local run's, compressed store and
    all, through a checkpoint and --resume (the trunk decodes the workers' segments with a game
    built for their flop, to check a checkpoint and to write the strategy; block16: with the
    live hands of boards it never dealt, from that game's tables)."""
    g = {**HULHE4, "chunks": 1}
    base = {"preset": "cfr_plus", "game": g, "solver": {"iterations": 2, "eval_every": 1}, **store}
    local = run_solve(load_config(base), out=tmp_path / "local")
    remote = {**base, "game": {**g, "trunk_only": True}, "transport": ZMQ2}
    part = tmp_path / "zmq"
    run_solve(load_config(remote), iterations=1, out=part, checkpoint_every="1")
    asm = load_config(remote)
    resumed = run_solve(asm, iterations=2, out=part, resume=True)
    rs = asm.game.tree.boards.round_start
    assert rs[2] == rs[4]  # the trunk that solved it never dealt a turn or a river
    cols = ("iteration", "exploitability", "br_0", "br_1", "exploitability_mbb", "stored_bytes", "compression_ratio")
    assert [[r[c] for c in cols] for r in resumed.metrics] == [[r[c] for c in cols] for r in local.metrics]
    a, b = np.load(tmp_path / "local" / "strategy.npz"), np.load(part / "strategy.npz")
    for name in a.files:
        if name != "meta":
            np.testing.assert_array_equal(a[name], b[name])
    assert json.loads((part / "result.json").read_text())["stored_bytes"] == local.stored_bytes
