"""Predictive rules (PCFR+, PDCFR+, SAPCFR+) applied inside the poker kernels (RegretRule.kernel_prediction):
the same doubles as the rule's update over the whole array after each pass, one pass at a time,
in blocks of passes and with the turn's cards walked in parallel chunks."""

import numpy as np
import pytest

from solverkit.core.config import load_config
from solverkit.core.solver import Solver
from solverkit.poker.pass_settings import GamePassSettings

from .store_values import stored_arrays

TURN = {"name": "holdem_spot", "board": "QsJh2h7d", "pot": 100, "stack": 200,
        "oop_range": "AA,KK,QQ,AQs,KQs,JTs,T9s,98s,A5s", "ip_range": "JJ,TT,AK,KQo,QTs,J9s,87s,76s",
        "sizes": {"turn": {"bet": "50%, a"}, "river": {"bet": "70%", "raise": "a"}}}


def _run(cfg: dict, iterations: int, block: bool):
    solver = Solver(load_config(cfg))
    try:
        if block:
            solver.step(iterations)
        else:
            for _ in range(iterations):
                solver.step()
        out = stored_arrays(solver.store)
        row = solver.evaluate()
        return out, row["exploitability"], solver.batches
    finally:
        solver.close()


def _same(cfg, iterations, block, monkeypatch):
    inside, expl, batches = _run(cfg, iterations, block)
    with monkeypatch.context() as m:
        m.setattr(GamePassSettings, "kernel_predictive", lambda self, rule, store, sampler=None: False)
        outside, expl_out, batches_out = _run(cfg, iterations, block)
    assert inside.keys() == outside.keys() and "pred0" in inside
    for name in inside:
        assert np.array_equal(inside[name], outside[name]), name
    assert expl == expl_out
    return batches, batches_out


@pytest.mark.parametrize("preset", ["pcfr_plus", "pdcfr_plus", "sapcfr_plus"])
def test_leduc_blocks_in_the_kernel_match_the_update_after_each_pass(preset, monkeypatch):
    batches, batches_out = _same({"preset": preset, "game": {"name": "leduc"}}, 40, True, monkeypatch)
    assert batches and not batches_out  # in the kernel, the passes run as blocks


@pytest.mark.parametrize("preset", ["pcfr_plus", "pdcfr_plus", "sapcfr_plus"])
@pytest.mark.parametrize("update", ["alternating", "simultaneous"])
def test_a_spot_in_parallel_chunks_matches_the_update_after_each_pass(preset, update, monkeypatch):
    cfg = {"preset": preset, "solver": {"update": update}, "game": {**TURN, "parallel_deals": True},
           "transport": {"name": "local", "threads": 2}}
    _same(cfg, 5, False, monkeypatch)


def test_not_in_the_kernel_where_it_cannot_be():
    asm = load_config({"preset": "pcfr_plus", "game": {"name": "leduc"}, "store": {"regret_scale": 65536,
                                                                                   "avg_scale": 65536,
                                                                                   "state_scale": 65536}})
    solver = Solver(asm)
    try:  # a fixed-point store rounds each update: the kernel's doubles would not be stored as they are
        assert not solver.game.kernel_predictive(asm.rule, solver.store)
    finally:
        solver.close()
    solver = Solver(load_config({"preset": "dcfr", "game": {"name": "leduc"}}))
    try:
        assert not solver.game.kernel_predictive(solver.assembly.rule, solver.store)
    finally:
        solver.close()


def test_a_subclass_that_changes_update_but_not_kernel_prediction_is_refused():
    from solverkit.core.rule import check_rule_class
    from solverkit.errors import PluginError
    from solverkit.rules import PredictiveCFRPlus

    class Damped(PredictiveCFRPlus):
        name = "damped"

        def update(self, regret, delta, t, state):
            super().update(regret, delta * 0.5, t, state)

    with pytest.raises(PluginError, match="kernel_prediction\\(\\) from PredictiveCFRPlus"):
        check_rule_class(Damped)

    class Kept(Damped):
        def kernel_prediction(self, t):
            return None

    check_rule_class(Kept)
