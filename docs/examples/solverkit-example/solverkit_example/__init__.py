"""solverkit-example: a weighted rock-paper-scissors game and a discounted RM+ regret rule.

solverkit finds this module through the ``solverkit`` entry point in pyproject.toml and calls
the hooks below when its registry is built. A hook only calls ``register``; it may run again
whenever the set of plugins changes.
"""

from solverkit.core.hookspecs import hookimpl

from .game import RockPaperScissors
from .rules import DiscountedRMPlus

__version__ = "0.1.0"


@hookimpl
def register_games(register):
    register(RockPaperScissors)


@hookimpl
def register_regret_rules(register):
    register(DiscountedRMPlus)
