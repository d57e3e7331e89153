"""`solverkit strategy RUN --node PATH`: a spot's node by the line to it, each combo's strategy,
weight and EV there (solverkit.poker.node_view)."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

from solverkit.cli import cli
from solverkit.errors import ConfigError
from solverkit.poker.node_view import node_view
from solverkit.poker.spot import HoldemSpot

TURN = {"board": "QsJh2h7d", "pot": 100, "stack": 300, "oop_range": "AA,QQ,AQs,T9s,98s,A5s",
        "ip_range": "KK,JJ,AK,KQ,JTs,76s", "sizes": {"turn": {"bet": "50%, a", "raise": "100%"},
                                                       "river": {"bet": "75%"}}}


def _random_strategy(game, seed=3):
    rng = np.random.default_rng(seed)
    out = []
    for p in (0, 1):
        lay = game.layout(p)
        x = rng.random(lay.size)
        for s, c, a in zip(lay.block_start, lay.block_count, lay.block_actions):
            blk = x[s: s + c * a].reshape(c, a)
            blk /= blk.sum(axis=1, keepdims=True)
        out.append(x)
    return out


@pytest.fixture(scope="module")
def game():
    return HoldemSpot(**TURN, isomorphism=True)


def test_the_root_view_gives_the_root_evs_and_the_range(game):
    strat = _random_strategy(game)
    view = node_view(game, strat, "")
    ev = game.hand_values(strat)[0, : len(view.combos)]
    ok = view.reach > 0
    assert np.allclose(view.ev[ok], ev[ok], rtol=1e-10, atol=1e-9)
    assert np.allclose(view.reach, game.ranges()[0, game.player_combos(0)])
    assert abs(sum(f for _, f in view.summary()) - 1.0) < 1e-12


def test_a_line_multiplies_the_reach_by_each_step_of_the_strategy(game):
    strat = _random_strategy(game)
    root = node_view(game, strat, "")
    after_x = node_view(game, strat, "check")  # ip to act
    assert after_x.player == 1 and after_x.actions == ["check", "bet 50", "allin 300"]
    facing = node_view(game, strat, "x,bet 50%")  # oop to act: its weight = range x P(check)
    assert facing.player == 0 and facing.actions[:2] == ["fold", "call"]
    assert np.allclose(facing.reach, root.reach * root.policy[:, 0], rtol=1e-12)
    raised = node_view(game, strat, "check,bet 50,raise 250")  # ip again: range x P(bet 50 after x)
    assert raised.player == 1 and raised.pot == 400
    assert np.allclose(raised.reach, after_x.reach * np.nan_to_num(after_x.policy[:, 1]), rtol=1e-12)


def test_a_dealt_card_removes_the_combos_holding_it_and_isomorphism_agrees(game):
    plain = HoldemSpot(**TURN, isomorphism=False)
    strat_plain = _random_strategy(plain, seed=5)
    view = node_view(plain, strat_plain, "x,x,Kd")
    assert all("Kd" not in c or w == 0 for c, w in zip(view.combos, view.reach))
    assert view.board == "QsJh2h7dKd"


@pytest.mark.parametrize("path, match", [
    ("bet 33", "not an action at this node; valid: check, bet 50, allin 300"),
    ("x,x,x", "the street ends here"),
    ("x,x,Qs", "already on the board"),
    ("x,bet 50,fold", "ends at a fold"),
    ("x,x", "end of a street"),
])
def test_bad_paths_name_the_token_and_the_choices(game, path, match):
    with pytest.raises(ConfigError, match=match):
        node_view(game, _random_strategy(game), path)


def test_the_cli_prints_the_node_and_its_json(tmp_path):
    import tomli_w

    config = tmp_path / "spot.toml"
    config.write_text(tomli_w.dumps({"preset": "dcfr", "game": {"name": "holdem_spot", **TURN}}))
    out = tmp_path / "run"
    r = CliRunner().invoke(cli, ["solve", str(config), "--iterations", "20", "--out", str(out)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(cli, ["strategy", str(out), "--node", "check,bet 50"])
    assert r.exit_code == 0, r.output
    assert "node check,bet 50: board QsJh2h7d, pot 150, oop (player 0) to act" in r.output
    r = CliRunner().invoke(cli, ["strategy", str(out), "--node", "check", "--json"])
    data = json.loads(r.output)
    assert data["player"] == 1 and abs(sum(data["frequencies"].values()) - 1) < 1e-9
    r = CliRunner().invoke(cli, ["strategy", str(out)])
    assert r.exit_code != 0 and "--infoset KEY" in r.output


def test_the_report_shows_a_hand_grid_per_node(tmp_path):
    """solverkit report of a spot: foldable nodes, each a 13x13 grid whose cells' titles list the
    combos with their strategy and EV."""
    import tomli_w

    from solverkit.report.build import build_report

    config = tmp_path / "spot.toml"
    config.write_text(tomli_w.dumps({"preset": "dcfr", "game": {"name": "holdem_spot", **TURN}}))
    out = tmp_path / "run"
    r = CliRunner().invoke(cli, ["solve", str(config), "--iterations", "10", "--out", str(out)])
    assert r.exit_code == 0, r.output
    page = build_report(out)
    assert page.count('<table class="grid">') >= 4  # the root and the answers to its actions
    assert "root: oop to act, pot 100" in page and "check: ip to act, pot 100" in page
    assert "AsAh w 1.000: check " in page  # a combo's line in its cell's title (the range weight at the root)
    assert ">AA</b>" in page and "EV " in page


def test_the_python_api_returns_ev_equity_and_nodes():
    from solverkit.api import solve

    sol = solve({"preset": "dcfr", "game": {"name": "holdem_spot", **TURN}}, iterations=15)
    assert set(sol.fields) >= {"ev", "equity", "unit"} and sol.fields["unit"] == "% pot"
    assert sum(sol.fields["ev"]) == pytest.approx(100.0)
    view = sol.node("check")
    assert view.player == 1 and abs(sum(f for _, f in view.summary()) - 1) < 1e-9
