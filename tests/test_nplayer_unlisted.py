"""N-player games the issue does not list, as a user runs them: ``solverkit solve`` a TOML config,
``export --format openspiel`` and ``match``, checked against OpenSpiel (pyspiel.nash_conv of the
exported file; expected_game_score over every seating); and the refusals of what an N-player
game cannot take (bench/results/nplayer_vs_openspiel_unlisted.md measures the rest)."""

from __future__ import annotations

import itertools
import json
import re

import pytest
from click.testing import CliRunner

from solverkit.cli import cli
from solverkit.core.config import load_config
from solverkit.errors import ConfigError

pyspiel = pytest.importorskip("pyspiel")

#: one betting round of no-limit, 3 players, 4 cards: a few thousand nodes
NOLIMIT3 = {"numRounds": 1, "stack": "6 6 6", "blind": "1 2 0", "firstPlayer": "3", "numSuits": 1, "numRanks": 4,
            "numHoleCards": 1, "numBoardCards": "0"}


def _invoke(*args) -> str:
    res = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res.output


def _nolimit_file(tmp_path):
    path = tmp_path / "nl3.game"
    path.write_text("\n".join(["GAMEDEF", "nolimit", "numPlayers = 3", *(f"{k} = {v}" for k, v in NOLIMIT3.items()),
                               "END GAMEDEF"]) + "\n")
    return path


def _solve_and_export(tmp_path, game_lines: str, iterations: int, preset: str = "cfr_plus"):
    """`solverkit solve CONFIG` then `solverkit export RUN --format openspiel`: (result.json's
    NashConv, the exported table with int actions)."""
    config = tmp_path / "config.toml"
    config.write_text(f'preset = "{preset}"\n\n[game]\n{game_lines}\n[solver]\niterations = {iterations}\n')
    run, out = tmp_path / "run", tmp_path / "policy.json"
    _invoke("solve", config, "--out", run, "--quiet")
    _invoke("export", run, "--format", "openspiel", "-o", out)
    table = {k: {int(a): p for a, p in v.items()} for k, v in json.loads(out.read_text()).items()}
    return json.loads((run / "result.json").read_text())["nash_conv"], table


def _policy(table):
    return pyspiel.TabularPolicy({k: list(v.items()) for k, v in table.items()})


@pytest.mark.parametrize("game_lines, os_game", [
    ('name = "kuhn"\nplayers = 5\n', "kuhn_poker(players=5)"),
    ('name = "openspiel"\ngame = "goofspiel(players=3,num_cards=3)"\n', "goofspiel(players=3,num_cards=3)"),
], ids=["kuhn5", "goofspiel3"])
def test_an_exported_policy_has_the_runs_nash_conv_in_openspiel(tmp_path, game_lines, os_game):
    nash_conv, table = _solve_and_export(tmp_path, game_lines, 12, preset="cfr")
    game = pyspiel.load_game(os_game)
    if game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
        game = pyspiel.convert_to_turn_based(game)
    assert nash_conv > 1e-4
    assert pyspiel.nash_conv(game, _policy(table)) == pytest.approx(nash_conv, rel=1e-9)


def test_a_three_player_no_limit_file_exports_to_universal_poker(tmp_path):
    path = _nolimit_file(tmp_path)
    nash_conv, table = _solve_and_export(tmp_path, f'name = "acpc"\ngamedef = "{path}"\nabstraction = "fcpa"\n', 10)
    game = pyspiel.load_game("universal_poker", {"betting": "nolimit", "numPlayers": 3, "bettingAbstraction": "fcpa",
                                                 **NOLIMIT3})
    assert nash_conv > 1e-4
    assert pyspiel.nash_conv(game, _policy(table)) == pytest.approx(nash_conv, rel=1e-9)


def test_a_three_player_match_is_openspiels_value_over_every_seating(tmp_path):
    """`match RUN RUN random` on 3-player Kuhn: each player's exact chips per game is the mean over
    the 3! seatings of OpenSpiel's expected_game_score with the exported policy in two seats."""
    from open_spiel.python import policy as os_policy
    from open_spiel.python.algorithms.expected_game_score import policy_value

    _, table = _solve_and_export(tmp_path, 'name = "kuhn"\nplayers = 3\n', 7)
    out = _invoke("match", tmp_path / "run", tmp_path / "run", "random")
    got = [float(x) for x in re.findall(r"[ABC] ([+-][0-9.]+)", out.splitlines()[-1])]
    game = pyspiel.load_game("kuhn_poker(players=3)")
    solved = os_policy.TabularPolicy(game)
    for key, probs in table.items():
        row = solved.state_lookup[key]
        for a, p in probs.items():
            solved.action_probability_array[row, a] = p
    seat = {"A": solved, "B": solved, "C": os_policy.UniformRandomPolicy(game)}
    want = dict.fromkeys("ABC", 0.0)
    for perm in itertools.permutations("ABC"):
        values = policy_value(game.new_initial_state(), [seat[x] for x in perm])
        for p, who in enumerate(perm):
            want[who] += values[p] / 6
    assert len(got) == 3 and abs(want["C"]) > 0.01
    assert got == pytest.approx([want[x] for x in "ABC"], abs=1e-5)  # printed to 5 decimals


@pytest.mark.parametrize("table", [
    {"name": "kuhn", "players": 3, "parallel_deals": True},
    {"name": "leduc", "players": 4, "parallel_deals": True},
    {"name": "acpc", "gamedef": "kuhn.limit.3p", "parallel_deals": True},
], ids=["kuhn3", "leduc4", "acpc3"])
def test_the_poker_engines_parallel_deals_is_refused_for_n_players(table):
    """The tree engine has no parallel deals: asked for, it is refused (before building), not run on
    one thread in silence; its default is accepted."""
    with pytest.raises(ConfigError, match="parallel_deals = True is invalid for .* with [34] players.*remove "
                                          "parallel_deals"):
        load_config({"preset": "cfr", "game": table})
    if table["name"] != "leduc":
        assert load_config({"preset": "cfr", "game": {**table, "parallel_deals": False}}).game.num_players >= 3


def test_the_abstractions_a_refusal_names_are_accepted(tmp_path):
    """The refusal of bet-size lists for an N-player no-limit file names the abstractions it takes:
    each of them loads."""
    path = str(_nolimit_file(tmp_path))
    with pytest.raises(ConfigError) as err:
        load_config({"preset": "cfr", "game": {"name": "acpc", "gamedef": path, "abstraction": "sizes"}})
    named = re.findall(r'"(\w+)"', str(err.value).split("take abstraction = ", 1)[1])
    assert named
    for kind in named:
        assert load_config({"preset": "cfr", "game": {"name": "acpc", "gamedef": path,
                                                      "abstraction": kind}}).game.num_players == 3
