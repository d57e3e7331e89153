"""Bad input to the Python API raises solverkit's own errors (subclasses of SolverkitError) that
name the bad value, never a bare TypeError, KeyError or ValueError, and never a silent cast
(issue 26, item 14: the API's error classes; item 15: complex policies)."""

from __future__ import annotations

import numpy as np
import pytest

import solverkit
from solverkit.errors import ConfigError, SolverkitError

CFR = {"game": "kuhn_tree", "preset": "cfr"}


@pytest.fixture(scope="module")
def kuhn():
    return solverkit.solve({"game": "kuhn_tree", "preset": "cfr_plus"}, iterations=20)


@pytest.mark.parametrize("call, names", [
    (lambda: solverkit.solve(5), ["config=5", "TOML path"]),
    (lambda: solverkit.solve(None), ["config=None"]),
    (lambda: solverkit.solve([1, 2]), ["config=[1, 2]"]),
    # a table key that is no string was an AttributeError ('NoneType' ... 'startswith')
    (lambda: solverkit.solve({**CFR, "solver": {None: 1}}, iterations=2), ["[solver] key None", "strings"]),
    (lambda: solverkit.solve({"game": {"name": "kuhn_tree", 5: 1}, "preset": "cfr"}), ["[game] key 5"]),
    # a Solution has a .game, so it was taken for an Assembly: AttributeError 'Result' ... 'solver'
    (lambda: solverkit.solve(solverkit.solve(CFR, iterations=2)), ["config=Solution(game='kuhn_tree'", "an Assembly"]),
    (lambda: solverkit.solve(CFR, game={"name": None}), ["game.name=None", "TOML value"]),
    (lambda: solverkit.solve(CFR, solver={"iterations": {1, 2}}), ["solver.iterations", "TOML value"]),
    (lambda: solverkit.solve(CFR, iterations=2, out=5), ["out", "5"]),
    (lambda: solverkit.solve(CFR, iterations=2, out="a\x00b"), ["out", "NUL"]),
    (lambda: solverkit.solve({"game": {"name": "matrix_file", "path": "~nosuchuser9/m.npy"}, "preset": "cfr"}),
     ["~nosuchuser9", "full path"]),
    (lambda: solverkit.exploitability(5, {}), ["game=5"]),
    (lambda: solverkit.read_policy(5, "x"), ["read_policy(run_dir)", "5"]),
    (lambda: solverkit.read_policy("/nonexistent", 5), ["key 5", "string"]),
])
def test_bad_arguments_raise_solverkit_errors_naming_them(call, names):
    with pytest.raises(SolverkitError) as err:
        call()
    assert "\n" not in str(err.value)
    for name in names:
        assert name in str(err.value), (name, str(err.value))


@pytest.mark.parametrize("key, player, names", [
    (5, None, ["key 5"]), ([], None, ["key []"]), ("Qs||", 7, ["player = 7"]), ("Qs||", True, ["player = True"]),
])
def test_bad_policy_queries_raise_config_errors(kuhn, key, player, names):
    with pytest.raises(ConfigError) as err:
        kuhn.policy(key, player)
    for name in names:
        assert name in str(err.value)


@pytest.mark.parametrize("value, what", [
    ({"c": 0.5 + 1e-3j, "r": 0.5}, "complex"),
    ({"c": 0.5 + 0j, "r": 0.5}, "complex"),  # even with no imaginary part: the type is wrong
    ([0.5 + 0.5j, 0.5], "complex"),
    (np.array([0.5 + 0j, 0.5]), "complex"),
    ({"c": "0.5", "r": 0.5}, "strings"),
    (["a", "b"], "strings"),
    ({"c": True, "r": False}, "booleans"),
    ([[0.5], [0.5, 1.0]], "flat list"),
    ([[0.5, 0.5]], "nested"),
    ({"c": None, "r": 1.0}, "None"),
    ({0: 0.5, 1: 0.5}, "not legal"),  # kuhn_tree's actions are labelled c and r, not numbered
])
def test_user_policies_of_other_types_are_refused_not_cast(kuhn, value, what):
    pol = dict(kuhn.policy_table)
    pol["Qs||"] = value
    with pytest.raises(ConfigError) as err:
        solverkit.exploitability(kuhn.game, pol)
    assert "'Qs||'" in str(err.value) and what in str(err.value), str(err.value)


def test_flat_complex_arrays_are_refused(kuhn):
    game = kuhn.game
    flat = [np.full(game.layout(0).size, 0.5 + 0j), np.full(game.layout(1).size, 0.5)]
    with pytest.raises(ConfigError, match="policy of player 0 .* complex"):
        solverkit.exploitability(game, flat)


def test_openspiel_action_ids_are_accepted_as_int_or_str():
    pytest.importorskip("pyspiel")
    game = solverkit.load_game("openspiel", game="kuhn_poker")
    uniform = {k: [0.5, 0.5] for p in (0, 1) for k in game.infoset_keys(p)}
    by_id = {k: {0: 0.5, 1: 0.5} for k in uniform}
    by_text = {k: {"0": 0.5, "1": 0.5} for k in uniform}
    expected = solverkit.exploitability(game, uniform)
    assert solverkit.exploitability(game, by_id) == expected
    assert solverkit.exploitability(game, by_text) == expected


def test_numpy_numbers_are_taken_as_the_numbers_they_hold():
    sol = solverkit.solve({**CFR, "solver": {"iterations": np.int64(3), "eval_current": np.bool_(True)},
                           "store": {"regret_scale": np.array([1e6])}})
    assert sol.iterations == 3
    assert solverkit.solve(CFR, solver={"iterations": np.int32(4)}).iterations == 4
    assert solverkit.load_game("random_matrix", rows=np.int32(3), cols=np.uint8(2)).matrix.shape == (3, 2)


@pytest.mark.parametrize("source, overrides, names", [
    (5, (), ["got int 5"]), (None, (), ["got NoneType"]), ({"game": "kuhn"}, 5, ["overrides = 5"]),
    ({"game": "kuhn"}, "solver.iterations=3", ["overrides = 'solver.iterations=3'"]), ({"game": "kuhn"}, [5], ["[5]"]),
])
def test_load_config_refuses_sources_and_overrides_of_other_types(source, overrides, names):
    from solverkit.core.config import load_config

    with pytest.raises(ConfigError) as err:
        load_config(source, overrides)
    for name in names:
        assert name in str(err.value)


def test_an_output_directory_that_cannot_be_made_is_a_config_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ConfigError, match="cannot make the directory"):
        solverkit.solve(CFR, iterations=2, out=blocker / "run")
    assert blocker.read_text() == "x"


def test_empty_paths_are_refused_not_taken_as_the_working_directory(tmp_path, monkeypatch):
    """solve(out='') wrote config.toml, metrics.csv, result.json, strategy.npz into the working
    directory (Path('') is '.'); solve('') read '.' ('config file not found: .'); a directory as
    the config was 'not found' (issue 26 round 2)."""
    monkeypatch.chdir(tmp_path)
    for out in ("", "  "):
        with pytest.raises(ConfigError, match=r"solve\(\.\.\., out='\s*'\) is empty"):
            solverkit.solve(CFR, iterations=2, out=out)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ConfigError, match=r"config file '' is empty"):
        solverkit.solve("", iterations=2)
    for not_a_file in (str(tmp_path), "/dev/null"):
        with pytest.raises(ConfigError, match=r"config file .* is not a regular file; expected a TOML file"):
            solverkit.solve(not_a_file, iterations=2)
    with pytest.raises(ConfigError, match="NUL"):
        solverkit.solve("a\x00b.toml", iterations=2)


def test_a_refused_solve_leaves_no_output_folders_it_made(tmp_path):
    """solve(..., iterations=0, out='new/a/b') was refused after it had made new/a/b (issue 26
    round 2); folders that were there stay."""
    (tmp_path / "old").mkdir()
    with pytest.raises(ConfigError, match=r"iterations = 0"):
        solverkit.solve(CFR, iterations=0, out=tmp_path / "old" / "new" / "run")
    assert [p.name for p in tmp_path.iterdir()] == ["old"] and list((tmp_path / "old").iterdir()) == []
    solverkit.solve(CFR, iterations=2, out=tmp_path / "old" / "new" / "run")
    assert (tmp_path / "old" / "new" / "run" / "result.json").is_file()


def test_a_plugin_section_override_may_be_its_name_as_in_a_config():
    """solve(cfg, game="leduc_tree") was "--set key 'game' is not SECTION.PARAM" (a config's
    game = "leduc_tree" is its name); solver=[1] is named as the API's argument (issue 26 round 2)."""
    assert solverkit.solve(CFR, iterations=2, game="leduc_tree").game.name == "leduc_tree"
    with pytest.raises(ConfigError, match=r"solve\(\.\.\., solver=\[1\]\) is invalid: expected a dict of \[solver\]"):
        solverkit.solve(CFR, iterations=2, solver=[1])
    with pytest.raises(ConfigError, match=r"solve\(\.\.\., game=5\) is invalid: .* or a plugin name"):
        solverkit.solve(CFR, iterations=2, game=5)


def test_a_boolean_for_an_integer_is_not_called_out_of_range():
    """iterations=True said '(integers must lie in -9223372036854775808..9223372036854775807, 64
    bits)', as if True were too large (issue 26 round 2)."""
    with pytest.raises(ConfigError) as err:
        solverkit.solve(CFR, iterations=True)
    assert str(err.value) == "[solver] iterations = True is invalid: expected an integer >= 1"


def test_load_game_named_twice_is_a_config_error():
    import solverkit

    with pytest.raises(ConfigError, match="named once"):
        solverkit.load_game("kuhn_tree", name="x")
