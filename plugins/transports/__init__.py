"""Built-in transports (local, zmq) and the `solverkit worker` command of zmq."""

from solverkit.core.hookspecs import hookimpl

from .local import LocalTransport
from .zmq import ZmqTransport


@hookimpl
def register_transports(register):
    register(LocalTransport)
    register(ZmqTransport)


@hookimpl
def register_commands(cli):
    from .commands import add_commands

    add_commands(cli)
