"""Card abstractions (isomorphism, ehs, emd, ochs) and the ``solverkit abstraction`` commands."""

from solverkit.abstraction.plugin import METHODS
from solverkit.core.hookspecs import hookimpl


@hookimpl
def register_abstractions(register):
    for cls in METHODS:
        register(cls)


@hookimpl
def register_commands(cli):
    from .commands import add_commands

    add_commands(cli)
