"""huffman: an entropy coder for the fixed-point store's zigzag residuals, in numba.

Each 32-bit word is coded as the Huffman code of its bit length followed by the bits below its
leading one (see huffman_kernels). On real Rhode Island residuals this is 10-20% smaller than
blosc2's zstd level 1, encodes 1.24x faster and decodes as fast (bench/results/store_codecs.md,
the predictor included). Words are whatever the
store hands over: zigzag residuals with a fixed-point scale (what it is made for); without a
scale, float64 values are coded as pairs of 32-bit words, exactly but with little gain.

Payload: magic ``SKH``, version, the class of an all-one-class array (255: none), the number of
trailing bytes (0-3, stored as they are after the header), 33 code lengths, the number of words
coded and the number of 32-bit words of bits that follow.
"""

from __future__ import annotations

import functools
import struct

import numpy as np

from solverkit.core.compressor import Compressor

from .huffman_kernels import (CLASSES, LIMIT, NO_CLASS, canonical_codes, class_counts, code_lengths,
                              decode_table, decode_words, encode_words)

MAGIC = b"SKH"
VERSION = 1
_HEAD = struct.Struct(f"<3sBBB{CLASSES}sQQ")
_PAD = (-_HEAD.size) % 4  # the bits start on a 4-byte boundary after header and tail
MAX_WORDS = 1 << 34  # what decompress() allocates at most (64 GB)
_EXTRA = np.maximum(np.arange(CLASSES) - 1, 0)  # extra bits per class


@functools.lru_cache(maxsize=64)
def _table(lengths: bytes, only: int) -> np.ndarray:
    """The decode table of a code (32 KB; arrays coded alike share their codes, so a few are kept)."""
    table = decode_table(np.frombuffer(lengths, dtype=np.uint8), np.int64(only))
    table.flags.writeable = False
    return table


class HuffmanCompressor(Compressor):
    """Huffman codes of the residuals' bit lengths plus their low bits: one pass to count, one
    to write, one table lookup per value to read; no parameters."""

    name = "huffman"
    description = "Huffman-coded bit lengths + raw low bits of 32-bit residuals (numba; for fixed-point stores)"
    params = {}

    def compress(self, data, typesize):
        mv = memoryview(data).cast("B")
        n = len(mv) // 4
        tail = bytes(mv[4 * n:])
        v = np.frombuffer(mv, dtype="<u4", count=n)
        counts = class_counts(v)
        lengths = code_lengths(counts)
        used = np.flatnonzero(counts)
        only = int(used[0]) if used.size == 1 else NO_CLASS
        nwords = (int(np.sum(counts * (lengths.astype(np.int64) + _EXTRA))) + 31) // 32
        start = _HEAD.size + _PAD + 4 * ((len(tail) + 3) // 4)
        out = bytearray(start + 4 * nwords)
        _HEAD.pack_into(out, 0, MAGIC, VERSION, only, len(tail), lengths.tobytes(), n, nwords)
        out[_HEAD.size + _PAD: _HEAD.size + _PAD + len(tail)] = tail
        written = encode_words(v, canonical_codes(lengths), lengths, np.frombuffer(out, dtype="<u4", offset=start))
        assert written == nwords, (written, nwords)
        return out

    def _parse(self, payload):
        """(code lengths as 33 bytes, only, tail, words, count) of a payload, checked."""
        mv = memoryview(payload).cast("B")
        if len(mv) < _HEAD.size:
            raise ValueError(f"huffman payload of {len(mv)} bytes is shorter than its header")
        magic, version, only, ntail, lens, count, nwords = _HEAD.unpack_from(mv)
        if magic != MAGIC or version != VERSION:
            raise ValueError(f"not a huffman payload of version {VERSION} (magic {magic!r}, version {version})")
        longest = max(lens)
        if ntail > 3 or longest > LIMIT or (only != NO_CLASS and (only >= CLASSES or longest)):
            raise ValueError("huffman payload header is corrupt")
        if sum(1 << (LIMIT - x) for x in lens if x) > 1 << LIMIT:  # Kraft's sum, in units of 2**-LIMIT
            raise ValueError("huffman code lengths are not a prefix code")
        start = _HEAD.size + _PAD + 4 * ((ntail + 3) // 4)
        if len(mv) != start + 4 * nwords:
            raise ValueError(f"huffman payload is {len(mv)} bytes, its header says {start + 4 * nwords}")
        tail = bytes(mv[_HEAD.size + _PAD: _HEAD.size + _PAD + ntail])
        return lens, only, tail, np.frombuffer(mv, dtype="<u4", offset=start, count=nwords), count

    def _decode(self, parsed, dst: np.ndarray):
        lens, only, tail, words, count = parsed
        if dst.size != 4 * count + len(tail):
            raise ValueError(f"decodes to {4 * count + len(tail)} bytes, expected {dst.size}")
        if decode_words(words, _table(lens, only), dst[: 4 * count].view("<u4")) != 0:
            raise ValueError("huffman payload does not decode (a window that starts no code, or a truncated stream)")
        dst[4 * count:] = np.frombuffer(tail, dtype=np.uint8)

    def decompress(self, payload):
        parsed = self._parse(payload)
        if parsed[4] > MAX_WORDS:  # the store decodes into buffers of known size; this is for the rest
            raise ValueError(f"huffman payload says it holds {parsed[4]} words, more than {MAX_WORDS}")
        dst = np.empty(4 * parsed[4] + len(parsed[2]), dtype=np.uint8)
        self._decode(parsed, dst)
        return dst.tobytes()

    def decompress_into(self, payload, out):
        self._decode(self._parse(payload), np.frombuffer(out, dtype=np.uint8))
