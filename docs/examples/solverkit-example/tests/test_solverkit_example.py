"""The plugin honours its contract: it registers, validates parameters, and solves to the known
equilibrium."""

import numpy as np
import pytest

from solverkit.core.config import load_config
from solverkit.core.solver import run_solve
from solverkit.errors import ConfigError
from solverkit_example import DiscountedRMPlus, RockPaperScissors


def test_registers_game_and_rule(registry):
    assert registry.get("game", "rock_paper_scissors") is RockPaperScissors
    assert registry.get("rule", "discounted_rm_plus") is DiscountedRMPlus


def test_bad_parameter_names_value_and_range(registry):
    with pytest.raises(ConfigError, match=r"\[game\] \(rock_paper_scissors\) rock = 0 is invalid: expected a number > 0"):
        load_config({"preset": "cfr_plus", "game": {"name": "rock_paper_scissors", "rock": 0}}, registry=registry)


def test_rule_coefficients():
    rule = DiscountedRMPlus(alpha=1.0)
    assert rule.coefficients(1) == (0.5, 1.0, 0.0)
    regret = np.array([1.0, -1.0, 0.0])
    rule.update(regret, np.array([1.0, 0.5, -2.0]), 3)  # max(R + r, 0) * 3/4
    np.testing.assert_allclose(regret, [1.5, 0.0, 0.0])


@pytest.mark.parametrize("payoffs", [{}, {"scissors": 2.0}, {"rock": 3.0, "paper": 0.5}])
def test_solves_to_the_closed_form_equilibrium(registry, payoffs):
    config = {
        "game": {"name": "rock_paper_scissors", **payoffs},
        "rule": "discounted_rm_plus",
        "averaging": "linear",
        "solver": {"iterations": 2000},
    }
    result = run_solve(load_config(config, registry=registry))
    game = RockPaperScissors(**payoffs)
    assert result.exploitability < 1e-3
    for strategy in result.strategy:
        np.testing.assert_allclose(strategy, game.equilibrium(), atol=1e-2)
