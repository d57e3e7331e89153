"""How a segment's float64 arrays become bytes and back: fixed point, predictor, compressor, frame.

    float64 values --(x scale per block, round)--> int32 --(predictor)--> zigzag residuals (uint32)
        --(compressor plugin)--> body --(frame: magic, version, kind, count, crc32)--> payload

Without a scale (``regret_scale = 0``) the float64 bytes go to the compressor as they are and
round-trip exactly. With one, the decoded values are the fixed-point values ``q / scale``: the
solver then runs on the stored precision, as the original CFR+ implementation did. A *grid*
(:class:`Grid`) says where each (public node, board) block of hands x actions lies, which block
holds the same node on the previous board ("north"), and in which order to visit its hands
(strength order), so that neighbours predict each other.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

import numpy as np
from numba import njit

from ..errors import SolverkitError

MAGIC = b"SKV"
FRAME_VERSION = 1
KIND_FLOAT64 = 0
KIND_FIXED32 = 1
_HEADER = struct.Struct("<3sBBQI")  # magic, version, kind, number of values, crc32 of the body
INT32_MAX = 2**31 - 1


class CorruptSegment(SolverkitError):
    """A stored payload does not decode: bad magic, checksum, size or codec error."""


@dataclass(frozen=True)
class Grid:
    """Blocks of an array for the predictor: block i holds ``hands[i] x actions[i]`` values from
    ``offset[i]`` (hands outer, actions inner); ``north[i]`` is the block of the same node on
    the previous board (-1: none); ``round[i]`` picks the scale factor; ``order[i]`` is a row of
    the grid's ``orders`` table giving the order of the block's hands (-1: index order)."""

    offset: np.ndarray
    hands: np.ndarray
    actions: np.ndarray
    north: np.ndarray
    round: np.ndarray
    order: np.ndarray
    orders: np.ndarray  # int64 [rows, max hands]

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


@njit(cache=True, nogil=True)
def _quantize(x, offset, hands, actions, rnd, scales, q):
    """q = round(x * scales[round of block]) saturated to int32; returns the saturated count."""
    sat = 0
    for b in range(offset.shape[0]):
        s = scales[rnd[b]]
        o = offset[b]
        for i in range(o, o + hands[b] * actions[b]):
            v = np.rint(x[i] * s)
            if v > INT32_MAX:
                v = INT32_MAX
                sat += 1
            elif v < -INT32_MAX:
                v = -INT32_MAX
                sat += 1
            q[i] = np.int32(v)
    return sat


@njit(cache=True, nogil=True)
def _dequantize(q, offset, hands, actions, rnd, scales, x):
    for b in range(offset.shape[0]):
        s = scales[rnd[b]]
        o = offset[b]
        for i in range(o, o + hands[b] * actions[b]):
            x[i] = q[i] / s  # a division, not a product with 1/s: the value is q / s exactly rounded


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


@njit(cache=True, nogil=True)
def _block_order(order, orders, b, H, out):
    if order[b] < 0:
        for j in range(H):
            out[j] = j
    else:
        row = order[b]
        for j in range(H):
            out[j] = orders[row, j]


#: predictor modes: what a value is predicted from (its residual is what gets compressed)
PREDICTORS = {"none": 0, "west": 1, "north": 2, "gradient": 3}


@njit(cache=True, nogil=True)
def _predict(q, offset, hands, actions, north, order, orders, mode, res):
    """Zigzag residuals of q against its prediction, written in visit order (blocks in order,
    hands in the block's order, actions inner). mode 1 west: the previous hand; 2 north: the
    same hand in the north block; 3 gradient: west + north - northwest. Arithmetic wraps
    modulo 2^32, so the inverse is exact whatever the values."""
    pos = 0
    hmax = 1
    for b in range(offset.shape[0]):
        hmax = max(hmax, hands[b])
    ordv = np.empty(hmax, dtype=np.int64)
    for b in range(offset.shape[0]):
        A = actions[b]
        H = hands[b]
        o = offset[b]
        nb = north[b] if mode >= 2 else -1
        use_west = mode != 2
        no = offset[nb] if nb >= 0 else 0
        _block_order(order, orders, b, H, ordv)
        for j in range(H):
            h = ordv[j]
            g = ordv[j - 1] if j > 0 and use_west else -1
            for a in range(A):
                p = np.int64(0)
                if g >= 0:
                    p += q[o + g * A + a]
                    if nb >= 0:
                        p += np.int64(q[no + h * A + a]) - q[no + g * A + a]
                elif nb >= 0:
                    p += q[no + h * A + a]
                res[pos + a] = _zigzag(q[o + h * A + a] - p)
            pos += A


@njit(cache=True, nogil=True)
def _unpredict(res, offset, hands, actions, north, order, orders, mode, q):
    pos = 0
    hmax = 1
    for b in range(offset.shape[0]):
        hmax = max(hmax, hands[b])
    ordv = np.empty(hmax, dtype=np.int64)
    for b in range(offset.shape[0]):
        A = actions[b]
        H = hands[b]
        o = offset[b]
        nb = north[b] if mode >= 2 else -1
        use_west = mode != 2
        no = offset[nb] if nb >= 0 else 0
        _block_order(order, orders, b, H, ordv)
        for j in range(H):
            h = ordv[j]
            g = ordv[j - 1] if j > 0 and use_west else -1
            for a in range(A):
                p = np.int64(0)
                if g >= 0:
                    p += q[o + g * A + a]
                    if nb >= 0:
                        p += np.int64(q[no + h * A + a]) - q[no + g * A + a]
                elif nb >= 0:
                    p += q[no + h * A + a]
                q[o + h * A + a] = _unzigzag(np.int64(res[pos + a]), p)
            pos += A


def check_grid(grid: Grid, size: int, where: str) -> None:
    """A grid must cover an array of `size` values exactly once (every predictor relies on it)."""
    covered = np.zeros(size, dtype=np.int32)
    for o, h, a in zip(grid.offset, grid.hands, grid.actions):
        covered[int(o): int(o + h * a)] += 1
    if covered.size and (covered.min() != 1 or covered.max() != 1):
        raise SolverkitError(f"{where}: the game's grid does not cover the array exactly once")
    if np.any(grid.north >= np.arange(grid.north.size)):
        raise SolverkitError(f"{where}: a grid block's north neighbour must come before it")


# --- the codec -------------------------------------------------------------------------------


class ValueCodec:
    """Encodes arrays for the store. `scales` maps an array family ("regret", "avg") to its
    fixed-point factor per round (absent or None: float64, exact); `predictor` switches the
    residual coding; `compressor` is the plugin. Thread-safe (the saturation count aside)."""

    def __init__(self, compressor, scales: dict | None = None, predictor: str = "gradient"):
        self.compressor = compressor
        self.scales = {k: np.asarray(v, dtype=np.float64) for k, v in (scales or {}).items() if v is not None}
        if predictor is True or predictor is False:  # older spelling
            predictor = "gradient" if predictor else "none"
        if predictor not in PREDICTORS:
            raise SolverkitError(f"unknown predictor {predictor!r}; available: {', '.join(sorted(PREDICTORS))}")
        self.predictor = predictor
        self._mode = PREDICTORS[predictor]
        self.saturated = 0

    @property
    def passthrough(self) -> bool:
        """True when encoding is the identity: the store may keep arrays decoded in memory."""
        return not self.scales and self.compressor.passthrough

    def encode(self, x: np.ndarray, grid: Grid, family: str) -> bytes:
        """Payload of float64 array `x` of `family` ("regret" or "avg") laid out as `grid`."""
        scales = self.scales.get(family)
        if scales is None:
            body = self.compressor.compress(memoryview(x).cast("B"), 8)
            kind = KIND_FLOAT64
        else:
            q = np.empty(x.shape[0], dtype=np.int32)
            self.saturated += _quantize(x, grid.offset, grid.hands, grid.actions, grid.round, scales, q)
            if self._mode:
                res = np.empty(x.shape[0], dtype=np.uint32)
                _predict(q, grid.offset, grid.hands, grid.actions, grid.north, grid.order, grid.orders, self._mode, res)
            else:
                res = q
            body = self.compressor.compress(memoryview(res).cast("B"), 4)
            kind = KIND_FIXED32
        body = bytes(body)
        return _HEADER.pack(MAGIC, FRAME_VERSION, kind, x.shape[0], zlib.crc32(body)) + body

    def decode(self, payload, grid: Grid, family: str, where: str) -> np.ndarray:
        """The float64 array a payload holds; CorruptSegment (naming `where`) if it is damaged."""
        mv = memoryview(payload)
        if len(mv) < _HEADER.size:
            raise CorruptSegment(f"{where}: truncated ({len(mv)} bytes, shorter than the {_HEADER.size}-byte header)")
        magic, version, kind, n, crc = _HEADER.unpack_from(mv)
        if magic != MAGIC:
            raise CorruptSegment(f"{where}: not a solverkit value payload (magic {bytes(magic)!r})")
        if version != FRAME_VERSION:
            raise CorruptSegment(f"{where}: frame version {version}; this solverkit reads version {FRAME_VERSION}")
        body = mv[_HEADER.size:]
        if zlib.crc32(body) != crc:
            raise CorruptSegment(f"{where}: checksum mismatch (the stored bytes are damaged)")
        scales = self.scales.get(family)
        expect = KIND_FLOAT64 if scales is None else KIND_FIXED32
        if kind != expect:
            names = {KIND_FLOAT64: "float64", KIND_FIXED32: "fixed-point int32"}
            raise CorruptSegment(
                f"{where}: holds {names.get(kind, kind)} values but the store is configured for {names[expect]} "
                "([store] regret_scale/avg_scale differ from the run that wrote it)"
            )
        try:
            raw = self.compressor.decompress(bytes(body))  # the plugin contract: bytes in
        except Exception as exc:  # a codec's own error type
            raise CorruptSegment(f"{where}: compressor {self.compressor.name!r} failed to decode: {exc}") from None
        width = 8 if kind == KIND_FLOAT64 else 4
        if len(raw) != n * width:
            raise CorruptSegment(f"{where}: decoded to {len(raw)} bytes, expected {n * width}")
        if kind == KIND_FLOAT64:
            return np.frombuffer(raw, dtype=np.float64).copy()
        if self._mode:
            res = np.frombuffer(raw, dtype=np.uint32)
            q = np.empty(n, dtype=np.int32)
            _unpredict(res, grid.offset, grid.hands, grid.actions, grid.north, grid.order, grid.orders, self._mode, q)
        else:
            q = np.frombuffer(raw, dtype=np.int32)
        x = np.empty(n, dtype=np.float64)
        _dequantize(q, grid.offset, grid.hands, grid.actions, grid.round, scales, x)
        return x
