"""The buffers an unsplit poker game's passes reuse for a stateful rule's policy sources and its
instantaneous regrets (solverkit.core.passes.segment_arrays' `scratch`): the same doubles as fresh
arrays every pass, and the same buffers from pass to pass."""

import numpy as np
import pytest

from solverkit.core.config import load_config
from solverkit.core.solver import Solver
from solverkit.poker.pass_settings import GamePassSettings
from solverkit.poker.walks import GameWalks

from .store_values import stored_arrays

RIVER = {"name": "holdem_spot", "board": "QsJh2h7d3c", "pot": 100, "stack": 200,
         "oop_range": "AA,KK,QQ,AQs,KQs,JTs,T9s,98s,A5s", "ip_range": "JJ,TT,AK,KQo,QTs,J9s,87s,76s",
         "sizes": {"river": {"bet": "70%, a", "raise": "a"}}}


def _stored(preset: str, iterations: int = 4):
    solver = Solver(load_config({"preset": preset, "solver": {"iterations": iterations}, "game": RIVER}))
    try:
        for _ in range(iterations):
            solver.step()
        out = stored_arrays(solver.store)
        return out, dict(solver.game.__dict__.get("_root_scratch") or {})
    finally:
        solver.close()


@pytest.mark.parametrize("preset", ["pcfr_plus", "pdcfr_plus"])
def test_reused_buffers_give_fresh_arrays_doubles(preset, monkeypatch):
    # the rule's update after each pass (as where the kernel cannot apply it: fixed-point or 16-bit
    # stores, locked hands, sampled passes)
    monkeypatch.setattr(GamePassSettings, "kernel_predictive", lambda self, rule, store, sampler=None: False)
    reused, scratch = _stored(preset)
    assert {"src0", "src1", "delta0", "delta1"} <= scratch.keys()
    monkeypatch.setattr(GameWalks, "_pass_scratch", lambda self, key: None)
    fresh, none = _stored(preset)
    assert not none and reused.keys() == fresh.keys()
    for name in fresh:
        assert np.array_equal(reused[name], fresh[name]), name
