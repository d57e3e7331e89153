"""Rhode Island hold'em (Shi and Littman 2001): the true game and its ACPC-ranked variant."""

from solverkit.core.hookspecs import hookimpl

from .games import RhodeIsland, RhodeIslandAcpc


@hookimpl
def register_games(register):
    for cls in (RhodeIsland, RhodeIslandAcpc):
        register(cls)
