"""Built-in transports."""

from solverkit.core.hookspecs import hookimpl

from .local import LocalTransport
from .zmq import ZmqTransport


@hookimpl
def register_transports(register):
    register(LocalTransport)
    register(ZmqTransport)
