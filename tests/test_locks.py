"""Node locking of spots ([game.lock], solverkit.poker.locks): locked combos play the given
strategy, the rest is solved against it."""


import numpy as np
import pytest

from solverkit.errors import ConfigError
from solverkit.poker.node_view import node_view
from solverkit.poker.spot import HoldemSpot

from .spot_runs import solve_spot

RIVER = {"board": "QsJh2h7d3c", "pot": 100, "stack": 200, "oop_range": "AA,KK,QQ,AQs,KQs,JTs,T9s,98s",
         "ip_range": "AA,KK,QQ,JJ,AK,AQ,KQ,QJs,JTs", "sizes": {"river": {"bet": "50%, a", "raise": "100%"}}}


def _solve(tmp_path, game, iterations, name):
    out, result, _, _ = solve_spot(tmp_path, game, iterations, name)
    return out, result


def test_locking_a_node_to_check_solves_the_game_without_its_bets(tmp_path):
    """oop locked to check at the root = a spot where oop has no river bets: the same values."""
    _, locked = _solve(tmp_path, {**RIVER, "lock": {"": {"check": 1.0}}}, 150, "locked")
    no_bets = {**RIVER, "sizes": {"river": {"bet": "50%, a", "raise": "100%"}, "oop": {"river": {"bet": ""}}}}
    _, plain = _solve(tmp_path, no_bets, 150, "plain")
    assert locked["ev"] == pytest.approx(plain["ev"], rel=1e-12)
    assert locked["exploitability"] == pytest.approx(plain["exploitability"], rel=1e-9, abs=1e-12)


def test_a_range_lock_fixes_those_combos_and_leaves_the_others_free(tmp_path):
    lock = {"check": {"AA,KK": {"bet 50": 1.0}, "QJs": {"check": 0.25, "allin": 0.75}}}  # ip after a check
    out, result = _solve(tmp_path, {**RIVER, "lock": lock}, 60, "partial")
    game = HoldemSpot(**{**RIVER, "lock": lock}, isomorphism=True)
    z = np.load(out / "strategy.npz")
    view = node_view(game, [z["policy0"], z["policy1"]], "check")
    probs = {c: p for c, p, w in zip(view.combos, view.policy, view.reach) if w > 0}
    for c in ("AsAh", "KsKh", "AdAc"):
        assert list(probs[c]) == [0.0, 1.0, 0.0]
    assert list(probs["QsJs"]) == [0.25, 0.0, 0.75] if "QsJs" in probs else True
    assert list(probs["QhJh"]) == [0.25, 0.0, 0.75] if "QhJh" in probs else True
    free = [p for c, p in probs.items() if c[0] + c[2] not in ("AA", "KK", "QJ")]
    assert free and any(not np.allclose(p, p.round()) for p in free)  # the free combos mix
    assert result["exploitability"] < 5.0


@pytest.mark.parametrize("lock, match", [
    ({"": {"raise 30": 1.0}}, "not an action at this node; valid: check, bet 50, allin 200"),
    ({"": {"check": 0.5}}, "add up to 0.5, not 1"),
    ({"": {"check": 1.5}}, "expected a probability from 0 to 1"),
    ({"check,check": {"check": 1.0}}, "not at a decision"),
    ({"": {"AA": {"check": 1.0}, "check": 1.0}}, "mix of action = probability"),
    ({"": {"AQx": {"check": 1.0}}}, "'AQx'"),
    ({"": "check"}, "expected a table"),
])
def test_bad_locks_are_refused_naming_the_entry(lock, match):
    with pytest.raises(ConfigError, match=match):
        HoldemSpot(**{**RIVER, "lock": lock}, isomorphism=True).kernel_tree()


def test_a_lock_on_a_named_card_needs_isomorphism_off():
    turn = {**RIVER, "board": "QsJh2h7d", "sizes": {"turn": {"bet": "50%"}, "river": {"bet": "50%"}}}
    lock = {"check,check,Kd": {"check": 1.0}}
    with pytest.raises(ConfigError, match="isomorphism = false"):
        HoldemSpot(**turn, lock=lock, isomorphism=True).kernel_tree()
    kt = HoldemSpot(**turn, lock=lock, isomorphism=False).kernel_tree()
    assert kt.has_lock.sum() == 1 and np.isfinite(kt.lock0).sum() > 0


TURN = {**RIVER, "board": "QsJh2h7d", "sizes": {"turn": {"bet": "50%, a"}, "river": {"bet": "50%", "raise": "a"}}}
# a river node (below the cut of split_round = 1) and a turn node (above it)
TURN_LOCK = {"check,check,check": {"KK,AQs": {"bet 50": 1.0}}, "check,bet 50": {"QQ": {"fold": 0.5, "call": 0.5}}}


@pytest.mark.parametrize("variant", [
    {"game": {"split_round": 1}},
    {"store": {"precision": "block16"}, "game": {"split_round": 1}},
])
def test_locks_hold_in_a_split_game_and_a_compact_store(tmp_path, variant):
    """A split game (subgames find their locks by board) and the compact store (locked blocks
    decoded in the kernel) solve the locked game as the whole float64 tree does."""
    from solverkit.core.config import load_config
    from solverkit.core.solver import run_solve

    base = {"preset": "dcfr", "solver": {"iterations": 40, "eval_every": 40},
            "game": {"name": "holdem_spot", **TURN, "lock": TURN_LOCK}}
    whole = run_solve(load_config(base))
    cfg = {**base, "game": {**base["game"], **variant["game"]}, **{k: v for k, v in variant.items() if k != "game"}}
    other = run_solve(load_config(cfg))
    rel = 1e-9 if "store" not in variant else 0.05
    assert other.exploitability == pytest.approx(whole.exploitability, rel=rel)
    game = HoldemSpot(**TURN, lock=TURN_LOCK, isomorphism=True)
    for res in (whole, other):  # the locked combos play their lock in the output strategy
        view = node_view(game, res.strategy, "check,check,Kc,check")
        probs = {c: p for c, p, w in zip(view.combos, view.policy, view.reach) if w > 0}
        assert list(probs["KsKh"]) == [0.0, 1.0] and list(probs["AdQd"]) == [0.0, 1.0]  # check, bet 50


def test_a_lock_on_hands_the_player_to_act_does_not_hold_is_refused():
    """Locking a range none of whose combos the acting player holds would lock nothing: a
    one-line error naming the range, the player and its range."""
    with pytest.raises(ConfigError, match=r"'JJ' holds none of oop's combos") as err:
        HoldemSpot(**TURN, lock={"check,bet 50": {"JJ": {"fold": 1.0}}}).kernel_tree()
    assert "\n" not in str(err.value)


def test_a_locked_spot_refuses_a_distributed_strategy(tmp_path):
    """The locks are written into the strategy on the trunk; workers' strategy parts could not
    hold them, so zmq's checkpoint = "distributed" is refused before any worker starts."""
    from solverkit.core.config import load_config
    from solverkit.core.solver import run_solve

    cfg = {"preset": "dcfr", "solver": {"iterations": 2},
           "game": {"name": "holdem_spot", **TURN, "split_round": 1, "lock": TURN_LOCK},
           "transport": {"name": "zmq", "spawn": 1, "workers": 1, "checkpoint": "distributed", "connect_timeout": 5}}
    with pytest.raises(ConfigError, match=r"node locks .*use checkpoint = \"file\""):
        run_solve(load_config(cfg), out=tmp_path / "out")
    assert HoldemSpot(**TURN).parts_refusal() is None
