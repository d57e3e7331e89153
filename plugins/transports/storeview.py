"""The solver's store in a zmq run: the trunk's segments here, the subgames' fetched from their workers."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import TYPE_CHECKING

from solverkit.core.store import Store

if TYPE_CHECKING:
    from .zmq import ZmqTransport


class _RemotePayloads(Mapping):
    """A worker's segment payloads, fetched when first looked up: an array together with its
    other players' (``avg0`` brings ``avg1``), which a walk reads next, in one request."""

    def __init__(self, transport, segment, names):
        self.transport, self.segment, self.names = transport, segment, list(names)
        self._got = {}

    def __getitem__(self, name):
        if name not in self.names:
            raise KeyError(name)
        if name not in self._got:
            stem = name.rstrip("0123456789")
            family = [n for n in self.names if n.rstrip("0123456789") == stem and n[len(stem):]]
            self._got.update(self.transport.fetch(self.segment, family or [name]))
        return self._got.pop(name)

    def __iter__(self):
        return iter(self.names)

    def __len__(self):
        return len(self.names)


class WorkerStoreView:
    """The store as the solver reads it in a zmq run: the trunk's own segments from its store,
    the subgames' from the workers that own them (FETCH / PUT, one segment at a time); stored
    bytes and clipped values add up the workers'."""

    compression_ratio = Store.compression_ratio

    def __init__(self, transport: ZmqTransport, store: Store):
        self.transport, self.store = transport, store
        self.specs = store.specs
        self.codec = store.codec
        self._decode = store._decode  # checkpoints check payloads before restoring any

    @property
    def run_id(self) -> str:
        """The run's id (the trunk's store's; the workers' frames carry it too)."""
        return self.store.run_id

    def adopt_run(self, run_id: str) -> None:
        """Continue run `run_id`: the workers were set up with the run id the trunk's store had
        then (run_solve gives a resumed run's id before they start), and refuse frames of another."""
        self.store.adopt_run(run_id)

    @property
    def exact(self) -> bool:
        return self.store.exact

    @property
    def rule(self):
        """The regret rule whose policy the regrets are played with (the trunk store's)."""
        return getattr(self.store, "rule", None)

    def grid(self, key, name):
        """How array `name` of segment `key` is laid out (the same on the trunk and the workers)."""
        return self.store.grid(key, name)

    def _remote(self, key) -> bool:
        return key in self.transport._segment_owner

    def read(self, key):
        """Segment `key`'s arrays for reading, each fetched and decoded on first lookup."""
        if not self._remote(key):
            return self.store.read(key)
        return self.store.decoded(key, _RemotePayloads(self.transport, key, self.specs[key].arrays))

    @contextlib.contextmanager
    def open(self, key, writes=None):
        """Segment `key`'s arrays for a walk that changes nothing (an evaluation on the trunk,
        see Transport.trusted_values): the view never writes a worker's segment this way."""
        if writes is None or tuple(writes):
            raise TypeError(f"WorkerStoreView.open({key!r}): the view is read-only here (writes={writes!r})")
        if not self._remote(key):
            with self.store.open(key, ()) as seg:
                yield seg
            return
        yield self.read(key)

    @property
    def distributed(self) -> bool:
        """Whether checkpoints and the strategy are written by each owner (see ZmqTransport)."""
        return self.transport.distributed

    def save_parts(self, tag: str, iteration: int, keep=()) -> list[dict]:
        """Every worker writes its segments as a checkpoint part; their manifest records."""
        return self.transport.save_parts("save", tag, iteration, keep)

    def strategy_parts(self, tag: str, iteration: int, kind: str, keep=()) -> list[dict]:
        """Every worker writes its segments' `kind` policies as a strategy part; the records."""
        return self.transport.save_parts("strategy", tag, iteration, keep, kind=kind)

    def load_parts(self, parts, run: str, default_dir) -> None:
        """Restore the workers' segments from checkpoint `parts`: each worker reads its own
        (workers with a --checkpoint-dir), or, when this run keeps single-file checkpoints,
        they are read here (OUT/checkpoint.d) and sent to their owners."""
        if self.distributed:
            self.transport.load_parts(parts)
        else:
            from solverkit.core.checkpoint import restore_parts

            restore_parts(self, parts, run, default_dir)

    def payloads(self, key):
        """Segment `key`'s encoded payloads (a checkpoint's content), from wherever it lives."""
        return self.transport.fetch(key) if self._remote(key) else self.store.payloads(key)

    def restore(self, key, blobs):
        """Replace segment `key` (--resume): here, or on its worker, which checks the payloads."""
        if self._remote(key):
            self.transport.put(key, blobs)
        else:
            self.store.restore(key, blobs)

    def expect(self, keys):
        """Read-ahead hint for the trunk's own segments (workers plan their own)."""
        self.store.expect([k for k in keys if not self._remote(k)])

    def flush(self):
        """Flush the trunk's store and every worker's, refreshing their statistics."""
        self.store.flush()
        if self.transport._link is not None:
            self.transport.refresh_stats()

    def _workers(self, stat):
        if stat == "saturated":  # counted since the run was last rolled back
            return sum(w.stats[stat] - w.saturated_base for w in self.transport._workers.values())
        return sum(w.stats[stat] for w in self.transport._workers.values())

    def stored_bytes(self) -> int:
        """The trunk's bytes plus the workers' (as of their last report)."""
        return self.store.stored_bytes() + self._workers("stored_bytes")

    def num_values(self) -> int:
        """Values of every segment, the workers' included (the trunk's store knows every spec)."""
        return self.store.num_values()

    def saturated_values(self) -> int:
        """Fixed-point values clipped here and on the workers."""
        return self.store.saturated_values() + self._workers("saturated")

    def close(self):
        """Nothing to release: the solver closes the store and the transport."""
