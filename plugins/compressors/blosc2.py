"""blosc2: fast blocked compression with byte-shuffle filters (zstd or lz4 inside)."""

from __future__ import annotations

import struct

import numpy as np

from solverkit.core.compressor import Compressor
from solverkit.core.params import Param

#: blosc2 compresses less than 2 GB per call; larger arrays go in pieces of this many bytes
PIECE = 1 << 30
_COUNT = struct.Struct("<I")
_LEN = struct.Struct("<Q")

CODECS = ("zstd", "lz4", "lz4hc", "blosclz", "zlib")
FILTERS = ("shuffle", "bitshuffle", "bytedelta", "none")


class Blosc2Compressor(Compressor):
    """blosc2 with the typesize of the stored integers, so shuffle groups bytes of equal weight;
    calls release the GIL (``blosc2.set_releasegil``, process-wide) so subgame threads overlap.

    ``filter = "bytedelta"`` is shuffle followed by byte-wise differences (good on smooth
    integers); ``shuffle`` and ``bitshuffle`` alone; ``none`` for the raw codec.
    """

    name = "blosc2"
    description = "blosc2 (zstd/lz4 with shuffle, bitshuffle or bytedelta filters)"
    params = {
        "codec": Param("str", "zstd", "inner codec", choices=CODECS),
        "level": Param("int", 3, "compression level (0 none .. 9 most)", min=0, max=9),
        "filter": Param("str", "shuffle", "filter before the codec", choices=FILTERS),
        "threads": Param("int", 1, "blosc2 threads per call (the store already runs segments in parallel)",
                         min=1, max=256),
    }

    def __init__(self, **params):
        super().__init__(**params)
        import blosc2

        self._blosc2 = blosc2
        # compress2/decompress2 build a context per call, so they may run outside the GIL: the
        # store's threads then compress in parallel (about 1.9x on two cores, same bytes)
        blosc2.set_releasegil(True)
        f = self.config.get("filter", "shuffle")
        F = blosc2.Filter
        self._filters = {"shuffle": [F.SHUFFLE], "bitshuffle": [F.BITSHUFFLE],
                         "bytedelta": [F.SHUFFLE, F.BYTEDELTA], "none": [F.NOFILTER]}[f]
        self._codec = {"zstd": blosc2.Codec.ZSTD, "lz4": blosc2.Codec.LZ4, "lz4hc": blosc2.Codec.LZ4HC,
                       "blosclz": blosc2.Codec.BLOSCLZ, "zlib": blosc2.Codec.ZLIB}[self.config.get("codec", "zstd")]

    def compress(self, data, typesize):
        b2 = self._blosc2
        mv = memoryview(data).cast("B")
        pieces = [mv[i: i + PIECE] for i in range(0, len(mv), PIECE)] or [mv]
        out = [_COUNT.pack(len(pieces))]
        for piece in pieces:
            c = b2.compress2(piece, typesize=typesize, clevel=self.config.get("level", 3), codec=self._codec,
                             filters=self._filters, filters_meta=[0] * len(self._filters),
                             nthreads=self.config.get("threads", 1))
            out.append(_LEN.pack(len(c)))
            out.append(c)
        return b"".join(out)

    def _pieces(self, payload):
        """The compressed pieces of a payload (memoryviews), checked against its framing."""
        mv = memoryview(payload)
        (count,), pos = _COUNT.unpack_from(mv), _COUNT.size
        out = []
        for _ in range(count):
            (n,) = _LEN.unpack_from(mv, pos)
            pos += _LEN.size
            if pos + n > len(mv):
                raise ValueError("blosc2 payload truncated")
            out.append(mv[pos: pos + n])
            pos += n
        if pos != len(mv):
            raise ValueError(f"blosc2 payload has {len(mv) - pos} trailing bytes")
        return out

    def decompress(self, payload):
        threads = self.config.get("threads", 1)
        out = [self._blosc2.decompress2(bytes(p), nthreads=threads) for p in self._pieces(payload)]
        return out[0] if len(out) == 1 else b"".join(out)

    def decompress_into(self, payload, out):
        """Each piece straight into its place in `out` (no fresh pages to fault in)."""
        b2 = self._blosc2
        dst = np.frombuffer(out, dtype=np.uint8)
        pos = 0
        for piece in self._pieces(payload):
            piece = bytes(piece)
            n = b2.get_cbuffer_sizes(piece)[0]
            if pos + n > dst.size:
                raise ValueError(f"decodes to more than the {dst.size} bytes expected")
            if n:
                b2.decompress2(piece, dst=dst[pos: pos + n], nthreads=self.config.get("threads", 1))
            pos += n
        if pos != dst.size:
            raise ValueError(f"decoded to {pos} bytes, expected {dst.size}")
