"""Review of the blueprint's regret rules: regret matching+ (rule rm_plus, MCCFR+, what the
sampler's own refusals recommend) keeps every cumulative regret at or above 0 (Tammelin 2014:
Q = max(Q + r, 0)). The blueprint's kernel adds deltas without a rule's floor, so rm_plus ran
as plain rm, the same strategy bit for bit; it must either floor or refuse the rule."""

from __future__ import annotations

import numpy as np
import pytest

from solverkit.core.config import load_config
from solverkit.core.solver import Solver
from solverkit.errors import ConfigError


@pytest.mark.parametrize("regrets", ["float64", "int32"])
def test_regret_matching_plus_floors_or_is_refused(regrets):
    asm = load_config({"game": {"name": "blueprint", "gamedef": "kuhn.limit.3p", "regrets": regrets},
                       "rule": {"name": "rm_plus"}, "averaging": {"name": "linear"},
                       "sampler": {"name": "external"}, "solver": {"seed": 1, "eval_every": 10**6}})
    try:
        s = Solver(asm)
        for _ in range(50):
            s.step()
    except ConfigError as err:
        assert "rm_plus" in str(err) and "\n" not in str(err)
        return
    reg = asm.game._regrets(np.asarray(s.store.read("root")["regret"]))
    assert reg.min() >= 0, f"rm_plus left {np.count_nonzero(reg < 0)} negative regrets (min {reg.min()})"
