"""The Python API: load_game, solve (dict, TOML path, keyword overrides) -> Solution read by
information-set key, and exploitability of policies a user builds."""

import numpy as np
import pytest

import solverkit
from solverkit.errors import ConfigError, SolverkitError


@pytest.fixture(scope="module")
def kuhn():
    return solverkit.solve({"preset": "cfr_plus", "game": "kuhn_tree"}, iterations=300)


def test_solution_reads_like_the_result_and_by_key(kuhn):
    assert kuhn.iterations == 300 and kuhn.exploitability == pytest.approx((kuhn.br[0] + kuhn.br[1]) / 2)
    table = kuhn.policy_table
    assert len(table) == 12 and set(kuhn.policy("As||c")) == {"c", "r"}
    assert kuhn.policy("As||c") == table["As||c"]
    assert sum(kuhn.policy("Qs||r").values()) == pytest.approx(1.0)
    with pytest.raises(SolverkitError, match=r"no information set 'K\|\|c' in game 'kuhn_tree'; close matches: 'Ks\|\|c'"):
        kuhn.policy("K||c")


def test_exploitability_of_dicts_and_arrays_agrees_with_the_solver(kuhn):
    game = solverkit.load_game("kuhn_tree")
    assert solverkit.exploitability(game, kuhn.policy_table) == pytest.approx(kuhn.exploitability, abs=1e-15)
    assert solverkit.exploitability("kuhn_tree", kuhn.strategy) == pytest.approx(kuhn.exploitability, abs=1e-15)
    as_lists = {k: [v["c"], v["r"]] if "r" in v else [v["f"], v["c"]] for k, v in kuhn.policy_table.items()}
    assert solverkit.exploitability(game, as_lists) == pytest.approx(kuhn.exploitability, abs=1e-15)


def test_poker_engine_policies_work_the_same_way():
    sol = solverkit.solve({"game": {"name": "kuhn", "isomorphism": False}}, iterations=300, preset="cfr_plus")
    assert solverkit.exploitability(sol.game, sol.policy_table) == pytest.approx(sol.exploitability, abs=1e-14)
    assert set(sol.policy("As||")) == {"c", "r"}


@pytest.mark.parametrize("change, message", [
    (lambda p: p.pop("Qs||"), "no probabilities for 1 information set(s) of player 0, first 'Qs||'"),
    (lambda p: p.update({"nope": {"c": 1.0}}), "policy key 'nope' is not an information set of game 'kuhn_tree'"),
    (lambda p: p.update({"Qs||": {"c": 0.5, "r": 0.6}}), "information set 'Qs||': probabilities [0.5, 0.6] must"),
    (lambda p: p.update({"Qs||": {"c": 0.5, "x": 0.5}}), "action 'x' is not legal; valid: c, r"),
    (lambda p: p.update({"Qs||": [1.0]}), "1 probabilities for 2 actions (c, r)"),
])
def test_bad_user_policies_are_named(kuhn, change, message):
    pol = dict(kuhn.policy_table)
    change(pol)
    with pytest.raises(ConfigError) as err:
        solverkit.exploitability("kuhn_tree", pol)
    assert message in str(err.value)


def test_flat_arrays_of_the_wrong_size_are_refused(kuhn):
    with pytest.raises(ConfigError, match="policy of player 0 has 3 values; game 'kuhn_tree' lays out 12"):
        solverkit.exploitability("kuhn_tree", [np.ones(3), kuhn.strategy[1]])


def test_solve_a_toml_path_with_keyword_overrides(tmp_path):
    cfg = tmp_path / "k.toml"
    cfg.write_text('preset = "cfr_plus"\n[game]\nname = "kuhn_tree"\n[solver]\niterations = 7\n')
    a = solverkit.solve(cfg)
    b = solverkit.solve(str(cfg), preset="cfr", solver={"iterations": 9, "update": "simultaneous"})
    assert (a.iterations, b.iterations) == (7, 9)
    assert a.exploitability != b.exploitability
    with pytest.raises(ConfigError, match="unknown game 'nope'"):
        solverkit.solve(cfg, game={"name": "nope"})


def test_load_game_checks_parameters():
    with pytest.raises(ConfigError, match="max_nodes"):
        solverkit.load_game("kuhn_tree", max_nodes=0)
    assert solverkit.load_game("leduc_tree").layout(0).num_infosets == 468
