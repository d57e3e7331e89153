"""Poker games: ACPC game definitions (any 2-player file, limit or no-limit; kuhn and leduc),
no-limit hold'em postflop spots (holdem_spot), and
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
