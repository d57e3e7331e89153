"""Second audit: a locked spot under suit isomorphism, read back from disk as a new process would
(the run directory's config.toml and strategy.npz), against what the solve reported in-process;
and the same run stopped at a checkpoint and resumed against one uninterrupted solve."""

from __future__ import annotations

import json

import numpy as np
from click.testing import CliRunner

from solverkit.cli import cli
from solverkit.core.config import load_config
from solverkit.core.strategy_file import load_strategy

from .resume_runs import assert_resumed_is_straight
from .test_audit_locks import MONO

LOCKED = {**MONO, "pot": 21, "rake": 0.05, "rake_cap": 1.0,
          "lock": {"": {"AhAd": {"bet 11": 1.0}}, "check": {"99": {"check": 0.3, "bet 11": 0.7}},
                   "check,check": {"JTs": {"bet 16": 1.0}}}}


def test_a_resumed_locked_solve_is_the_uninterrupted_one_and_reads_back_from_disk(tmp_path):
    """Stopped at iteration 5 and resumed to 12: the metrics and strategy.npz bit for bit those of
    one solve (locks, rake, an odd pot, isomorphism narrowed by a first-street lock, the 16-bit
    store). Read back from the run directory: every combo's EV at the root (node view) averages
    to result.json's ev, the best responses are result.json's, and `export --format json` holds
    `strategy --node`'s probabilities at every node on the river cards shown."""
    cfg = {"preset": "dcfr", "solver": {"eval_every": 4}, "store": {"precision": "block16"},
           "game": {"name": "holdem_spot", **LOCKED}}
    assert_resumed_is_straight(tmp_path, cfg, 12, 5, "5")
    run = tmp_path / "part"
    result = json.loads((run / "result.json").read_text())
    game = load_config(str(run / "config.toml")).game
    strategy, _, _ = load_strategy(run / "strategy.npz", game, str(run / "config.toml"))
    w, m = game._root_entry(), game.opponent_mass()
    root = game.node_view(strategy, "")
    H = len(root.combos)
    ev0 = float(np.sum(w[0, :H] * m[0, :H] * root.ev) / np.sum(w[0, :H] * m[0, :H]))
    assert abs(ev0 - result["ev"][0]) <= 1e-9 * abs(ev0), (ev0, result["ev"])
    br = game.best_response(strategy)
    assert np.allclose(br, (result["br_0"], result["br_1"]), rtol=1e-9, atol=1e-12), (br, result)
    doc = json.loads(CliRunner().invoke(cli, ["export", str(run), "--format", "json"]).output)
    checked = 0
    for path in ("", "check", "check,bet 11", "check,check,2c", "check,check,Ah,check", "bet 11,call,Ah"):
        view = json.loads(CliRunner().invoke(cli, ["strategy", str(run), "--node", path, "--json"]).output)
        hist = game.tree.bet.history[view["node"]]
        board = "2s7sQsKs" + view["board"][8:]
        for combo, row in view["combos"].items():
            key = f"{combo}|{board}|{hist}"
            if key in doc["players"][view["player"]]:  # a canonical board (the others are its suit images)
                assert doc["players"][view["player"]][key] == [row["strategy"][a] for a in view["actions"]], key
                checked += 1
    assert checked > 20
