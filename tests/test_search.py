"""Subgame re-solving (solverkit/search): safe methods never add exploitability and improve a
coarse blueprint; unsafe re-solving of a good blueprint shows the failure the literature
describes; exploit --search prints both numbers."""

import numpy as np
import pytest
from click.testing import CliRunner

from solverkit.cli import cli
from solverkit.core.config import load_config
from solverkit.core.solver import run_solve
from solverkit.errors import ConfigError
from solverkit.search import resolve as R
from solverkit.search.resolve import searched_strategy

from .search_runs import solve_and_exploit_search


@pytest.fixture(scope="module")
def leduc_blueprint():
    a = load_config({"preset": "cfr_plus", "game": {"name": "leduc"}, "solver": {"eval_every": 0}})
    return a.game, run_solve(a, iterations=300).strategy


def _expl(game, strategy):
    return sum(game.best_response(strategy)) / 2


def test_unsafe_resolving_of_a_good_blueprint_is_exploitable_and_safe_methods_are_not(leduc_blueprint):
    game, bp = leduc_blueprint
    base = _expl(game, bp)
    unsafe, _ = searched_strategy(game, bp, "unsafe", 100)
    assert _expl(game, unsafe) > 10 * base  # the opponent exploits the fixed-range assumption
    for method in ("resolve", "maxmargin"):
        searched, stats = searched_strategy(game, bp, method, 100)
        assert _expl(game, searched) <= base * (1 + 1e-12)
        assert stats.resolved[1] > 0


@pytest.mark.slow  # (CI time: 4 s)
def test_maxmargin_converges_below_the_blueprint(leduc_blueprint):
    game, bp = leduc_blueprint
    searched, stats = searched_strategy(game, bp, "maxmargin", 1000, safety_check=False)
    assert _expl(game, searched) < 0.8 * _expl(game, bp)


def test_safe_resolve_keeps_every_opponent_hand_at_or_below_its_blueprint_value(leduc_blueprint):
    game, bp = leduc_blueprint
    split = R.split_game(game, 1)
    reach = R._trunk_reach(split, bp)
    key = split.subgame_keys()[0]
    region, first = split._sub_region(*key)
    seg = [R.to_segment(split, bp[p], region, first, p) for p in (0, 1)]
    res = R.resolve_subgame(split, key, reach[key], seg, "maxmargin", 2000)
    for opp in (0, 1):
        live = R._valid(split, key, opp)
        excess = res.values[opp][live] - res.blueprint_values[opp][live]
        assert excess.max() < 1e-3 * np.abs(res.blueprint_values[opp]).max()  # CFR+ converging: ~1/T


def test_segment_copies_round_trip(leduc_blueprint):
    game, bp = leduc_blueprint
    split = R.split_game(game, 1)
    out = [np.zeros_like(x) for x in bp]
    for region, first in [(split.trunk, None)] + [split._sub_region(*k) for k in split.subgame_keys()]:
        for p in (0, 1):
            split._scatter(out[p], region, R.to_segment(split, bp[p], region, first, p), first, p)
    for p in (0, 1):
        np.testing.assert_array_equal(out[p], bp[p])


def test_bad_settings_are_refused(leduc_blueprint):
    game, bp = leduc_blueprint
    with pytest.raises(ConfigError, match="round = 2"):
        searched_strategy(game, bp, "resolve", 10, start_round=2)
    with pytest.raises(ConfigError, match="valid: unsafe, resolve, maxmargin, reach"):
        searched_strategy(game, bp, "resolv", 10)
    with pytest.raises(ConfigError, match=r"\[search\]"):
        load_config({"preset": "cfr_plus", "game": {"name": "leduc"}, "search": {"name": "magic"}})


def test_exploit_search_on_an_abstracted_run(tmp_path):
    out, output = solve_and_exploit_search(
        tmp_path, 'preset = "cfr_plus"\n[game]\nname = "leduc"\n[abstraction]\nname = "ehs"\nbuckets = [0, 2]\n'
                  '[search]\nname = "resolve"\niterations = 100\n', 100)
    lines = {line.split(" exploitability ")[0]: line for line in output.splitlines() if " exploitability " in line}
    before = float(lines["blueprint"].split()[2])
    after = float(lines["with search"].split()[3])
    assert after < before
    assert "in the real game" in output
    # play and match use the run's [search]; blueprint:RUN plays the blueprint alone
    r = CliRunner().invoke(cli, ["match", str(out), f"blueprint:{out}"])
    assert r.exit_code == 0, r.output
    assert "search resolve" in r.output.splitlines()[0] and "search" not in r.output.splitlines()[1]
    assert "exact, both seats" in r.output


def test_resolving_before_the_cards_is_safe_too(leduc_blueprint):
    game, bp = leduc_blueprint
    searched, stats = searched_strategy(game, bp, "maxmargin", 300, per_card=False)
    assert stats.resolved[1] == 5  # one per betting sequence into round 1 (the board card inside)
    assert _expl(game, searched) <= _expl(game, bp) * (1 + 1e-12)


def test_a_spent_budget_cuts_the_iterations(leduc_blueprint):
    game, bp = leduc_blueprint
    for method, ran in (("unsafe", 16), ("resolve", 1)):  # unsafe runs blocks of 16 between checks
        cut, _ = searched_strategy(game, bp, method, 300, budget=1e-9)
        short, _ = searched_strategy(game, bp, method, ran)
        for p in (0, 1):
            np.testing.assert_array_equal(cut[p], short[p])


def test_reach_spends_the_opponents_gifts_and_stays_safe():
    a = load_config({"preset": "cfr_plus", "game": {"name": "acpc", "gamedef": "leduc.nolimit"},
                     "abstraction": {"name": "ehs", "buckets": [0, 2]}, "solver": {"eval_every": 0}})
    real, bp = a.game.real_policy(run_solve(a, iterations=100).strategy)
    base = _expl(real, bp)
    margin, _ = searched_strategy(real, bp, "maxmargin", 100)
    reach, stats = searched_strategy(real, bp, "reach", 100)
    assert not stats.without_gifts
    assert _expl(real, reach) <= base * (1 + 1e-12)
    assert _expl(real, reach) < _expl(real, margin)  # wider margins where the opponent gave value away


def test_gifts_are_shared_and_zero_without_opponent_decisions(leduc_blueprint):
    game, bp = leduc_blueprint
    split = R.split_game(game, 1)
    gifts = R._gifts(game, split, bp)
    bet = game.tree.bet
    for (e, _b, _j), g in gifts.items():
        assert (g >= 0).all()
        deciders = set()
        c = e
        while bet.parent[c] >= 0:
            c = int(bet.parent[c])
            deciders.add(int(bet.player[c]))
        for o in (0, 1):
            if o not in deciders:
                assert not g[o].any()
