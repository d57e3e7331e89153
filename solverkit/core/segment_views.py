"""An open segment's arrays: decoded on first lookup into pooled buffers and encoded back on close
(plain and block16-compact stores), so that an update touches only the arrays it uses."""

from __future__ import annotations

import bisect
import threading

import numpy as np

from ..errors import SolverkitError
from . import block16


class _BufferPool:
    """Buffers (of the store's `dtype`) that :meth:`Store.open` segments decoded into, kept for the
    next segment: fresh pages cost about as much to fault in as decoding them. An array gets the
    smallest free buffer that holds it (at most twice its size) as a view. The pool holds at most
    as many bytes as were ever checked out at once, so it does not raise the peak memory."""

    def __init__(self, dtype=np.float64):
        self.dtype = np.dtype(dtype)
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
            nbytes = buf.nbytes if buf is not None else self.dtype.itemsize * n
            self._out_bytes += nbytes
            self._peak_out = max(self._peak_out, self._out_bytes)
        return buf if buf is not None else np.empty(n, dtype=self.dtype)

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

    def compact_offsets(self, name: str) -> tuple[np.ndarray, bool]:
        """(where each block's kept values start in array `name`'s int16 values, whether its blocks
        keep the hands live on their board only): see :class:`.grid.Grid`."""
        g = self.store.grid(self.key, name)
        return g.stored_offset, g.live is not None

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
        block16.decode(scales, q, g, out, int(b0), int(b1), start)
        return out

    def encode_back(self) -> None:
        """Encode the decoded arrays the caller may have changed (`writes`; None: all looked up)."""
        for name, arr in dict.items(self):
            if self.writes is None or name in self.writes:
                self.store._compact_encode(self.key, name, arr)
