"""A run solved straight and the same run stopped at a checkpoint, then resumed from the command
line to its end: what the checkpoint and evaluation-schedule tests compare."""

from click.testing import CliRunner

from solverkit.cli import cli
from solverkit.core.config import load_config
from solverkit.core.solver import run_solve


def straight_and_resumed(tmp_path, text: str, total: int, stop: int, every: str, stopped=None):
    """(full, part): run directories of the TOML config `text` solved to `total` iterations
    straight, and stopped at `stop` (checkpoints every `every`; `stopped(part)` checks it there)
    then resumed to `total`."""
    cfg = tmp_path / "config.toml"
    cfg.write_text(text)
    full, part = tmp_path / "full", tmp_path / "part"
    run_solve(load_config(cfg), out=full)
    run_solve(load_config(cfg), iterations=stop, out=part, checkpoint_every=every)
    if stopped is not None:
        stopped(part)
    res = CliRunner().invoke(cli, ["solve", "--resume", str(part), "--iterations", str(total), "--quiet"])
    assert res.exit_code == 0, res.output
    return full, part
