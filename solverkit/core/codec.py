"""How a segment's float64 arrays become bytes and back: fixed point, predictor, compressor, frame.

    float64 values --(x scale per block, round)--> int32 --(predictor)--> zigzag residuals (uint32)
        --(compressor plugin)--> body --(frame: header, description, body)--> payload

A frame describes itself (version 2): besides its kind and count it records the run id, the
segment key and array name it belongs to, the fixed-point factors per round it was written with,
the predictor and the compressor's name, and a crc32 covers the description and the body. A
frame read with other settings, or under another segment, array or run, is refused
(:class:`CorruptSegment` naming the field, the recorded and the expected value), so a stored
integer is never decoded with a factor it was not written with.

Without a scale (``regret_scale = 0``) the float64 bytes go to the compressor as they are and
round-trip exactly. With one, the decoded values are the fixed-point values ``q / scale``: the
solver then runs on the stored precision, as the original CFR+ implementation did. A *grid*
(:class:`Grid`) says where each (public node, board) block of hands x actions lies, which block
holds the same node on the previous board ("north"), and in which order to visit its hands
(strength order), so that neighbours predict each other.
"""

from __future__ import annotations

import struct
import threading
import zlib
from dataclasses import dataclass

import msgpack
import numpy as np
from numba import njit

from ..errors import ConfigError, SolverkitError
from . import block16

MAGIC = b"SKV"
FRAME_VERSION = 2
KIND_FLOAT64 = 0
KIND_FIXED32 = 1
KIND_BLOCK16 = 2
#: magic, version, crc32 (of everything after it: kind, count, description length, description,
#: body), kind, number of values, description length
_HEADER = struct.Struct("<3sBIBQH")
_CRC_FROM = 8  # the crc covers the frame from this byte on
_COVERED = struct.Struct("<BQH")
_OLD_HEADER = struct.Struct("<3sBB")  # what every version starts with
KIND_NAMES = {KIND_FLOAT64: "float64", KIND_FIXED32: "fixed-point int32", KIND_BLOCK16: "16-bit block-scaled"}
#: ``[store] precision`` choices: the float64 store (or int32 fixed point with ``regret_scale``) or
#: 16-bit values scaled per block (:mod:`.block16`)
PRECISIONS = ("float64", "block16")
INT32_MAX = 2**31 - 1


class CorruptSegment(SolverkitError):
    """A stored payload does not decode: bad magic, checksum, size or codec error."""


@dataclass(frozen=True)
class Grid:
    """Blocks of an array for the predictor: block i holds ``hands[i] x actions[i]`` values from
    ``offset[i]`` (hands outer, actions inner); ``north[i]`` is the block of the same node on
    the previous board (-1: none); ``round[i]`` picks the scale factor; ``order[i]`` is a row of
    the grid's ``orders`` table giving the order of the block's hands (-1: index order);
    ``visit`` is the order in which the north-predicting modes code the blocks (None: index
    order), so that a game may link each board to any earlier one in an order of its choosing
    (HULHE: boards sorted by flush suits, then rank)."""

    offset: np.ndarray
    hands: np.ndarray
    actions: np.ndarray
    north: np.ndarray
    round: np.ndarray
    order: np.ndarray
    orders: np.ndarray  # int64 [rows, max hands]
    visit: np.ndarray | None = None

    @property
    def visit_order(self) -> np.ndarray:
        """Blocks in coding order."""
        return np.arange(self.offset.size, dtype=np.int64) if self.visit is None else self.visit

    @classmethod
    def flat(cls, size: int) -> "Grid":
        """No structure: one block of `size` single-action 'hands' in index order, round 0."""
        one = np.ones(1, dtype=np.int64)
        return cls(np.zeros(1, np.int64), one * size, one, -one, np.zeros(1, np.int64), -one,
                   np.zeros((0, 1), np.int64))

    @classmethod
    def from_layout(cls, layout) -> "Grid":
        """One block per layout block (information sets as hands), no north neighbours."""
        n = layout.block_start.shape[0]
        minus = np.full(n, -1, dtype=np.int64)
        return cls(layout.block_start.astype(np.int64), layout.block_count.astype(np.int64),
                   layout.block_actions.astype(np.int64), minus, np.zeros(n, np.int64), minus.copy(),
                   np.zeros((0, 1), np.int64))

    @property
    def size(self) -> int:
        return int(np.sum(self.hands * self.actions))


# --- kernels ---------------------------------------------------------------------------------


#: predictor modes: what a value is predicted from (its residual is what gets compressed)
PREDICTORS = {"none": 0, "west": 1, "north": 2, "gradient": 3}


@njit(cache=True, nogil=True, inline="always")
def _zigzag(r):
    """int64 residual -> wrapped to int32 -> zigzag uint32 (small magnitudes, small codes)."""
    w = ((r + 0x80000000) & 0xFFFFFFFF) - 0x80000000
    return np.uint32(((w << 1) ^ (w >> 63)) & 0xFFFFFFFF)


@njit(cache=True, nogil=True, inline="always")
def _unzigzag(z, p):
    """Inverse of _zigzag(q - p): the int32 q."""
    r = (z >> 1) ^ -(z & 1)
    return np.int32((((r + p) + 0x80000000) & 0xFFFFFFFF) - 0x80000000)


@njit(cache=True, nogil=True, inline="always")
def _gradient(q, o, no, h, g, A, a):
    """Prediction of value (hand h, action a) from west (hand g, -1: none) + north - northwest,
    the north block at offset no; the first hand has north alone."""
    if g < 0:
        return np.int64(q[no + h * A + a])
    return np.int64(q[o + g * A + a]) + q[no + h * A + a] - q[no + g * A + a]


@njit(cache=True, nogil=True)
def _order_buffer(hands):
    """Scratch for one block's hand order (as long as the largest block)."""
    hmax = 1
    for b in range(hands.shape[0]):
        hmax = max(hmax, hands[b])
    return np.empty(hmax, dtype=np.int64)


@njit(cache=True, nogil=True)
def _block_order(order, orders, b, H, out):
    if order[b] < 0:
        for j in range(H):
            out[j] = j
    else:
        row = order[b]
        for j in range(H):
            out[j] = orders[row, j]


@njit(cache=True, nogil=True, inline="always")
def _visit_block(vb, visit, mode, offset, hands, actions, north):
    """(block, actions, hands, offset, values, north block, north offset) of the vb-th block
    coded: blocks go in `visit` order where a north prediction needs it, else in index order."""
    b = visit[vb] if mode >= 2 else vb
    A = actions[b]
    H = hands[b]
    nb = north[b] if mode >= 2 else -1
    return b, A, H, offset[b], H * A, nb, (offset[nb] if nb >= 0 else 0)


@njit(cache=True, nogil=True)
def _encode_fixed(x, offset, hands, actions, north, rnd, order, orders, visit, scales, mode, q, res):
    """Block by block: q = round(x * scale) saturated to int32, then the zigzag residual of q
    against its prediction into res (mode 0 none: q's bits; 1 west: the previous hand in the
    block's order; 2 north: the same value in the north block, layout order; 3 gradient:
    west + north - northwest), blocks in `visit` order. Returns the number of saturated values.
    Arithmetic on residuals wraps modulo 2^32, so decoding is exact whatever the values."""
    sat = 0
    pos = 0
    ordv = _order_buffer(hands)
    for vb in range(visit.shape[0]):
        b, A, H, o, n, nb, no = _visit_block(vb, visit, mode, offset, hands, actions, north)
        s = scales[rnd[b]]
        for i in range(o, o + n):
            v = np.rint(x[i] * s)
            c = min(max(v, -2147483647.0), 2147483647.0)
            if c != v:
                sat += 1
            q[i] = np.int32(c)
        if mode == 0:
            for i in range(n):
                res[pos + i] = np.uint32(np.int64(q[o + i]) & 0xFFFFFFFF)
        elif mode == 2:
            if nb >= 0:
                for i in range(n):
                    res[pos + i] = _zigzag(np.int64(q[o + i]) - q[no + i])
            else:
                for i in range(n):
                    res[pos + i] = _zigzag(np.int64(q[o + i]))
        elif nb < 0:  # west only: differences along the block's hand order
            _block_order(order, orders, b, H, ordv)
            g = o + ordv[0] * A
            for a in range(A):
                res[pos + a] = _zigzag(np.int64(q[g + a]))
            k = pos + A
            for j in range(1, H):
                h = o + ordv[j] * A
                for a in range(A):
                    res[k + a] = _zigzag(np.int64(q[h + a]) - q[g + a])
                g = h
                k += A
        else:
            _block_order(order, orders, b, H, ordv)
            k = pos
            for j in range(H):
                h = ordv[j]
                g = ordv[j - 1] if j > 0 else -1
                for a in range(A):
                    res[k] = _zigzag(q[o + h * A + a] - _gradient(q, o, no, h, g, A, a))
                    k += 1
        pos += n
    return sat


@njit(cache=True, nogil=True)
def _decode_fixed(res, offset, hands, actions, north, rnd, order, orders, visit, scales, mode, q, x):
    """Inverse of _encode_fixed: q from the residuals, then x = q * (1 / scale). West-only
    blocks run as a prefix sum per action with the running value in a register."""
    pos = 0
    ordv = _order_buffer(hands)
    for vb in range(visit.shape[0]):
        b, A, H, o, n, nb, no = _visit_block(vb, visit, mode, offset, hands, actions, north)
        if mode == 0:
            for i in range(n):
                q[o + i] = np.int32(((np.int64(res[pos + i]) + 0x80000000) & 0xFFFFFFFF) - 0x80000000)
        elif mode == 2:
            if nb >= 0:
                for i in range(n):
                    q[o + i] = _unzigzag(np.int64(res[pos + i]), np.int64(q[no + i]))
            else:
                for i in range(n):
                    q[o + i] = _unzigzag(np.int64(res[pos + i]), np.int64(0))
        elif nb < 0:  # west only: q along the order is a running sum of the residuals
            _block_order(order, orders, b, H, ordv)
            for a in range(A):
                acc = np.int64(0)
                for j in range(H):
                    acc = _wrap_add(acc, np.int64(res[pos + j * A + a]))
                    q[o + ordv[j] * A + a] = np.int32(acc)
        else:
            _block_order(order, orders, b, H, ordv)
            k = pos
            for j in range(H):
                h = ordv[j]
                g = ordv[j - 1] if j > 0 else -1
                for a in range(A):
                    q[o + h * A + a] = _unzigzag(np.int64(res[k]), _gradient(q, o, no, h, g, A, a))
                    k += 1
        inv = 1.0 / scales[rnd[b]]
        for i in range(o, o + n):
            x[i] = q[i] * inv
        pos += n


@njit(cache=True, nogil=True, inline="always")
def _quantize(v, s):
    """(q, saturated): round(v * s) clamped to the int32 range, and 1 where it was clamped."""
    r = np.rint(v * s)
    c = min(max(r, -2147483647.0), 2147483647.0)
    return np.int64(c), np.int64(c != r)


@njit(cache=True, nogil=True, inline="always")
def _wrap_add(acc, z):
    """acc + unzigzag(z), wrapped to int32 (held in an int64)."""
    return (((acc + ((z >> 1) ^ -(z & 1))) + 0x80000000) & 0xFFFFFFFF) - 0x80000000


@njit(cache=True, nogil=True)
def _encode_west(x, offset, hands, actions, rnd, order, orders, scales, res):
    """Mode 1 (west) of _encode_fixed, specialised: each block is quantized in one sequential
    sweep into an L1-sized scratch, then walked in its hand order with the previous hand's values
    in registers (2 and 3 actions; a generic loop otherwise). Same residuals, about 1.8x faster:
    gathering from the array itself in hand order misses the cache on every hand."""
    sat = 0
    pos = 0
    nmax = 1
    for b in range(offset.shape[0]):
        nmax = max(nmax, hands[b] * actions[b])
    qb = np.empty(nmax, dtype=np.int64)
    prev = np.zeros(nmax, dtype=np.int64)
    for b in range(offset.shape[0]):
        A = actions[b]
        H = hands[b]
        o = offset[b]
        s = scales[rnd[b]]
        row = order[b]
        for i in range(H * A):
            qb[i], over = _quantize(x[o + i], s)
            sat += over
        if A == 2:
            p0 = p1 = np.int64(0)
            for j in range(H):
                h = (orders[row, j] if row >= 0 else j) * 2
                q0, q1 = qb[h], qb[h + 1]
                res[pos], res[pos + 1] = _zigzag(q0 - p0), _zigzag(q1 - p1)
                p0, p1 = q0, q1
                pos += 2
        elif A == 3:
            p0 = p1 = p2 = np.int64(0)
            for j in range(H):
                h = (orders[row, j] if row >= 0 else j) * 3
                q0, q1, q2 = qb[h], qb[h + 1], qb[h + 2]
                res[pos], res[pos + 1], res[pos + 2] = _zigzag(q0 - p0), _zigzag(q1 - p1), _zigzag(q2 - p2)
                p0, p1, p2 = q0, q1, q2
                pos += 3
        else:
            for a in range(A):
                prev[a] = 0
            for j in range(H):
                h = (orders[row, j] if row >= 0 else j) * A
                for a in range(A):
                    res[pos] = _zigzag(qb[h + a] - prev[a])
                    prev[a] = qb[h + a]
                    pos += 1
    return sat


@njit(cache=True, nogil=True)
def _decode_west(res, offset, hands, actions, rnd, order, orders, scales, x):
    """Inverse of _encode_west: a running int32 sum per action along the block's hand order
    (in registers for 2 and 3 actions), written straight to float64."""
    pos = 0
    amax = 1
    for b in range(offset.shape[0]):
        amax = max(amax, actions[b])
    acc = np.zeros(amax, dtype=np.int64)
    for b in range(offset.shape[0]):
        A = actions[b]
        H = hands[b]
        o = offset[b]
        inv = 1.0 / scales[rnd[b]]
        row = order[b]
        if A == 2:
            a0 = a1 = np.int64(0)
            for j in range(H):
                h = o + (orders[row, j] if row >= 0 else j) * 2
                a0, a1 = _wrap_add(a0, np.int64(res[pos])), _wrap_add(a1, np.int64(res[pos + 1]))
                x[h], x[h + 1] = a0 * inv, a1 * inv
                pos += 2
        elif A == 3:
            a0 = a1 = a2 = np.int64(0)
            for j in range(H):
                h = o + (orders[row, j] if row >= 0 else j) * 3
                a0 = _wrap_add(a0, np.int64(res[pos]))
                a1 = _wrap_add(a1, np.int64(res[pos + 1]))
                a2 = _wrap_add(a2, np.int64(res[pos + 2]))
                x[h], x[h + 1], x[h + 2] = a0 * inv, a1 * inv, a2 * inv
                pos += 3
        else:
            for a in range(A):
                acc[a] = 0
            for j in range(H):
                h = o + (orders[row, j] if row >= 0 else j) * A
                for a in range(A):
                    acc[a] = _wrap_add(acc[a], np.int64(res[pos]))
                    x[h + a] = acc[a] * inv
                    pos += 1


@njit(cache=True, nogil=True)
def _round_in_place(x, offset, hands, actions, rnd, scales):
    """x = decode(encode(x)) without the predictor or the compressor: each value rounded to its
    block's fixed point and saturated as _encode_west does, then multiplied by 1 / scale as
    _decode_west does (the same operations, so the same doubles). Returns the number saturated
    and the largest |value| in stored units among them (0.0: none)."""
    sat = 0
    peak = 0.0
    for b in range(offset.shape[0]):
        s = scales[rnd[b]]
        inv = 1.0 / s
        o = offset[b]
        for i in range(o, o + hands[b] * actions[b]):
            q, over = _quantize(x[i], s)
            if over:
                sat += 1
                peak = max(peak, abs(x[i]) * s)
            x[i] = np.int32(q) * inv
    return sat, peak


def check_grid(grid: Grid, size: int, where: str) -> None:
    """A grid must cover an array of `size` values exactly once, with north blocks before and
    shaped like their blocks (the kernels rely on it and do not check)."""
    if grid.size != size:
        raise SolverkitError(f"{where}: the grid covers {grid.size} values, the array has {size}")
    covered = np.zeros(size, dtype=np.int32)
    for o, h, a in zip(grid.offset, grid.hands, grid.actions):
        covered[int(o): int(o + h * a)] += 1
    if covered.size and (covered.min() != 1 or covered.max() != 1):
        raise SolverkitError(f"{where}: the game's grid does not cover the array exactly once")
    visit = grid.visit_order
    if visit.shape != grid.offset.shape or not np.array_equal(np.sort(visit), np.arange(visit.size)):
        raise SolverkitError(f"{where}: the grid's visit order is not a permutation of its {visit.size} blocks")
    rank = np.empty(visit.size, dtype=np.int64)
    rank[visit] = np.arange(visit.size)
    has = grid.north >= 0
    if np.any(grid.north >= grid.offset.size) or np.any(rank[grid.north[has]] >= rank[has]):
        raise SolverkitError(f"{where}: a grid block's north neighbour must be visited before it")
    nb = grid.north[has]
    if np.any(grid.hands[nb] != grid.hands[has]) or np.any(grid.actions[nb] != grid.actions[has]):
        raise SolverkitError(f"{where}: a grid block and its north neighbour differ in hands or actions")
    if grid.orders.size and np.any(grid.order >= grid.orders.shape[0]):
        raise SolverkitError(f"{where}: a grid block names a hand order the grid does not have")


def _run_bytes(run: str | None) -> bytes:
    """A run id (32 hex digits) as the 16 bytes a frame records (none: empty)."""
    if not run:
        return b""
    try:
        raw = bytes.fromhex(run)
    except ValueError:
        raw = b""
    if len(raw) != 16:
        raise SolverkitError(f"run id {run!r} is invalid: expected 32 hex digits")
    return raw


# --- resolution probe ------------------------------------------------------------------------

#: arrays of each family (with nonzero values) the resolution probe looks at
PROBE_ARRAYS = 256
#: values of an array the probe's histogram takes, at most (16 runs spread over it): well under
#: a millisecond an array, so the probe costs a fraction of a second in all
PROBE_SAMPLE = 16384


def _largest_units(x: np.ndarray, grid: Grid, scales: np.ndarray) -> float:
    """The largest |value| of `x` in stored units, each value times its block's factor (called
    only when an encode clipped: one vectorised pass)."""
    by_offset = np.argsort(grid.offset, kind="stable")
    factor = np.repeat(scales[grid.round[by_offset]], (grid.hands * grid.actions)[by_offset])
    return float(np.max(np.abs(x) * factor))


#: log2 of the stored magnitude of a nonzero value: bin i holds [2**(LOST_BINS[0] + i), twice
#: that); the first bin also holds everything smaller, the last everything larger
LOST_BINS = (-64, 40)
#: values under 2^-NOISE_BITS of a family's largest are floating-point noise to the probe
NOISE_BITS = 30
#: the share of a family's nonzero values that may round to 0 before a run is warned
LOST_SHARE_OK = 0.05
#: the share the factor a warning suggests rounds to 0 (CFR+ on leduc_tree, 300 iterations: 1.67x
#: the float store's exploitability at the factor that rounds 5% to 0, 1.04x at the one for 1%)
LOST_SHARE_SUGGESTED = 0.01
#: a family is coarse when more than COARSE_SHARE_OK of its nonzero values are under
#: 2^COARSE_EXP stored units (each kept to 12% or worse). Measured, CFR+ 100 iterations, 16 per
#: unit: kuhn_tree 56% of its regrets (15x the float store's exploitability at 100 iterations),
#: kuhn 1.1% and leduc 17% (results within a few % of float)
COARSE_EXP = 2
COARSE_SHARE_OK = 0.5
#: the factor a coarse warning suggests puts the median value at 2^COARSE_SUGGESTED_EXP units
#: (kuhn_tree, 100 iterations: 1.93x the float store's exploitability with the median at 64 units,
#: 1.04x at 256)
COARSE_SUGGESTED_EXP = 8


def _magnitude_histogram(x: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """Histogram (over LOST_BINS) of log2 of the nonzero |values| of `x` in stored units (times
    the smallest factor: the first values, if any, are the ones that round). A large array is
    sampled in 16 contiguous runs spread over it, PROBE_SAMPLE values in all."""
    n = x.shape[0]
    if n > PROBE_SAMPLE:
        run = PROBE_SAMPLE // 16
        x = np.concatenate([x[i: i + run] for i in np.linspace(0, n - run, 16).astype(np.int64)])
    u = np.abs(x) * float(np.min(scales))
    u = u[u > 0.0]
    e = np.clip(np.floor(np.log2(u)).astype(np.int64) - LOST_BINS[0], 0, LOST_BINS[1] - LOST_BINS[0])
    return np.bincount(e, minlength=LOST_BINS[1] - LOST_BINS[0] + 1)


# --- the codec -------------------------------------------------------------------------------


class ValueCodec:
    """Encodes arrays for the store. `scales` maps an array family ("regret", "avg") to its
    fixed-point factor per round (absent or None: float64, exact); `predictor` switches the
    residual coding; `compressor` is the plugin; `precision` "block16" stores every family as
    16-bit values scaled per grid block (:mod:`.block16`; no fixed-point factors then).
    Thread-safe (the saturation count aside)."""

    def __init__(self, compressor, scales: dict | None = None, predictor: str = "gradient",
                 precision: str = "float64"):
        self.compressor = compressor
        self.scales = {k: np.asarray(v, dtype=np.float64) for k, v in (scales or {}).items() if v is not None}
        if precision not in PRECISIONS:
            raise SolverkitError(f"unknown store precision {precision!r}; valid: {', '.join(PRECISIONS)}")
        if precision == "block16" and self.scales:
            raise ConfigError(f"[store] precision = \"block16\" scales each block of values itself: it cannot take "
                              f"fixed-point factors too ({', '.join(sorted(self.scales))}); remove regret_scale, "
                              "avg_scale and state_scale, or use precision = \"float64\"")
        self.precision = precision
        self.block16 = precision == "block16"
        if predictor is True or predictor is False:  # older spelling
            predictor = "gradient" if predictor else "none"
        if predictor not in PREDICTORS:
            raise SolverkitError(f"unknown predictor {predictor!r}; available: {', '.join(sorted(PREDICTORS))}")
        self.predictor = predictor
        self._mode = PREDICTORS[predictor]
        self.saturated = 0
        #: family -> fixed-point values of that family clipped so far (they add up to `saturated`)
        self.saturated_by: dict[str, int] = {}
        #: family -> the largest |value| in stored units of an array that clipped (what the factor must fit)
        self.clip_peak: dict[str, float] = {}
        #: family -> (largest |value|, its size in stored units) over the first arrays encoded
        self.resolution: dict[str, tuple[float, float]] = {}
        #: family -> histogram over LOST_BINS of log2 |value| in stored units of the nonzero values of
        #: the first arrays encoded: how many of them the factor rounds to 0 (or near it)
        self.magnitudes: dict[str, np.ndarray] = {}
        #: family -> arrays with nonzero values still to probe (PROBE_ARRAYS each): a family that
        #: starts late (delayed averaging) is probed when its values appear
        self._probes: dict[str, int] = {}
        self._probe_lock = threading.Lock()
        self._tls = threading.local()
        self._meta: dict[tuple, bytes] = {}

    def _scratch(self, nbytes: int) -> np.ndarray:
        """This thread's reusable byte buffer of at least `nbytes` (residuals in flight): fresh
        pages cost more to fault in than the codec's work on them."""
        buf = getattr(self._tls, "buf", None)
        if buf is None or buf.size < nbytes:
            buf = self._tls.buf = np.empty(max(nbytes, 64), dtype=np.uint8)
        return buf[:nbytes]

    @property
    def passthrough(self) -> bool:
        """True when encoding is the identity: the store may keep arrays decoded in memory."""
        return self.exact and self.compressor.passthrough

    @property
    def exact(self) -> bool:
        """True when a decoded value is exactly the value encoded (float64 frames)."""
        return not self.scales and not self.block16

    def _kind(self, family: str) -> int:
        """The frame kind this codec writes for `family`."""
        if self.block16:
            return KIND_BLOCK16
        return KIND_FLOAT64 if self.scales.get(family) is None else KIND_FIXED32

    def _description(self, family: str, kind: int, key, name, run) -> bytes:
        """The msgpack description of a frame (cached: no per-value or per-call packing)."""
        ck = (family, kind, key, name, run)
        meta = self._meta.get(ck)
        if meta is None:
            scales = self.scales.get(family)
            # positional, the run id as 16 bytes: a few dozen bytes in all
            meta = msgpack.packb([_run_bytes(run), key or "", name or "", self.predictor, str(self.compressor.name),
                                  None if kind == KIND_FLOAT64 else [] if kind == KIND_BLOCK16
                                  else [float(v) for v in scales]])
            if len(meta) > 0xFFFF:
                raise SolverkitError(f"segment {key!r} array {name!r}: frame description of {len(meta)} bytes "
                                     "exceeds 65535 (a segment key this long cannot be stored)")
            self._meta[ck] = meta
        return meta

    def encode(self, x: np.ndarray, grid: Grid, family: str, key: str | None = None, name: str | None = None,
               run: str | None = None) -> bytes:
        """Payload of float64 array `x` of `family` ("regret" or "avg") laid out as `grid`, its
        frame recording segment `key`, array `name` and run id `run` (checked on decode)."""
        scales = self.scales.get(family)
        if self.block16:
            nb = grid.offset.shape[0]
            raw = self._scratch(block16.body_size(nb, x.shape[0]))
            block16.encode(x, grid.offset, grid.hands, grid.actions, *block16.split_body(raw, nb))
            body = self.compressor.compress(memoryview(raw), 2)
            kind = KIND_BLOCK16
        elif scales is None:
            body = self.compressor.compress(memoryview(x).cast("B"), 8)
            kind = KIND_FLOAT64
        else:
            if self._probes.get(family, PROBE_ARRAYS) > 0:
                self._probe(x, scales, family)
            res = self._scratch(4 * x.shape[0]).view(np.uint32)
            if self._mode == PREDICTORS["west"]:
                clipped = _encode_west(x, grid.offset, grid.hands, grid.actions, grid.round, grid.order, grid.orders,
                                       scales, res)
            else:
                q = np.empty(x.shape[0], dtype=np.int32)
                clipped = _encode_fixed(x, grid.offset, grid.hands, grid.actions, grid.north, grid.round, grid.order,
                                        grid.orders, grid.visit_order, scales, self._mode, q, res)
            if clipped:  # the largest value in stored units (the largest is among those clipped)
                self._count_clipped(clipped, _largest_units(x, grid, scales), scales, family)
            body = self.compressor.compress(memoryview(res).cast("B"), 4)
            kind = KIND_FIXED32
        return self._frame(kind, x.shape[0], body, family, key, name, run)

    def _frame(self, kind: int, n: int, body, family: str, key, name, run) -> bytes:
        """A frame: header (with the crc), description, compressed body."""
        meta = self._description(family, kind, key, name, run)
        covered = _COVERED.pack(kind, n, len(meta))
        crc = zlib.crc32(body, zlib.crc32(meta, zlib.crc32(covered)))
        # one copy of the body into the frame (a compressor may hand back a view of a scratch buffer)
        return b"".join((_HEADER.pack(MAGIC, FRAME_VERSION, crc, kind, n, len(meta)), meta, body))

    def encode_body(self, raw: np.ndarray, n: int, family: str, key: str | None = None, name: str | None = None,
                    run: str | None = None) -> bytes:
        """Payload of an array of `n` values held as a block16 body (the compact store's live
        buffer: bytes of its scales, then its int16 values)."""
        return self._frame(KIND_BLOCK16, n, self.compressor.compress(memoryview(raw), 2), family, key, name, run)

    def round_in_place(self, x: np.ndarray, grid: Grid, family: str) -> None:
        """Give float64 array `x` of `family` the precision a store round trip (encode, then
        decode) would give it, in place: the fixed point alone, with saturation counted and the
        first arrays probed as :meth:`encode` does (no scale: nothing to do). What a store that
        keeps values decoded applies after each update, so that it holds the same numbers as one
        that keeps them encoded."""
        if self.block16:
            block16.round_in_place(x, grid.offset, grid.hands, grid.actions)
            return
        scales = self.scales.get(family)
        if scales is None:
            return
        if self._probes.get(family, PROBE_ARRAYS) > 0:
            self._probe(x, scales, family)
        clipped, peak = _round_in_place(x, grid.offset, grid.hands, grid.actions, grid.round, scales)
        self._count_clipped(clipped, peak, scales, family)  # the peak the kernel saw before it clipped

    @staticmethod
    def _peak_units(x, scales) -> float:
        """Largest |value| of `x` in stored units (an upper bound: largest |value| x largest factor)."""
        big = max(float(np.max(x)), -float(np.min(x))) if x.shape[0] else 0.0  # max |x| without a copy
        return big * float(np.max(scales))

    def _count_clipped(self, clipped: int, peak: float, scales, family: str) -> None:
        """Add an encode's clipped values to the counts and remember the largest value in stored
        units the family's factor had to fit (`peak`)."""
        if not clipped:
            return
        self.saturated += clipped
        self.saturated_by[family] = self.saturated_by.get(family, 0) + int(clipped)
        self.clip_peak[family] = max(self.clip_peak.get(family, 0.0), float(peak))

    def _probe(self, x, scales, family: str) -> None:
        """Record, for the first PROBE_ARRAYS arrays of each family that hold nonzero values, the
        largest value in stored units and a histogram of the nonzero values' magnitudes."""
        units = self._peak_units(x, scales)
        if units > 0.0:
            with self._probe_lock:
                self._probes[family] = self._probes.get(family, PROBE_ARRAYS) - 1
            big = units / float(np.max(scales))
            seen = self.resolution.get(family)
            self.resolution[family] = (max(seen[0], big), max(seen[1], units)) if seen else (big, units)
            hist = _magnitude_histogram(x, scales)
            with self._probe_lock:
                self.magnitudes[family] = self.magnitudes.get(family, 0) + hist

    def _significant(self, family: str) -> np.ndarray | None:
        """The family's magnitude histogram without the values under 2^-NOISE_BITS of its
        largest (floating-point noise such as a v_a - v of 1e-17, not values a solver needs)."""
        hist = self.magnitudes.get(family)
        if hist is None or not hist.sum():
            return None
        floor = int(np.floor(np.log2(self.resolution[family][1]))) - NOISE_BITS - LOST_BINS[0]
        hist = hist.copy()
        hist[:max(0, min(floor, hist.size))] = 0
        return hist if hist.sum() else None

    def lost_share(self, family: str) -> float:
        """Share of the nonzero values of `family` probed so far that round to 0 (under half a
        stored unit; noise aside): updates the fixed point throws away; 0.0 when none were probed."""
        hist = self._significant(family)
        if hist is None:
            return 0.0
        return float(hist[:-LOST_BINS[0] - 1].sum() / hist.sum())

    def coarse_share(self, family: str) -> float:
        """Share of the nonzero values of `family` probed so far under COARSE_UNITS stored units
        (noise aside): values the fixed point keeps only to 12% or worse; 0.0 when none were probed."""
        hist = self._significant(family)
        if hist is None:
            return 0.0
        return float(hist[:COARSE_EXP - LOST_BINS[0]].sum() / hist.sum())

    def factor_gain(self, family: str, share: float = LOST_SHARE_SUGGESTED, exp: int = -1) -> float:
        """The smallest power of two that, multiplying the family's factors, leaves at most
        `share` of its probed nonzero values under 2^exp stored units (default half a unit: they
        round to 0): what to suggest when too many do. Capped where the largest value seen so
        far would pass 2^21 units (room to grow 1,000x)."""
        hist = self._significant(family)
        if hist is None:
            return 1.0
        cum = np.cumsum(hist) / hist.sum()
        below = int(np.searchsorted(cum, share, side="right"))  # the bin that holds the `share` quantile
        gain = 2.0 ** max(0, exp - (LOST_BINS[0] + below))  # lifts that bin to 2^exp units
        room = 2.0 ** np.floor(np.log2(2.0**21 / self.resolution[family][1]))
        return float(max(1.0, min(gain, room)))

    def check_resolution(self, settings: dict) -> None:
        """Refuse fixed-point factors so small that every value seen so far rounds to 0 (the
        solver would learn nothing): `settings` maps a family to the config key naming its
        factor. Only what cannot recover is refused: no regret reached half a unit (a regret that
        rounds to 0 stays 0), or no average a thousandth of one (averages with growing weights
        may still register later)."""
        for fam, (_big, units) in sorted(self.resolution.items()):
            if units < (5e-4 if fam == "avg" else 0.5):
                key = settings.get(fam, f"{fam}_scale")
                raise ConfigError(
                    f"[store] {key} is too small: the largest {fam} value so far is {units:.3g} stored units, so every "
                    f"stored value rounds to 0 and the solver would learn nothing; expected a factor at least "
                    f"{0.5 / units:.3g} times larger (values of this size need half a unit to register)")

    def describe(self, payload, where: str, expect: bytes | None = None) -> dict:
        """The checked header and description of a frame: kind, count, run, seg, arr, pred, comp,
        scale (CorruptSegment naming `where` if the frame is damaged, foreign or older). With
        `expect` (the description this codec would write) a frame that has exactly it is not
        unpacked: only ``{"match": True}``, kind, count and body come back."""
        mv = memoryview(payload)
        if len(mv) >= _HEADER.size:
            magic, version, crc, kind, n, mlen = _HEADER.unpack_from(mv)
        elif len(mv) >= _OLD_HEADER.size:
            magic, version, _ = _OLD_HEADER.unpack_from(mv)
        else:
            magic, version = MAGIC, FRAME_VERSION
        if magic != MAGIC:
            raise CorruptSegment(f"{where}: not a solverkit value payload (magic {bytes(magic)!r})")
        if version != FRAME_VERSION:
            older = " (written by an older solverkit, before frames recorded their scales and run)" \
                if version < FRAME_VERSION else " (written by a newer solverkit)"
            raise CorruptSegment(
                f"{where}: value frame version {version}{older}; this solverkit reads version {FRAME_VERSION}: "
                "start a new run, or finish that run with the solverkit that wrote it"
            )
        if len(mv) < _HEADER.size:
            raise CorruptSegment(f"{where}: truncated ({len(mv)} bytes, shorter than the {_HEADER.size}-byte header)")
        if zlib.crc32(mv[_CRC_FROM:]) != crc:
            raise CorruptSegment(f"{where}: checksum mismatch (the stored bytes are damaged)")
        if len(mv) < _HEADER.size + mlen:
            raise CorruptSegment(f"{where}: truncated ({len(mv)} bytes, the header names a {mlen}-byte description)")
        meta_raw = mv[_HEADER.size: _HEADER.size + mlen]
        body = mv[_HEADER.size + mlen:]
        if expect is not None and meta_raw == expect:
            return {"match": True, "kind": kind, "count": n, "body": body}
        if kind not in KIND_NAMES:
            raise CorruptSegment(f"{where}: unknown value kind {kind}; kinds: "
                                 + ", ".join(f"{k} ({v})" for k, v in KIND_NAMES.items()))
        try:
            meta = msgpack.unpackb(meta_raw, max_str_len=0xFFFF, max_array_len=4096, max_map_len=16)
        except Exception as exc:
            raise CorruptSegment(f"{where}: frame description does not decode ({exc})") from None
        types = (bytes, str, str, str, str, (list, type(None)))
        if (not isinstance(meta, list) or len(meta) != len(types)
                or any(not isinstance(v, t) for v, t in zip(meta, types)) or len(meta[0]) not in (0, 16)):
            raise CorruptSegment(f"{where}: frame description {meta!r:.120} is not [run id, segment, array, "
                                 "predictor, compressor, scale] with the expected types")
        meta = dict(zip(("run", "seg", "arr", "pred", "comp", "scale"), meta))
        meta["run"] = meta["run"].hex()
        if (meta["scale"] is None) != (kind == KIND_FLOAT64) or (
                meta["scale"] is not None and not all(isinstance(v, float) for v in meta["scale"])):
            raise CorruptSegment(f"{where}: frame of kind {KIND_NAMES[kind]} records scale {meta['scale']!r:.80}")
        return {**meta, "kind": kind, "count": n, "body": body}

    def _check_description(self, d, family, scales, expect, where, key, name, run) -> None:
        """A frame's description against this codec's settings and the expected segment, array
        and run (None: not checked): CorruptSegment naming the field and both values."""
        for got, want, what in ((d["seg"], key, "segment"), (d["arr"], name, "array"), (d["run"], run, "run id")):
            if want is not None and got != want:
                raise CorruptSegment(f"{where}: the frame belongs to {what} {got!r}, not {want!r} (a payload of "
                                     "another segment, array or run was swapped in)")
        kind = d["kind"]
        setting = "state_scale" if family not in ("regret", "avg") else f"{family}_scale"
        if KIND_BLOCK16 in (kind, expect):
            setting = "precision"
        if kind != expect:
            raise CorruptSegment(
                f"{where}: holds {KIND_NAMES[kind]} values but the store is configured for {KIND_NAMES[expect]} "
                f"([store] {setting} differs from the run that wrote it: restore it, or start a new run)"
            )
        if d["comp"] != str(self.compressor.name):
            raise CorruptSegment(f"{where}: written with compressor {d['comp']!r}, the store is configured with "
                                 f"{self.compressor.name!r} ([compressor] name: restore it, or start a new run)")
        if kind == KIND_FIXED32:
            if d["scale"] != [float(v) for v in scales]:
                raise CorruptSegment(
                    f"{where}: written with fixed-point factors {d['scale']} per round, the store is configured for "
                    f"{[float(v) for v in scales]} ([store] {setting}: restore it, or start a new run)")
            if d["pred"] != self.predictor:
                raise CorruptSegment(f"{where}: written with predictor {d['pred']!r}, the store is configured with "
                                     f"{self.predictor!r} ([store] predictor: restore it, or start a new run)")

    def _checked(self, payload, family: str, where: str, key, name, run) -> tuple:
        """(kind, count, compressed body) of a frame checked against this codec's settings."""
        expect = self._kind(family)
        fast = None
        if key is not None and name is not None and run is not None:  # the usual case: one bytes compare
            fast = self._description(family, expect, key, name, run)
        d = self.describe(payload, where, fast)
        if d.get("match") and d["kind"] != expect:  # a crafted frame: its header and description disagree
            d = self.describe(payload, where)
        if not d.get("match"):
            self._check_description(d, family, self.scales.get(family), expect, where, key, name, run)
        return d["kind"], d["count"], d["body"]

    def decode_body(self, payload, blocks: int, family: str, where: str, key: str | None = None,
                    name: str | None = None, run: str | None = None) -> tuple[np.ndarray, int]:
        """(body bytes, value count) of a block16 frame: what the compact store holds live."""
        kind, n, body = self._checked(payload, family, where, key, name, run)
        raw = np.empty(block16.body_size(blocks, n), dtype=np.uint8)
        try:
            self.compressor.decompress_into(bytes(body), memoryview(raw))
        except Exception as exc:  # a codec's own error type
            raise CorruptSegment(f"{where}: compressor {self.compressor.name!r} failed to decode: {exc}") from None
        return raw, n

    def decode(self, payload, grid: Grid, family: str, where: str, out: np.ndarray | None = None,
               key: str | None = None, name: str | None = None, run: str | None = None) -> np.ndarray:
        """The float64 array a payload holds (written into `out` when given: a reused buffer of
        the right size); CorruptSegment (naming `where`) if it is damaged, or if it was written
        with other settings, or (where given) for another segment `key`, array `name` or run."""
        scales = self.scales.get(family)
        kind, n, body = self._checked(payload, family, where, key, name, run)
        if out is None or out.shape != (n,) or out.dtype != np.float64:
            out = np.empty(n, dtype=np.float64)
        nb = grid.offset.shape[0]
        raw = out.view(np.uint8) if kind == KIND_FLOAT64 else \
            self._scratch(block16.body_size(nb, n) if kind == KIND_BLOCK16 else 4 * n)
        try:
            self.compressor.decompress_into(bytes(body), memoryview(raw))  # the plugin contract: bytes in
        except Exception as exc:  # a codec's own error type
            raise CorruptSegment(f"{where}: compressor {self.compressor.name!r} failed to decode: {exc}") from None
        if kind == KIND_BLOCK16:
            block16.decode(*block16.split_body(raw, nb), grid.offset, grid.hands, grid.actions, out)
        elif kind == KIND_FIXED32:
            res = raw.view(np.uint32)
            if self._mode == PREDICTORS["west"]:
                _decode_west(res, grid.offset, grid.hands, grid.actions, grid.round, grid.order, grid.orders, scales,
                             out)
            else:
                _decode_fixed(res, grid.offset, grid.hands, grid.actions, grid.north, grid.round, grid.order,
                              grid.orders, grid.visit_order, scales, self._mode, np.empty(n, dtype=np.int32), out)
        return out
