"""16-bit values scaled per block: the compact store (``[store] precision = "block16"``).

Each grid block (one public node on one board: hands x actions values) keeps its own scale and
every value as round(value / scale) in an int16, as postflop-solver's compressed mode does. The
scale is the power of two that puts the block's largest magnitude in [16383.5, 32767] units, so
nothing is clipped, a value decodes exactly (q x 2^e), and encoding decoded values gives the
same integers and scale back (a block that a pass does not touch stays as it was, whether the
segment was decoded whole or the kernel updated blocks in place). What is lost: values under
half a unit of their block's scale, i.e. 2^-15 to 2^-16 of the block's largest.

A frame's body, and the compact store's live buffer of one array: the blocks' float64 scales
(grid order), then the int16 values in array order, of the hands each block keeps only: a grid
with a live table (:class:`.grid.Grid`) drops the hands its board blocks (a hold'em spot's river:
8% of the values; their values are always 0 and read as 0).
"""

from __future__ import annotations

import math

import numpy as np
from .jit import njit

#: the largest stored magnitude
UNITS = 32767.0


@njit(cache=True, nogil=True, inline="always")
def block_scale(m):
    """The power of two s with m / s in [16383.5, 32767] (0.0 for m == 0: an all-zero block; below 16384 only
    for m just under 32768 x a power of two, which would round to 32768 and clip)."""
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
def decode_live(q, qo, H, A, rows, row, scales, b, x, xo):
    """Block b (H hands x A actions) into x[xo:xo+H*A] from its kept values q[qo:]: every hand's
    (row < 0), else those of the hands live in rows[row] (0 for the others)."""
    s = scales[b]
    if row < 0:
        for i in range(H * A):
            x[xo + i] = q[qo + i] * s
        return
    j = qo
    for h in range(H):
        if rows[row, h]:
            for a in range(A):
                x[xo + h * A + a] = q[j + a] * s
            j += A
        else:
            for a in range(A):
                x[xo + h * A + a] = 0.0


@njit(cache=True, nogil=True)
def encode_live(x, xo, H, A, rows, row, q, qo, scales, b):
    """Scratch block x[xo:xo+H*A] into its kept values q[qo:] and scales[b] (the inverse of
    :func:`decode_live`): the hands rows[row] does not keep are zeroed in x first (they read as 0)."""
    if row >= 0:
        for h in range(H):
            if not rows[row, h]:
                for a in range(A):
                    x[xo + h * A + a] = 0.0
    s = block_scale(abs_max(x, xo, H * A))
    scales[b] = s
    inv = 1.0 / s if s != 0.0 else 0.0  # a power of two: x * inv is exact
    j = qo
    for h in range(H):
        if row < 0 or rows[row, h]:
            for a in range(A):
                q[j + a] = np.int16(np.rint(x[xo + h * A + a] * inv))
            j += A


@njit(cache=True, nogil=True)
def _live_max(x, o, H, A, rows, row):
    """max |x| over block rows rows[row] keeps (all when row < 0); the block's max when every other
    row is 0 (the usual case: one vectorised pass)."""
    m = abs_max(x, o, H * A)
    if row < 0 or m == 0.0:
        return m
    for h in range(H):
        if not rows[row, h]:
            for a in range(A):
                if x[o + h * A + a] != 0.0:
                    m = 0.0
                    for k in range(H):
                        if rows[row, k]:
                            for c in range(A):
                                v = abs(x[o + k * A + c])
                                m = v if v > m else m
                    return m
    return m


@njit(cache=True, nogil=True)
def _encode_grid(x, offset, hands, actions, qoff, live, rows, scales, q):
    for b in range(offset.shape[0]):
        o, H, A, row = offset[b], hands[b], actions[b], live[b]
        s = block_scale(_live_max(x, o, H, A, rows, row))
        scales[b] = s
        inv = 1.0 / s if s != 0.0 else 0.0
        j = qoff[b]
        for h in range(H):
            if row < 0 or rows[row, h]:
                for a in range(A):
                    q[j + a] = np.int16(np.rint(x[o + h * A + a] * inv))
                j += A


@njit(cache=True, nogil=True)
def _decode_grid(scales, q, offset, hands, actions, qoff, live, rows, b0, b1, base, x):
    for b in range(b0, b1):
        decode_live(q, qoff[b], hands[b], actions[b], rows, live[b], scales, b, x, offset[b] - base)


@njit(cache=True, nogil=True)
def _round_grid(x, offset, hands, actions, live, rows):
    for b in range(offset.shape[0]):
        o, H, A, row = offset[b], hands[b], actions[b], live[b]
        s = block_scale(_live_max(x, o, H, A, rows, row))
        inv = 1.0 / s if s != 0.0 else 0.0
        for h in range(H):
            keep = s != 0.0 and (row < 0 or rows[row, h])
            for i in range(o + h * A, o + h * A + A):
                x[i] = np.int16(np.rint(x[i] * inv)) * s if keep else 0.0


def encode(x: np.ndarray, grid, scales: np.ndarray, q: np.ndarray) -> None:
    """Scales [blocks] and kept int16 values q [grid.stored] of float64 array x laid out as `grid`
    (x is not changed; values of hands a block does not keep are dropped)."""
    live, rows = grid.live_arrays
    _encode_grid(x, grid.offset, grid.hands, grid.actions, grid.stored_offset, live, rows, scales, q)


def decode(scales: np.ndarray, q: np.ndarray, grid, x: np.ndarray, b0: int = 0, b1: int | None = None,
           base: int = 0) -> None:
    """Inverse of :func:`encode` (the hands not kept: 0): blocks b0..b1-1 into x, block b's values
    at x[grid.offset[b] - base:]."""
    live, rows = grid.live_arrays
    _decode_grid(scales, q, grid.offset, grid.hands, grid.actions, grid.stored_offset, live, rows, b0,
                 grid.offset.shape[0] if b1 is None else b1, base, x)


def round_in_place(x: np.ndarray, grid) -> None:
    """x = decode(encode(x)) in place (the same doubles): what a store that keeps values decoded
    applies after each update."""
    live, rows = grid.live_arrays
    _round_grid(x, grid.offset, grid.hands, grid.actions, live, rows)


def body_size(grid) -> int:
    """Bytes of a block16 body of `grid`: a float64 scale per block, an int16 per kept value."""
    return 8 * grid.offset.shape[0] + 2 * grid.stored


def split_body(raw: np.ndarray, grid) -> tuple[np.ndarray, np.ndarray]:
    """(scales float64 [blocks], kept values int16 [grid.stored]) views of a body's bytes."""
    blocks = grid.offset.shape[0]
    return raw[: 8 * blocks].view(np.float64), raw[8 * blocks:].view(np.int16)
