"""Value store: regrets and cumulative strategies held in segments, encoded at the edges.

A segment is a named group of flat float64 arrays (float32 with ``[store] precision =
"float32"``; for a matrix game: one segment with each player's regrets and cumulative strategy;
for a decomposed game: one per subgame or chunk).
Kernels only ever see decoded arrays: :meth:`Store.open` decodes a segment, yields it for
update, and encodes it again on exit (:mod:`solverkit.core.codec`: fixed point, predictor,
compressor, checksum). Where encoding is the identity (float64 and the ``none`` compressor in
memory, or float32 the same way) the arrays simply stay decoded.

A segment costs nothing until it is first written: until then it reads as zeros (decoded
straight to zero arrays, no codec call) and :meth:`Store.payloads` encodes zeros on demand. A
process that touches only some segments (the trunk of a distributed run, or a worker holding its
own subgames) stores only those.

With ``hold="decoded"`` a store with a codec keeps its segments decoded in memory (as the float
store does) and applies only the codec's fixed point after each update
(:meth:`ValueCodec.round_in_place`): the solver sees the numbers an encoded store would give it,
bit for bit, with the float store's memory and close to its speed; the predictor and compressor run only when
payloads or the stored size are asked for (checkpoints, workers' segments, metrics). It is for
studies of a codec's precision (Figure 1c/1d), not for saving memory.

Backends: ``memory`` keeps each segment's payloads in a dict; ``disk`` keeps one file per
segment (:mod:`solverkit.core.diskstore`) behind a prefetch and write-behind thread. Either way
a segment's old payload is dropped as soon as its new one is in, so the compressed data never
doubles: peak memory is the compressed data plus one decoded segment per thread in flight.

Beside it: :mod:`.segment_views` (an open segment's arrays, decoded lazily into pooled buffers)
and :mod:`.scale_checks` (warnings and refusals about fixed-point factors).
"""

from __future__ import annotations

import threading
import uuid
from dataclasses import dataclass, field

import numpy as np

from ..errors import SolverkitError
from . import block16
from .codec import CorruptSegment, Grid, ValueCodec, check_grid
from .scale_checks import (check_scales, clip_forecast, precision_warnings,  # noqa: F401 (re-exported)
                           rescale_warning, saturation_warning)
from .segment_views import _BufferPool, _CompactSegment, _Lazy, _OpenSegment


@dataclass(frozen=True)
class SegmentSpec:
    """The arrays of one segment: name -> number of float64 values."""

    key: str
    arrays: dict[str, int] = field(default_factory=dict)


def family(name: str) -> str:
    """Array family of an array name: "regret0" -> "regret", "avg1" -> "avg"."""
    return name.rstrip("0123456789")


class MemoryBackend:
    """Encoded segments in a dict (thread-safe through the GIL: one dict operation each)."""

    name = "memory"

    def __init__(self):
        self._data: dict[str, dict[str, bytes]] = {}

    def has(self, key):
        return key in self._data

    def get(self, key):
        return self._data[key]

    def put(self, key, blobs):
        self._data[key] = blobs

    def expect(self, keys):
        pass

    def nbytes(self):
        return sum(len(p) for seg in list(self._data.values()) for p in seg.values())

    def flush(self):
        pass

    def close(self):
        pass


class Store:
    """Segments of float64 arrays, encoded by `codec` into `backend` (memory when None).

    `grids(key, name)` gives the :class:`~solverkit.core.codec.Grid` of an array (how the
    predictor walks it); by default every array is flat. `hold` is ``"encoded"`` (segments held
    as payloads, decoded for each update) or ``"decoded"`` (held as arrays at the codec's
    precision, encoded on demand: memory backend only).
    """

    def __init__(self, specs, codec, backend=None, grids=None, run_id: str | None = None, hold: str = "encoded"):
        if not isinstance(codec, ValueCodec):  # a bare compressor plugin: float64, no predictor
            codec = ValueCodec(codec)
        self.codec = codec
        self.compressor = codec.compressor
        self.backend = backend or MemoryBackend()
        self.specs = {s.key: s for s in specs}
        self._grids = grids
        self._grid_cache: dict[tuple[str, str], Grid] = {}
        self._lock = threading.Lock()
        if hold not in HOLDS:
            raise SolverkitError(f"unknown store hold {hold!r}; valid: {', '.join(HOLDS)}")
        if hold == "decoded" and not isinstance(self.backend, MemoryBackend):
            raise SolverkitError(f"a store that holds its values decoded keeps them in memory; it cannot use the "
                                 f"{self.backend.name!r} backend (valid with hold = 'decoded': memory)")
        #: values held decoded although the codec is not the identity: rounded after each update
        self.deferred = hold == "decoded" and not codec.passthrough
        #: block16 values held in memory as live buffers (scales, int16 values) that a kernel may
        #: update in place (:meth:`compact_views`); framed only for checkpoints and workers
        self.compact = codec.block16 and hold == "encoded" and isinstance(self.backend, MemoryBackend)
        self._compact: dict[str, dict[str, np.ndarray]] = {}
        self.passthrough = (codec.passthrough and isinstance(self.backend, MemoryBackend)) or self.deferred
        self._version = 0  # deferred: bumped by every update, keys the stored-size cache
        self._sized: tuple[int, int] | None = None
        self._live: dict[str, dict[str, np.ndarray]] = {}  # passthrough: segments written so far
        self._pool = _BufferPool(np.float64 if self.compact else codec.dtype)
        #: the regret rule whose policy the regrets are played with (None: plain regret matching)
        self.rule = None
        #: the run's id: every frame and segment file written records it, and reads check it
        self.run_id = None
        self.adopt_run(run_id or new_run_id())
        #: segment key -> the key its frames record (a worker's store names the trunk's segments)
        self.frame_keys: dict[str, str] = {}

    def adopt_run(self, run_id: str) -> None:
        """Continue run `run_id` (a resumed run keeps the id of the run that it extends)."""
        self.run_id = run_id
        if hasattr(self.backend, "run_id"):
            self.backend.run_id = run_id

    @property
    def exact(self) -> bool:
        """True when decoded values are exactly the values last stored (float64 frames)."""
        return self.codec.exact

    # --- encoding ----------------------------------------------------------------------------

    def grid(self, key: str, name: str) -> Grid:
        g = self._grid_cache.get((key, name))
        if g is None:
            size = self.specs[key].arrays[name]
            g = self._grids(key, name) if self._grids is not None else None
            if g is None:
                g = Grid.flat(size)
            else:  # a game's grid: the codec's kernels rely on it being well formed
                check_grid(g, size, f"segment {key!r} array {name!r}")
            with self._lock:
                self._grid_cache[(key, name)] = g
        return g

    def _encode(self, key, arrays):
        fk = self.frame_keys.get(key, key)
        return {n: self.codec.encode(a, self.grid(key, n), family(n), fk, n, self.run_id) for n, a in arrays.items()}

    @property
    def dtype(self) -> np.dtype:
        """The dtype of the arrays a segment's values are handed out as (float32 for a float32
        codec; block16 and fixed point decode to float64)."""
        return self.codec.dtype

    def _zeros(self, key) -> dict[str, np.ndarray]:
        return {name: np.zeros(n, dtype=self.codec.dtype) for name, n in self.specs[key].arrays.items()}

    def _decode_array(self, key, name, payload, out=None, run=None) -> np.ndarray:
        """One array of segment `key`, decoded (into `out` if given) and checked against the
        segment's spec (a None payload: an array never written, zeros without a codec call)."""
        if payload is None:
            if out is None:
                return np.zeros(self.specs[key].arrays[name], dtype=self.codec.dtype)
            out[:] = 0.0
            return out
        arr = self.codec.decode(payload, self.grid(key, name), family(name), f"segment {key!r} array {name!r}", out,
                                self.frame_keys.get(key, key), name, run or self.run_id)
        expected = self.specs[key].arrays[name]
        if arr.shape[0] != expected:
            raise SolverkitError(f"segment {key!r} array {name!r} decoded to {arr.shape[0]} values, expected {expected}")
        return arr

    def _decode(self, key, blobs, run=None):
        """Every array of segment `key` decoded and checked (frames of run `run`; default this
        store's)."""
        spec = self.specs[key]
        if set(blobs) != set(spec.arrays):
            raise SolverkitError(
                f"segment {key!r} holds arrays {sorted(blobs)}, expected {sorted(spec.arrays)}"
            )
        return {name: self._decode_array(key, name, payload, run=run) for name, payload in blobs.items()}

    def _check_key(self, key):
        if key not in self.specs:
            raise KeyError(f"unknown segment {key!r}; segments: {', '.join(sorted(self.specs))}")

    def _blobs(self, key) -> dict:
        """Stored payloads of segment `key`; None for each array of a segment never written."""
        if self.backend.has(key):
            blobs = self.backend.get(key)
            if blobs.keys() != self.specs[key].arrays.keys():
                raise CorruptSegment(f"segment {key!r} holds arrays {sorted(blobs)}, expected "
                                     f"{sorted(self.specs[key].arrays)} (a damaged or foreign segment)")
            return blobs
        return dict.fromkeys(self.specs[key].arrays)

    def _live_arrays(self, key) -> dict[str, np.ndarray]:
        """Passthrough: the live arrays of segment `key`, made (zeros) when first opened."""
        arrays = self._live.get(key)
        if arrays is None:
            arrays = self._live.setdefault(key, self._zeros(key))
        return arrays

    # --- access ------------------------------------------------------------------------------

    # --- compact holding (block16 in memory) ---------------------------------------------------

    def _compact_buffers(self, key) -> dict[str, np.ndarray]:
        """Compact: segment `key`'s live block16 bodies by array name, zeros when first opened
        (every scale 0: every value 0)."""
        bufs = self._compact.get(key)
        if bufs is None:
            bufs = {name: np.zeros(block16.body_size(self.grid(key, name)), dtype=np.uint8)
                    for name in self.specs[key].arrays}
            with self._lock:
                bufs = self._compact.setdefault(key, bufs)
        return bufs

    def compact_views(self, key: str, name: str) -> tuple[np.ndarray, np.ndarray]:
        """Compact: (scales [blocks], int16 values) of array `name` of segment `key`, live: a
        kernel that updates them in place updates the store."""
        return block16.split_body(self._compact_buffers(key)[name], self.grid(key, name))

    def _compact_decode(self, key, name, out=None) -> np.ndarray:
        g = self.grid(key, name)
        n = self.specs[key].arrays[name]
        if out is None:
            out = np.empty(n, dtype=np.float64)
        block16.decode(*self.compact_views(key, name), g, out)
        return out

    def _compact_encode(self, key, name, x) -> None:
        g = self.grid(key, name)
        block16.encode(x, g, *self.compact_views(key, name))

    def open(self, key: str, writes=None) -> "_OpenSegment":
        """Yield segment `key`'s arrays for in-place update and re-encode them on exit
        (``with store.open(key) as arrays: ...``). Arrays are decoded when first looked up;
        `writes` names the arrays the caller may change (None: every array it looked up), and
        only those are encoded again. An exception inside leaves the stored segment as it was."""
        self._check_key(key)
        return _OpenSegment(self, key, writes)

    def read(self, key: str) -> dict[str, np.ndarray]:
        """Decoded arrays of segment `key` for reading only (changes are not stored)."""
        self._check_key(key)
        if self.passthrough:
            return self._live.get(key) or self._zeros(key)
        if self.compact:
            return _CompactSegment(self, key, ())
        return _Lazy(self, key, self._blobs(key))

    def decoded(self, key: str, blobs: dict[str, bytes]) -> dict[str, np.ndarray]:
        """Segment `key`'s arrays from payloads held elsewhere (a worker's), each decoded and
        checked on first lookup, for reading only."""
        self._check_key(key)
        return _Lazy(self, key, blobs)

    def free_spare_buffers(self) -> None:
        """Free the decode buffers kept for the next segment: for a caller about to allocate
        much else (a trunk-only poker trunk before its transport's buffers)."""
        self._pool.clear()

    def expect(self, keys) -> None:
        """Hint: segments `keys` will be opened in about this order (the disk backend reads ahead)."""
        if not self.passthrough:
            self.backend.expect(list(keys))

    def payloads(self, key: str) -> dict[str, bytes]:
        """The encoded payloads of segment `key` (what a checkpoint saves); a segment never
        written is encoded as zeros on demand."""
        self._check_key(key)
        if self.passthrough:
            return self._encode(key, self._live.get(key) or self._zeros(key))
        if self.compact:
            fk = self.frame_keys.get(key, key)
            return {name: self.codec.encode_body(raw, self.specs[key].arrays[name], family(name), fk, name, self.run_id)
                    for name, raw in self._compact_buffers(key).items()}
        if not self.backend.has(key):
            return self._encode(key, self._zeros(key))
        return self.backend.get(key)

    def zero_payloads(self, key: str) -> dict[str, bytes]:
        """Segment `key`'s payloads as a new run has them (zeros), named as this store names
        its frames: what a run rolled back to its start restores everywhere."""
        self._check_key(key)
        return self._encode(key, self._zeros(key))

    def restore(self, key: str, blobs: dict[str, bytes]) -> None:
        """Replace segment `key` with saved payloads, after checking that they decode."""
        self._check_key(key)
        if self.compact:
            self._restore_compact(key, blobs)
            return
        arrays = self._decode(key, blobs)
        if self.passthrough:
            self._live[key] = arrays
            self._version += 1
        else:
            self.backend.put(key, dict(blobs))

    def _restore_compact(self, key: str, blobs: dict[str, bytes]) -> None:
        """Compact: segment `key`'s live bodies from saved frames (checked as decoding checks them)."""
        spec = self.specs[key]
        if set(blobs) != set(spec.arrays):
            raise SolverkitError(f"segment {key!r} holds arrays {sorted(blobs)}, expected {sorted(spec.arrays)}")
        fk = self.frame_keys.get(key, key)
        bufs = {}
        for name, payload in blobs.items():
            raw, n = self.codec.decode_body(payload, self.grid(key, name), family(name), f"segment {key!r} array {name!r}", fk,
                                            name, self.run_id)
            if n != spec.arrays[name]:
                raise SolverkitError(f"segment {key!r} array {name!r} holds {n} values, expected {spec.arrays[name]}")
            bufs[name] = raw
        with self._lock:
            self._compact[key] = bufs

    # --- accounting --------------------------------------------------------------------------

    def num_values(self) -> int:
        """Values of every segment (written or not)."""
        return sum(n for s in self.specs.values() for n in s.arrays.values())

    def stored_bytes(self) -> int:
        """Bytes the store holds for values (compressed where a compressor is in use); segments
        never written hold none."""
        if self.deferred:  # what an encoded store would hold: every segment written, encoded
            version = self._version
            if self._sized is None or self._sized[0] != version:
                size = sum(len(p) for key in list(self._live) for p in self.payloads(key).values())
                self._sized = (version, size)
            return self._sized[1]
        if self.passthrough:
            return sum(a.nbytes for seg in list(self._live.values()) for a in seg.values())
        if self.compact:
            return sum(a.nbytes for seg in list(self._compact.values()) for a in seg.values())
        return self.backend.nbytes()

    def _round(self, key: str, arrays: dict[str, np.ndarray], writes) -> None:
        """Deferred: give the arrays of segment `key` that an update may have changed the
        codec's precision, as encoding and decoding them would."""
        for name, arr in arrays.items():
            if writes is None or name in writes:
                self.codec.round_in_place(arr, self.grid(key, name), family(name))
        self._version += 1

    def compression_ratio(self) -> float:
        """Size of the values as 4-byte floats over the stored bytes."""
        stored = self.stored_bytes()
        return 4.0 * self.num_values() / stored if stored else float("inf")

    def saturated_values(self) -> int:
        """Fixed-point values clipped to the int32 range so far (see ``[store] regret_scale``)."""
        return self.codec.saturated

    def flush(self) -> None:
        """Wait until every pending write has reached the backend."""
        self.backend.flush()

    def close(self) -> None:
        self.backend.close()


#: how a store holds its segments between updates (see the module docstring)
HOLDS = ("encoded", "decoded")


def new_run_id() -> str:
    """A fresh run id: 32 hex digits."""
    return uuid.uuid4().hex

