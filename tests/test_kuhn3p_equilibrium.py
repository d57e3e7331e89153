"""The three-player Kuhn equilibrium family (solverkit.poker.kuhn3p_equilibrium) against OpenSpiel:
every member built from the formulas has NashConv 0 in kuhn_poker(players=3) (corners of each
sub-family, the ACPC server's scripts' members, random members), a step past each bound does not,
the seats' closed-form values equal a walk of OpenSpiel's game, the policy over solverkit's games
is the formulas', and the `kuhn3p_eq` table baseline plays a match with a solved strategy."""

from __future__ import annotations

import re

import numpy as np
import pytest
from click.testing import CliRunner

from solverkit.cli import cli
from solverkit.core.config import load_config
from solverkit.errors import ConfigError
from solverkit.poker.kuhn3p_equilibrium import Kuhn3pParams, decisions, equilibrium_policy, parse_spec, seat_values
from solverkit.poker.table import load_table_player, run_table_match
from .solved_runs import solved_kuhn3

pyspiel = pytest.importorskip("pyspiel")

GAME = pyspiel.load_game("kuhn_poker(players=3)")

#: members: the corners of each sub-family's region, the ACPC scripts' three, and inner points
MEMBERS = [
    "c11=0,b11=0,b21=0,b32=0.5", "c11=0,b11=0,b21=0.25,c33=0.75,b32=0", "c11=0,b11=0.25,b21=0.25,b32=0.9375,c34=0",
    "c11=0,b11=0.25,b21=0.25,b32=0.9375,c33=0,c34=1",                     # the ACPC script with c11 = 0
    "c11=0.33,b11=0.166667,b32=0.791667,c33=0,c34=0.75",                  # the ACPC script with 0 < c11 < 1/2
    "c11=0.5,b11=0.25,b21=0,b23=0.125,b32=0.75,c33=0,c34=0.75",           # the ACPC script with c11 = 1/2
    "c11=0.1,b11=0.25,b32=0.5", "c11=0.49,b11=0.1724137931,c33=0.2", "c11=0.4375,b11=0.25",
    "c11=0.5,b11=0.1666666667,b21=0.1666666667", "c11=0.5,b11=0.2,b21=0.1,b23=0.0555555556,b32=0.6,c33=0.1",
    "c11=0.5,b11=0,b21=0,b23=0,b32=0.5,c33=0", "c11=0.2,b11=0,c34=0",
]


def _pass_bet_to_acpc(history: str) -> str:
    """OpenSpiel's kuhn history (p pass, b bet) as an ACPC betting string: a pass after a bet is
    a fold, a bet after a bet a call."""
    out, bet = [], False
    for ch in history:
        out.append(("c" if bet else "r") if ch == "b" else ("f" if bet else "c"))
        bet = bet or ch == "b"
    return "".join(out)


def _tables(params: Kuhn3pParams, check: bool = True) -> dict:
    """The member's OpenSpiel policy (info-state string -> [(action, p)]) filled from the formulas."""
    table = decisions(params, check)
    out, stack = {}, [GAME.new_initial_state()]
    while stack:
        s = stack.pop()
        if s.is_terminal():
            continue
        if not s.is_chance_node():
            key = s.information_state_string()
            bet = table[_pass_bet_to_acpc(key[1:])][int(key[0])]
            out[key] = [(0, 1.0 - bet), (1, bet)]
        stack.extend(s.child(a) for a in s.legal_actions())
    return out


def _walk(state, tables) -> np.ndarray:
    """Every position's expected return when position p plays tables[p] (a plain recursion)."""
    if state.is_terminal():
        return np.array(state.returns())
    if state.is_chance_node():
        return sum(p * _walk(state.child(a), tables) for a, p in state.chance_outcomes())
    probs = dict(tables[state.current_player()][state.information_state_string()])
    return sum(probs[a] * _walk(state.child(a), tables) for a in state.legal_actions())


@pytest.mark.parametrize("member", MEMBERS)
def test_every_member_is_an_equilibrium_in_openspiel(member):
    params = parse_spec(f"kuhn3p_eq:{member}")
    table = _tables(params)
    assert abs(pyspiel.nash_conv(GAME, table)) < 1e-12
    values = _walk(GAME.new_initial_state(), [table] * 3)
    assert values == pytest.approx(seat_values(params), abs=1e-12)
    assert values[1] == pytest.approx(-1 / 48, abs=1e-12)  # the second seat's value is the family's constant


@pytest.mark.parametrize("member", [
    dict(c11=0.0, b11=0.2, b21=0.15, b23=0.0, b32=0.8, c33=0.0, c34=0.5),      # b21 < b11 where c11 = 0
    dict(c11=0.0, b11=0.1, b21=0.27, b23=0.0, b32=0.8, c33=0.0, c34=0.5),      # b21 > 1/4
    dict(c11=0.3, b11=0.1, b21=0.12, b23=0.0, b32=0.8, c33=0.0, c34=0.5),      # b21 != b11 inside
    dict(c11=0.3, b11=0.1, b21=0.1, b23=0.02, b32=0.8, c33=0.0, c34=0.5),      # b23 > 0 where c11 < 1/2
    dict(c11=0.48, b11=0.2, b21=0.2, b23=0.0, b32=0.6, c33=0.0, c34=0.5),      # b11 > (2 - 3 c11) / (1 + 4 c11)
    dict(c11=0.5, b11=0.2, b21=0.0, b23=0.11, b32=0.6, c33=0.0, c34=0.5),      # b23 > (b11 - b21) / (2 (1 - b21))
    dict(c11=0.5, b11=0.26, b21=0.0, b23=0.0, b32=0.6, c33=0.0, c34=0.5),      # b11 > 1/4
    dict(c11=0.2, b11=0.1, b21=0.1, b23=0.0, b32=0.3, c33=0.15, c34=0.5),      # b32 + c33 < 1/2
    dict(c11=0.2, b11=0.1, b21=0.1, b23=0.0, b32=0.7, c33=0.1, c34=0.5),       # b32 + c33 > U = 0.725
])
def test_a_step_past_each_bound_is_no_equilibrium(member):
    """The bounds are the region's, not a safe part of it: just outside, someone gains."""
    assert pyspiel.nash_conv(GAME, _tables(Kuhn3pParams(**member), check=False)) > 1e-4


def test_bad_parameters_get_one_line_config_errors():
    for spec, message in [
        ("kuhn3p_eq:c11=0.6", "c11 = 0.6 is out of range: valid 0 .. 0.5"),
        ("kuhn3p_eq:c11=0,b11=0.2,b21=0.1", "b21 = 0.1 is out of range: valid 0.2 .. 0.25"),
        ("kuhn3p_eq:c11=0.3,b11=0.1,b21=0.2", "b21 = 0.2 is out of range: valid 0.1 .. 0.1"),
        ("kuhn3p_eq:c11=0.5,b11=0.25,b23=0.2", "b23 = 0.2 is out of range: valid 0 .. 0.125"),
        ("kuhn3p_eq:b32=0.2", "b32 = 0.2 is out of range: valid 0.5 .. 0.791667"),
        ("kuhn3p_eq:b12=1", "'b12=1': expected NAME=VALUE with NAME one of c11, b11, b21, b23, b32, c33, c34"),
        ("kuhn3p_eq:b11=x", "b11 = 'x' is not a number"),
    ]:
        with pytest.raises(ConfigError, match=re.escape(message)) as err:
            parse_spec(spec)
        assert "\n" not in str(err.value)
    assert parse_spec("call") is None
    # defaults: the ACPC script of the middle sub-family, b32 at the top of its range
    assert parse_spec("kuhn3p_eq") == Kuhn3pParams(0.33, 1 / 6, 1 / 6, 0.0, 19 / 24, 0.0, 0.75)


@pytest.fixture(scope="module")
def kuhn3(tmp_path_factory):
    """3-player Kuhn solved by solverkit (CFR+, 1000 iterations)."""
    return solved_kuhn3(tmp_path_factory, "kuhn", 1000, 1e-4)


def test_policy_over_solverkits_games_is_the_formulas(kuhn3, tmp_path):
    """The baseline over kuhn_tree's layout (ACPC keys) and over the OpenSpiel bridge's
    kuhn_poker(players=3) (OpenSpiel keys): the same OpenSpiel table as the formulas; over
    universal_poker of the same rules, NashConv 0 and the closed-form seat values."""
    params = parse_spec("kuhn3p_eq:c11=0.5,b11=0.2,b21=0.1,b23=0.05")
    want = {k: dict(v) for k, v in _tables(params).items()}
    tree = load_table_player(str(kuhn3)).tree_game
    bridge = load_config({"preset": "cfr", "game": {"name": "openspiel", "game": "kuhn_poker(players=3)"}}).game
    for game in (tree, bridge):
        got = game.openspiel_table(equilibrium_policy(game, params))
        assert got.keys() == want.keys()
        for key, probs in got.items():
            assert probs == pytest.approx(want[key], abs=1e-15), key
    # universal_poker (the ACPC server's game code) with kuhn.limit.3p's fields: an equilibrium there too
    spec = ("universal_poker(betting=limit,numPlayers=3,numRounds=1,blind=1 1 1,raiseSize=1 ,firstPlayer=1 ,"
            "maxRaises=1 ,numSuits=1,numRanks=4,numHoleCards=1,numBoardCards=0 )")
    up = load_config({"preset": "cfr", "game": {"name": "openspiel", "game": spec}}).game
    table = up.openspiel_table(equilibrium_policy(up, params))
    assert abs(pyspiel.nash_conv(up.os_game, {k: list(v.items()) for k, v in table.items()})) < 1e-12
    assert up.expected_values(equilibrium_policy(up, params)) == pytest.approx(seat_values(params), abs=1e-12)
    four = load_config({"preset": "cfr", "game": {"name": "kuhn", "players": 4}}).game
    with pytest.raises(ConfigError, match="kuhn3p_eq plays three-player Kuhn poker"):
        load_table_player("kuhn3p_eq", four)


def test_a_solved_strategy_seated_with_two_equilibrium_players(kuhn3):
    """Exact values per seat (solverkit's tree against a walk of OpenSpiel's game), the Nash
    property (no seat gains on the family's value), and a short duplicate match through the
    dealer that agrees with the exact values."""
    a = load_table_player(str(kuhn3))
    game = a.tree_game
    spec = "kuhn3p_eq:c11=0.5,b11=0.25,b21=0,b23=0.125,b32=0.75,c33=0,c34=0.75"
    eq = load_table_player(spec, game)
    family = seat_values(parse_spec(spec))
    mine = game.openspiel_table(a.strategy)
    theirs = _tables(parse_spec(spec))
    for seat in range(3):
        strategy = [a.strategy[p] if p == seat else eq.strategy[p] for p in range(3)]
        exact = game.expected_values(strategy)[seat]
        walked = _walk(GAME.new_initial_state(), [mine if p == seat else theirs for p in range(3)])[seat]
        assert exact == pytest.approx(walked, abs=1e-12)
        assert -2e-3 < exact - family[seat] <= 1e-12  # never above the equilibrium's value; nothing measurable lost
    report = run_table_match([a, eq, load_table_player(spec, game)], hands=120, seed=3)
    assert report.exact[0] == pytest.approx(np.mean([game.expected_values(
        [a.strategy[p] if p == s else eq.strategy[p] for p in range(3)])[s] for s in range(3)]), abs=1e-12)
    for mean, half, exact in zip(report.sampled, report.half_width, report.exact):
        assert abs(mean - exact) <= half, report.lines()
    assert report.illegal == [0, 0, 0] and report.deals == 20
    res = CliRunner().invoke(cli, ["match", str(kuhn3), "kuhn3p_eq:c11=0", "kuhn3p_eq:c11=0", "--hands", "0"])
    assert res.exit_code == 0, res.output
    assert "B = kuhn3p_eq:c11=0,b11=0.166667,b21=0.166667,b23=0,b32=0.791667,c33=0,c34=0.75" in res.output
    res = CliRunner().invoke(cli, ["match", str(kuhn3), "kuhn3p_eq:c11=0.7", "call"])
    assert res.exit_code != 0 and "c11 = 0.7 is out of range: valid 0 .. 0.5" in res.output
