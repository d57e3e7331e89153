"""Disk backend of the value store: one file per segment, read ahead and written behind.

One I/O thread does every read and write, so disk access is serialized (one stream, as the
original workers did) while compute threads decode, update and encode. ``expect(keys)`` queues
read-aheads of up to ``prefetch`` segments; ``put`` hands the new payloads to the writer and
returns at once (at most ``write_behind`` segments wait, then ``put`` blocks, so memory stays
bounded). A segment waiting to be written is served from memory, so a read never sees stale
bytes. Each file is written as ``name.tmp`` and renamed over the old one: a failed write (a
full disk) leaves the previous version intact and is reported at the next store call.

A segment file records the run id and the segment key it was written for, and a read checks
both, so a file of another run or another segment is refused, never decoded as this one. The
directory is locked for the life of the backend (an exclusive ``flock`` on ``DIR/.lock``, which
names the holder): a second run on the same directory is refused; the lock dies with its
process, so a killed run never leaves a stale one.
"""

from __future__ import annotations

import fcntl
import os
import queue
import socket
import struct
import threading
import time
from collections import deque
from pathlib import Path

import msgpack

from ..errors import SolverkitError
from .atomic import atomic_file, reason

FILE_MAGIC = b"SKSEG2\n"
OLD_FILE_MAGICS = (b"SKSEG1\n",)
_LEN = struct.Struct("<Q")
LOCK_FILE = ".lock"


class DiskStoreError(SolverkitError):
    """A segment file could not be written or read, or the store directory is in use."""


def _encode_file(blobs: dict[str, bytes], key: str = "", run: str = "") -> bytes:
    head = msgpack.packb({"run": run or "", "key": key, "arrays": {name: len(b) for name, b in blobs.items()}})
    return FILE_MAGIC + _LEN.pack(len(head)) + head + b"".join(blobs.values())


def _decode_file(data: bytes, path, key: str | None = None, run: str | None = None) -> dict[str, bytes]:
    """The payloads of segment file `path`, after checking that it is segment `key` of run `run`
    (where given) and that its sizes add up."""
    mv = memoryview(data)
    n0 = len(FILE_MAGIC)
    if bytes(mv[:n0]) in OLD_FILE_MAGICS:
        raise DiskStoreError(f"{path}: a segment file of an older solverkit ({bytes(mv[:n0- 1]).decode()}); this one "
                             f"reads {FILE_MAGIC[:-1].decode()}: start a new run in another [store] path")
    if bytes(mv[:n0]) != FILE_MAGIC or len(mv) < n0 + _LEN.size:
        raise DiskStoreError(f"{path}: not a solverkit segment file (truncated or foreign)")
    (hl,) = _LEN.unpack_from(mv, n0)
    pos = n0 + _LEN.size
    if pos + hl > len(mv):
        raise DiskStoreError(f"{path}: truncated: the header needs {hl} bytes, {len(mv) - pos} left")
    try:
        head = msgpack.unpackb(bytes(mv[pos: pos + hl]), max_map_len=64, max_str_len=1 << 16)
    except Exception as exc:
        raise DiskStoreError(f"{path}: damaged segment header ({exc})") from None
    if (not isinstance(head, dict) or set(head) != {"run", "key", "arrays"} or not isinstance(head["run"], str)
            or not isinstance(head["key"], str) or not isinstance(head["arrays"], dict)
            or not all(isinstance(n, str) and isinstance(v, int) and not isinstance(v, bool) and v >= 0
                       for n, v in head["arrays"].items())):
        raise DiskStoreError(f"{path}: damaged segment header {head!r:.120} (expected run, key and array sizes)")
    if key is not None and head["key"] != key:
        raise DiskStoreError(f"{path}: holds segment {head['key']!r}, expected segment {key!r} (a file of another "
                             "segment was swapped in); start a new run in an empty [store] path")
    if run is not None and head["run"] != run:
        raise DiskStoreError(f"{path}: written by run {head['run']!r}, expected run {run!r} (a file of another run "
                             "was swapped in, or two runs share this [store] path); start a new run in an empty "
                             "[store] path")
    pos += hl
    out = {}
    for name, size in head["arrays"].items():
        if pos + size > len(mv):
            raise DiskStoreError(f"{path}: truncated: array {name!r} needs {size} bytes, {len(mv) - pos} left")
        out[name] = bytes(mv[pos: pos + size])
        pos += size
    if pos != len(mv):
        raise DiskStoreError(f"{path}: {len(mv) - pos} bytes after the last array (damaged or appended to)")
    return out


def lock_directory(path: Path, run_id: str | None):
    """An exclusive advisory lock on `path`/.lock (the open file; closing it unlocks), with the
    holder's pid, host and run id written in it; DiskStoreError naming the holder if taken."""
    lock = path / LOCK_FILE
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise DiskStoreError(f"[store] path {str(path)!r} cannot be locked: {exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        try:
            holder = os.pread(fd, 512, 0).decode("utf-8", "replace").strip() or "another process"
        finally:
            os.close(fd)
        raise DiskStoreError(
            f"[store] path {str(path)!r} is in use by another run ({holder}); wait for it to finish, or give "
            "this run its own [store] path"
        ) from None
    write_lock_holder(fd, run_id)
    return fd


def write_lock_holder(fd: int, run_id: str | None) -> None:
    text = (f"pid {os.getpid()} on host {socket.gethostname()}, run {run_id or '?'}, since "
            f"{time.strftime('%Y-%m-%dT%H:%M:%S%z')}\n").encode()
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, text, 0)
    except OSError:
        pass  # the lock holds whether or not its note could be written


class DiskBackend:
    """Segment payloads as files under `path`, with a prefetch and write-behind I/O thread."""

    name = "disk"

    def __init__(self, path, prefetch: int = 2, write_behind: int = 2, remove_on_close: bool = False,
                 run_id: str | None = None):
        self.path = Path(path)
        self.remove_on_close = remove_on_close
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise DiskStoreError(f"[store] path {str(self.path)!r} cannot be used: {exc}") from None
        self._run_id = run_id
        self._lock_fd = lock_directory(self.path, run_id)
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

    @property
    def run_id(self):
        """The run whose segments this directory holds (recorded in each file, checked on read)."""
        return self._run_id

    @run_id.setter
    def run_id(self, value):
        self._run_id = value
        if self._lock_fd is not None:
            write_lock_holder(self._lock_fd, value)

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
            run = self._run_id
        data = _encode_file(blobs, key, run)
        try:
            with atomic_file(f, durable=False) as fh:  # checkpoints, not segment files, are the durable state
                fh.write(data)
        except OSError as exc:
            raise DiskStoreError(
                f"cannot write segment {key!r} to {f}: {reason(exc, f)}; its previous version on disk is intact"
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
            run = self._run_id
        if f is None:
            raise DiskStoreError(f"segment {key!r} was never written to {self.path}")
        try:
            data = f.read_bytes()
        except OSError as exc:
            raise DiskStoreError(f"cannot read segment {key!r} from {f}: {exc}") from None
        return _decode_file(data, f, key, run)

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
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # releases the lock
            self._lock_fd = None
        if self.remove_on_close:
            import shutil

            shutil.rmtree(self.path, ignore_errors=True)


class _Pending:
    def __repr__(self):
        return "<read pending>"


_PENDING = _Pending()
