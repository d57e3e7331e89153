"""``[solver] jitter``: the regrets moved by a few ulps after the first iteration, seeded, so that
a deterministic assembly's seeds show how far float rounding alone carries its sequence."""

import pytest

from solverkit.core.config import load_config
from solverkit.core.solver import Solver
from solverkit.errors import ConfigError
from solverkit.study.file import load_study


def _run(game, iterations, **solver):
    s = Solver(load_config({"preset": "dcfr", "game": game,
                            "solver": {"eval_every": 0, "iterations": iterations, **solver}}))
    s.step(iterations)
    return s.evaluate()["exploitability"]


def test_a_seed_is_a_sequence_and_seeds_part_on_a_chaotic_game():
    a = _run("leduc_tree", 200, jitter=1e-15, seed=1)
    assert a == _run("leduc_tree", 200, jitter=1e-15, seed=1)  # reproducible
    others = {_run("leduc_tree", 200, jitter=1e-15, seed=s) for s in (2, 3)}
    base = _run("leduc_tree", 200)
    assert len(others | {a, base}) == 4  # every seed its own sequence
    assert max(abs(v / base - 1) for v in others | {a}) > 1e-3  # Leduc's DCFR amplifies 1e-15 ...
    assert max(abs(v / base - 1) for v in others | {a}) < 1.0  # ... into a spread, not a new answer


def test_a_stable_game_stays_put_and_zero_is_off():
    base = _run("kuhn_tree", 100)
    assert _run("kuhn_tree", 100, jitter=1e-15, seed=4) == pytest.approx(base, rel=1e-9)
    assert _run("kuhn_tree", 100, jitter=0.0, seed=4) == base


def test_the_matrix_engine_forgets_its_kept_policies():
    game = {"name": "random_matrix", "rows": 5, "cols": 6}
    base = _run(game, 50)
    moved = _run(game, 50, jitter=1e-9, seed=0)
    assert moved != base and moved == pytest.approx(base, rel=1e-2)
    s = Solver(load_config({"preset": "cfr_plus", "game": game, "solver": {"jitter": 1e-9}}))
    s.step(1)
    assert s.game._scratches[s.store].fresh == (False, False)  # the next pass recomputes both policies


@pytest.mark.parametrize("extra, message", [
    ({"store": {"precision": "block16"}}, "float store"),
    ({"store": {"regret_scale": [64.0], "avg_scale": [64.0]}}, "float store"),
    ({"transport": {"name": "zmq"}}, "needs \\[transport\\] name = \"local\" \\(got 'zmq'\\)"),
])
def test_jitter_needs_a_float_store_in_this_process(extra, message):
    with pytest.raises(ConfigError, match=f"jitter = 1e-15.*{message}"):
        load_config({"preset": "cfr_plus", "game": "leduc", "solver": {"jitter": 1e-15}, **extra})
    with pytest.raises(ConfigError, match="jitter"):
        load_config({"preset": "cfr_plus", "game": "leduc", "solver": {"jitter": -1e-15}})
    with pytest.raises(ConfigError, match="jitter = 1e-15 is for deterministic assemblies; \\[sampler\\] 'external'"):
        load_config({"preset": "cfr", "game": "leduc_tree", "sampler": {"name": "external"}, "solver": {"jitter": 1e-15}})


def test_a_study_runs_a_jittered_assembly_once_per_seed(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text("""
[study]
iterations = 20
seeds = [0, 1, 2]
[assemblies.dcfr]
preset = "dcfr"
[assemblies.dcfr_jitter]
preset = "dcfr"
solver = { jitter = 1e-15 }
[games.leduc]
game = "leduc_tree"
""")
    study = load_study(path)
    assert [(r.assembly, r.seed) for r in study.runs] == [("dcfr", 0), ("dcfr_jitter", 0), ("dcfr_jitter", 1),
                                                          ("dcfr_jitter", 2)]
