"""[sampler] regret_floor (Pluribus's floor on negative regrets) in the tree engine's sampled
passes: refused where it could never let a regret fall below the threshold, in the discounted
regret's units under lcfr's lazy weights, and a floor just under 0 plays MCCFR+ (rule rm_plus)."""

from __future__ import annotations

import numpy as np
import pytest

from solverkit.core.config import load_config
from solverkit.core.pass_job import PassBlock
from solverkit.core.solver import run_solve
from solverkit.efg.sampled_passes import sampled_coefficients
from solverkit.errors import ConfigError


def _cfg(rule="rm", players=3, **sampler):
    return {"game": {"name": "kuhn_tree", "players": players}, "rule": {"name": rule}, "averaging": {"name": "uniform"},
            "sampler": {"name": "external", **sampler}, "solver": {"seed": 3, "eval_every": 2000}}


def _strategy(cfg, n=2000):
    r = run_solve(load_config(cfg), iterations=n)
    return np.concatenate([np.asarray(s, dtype=np.float64).ravel() for s in r.strategy])


def test_floor_at_or_above_the_threshold_or_positive_is_refused():
    with pytest.raises(ConfigError, match=r"regret_floor = -100 is at or above prune_threshold = -100"):
        load_config(_cfg(prune_threshold=-100, regret_floor=-100))
    with pytest.raises(ConfigError, match="regret_floor"):
        load_config(_cfg(regret_floor=5.0))
    a = load_config(_cfg(prune_threshold=-100, regret_floor=-110))
    assert a.sampler.regret_floor() == -110.0
    assert load_config(_cfg()).sampler.regret_floor() == 0.0  # off by default


def test_floor_is_in_the_discounted_regrets_units_under_lazy_lcfr():
    """lcfr stores iteration t's regrets weighted by min(t, until + 1): the floor handed to the
    kernel is regret_floor times that weight (like prune_threshold), and the rule's own -inf
    without a floor."""
    cfg = _cfg(prune_threshold=-10, regret_floor=-12)
    cfg["rule"] = {"name": "lcfr", "until": 5}
    a = load_config(cfg)
    G = 3
    block = PassBlock(1, 10, ((0,), (1,), (2,)), a.rule, a.averaging, a.sampler)
    _, floors, _, (rw, _, _) = sampled_coefficients(block)
    t = np.repeat(np.arange(1, 11), G)
    assert np.array_equal(rw, np.minimum(t, 6).astype(float))
    assert np.array_equal(floors, -12.0 * np.minimum(t, 6))
    off = load_config({**cfg, "sampler": {"name": "external"}})
    _, floors, _, _ = sampled_coefficients(PassBlock(1, 10, ((0,), (1,), (2,)), off.rule, off.averaging, off.sampler))
    assert np.all(floors == -np.inf)


@pytest.mark.parametrize("players", [2, 3])
def test_floor_just_under_zero_plays_mccfr_plus(players):
    """rm with regret_floor -1e-300 keeps every regret at least -1e-300, which regret matching
    reads as rm_plus's 0: the same strategy as rule rm_plus (an independent path: the rule's
    floor), and another than plain rm's (the floor binds); the two-player kernel and the
    N-player one."""
    floored = _strategy(_cfg(players=players, regret_floor=-1e-300))
    plus = _strategy(_cfg("rm_plus", players))
    plain = _strategy(_cfg(players=players))
    assert np.allclose(floored, plus, rtol=0, atol=1e-12)
    assert np.abs(floored - plain).max() > 1e-3


def _leduc3():
    from solverkit.poker.nplayer import TableDef

    return TableDef(3, 2, (1, 1, 1), (2, 4), (0, 0), (2, 2), num_suits=2, num_ranks=4, num_hole_cards=1,
                    num_board_cards=(0, 1), source="leduc3").validate()


def test_blueprint_engine_floors_its_regrets():
    """The blueprint engine (float64 regrets, lcfr's lazy weights): with sampler_floor no stored
    regret is below the floor times the last regret weight (the weights only grow), which the
    same run without a floor crosses; a floor at or above the threshold is refused; the default
    (no floor) runs as before, bit for bit as a floor far below every regret."""
    from solverkit.blueprint.engine import Blueprint
    from solverkit.rules import LinearCFR

    def run(floor, n=1500):
        b = Blueprint(_leduc3(), seed=2, prune_threshold=-5.0, prune_probability=0.5, rule=LinearCFR(until=1000),
                      average_rounds=2, sampler_floor=floor)
        b.run(n)
        return b

    floored, free, far = run(-6.0), run(0.0), run(-1e300)
    last = -6.0 * 1001  # lcfr until 1000: iteration 1500's weight is 1001
    assert floored.reg.min() >= last and free.reg.min() < last
    assert np.array_equal(free.reg, far.reg) and np.array_equal(free.avg, far.avg)
    with pytest.raises(ConfigError, match="regret_floor = -5 is invalid"):
        Blueprint(_leduc3(), prune_threshold=-5.0, sampler_floor=-5.0)


def test_blueprint_game_takes_the_samplers_floor():
    """[game] name = "blueprint" with [sampler] regret_floor: the engine runs with it (another
    strategy than without), the same seed reproduces bit for bit."""
    cfg = {"game": {"name": "blueprint", "gamedef": "kuhn.limit.3p"}, "rule": {"name": "lcfr", "until": 200},
           "averaging": {"name": "linear", "until": 200},
           "sampler": {"name": "external", "prune_threshold": -0.5, "regret_floor": -0.6},
           "solver": {"seed": 4, "eval_every": 600}}
    one, two = _strategy(cfg, 600), _strategy(cfg, 600)
    plain = _strategy({**cfg, "sampler": {"name": "external", "prune_threshold": -0.5}}, 600)
    assert np.array_equal(one, two) and not np.array_equal(one, plain)


def test_replica_jobs_carry_the_floor_to_workers():
    """zmq / dask replicas: a job's regret_floor goes over the wire and back; a job without one
    says nothing of it (the messages of before)."""
    from solverkit.blueprint.distributed import ReplicaJob

    job = ReplicaJob(1, 10, 2, 7, 0, 0.5, 3, True, False, True, -1.5)
    assert ReplicaJob.from_wire(job.to_wire(), 2, 3) == job
    plain = ReplicaJob(1, 10, 2, 7, 0, 0.5, 3, True, False, True)
    assert "regret_floor" not in plain.to_wire() and ReplicaJob.from_wire(plain.to_wire(), 2, 3).floor == 0.0


def test_int32_blueprint_floor_is_the_higher_of_both():
    """int32 regrets: the kernel's floor in stored units is the higher of [game] regret_floor (default
    Pluribus's -310,000,000 units) and the sampler's floor times regret_scale."""
    from solverkit.blueprint.engine import Blueprint

    b = Blueprint(_leduc3(), prune_threshold=-5.0, regrets="int32", sampler_floor=-6.0)
    assert b.kernel_floor() == round(-6.0 * b.fixed.scale) > b.fixed.floor
    assert Blueprint(_leduc3(), regrets="int32").kernel_floor() == b.fixed.floor
