"""One pass plan for every engine (core/pass_plan.py): a block's per-pass arrays are what each of
its passes gives alone, for two and more players, alternating and simultaneous."""

import numpy as np
import pytest

from solverkit.core.pass_job import PassBlock
from solverkit.core.pass_plan import average_mask, average_players, block_plan
from solverkit.core.passes import _bits, kernel_coefficients
from solverkit.core.registry import get_registry


def _make(kind, name, **params):
    return get_registry().get(kind, name)(**params)


def test_average_players():
    assert average_players((0,), 2) == [1] and average_players((1,), 2) == [0]
    assert average_players((0,), 3) == [2] and average_players((2,), 4) == [1]
    assert average_players((0, 1), 2) == [0, 1] and average_players((0, 1, 2), 3) == [0, 1, 2]


@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize("simultaneous", [False, True])
@pytest.mark.parametrize("rule,averaging,params", [("rm_plus", "linear", {}), ("dcfr", "quadratic", {}),
                                                   ("rm", "delayed", {"delay": 3}), ("rm_plus", "current", {}),
                                                   ("pcfr_plus", "uniform", {})])
def test_block_plan_is_its_passes(players, simultaneous, rule, averaging, params):
    groups = (tuple(range(players)),) if simultaneous else tuple((p,) for p in range(players))
    r = _make("rule", rule, **({"alpha": 1.5, "beta": 0.0} if rule == "dcfr" else {}))
    a = _make("averaging", averaging, **params)
    block = PassBlock(2, 6, groups, r, a)
    upd, avg, coeffs = block_plan(block, players)
    jobs = list(block.jobs())
    assert upd.shape == avg.shape == (len(jobs),) and coeffs.shape == (len(jobs), 6)
    for k, job in enumerate(jobs):
        c = kernel_coefficients(job)
        np.testing.assert_array_equal(coeffs[k], c)
        assert upd[k] == _bits(job.players)
        assert avg[k] == average_mask(job.players, players, a, c[4], c[5])
    if averaging == "current":
        assert not avg.any()
    if averaging == "delayed":  # iterations 2 and 3 weigh 0: nothing added to an average
        assert not avg[: 2 * len(groups)].any() and avg[2 * len(groups):].all()
