"""zlib (DEFLATE) from the standard library: the classic baseline to compare blosc2 against."""

import zlib

from solverkit.core.compressor import Compressor
from solverkit.core.params import Param


class ZlibCompressor(Compressor):
    """DEFLATE at a fixed level; slow and modest, but everywhere (a reference point)."""

    name = "zlib"
    description = "zlib DEFLATE (standard library baseline)"
    params = {"level": Param("int", 6, "compression level (1 fastest .. 9 smallest)", min=1, max=9)}

    def compress(self, data, typesize):
        return zlib.compress(data, self.config["level"])

    def decompress(self, payload):
        return zlib.decompress(payload)
