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


def live_runs(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The runs of consecutive live hands of each row of a live table (nonzero: live): (start
    int64 [rows + 1], runs int64 [n, 3]); row i's runs are runs[start[i]:start[i + 1]], each
    (first hand, hand after the last, live hands before the first). A block decodes and encodes
    run by run: each a contiguous stretch of values (a spot's river board: 13-19 runs of 273-416
    hands), where a test per hand made encoding and decoding five times slower. Made by a kernel
    in two sweeps (numpy's [rows, hands] temporaries left 14 MB resident)."""
    table = np.ascontiguousarray(rows)
    if table.dtype != np.uint8:
        table = (table != 0).astype(np.uint8)
    start = np.zeros(table.shape[0] + 1, dtype=np.int64)
    _count_runs(table, start)
    runs = np.empty((int(start[-1]), 3), dtype=np.int64)
    _fill_runs(table, start, runs)
    return start, runs


@njit(cache=True, nogil=True)
def _count_runs(table, start):
    for r in range(table.shape[0]):
        n = 0
        prev = 0
        for h in range(table.shape[1]):
            cur = 1 if table[r, h] else 0
            if cur and not prev:
                n += 1
            prev = cur
        start[r + 1] = start[r] + n


@njit(cache=True, nogil=True)
def _fill_runs(table, start, runs):
    for r in range(table.shape[0]):
        k = start[r]
        live = 0
        H = table.shape[1]
        h = 0
        while h < H:
            if table[r, h]:
                h0 = h
                while h < H and table[r, h]:
                    h += 1
                runs[k, 0], runs[k, 1], runs[k, 2] = h0, h, live
                live += h - h0
                k += 1
            else:
                h += 1


@njit(cache=True, nogil=True, inline="always")
def _zero(x, o, n):
    """x[o:o+n] = 0 (uint64 indices: numba's negative-index handling of signed ones kept such
    loops scalar, 15x slower)."""
    u = np.uint64(o)
    for i in range(np.uint64(n)):
        x[u + i] = 0.0


@njit(cache=True, nogil=True, inline="always")
def _zero_gaps(x, xo, H, A, starts, runs, row):
    """x's values of the hands row `row` does not keep = 0."""
    prev = 0
    for k in range(starts[row], starts[row + 1]):
        _zero(x, xo + prev * A, (runs[k, 0] - prev) * A)
        prev = runs[k, 1]
    _zero(x, xo + prev * A, (H - prev) * A)


@njit(cache=True, nogil=True, inline="always")
def _scaled(q, qo, x, xo, n, s):
    """x[xo:xo+n] = q[qo:qo+n] x s (uint64 indices, as :func:`_zero`)."""
    o, j = np.uint64(xo), np.uint64(qo)
    for i in range(np.uint64(n)):
        x[o + i] = q[j + i] * s


@njit(cache=True, nogil=True, inline="always")
def _quantized(x, xo, q, qo, n, inv):
    """q[qo:qo+n] = round(x[xo:xo+n] x inv) (uint64 indices, as :func:`_zero`)."""
    o, j = np.uint64(xo), np.uint64(qo)
    for i in range(np.uint64(n)):
        q[j + i] = np.int16(np.rint(x[o + i] * inv))


@njit(cache=True, nogil=True, inline="always")
def _put_kept(x, xo, H, A, starts, runs, row, q, qo, inv):
    """The values block x[xo:xo+H*A] keeps (every hand's when row < 0, else row `row`'s live
    runs) into q[qo:], in units of 1 / inv."""
    if row < 0:
        _quantized(x, xo, q, qo, H * A, inv)
        return
    for k in range(starts[row], starts[row + 1]):
        _quantized(x, xo + runs[k, 0] * A, q, qo + runs[k, 2] * A, (runs[k, 1] - runs[k, 0]) * A, inv)


@njit(cache=True, nogil=True)
def decode_live(q, qo, H, A, starts, runs, row, scales, b, x, xo):
    """Block b (H hands x A actions) into x[xo:xo+H*A] from its kept values q[qo:]: every hand's
    (row < 0), else those of row `row`'s live runs (:func:`live_runs`), 0 for the other hands."""
    s = scales[b]
    if row < 0:
        _scaled(q, qo, x, xo, H * A, s)
        return
    _zero_gaps(x, xo, H, A, starts, runs, row)
    for k in range(starts[row], starts[row + 1]):
        _scaled(q, qo + runs[k, 2] * A, x, xo + runs[k, 0] * A, (runs[k, 1] - runs[k, 0]) * A, s)


@njit(cache=True, nogil=True)
def encode_live(x, xo, H, A, starts, runs, row, q, qo, scales, b):
    """Scratch block x[xo:xo+H*A] into its kept values q[qo:] and scales[b] (the inverse of
    :func:`decode_live`): the hands row `row` does not keep are zeroed in x first (they read as 0)."""
    if row >= 0:
        _zero_gaps(x, xo, H, A, starts, runs, row)
    s = block_scale(abs_max(x, xo, H * A))
    scales[b] = s
    _put_kept(x, xo, H, A, starts, runs, row, q, qo, 1.0 / s if s != 0.0 else 0.0)  # 1 / s: a power of two, exact


@njit(cache=True, nogil=True)
def _live_max(x, o, H, A, starts, runs, row):
    """max |x| over the values of block rows `row` keeps (all when row < 0): the block's max when
    every other value is 0 (the usual case: one vectorised pass)."""
    m = abs_max(x, o, H * A)
    if row < 0 or m == 0.0:
        return m
    kept = 0.0
    for k in range(starts[row], starts[row + 1]):
        n = (runs[k, 1] - runs[k, 0]) * A
        v = abs_max(x, o + runs[k, 0] * A, n)
        kept = v if v > kept else kept
    return kept


@njit(cache=True, nogil=True)
def _encode_grid(x, offset, hands, actions, qoff, live, starts, runs, scales, q):
    for b in range(offset.shape[0]):
        o, H, A, row = offset[b], hands[b], actions[b], live[b]
        s = block_scale(_live_max(x, o, H, A, starts, runs, row))
        scales[b] = s
        _put_kept(x, o, H, A, starts, runs, row, q, qoff[b], 1.0 / s if s != 0.0 else 0.0)


@njit(cache=True, nogil=True)
def _decode_grid(scales, q, offset, hands, actions, qoff, live, starts, runs, b0, b1, base, x):
    for b in range(b0, b1):
        decode_live(q, qoff[b], hands[b], actions[b], starts, runs, live[b], scales, b, x, offset[b] - base)


@njit(cache=True, nogil=True)
def _round_grid(x, offset, hands, actions, live, starts, runs):
    for b in range(offset.shape[0]):
        o, H, A, row = offset[b], hands[b], actions[b], live[b]
        s = block_scale(_live_max(x, o, H, A, starts, runs, row))
        inv = 1.0 / s if s != 0.0 else 0.0
        if row >= 0:  # the hands not kept read as 0
            _zero_gaps(x, o, H, A, starts, runs, row)
        for i in range(o, o + H * A):
            x[i] = np.int16(np.rint(x[i] * inv)) * s


def encode(x: np.ndarray, grid, scales: np.ndarray, q: np.ndarray) -> None:
    """Scales [blocks] and kept int16 values q [grid.stored] of float64 array x laid out as `grid`
    (x is not changed; values of hands a block does not keep are dropped)."""
    live, starts, runs = grid.live_arrays
    _encode_grid(x, grid.offset, grid.hands, grid.actions, grid.stored_offset, live, starts, runs, scales, q)


def decode(scales: np.ndarray, q: np.ndarray, grid, x: np.ndarray, b0: int = 0, b1: int | None = None,
           base: int = 0) -> None:
    """Inverse of :func:`encode` (the hands not kept: 0): blocks b0..b1-1 into x, block b's values
    at x[grid.offset[b] - base:]."""
    live, starts, runs = grid.live_arrays
    _decode_grid(scales, q, grid.offset, grid.hands, grid.actions, grid.stored_offset, live, starts, runs, b0,
                 grid.offset.shape[0] if b1 is None else b1, base, x)


def round_in_place(x: np.ndarray, grid) -> None:
    """x = decode(encode(x)) in place (the same doubles): what a store that keeps values decoded
    applies after each update."""
    live, starts, runs = grid.live_arrays
    _round_grid(x, grid.offset, grid.hands, grid.actions, live, starts, runs)


def body_size(grid) -> int:
    """Bytes of a block16 body of `grid`: a float64 scale per block, an int16 per kept value."""
    return 8 * grid.offset.shape[0] + 2 * grid.stored


def split_body(raw: np.ndarray, grid) -> tuple[np.ndarray, np.ndarray]:
    """(scales float64 [blocks], kept values int16 [grid.stored]) views of a body's bytes."""
    blocks = grid.offset.shape[0]
    return raw[: 8 * blocks].view(np.float64), raw[8 * blocks:].view(np.int16)
