"""A run solved straight and the same run stopped at a checkpoint, then resumed from the command
line to its end: what the checkpoint and evaluation-schedule tests compare."""

import csv

import numpy as np
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


def _rows(path):
    with open(path) as fh:
        return [{k: v for k, v in row.items() if k not in ("seconds", "peak_rss_mb")} for row in csv.DictReader(fh)]


def assert_resumed_is_straight(tmp_path, cfg: dict, total: int, stop: int, every: str):
    """The config table `cfg` solved to `total` iterations straight and stopped at `stop`
    (checkpoints every `every`) then resumed from the command line write the same metrics rows
    (times aside) and strategy, bit for bit. Returns the straight run's Result."""
    full = run_solve(load_config(cfg), iterations=total, out=tmp_path / "full")
    run_solve(load_config(cfg), iterations=stop, out=tmp_path / "part", checkpoint_every=every)
    res = CliRunner().invoke(cli, ["solve", "--resume", str(tmp_path / "part"), "--iterations", str(total), "--quiet"])
    assert res.exit_code == 0, res.output
    assert _rows(tmp_path / "part" / "metrics.csv") == _rows(tmp_path / "full" / "metrics.csv")
    a, b = np.load(tmp_path / "full" / "strategy.npz"), np.load(tmp_path / "part" / "strategy.npz")
    for name in a.files:
        np.testing.assert_array_equal(a[name], b[name])
    return full
