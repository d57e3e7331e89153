"""Shared by the 3-player match tests: a 3-player Kuhn run solved once per module."""

from solverkit.core.config import load_config
from solverkit.core.solver import run_solve


def solved_kuhn3(tmp_path_factory, game: str, iterations: int, nash_conv: float):
    """Run directory of 3-player `game` (kuhn or kuhn_tree) solved by CFR+ for `iterations`
    iterations, checked to reach NashConv below `nash_conv` chips."""
    out = tmp_path_factory.mktemp(f"{game}3")
    res = run_solve(load_config({"preset": "cfr_plus", "game": {"name": game, "players": 3},
                                 "solver": {"iterations": iterations}}), out=out)
    assert res.metrics[-1]["nash_conv"] < nash_conv
    return out
