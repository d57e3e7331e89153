"""Value store: regrets and cumulative strategies held in segments, encoded at the edges.

A segment is a named group of flat float64 arrays (for a matrix game: one segment with each
player's regrets and cumulative strategy; for a decomposed game: one per subgame). Kernels only
ever see decoded arrays: :meth:`Store.open` decodes a segment, yields it for update, and encodes
it again on exit. With a passthrough compressor the arrays simply stay in memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import SolverkitError


@dataclass(frozen=True)
class SegmentSpec:
    """The arrays of one segment: name -> number of float64 values."""

    key: str
    arrays: dict[str, int] = field(default_factory=dict)


class Store:
    """Memory-backed segment store with a pluggable compressor."""

    def __init__(self, specs, compressor):
        self.compressor = compressor
        self.specs = {s.key: s for s in specs}
        self._live: dict[str, dict[str, np.ndarray]] = {}
        self._encoded: dict[str, dict[str, bytes]] = {}
        for s in specs:
            arrays = {name: np.zeros(n, dtype=np.float64) for name, n in s.arrays.items()}
            if compressor.passthrough:
                self._live[s.key] = arrays
            else:
                self._encoded[s.key] = self._encode(arrays)

    def _encode(self, arrays):
        return {n: self.compressor.compress(memoryview(a).cast("B"), a.itemsize) for n, a in arrays.items()}

    def _decode(self, key):
        spec = self.specs[key]
        out = {}
        for name, payload in self._encoded[key].items():
            raw = self.compressor.decompress(payload)
            arr = np.frombuffer(raw, dtype=np.float64).copy()
            if arr.shape[0] != spec.arrays[name]:
                raise SolverkitError(
                    f"segment {key!r} array {name!r} decoded to {arr.shape[0]} values, "
                    f"expected {spec.arrays[name]}: the compressor {self.compressor.name!r} "
                    "did not round-trip"
                )
            out[name] = arr
        return out

    def _check_key(self, key):
        if key not in self.specs:
            raise KeyError(f"unknown segment {key!r}; segments: {', '.join(sorted(self.specs))}")

    def open(self, key: str) -> "_OpenSegment":
        """Decode segment `key`, yield its arrays for in-place update, re-encode on exit
        (``with store.open(key) as arrays: ...``); an exception inside leaves the stored
        segment as it was."""
        self._check_key(key)
        return _OpenSegment(self, key)

    def read(self, key: str) -> dict[str, np.ndarray]:
        """Decoded arrays of segment `key` for reading only (changes are not stored)."""
        self._check_key(key)
        if self.compressor.passthrough:
            return self._live[key]
        return self._decode(key)

    def stored_bytes(self) -> int:
        """Bytes the store holds for values (compressed where a compressor is in use)."""
        if self.compressor.passthrough:
            return sum(a.nbytes for seg in self._live.values() for a in seg.values())
        return sum(len(p) for seg in self._encoded.values() for p in seg.values())


class _OpenSegment:
    """Context manager of :meth:`Store.open` (a class: cheaper than a generator per pass)."""

    __slots__ = ("store", "key", "arrays")

    def __init__(self, store, key):
        self.store, self.key = store, key

    def __enter__(self):
        st = self.store
        self.arrays = st._live[self.key] if st.compressor.passthrough else st._decode(self.key)
        return self.arrays

    def __exit__(self, exc_type, exc, tb):
        st = self.store
        if exc_type is None and not st.compressor.passthrough:
            st._encoded[self.key] = st._encode(self.arrays)
        return False
