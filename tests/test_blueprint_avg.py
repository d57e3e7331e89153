"""Blueprint averages stored for the kept rounds only (issue 28): the compact ``avg`` holds what the
full-size layout held at the kept nodes, value for value (the kernel run over the old layout is the
oracle), the store and checkpoints hold the compact size, and a checkpoint of the old layout is
refused, never misread."""

from __future__ import annotations

import numpy as np
import pytest

from solverkit.blueprint.betting import TERMINAL
from solverkit.blueprint.engine import Blueprint
from solverkit.blueprint.nolimit import load_any_table
from solverkit.core.config import load_config
from solverkit.core.solver import run_solve
from solverkit.errors import ConfigError

ITERS = 400


def _run(bp: Blueprint, avg, aoff=None) -> None:
    """ITERS plain iterations (weights 1, no pruning) of `bp` over its regrets and `avg` at `aoff`."""
    ts = np.arange(1, ITERS + 1, dtype=np.int64)
    ones = np.ones(ITERS)
    bp.block(ts, np.full(ITERS, (1 << bp.gd.num_players) - 1), 0, ones, np.zeros(ITERS), 0.0, ones, bp.reg, avg,
             aoff=aoff)


@pytest.mark.parametrize("game,rounds", [("leduc", 0), ("leduc", 1), ("leduc", 2), ("kuhn.limit.3p", 1),
                                         ("leduc.nolimit", 1)])
def test_compact_average_is_the_full_layouts_kept_part(game, rounds):
    gd = load_any_table(game)
    bp, ref = Blueprint(gd, seed=5, average_rounds=rounds), Blueprint(gd, seed=5, average_rounds=rounds)
    t = bp.tree
    kept = np.flatnonzero((t.kind != TERMINAL) & (t.round < rounds))
    lens = bp.buckets[t.round[kept]] * t.nact[kept]
    assert bp.avg.size == bp.asize == int(lens.sum())
    if rounds < gd.num_rounds:
        assert bp.asize < bp.reg.size
    # the layout before: averages at the regrets' offsets, a full-size array
    full_aoff = np.where((t.kind != TERMINAL) & (t.round < rounds), ref.off, -1).astype(np.int64)
    full = np.zeros(ref.reg.size)
    _run(bp, bp.avg)
    _run(ref, full, full_aoff)
    assert np.array_equal(bp.reg, ref.reg)
    for n in kept:
        A, nb = int(t.nact[n]), int(bp.buckets[t.round[n]])
        assert np.array_equal(bp.avg[bp.aoff[n]:bp.aoff[n] + nb * A], full[ref.off[n]:ref.off[n] + nb * A])
    assert np.count_nonzero(full) == np.count_nonzero(bp.avg) and (rounds == 0 or np.count_nonzero(full) > 0)
    # every round kept: the compact layout is the full one itself (old checkpoints read back as written)
    if rounds >= gd.num_rounds:
        assert np.array_equal(bp.avg, full)
    # the export: the full layout's average on the kept rounds, regret matching elsewhere
    pol = bp.policy()
    want = np.empty(ref.reg.size)
    from solverkit.blueprint.kernels import current_policy

    current_policy(ref.reg, ref.off, t.nact, t.kind, ref.buckets, t.round, want)
    for n in kept:
        A, nb = int(t.nact[n]), int(bp.buckets[t.round[n]])
        a = full[ref.off[n]:ref.off[n] + nb * A].reshape(nb, A)
        s = a.sum(axis=1, keepdims=True)
        cur = want[ref.off[n]:ref.off[n] + nb * A].reshape(nb, A)
        cur[:] = np.where(s > 0, a / np.where(s > 0, s, 1.0), cur)
    assert np.array_equal(pol, want)


def _config(**game):
    return {"game": {"name": "blueprint", "gamedef": "leduc", **game},
            "rule": {"name": "lcfr", "until": 300}, "averaging": {"name": "linear", "until": 300},
            "sampler": {"name": "external", "prune_threshold": -2.0, "prune_start": 200},
            "solver": {"seed": 4, "eval_every": 10**9}}


@pytest.mark.parametrize("game", [{}, {"regrets": "int32"}, {"replicas": 2, "sync_every": 20, "sync_ramp": 2},
                                  {"average_rounds": 2}])
def test_store_holds_the_compact_size_and_the_run_reproduces(game):
    cfg = load_config(_config(**game))
    bp = cfg.game.bp
    specs = {s.key: s.arrays for s in cfg.game.segments(True)}
    assert specs["root"]["avg"] == bp.asize
    assert (bp.asize == bp.base[-1]) == (game.get("average_rounds") == 2)
    if "replicas" in game:
        assert specs["replicas"]["astart"] == specs["replica1"]["acopy"] == bp.asize
    a = run_solve(load_config(_config(**game)), iterations=600).strategy
    b = run_solve(load_config(_config(**game)), iterations=600).strategy
    assert all(np.array_equal(x, y) for x, y in zip(a, b))


def test_engine_checkpoints_round_trip_and_refuse_the_old_layout(tmp_path):
    gd = load_any_table("leduc")
    bp = Blueprint(gd, seed=2)
    bp.run(300)
    path = bp.save(tmp_path / "bp.npz")
    back = Blueprint(gd, seed=2)
    back.load(path)
    assert back.iteration == 300 and np.array_equal(back.avg, bp.avg) and np.array_equal(back.reg, bp.reg)
    bp.run(200)
    back.run(200)
    assert np.array_equal(back.avg, bp.avg) and np.array_equal(back.reg, bp.reg)
    old = tmp_path / "old.npz"  # the layout before: every round's averages, no average_rounds
    np.savez(old, iteration=300, reg=bp.reg, avg=np.zeros(bp.reg.size), seed=2)
    with pytest.raises(ConfigError, match="holds the averages of every round .* start a new run"):
        Blueprint(gd, seed=2).load(old)
    with pytest.raises(ConfigError, match="average_rounds"):
        Blueprint(gd, seed=2, average_rounds=2).load(path)


def test_solver_checkpoint_of_another_average_size_is_refused(tmp_path):
    """A store checkpoint whose ``avg`` has another size (the full layout of before, or another
    average_rounds) is refused in one line naming the array, not read into the compact one."""
    from click.testing import CliRunner

    from solverkit.cli import cli

    cfg = tmp_path / "c.toml"
    text = ('[game]\nname = "blueprint"\ngamedef = "leduc"\naverage_rounds = {}\n[rule]\nname = "rm"\n'
            '[averaging]\nname = "linear"\n[sampler]\nname = "external"\n[solver]\nseed = 1\n')
    cfg.write_text(text.format(2))
    run = CliRunner()
    res = run.invoke(cli, ["solve", str(cfg), "--out", str(tmp_path / "a"), "--iterations", "100",
                           "--checkpoint-every", "100", "--quiet"])
    assert res.exit_code == 0, res.output
    (tmp_path / "a" / "config.toml").write_text((tmp_path / "a" / "config.toml").read_text()
                                                .replace("average_rounds = 2", "average_rounds = 1"))
    res = run.invoke(cli, ["solve", "--resume", str(tmp_path / "a"), "--iterations", "200", "--quiet"])
    assert res.exit_code != 0
    assert "average_rounds" in res.output or "'avg'" in res.output, res.output
