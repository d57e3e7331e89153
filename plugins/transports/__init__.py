"""Built-in transports."""

from solverkit.core.hookspecs import hookimpl

from .local import LocalTransport


@hookimpl
def register_transports(register):
    register(LocalTransport)
