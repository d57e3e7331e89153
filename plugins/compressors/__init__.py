"""Built-in compressors of the value store: none, zlib (baseline) and blosc2."""

from solverkit.core.hookspecs import hookimpl

from .blosc2 import Blosc2Compressor
from .none import NoCompression
from .zlib import ZlibCompressor


@hookimpl
def register_compressors(register):
    for cls in (NoCompression, ZlibCompressor, Blosc2Compressor):
        register(cls)
