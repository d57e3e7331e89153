"""`exploit` and `strategy` say what a blueprint's strategy file plays: the average on the first
average_rounds rounds and the current strategy after (they printed "average")."""

from click.testing import CliRunner

from solverkit.cli import cli
from solverkit.core.config import load_config
from solverkit.core.solver import run_solve


def _run(tmp_path, rounds):
    cfg = {"game": {"name": "blueprint", "gamedef": "leduc", "average_rounds": rounds}, "rule": {"name": "rm"},
           "averaging": {"name": "linear"}, "sampler": {"name": "external"}, "solver": {"seed": 1}}
    out = tmp_path / f"r{rounds}"
    run_solve(load_config(cfg), iterations=200, out=out)
    return CliRunner().invoke(cli, ["exploit", str(out)])


def test_exploit_names_the_rounds_a_blueprint_plays_its_average_on(tmp_path):
    res = _run(tmp_path, 1)
    assert res.exit_code == 0, res.output
    assert res.output.startswith("strategy average on round 1, current on the later rounds (Pluribus's export; "
                                 "[game] average_rounds = 1) after iteration 200\n"), res.output
    res = _run(tmp_path, 2)  # every round of Leduc: the plain average
    assert res.exit_code == 0 and res.output.startswith("strategy average after iteration 200\n"), res.output
