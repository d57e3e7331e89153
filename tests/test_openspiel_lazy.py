"""An OpenSpiel game whose enumerated tree is in the disk cache is solved without importing
pyspiel (issue 30: its import adds 15 MB to a solve process); the cache key follows the installed
OpenSpiel version; a bad game string still fails in one line before anything is built."""

import importlib.metadata
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from solverkit.api import load_game
from solverkit.efg import tree_cache
from solverkit.errors import ConfigError

pytest.importorskip("pyspiel")

CHILD = r"""
import json, sys
import numpy as np
from solverkit.api import load_game
g = load_game("openspiel", game=sys.argv[1])
value = sum(g.best_response([np.ones(lay.size) for lay in g.tree.layouts]))
before = "pyspiel" in sys.modules
table = g.openspiel_table([np.ones(lay.size) for lay in g.tree.layouts])  # from the tree: no pyspiel either
after_table = "pyspiel" in sys.modules
rows = len(g.openspiel_policy([np.ones(lay.size) for lay in g.tree.layouts]).action_probability_array)
print(json.dumps({"pyspiel": before, "after_table": after_table, "players": g.num_players,
                  "value": value, "table": len(table), "policy_rows": rows, "after_policy": "pyspiel" in sys.modules}))
"""


def _child(spec: str, cache) -> dict:
    env = {**os.environ, "SOLVERKIT_CACHE_DIR": str(cache)}
    out = subprocess.run([sys.executable, "-c", CHILD, spec], capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.splitlines()[-1])


@pytest.mark.parametrize("spec", ["kuhn_poker", "kuhn_poker(players=3)"])
def test_a_cache_hit_does_not_import_pyspiel(tmp_path, spec):
    miss = _child(spec, tmp_path)  # enumerates (imports pyspiel) and writes the cache
    assert miss["pyspiel"] and len(list((tmp_path / "trees").glob("*.npz"))) == 1
    hit = _child(spec, tmp_path)
    assert not hit["pyspiel"] and not hit["after_table"]
    assert hit["after_policy"]  # an OpenSpiel policy needs the pyspiel game: loaded then
    assert hit["players"] == miss["players"] == (3 if "players=3" in spec else 2)
    assert hit["value"] == miss["value"] and hit["table"] == miss["table"] == hit["policy_rows"]


def test_the_key_follows_the_openspiel_version(tmp_path, monkeypatch):
    from solverkit_openspiel import games

    monkeypatch.setenv("SOLVERKIT_CACHE_DIR", str(tmp_path))
    first = load_game("openspiel", game="kuhn_poker")
    key = first.tree_cache_key()
    assert importlib.metadata.version("open_spiel") in key
    real = importlib.metadata.version
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "0.0.test" if name == "open_spiel" else real(name))
    calls = []
    enumerate_tree = tree_cache.enumerate_tree
    monkeypatch.setattr(tree_cache, "enumerate_tree", lambda *a: calls.append(a) or enumerate_tree(*a))
    other = load_game("openspiel", game="kuhn_poker")
    assert other.tree_cache_key() != key and "0.0.test" in other.tree_cache_key()
    assert len(calls) == 1  # another version: enumerated again, not read back
    assert len(list((tmp_path / "trees").glob("*.npz"))) == 2
    monkeypatch.setattr(games, "openspiel_version", lambda: None)  # no version to read: never cached
    assert load_game("openspiel", game="kuhn_poker").tree_cache_key() is None
    np.testing.assert_array_equal(first.tree.node, other.tree.node)


def test_a_game_read_from_a_file_is_never_cached(tmp_path, monkeypatch):
    from solverkit_openspiel.games import OpenSpielGame

    game = OpenSpielGame.__new__(OpenSpielGame)  # the key alone: no file needs to exist
    game.spec = f"efg_game(filename={tmp_path / 'g.efg'})"
    assert game.tree_cache_key() is None


@pytest.mark.parametrize("cache", ["dir", "off"])
def test_a_bad_game_string_fails_in_one_line_before_anything_is_built(tmp_path, monkeypatch, cache):
    monkeypatch.setenv("SOLVERKIT_CACHE_DIR", str(tmp_path) if cache == "dir" else "off")
    with pytest.raises(ConfigError) as e:
        load_game("openspiel", game="liars_dic")
    text = str(e.value)
    assert "\n" not in text and text.startswith("[game] game = 'liars_dic'") and "close matches: liars_dice" in text
    assert not list(tmp_path.rglob("*.npz"))


def test_a_game_string_pyspiel_refuses_fails_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("SOLVERKIT_CACHE_DIR", str(tmp_path))
    with pytest.raises(ConfigError, match=r"^\[game\] game = 'liars_dice\(numdice=x\)': OpenSpiel cannot load it: "
                       r"Wrong type for parameter numdice") as e:
        load_game("openspiel", game="liars_dice(numdice=x)")
    assert "\n" not in str(e.value) and not list(tmp_path.rglob("*.npz"))
