"""Games of more than two players through the network transports: a tree game cut into a trunk
and subgames ([game] split_actions) gives the numbers of the whole tree, and a zmq worker those
of the local transport bit for bit; pass jobs name any player 0 .. N-1 and nothing else."""

from __future__ import annotations

import re

import numpy as np
import pytest

from solverkit.core.config import load_config
from solverkit.core.game import PassJob
from solverkit.core.solver import run_solve
from solverkit.errors import ConfigError, ProtocolError

FAST = {"heartbeat": 0.1, "timeout": 4.0, "connect_timeout": 30.0}


def config(split=1, transport=None, iterations=20, **solver):
    game = {"name": "kuhn_tree", "players": 3, **({"split_actions": split} if split else {})}
    return {"preset": "cfr_plus", "game": game, "solver": {"iterations": iterations, "eval_every": 5, **solver},
            **({"transport": transport} if transport else {})}


def strategies(path):
    data = np.load(path)
    return {name: data[name] for name in data.files}


def test_a_three_player_solve_through_a_zmq_worker_equals_the_local_one(tmp_path):
    local = run_solve(load_config(config()), out=tmp_path / "local")
    remote = run_solve(load_config(config(transport={"name": "zmq", "workers": 1, "spawn": 1, "threads": 1, **FAST})),
                       out=tmp_path / "zmq")
    assert [r["nash_conv"] for r in remote.metrics] == [r["nash_conv"] for r in local.metrics]
    assert [[r[f"gain_{p}"] for p in range(3)] for r in remote.metrics] == \
        [[r[f"gain_{p}"] for p in range(3)] for r in local.metrics]
    a, b = strategies(tmp_path / "local" / "strategy.npz"), strategies(tmp_path / "zmq" / "strategy.npz")
    assert sorted(a) == sorted(b) and "policy2" in a
    for name in a:
        np.testing.assert_array_equal(a[name], b[name])


@pytest.mark.parametrize("split", [1, 2, 3])
@pytest.mark.parametrize("update", ["alternating", "simultaneous"])
def test_a_split_tree_gives_the_whole_trees_numbers(split, update):
    whole = run_solve(load_config(config(split=0, update=update)))
    cut = run_solve(load_config(config(split=split, update=update)))
    assert [r["nash_conv"] for r in cut.metrics] == [r["nash_conv"] for r in whole.metrics]
    game = load_config(config(split=split)).game
    # every information set is in exactly one part
    for p in range(3):
        index = np.concatenate([part.index[p] for _, part in game._parts()])
        assert np.array_equal(np.sort(index), np.arange(game.layout(p).size))


def test_split_errors_name_the_value():
    with pytest.raises(ConfigError, match=r"split_actions = 9 cuts nothing in game 'kuhn_tree'"):
        load_config(config(split=9))
    with pytest.raises(ConfigError, match=r"split_actions = 1 is invalid for game 'kuhn_tree' of 2 players"):
        load_config({"game": {"name": "kuhn_tree", "split_actions": 1}})
    with pytest.raises(ConfigError, match=r"\[sampler\] name = 'external' is invalid for game 'kuhn_tree' cut"):
        load_config({**config(), "sampler": {"name": "external"}})


def test_pass_jobs_carry_any_player_and_refuse_others():
    game = load_config(config()).game
    asm = load_config(config())
    for players in ([0], [1], [2], [0, 1, 2]):
        job = game.job_from_wire(PassJob(3, tuple(players), None, None).to_wire(), asm.rule, asm.averaging)
        assert job.players == tuple(players) and job.iteration == 3
    for bad in ([3], [-1], [0, 1], [2, 1, 0], []):
        with pytest.raises(ProtocolError, match=re.escape(f"field 'players' = {bad!r} is invalid: expected one player "
                                                          "[p] with p in 0 .. 2 (a game of 3 players) or [0, 1, 2]")):
            game.job_from_wire({"iteration": 1, "players": bad}, asm.rule, asm.averaging)
    # two-player games keep their message
    with pytest.raises(ProtocolError, match=r"'players' = \[2\] is invalid: expected \[0\], \[1\] or \[0, 1\]"):
        PassJob.from_wire({"iteration": 1, "players": [2]}, None, None)


def test_strategy_player_takes_any_player_of_the_game_and_names_the_range(tmp_path):
    from click.testing import CliRunner

    from solverkit.cli import cli

    run_solve(load_config(config(iterations=10)), out=tmp_path / "run")
    res = CliRunner().invoke(cli, ["strategy", str(tmp_path / "run"), "--infoset", "Ks||cc", "--player", "2", "--json"])
    assert res.exit_code == 0, res.output
    import json

    got = json.loads(res.output)
    game = load_config(config()).game
    place = game.infoset_place("Ks||cc", 2)
    policy = np.load(tmp_path / "run" / "strategy.npz")["policy2"]
    assert got["player"] == 2 and list(got["policy"].values()) == list(policy[place.offset:place.offset + 2])
    assert place.segment.startswith("sub")  # player 2's first decision lies below the cut
    for bad in ("3", "5"):  # (6 and more: refused by the option itself, no game has them)
        res = CliRunner().invoke(cli, ["strategy", str(tmp_path / "run"), "--infoset", "Ks||cc", "--player", bad])
        assert res.exit_code != 0
        assert f"{bad} is invalid for game 'kuhn_tree' of 3 players: expected 0 .. 2" in res.output


def test_distributed_checkpoints_of_more_than_two_players_are_refused_by_name(tmp_path):
    zmq = {"name": "zmq", "workers": 1, "spawn": 1, "checkpoint": "distributed", **FAST}
    with pytest.raises(ConfigError, match=r"checkpoint = \"distributed\" is invalid for game 'kuhn_tree' of 3 "
                                          r"players: .* use checkpoint = \"file\""):
        run_solve(load_config(config(transport=zmq)), out=tmp_path / "run")


@pytest.mark.slow
def test_a_three_player_solve_through_dask_workers_equals_the_local_one(tmp_path):
    """As the zmq test, with two workers placed by a local Dask cluster (seconds to start: slow)."""
    pytest.importorskip("distributed")
    local = run_solve(load_config(config(split=2)), out=tmp_path / "local")
    remote = run_solve(load_config(config(split=2, transport={"name": "dask", "workers": 2, "threads": 1, **FAST})),
                       out=tmp_path / "dask")
    assert [r["nash_conv"] for r in remote.metrics] == [r["nash_conv"] for r in local.metrics]
    a, b = strategies(tmp_path / "local" / "strategy.npz"), strategies(tmp_path / "dask" / "strategy.npz")
    for name in a:
        np.testing.assert_array_equal(a[name], b[name])
