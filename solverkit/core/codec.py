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

Its parts live beside it: :mod:`.frame` (the frame's layout and reading it), :mod:`.grid`,
:mod:`.fixed_point` (the predictor kernels) and :mod:`.precision_probe` (how the factors fit).
"""

from __future__ import annotations

import threading
import zlib

import msgpack
import numpy as np

from ..errors import ConfigError, SolverkitError
from . import block16
from .fixed_point import (PREDICTORS, _decode_fixed, _decode_west, _encode_fixed,  # noqa: F401 (re-exported)
                          _encode_west, _round_in_place)
from .frame import (_COVERED, _HEADER, FRAME_VERSION, KIND_BLOCK16, KIND_FIXED32,  # noqa: F401 (re-exported)
                    KIND_FLOAT32, KIND_FLOAT64, KIND_NAMES, MAGIC, UNSCALED, CorruptSegment, _run_bytes, describe)
from .grid import Grid, check_grid  # noqa: F401 (re-exported)
from .precision_probe import (COARSE_EXP, COARSE_SHARE_OK, COARSE_SUGGESTED_EXP,  # noqa: F401 (re-exported)
                              LOST_SHARE_OK, LOST_SHARE_SUGGESTED, PROBE_ARRAYS, PrecisionProbe, _largest_units)

#: ``[store] precision`` choices: the float64 store (or int32 fixed point with ``regret_scale``),
#: float32 values (half the memory and memory traffic; the poker engine's kernels read and write
#: them as they are, computing in float64) or 16-bit values scaled per block (:mod:`.block16`)
PRECISIONS = ("float64", "float32", "block16")


class ValueCodec(PrecisionProbe):
    """Encodes arrays for the store. `scales` maps an array family ("regret", "avg") to its
    fixed-point factor per round (absent or None: float64, exact); `predictor` switches the
    residual coding; `compressor` is the plugin; `precision` "block16" stores every family as
    16-bit values scaled per grid block (:mod:`.block16`; no fixed-point factors then), "float32"
    as float32 values, which decode to float32 arrays (:attr:`dtype`): a store of them holds its
    arrays at that precision, so a round trip is exact. Thread-safe (the saturation count aside)."""

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
        if precision == "float32" and self.scales:
            raise ConfigError(f"[store] precision = \"float32\" stores floats: it cannot take fixed-point factors "
                              f"too ({', '.join(sorted(self.scales))}); remove regret_scale, avg_scale and state_scale, "
                              "or use precision = \"float64\"")
        self.precision = precision
        self.block16 = precision == "block16"
        #: the dtype of the arrays this codec decodes to (and a store holding them keeps)
        self.dtype = np.dtype(np.float32 if precision == "float32" else np.float64)
        if predictor is True or predictor is False:  # older spelling
            predictor = "gradient" if predictor else "none"
        if predictor not in PREDICTORS:
            raise SolverkitError(f"unknown predictor {predictor!r}; available: {', '.join(sorted(PREDICTORS))}")
        self.predictor = predictor
        self._mode = PREDICTORS[predictor]
        super().__init__()
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
        """True when a decoded value is exactly the value encoded (float frames: float32 ones hold
        the float32 values of a store that keeps its arrays as float32)."""
        return not self.scales and not self.block16

    def _kind(self, family: str) -> int:
        """The frame kind this codec writes for `family`."""
        if self.block16:
            return KIND_BLOCK16
        if self.dtype == np.float32:
            return KIND_FLOAT32
        return KIND_FLOAT64 if self.scales.get(family) is None else KIND_FIXED32

    def _description(self, family: str, kind: int, key, name, run) -> bytes:
        """The msgpack description of a frame (cached: no per-value or per-call packing)."""
        ck = (family, kind, key, name, run)
        meta = self._meta.get(ck)
        if meta is None:
            scales = self.scales.get(family)
            # positional, the run id as 16 bytes: a few dozen bytes in all
            meta = msgpack.packb([_run_bytes(run), key or "", name or "", self.predictor, str(self.compressor.name),
                                  None if kind in UNSCALED else [] if kind == KIND_BLOCK16
                                  else [float(v) for v in scales]])
            if len(meta) > 0xFFFF:
                raise SolverkitError(f"segment {key!r} array {name!r}: frame description of {len(meta)} bytes "
                                     "exceeds 65535 (a segment key this long cannot be stored)")
            self._meta[ck] = meta
        return meta

    def encode(self, x: np.ndarray, grid: Grid, family: str, key: str | None = None, name: str | None = None,
               run: str | None = None) -> bytes:
        """Payload of float64 array `x` of `family` ("regret" or "avg") laid out as `grid`, its
        frame recording segment `key`, array `name` and run id `run` (checked on decode); a
        float32 codec's frames hold `x` as float32 (rounded if it is float64)."""
        scales = self.scales.get(family)
        if self.dtype == np.float32:
            x32 = np.ascontiguousarray(x, dtype=np.float32)
            body = self.compressor.compress(memoryview(x32).cast("B"), 4)
            kind = KIND_FLOAT32
        elif self.block16:
            raw = self._scratch(block16.body_size(grid))
            block16.encode(x, grid, *block16.split_body(raw, grid))
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
            block16.round_in_place(x, grid)
            return
        if self.dtype == np.float32:
            if x.dtype != np.float32:
                x[:] = x.astype(np.float32)
            return
        scales = self.scales.get(family)
        if scales is None:
            return
        if self._probes.get(family, PROBE_ARRAYS) > 0:
            self._probe(x, scales, family)
        clipped, peak = _round_in_place(x, grid.offset, grid.hands, grid.actions, grid.round, scales)
        self._count_clipped(clipped, peak, scales, family)  # the peak the kernel saw before it clipped

    def describe(self, payload, where: str, expect: bytes | None = None) -> dict:
        """The checked header and description of a frame: kind, count, run, seg, arr, pred, comp,
        scale (CorruptSegment naming `where` if the frame is damaged, foreign or older). With
        `expect` (the description this codec would write) a frame that has exactly it is not
        unpacked: only ``{"match": True}``, kind, count and body come back."""
        return describe(payload, where, expect)

    def _check_description(self, d, family, scales, expect, where, key, name, run) -> None:
        """A frame's description against this codec's settings and the expected segment, array
        and run (None: not checked): CorruptSegment naming the field and both values."""
        for got, want, what in ((d["seg"], key, "segment"), (d["arr"], name, "array"), (d["run"], run, "run id")):
            if want is not None and got != want:
                raise CorruptSegment(f"{where}: the frame belongs to {what} {got!r}, not {want!r} (a payload of "
                                     "another segment, array or run was swapped in)")
        kind = d["kind"]
        setting = "state_scale" if family not in ("regret", "avg") else f"{family}_scale"
        if KIND_BLOCK16 in (kind, expect) or KIND_FLOAT32 in (kind, expect):
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

    def decode_body(self, payload, grid: Grid, family: str, where: str, key: str | None = None,
                    name: str | None = None, run: str | None = None) -> tuple[np.ndarray, int]:
        """(body bytes, value count) of a block16 frame of an array laid out as `grid`: what the
        compact store holds live."""
        kind, n, body = self._checked(payload, family, where, key, name, run)
        raw = np.empty(block16.body_size(grid), dtype=np.uint8)
        try:
            self.compressor.decompress_into(bytes(body), memoryview(raw))
        except Exception as exc:  # a codec's own error type
            raise self._undecodable(body, exc, kind, grid, n, where) from None
        return raw, n

    def _undecodable(self, body, exc, kind: int, grid: Grid, n: int, where: str) -> CorruptSegment:
        """The error for a body the compressor could not decode to the expected size: a block16
        frame holding every hand's values (as solverkit wrote them before block16 kept the live
        hands only) said as such, anything else as damaged."""
        if kind == KIND_BLOCK16 and grid.live is not None and grid.stored != n:
            try:
                size = len(self.compressor.decompress(bytes(body)))
            except Exception:  # noqa: BLE001 (damaged: the message below)
                size = -1
            if size == 8 * grid.offset.shape[0] + 2 * n:
                return CorruptSegment(
                    f"{where}: a block16 frame that holds every hand's values, as solverkit wrote them before "
                    "2026-11-28; block16 stores now keep only the hands each board leaves live: finish that run "
                    "with the solverkit that wrote it, or start a new run")
        return CorruptSegment(f"{where}: compressor {self.compressor.name!r} failed to decode: {exc}")

    def decode(self, payload, grid: Grid, family: str, where: str, out: np.ndarray | None = None,
               key: str | None = None, name: str | None = None, run: str | None = None) -> np.ndarray:
        """The array a payload holds (float64; float32 for a float32 codec), written into `out`
        when given (a reused buffer of the right size and dtype); CorruptSegment (naming `where`) if
        it is damaged, or if it was written with other settings, or (where given) for another
        segment `key`, array `name` or run."""
        scales = self.scales.get(family)
        kind, n, body = self._checked(payload, family, where, key, name, run)
        if out is None or out.shape != (n,) or out.dtype != self.dtype:
            out = np.empty(n, dtype=self.dtype)
        raw = out.view(np.uint8) if kind in UNSCALED else \
            self._scratch(block16.body_size(grid) if kind == KIND_BLOCK16 else 4 * n)
        try:
            self.compressor.decompress_into(bytes(body), memoryview(raw))  # the plugin contract: bytes in
        except Exception as exc:  # a codec's own error type
            raise self._undecodable(body, exc, kind, grid, n, where) from None
        if kind == KIND_BLOCK16:
            block16.decode(*block16.split_body(raw, grid), grid, out)
        elif kind == KIND_FIXED32:
            res = raw.view(np.uint32)
            if self._mode == PREDICTORS["west"]:
                _decode_west(res, grid.offset, grid.hands, grid.actions, grid.round, grid.order, grid.orders, scales,
                             out)
            else:
                _decode_fixed(res, grid.offset, grid.hands, grid.actions, grid.north, grid.round, grid.order,
                              grid.orders, grid.visit_order, scales, self._mode, np.empty(n, dtype=np.int32), out)
        return out
