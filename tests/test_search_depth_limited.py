"""Depth-limited search (solverkit/search/depth_limited.py): without leaves it is unsafe
re-solving, double for double; the leaf game's values agree with OpenSpiel's for the profile
the continuations make; the opponent's leaf choice is learned by CFR; bad settings are refused;
exploit --search prints the searched strategy's exploitability (OpenSpiel agrees)."""

import numpy as np
import pytest
from click.testing import CliRunner

from solverkit.cli import cli
from solverkit.core.config import load_config
from solverkit.core.layout import policy
from solverkit.core.solver import run_solve
from solverkit.errors import ConfigError
from solverkit.search.depth_limited import LeafGame, depth_limited_strategy, heads
from solverkit.search.resolve import searched_strategy, split_game, to_segment

from .search_runs import solve_and_exploit_search


def _blueprint(iterations):
    a = load_config({"preset": "cfr_plus", "game": {"name": "leduc"}, "solver": {"eval_every": 0}})
    return a.game, run_solve(a, iterations=iterations).strategy


@pytest.fixture(scope="module")
def leduc_blueprint():
    return _blueprint(300)


def _root_game(game, bp, me, continuations, bias=5.0):
    """The leaf game of Leduc's first round (leaves at its end) for searcher `me`."""
    cut = split_game(game, 1, per_card=False)
    (head,) = heads(game, cut, 0, 0, True, bp)
    return head, cut, LeafGame(head, cut, bp, me, continuations, bias)


def test_without_leaves_it_is_unsafe_resolving(leduc_blueprint):
    game, bp = leduc_blueprint
    unsafe, _ = searched_strategy(game, bp, "unsafe", 40)
    for depth in (1, 3):  # the depth reaches the end of the game: no leaves
        searched, stats = searched_strategy(game, bp, "depth_limited", 40, depth=depth, continuations=["blueprint"])
        assert stats.resolved == {1: 15}
        for p in (0, 1):
            np.testing.assert_array_equal(searched[p], unsafe[p])


def _openspiel_value(game, bp, opp, kind, bias):
    """Each player's expected chips when both play `bp`, except that `opp` plays its second round
    with the probability of action `kind` (OpenSpiel's 0 fold, 1 call, 2 raise) times `bias`."""
    from open_spiel.python.algorithms.expected_game_score import policy_value

    from solverkit.poker.openspiel import openspiel_game, openspiel_policy

    pol = openspiel_policy(game, bp)
    for key, row in pol.state_lookup.items():
        if f"[Player: {opp}]" in key and "[Round 2]" in key:
            x = pol.action_probability_array[row].copy()
            x[kind] *= bias
            pol.action_probability_array[row] = x / x.sum()
    return policy_value(openspiel_game(game).new_initial_state(), [pol, pol])


@pytest.mark.parametrize("me,name,kind", [(0, "raise", 2), (1, "fold", 0), (1, "call", 1)])
def test_leaf_values_agree_with_openspiel(leduc_blueprint, me, name, kind):
    game, bp = leduc_blueprint
    head, cut, lg = _root_game(game, bp, me, [name], bias=3.0)
    assert len(lg.leaves) == 5  # Leduc's first round ends after five betting sequences
    src = [to_segment(cut, bp[p], head.region, head.first, p) for p in (0, 1)]
    out = lg.values(src)
    ours = [float((out[p] * head.entry[p]).sum()) for p in (0, 1)]
    np.testing.assert_allclose(ours, _openspiel_value(game, bp, 1 - me, kind, 3.0), rtol=0, atol=1e-12)


THREE_ROUNDS = """GAMEDEF
limit
numPlayers = 2
numRounds = 3
blind = 1 1
raiseSize = 2 4 4
firstPlayer = 1 1 1
maxRaises = 1 2 2
numSuits = 2
numRanks = 4
numHoleCards = 1
numBoardCards = 0 1 1
END GAMEDEF
"""


def test_leaves_inside_a_later_round_are_worth_the_rest_of_the_game(tmp_path):
    """A three-round game re-solved at round 1 to its end (leaves before round 2's card): played
    by the blueprint, with the blueprint as the one continuation, every public state's leaf game
    is worth what the whole subgame below it is worth to each hand."""
    from solverkit.core.passes import NO_COEFFS
    from solverkit.search.resolve import _walk

    (tmp_path / "three.game").write_text(THREE_ROUNDS)
    a = load_config({"preset": "cfr_plus", "game": {"name": "acpc", "gamedef": str(tmp_path / "three.game")},
                     "solver": {"eval_every": 0}})
    game, bp = a.game, run_solve(a, iterations=30).strategy
    cut = split_game(game, 2, per_card=False)
    dummy = [np.zeros(1), np.zeros(1)]
    # after round 1's card: 3 ways into round 1 x 4 boards (suit isomorphism); before it: 3
    per_card = heads(game, cut, 1, 1, True, bp)
    before = heads(game, cut, 1, 1, False, bp)
    assert (len(per_card), len(before)) == (12, 3)
    for h in per_card + before:
        lg = LeafGame(h, cut, bp, 1, ["blueprint"])
        assert len(lg.leaves) == 5 * int(h.count[1])  # round 1's ends on each of its boards here
        ours = lg.values([to_segment(h.game, bp[p], h.region, h.first, p) for p in (0, 1)])
        region, first = h.game._sub_region(*h.key)
        whole = [to_segment(h.game, bp[p], region, first, p) for p in (0, 1)]
        theirs = _walk(h.game, h.key, h.entry, whole, whole, dummy, 0, 0, 3, NO_COEFFS)
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-14)


def test_the_opponent_learns_its_best_continuation_per_hand(leduc_blueprint):
    from solverkit.core.passes import NO_COEFFS
    from solverkit.poker.pass_settings import _Job

    game, good = leduc_blueprint
    # player 1 plays the second round uniformly at random: folding more with its worst hands and
    # raising more with its best pays against the searcher's re-solved first round
    bp = [good[0], good[1].copy()]
    layout, nodes = game.layout(1), game.full.units[1][0]
    for i in np.flatnonzero(game.tree.bet.round[nodes] == 1):
        a, n, A = layout.block_start[i], layout.block_count[i], layout.block_actions[i]
        bp[1][a:a + n * A] = 1.0 / A
    head, cut, lg = _root_game(game, bp, 0, ["blueprint", "fold", "call", "raise"])
    lg.solve(300)
    avg = [policy(lg.avg[p], cut._layout_of(head.region, p)) for p in (0, 1)]
    # the opponent's values per continuation at every leaf against the searcher's average
    lg.regret[:] = 0.0
    lg.reach_b.fill(0.0)
    lg._head_walk(avg, avg, lg.dummy, _Job(0, 0, 3, -1, NO_COEFFS, prune=False), 1, lg.reach_b, backward=False)
    V = lg._leaf_values(3, lg.leaf_policy())  # [leaves, k, H] (they do not depend on its own leaf policy)
    chosen = lg.average_leaf_policy()
    reached = np.stack([lg.reach_b[lf.j, lf.bi, 1] for lf in lg.leaves]) > 1e-2  # (its average gets there)
    top = np.sort(V, axis=1)
    clear = (top[:, -1] - top[:, -2] > 5e-3) & reached  # one continuation better by 0.005 chips or more
    best = V.argmax(axis=1)
    assert clear.sum() >= 4
    picks = np.take_along_axis(chosen, best[:, None, :], axis=1)[:, 0]
    assert (picks[clear] > 0.9).all()  # CFR's average plays the best continuation there
    assert {1, 3} <= set(best[clear].tolist())  # folding more with some hands, raising more with others


def test_a_spent_budget_cuts_the_iterations(leduc_blueprint):
    game, bp = leduc_blueprint
    kw = {"start_round": 0, "nested": False, "continuations": ["blueprint", "raise"]}
    cut, _ = searched_strategy(game, bp, "depth_limited", 300, budget=1e-9, **kw)
    short, _ = searched_strategy(game, bp, "depth_limited", 1, **kw)  # one iteration runs whatever the budget
    for p in (0, 1):
        np.testing.assert_array_equal(cut[p], short[p])


def test_bad_settings_are_refused(leduc_blueprint):
    game, bp = leduc_blueprint
    base = {"preset": "cfr_plus", "game": {"name": "leduc"}}
    for search, match in [
        ({"continuations": ["blueprint", "check"]}, r"'check' is not a continuation strategy; valid: blueprint, fold, "
                                                    r"call, raise"),
        ({"continuations": []}, r"continuations = \[\] is invalid: .*blueprint, fold, call, raise"),
        ({"continuations": ["fold", "fold"]}, r"names one strategy twice"),
        ({"bias": 0.0}, r"bias = 0(\.0)? is invalid: expected a number > 0"),
        ({"bias": -2}, r"bias = -2 is invalid"),
        ({"depth": 0}, r"depth = 0 is invalid: expected an integer >= 1"),
    ]:
        with pytest.raises(ConfigError, match=match) as info:
            load_config({**base, "search": {"name": "depth_limited", **search}})
        assert "\n" not in str(info.value)
    with pytest.raises(ConfigError, match=r"bias = 0 is invalid: expected a finite number > 0"):
        depth_limited_strategy(game, bp, 10, bias=0)
    with pytest.raises(ConfigError, match=r"depth = 0 is invalid"):
        depth_limited_strategy(game, bp, 10, depth=0)
    with pytest.raises(ConfigError, match=r"'folds' is not a continuation strategy; valid: blueprint, fold"):
        depth_limited_strategy(game, bp, 10, continuations=("folds",))
    with pytest.raises(ConfigError, match=r"round = 2 is invalid for depth_limited search .* 0 \(from the deal\) to 1"):
        depth_limited_strategy(game, bp, 10, start_round=2)
    with pytest.raises(ConfigError, match=r"round = 0 is invalid .* 1 to 1"):  # the other methods start at round 1
        searched_strategy(game, bp, "unsafe", 10, start_round=0)


def test_exploit_search_prints_the_depth_limited_exploitability(tmp_path):
    from open_spiel.python.algorithms import exploitability as os_expl

    from solverkit.poker.openspiel import openspiel_game, openspiel_policy

    out, output = solve_and_exploit_search(
        tmp_path, 'preset = "cfr_plus"\n[game]\nname = "leduc"\n[search]\nname = "depth_limited"\nround = 0\n'
                  'iterations = 60\nnested = false\ncontinuations = ["blueprint", "raise"]\nbias = 4.0\n', 50)
    assert "continuations blueprint, raise (bias 4)" in output
    printed = float(next(x for x in output.splitlines() if x.startswith("with search exploitability")).split()[3])
    from solverkit.core.strategy_file import load_strategy

    game = load_config(out / "config.toml").game
    bp = load_strategy(out / "strategy.npz", game, str(out / "config.toml"))[0]
    searched, _ = depth_limited_strategy(game, bp, 60, start_round=0, nested=False,
                                         continuations=["blueprint", "raise"], bias=4.0)
    theirs = os_expl.exploitability(openspiel_game(game), openspiel_policy(game, searched))
    assert printed == pytest.approx(theirs, rel=1e-10)
    # match plays the same search
    r = CliRunner().invoke(cli, ["match", str(out), f"blueprint:{out}"])
    assert r.exit_code == 0, r.output
    assert "search depth_limited" in r.output.splitlines()[0]
