"""The pruning recipe of configs/blueprint_leduc3.toml (issue 28; bench/blueprint_pruning.py runs
it against plain external sampling): what it sets, and that, scaled down, its runs reproduce bit
for bit and prune in the tree engine (3-player Kuhn; 3-player Leduc itself is slow: its tree
takes 10-40 s to load) and in the blueprint engine (3-player Leduc's rules)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest

from solverkit.blueprint.engine import Blueprint
from solverkit.core.config import load_config
from solverkit.core.solver import run_solve
from solverkit.poker.nplayer import TableDef

PRESET = Path(__file__).resolve().parents[1] / "configs" / "blueprint_leduc3.toml"


def _scaled(n: int, game: dict | None = None) -> dict:
    """The preset with its `until` and `prune_start` scaled to n iterations (as the bench does),
    one evaluation at the end; `game`: another [game] table."""
    raw = tomllib.loads(PRESET.read_text())
    k = n / raw["solver"]["iterations"]
    for t in ("rule", "averaging"):
        raw[t]["until"] = int(raw[t]["until"] * k)
    raw["sampler"]["prune_start"] = int(raw["sampler"]["prune_start"] * k)
    raw["solver"] = {"seed": 5, "eval_every": n}
    if game:
        raw["game"] = game
    return raw


def _strategy(r) -> np.ndarray:
    return np.concatenate([np.asarray(s, dtype=np.float64).ravel() for s in r.strategy])


def test_preset_is_pruning_with_linear_cfr_early():
    """3-player Leduc; Linear CFR and linear averaging for the same first iterations (part of the
    run), pruning (0 < p < 1, a negative threshold) starting inside them, a regret floor just
    below the threshold (Pluribus: -310,000,000 under -300,000,000); the tables resolve."""
    raw = tomllib.loads(PRESET.read_text())
    until = raw["rule"]["until"]
    assert raw["game"] == {"name": "leduc_tree", "players": 3}
    assert raw["averaging"]["until"] == until and 0 < until < raw["solver"]["iterations"]
    a = load_config({**raw, "game": {"name": "kuhn_tree", "players": 3}})
    assert a.rule.name == "lcfr" and a.averaging.name == "linear"
    assert a.sampler.prune_threshold() < 0 and 0 < a.sampler.prune_probability() < 1
    assert 0 < a.sampler.prune_start() < until
    assert 1.5 * a.sampler.prune_threshold() < a.sampler.regret_floor() < a.sampler.prune_threshold()


def _reproduces_and_prunes(raw, n, other_seed, margin):
    """Runs of `raw` twice (the same strategy and nodes bit for bit), without its pruning (its
    floor kept: more nodes by `margin`; two runs of other trajectories differ by ~0.1%) and with
    another seed (another strategy)."""
    a = load_config(raw)
    one, two = run_solve(a, iterations=n), run_solve(a, iterations=n)
    assert np.array_equal(_strategy(one), _strategy(two))
    assert one.metrics[-1]["nodes_touched"] == two.metrics[-1]["nodes_touched"]
    kept = {k: v for k, v in raw["sampler"].items() if not k.startswith("prune_")}
    unpruned = run_solve(load_config({**raw, "sampler": kept}), iterations=n)
    assert unpruned.metrics[-1]["nodes_touched"] > margin * one.metrics[-1]["nodes_touched"]
    other = run_solve(load_config({**raw, "solver": {"seed": other_seed, "eval_every": n}}), iterations=n)
    assert not np.array_equal(_strategy(one), _strategy(other))


def test_preset_schedule_reproduces_bit_for_bit_and_prunes_kuhn3():
    """The preset's schedule and pruning probability on 3-player Kuhn (threshold -1 and floor -1.1:
    Kuhn's pots are a few chips)."""
    raw = _scaled(3000, game={"name": "kuhn_tree", "players": 3})
    raw["sampler"]["prune_threshold"] = -1.0
    raw["sampler"]["regret_floor"] = -1.1
    _reproduces_and_prunes(raw, 3000, 6, 1.03)


@pytest.mark.slow
def test_preset_reproduces_bit_for_bit_and_prunes_leduc3():
    """The preset itself, scaled to 4,000 iterations of 3-player Leduc (pruning from iteration 200:
    with the floor a pruned action comes back after one good sample, so it removes ~2% here)."""
    _reproduces_and_prunes(_scaled(4000), 4000, 6, 1.01)


def test_blueprint_engine_takes_the_preset_and_reproduces():
    """The blueprint engine on 3-player Leduc's rules with the preset's pruning and schedule: two
    runs of the same seed give the same regrets and averages bit for bit, and pruning skips nodes."""
    a = load_config(_scaled(2000, game={"name": "kuhn_tree", "players": 3}))
    gd = TableDef(3, 2, (1, 1, 1), (2, 4), (0, 0), (2, 2), num_suits=2, num_ranks=4, num_hole_cards=1,
                  num_board_cards=(0, 1), source="leduc3").validate()
    s = a.sampler

    def bp(threshold):
        b = Blueprint(gd, seed=5, prune_threshold=threshold, prune_probability=s.prune_probability(),
                      prune_start=s.prune_start(), rule=a.rule, averaging=a.averaging, average_rounds=2,
                      sampler_floor=s.regret_floor() if threshold else 0.0)
        return b, b.run(2000)

    (one, n1), (two, n2) = bp(s.prune_threshold()), bp(s.prune_threshold())
    assert n1 == n2 and np.array_equal(one.reg, two.reg) and np.array_equal(one.avg, two.avg)
    _, n0 = bp(0.0)
    assert n0 > n1
