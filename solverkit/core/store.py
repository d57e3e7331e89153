"""Value store: regrets and cumulative strategies held in segments, encoded at the edges.

A segment is a named group of flat float64 arrays (for a matrix game: one segment with each
player's regrets and cumulative strategy; for a decomposed game: one per subgame or chunk).
Kernels only ever see decoded arrays: :meth:`Store.open` decodes a segment, yields it for
update, and encodes it again on exit (:mod:`solverkit.core.codec`: fixed point, predictor,
compressor, checksum). Where encoding is the identity (float64 and the ``none`` compressor in
memory) the arrays simply stay decoded.

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
"""

from __future__ import annotations

import bisect
import threading
import uuid
from dataclasses import dataclass, field

import numpy as np

from ..errors import ConfigError, SolverkitError
from . import block16
from .codec import CorruptSegment, Grid, ValueCodec, check_grid


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
        self._pool = _BufferPool()
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

    def _zeros(self, key) -> dict[str, np.ndarray]:
        return {name: np.zeros(n, dtype=np.float64) for name, n in self.specs[key].arrays.items()}

    def _decode_array(self, key, name, payload, out=None, run=None) -> np.ndarray:
        """One array of segment `key`, decoded (into `out` if given) and checked against the
        segment's spec (a None payload: an array never written, zeros without a codec call)."""
        if payload is None:
            if out is None:
                return np.zeros(self.specs[key].arrays[name], dtype=np.float64)
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
            bufs = {name: np.zeros(block16.body_size(self.grid(key, name).offset.shape[0], n), dtype=np.uint8)
                    for name, n in self.specs[key].arrays.items()}
            with self._lock:
                bufs = self._compact.setdefault(key, bufs)
        return bufs

    def compact_views(self, key: str, name: str) -> tuple[np.ndarray, np.ndarray]:
        """Compact: (scales [blocks], int16 values) of array `name` of segment `key`, live: a
        kernel that updates them in place updates the store."""
        return block16.split_body(self._compact_buffers(key)[name], self.grid(key, name).offset.shape[0])

    def _compact_decode(self, key, name, out=None) -> np.ndarray:
        g = self.grid(key, name)
        n = self.specs[key].arrays[name]
        if out is None:
            out = np.empty(n, dtype=np.float64)
        block16.decode(*self.compact_views(key, name), g.offset, g.hands, g.actions, out)
        return out

    def _compact_encode(self, key, name, x) -> None:
        g = self.grid(key, name)
        block16.encode(x, g.offset, g.hands, g.actions, *self.compact_views(key, name))

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
            blocks = self.grid(key, name).offset.shape[0]
            raw, n = self.codec.decode_body(payload, blocks, family(name), f"segment {key!r} array {name!r}", fk,
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


def _factor_text(factor: float) -> str:
    """A fixed-point factor as a config value: 65536, 0.25."""
    # beyond 2**53 the digits of .0f are float noise (a factor of 1e308 was written with 309 of them)
    return f"{factor:.0f}" if 1 <= factor < 2.0 ** 53 else f"{factor:g}"


def _configured(store: dict, key: str) -> float:
    """The largest factor a ``[store]`` key names (a state_scale left empty is regret_scale's)."""
    factors = store.get(key) or (store.get("regret_scale") if key == "state_scale" else None) or [0.0]
    return float(max(factors))


def precision_warnings(codec, settings: dict[str, str], store: dict, said: set | None = None) -> list[str]:
    """One line per array family whose fixed-point factor rounds more than LOST_SHARE_OK of its
    nonzero values (as probed in the first arrays that hold any) to 0: those updates are lost,
    and the results differ from a float store's without an error. `settings` maps a family to
    its ``[store]`` key, `store` is the ``[store]`` table; families in `said` are skipped and
    those warned are added to it. Each line names the share and the factor that keeps 99%."""
    from .codec import COARSE_EXP, COARSE_SHARE_OK, COARSE_SUGGESTED_EXP, LOST_SHARE_OK, LOST_SHARE_SUGGESTED

    said = set() if said is None else said
    lines = []
    for fam in sorted(codec.magnitudes):
        share = codec.lost_share(fam) if fam not in said else 0.0
        coarse = codec.coarse_share(fam) if fam not in said else 0.0
        if share <= LOST_SHARE_OK and coarse > COARSE_SHARE_OK:
            said.add(fam)
            key = settings.get(fam, f"{fam}_scale")
            now, gain = _configured(store, key), codec.factor_gain(fam, 0.5, COARSE_SUGGESTED_EXP)
            fix = (f"set {key} = {_factor_text(now * gain)} (the median value at {2 ** COARSE_SUGGESTED_EXP} units), "
                   f"or {key} = [] for float64" if gain > 1.0 else
                   f"no larger factor leaves room for its largest values: set {key} = [] (float64)")
            lines.append(
                f"[store] {key} = {_factor_text(now)} is coarse: {coarse:.0%} of the nonzero {fam} values of its "
                f"first updates are under {2 ** COARSE_EXP} stored units, kept to 12% or worse, so the results "
                f"will differ from a float64 store's; {fix}")
        elif share > LOST_SHARE_OK:
            said.add(fam)
            key = settings.get(fam, f"{fam}_scale")
            now, gain = _configured(store, key), codec.factor_gain(fam)
            fix = (f"set {key} = {_factor_text(now * gain)} (rounds at most {LOST_SHARE_SUGGESTED:.0%} of them to 0), "
                   f"or {key} = [] for float64" if gain > 1.0 else
                   f"no larger factor leaves room for its largest values: set {key} = [] (float64)")
            lines.append(
                f"[store] {key} = {_factor_text(now)} is too coarse: {share:.1%} of the nonzero {fam} values of its "
                f"first updates round to 0 (under half a stored unit), so those updates are lost and the results "
                f"will differ from a float64 store's; {fix}")
    return lines


def saturation_warning(codec, count: int, iteration: int, settings: dict[str, str], store: dict,
                       growth: dict[str, float]) -> str:
    """The line that says fixed-point values clipped: how many by `iteration`, in which family,
    and the factor that fits the largest of them with room for `growth` (family -> how much
    larger its values get by the end of the run)."""
    fams = sorted(codec.saturated_by)
    fixes = []
    for fam in fams:
        key = settings.get(fam, f"{fam}_scale")
        now, peak, more = _configured(store, key), codec.clip_peak.get(fam, 0.0), max(growth.get(fam, 1.0), 1.0)
        if now and peak:
            # in log2: now * INT32_RANGE overflows to inf for a huge factor (it suggested "= inf")
            fit = 2.0 ** np.floor(np.log2(now) + np.log2(INT32_RANGE) - np.log2(peak) - np.log2(more))
            grows = f", {more:.3g}x more by the last iteration" if more > 1.0 else ""
            fixes.append(f"{key} = {_factor_text(fit)} (now {_factor_text(now)}; the largest "
                         f"{fam} value reached {peak:.3g} stored units{grows})")
    where = f" ({', '.join(f'{fam}: {codec.saturated_by[fam]:,}' for fam in fams)})" if fams else ""
    fix = "; ".join(fixes) if fixes else "a smaller [store] regret_scale / avg_scale / state_scale"
    return (f"{count:,} values clipped to the int32 range by iteration {iteration}{where}: from here on the stored "
            f"values are wrong and so are the results; set {fix}, or [] (float64) for that array")


def clip_forecast(averaging, factors, iterations: int, limit: int = 1_000_000) -> str | None:
    """The warning, before a run starts, that its fixed-point averages will clip: the scheme's
    cumulative weight W(t) (what the averages of an information set reached every iteration,
    such as the first decision, add up to) times the largest of `factors` passes the int32 range
    at an iteration t <= `iterations` (looked for up to `limit`); None when it does not."""
    if not factors or not averaging.keeps_average or not averaging.inline:
        return None
    factor, total = float(max(factors)), 0.0
    for t in range(1, min(int(iterations), limit) + 1):
        decay, weight = averaging.coefficients(t)
        total = total * decay + weight
        if total * factor >= INT32_RANGE:
            break
    else:
        return None
    end = float(total)
    for s in range(t + 1, min(int(iterations), limit) + 1):  # the weight the whole run reaches
        decay, weight = averaging.coefficients(s)
        end = end * decay + weight
    fit = 2.0 ** np.floor(np.log2(INT32_RANGE / end))
    return (f"[store] avg_scale = {_factor_text(factor)} with averaging {averaging.name!r} will clip: its cumulative "
            f"weight x avg_scale passes 2^31 at iteration {t:,}, so the averages of information sets reached every "
            f"iteration (the first decision's) clip from about there, before the run's {int(iterations):,} "
            f"iterations; set avg_scale = {_factor_text(fit)} or [] (float64), or use fewer iterations")


def rescale_warning(rule, store: dict) -> str | None:
    """The warning, at a run's start, that a rule which rescales every stored regret each
    iteration (lcfr, dcfr, dcfr_plus, pdcfr_plus) rounds them again at every rescale on a
    regret_scale under MIN_RESCALED_REGRET_SCALE; None otherwise."""
    regret = store.get("regret_scale") or []
    if not regret or min(regret) >= MIN_RESCALED_REGRET_SCALE or not getattr(rule, "inline", False):
        return None
    if all(tuple(rule.kernel_coefficients(t))[:3] == (1.0, 1.0, 1.0) for t in (2, 3, 10, 100)):
        return None
    return (f"[store] regret_scale = {_factor_text(min(regret))} with regret rule {rule.name!r}: the rule rescales "
            f"every stored regret each iteration, and each rescale rounds them to the fixed point again (DCFR and "
            f"DCFR+ on Leduc, 300 iterations, at 16: 2.1x the float store's exploitability; at 64-256 within "
            f"about 25%); set regret_scale = {MIN_RESCALED_REGRET_SCALE:.0f} (DCFR+: within 1%) or [] (float64)")


#: the largest magnitude an int32 holds
INT32_RANGE = float(2**31 - 1)
#: the regret_scale from which rules that rescale the regrets every iteration are not warned
#: (DCFR+ on Leduc, 300 iterations: 2.1x the float store's exploitability at 16, 1.17x at 64,
#: 1.22x at 256, 1.002x at 4096; DCFR 2.1x, 0.73x, 1.12x; LCFR 0.80x, 1.13x, 0.81x)
MIN_RESCALED_REGRET_SCALE = 4096.0
#: the smallest avg_scale an averaging that decays the whole average every iteration (power)
#: may use: each decay rounds every value to 1 / factor while one iteration adds at most reach x
#: probability to it. Leduc, 300 iterations, exploitability against the float store's: PCFR+
#: 22.8x and DCFR+ 51x at 16; at 4096 1.05x (PCFR+, leduc_tree) and 1.1x (DCFR+, leduc); within
#: 1% at 65536. Below it, refused; above it, the first iterations' probe still warns when too
#: many values round to 0 (:func:`precision_warnings`)
MIN_DECAYING_AVG_SCALE = 4096.0
#: the smallest regret_scale a predictive rule (pcfr_plus, pdcfr_plus) may use. PCFR+,
#: exploitability against the float store's after 300 iterations: Leduc 1.51x at 16, 1.07x at
#: 64, 1.00x at 256 and 1024; Kuhn 3,240x at 16 (0.0023 against 7e-7 chips), 118x at 256
MIN_PREDICTIVE_REGRET_SCALE = 256.0


def check_scales(store: dict, averaging, rule=None) -> None:
    """ConfigError for a fixed point too coarse for what the run does with it: an average that
    an averaging scheme decays every iteration (the whole average is rounded again each time:
    it stops learning), or regrets that a predictive rule plays (the prediction is one
    iteration's regret: rounding it moves every policy)."""
    regret = store.get("regret_scale") or []
    if rule is not None and getattr(rule, "predictive", False) and regret and min(regret) < MIN_PREDICTIVE_REGRET_SCALE:
        raise ConfigError(
            f"[store] regret_scale = {_factor_text(min(regret))} is too coarse for regret rule {rule.name!r}: a "
            f"predictive rule plays regret + prediction, both rounded to multiples of 1/{_factor_text(min(regret))}, "
            f"and ends far from the float store (Leduc, 300 iterations: 1.5x the float store's exploitability at 16, 1.07x at "
            f"64; Kuhn: 3,000x at 16); set regret_scale >= {MIN_PREDICTIVE_REGRET_SCALE:.0f} (Leduc: within 1%), "
            "regret_scale = [] (float64), or a rule without prediction (rm_plus, dcfr)")
    scales = store.get("avg_scale") or []
    if not scales or not averaging.keeps_average or not averaging.inline:
        return
    decaying = [t for t in (2, 3, 10, 100) if averaging.coefficients(t)[0] != 1.0]
    if decaying and min(scales) < MIN_DECAYING_AVG_SCALE:
        decay = averaging.coefficients(decaying[0])[0]
        raise ConfigError(
            f"[store] avg_scale = {_factor_text(min(scales))} is too coarse for averaging {averaging.name!r}: it "
            f"multiplies the whole average by {decay:.3g} at iteration {decaying[0]} (and by a decay every iteration), "
            f"rounding every value to 1/{_factor_text(min(scales))} each time, while one iteration adds at most reach x "
            f"probability (< 1): the average stops learning (PCFR+ on Leduc: 23x the float store's exploitability); "
            f"set avg_scale >= {MIN_DECAYING_AVG_SCALE:.0f} (65536 for results within 1% of float64), avg_scale = [] "
            "(float64), or an averaging without decay (linear, quadratic)")


def new_run_id() -> str:
    """A fresh run id: 32 hex digits."""
    return uuid.uuid4().hex


class _BufferPool:
    """float64 buffers that :meth:`Store.open` segments decoded into, kept for the next segment:
    fresh pages cost about as much to fault in as decoding them. An array gets the smallest
    free buffer that holds it (at most twice its size) as a view. The pool holds at most as
    many bytes as were ever checked out at once, so it does not raise the peak memory."""

    def __init__(self):
        self._lock = threading.Lock()
        self._free: list[np.ndarray] = []  # sorted by size
        self._free_bytes = 0
        self._out_bytes = 0
        self._peak_out = 0

    def take(self, n: int) -> np.ndarray:
        """A buffer of at least n values (the caller views its first n)."""
        with self._lock:
            i = bisect.bisect_left([a.size for a in self._free], n)
            if i < len(self._free) and self._free[i].size <= 2 * n:
                buf = self._free.pop(i)
                self._free_bytes -= buf.nbytes
            else:
                buf = None
            nbytes = buf.nbytes if buf is not None else 8 * n
            self._out_bytes += nbytes
            self._peak_out = max(self._peak_out, self._out_bytes)
        return buf if buf is not None else np.empty(n, dtype=np.float64)

    def clear(self) -> None:
        """Drop the spare buffers (those checked out stay the caller's)."""
        with self._lock:
            self._free, self._free_bytes = [], 0

    def give(self, buffers) -> None:
        with self._lock:
            for buf in buffers:
                self._out_bytes -= buf.nbytes
                while self._free and self._free_bytes + buf.nbytes > self._peak_out:
                    old = self._free.pop(0)  # make room: the smallest go first
                    self._free_bytes -= old.nbytes
                if self._free_bytes + buf.nbytes <= self._peak_out:
                    bisect.insort(self._free, buf, key=lambda a: a.size)
                    self._free_bytes += buf.nbytes


class _Lazy(dict):
    """A segment's arrays, each decoded on first lookup (``name in seg`` decodes nothing);
    with a pool, decoded into its buffers (returned by :meth:`release`)."""

    __slots__ = ("store", "key", "blobs", "pool", "buffers")

    def __init__(self, store, key, blobs, pool=None):
        super().__init__()
        self.store, self.key, self.blobs, self.pool, self.buffers = store, key, blobs, pool, []

    def __missing__(self, name):
        if name not in self.blobs:
            raise KeyError(name)
        out = None
        if self.pool is not None:
            n = self.store.specs[self.key].arrays[name]
            buf = self.pool.take(n)
            self.buffers.append(buf)
            out = buf[:n]
        arr = self[name] = self._decode(name, out)
        return arr

    def _decode(self, name, out):
        """Array `name` decoded (into `out` when given)."""
        return self.store._decode_array(self.key, name, self.blobs[name], out)

    def __contains__(self, name):
        return name in self.blobs

    def get(self, name, default=None):
        return self[name] if name in self.blobs else default

    def __iter__(self):
        return iter(self.blobs)

    def __len__(self):
        return len(self.blobs)

    def keys(self):
        return self.blobs.keys()

    def values(self):
        return [self[n] for n in self.blobs]

    def items(self):
        return [(n, self[n]) for n in self.blobs]

    def release(self) -> None:
        """Return the decoded arrays' buffers to the pool (the arrays must not be used after)."""
        dict.clear(self)
        if self.pool is not None:
            self.pool.give(self.buffers)
            self.buffers = []


class _OpenSegment:
    """Context manager of :meth:`Store.open` (a class: cheaper than a generator per pass)."""

    __slots__ = ("store", "key", "arrays", "writes")

    def __init__(self, store, key, writes=None):
        self.store, self.key, self.writes = store, key, writes

    def __enter__(self):
        st = self.store
        if st.compact:
            self.arrays = _CompactSegment(st, self.key, self.writes, st._pool)
        else:
            self.arrays = st._live_arrays(self.key) if st.passthrough else _Lazy(st, self.key, st._blobs(self.key),
                                                                                  st._pool)
        return self.arrays

    def __exit__(self, exc_type, exc, tb):
        st = self.store
        if st.compact:
            if exc_type is None:
                self.arrays.encode_back()
            self.arrays.release()
            self.arrays = None
            return False
        if exc_type is None and st.deferred:
            st._round(self.key, self.arrays, self.writes)
        if exc_type is None and not st.passthrough:
            seg = self.arrays
            # the arrays that were looked up (decoded) and that the caller may have changed
            changed = {n: a for n, a in dict.items(seg) if self.writes is None or n in self.writes}
            if changed:
                blobs = {**seg.blobs, **st._encode(self.key, changed)}
                for n, b in blobs.items():  # a new segment's other arrays: zeros, one at a time
                    if b is None:  # (np.zeros maps untouched pages: no resident copy)
                        blobs[n] = st._encode(self.key, {n: np.zeros(st.specs[self.key].arrays[n])})[n]
                st.backend.put(self.key, blobs)
        if not st.passthrough:
            self.arrays.release()
        self.arrays = None
        return False


class _CompactSegment(_Lazy):
    """An open segment of a compact store: each array decoded to float64 on first lookup (and
    encoded back on close if the caller may have changed it), or, for a kernel that works on
    block16 values itself, handed out live by :meth:`compact` (updated in place)."""

    __slots__ = ("writes", "live")

    def __init__(self, store, key, writes, pool=None):
        super().__init__(store, key, store.specs[key].arrays, pool)
        self.writes = writes
        self.live: set[str] = set()

    def _decode(self, name, out):
        return self.store._compact_decode(self.key, name, out)

    def compact(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(scales, int16 values) of array `name`, live (not to be mixed with its decoded copy)."""
        if dict.__contains__(self, name):
            raise SolverkitError(f"segment {self.key!r} array {name!r} is open decoded; its compact values would "
                                 "be overwritten when it is encoded back")
        self.live.add(name)
        return self.store.compact_views(self.key, name)

    def decode_range(self, name: str, start: int, stop: int) -> np.ndarray:
        """Values [start, stop) of array `name`, decoded from its live blocks (whole blocks: the
        range must start and end at block edges): a part of a large array without the rest."""
        g = self.store.grid(self.key, name)
        scales, q = self.store.compact_views(self.key, name)
        b0, b1 = np.searchsorted(g.offset, [start, stop])
        ends = g.offset[b0:b1] + g.hands[b0:b1] * g.actions[b0:b1]
        if b0 == b1 or g.offset[b0] != start or ends[-1] != stop or np.any(g.offset[b0 + 1:b1] != ends[:-1]):
            raise SolverkitError(f"segment {self.key!r} array {name!r}: values {start}..{stop} are not a run of "
                                 "whole blocks")
        out = np.empty(stop - start)
        block16.decode(scales[b0:b1], q[start:stop], g.offset[b0:b1] - start, g.hands[b0:b1], g.actions[b0:b1], out)
        return out

    def encode_back(self) -> None:
        """Encode the decoded arrays the caller may have changed (`writes`; None: all looked up)."""
        for name, arr in dict.items(self):
            if self.writes is None or name in self.writes:
                self.store._compact_encode(self.key, name, arr)
