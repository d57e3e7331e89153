"""The blueprint engine's game (``[game] name = "blueprint"``): external-sampling MCCFR over an
N-player ACPC limit game and a card abstraction (solverkit.blueprint, docs/blueprint.md)."""

from solverkit.core.hookspecs import hookimpl

from .games import BlueprintGame


@hookimpl
def register_games(register):
    register(BlueprintGame)
