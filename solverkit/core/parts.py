"""Part files: one owner's share of a distributed checkpoint or strategy, written atomically.

A distributed checkpoint (``[transport] checkpoint = "distributed"``) or strategy is one part
file per owner (each zmq worker writes its own segments) plus a manifest that names every part
with its size and checksum (docs/formats.md). Layout of a part file (``.skp``, ``.sks``)::

    MAGIC | the arrays' bytes, one after another |
    footer (msgpack: format, version, kind, run, iteration, owner, entries) |
    crc32 of the footer (u32) | footer length (u64) | END

``entries`` is ``[[segment, [[array, bytes, crc32], ...]], ...]`` in file order: a checkpoint
part holds the segments' value frames, a strategy part their policies as little-endian float64.
The whole file's size and crc32 go into the manifest, and every array has a crc32 of its own so
that one segment can be read and checked without reading the rest (a strategy query).
"""

from __future__ import annotations

import re
import zlib
from pathlib import Path

from ..errors import SolverkitError
from .atomic import atomic_file, reason
from .trailer import TRAILER_BYTES, read_trailer, write_trailer

FORMAT = "solverkit.part"
VERSION = 1
MAGIC = b"SKPART1\n"
#: what a part holds: a checkpoint's value frames, or a strategy's policies
KINDS = ("checkpoint", "strategy")
#: a part's file name: plain, so that a worker never opens a path its trunk names
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")


class PartError(SolverkitError):
    """A part file is missing, damaged, or not the part its manifest names."""


def check_name(name, where: str) -> str:
    """`name` when it is a plain file name (letters, digits, ``._-``; no directory), else PartError."""
    if not isinstance(name, str) or not NAME.fullmatch(name) or name in (".", ".."):
        raise PartError(f"{where}: part file name {name!r:.80} is invalid: expected a plain file name "
                        "(letters, digits, '.', '_', '-'; no directory)")
    return name


class _Crc:
    """A binary file that keeps the crc32 and length of everything written to it."""

    def __init__(self, fh):
        self.fh, self.crc, self.size = fh, 0, 0

    def write(self, data) -> None:
        self.fh.write(data)
        self.crc = zlib.crc32(data, self.crc)
        self.size += len(data)


def write_part(path, kind: str, entries, run: str, iteration: int, owner: str, **extra) -> dict:
    """Write part file `path` atomically (temporary file, fsync, rename) from `entries`, an
    iterable of (segment, {array: bytes}); return its manifest record ``{file, bytes, crc32,
    segments}``. A failure leaves no file behind and names the path."""
    path = Path(path)
    index = []
    try:
        with atomic_file(path) as raw:
            fh = _Crc(raw)
            fh.write(MAGIC)
            for segment, arrays in entries:
                rows = []
                for name, data in arrays.items():
                    data = memoryview(data).cast("B")
                    fh.write(data)
                    rows.append([name, len(data), zlib.crc32(data)])
                index.append([segment, rows])
            write_trailer(fh, {"format": FORMAT, "version": VERSION, "kind": kind, "run": run,
                               "iteration": int(iteration), "owner": owner, "entries": index, **extra})
    except OSError as exc:
        raise PartError(f"cannot write part {path}: {reason(exc, path)}; the previous checkpoint is intact") from None
    return {"file": path.name, "bytes": fh.size, "crc32": fh.crc, "segments": [s for s, _ in index]}


def file_crc(path) -> int:
    """crc32 of the whole file at `path`, read in 4 MiB blocks."""
    crc = 0
    with open(path, "rb") as fh:
        while block := fh.read(1 << 22):
            crc = zlib.crc32(block, crc)
    return crc


def open_part(path, record: dict | None = None, kind: str | None = None, run: str | None = None,
              verify: bool = True, owner: str = "") -> dict:
    """The footer of part file `path` (with ``_offsets``: segment -> {array: (offset, bytes,
    crc32)}), after checking it against its manifest `record` (size; with `verify`, the whole
    file's crc32), its `kind` and `run`. PartError names the file and `owner` (who wrote it)."""
    path = Path(path)
    who = f" (written by {owner})" if owner else ""
    if not path.is_file():
        raise PartError(f"part {path}{who} is missing")
    size = path.stat().st_size
    if record is not None:
        if size != record["bytes"]:
            raise PartError(f"part {path}{who} has {size} bytes, its manifest says {record['bytes']} (the file is "
                            "truncated, extended or from another checkpoint)")
        if verify and file_crc(path) != record["crc32"]:
            raise PartError(f"part {path}{who}: checksum mismatch against its manifest (the file is damaged)")
    tail = TRAILER_BYTES
    footer, flen = read_trailer(path, size, MAGIC, PartError,
                                f"{path}{who} is not a solverkit part file (truncated or foreign file)",
                                f"part {path}{who}")
    if footer.get("format") != FORMAT or footer.get("version") != VERSION:
        got = (footer.get("format"), footer.get("version"))
        raise PartError(f"part {path}{who}: format {got!r:.80}, expected {FORMAT!r} version {VERSION}")
    if kind is not None and footer.get("kind") != kind:
        raise PartError(f"part {path}{who} is a {footer.get('kind')!r:.40} part, expected a {kind!r} part")
    if run is not None and footer.get("run") != run:
        raise PartError(f"part {path}{who} belongs to run {footer.get('run')!r:.40}, not to run {run!r} (a part of "
                        "another run copied in)")
    offsets, pos = {}, len(MAGIC)
    entries = footer.get("entries")
    if not isinstance(entries, list):
        raise PartError(f"part {path}{who}: footer field entries = {entries!r:.80} is invalid")
    for entry in entries:
        try:
            segment, arrays = entry
            where = offsets.setdefault(segment, {})
            for name, n, c in arrays:
                if not (isinstance(name, str) and isinstance(n, int) and isinstance(c, int) and n >= 0):
                    raise ValueError
                where[name] = (pos, n, c)
                pos += n
        except (TypeError, ValueError):
            raise PartError(f"part {path}{who}: footer entry {entry!r:.80} is invalid") from None
    if pos != size - tail - flen:
        raise PartError(f"part {path}{who}: its index names {pos - len(MAGIC)} bytes of arrays, the file holds "
                        f"{size - tail - flen - len(MAGIC)}")
    footer["_offsets"] = offsets
    footer["_path"] = path
    footer["_owner"] = owner
    return footer


def read_arrays(footer: dict, segment: str, names=None) -> dict[str, bytes]:
    """Arrays `names` (default all) of `segment` from an opened part (:func:`open_part`), each
    checked against its crc32."""
    path, owner = footer["_path"], footer["_owner"]
    who = f" (written by {owner})" if owner else ""
    arrays = footer["_offsets"].get(segment)
    if arrays is None:
        raise PartError(f"part {path}{who} holds no segment {segment!r}")
    out = {}
    with open(path, "rb") as fh:
        for name in (list(arrays) if names is None else names):
            if name not in arrays:
                raise PartError(f"part {path}{who}: segment {segment!r} has no array {name!r}; arrays: "
                                f"{', '.join(sorted(arrays))}")
            pos, n, c = arrays[name]
            fh.seek(pos)
            data = fh.read(n)
            if len(data) != n or zlib.crc32(data) != c:
                raise PartError(f"part {path}{who}: segment {segment!r} array {name!r} fails its checksum (the file "
                                "is damaged)")
            out[name] = data
    return out


def remove_stale(directory, keep, pattern: str) -> None:
    """Remove the files of `directory` matching glob `pattern` whose names are not in `keep`
    (a previous checkpoint's parts, once a newer manifest names others)."""
    keep = set(keep)
    for path in Path(directory).glob(pattern):
        if path.name not in keep:
            try:
                path.unlink()
            except OSError:
                pass
