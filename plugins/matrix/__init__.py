"""Matrix games plugin: skewed matching pennies, random N x M games, matrices from files."""

from solverkit.core.hookspecs import hookimpl

from .games import MatrixFile, RandomMatrix, SkewedPennies


@hookimpl
def register_games(register):
    for cls in (SkewedPennies, RandomMatrix, MatrixFile):
        register(cls)
