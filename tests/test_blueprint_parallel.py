"""Data-parallel blueprint MCCFR ([game] replicas, solverkit.blueprint.parallel): against a plain
Python simulation of the rounds (each replica one kernel call from a copy of the round's start,
the changes summed), independent of how the iterations are cut into blocks and passes, bit for bit
through the solver on threads and across a checkpoint in mid-round, and the memory refusal."""

from __future__ import annotations

import random

import numpy as np
import pytest

from solverkit.blueprint import parallel
from solverkit.blueprint.engine import Blueprint
from solverkit.core.config import load_config
from solverkit.core.rule import increment_weights
from solverkit.errors import ConfigError
from solverkit.poker.nplayer import TableDef, load_table


def _leduc3():
    return TableDef(3, 2, (1, 1, 1), (2, 4), (0, 0), (2, 2), num_suits=2, num_ranks=4, num_hole_cards=1,
                    num_board_cards=(0, 1), source="leduc3").validate()


def _parts(rule="lcfr"):
    a = load_config({"game": {"name": "blueprint", "gamedef": "kuhn.limit.3p"},
                     "rule": {"name": rule, **({"until": 500} if rule == "lcfr" else {})},
                     "averaging": {"name": "linear", "until": 500} if rule == "lcfr" else {"name": "uniform"}, "sampler": {"name": "external"}})
    return a.rule, a.averaging


def _simulated(gd, n, W, sync, ramp, prune, rule, averaging):
    """The rounds by hand: every replica one kernel call over its iterations (t - 1) % W == j of
    the round from a copy of the round's start; the store becomes replica 0 + the others' changes."""
    ref = Blueprint(gd, seed=3, rule=rule, averaging=averaging, **prune)
    plan = parallel.Plan(ref, W, sync, ramp)
    thr0, pprob, pstart = ref.prune
    t = 1
    while t <= n:
        lo, hi = plan.round_of(t)
        assert hi <= n
        start_r, start_a = ref.reg.copy(), ref.avg.copy()
        outs = []
        for j in range(W):
            ts = np.arange(lo + j, hi + 1, W, dtype=np.int64)
            r, av = start_r.copy(), start_a.copy()
            rw = increment_weights(rule, ts)
            w = np.array([averaging.coefficients_block(int(x), 1)[0, 1] for x in ts])
            ref.block(ts, np.full(ts.size, 7), 0, rw, np.where(ts > pstart, thr0 * rw, 0.0), pprob, w, r, av)
            outs.append((r, av))
        reg, avg = outs[0]
        for r, av in outs[1:]:
            reg = reg + (r - start_r)
            avg = avg + (av - start_a)
        ref.reg[:], ref.avg[:] = reg, avg
        t = hi + 1
    return ref


@pytest.mark.parametrize("gd, W, sync, ramp, prune, rule", [
    (load_table("kuhn.limit.3p"), 2, 20, 2, {"prune_threshold": -2.0, "prune_start": 100}, "lcfr"),
    (load_table("kuhn.limit.3p"), 3, 7, 0, {}, "rm"),
    (_leduc3(), 2, 50, 3, {"prune_threshold": -5.0, "prune_start": 100}, "lcfr"),
])
def test_replicas_are_the_simulated_rounds_in_any_blocks(gd, W, sync, ramp, prune, rule):
    """Regrets and averages equal the hand-made rounds bit for bit (pruning thresholds, lazy Linear
    CFR and average weights of each replica's own iterations), in blocks that cut rounds anywhere."""
    rule, averaging = _parts(rule)
    plan = parallel.Plan(Blueprint(gd), W, sync, ramp)
    n = plan.round_of(1500)[1]
    ref = _simulated(gd, n, W, sync, ramp, prune, rule, averaging)
    for blocks in (n, 97, 1):
        if blocks == 1 and gd.source == "leduc3":
            continue  # (a kernel call an iteration: slow)
        bp = Blueprint(gd, seed=3, rule=rule, averaging=averaging, **prune)
        while bp.iteration < n:
            bp.run(min(blocks, n - bp.iteration), replicas=W, sync=sync, ramp=ramp)
        assert np.array_equal(bp.reg, ref.reg) and np.array_equal(bp.avg, ref.avg), blocks
    one = Blueprint(gd, seed=3, rule=rule, averaging=averaging, **prune)
    one.run(n)
    assert not np.array_equal(one.reg, ref.reg)  # (the replicas do change the numbers)


def test_round_schedule():
    """Rounds tile the iterations, hold a multiple of W iterations, grow from sync_start, doubling
    every ramp rounds, up to sync_every."""
    for _ in range(300):
        W, s, r, st = random.randint(2, 4), random.randint(1, 60), random.randint(0, 5), random.randint(1, 9)
        t = random.randint(1, 20_000)
        lo, hi = parallel.round_of(t, W, s, r, st)
        assert lo <= t <= hi and (hi - lo + 1) % W == 0 and (lo - 1) % W == 0
        assert parallel.round_of(lo, W, s, r, st) == (lo, hi) and parallel.round_of(hi + 1, W, s, r, st)[0] == hi + 1
        assert min(st, s) * W <= hi - lo + 1 <= max(st, s) * W
    ends = [hi for _, hi, _, closes in parallel.rounds(1, 30, _plan(2, 4, 2)) if closes]
    assert ends == [2, 4, 8, 12, 20, 28]


def test_large_trees_start_with_longer_rounds(monkeypatch):
    """sync_start 0: one iteration a replica on small trees, values / SYNC_VALUES on large ones
    (and sync_every below that is raised to it); a given sync_start is kept."""
    bp = Blueprint(_leduc3())
    values = bp.reg.size + parallel.Plan(bp, 2, 10, 1).asize
    assert parallel.Plan(bp, 2, 1000, 200).start == 1
    monkeypatch.setattr(parallel, "SMALL_VALUES", 1000)
    p = parallel.Plan(bp, 2, 3, 200)
    assert p.start == -(-values // parallel.SYNC_VALUES) > 3 and p.sync == p.start
    assert parallel.Plan(bp, 2, 1000, 200, 2).start == 2


def _plan(W, sync, ramp):
    p = parallel.Plan(Blueprint(load_table("kuhn.limit.3p")), W, sync, ramp, 1)
    return p


def _cfg(tmp_path, replicas, threads=2, extra=""):
    cfg = tmp_path / f"c{replicas}.toml"
    cfg.write_text('[game]\nname = "blueprint"\ngamedef = "kuhn.limit.3p"\n'
                   f'replicas = {replicas}\nsync_every = 40\nsync_ramp = 3\n{extra}'
                   '[rule]\nname = "lcfr"\nuntil = 500\n[averaging]\nname = "linear"\nuntil = 500\n'
                   '[sampler]\nname = "external"\nprune_threshold = -1.0\nprune_start = 200\n[solver]\nseed = 1\n'
                   f'[transport]\nname = "local"\nthreads = {threads}\n')
    return cfg


def _solve(*args):
    from click.testing import CliRunner

    from solverkit.cli import cli

    res = CliRunner().invoke(cli, ["solve", *map(str, args), "--quiet"])
    assert res.exit_code == 0, res.output


def _policy(out):
    with np.load(out / "strategy.npz") as z:
        return [z[f"policy{p}"] for p in range(3)]


def test_solver_threads_reproduce_the_engine_and_resume_in_mid_round(tmp_path):
    """Through the solver on 2 threads (blocks that follow the clock, the first iteration as one
    pass per player): the engine's one-block result; twice the same; a checkpoint at 1,000 (in
    mid-round) resumed to 3,000 gives the straight run; one thread runs the same replicas."""
    cfg = _cfg(tmp_path, 2)
    _solve(cfg, "--out", tmp_path / "a", "--iterations", 3000)
    _solve(cfg, "--out", tmp_path / "b", "--iterations", 1000, "--checkpoint-every", 1000)
    _solve("--resume", tmp_path / "b", "--iterations", 3000)
    _solve(_cfg(tmp_path, 2, threads=1), "--out", tmp_path / "c", "--iterations", 3000)
    a, b, c = _policy(tmp_path / "a"), _policy(tmp_path / "b"), _policy(tmp_path / "c")
    assert all(np.array_equal(x, y) and np.array_equal(x, z) for x, y, z in zip(a, b, c))
    game = load_config(str(cfg)).game
    plan = game.plan
    lo, hi = plan.round_of(1000)
    assert lo < 1000 < hi  # the checkpoint was in mid-round
    rule, averaging = _parts()
    bp = Blueprint(load_table("kuhn.limit.3p"), seed=1, rule=rule, averaging=averaging, prune_threshold=-1.0,
                   prune_start=200)
    bp.run(3000, replicas=2, sync=40, ramp=3)
    pol = bp.policy()
    assert all(np.array_equal(a[p], pol[bp.base[p]:bp.base[p + 1]]) for p in range(3))


def test_one_replica_is_the_serial_run(tmp_path):
    """replicas = 1 (the default) adds no segment and gives the serial engine's numbers."""
    _solve(_cfg(tmp_path, 1), "--out", tmp_path / "a", "--iterations", 2000)
    rule, averaging = _parts()
    bp = Blueprint(load_table("kuhn.limit.3p"), seed=1, rule=rule, averaging=averaging, prune_threshold=-1.0,
                   prune_start=200)
    bp.run(2000)
    pol = bp.policy()
    assert all(np.array_equal(x, pol[bp.base[p]:bp.base[p + 1]]) for p, x in enumerate(_policy(tmp_path / "a")))
    game = load_config(str(_cfg(tmp_path, 1))).game
    assert [s.key for s in game.segments(True)] == ["root"]


def test_replicas_that_do_not_fit_are_refused(tmp_path, monkeypatch):
    from solverkit.core import memory

    game = load_config(str(_cfg(tmp_path, 4))).game
    specs = game.segments(True)
    size = int(game.bp.reg.size)
    assert [s.key for s in specs] == ["root", "replicas", "replica1", "replica2", "replica3"]
    assert specs[1].arrays == {"rstate": 2, "rstart": size, "astart": game.plan.asize}
    assert all(s.arrays == {"rcopy": size, "acopy": game.plan.asize} for s in specs[2:])
    monkeypatch.setattr(memory, "physical_memory", lambda: 8 * size * 5)
    with pytest.raises(ConfigError, match=r"replicas = 4: .* does not fit .* use fewer replicas"):
        game.segments(True)
