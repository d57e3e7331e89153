"""A zmq worker's share of a distributed checkpoint and strategy: SAVE, STRATEGY and LOAD of part files."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from solverkit.core.parts import PartError, check_name, open_part, read_arrays, remove_stale, write_part
from solverkit.core.wire import check_keys, field
from solverkit.errors import ProtocolError, SolverkitError

from .protocol import host_name


class WorkerParts:
    """Worker's handlers of its part files (docs/wire.md)."""

    def _parts_dir(self, where: str) -> Path:
        if self.checkpoint_dir is None:
            raise ProtocolError(f"{where}: this worker has no --checkpoint-dir to keep parts in")
        return self.checkpoint_dir

    def _write(self, header, where: str, kind: str, entries, fields=(), **footer) -> None:
        """Write part `file` of the request into the checkpoint directory and answer SAVED
        (`fields`: the request's fields beyond the common ones; `footer`: the part's extra fields)."""
        rid = field(header, "id", where, "int")
        check_keys(header, ("type", "id", "file", "iteration", "keep", *fields), where)
        name = check_name(field(header, "file", where, "str"), where)
        keep = field(header, "keep", where, "str_list")
        iteration = field(header, "iteration", where, "int", lo=0)
        directory = self._parts_dir(where)
        directory.mkdir(parents=True, exist_ok=True)
        record = write_part(directory / name, kind, entries, self.store.run_id, iteration, self.name, **footer)
        written = self.written[kind]
        written.add(name)
        stale = {n for n in written if n != name and n not in keep}
        for n in stale:  # parts that no manifest names any more
            remove_stale(directory, (), n)
        written -= stale
        self._send({"type": "saved", "id": rid, "dir": str(directory), **record})

    def _save(self, header, frames):
        """SAVE: this worker's segments as one part file (its payloads as stored, frames naming
        the trunk's segments), fsynced, so that the trunk's manifest can name it."""
        self.store.flush()
        entries = ((name, self.store.payloads(local)) for name, local in self.alias.items())
        self._write(header, "save", "checkpoint", entries)

    def _strategy(self, header, frames):
        """STRATEGY: the policy of each of this worker's segments (float64, both players) as one
        part file of the run's distributed strategy."""
        kind = field(header, "kind", "strategy", "str", choices=("average", "current"))

        def entries():
            for name, local in self.alias.items():
                yield name, {f"policy{p}": np.ascontiguousarray(self.game.segment_policy(self.store, local, kind, p),
                                                                dtype="<f8") for p in (0, 1)}

        self._write(header, "strategy", "strategy", entries(), fields=("kind",), strategy=kind)

    def _load(self, header, frames):
        """LOAD: restore this worker's segments from the parts the trunk's manifest names, each
        part checked against its size and checksum and every frame decoded before any segment
        changes."""
        rid = field(header, "id", "load", "int")
        check_keys(header, ("type", "id", "parts"), "load")
        directory = self._parts_dir("load")
        loaded = []
        for i, part in enumerate(field(header, "parts", "load", "list")):
            where = f"load: parts[{i}]"
            if not isinstance(part, dict):
                raise ProtocolError(f"{where} = {part!r:.60} is invalid: expected a map")
            check_keys(part, ("file", "bytes", "crc32", "segments", "worker"), where)
            record = {"bytes": field(part, "bytes", where, "int", lo=1), "crc32": field(part, "crc32", where, "int")}
            name = check_name(field(part, "file", where, "str"), where)
            owner = field(part, "worker", where, "str")
            segments = field(part, "segments", where, "str_list")
            for s in segments:
                if s not in self.segments:
                    raise ProtocolError(f"{where}: segment {s!r} is not held by this worker")
            path = directory / name
            if not path.is_file():
                raise PartError(f"part {path} (written by worker {owner}) is missing on {host_name()}: a worker "
                                "restores its segments from its --checkpoint-dir, so a checkpoint on a machine's "
                                "own disk can only be restored there; replace a worker of another host through a "
                                "shared directory (docs/cluster.md)")
            footer = open_part(path, record, kind="checkpoint", run=self.store.run_id, owner=f"worker {owner}")
            for s in segments:
                blobs = read_arrays(footer, s)
                try:
                    self.store._decode(self.alias[s], blobs)
                except SolverkitError as exc:
                    raise PartError(f"part {path} (written by worker {owner}): {exc}") from None
                loaded.append((self.alias[s], blobs))
        for local, blobs in loaded:
            self.store.restore(local, blobs)
        self._send({"type": "done", "id": rid})
