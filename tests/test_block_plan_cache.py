"""The poker engine's blocks of full passes take their per-pass kernel arrays from a plan made for
many iterations at once (pass_settings.PLAN_SPAN) and sliced: every slice must be, bit for bit,
the arrays of a plan of the block alone; and a run's first iteration, run as a block of one
kernel call, must leave the store as the two passes of one call each did."""

import numpy as np
import pytest

from solverkit.core.config import load_config
from solverkit.core.game import PassBlock
from solverkit.core.solver import Solver
from solverkit.poker import pass_settings

SPOT = {"name": "holdem_spot", "board": "QsJh2h8d3c", "pot": 20, "stack": 80, "oop_range": "AA,KK,AKs,JTs",
        "ip_range": "QQ,JJ,AQs,T9s", "sizes": {"river": {"bet": "50%, a", "raise": "a"}}}
CASES = [({"preset": "dcfr"}), ({"rule": {"name": "lcfr"}, "averaging": {"name": "linear", "until": 7}}),
         ({"rule": {"name": "pdcfr_plus"}, "averaging": {"name": "power", "gamma": 5}}),
         ({"rule": {"name": "rm_plus"}, "averaging": {"name": "delayed", "delay": 3},
           "solver": {"update": "simultaneous"}})]


def _solver(extra, iterations=300):
    cfg = {"game": SPOT, **extra}
    cfg["solver"] = {**extra.get("solver", {}), "iterations": iterations}
    return Solver(load_config(cfg))


@pytest.mark.parametrize("extra", CASES)
def test_slices_of_the_plan_are_the_blocks_own_arrays(extra):
    s = _solver(extra)
    try:
        a, game = s.assembly, s.game
        span = pass_settings.PLAN_SPAN
        # blocks inside one plan, across its end, longer than it, and one that starts a new plan further on
        for first, count in [(1, 1), (2, 9), (11, 10), (span - 3, 10), (span + 7, 2 * span + 1), (5000, 10), (3, 4)]:
            block = PassBlock(first, count, s.groups, a.rule, a.averaging, a.sampler)
            got = game._block_arrays(block)
            want = (*game._plan_arrays(block), count * len(s.groups) * game.pass_nodes(pass_settings._FULL))
            for g, w in zip(got[:-1], want[:-1]):
                assert g.dtype == w.dtype and g.shape == w.shape and g.flags.c_contiguous
                assert g.tobytes() == w.tobytes()
            assert got[-1] == want[-1]
    finally:
        s.close()


@pytest.mark.parametrize("extra", CASES[:2])
def test_the_first_iteration_as_a_block_is_the_two_passes(extra):
    stores = []
    for planned in (None, 50):  # None: one pass per player (a run of one iteration); 50: one block
        s = _solver(extra)
        try:
            s.planned_iterations = planned
            assert s._single_block() == (planned is not None)
            s.step(1)
            s.step(4)
            stores.append({k: np.array(v) for k, v in s.store.read("root").items()})
        finally:
            s.close()
    assert stores[0].keys() == stores[1].keys()
    for k in stores[0]:
        assert stores[0][k].tobytes() == stores[1][k].tobytes(), k


def test_runs_that_never_block_keep_their_passes():
    """One iteration at a time (a 1-iteration run, an evaluation after every iteration, a resumed
    run's later iterations) stays two passes: such a run does not load the block kernel."""
    for extra, planned, iteration in [({}, 1, 0), ({"solver": {"eval_every": 1}}, 50, 0), ({}, 50, 3), ({}, 50, 0)]:
        s = _solver({"preset": "dcfr", **extra})
        try:
            s.planned_iterations, s.iteration = planned, iteration
            assert s._single_block() == (planned > 1 and iteration == 0 and not extra)
        finally:
            s.close()
