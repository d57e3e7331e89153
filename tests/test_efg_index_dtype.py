"""The tree engine's index arrays (node table, information sets, best-response order)
are int32 where their values fit (solverkit/efg/build.py: narrow), half of int64's bytes. The
oracle is the same solve over int64 arrays (index_dtype forced to int64): strategy files byte
for byte and exploitability equal; a cache file of int64 arrays reads back as int32."""

import numpy as np
import pytest

from solverkit import api
from solverkit.efg import build, tree_cache


def _index_arrays(tree):
    return [tree.node, tree.infoset, *(a for pair in tree.br_order for a in pair)]


def test_index_arrays_are_int32_below_2_to_31_and_int64_above(tmp_path, monkeypatch):
    monkeypatch.setenv("SOLVERKIT_CACHE_DIR", str(tmp_path))  # the session's cache keeps no Leduc tree
    tree = api.load_game("leduc_tree").tree
    assert {a.dtype for a in _index_arrays(tree)} == {np.dtype(np.int32)}
    assert build.index_dtype(tree.num_nodes, 2**31 - 2) is np.int32
    assert build.index_dtype(10, 2**31 - 1) is np.int64
    assert build.narrow(tree) is tree  # already narrow: not copied


def _solve(out, game, preset, update):
    s = api.solve({"game": game, "preset": preset, "solver": {"update": update}}, iterations=30, out=str(out))
    return (out / "strategy.npz").read_bytes(), s.result.exploitability


@pytest.mark.parametrize("game,preset,update", [("leduc_tree", "cfr_plus", "alternating"),
                                                ("leduc_tree", "dcfr", "simultaneous"),
                                                ({"name": "kuhn_tree", "players": 3}, "cfr_plus", "alternating")])
def test_int32_and_int64_index_arrays_solve_alike(tmp_path, monkeypatch, game, preset, update):
    monkeypatch.setenv("SOLVERKIT_CACHE_DIR", str(tmp_path / "cache"))
    narrow = _solve(tmp_path / "a", game, preset, update)
    monkeypatch.setattr(build, "index_dtype", lambda *largest: np.int64)
    name = game if isinstance(game, str) else game["name"]
    params = {} if isinstance(game, str) else {"players": game["players"]}
    assert {a.dtype for a in _index_arrays(api.load_game(name, **params).tree)} == {np.dtype(np.int64)}
    assert _solve(tmp_path / "b", game, preset, update) == narrow


def test_a_cache_file_of_int64_arrays_reads_back_as_int32(tmp_path, monkeypatch):
    monkeypatch.setenv("SOLVERKIT_CACHE_DIR", str(tmp_path))
    with monkeypatch.context() as m:
        m.setattr(build, "index_dtype", lambda *largest: np.int64)
        wide = api.load_game("kuhn_tree").tree  # enumerated and saved with int64 arrays
    (path,) = (tmp_path / "trees").glob("*.npz")
    with np.load(path) as f:
        assert f["node"].dtype == np.int64
    calls = []
    monkeypatch.setattr(tree_cache, "enumerate_tree", lambda *a: calls.append(a))
    tree = api.load_game("kuhn_tree").tree
    assert not calls  # read from the file, not walked again
    assert {a.dtype for a in _index_arrays(tree)} == {np.dtype(np.int32)}
    for a, b in zip(_index_arrays(tree), _index_arrays(wide)):
        np.testing.assert_array_equal(a, b)
