"""The disk cache of enumerated trees (solverkit/efg/tree_cache.py): an OpenSpiel game read back
from the cache is the tree enumeration makes, field by field; a damaged file is enumerated again;
games that give no key are never cached."""

import numpy as np
import pytest

from solverkit.api import load_game
from solverkit.efg import tree_cache


def _same(a, b):
    for name in ("node", "prob", "util", "infoset"):
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
    from solverkit.efg import TreeGame
    from solverkit_efg.games import KuhnTree

    class Described(KuhnTree):  # a plugin's Python description: no key (it may change between runs)
        tree_cache_key = TreeGame.tree_cache_key

    monkeypatch.setenv("SOLVERKIT_CACHE_DIR", str(tmp_path))
    Described()
    assert not (tmp_path / "trees").exists()
    monkeypatch.setenv("SOLVERKIT_CACHE_DIR", "off")
    assert tree_cache.cache_dir() is None


@pytest.mark.parametrize("name, players", [("kuhn_tree", 2), ("kuhn_tree", 3), ("leduc_tree", 2)])
def test_the_bundled_limit_trees_are_cached_under_their_rules_and_code(tmp_path, monkeypatch, name, players):
    """3-player Leduc took ~30 s to enumerate at every start: the bundled limit trees now have a key
    (rules, players and a digest of the code that writes them)."""
    import solverkit_efg.games as games

    monkeypatch.setenv("SOLVERKIT_CACHE_DIR", str(tmp_path))
    first = load_game(name, players=players)
    assert len(list((tmp_path / "trees").glob("*.npz"))) == 1
    assert load_game("kuhn_tree", players=4).tree_cache_key() != first.tree_cache_key()
    key = first.tree_cache_key()
    with monkeypatch.context() as m:
        m.setattr(games, "_code_digest", lambda cls: "edited")  # an edit of the code: a new key
        assert load_game(name, players=players).tree_cache_key() != key
    calls = []
    monkeypatch.setattr(tree_cache, "enumerate_tree", lambda *a: calls.append(a))
    again = load_game(name, players=players)
    assert not calls  # read back, not walked
    _same(first.tree, again.tree)
