"""Built-in compressors of the value store."""

from solverkit.core.hookspecs import hookimpl

from .none import NoCompression


@hookimpl
def register_compressors(register):
    register(NoCompression)
