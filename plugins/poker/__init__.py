"""Poker games from ACPC game definitions (any 2-player limit file, plus kuhn and leduc), and
`solverkit plot preflop`."""

from solverkit.core.hookspecs import hookimpl

from solverkit.poker.spot import HoldemSpot

from .games import AcpcGame, Kuhn, Leduc


@hookimpl
def register_games(register):
    for cls in (AcpcGame, Kuhn, Leduc, HoldemSpot):
        register(cls)


@hookimpl
def register_commands(cli):
    from .commands import add_commands

    add_commands(cli)
