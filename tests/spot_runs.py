"""Shared by the spot tests: a holdem_spot solved through the command line, read back as a user would."""

import json

import numpy as np
from click.testing import CliRunner

from solverkit.cli import cli
from solverkit.poker.spot import HoldemSpot


def solve_spot(tmp_path, params, iterations, name="run"):
    """Solve the spot `params` ([game] table) with dcfr for `iterations` iterations by `solverkit
    solve` into tmp_path/name: (run directory, result.json, the game rebuilt from strategy.npz's
    meta, [policy0, policy1])."""
    import tomli_w

    config = tmp_path / f"{name}.toml"
    config.write_text(tomli_w.dumps({"preset": "dcfr", "game": {"name": "holdem_spot", **params}}))
    out = tmp_path / name
    res = CliRunner().invoke(cli, ["solve", str(config), "--iterations", str(iterations), "--out", str(out)])
    assert res.exit_code == 0, res.output
    result = json.loads((out / "result.json").read_text())
    z = np.load(out / "strategy.npz")
    meta = json.loads(str(z["meta"]))
    game = HoldemSpot(**{k: v for k, v in meta["game"].items() if k != "name"})
    return out, result, game, [z["policy0"], z["policy1"]]
