"""The identity codec: values stay as plain float64 arrays in memory."""

from solverkit.core.compressor import Compressor


class NoCompression(Compressor):
    """No compression; the store keeps decoded arrays and never copies them."""

    name = "none"
    description = "no compression (arrays stay in memory as float64)"
    passthrough = True

    def compress(self, data, typesize):
        return bytes(data)

    def decompress(self, payload):
        return payload
