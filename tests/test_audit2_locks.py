"""Second audit of node locking ([game.lock]) against tests/spot_oracle.py (brute force, no kernel
code): flop spots (a lock on the flop, some combos or all, and on a turn node of a flop spot) and
first-street locks under suit isomorphism, where a merged board of a later street stands for its
suit images. result.json's br_0, br_1, exploitability and ev must be the locked oracle's on the
saved strategy (tests/test_audit_locks.py's LockedOracle: a locked information set plays its lock
and a best response maximises only where the strategy is free)."""

from __future__ import annotations

from solverkit.poker.spot import HoldemSpot

from .spot_oracle import SpotOracle
from .test_audit_locks import MONO, LockedOracle, _members, check_result, decision_paths, lock_table, solve

#: a monotone flop: suits c, d and h are symmetric for both ranges (oop's aces and ip's queens
#: without a spade, ip's JsTs); one size a street keeps the oracle's best responses to ~1 s
FLOP = dict(board="Ks7s2s", pot=20, stack=20, oop_range="AhAd,AhAc,AdAc", ip_range="QdQc,QhQd,QhQc,JsTs",
            sizes={"flop": {"bet": "50%"}, "turn": {"bet": "50%"}})


def _locked_solve(tmp_path, params, spec, iterations, name, every=None):
    """Solve `params` with the locks `spec` ({path: (player, [(range, probs)])}) and `every`
    ({path: (player, probs)}: the table form without ranges, every combo of the player to act)."""
    import numpy as np

    probe = HoldemSpot(**{**params, "isomorphism": False})
    oracle0 = SpotOracle(params)
    table, locks = lock_table(probe, oracle0, {path: {c: probs for rng, probs in per for c in _members(oracle0, p, rng)}
                                               for path, (p, per) in spec.items()})
    nodes = {path: n for n, path in decision_paths(probe)}
    for path, (p, probs) in (every or {}).items():
        table[path] = dict(zip(probe.action_labels(nodes[path]), probs))
        locks |= {(p, c, probe.tree.bet.history[nodes[path]]): np.asarray(probs) for c in oracle0.members[p]}
    run = {**params, "lock": table}
    result, game, strategy = solve(tmp_path, run, iterations, name)
    return result, game, strategy, LockedOracle(params, locks), run


def test_an_asymmetric_first_street_lock_under_isomorphism_is_exact(tmp_path):
    """Monotone turn, isomorphism on: oop's AhAd alone locked to bet at the root. AhAd and AhAc
    then reach the river with different weights, and a river board merged with its suit image
    played one's weight for the other's: result.json said exploitability 1.827 (br_1 -4.94)
    where the locked oracle gives 3.149 (br_1 -2.25) on the saved strategy; isomorphism off
    gave 1.210, exactly the oracle's. Isomorphism now merges only boards the locks keep alike."""
    result, game, strategy, oracle, run = _locked_solve(tmp_path, MONO, {"": (0, [("AhAd", [0.0, 1.0])])}, 30, "mono")
    check_result(result, oracle, game, strategy, run)
    assert game.tree_isomorphic and len(game.board_perms()) == 2  # merges h <-> d (AhAd's own image) only


def test_flop_locks_on_the_flop_and_on_a_turn_node(tmp_path):
    """A flop spot under isomorphism: ip's QhQd locked to fold to the flop bet (a first-street
    lock telling suit-symmetric combos apart), every ip combo locked to a mix after oop checks the
    flop, ip's JsTs locked to bet the turn after two checks on every turn card (a symmetric
    later-street lock): the locked oracle's values."""
    spec = {"bet 10": (1, [("QhQd", [1.0, 0.0])]), "check,check,check": (1, [("JsTs", [0.0, 1.0])])}
    every = {"check": (1, [0.6, 0.4])}
    result, game, strategy, oracle, run = _locked_solve(tmp_path, FLOP, spec, 6, "flop", every)
    assert game.tree_isomorphic
    check_result(result, oracle, game, strategy, run)


def test_info_sizes_a_spot_with_a_first_street_lock():
    """`solverkit info` sizes a game from a probe without a tree: a first-street lock's suit
    permutations are read from the betting tree alone, and the merged boards counted are the
    tree's (AhAd locked: only h <-> d merges river cards)."""
    params = {**MONO, "lock": {"": {"AhAd": {"bet 10": 1.0}}}, "isomorphism": True}
    rows = dict(HoldemSpot.size_report(params))
    assert rows
    game = HoldemSpot(**params)
    assert game.game_size().boards_iso[1] == game.tree.boards.round_start[2] - game.tree.boards.round_start[1] == 35
