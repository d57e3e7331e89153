"""The OpenSpiel bridge: solverkit's exploitability of a solved strategy equals OpenSpiel's own
exploitability of the exported policy; refusals; the same numbers as the poker engine."""

import json
import sys

import numpy as np
import pytest
from click.testing import CliRunner

from solverkit.cli import cli
from solverkit.core.config import load_config
from solverkit.core.solver import Solver
from solverkit.errors import ConfigError

pyspiel = pytest.importorskip("pyspiel")
from open_spiel.python import policy as os_policy  # noqa: E402
from open_spiel.python.algorithms import exploitability as os_exploitability  # noqa: E402

GAMES = ["kuhn_poker", "leduc_poker", "liars_dice(dice_sides=3)", "matrix_brps", "goofspiel(num_cards=3)"]


def _solve(spec, iterations, preset="cfr_plus"):
    a = load_config({"game": {"name": "openspiel", "game": spec}, "preset": preset})
    s = Solver(a)
    for _ in range(iterations):
        s.step()
    return a.game, s


def _tabular(os_game, table):
    pol = os_policy.TabularPolicy(os_game)
    for key, probs in table.items():
        row = pol.state_lookup[key]
        pol.action_probability_array[row] = 0.0
        for a, p in probs.items():
            pol.action_probability_array[row, int(a)] = p
    return pol


@pytest.mark.parametrize("spec", GAMES)
def test_exploitability_equals_openspiel(spec):
    game, s = _solve(spec, 15)
    row = s.evaluate(exact=True)
    assert row["exploitability"] > 1e-9  # a strategy with something to exploit
    theirs = os_exploitability.exploitability(game.os_game, _tabular(game.os_game, game.openspiel_table(s.strategy())))
    assert row["exploitability"] == pytest.approx(theirs, abs=1e-9)
    # the current (last-iterate) policy too, through the store path
    br = game.best_response_from_store(s.store, "current")
    theirs = os_exploitability.exploitability(game.os_game,
                                              _tabular(game.os_game, game.openspiel_table(s.strategy("current"))))
    assert (br[0] + br[1]) / 2 == pytest.approx(theirs, abs=1e-9)


def test_simultaneous_game_goes_through_the_turn_based_conversion():
    a = load_config({"game": {"name": "openspiel", "game": "matrix_brps"}, "preset": "cfr"})
    assert a.game.os_game.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert [a.game.layout(p).num_infosets for p in (0, 1)] == [1, 1]


@pytest.mark.parametrize("spec, poker", [("kuhn_poker", "kuhn"), ("leduc_poker", "leduc")])
def test_same_numbers_as_the_poker_engine(spec, poker):
    _, ours = _solve(spec, 20)
    a = load_config({"game": {"name": poker, "isomorphism": False}, "preset": "cfr_plus"})
    ps = Solver(a)
    for _ in range(20):
        ps.step()
    for col in ("exploitability", "br_0", "br_1"):
        assert ours.evaluate(exact=True)[col] == pytest.approx(ps.evaluate(exact=True)[col], abs=1e-12)


def test_cli_export_openspiel_round_trips(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text('preset = "cfr_plus"\n[game]\nname = "openspiel"\ngame = "liars_dice(dice_sides=3)"\n'
                   "[solver]\niterations = 10\n")
    out = tmp_path / "run"
    r = CliRunner().invoke(cli, ["solve", str(cfg), "--out", str(out)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(cli, ["export", str(out), "--format", "openspiel", "-o", str(tmp_path / "p.json")])
    assert r.exit_code == 0, r.output
    table = json.loads((tmp_path / "p.json").read_text())
    os_game = pyspiel.load_game("liars_dice(dice_sides=3)")
    theirs = os_exploitability.exploitability(os_game, _tabular(os_game, table))
    result = json.loads((out / "result.json").read_text())
    assert result["exploitability"] == pytest.approx(theirs, abs=1e-9)
    # json export shows OpenSpiel's information-state strings
    r = CliRunner().invoke(cli, ["export", str(out)])
    players = json.loads(r.output)["players"]
    assert set(players[0]) | set(players[1]) == set(table)


def _export_solved(tmp_path, game, iterations):
    """`solverkit export --format openspiel` of a run of `game` solved from the command line."""
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'preset = "cfr_plus"\n[game]\nname = "{game}"\n[solver]\niterations = {iterations}\n')
    out = tmp_path / "run"
    assert CliRunner().invoke(cli, ["solve", str(cfg), "--out", str(out)]).exit_code == 0
    return CliRunner().invoke(cli, ["export", str(out), "--format", "openspiel"])


def test_poker_export_still_works(tmp_path):
    r = _export_solved(tmp_path, "kuhn", 10)
    assert r.exit_code == 0, r.output
    assert len(json.loads(r.output)) == 12


def test_export_of_a_game_without_openspiel_counterpart_is_refused(tmp_path):
    r = _export_solved(tmp_path, "skewed_pennies", 3)
    assert r.exit_code == 2 and "game 'skewed_pennies' has no OpenSpiel counterpart" in r.output
    # the choices it names are the ones export takes (it listed hulhe, rhode_island ... which it refuses)
    assert ("supports: kuhn, leduc (and acpc with those game definitions), kuhn_tree, leduc_tree, openspiel"
            in r.output)
    assert "hulhe" not in r.output and "rhode_island" not in r.output


@pytest.mark.parametrize("spec, message", [
    ("matrix_pd", "has utility GENERAL_SUM; the engine solves zero-sum games"),
    ("kuhn_poker(players=7)", "has 7 players; the engine solves games of 2 to 6 players"),
    ("no_such_game", "OpenSpiel cannot load it"),
])
def test_unsolvable_games_are_refused(spec, message):
    with pytest.raises(ConfigError, match=f"^\\[game\\] game = '{spec.replace('(', '.').replace(')', '.')}'") as e:
        load_config({"game": {"name": "openspiel", "game": spec}, "preset": "cfr_plus"})
    assert message in str(e.value)


def test_missing_openspiel_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # import pyspiel now raises ImportError
    with pytest.raises(ConfigError, match=r"pip install open-spiel \(or pip install 'solverkit\[openspiel\]'\)"):
        load_config({"game": {"name": "openspiel", "game": "kuhn_poker"}, "preset": "cfr_plus"})


def test_strategy_arrays_follow_openspiel_action_ids():
    game, s = _solve("kuhn_poker", 5)
    table = game.openspiel_table(s.strategy())
    assert all(sorted(probs) == [0, 1] for probs in table.values())
    assert all(abs(sum(probs.values()) - 1.0) < 1e-12 for probs in table.values())
    assert np.isclose(game.tree.num_nodes, 58)
