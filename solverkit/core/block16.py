"""16-bit values scaled per block: the compact store (``[store] precision = "block16"``).

Each grid block (one public node on one board: hands x actions values) keeps its own scale and
every value as round(value / scale) in an int16, as postflop-solver's compressed mode does. The
scale is the power of two that puts the block's largest magnitude in [16384, 32767] units, so
nothing is clipped, a value decodes exactly (q x 2^e), and encoding decoded values gives the
same integers and scale back (a block that a pass does not touch stays as it was, whether the
segment was decoded whole or the kernel updated blocks in place). What is lost: values under
half a unit of their block's scale, i.e. 2^-15 to 2^-16 of the block's largest.

A frame's body, and the compact store's live buffer of one array: the blocks' float64 scales
(grid order), then the int16 values in array order.
"""

from __future__ import annotations

import math

import numpy as np
from .jit import njit

#: the largest stored magnitude
UNITS = 32767.0


@njit(cache=True, nogil=True, inline="always")
def block_scale(m):
    """The power of two s with m / s in [16384, 32767] (0.0 for m == 0: an all-zero block)."""
    if m == 0.0:
        return 0.0
    f, e = math.frexp(m)
    s = math.ldexp(1.0, e - 15)
    if m > UNITS * s:
        s *= 2.0
    return s


#: the bits of a double without its sign
_MAGNITUDE = np.int64(0x7FFFFFFFFFFFFFFF)
_MANTISSA = np.int64((1 << 52) - 1)


@njit(cache=True, nogil=True, inline="always")
def abs_max(x, xo, n):
    """max |x[xo:xo+n]| (0.0 for n == 0), exactly: the largest of the values' bit patterns without
    the sign, which order as the magnitudes do (no NaN is stored), rebuilt as a double. An integer
    max vectorises where a floating one does not: 4x faster on a block of 800 values, which made
    encoding cost twice decoding."""
    bits = x.view(np.int64)
    m = np.int64(0)
    for i in range(n):
        v = bits[xo + i] & _MAGNITUDE
        m = v if v > m else m
    e = m >> 52
    if e == 0:  # zero or subnormal
        return math.ldexp(float(m & _MANTISSA), -1074)
    return math.ldexp(float((m & _MANTISSA) | (np.int64(1) << 52)), int(e) - 1075)


@njit(cache=True, nogil=True)
def encode_block(x, xo, n, q, qo, scales, b):
    """Values x[xo:xo+n] of block b into q[qo:qo+n] and scales[b]."""
    m = abs_max(x, xo, n)
    s = block_scale(m)
    scales[b] = s
    if s == 0.0:
        for i in range(n):
            q[qo + i] = 0
        return
    inv = 1.0 / s  # a power of two: x * inv is exact
    for i in range(n):
        q[qo + i] = np.int16(np.rint(x[xo + i] * inv))


@njit(cache=True, nogil=True)
def decode_block(q, qo, n, scales, b, x, xo):
    """Block b's values q[qo:qo+n] x scales[b] into x[xo:xo+n]."""
    s = scales[b]
    for i in range(n):
        x[xo + i] = q[qo + i] * s


@njit(cache=True, nogil=True)
def encode(x, offset, hands, actions, scales, q):
    """Scales [blocks] and int16 values q [n] of float64 array x laid out in blocks (grid order)."""
    for b in range(offset.shape[0]):
        encode_block(x, offset[b], hands[b] * actions[b], q, offset[b], scales, b)


@njit(cache=True, nogil=True)
def decode(scales, q, offset, hands, actions, x):
    """Inverse of :func:`encode`: x[i] = q[i] x its block's scale."""
    for b in range(offset.shape[0]):
        decode_block(q, offset[b], hands[b] * actions[b], scales, b, x, offset[b])


@njit(cache=True, nogil=True)
def round_in_place(x, offset, hands, actions):
    """x = decode(encode(x)) in place (the same doubles): what a store that keeps values decoded
    applies after each update."""
    for b in range(offset.shape[0]):
        o = offset[b]
        n = hands[b] * actions[b]
        s = block_scale(abs_max(x, o, n))
        if s == 0.0:
            for i in range(o, o + n):
                x[i] = 0.0
            continue
        inv = 1.0 / s
        for i in range(o, o + n):
            x[i] = np.int16(np.rint(x[i] * inv)) * s


def body_size(blocks: int, n: int) -> int:
    """Bytes of a block16 body: a float64 scale per block, an int16 per value."""
    return 8 * blocks + 2 * n


def split_body(raw: np.ndarray, blocks: int) -> tuple[np.ndarray, np.ndarray]:
    """(scales float64 [blocks], values int16 [n]) views of a body's bytes."""
    return raw[: 8 * blocks].view(np.float64), raw[8 * blocks:].view(np.int16)
