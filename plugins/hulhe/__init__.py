"""Heads-up limit Texas hold'em (the ACPC game Cepheus solved) and the smaller members of its family."""

from solverkit.core.hookspecs import hookimpl

from .games import Hulhe


@hookimpl
def register_games(register):
    register(Hulhe)
