"""Blueprint strategies at the two-player dealer (solverkit.blueprint.player) and the ACPC example
player baseline. Oracle: the tree engine's exact expected values of the same strategy mapped to
leduc_tree (solverkit.blueprint.tree_map), which share no code with the dealer, the match-state
parsing or the player's node and bucket lookup."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from solverkit.cli import cli
from solverkit.core.config import load_config
from solverkit.core.solver import run_solve
from solverkit.errors import SolverkitError


def _blueprint(out, gamedef, iterations):
    cfg = {"game": {"name": "blueprint", "gamedef": gamedef}, "rule": {"name": "lcfr"},
           "averaging": {"name": "linear"}, "sampler": {"name": "external"},
           "solver": {"iterations": iterations, "seed": 1}}
    run_solve(load_config(cfg), out=out)
    return out


@pytest.fixture(scope="module")
def leduc_bp(tmp_path_factory):
    return _blueprint(tmp_path_factory.mktemp("bp_leduc"), "leduc", 2000)


@pytest.fixture(scope="module")
def nolimit_bp(tmp_path_factory):
    return _blueprint(tmp_path_factory.mktemp("bp_nl"), "leduc.nolimit", 3000)


@pytest.mark.parametrize("kind", ["example", pytest.param("call", marks=pytest.mark.slow)])  # (CI time)
def test_a_limit_blueprint_at_the_dealer_wins_its_exact_value(leduc_bp, kind):
    """The dealer's chips of a lossless Leduc blueprint against a baseline agree, within the 95%
    interval, with the tree engine's exact value of the same policy against the same baseline."""
    from solverkit.blueprint.tree_map import tree_strategy
    from solverkit.poker.match import run_match
    from solverkit.poker.players import load_player
    from solverkit.poker.table import baseline_policy

    a = load_player(str(leduc_bp))
    tree = a.blueprint_game._tree_game()
    mine = tree_strategy(a.blueprint_game.bp, tree, np.concatenate([np.asarray(s) for s in a.strategy]))
    base = baseline_policy(tree, kind)
    exact = (tree.expected_values([mine[0], base[1]])[0] + tree.expected_values([base[0], mine[1]])[1]) / 2
    unit = a.game.gd.big_blind / 1000.0
    report = run_match(a.game, a, load_player(kind, a.game), hands=1200, seed=4, exact=False)
    assert report.illegal == (0, 0)
    assert abs(report.sampled_mbb - exact / unit) <= report.half_width_mbb, (report.sampled_mbb, exact / unit)
    assert exact > 0.1  # a blueprint beats a baseline


def test_a_no_limit_blueprint_beats_the_example_player_through_the_cli(nolimit_bp):
    res = CliRunner().invoke(cli, ["match", str(nolimit_bp), "example", "--hands", "600", "--seed", "2"])
    assert res.exit_code == 0, res.output
    line = next(x for x in res.output.splitlines() if x.startswith("A's winnings"))
    mean, half = (float(line.split(":")[1].split()[0]), float(line.split("+/-")[1].split()[0]))
    assert mean - half > 0, line
    assert "opponent sizes off its tree mapped" in res.output  # the example player bets any size
    assert "no exact value" in res.output and "blueprint over buckets" in res.output


def test_a_blueprint_plays_itself_and_poker_engine_runs_of_the_same_file(nolimit_bp, tmp_path):
    from solverkit.poker.match import run_match
    from solverkit.poker.players import load_player

    run_solve(load_config({"preset": "cfr_plus", "game": {"name": "acpc", "gamedef": "leduc.nolimit"},
                           "solver": {"iterations": 30}}), out=tmp_path / "ac")
    a = load_player(str(nolimit_bp))
    b = load_player(str(tmp_path / "ac"), a.game)
    report = run_match(a.game, a, b, hands=200, seed=1, exact=False)
    assert report.hands == 200 and report.illegal == (0, 0)
    same = run_match(a.game, a, a, hands=100, seed=1, exact=False)
    assert same.hands == 100 and same.illegal == (0, 0)


def test_blueprint_matches_refuse_other_games_and_more_players(nolimit_bp, tmp_path):
    from solverkit.poker.players import load_player

    kuhn = load_config({"preset": "cfr", "game": {"name": "acpc", "gamedef": "kuhn"}}).game
    with pytest.raises(SolverkitError, match="another game than"):
        load_player(str(nolimit_bp), kuhn)
    three = _blueprint(tmp_path / "k3", "kuhn.limit.3p", 10)
    with pytest.raises(SolverkitError, match="3 players"):
        load_player(str(three))


def test_the_example_baseline_is_the_acpc_example_players_distribution():
    """Kuhn's first action (check or bet) 0.5 / 0.5; facing a bet fold 0.06 / 0.94 * ... renormalised:
    fold 0.06 / (0.06 + 0.47), call 0.47 / (0.06 + 0.47)."""
    from solverkit.poker.players import baseline_strategy

    game = load_config({"preset": "cfr", "game": "kuhn"}).game
    pol = baseline_strategy(game, "example")
    for p in (0, 1):
        labels = game.infoset_actions(p)
        for acts, (start, n) in zip(labels, game.layout(p).infoset_slices()):
            probs = dict(zip(acts, pol[p][start:start + n]))
            assert sum(probs.values()) == pytest.approx(1.0)
            if "f" in probs or "fold" in probs:
                fold = probs.get("f", probs.get("fold"))
                assert fold == pytest.approx(0.06 / 0.53)
            else:
                assert sorted(probs.values()) == pytest.approx([0.5, 0.5])


def test_local_best_response_of_a_no_limit_blueprint_is_below_its_exact_exploitability(nolimit_bp):
    """LBR (a lower bound, in expectation) against a Leduc no-limit blueprint stays below the exact
    exploitability the tree engine computes for the same policy (blueprint's exact evaluation)."""
    from solverkit.poker.lbr import LocalBestResponse, opponent_for
    from solverkit.poker.players import load_player

    a = load_player(str(nolimit_bp))
    exact = sum(a.blueprint_game.best_response(a.strategy)) / 2
    assert exact > 0.05
    result = LocalBestResponse(a.game, opponent_for(a.game, a), sizes="0.5p,1p,a", preflop="lbr").run(1000, 3)
    low = result.value - result.half_width
    assert low <= exact, (result.value, result.half_width, exact)
    assert result.value > -5.0  # it played: a finite value in chips


def test_local_best_response_refuses_limit_blueprints(leduc_bp):
    from solverkit.errors import ConfigError
    from solverkit.poker.lbr import opponent_for
    from solverkit.poker.players import load_player

    a = load_player(str(leduc_bp))
    with pytest.raises(ConfigError, match="no-limit blueprints"):
        opponent_for(a.game, a)


def test_a_three_player_blueprint_sits_at_the_n_seat_table(tmp_path):
    """A lossless 3-player Kuhn blueprint plays at the N-seat dealer through the tree game of its
    rules: its exact values over every seating sum to zero, always-fold loses, and the dealer's
    chips agree with the exact values within the intervals."""
    from solverkit.poker.table import load_table_player, run_table_match

    run = _blueprint(tmp_path / "k3", "kuhn.limit.3p", 3000)
    a = load_table_player(str(run))
    game = a.tree_game
    report = run_table_match([a, load_table_player("fold", game), load_table_player(str(run), game)], hands=240, seed=1)
    assert sum(report.exact) == pytest.approx(0.0, abs=1e-12) and report.exact[1] < -0.1
    assert report.illegal == [0, 0, 0]
    for mean, half, exact in zip(report.sampled, report.half_width, report.exact):  # (1.5 x: three at once)
        assert abs(mean - exact) <= 1.5 * half, report.lines()
