"""Audit of real-time search's exact evaluation (solverkit/search) against oracles:

- the strategy `exploit RUN --search` evaluates is the one `load_player` (play, match) plays,
  and its printed exploitability is OpenSpiel's for that strategy (unsafe, resolve, reach,
  depth_limited nested or not);
- safe methods with the safety check are never more exploitable than their blueprint (several
  blueprints, per_card on and off);
- suit isomorphism is a representation: a re-solve gives the same strategy's exploitability
  with [game] isomorphism on or off. Max-margin and reach per card used to read the opponent's
  values at the subgame's root, where a canonical board's values are summed over its suit orbit:
  each hand's margin weighed by the boards it can see, hands differing by suit mixed (Leduc,
  100-iteration blueprint, 30 iterations per re-solve: 0.0429 against 0.0351 chips).
"""

import re

import numpy as np
import pytest
from click.testing import CliRunner

from solverkit.api import solve
from solverkit.cli import cli
from solverkit.core.config import load_config
from solverkit.core.solver import exploitability
from solverkit.core.strategy_file import load_strategy
from solverkit.poker.players import load_player
from solverkit.search.params import depth_limited_options
from solverkit.search.resolve import searched_strategy


@pytest.mark.parametrize("search", ['name = "resolve"', 'name = "reach"\nper_card = false',
                                    'name = "unsafe"', 'name = "depth_limited"\nround = 0\nnested = false',
                                    'name = "depth_limited"\nround = 0'])
def test_exploit_search_evaluates_what_the_player_plays_and_openspiel_agrees(tmp_path, search):
    pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import exploitability as os_exploitability

    from solverkit.poker.openspiel import openspiel_game, openspiel_policy

    cfg = tmp_path / "c.toml"
    cfg.write_text(f'preset = "cfr_plus"\n[game]\nname = "leduc"\n[search]\n{search}\niterations = 40\n')
    run = tmp_path / "run"
    r = CliRunner().invoke(cli, ["solve", str(cfg), "--iterations", "60", "--out", str(run), "--quiet"])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(cli, ["exploit", str(run), "--search"])
    assert r.exit_code == 0, r.output
    printed = float(re.search(r"^with search exploitability (\S+) chips", r.output, re.M).group(1))
    played = load_player(str(run)).strategy
    a = load_config(run / "config.toml")
    strategy, _, _ = load_strategy(run / "strategy.npz", a.game, str(run / "config.toml"))
    real, blueprint = a.game.real_policy(strategy)
    s = a.search
    searched, _ = searched_strategy(real, blueprint, s["name"], s["iterations"], s["round"], s["nested"],
                                    s["safety_check"], per_card=s["per_card"], **depth_limited_options(s))
    for p in (0, 1):
        np.testing.assert_array_equal(played[p], searched[p])
    theirs = os_exploitability.exploitability(openspiel_game(real), openspiel_policy(real, played))
    assert printed == pytest.approx(theirs, rel=1e-9)


@pytest.fixture(scope="module")
def blueprints(tmp_path_factory):
    """Leduc blueprints of 10, 100 and 300 CFR+ iterations (game, strategy)."""
    out = {}
    for it in (10, 100, 300):
        cfg = {"preset": "cfr_plus", "game": {"name": "leduc"}}
        game = load_config(cfg).game
        out[it] = game, solve(cfg, iterations=it, out=tmp_path_factory.mktemp(f"bp{it}")).strategy
    return out


@pytest.mark.parametrize("method", ["resolve", "maxmargin", "reach"])
def test_safe_methods_are_never_above_the_blueprint(blueprints, method):
    for it, (game, bp) in blueprints.items():
        before = exploitability(game, bp)[0]
        for per_card in (True, False):
            searched, _ = searched_strategy(game, bp, method, 40, 1, True, True, per_card=per_card)
            assert exploitability(game, searched)[0] <= before * (1 + 1e-12), (it, per_card)


#: three rounds, a card each on the second and third (nested re-solves, a board above the second cut)
THREE_ROUNDS = """GAMEDEF
limit
numPlayers = 2
numRounds = 3
blind = 1 1
raiseSize = 2 4 4
firstPlayer = 1 1 1
maxRaises = 2 2 2
numSuits = 2
numRanks = 4
numHoleCards = 1
numBoardCards = 0 1 1
END GAMEDEF
"""


@pytest.mark.parametrize("gamedef, start, method", [("leduc", 1, "maxmargin"), ("leduc", 1, "reach"),
                                                    ("leduc", 1, "resolve"), ("leduc", 1, "unsafe"),
                                                    ("three", 1, "maxmargin"),
                                                    pytest.param("three", 2, "maxmargin", marks=pytest.mark.slow),
                                                    pytest.param("three", 1, "reach", marks=pytest.mark.slow)])
def test_isomorphism_does_not_change_a_per_card_resolve(tmp_path, gamedef, start, method):
    if gamedef == "three":
        gamedef = tmp_path / "three.game"
        gamedef.write_text(THREE_ROUNDS)
    got = []
    for iso in (True, False):
        cfg = {"preset": "cfr_plus", "game": {"name": "acpc", "gamedef": str(gamedef), "isomorphism": iso}}
        game = load_config(cfg).game
        bp = solve(cfg, iterations=100 if gamedef == "leduc" else 30, out=tmp_path / f"iso{iso}").strategy
        searched, _ = searched_strategy(game, bp, method, 30, start, True, False, per_card=True)
        got.append(exploitability(game, searched)[0])
    assert got[0] == pytest.approx(got[1], rel=1e-9)


def test_a_one_round_game_names_what_it_can_search():
    from solverkit.errors import ConfigError

    game = load_config({"preset": "cfr_plus", "game": {"name": "kuhn"}}).game
    bp = [np.full(game.layout(p).size, 0.5) for p in (0, 1)]
    with pytest.raises(ConfigError, match=r"^\[search\] round = 1 is invalid for game 'kuhn': it has one betting "
                                          r"round.*depth_limited\" with round = 0"):
        searched_strategy(game, bp, "resolve", 10)
    searched, stats = searched_strategy(game, bp, "depth_limited", 10, 0)
    assert stats.resolved == {0: 1}
