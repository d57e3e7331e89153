"""A whole spot walked in chunks of its dealt cards on threads ([game] parallel_deals) stores the
same doubles as one walk: the chunks leave their boards' values below the first round, and the
first round collects them board by board in one walk's order."""

import numpy as np
import pytest

from solverkit.core.config import load_config
from solverkit.core.solver import Solver
from solverkit.poker.game import _balanced_ranges

from .store_values import stored_arrays

TURN = {"name": "holdem_spot", "board": "QsJh2h7d", "pot": 100, "stack": 200,
        "oop_range": "AA,KK,QQ,AQs,KQs,JTs,T9s,98s,A5s", "ip_range": "JJ,TT,AK,KQo,QTs,J9s,87s,76s",
        "sizes": {"turn": {"bet": "50%, a"}, "river": {"bet": "70%", "raise": "a"}}}


def _stored(game: dict, extra: dict, iterations: int = 3):
    cfg = {"preset": "dcfr", "solver": {"iterations": iterations}, "transport": {"name": "local", "threads": 2},
           "game": {**TURN, **game}, **extra}
    solver = Solver(load_config(cfg))
    try:
        assert solver.game._parallel_deals(solver.transport) == game["parallel_deals"]
        for _ in range(iterations):
            solver.step()
        out = stored_arrays(solver.store, by_segment=True)
        br = solver.game.best_response_from_store(solver.store, "average", transport=solver.transport)
        return out, br
    finally:
        solver.close()


@pytest.mark.parametrize("extra", [{}, {"store": {"precision": "block16"}}])
def test_parallel_deals_store_one_walks_doubles(extra):
    one, br_one = _stored({"parallel_deals": False}, extra)
    chunked, br_chunked = _stored({"parallel_deals": True}, extra)
    assert one.keys() == chunked.keys()
    for key in one:
        assert np.array_equal(one[key], chunked[key]), key
    assert br_one == br_chunked


def test_balanced_ranges_cover_every_board_once():
    assert _balanced_ranges(5, np.array([1, 1, 1, 1]), 2) == [(5, 7), (7, 9)]
    ranges = _balanced_ranges(0, np.array([10, 1, 1, 1, 1, 10]), 4)
    assert ranges[0][0] == 0 and ranges[-1][1] == 6
    assert all(a < b and b == c for (a, b), (c, _) in zip(ranges, ranges[1:]))
    assert _balanced_ranges(3, np.array([7]), 4) == [(3, 4)]
