"""The OpenSpiel bridge: any two-player zero-sum OpenSpiel game, enumerated into the generic
extensive-form engine (game ``openspiel``, param ``game`` = a ``pyspiel.load_game`` string)."""

from solverkit.core.hookspecs import hookimpl

from .games import OpenSpielGame


@hookimpl
def register_games(register):
    register(OpenSpielGame)
