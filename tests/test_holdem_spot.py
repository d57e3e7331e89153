"""holdem_spot against an independent oracle: tests/spot_oracle.py enumerates every pair of
combos, every runout and every betting history with its own hand ranking, and takes a best
response per information set (own combo, board so far, history). The game's expected values,
best responses, equities, result.json and bad-input lines must agree with it."""

from __future__ import annotations

import random

import numpy as np
import pytest

import solverkit
from solverkit.errors import ConfigError
from solverkit.poker.evaluator import acpc_rank
from solverkit.poker.spot import HoldemSpot

from .spot_runs import solve_spot

from .spot_oracle import SpotOracle, strength, strength_by_fives

REL = 1e-9

# river: ties (KQ against KQo) and shared cards between the ranges
RIVER = dict(board="KsQd7h2c3s", pot=20, stack=30, oop_range="AA,KQ,77", ip_range="AK,QQ,76s,KQo:0.5",
             sizes={"river": {"bet": "50%, a", "raise": "a"}})
# stack below the pot: a 75% bet cannot be made in full, the all-in can
SHORT = dict(board="Th9h8c4d2s", pot=40, stack=25, oop_range="JJ+,T9,87s:0.25", ip_range="QJs,99,A8",
             sizes={"river": {"bet": "75%, a", "raise": "50%"}})
# card removal: both ranges hold the board's ace and king, and each other's cards
REMOVAL = dict(board="AsKd9c5h2h", pot=30, stack=60, oop_range="AK,AQ:0.5,KQ,A9s", ip_range="AK,KQ:0.75,QJ,A5",
               sizes={"river": {"bet": "33%, 100%", "raise": "2.5x"}, "ip": {"river": {"bet": "70%, a"}}},
               raise_limit=1)
# turn spots: a river card is dealt after the turn's betting (and after an all-in on the turn)
TURN = dict(board="Ks9d7h2c", pot=20, stack=40, oop_range="AA,KQs", ip_range="QQ,T8s:0.5",
            sizes={"turn": {"bet": "50%, a"}, "river": {"bet": "75%", "raise": "a"}})
# flop: two cards dealt one by one (and run out together after an all-in on the flop)
FLOP = dict(board="Ks7s2s", pot=20, stack=20, oop_range="AhAd", ip_range="QdQc,JsTs:0.5",
            sizes={"flop": {"bet": "50%, a"}})
# monotone turn, ranges symmetric in clubs, diamonds and hearts: 6 suit symmetries
TURN_MONOTONE = dict(board="KsQs7s2s", pot=20, stack=40, oop_range="AA,JTs", ip_range="99,AQs",
                     sizes={"turn": {"bet": "50%"}, "river": {"bet": "75%, a"}})
# paired turn 7h7d: diamonds and hearts swap (ranges symmetric in them)
TURN_PAIRED = dict(board="KsQs7h7d", pot=20, stack=30, oop_range="AA,98s:0.5", ip_range="AK,T9s",
                   sizes={"turn": {"bet": "60%"}, "river": {"bet": "50%, a"}})
# the board's symmetry is larger than the ranges': only clubs and diamonds swap
TURN_LOPSIDED = dict(board="KsQs7s2s", pot=20, stack=40, oop_range="AA,JTs", ip_range="AhQh,99",
                     sizes={"turn": {"bet": "50%"}, "river": {"bet": "75%, a"}})


def spot(params, isomorphism):
    return HoldemSpot(**params, isomorphism=isomorphism)


def close(a, b, rel=REL):
    """Equal to `rel` relative (absolute where the values are near 0)."""
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def raked_br(br, ev):
    """Best responses as a raked spot reports them: each less half the profile's total value (the
    rake it pays), so that (br_0 + br_1) / 2 is the average best-response gain; unchanged without
    rake (the values add up to 0)."""
    shift = (ev[0] + ev[1]) / 2
    return br[0] - shift, br[1] - shift


def check_values(params, isomorphism, seed, policy_of=None):
    """The game's expected values and best responses of a random strategy = the oracle's."""
    oracle = SpotOracle(params)
    game = spot(params, isomorphism)
    policy = oracle.random_policy(seed)
    if policy_of is not None:
        policy = policy_of(oracle, policy)
    strategy = oracle.flat_strategy(game, policy)
    got_ev, got_br = game.expected_values(strategy), game.best_response(strategy)
    want_ev = oracle.expected_values(policy)
    want_br = (oracle.best_response(policy, 0), oracle.best_response(policy, 1))
    if params.get("rake", 0) > 0:
        want_br = raked_br(want_br, want_ev)
    assert close(got_ev[0], want_ev[0]) and close(got_ev[1], want_ev[1]), (got_ev, want_ev)
    assert close(got_br[0], want_br[0]) and close(got_br[1], want_br[1]), (got_br, want_br)
    return oracle, want_ev, want_br


# --- the oracle itself ---------------------------------------------------------------------------


def test_oracle_hand_ranking_orders_hands_as_acpc_rank():
    """The oracle's seven-card ranking orders 1,500 random pairs of hands on shared boards as the
    engine's evaluator does (two rankings written apart), and equals its own best-of-21-fives."""
    rng = random.Random(7)
    for _ in range(1500):
        cards = rng.sample(range(52), 9)
        a, b = cards[:2] + cards[4:], cards[2:4] + cards[4:]
        sa, sb = strength(frozenset(a)), strength(frozenset(b))
        assert sa == strength_by_fives(a) and sb == strength_by_fives(b), (a, b)
        ra, rb = acpc_rank(np.array(a), 4), acpc_rank(np.array(b), 4)
        assert (sa > sb) - (sa < sb) == (ra > rb) - (ra < rb), (a, b)


def test_oracle_pair_walk_and_information_set_walk_agree():
    """Two routes of the oracle to a strategy's values (every pair of hands walked, and each
    player's information sets walked against the opponent's range) give the same numbers."""
    oracle = SpotOracle(REMOVAL)
    policy = oracle.random_policy(11)
    ev = oracle.expected_values(policy)
    assert close(oracle.infoset_values(policy, 0), ev[0], 1e-12)
    assert close(oracle.infoset_values(policy, 1), ev[1], 1e-12)
    assert ev[0] == pytest.approx(-ev[1], abs=1e-12)  # no rake: zero-sum
    for p in (0, 1):
        assert oracle.best_response(policy, p) >= ev[p] - 1e-12


# --- equity --------------------------------------------------------------------------------------


def hand_combos(game, p: int) -> np.ndarray:
    """The combo index (0..1325) of each of player p's hands, in the game's hand order."""
    if hasattr(game, "player_combos"):
        return np.asarray(game.player_combos(p))
    return np.asarray(getattr(game, "combos", np.arange(1326)))


def check_per_hand(game, values, want, tol):
    """values [2, >= H_p]: player p's hand i is combo hand_combos(game, p)[i]; each combo of
    `want[p]` (the player's range, combo -> value) is there with its value, the others NaN."""
    for p in (0, 1):
        combos = [int(c) for c in hand_combos(game, p)]
        assert set(want[p]) <= set(combos), (p, sorted(set(want[p]) - set(combos)))
        for i, c in enumerate(combos):
            if c in want[p]:
                assert abs(values[p][i] - want[p][c]) <= tol * max(1.0, abs(want[p][c])), (p, c, values[p][i], want[p][c])
            else:
                assert np.isnan(values[p][i]), (p, c, values[p][i])


@pytest.mark.parametrize("params", [RIVER, REMOVAL, TURN, FLOP], ids=["river", "card-removal", "turn", "flop"])
def test_hand_equity_is_brute_force_equity(params):
    """hand_equity: each combo's showdown share against the opponent's range over every runout
    (ties split); NaN for the combos not in the player's range."""
    oracle = SpotOracle(params)
    _, per_hand = oracle.equity()
    game = spot(params, False)
    check_per_hand(game, game.hand_equity(), per_hand, 1e-12)


@pytest.mark.parametrize("params, isomorphism", [(RIVER, False), (REMOVAL, False), (TURN_PAIRED, True)],
                         ids=["river", "card-removal", "turn-isomorphic"])
def test_hand_values_are_each_combos_ev(params, isomorphism):
    """hand_values of a random strategy: each combo's EV in chips (its pot share, rake paid) against
    the opponent's range, as the oracle's walk of that combo's information sets gives it."""
    oracle = SpotOracle(params)
    game = spot(params, isomorphism)
    policy = oracle.random_policy(8)
    values = game.hand_values(oracle.flat_strategy(game, policy))
    check_per_hand(game, values, [oracle.hand_values(policy, p) for p in (0, 1)], REL)


@pytest.mark.parametrize("params", [RIVER, TURN_MONOTONE], ids=["river", "turn-isomorphic"])
def test_result_fields_equity_and_ev_of_the_uniform_strategy(params):
    """result_fields of a fresh store (its average is the uniform strategy): equity = the
    range-vs-range equity, ev [oop, ip] chips = the oracle's uniform-play values."""
    from solverkit.core.config import load_config
    from solverkit.core.solver import make_store

    asm = load_config({"preset": "dcfr", "game": {"name": "holdem_spot", **params, "isomorphism": True}})
    fields = asm.game.result_fields(make_store(asm), "average")
    oracle = SpotOracle(params)
    (eq0, eq1), _ = oracle.equity()
    assert abs(fields["equity"][0] - eq0) <= 1e-12 and abs(fields["equity"][1] - eq1) <= 1e-12
    ev = oracle.expected_values(oracle.uniform_policy())
    pot = params["pot"]
    for p in (0, 1):
        assert close(fields["ev"][p], ev[p] * pot / 100 + pot // 2), (fields["ev"], ev)


# --- expected values and best responses of random strategies --------------------------------------


@pytest.mark.parametrize("params, seed", [(RIVER, 1), (SHORT, 2), (REMOVAL, 3), ({**RIVER, "pot": 21}, 7)],
                         ids=["river", "short-stack", "card-removal", "odd-pot"])
def test_river_values_and_best_responses(params, seed):
    check_values(params, False, seed)


@pytest.mark.parametrize("params, isomorphism, symmetries", [
    (TURN, False, 1), (TURN, True, 1), (TURN_MONOTONE, True, 6), (TURN_MONOTONE, False, 6), (TURN_PAIRED, True, 2),
    (TURN_LOPSIDED, True, 2)], ids=["turn", "turn-iso", "monotone-iso", "monotone", "paired-iso", "lopsided-iso"])
def test_turn_values_and_best_responses(params, isomorphism, symmetries):
    """Runouts dealt card by card; under isomorphism the random strategy is the same on
    information sets the spot's suit symmetries map onto each other (board and both ranges)."""
    oracle, _, _ = check_values(params, isomorphism, 5)
    assert len(oracle.symmetries) == symmetries


def test_flop_values_and_best_responses():
    """Two streets of runouts (turn then river), and the all-in on the flop that runs both out."""
    check_values(FLOP, False, 6)


def test_isomorphic_and_plain_trees_give_the_same_values():
    """The same symmetric strategy on the monotone turn: merged and unmerged boards agree."""
    oracle = SpotOracle(TURN_MONOTONE)
    policy = oracle.random_policy(9)
    a, b = spot(TURN_MONOTONE, True), spot(TURN_MONOTONE, False)
    sa, sb = oracle.flat_strategy(a, policy), oracle.flat_strategy(b, policy)
    assert a.layout(0).size < b.layout(0).size  # the boards were merged
    for x, y in zip(a.best_response(sa) + a.expected_values(sa), b.best_response(sb) + b.expected_values(sb)):
        assert close(x, y)


def _never_fold(oracle, policy):
    """`policy` with the fold action's probability moved to the call (showdowns only)."""
    t = oracle.tree
    folds = {t.history[n] for n in range(len(t.kind))
             if t.act_end[n] > t.act_start[n] and int(t.act_kind[t.act_start[n]]) == 0}

    def play(p, combo, board, history):
        probs = policy(p, combo, board, history)
        if history in folds:
            probs = probs.copy()
            probs[1] += probs[0]
            probs[0] = 0.0
        return probs

    return play


@pytest.mark.parametrize("rake, cap", [(0.05, 0.0), (0.05, 1.5), (0.1, 3.0)])
def test_rake_at_showdowns(rake, cap):
    """Raked showdowns (winner pays min(rake x pot, cap); a tie splits it): the expected values
    of a strategy that never folds (its best responses fold: checked in the next test)."""
    params = {**RIVER, "rake": rake, "rake_cap": cap}
    oracle = SpotOracle(params)
    game = spot(params, False)
    policy = _never_fold(oracle, oracle.random_policy(4))
    got = game.expected_values(oracle.flat_strategy(game, policy))
    want = oracle.expected_values(policy)
    assert close(got[0], want[0]) and close(got[1], want[1]), (got, want)
    assert got[0] + got[1] < -1e-3  # the rake left the table


@pytest.mark.parametrize("rake, cap, pot", [(0.05, 0.0, 20), (0.05, 1.5, 20), (0.1, 2.0, 21)])
def test_rake_with_folds(rake, cap, pot):
    """Folds under rake: the pot actually contested is raked (an uncalled bet goes back unraked;
    an odd pot's dead chip is in it)."""
    check_values({**RIVER, "rake": rake, "rake_cap": cap, "pot": pot}, False, 4)


# --- a solve through the command line --------------------------------------------------------------


def _solve(tmp_path, params, iterations, name="run"):
    return solve_spot(tmp_path, params, iterations, name)[1:]


@pytest.mark.parametrize("params, iterations", [(RIVER, 30), (TURN_MONOTONE, 8)], ids=["river", "turn-isomorphic"])
def test_cli_result_matches_the_oracle(tmp_path, params, iterations):
    """After a short solve, result.json's exploitability (% pot) = the average of both best
    responses the oracle computes from strategy.npz, its br_0 / br_1 the oracle's, its ev (chips)
    the strategy's values and its equity the ranges' equity."""
    result, game, strategy = _solve(tmp_path, params, iterations)
    assert result["unit"] == "% pot" and result["iterations"] == iterations
    oracle = SpotOracle(params)
    policy = oracle.policy_from_flat(game, strategy)
    br = (oracle.best_response(policy, 0), oracle.best_response(policy, 1))
    assert close(result["br_0"], br[0]) and close(result["br_1"], br[1]), (result, br)
    assert close(result["exploitability"], (br[0] + br[1]) / 2)
    assert result["exploitability"] > 0.01  # a short solve: far from the equilibrium, a real check
    ev = oracle.expected_values(policy)
    pot = params["pot"]
    for p in (0, 1):
        assert close(result["ev"][p], ev[p] * pot / 100 + pot // 2), (result["ev"], ev)
    (eq0, eq1), _ = oracle.equity()
    assert abs(result["equity"][0] - eq0) <= 1e-12 and abs(result["equity"][1] - eq1) <= 1e-12


@pytest.mark.parametrize("params, iterations", [({**RIVER, "sizes": {}, "rake": 0.05}, 2),
                                                ({**RIVER, "rake": 0.05, "rake_cap": 1.5, "pot": 21}, 20)],
                         ids=["no-bets", "river"])
def test_cli_exploitability_with_rake_is_the_average_gain(tmp_path, params, iterations):
    """With rake the values do not add up to 0: exploitability = ((br0 - v0) + (br1 - v1)) / 2,
    0 for a spot without bets (check, check, showdown: no decision matters)."""
    result, game, strategy = _solve(tmp_path, params, iterations)
    oracle = SpotOracle(params)
    policy = oracle.policy_from_flat(game, strategy)
    ev = oracle.expected_values(policy)
    gains = [oracle.best_response(policy, p) - ev[p] for p in (0, 1)]
    if not params["sizes"]:
        assert abs(gains[0]) < 1e-12 and abs(gains[1]) < 1e-12
    assert abs(result["exploitability"] - (gains[0] + gains[1]) / 2) <= 1e-9, (result["exploitability"], gains)
    pot = params["pot"]
    for p in (0, 1):
        assert close(result["ev"][p], ev[p] * pot / 100 + pot // 2), (result["ev"], ev)


# --- bad input: one line naming the value -------------------------------------------------------------

GOOD = dict(board="KsQd7h2c3s", pot=20, stack=30, oop_range="AA,KQ", ip_range="AK,QQ", sizes={"river": {"bet": "50%"}})


@pytest.mark.parametrize("change, named", [
    (dict(oop_range="AA,KQx"), "KQx"),
    (dict(ip_range="AK:1.5"), "1.5"),
    (dict(board="KsKs7h2c3s"), "Ks twice"),
    (dict(board="KsQd"), "KsQd"),
    (dict(board="KsQd7h2c3s4d"), "6 cards"),
    (dict(oop_range="KsQd"), "KsQd"),
    (dict(sizes={"rivr": {"bet": "50%"}}), "rivr"),
    (dict(sizes={"river": {"bet": "50"}}), "'50'"),
    (dict(sizes={"river": {"bet": "50%", "rase": "a"}}), "rase"),
    (dict(pot=1), "pot = 1"),
    (dict(stack=0), "stack = 0"),
], ids=["malformed-range", "weight", "board-card-twice", "board-2-cards", "board-6-cards", "range-empty-on-board",
        "unknown-street", "bad-size", "bad-size-key", "pot-1", "stack-0"])
def test_bad_input_is_one_line_naming_the_value(change, named):
    with pytest.raises(ConfigError) as err:
        solverkit.load_game("holdem_spot", **{**GOOD, **change})
    text = str(err.value)
    assert named in text and "\n" not in text, text
    if "sizes" in change and "rivr" in change["sizes"]:
        assert "valid: river" in text, text  # the street the spot has


def test_the_good_input_builds():
    """The base of the bad-input cases is itself fine (each case changes one value)."""
    game = solverkit.load_game("holdem_spot", **GOOD)
    assert len(game.gd.board) == 5 and game.layout(0).size > 0
