"""``solverkit export --format json`` (issue 26, item 19): every information set's actions are
named, for tree games too (never null), and nothing is lost silently."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

from solverkit.api import load_game
from solverkit.cli import cli
from solverkit.core.export import export_json
from solverkit.errors import SolverkitError


def _uniform(game):
    return [np.full(game.layout(p).size, 0.5) for p in (0, 1)]


@pytest.mark.parametrize("name", ["kuhn_tree", "leduc_tree", "kuhn", "skewed_pennies"])
def test_every_information_set_has_its_action_labels(name):
    game = load_game(name)
    doc = export_json(game, _uniform(game))
    for p in (0, 1):
        assert list(doc["actions"][p]) == list(doc["players"][p]) == game.infoset_keys(p)
        for key, probs in doc["players"][p].items():
            labels = doc["actions"][p][key]
            assert len(labels) == len(probs) >= 1 and all(isinstance(a, str) and a for a in labels)
    assert "null" not in json.dumps(doc)


def test_tree_game_actions_differ_per_information_set(tmp_path):
    out = tmp_path / "run"
    assert CliRunner().invoke(cli, ["solve", "--game", "kuhn_tree", "--preset", "cfr_plus", "--iterations", "50",
                                    "--out", str(out), "--quiet"]).exit_code == 0
    res = CliRunner().invoke(cli, ["export", str(out), "--format", "json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["actions"][0]["Qs||"] == ["c", "r"] and doc["actions"][0]["Qs||cr"] == ["f", "c"]
    assert doc["actions"][1]["Ks||r"] == ["f", "c"]
    # the ace facing a raise always calls, the queen always folds: each probability under its label
    assert dict(zip(doc["actions"][1]["As||r"], doc["players"][1]["As||r"]))["c"] == pytest.approx(1.0, abs=1e-3)
    assert dict(zip(doc["actions"][1]["Qs||r"], doc["players"][1]["Qs||r"]))["f"] == pytest.approx(1.0, abs=1e-3)


def test_two_information_sets_with_one_key_are_refused():
    game = load_game("kuhn_tree")
    keys = game.infoset_keys(0)
    game.infoset_keys = lambda p: [keys[0], keys[0], *keys[2:]] if p == 0 else type(game).infoset_keys(game, p)
    with pytest.raises(SolverkitError, match="names two information sets 'Qs||'"):
        export_json(game, _uniform(game))
