"""The blueprint engine's game (``[game] name = "blueprint"``): external-sampling MCCFR over an
N-player ACPC game (limit or no-limit) and a card abstraction (solverkit.blueprint,
docs/blueprint.md); configs/blueprint_hunl.toml and configs/blueprint_6max.toml are its hold'em
blueprints."""

from solverkit.core.hookspecs import hookimpl

from .games import BlueprintGame


@hookimpl
def register_games(register):
    register(BlueprintGame)
