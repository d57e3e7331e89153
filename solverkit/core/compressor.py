"""Base class of compressors: lossless bytes <-> bytes codecs used by the value store."""

from __future__ import annotations

from typing import ClassVar

from .params import Param


class Compressor:
    """A lossless codec. The store hands it the raw bytes of one array of `typesize`-byte items.

    ``passthrough = True`` tells the store that encoding is the identity, so it may keep
    decoded arrays in memory and skip the copy (the ``none`` compressor).
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    params: ClassVar[dict[str, Param]] = {}
    passthrough: ClassVar[bool] = False

    def __init__(self, **params):
        self.config = params

    def compress(self, data: memoryview, typesize: int) -> bytes:
        """Encode the raw bytes of an array whose items are `typesize` bytes wide."""
        raise NotImplementedError

    def decompress(self, payload: bytes) -> bytes:
        """Decode what :meth:`compress` produced, exactly."""
        raise NotImplementedError

    def decompress_into(self, payload: bytes, out: memoryview) -> None:
        """Decode into `out` (a writable byte buffer of exactly the decoded size), so the store
        can reuse its buffers; raise ValueError if the decoded size differs. The default calls
        :meth:`decompress` and copies; override it where the codec writes in place."""
        data = self.decompress(payload)
        if len(data) != len(out):
            raise ValueError(f"decoded to {len(data)} bytes, expected {len(out)}")
        out[:] = data
