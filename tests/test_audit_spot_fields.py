"""Audit of a spot's values on random small river and turn spots against tests/spot_oracle.py
(brute force, no code shared with the kernels): random boards, weighted ranges, the size kinds
tests/test_holdem_spot.py leaves out ("e", "2e", chips "Nc", "2.5x" with all-in raises, donk
sizes), raise_limit, the all-in thresholds, odd pots, rake with and without a cap. Checked:
expected values and best responses of a random strategy (game API), and result.json's ev,
equity, br_0, br_1 and exploitability after a short solve."""

from __future__ import annotations


import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solverkit.cli import cli
from solverkit.errors import ConfigError
from solverkit.poker.ranges import parse_range
from solverkit.poker.spot import HoldemSpot

from .spot_runs import solve_spot

from .spot_oracle import SpotOracle, card_text

REL = 1e-9
TOKENS = ["AA", "KK", "QQ", "JJ", "TT", "99", "55", "22", "AK", "AQs", "KQs", "KJo", "QJo", "JTs", "T9s", "98s",
          "76s", "A5s"]
SIZES = ["33%", "50%", "75%", "100%", "150%", "e", "2e", "a", "7c", "12c"]
RAISES = ["50%", "100%", "2.5x", "3x", "a", "9c"]
SETTINGS = settings(max_examples=6, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def close(a, b, rel=REL):
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


@st.composite
def spots(draw, cards: int, tokens_per_range: int):
    board = draw(st.lists(st.integers(0, 51), min_size=cards, max_size=cards, unique=True))
    board_text = "".join(card_text(c) for c in board)

    def a_range():
        picked = draw(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=tokens_per_range, unique=True))
        weights = draw(st.lists(st.sampled_from([1.0, 0.5, 0.25]), min_size=len(picked), max_size=len(picked)))
        return ",".join(t if w == 1.0 else f"{t}:{w}" for t, w in zip(picked, weights))

    oop, ip = a_range(), a_range()
    for r in (oop, ip):
        if not parse_range(r, tuple(board)).any():
            from hypothesis import reject

            reject()
    if SpotOracle(dict(board=board_text, pot=20, stack=10, oop_range=oop, ip_range=ip)).pair_mass() == 0:
        from hypothesis import reject

        reject()  # no deal: refused (test_ranges_without_a_deal_are_refused)
    pot = draw(st.sampled_from([20, 21, 30]))
    stack = draw(st.sampled_from([10, 25, 40, 60]))
    street = "river" if cards == 5 else "turn"

    def sizes(pool, lo=1, hi=2):
        return ", ".join(draw(st.lists(st.sampled_from(pool), min_size=lo, max_size=hi, unique=True)))

    table = {street: {"bet": sizes(SIZES), "raise": sizes(RAISES, 0, 2)}}
    if cards == 4:
        table["river"] = {"bet": sizes(SIZES), "raise": sizes(["a", "100%"], 0, 1)}
        if draw(st.booleans()):
            table["river"]["donk"] = sizes(SIZES, 0, 1)
    if draw(st.booleans()):
        table[draw(st.sampled_from(["oop", "ip"]))] = {street: {"bet": sizes(SIZES, 0, 2)}}
    params = dict(board=board_text, pot=pot, stack=stack, oop_range=oop, ip_range=ip, sizes=table)
    params["raise_limit"] = draw(st.sampled_from([-1, 0, 1, 2]))
    choice = draw(st.sampled_from(["none", "commit", "add", "force"]))
    if choice == "commit":
        params["allin_commit_threshold"] = 0.5
    elif choice == "add":
        params["add_allin_threshold"] = 1.5
    elif choice == "force":
        params["force_allin_threshold"] = 0.3
    if draw(st.booleans()):
        params["rake"] = draw(st.sampled_from([0.03, 0.05, 0.1]))
        params["rake_cap"] = draw(st.sampled_from([0.0, 1.0, 2.5]))
    return params


def check_random_strategy(params, seed):
    oracle = SpotOracle(params)
    game = HoldemSpot(**params, isomorphism=False)
    policy = oracle.random_policy(seed)
    strategy = oracle.flat_strategy(game, policy)
    got_ev, got_br = game.expected_values(strategy), game.best_response(strategy)
    want_ev = oracle.expected_values(policy)
    want_br = [oracle.best_response(policy, p) for p in (0, 1)]
    if params.get("rake", 0) > 0:
        shift = (want_ev[0] + want_ev[1]) / 2
        want_br = [b - shift for b in want_br]
    assert all(close(g, w) for g, w in zip(got_ev, want_ev)), (params, got_ev, want_ev)
    assert all(close(g, w) for g, w in zip(got_br, want_br)), (params, got_br, want_br)


@SETTINGS
@given(spots(5, 3), st.integers(0, 100))
def test_random_river_spots_values_and_best_responses(params, seed):
    check_random_strategy(params, seed)


@SETTINGS
@given(spots(4, 2), st.integers(0, 100))
def test_random_turn_spots_values_and_best_responses(params, seed):
    check_random_strategy(params, seed)


def _solve(tmp_path, params, iterations, name):
    return solve_spot(tmp_path, params, iterations, name)[1:]


@settings(max_examples=4, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                 HealthCheck.function_scoped_fixture])
@given(spots(5, 3))
def test_random_river_spots_result_fields(tmp_path_factory, params):
    """result.json after 15 iterations (isomorphism on, the default): ev (chips), equity, br_0,
    br_1 and exploitability (% pot) = the oracle's on strategy.npz."""
    tmp = tmp_path_factory.mktemp("r")
    result, game, strategy = _solve(tmp, params, 15, "run")
    oracle = SpotOracle(params)
    policy = oracle.policy_from_flat(game, strategy)
    ev = oracle.expected_values(policy)
    br = [oracle.best_response(policy, p) for p in (0, 1)]
    if params.get("rake", 0) > 0:
        shift = (ev[0] + ev[1]) / 2
        br = [b - shift for b in br]
    assert close(result["br_0"], br[0]) and close(result["br_1"], br[1]), (params, result, br)
    assert close(result["exploitability"], (br[0] + br[1]) / 2), (params, result, br)
    pot = params["pot"]
    for p in (0, 1):
        assert close(result["ev"][p], ev[p] * pot / 100 + pot // 2), (params, result["ev"], ev)
    (eq0, eq1), _ = oracle.equity()
    assert abs(result["equity"][0] - eq0) <= 1e-12 and abs(result["equity"][1] - eq1) <= 1e-12
    if params.get("rake", 0) == 0:
        assert close(result["ev"][0] + result["ev"][1], pot)


@pytest.mark.parametrize("oop, ip", [("AhAd", "AhAs"), ("KhKd:0.3,KhKs:0.7", "KhKs:0.1,KdKs:0.9,KhKd:0.3")],
                         ids=["exact-zero", "rounding-noise"])
def test_ranges_without_a_deal_are_refused(tmp_path, oop, ip):
    """Every oop combo shares a card with every ip combo: no deal. The pair mass (a difference of
    sums) was 0 (a ZeroDivisionError) or rounding noise (5.6e-17: the second case solved to
    "exploitability 35 % pot", ev [31.1, nan]); now a one-line ConfigError naming the ranges."""
    params = dict(board="2c2d2h2sAc", pot=20, stack=10, oop_range=oop, ip_range=ip, sizes={"river": {"bet": "33%"}})
    assert SpotOracle(params).pair_mass() == 0
    with pytest.raises(ConfigError) as err:
        HoldemSpot(**params).kernel_tree()
    text = str(err.value)
    assert oop in text and ip in text and "no deal" in text and "\n" not in text, text
    import tomli_w

    config = tmp_path / "c.toml"
    config.write_text(tomli_w.dumps({"preset": "dcfr", "game": {"name": "holdem_spot", **params}}))
    res = CliRunner().invoke(cli, ["solve", str(config), "--iterations", "2", "--out", str(tmp_path / "o")])
    assert res.exit_code != 0 and "no deal" in res.output, res.output
    assert not (tmp_path / "o" / "result.json").exists()
