"""The disk cache of enumerated trees (solverkit/efg/tree_cache.py): an OpenSpiel game read back
from the cache is the tree enumeration makes, field by field; a damaged file is enumerated again;
games that give no key are never cached."""

import numpy as np
import pytest

from solverkit.api import load_game
from solverkit.efg import tree_cache


def _same(a, b):
    for name in ("node", "prob", "util", "infoset", "level"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert (a.utils is None) == (b.utils is None)
    for p in range(a.num_players):
        for f in ("block_start", "block_count", "block_actions"):
            np.testing.assert_array_equal(getattr(a.layouts[p], f), getattr(b.layouts[p], f))
        np.testing.assert_array_equal(a.offsets[p], b.offsets[p])
        np.testing.assert_array_equal(a.br_order[p][0], b.br_order[p][0])
        np.testing.assert_array_equal(a.br_order[p][1], b.br_order[p][1])
        assert list(a.keys[p]) == list(b.keys[p])
        assert [list(x) for x in a.actions[p]] == [list(x) for x in b.actions[p]]


@pytest.mark.parametrize("spec", ["kuhn_poker", "kuhn_poker(players=3)"])
def test_a_cached_openspiel_tree_is_the_enumerated_one(tmp_path, monkeypatch, spec):
    pytest.importorskip("pyspiel")
    monkeypatch.setenv("SOLVERKIT_CACHE_DIR", str(tmp_path))
    first = load_game("openspiel", game=spec)
    files = list((tmp_path / "trees").glob("*.npz"))
    assert len(files) == 1
    calls = []
    monkeypatch.setattr(tree_cache, "enumerate_tree", lambda *a: calls.append(a))
    again = load_game("openspiel", game=spec)
    assert not calls  # read back, not walked
    _same(first.tree, again.tree)
    uniform = [np.ones(lay.size) for lay in first.tree.layouts]
    assert again.best_response(uniform) == first.best_response(uniform)


def test_a_damaged_cache_file_is_enumerated_again(tmp_path, monkeypatch):
    pytest.importorskip("pyspiel")
    monkeypatch.setenv("SOLVERKIT_CACHE_DIR", str(tmp_path))
    first = load_game("openspiel", game="kuhn_poker")
    (path,) = (tmp_path / "trees").glob("*.npz")
    path.write_bytes(b"not a tree")
    again = load_game("openspiel", game="kuhn_poker")
    _same(first.tree, again.tree)
    assert path.stat().st_size > 100  # written again


def test_games_without_a_key_and_a_cache_turned_off_are_not_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("SOLVERKIT_CACHE_DIR", str(tmp_path))
    load_game("kuhn_tree")
    assert not (tmp_path / "trees").exists()
    monkeypatch.setenv("SOLVERKIT_CACHE_DIR", "off")
    assert tree_cache.cache_dir() is None
