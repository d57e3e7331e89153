"""Built-in transports (local, zmq, dask) and the `solverkit worker` command of zmq."""

from solverkit.core.hookspecs import hookimpl

from .daskcluster import DaskTransport
from .local import LocalTransport
from .zmq import ZmqTransport


@hookimpl
def register_transports(register):
    register(LocalTransport)
    register(ZmqTransport)
    register(DaskTransport)


@hookimpl
def register_commands(cli):
    from .commands import add_commands

    add_commands(cli)
