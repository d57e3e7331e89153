"""Disk backend of the value store: one file per segment, read ahead and written behind.

One I/O thread does every read and write, so disk access is serialized (one stream, as the
original workers did) while compute threads decode, update and encode. ``expect(keys)`` queues
read-aheads of up to ``prefetch`` segments; ``put`` hands the new payloads to the writer and
returns at once (at most ``write_behind`` segments wait, then ``put`` blocks, so memory stays
bounded). A segment waiting to be written is served from memory, so a read never sees stale
bytes. Each file is written as ``name.tmp`` and renamed over the old one: a failed write (a
full disk) leaves the previous version intact and is reported at the next store call.
"""

from __future__ import annotations

import queue
import struct
import threading
from collections import deque
from pathlib import Path

import msgpack

from ..errors import SolverkitError
from .atomic import atomic_file, reason

FILE_MAGIC = b"SKSEG1\n"
_LEN = struct.Struct("<Q")


class DiskStoreError(SolverkitError):
    """A segment file could not be written or read."""


def _encode_file(blobs: dict[str, bytes]) -> bytes:
    head = msgpack.packb({name: len(b) for name, b in blobs.items()})
    return FILE_MAGIC + _LEN.pack(len(head)) + head + b"".join(blobs.values())


def _decode_file(data: bytes, path) -> dict[str, bytes]:
    mv = memoryview(data)
    n0 = len(FILE_MAGIC)
    if bytes(mv[:n0]) != FILE_MAGIC or len(mv) < n0 + _LEN.size:
        raise DiskStoreError(f"{path}: not a solverkit segment file (truncated or foreign)")
    (hl,) = _LEN.unpack_from(mv, n0)
    pos = n0 + _LEN.size
    try:
        sizes = msgpack.unpackb(bytes(mv[pos: pos + hl]), max_map_len=64, max_str_len=256)
    except Exception as exc:
        raise DiskStoreError(f"{path}: damaged segment header ({exc})") from None
    pos += hl
    out = {}
    for name, size in sizes.items():
        if pos + size > len(mv):
            raise DiskStoreError(f"{path}: truncated: array {name!r} needs {size} bytes, {len(mv) - pos} left")
        out[name] = bytes(mv[pos: pos + size])
        pos += size
    return out


class DiskBackend:
    """Segment payloads as files under `path`, with a prefetch and write-behind I/O thread."""

    name = "disk"

    def __init__(self, path, prefetch: int = 2, write_behind: int = 2, remove_on_close: bool = False):
        self.path = Path(path)
        self.remove_on_close = remove_on_close
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise DiskStoreError(f"[store] path {str(self.path)!r} cannot be used: {exc}") from None
        self.prefetch = max(0, int(prefetch))
        self.write_behind = max(1, int(write_behind))
        self._files: dict[str, Path] = {}
        self._sizes: dict[str, int] = {}
        self._pending: dict[str, dict[str, bytes]] = {}  # written behind, not yet on disk
        self._failed: set[str] = set()  # pending payloads whose write failed: kept, served, not waited for
        self._ahead: dict[str, object] = {}  # key -> payloads read ahead, or a pending marker
        self._plan: deque[str] = deque()
        self._cv = threading.Condition()
        self._jobs: queue.Queue = queue.Queue()
        self._error: BaseException | None = None
        self._closed = False
        self._thread = threading.Thread(target=self._io_loop, name="solverkit-store-io", daemon=True)
        self._thread.start()

    # --- I/O thread --------------------------------------------------------------------------

    def _file(self, key):
        f = self._files.get(key)
        if f is None:
            f = self.path / f"seg{len(self._files):07d}.skseg"
            self._files[key] = f
        return f

    def _io_loop(self):
        while True:
            job = self._jobs.get()
            if job is None:
                return
            op, key, data = job
            try:
                if op == "write":
                    self._write(key, data)
                else:
                    blobs = self._read_file(key)
                    with self._cv:
                        if self._ahead.get(key) is _PENDING:
                            self._ahead[key] = blobs
                        self._cv.notify_all()
            except BaseException as exc:  # reported to the caller at its next call
                with self._cv:
                    self._error = self._error or exc
                    if op == "read":
                        self._ahead.pop(key, None)
                    elif self._pending.get(key) is data:
                        self._failed.add(key)  # the values stay in memory; nothing computed is lost
                    self._cv.notify_all()
            finally:
                self._jobs.task_done()

    def _write(self, key, blobs):
        with self._cv:
            f = self._file(key)
        data = _encode_file(blobs)
        try:
            with atomic_file(f, durable=False) as fh:  # checkpoints, not segment files, are the durable state
                fh.write(data)
        except OSError as exc:
            raise DiskStoreError(
                f"cannot write segment {key!r} to {f}: {reason(exc)}; its previous version on disk is intact"
            ) from None
        with self._cv:
            self._sizes[key] = len(data)
            if self._pending.get(key) is blobs:
                del self._pending[key]
                self._failed.discard(key)
            self._cv.notify_all()

    def _read_file(self, key):
        with self._cv:
            f = self._files.get(key)
        if f is None:
            raise DiskStoreError(f"segment {key!r} was never written to {self.path}")
        try:
            data = f.read_bytes()
        except OSError as exc:
            raise DiskStoreError(f"cannot read segment {key!r} from {f}: {exc}") from None
        return _decode_file(data, f)

    # --- store side --------------------------------------------------------------------------

    def _raise_error(self):
        if self._error is not None:
            exc, self._error = self._error, None
            raise exc

    def _top_up(self):
        """Queue read-aheads until `prefetch` are outstanding (caller holds the lock)."""
        while self._plan and len(self._ahead) < self.prefetch:
            key = self._plan.popleft()
            if key in self._pending or key in self._ahead or key not in self._files:
                continue
            self._ahead[key] = _PENDING
            self._jobs.put(("read", key, None))

    def has(self, key):
        """Whether segment `key` was ever written (the store reads a segment never written as
        zeros, without asking the backend)."""
        with self._cv:
            return key in self._files

    def expect(self, keys):
        with self._cv:
            wanted = set(keys)
            # read-aheads of an earlier plan that nobody took are dropped (a read in flight
            # for one of them is discarded when it lands)
            self._ahead = {k: v for k, v in self._ahead.items() if k in wanted}
            self._plan = deque(keys)
            self._top_up()

    def get(self, key):
        with self._cv:
            self._raise_error()
            if key in self._pending:
                return self._pending[key]
            if key not in self._ahead:
                self._ahead[key] = _PENDING
                self._jobs.put(("read", key, None))
            while self._ahead.get(key) is _PENDING:
                self._cv.wait()
                self._raise_error()
            blobs = self._ahead.pop(key, None)
            self._top_up()
        if blobs is None:
            return self.get(key)
        return blobs

    def put(self, key, blobs):
        with self._cv:
            self._raise_error()
            self._ahead.pop(key, None)  # a stale read-ahead must not be served later
            self._file(key)
            self._pending[key] = blobs
            self._failed.discard(key)
            self._jobs.put(("write", key, blobs))
            while len(self._pending) - len(self._failed) > self.write_behind and self._error is None:
                self._cv.wait()
            self._raise_error()

    def nbytes(self):
        """Bytes of the segment files (the payloads waiting to be written count at their size)."""
        with self._cv:
            pend = {k: sum(len(b) for b in v.values()) for k, v in self._pending.items()}
            return sum(v for k, v in self._sizes.items() if k not in pend) + sum(pend.values())

    def flush(self):
        self._jobs.join()
        with self._cv:
            self._raise_error()

    def close(self):
        if self._closed:
            return
        self._closed = True
        self._jobs.put(None)
        self._thread.join()
        if self.remove_on_close:
            import shutil

            shutil.rmtree(self.path, ignore_errors=True)


class _Pending:
    def __repr__(self):
        return "<read pending>"


_PENDING = _Pending()
