"""Games described as trees for the generic engine: Kuhn and Leduc poker (oracles of the poker
engine and examples of :class:`solverkit.efg.TreeGame`)."""

from solverkit.core.hookspecs import hookimpl

from .games import KuhnTree, LeducTree


@hookimpl
def register_games(register):
    for cls in (KuhnTree, LeducTree):
        register(cls)
