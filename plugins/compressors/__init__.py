"""Built-in compressors of the value store: none, zlib (baseline), blosc2 and huffman."""

from solverkit.core.hookspecs import hookimpl

from .blosc2 import Blosc2Compressor
from .huffman import HuffmanCompressor
from .none import NoCompression
from .zlib import ZlibCompressor


@hookimpl
def register_compressors(register):
    for cls in (NoCompression, ZlibCompressor, Blosc2Compressor, HuffmanCompressor):
        register(cls)
