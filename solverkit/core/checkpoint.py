"""Checkpoint files: the value store and the loop's state, written atomically, read with checks.

Layout of ``checkpoint.skc`` (streamed, so a checkpoint never needs the whole store decoded):

    MAGIC | payload bytes of every segment array, one after another |
    footer (msgpack: format, version, game, iteration, seconds, metrics, segment index) |
    crc32 of the footer (u32) | footer length (u64) | END

Every payload carries its own checksum (:mod:`solverkit.core.codec`), the footer has one too.
The file is written as ``checkpoint.skc.tmp``, fsynced and renamed over the previous
checkpoint, so a crash at any moment leaves either the old or the new checkpoint whole.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import msgpack

from ..errors import SolverkitError
from .atomic import atomic_file, reason

FORMAT = "solverkit.checkpoint"
VERSION = 1
MAGIC = b"SKCKPT1\n"
END = b"SKEND\n"
_TAIL = struct.Struct("<IQ")
FILENAME = "checkpoint.skc"


class CheckpointError(SolverkitError):
    """A checkpoint is missing, damaged, or belongs to another game or format version."""


def write_checkpoint(path, store, state: dict) -> int:
    """Write `store`'s segments and `state` (iteration, seconds, metrics, game...) to `path`
    atomically; return the file's size. On failure the previous checkpoint is untouched."""
    path = Path(path)
    index = []
    try:
        with atomic_file(path) as fh:
            fh.write(MAGIC)
            for key in store.specs:
                blobs = store.payloads(key)
                index.append([key, [[name, len(b)] for name, b in blobs.items()]])
                for b in blobs.values():
                    fh.write(b)
            footer = msgpack.packb({"format": FORMAT, "version": VERSION, **state, "segments": index})
            fh.write(footer)
            fh.write(_TAIL.pack(zlib.crc32(footer), len(footer)))
            fh.write(END)
    except OSError as exc:
        raise CheckpointError(f"cannot write checkpoint {path}: {reason(exc)}; the previous checkpoint is intact") from None
    return path.stat().st_size


def read_footer(path) -> dict:
    """The footer of checkpoint `path`, after checking magic, length and checksum."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"no checkpoint at {path} (was the run started with --checkpoint-every?)")
    size = path.stat().st_size
    tail = _TAIL.size + len(END)
    with open(path, "rb") as fh:
        if size < len(MAGIC) + tail or fh.read(len(MAGIC)) != MAGIC:
            raise CheckpointError(f"{path} is not a solverkit checkpoint (truncated or foreign file)")
        fh.seek(size - tail)
        crc, flen = _TAIL.unpack(fh.read(_TAIL.size))
        if fh.read(len(END)) != END or flen > size - len(MAGIC) - tail:
            raise CheckpointError(f"{path} is truncated (no valid end marker)")
        fh.seek(size - tail - flen)
        raw = fh.read(flen)
    if zlib.crc32(raw) != crc:
        raise CheckpointError(f"{path}: footer checksum mismatch (the file is damaged)")
    try:
        footer = msgpack.unpackb(raw, strict_map_key=False)
    except Exception as exc:
        raise CheckpointError(f"{path}: footer does not decode ({exc})") from None
    if footer.get("format") != FORMAT:
        raise CheckpointError(f"{path}: format {footer.get('format')!r}, expected {FORMAT!r}")
    if footer.get("version") != VERSION:
        raise CheckpointError(
            f"{path}: checkpoint format version {footer.get('version')!r}; this solverkit reads version {VERSION}"
        )
    footer["_payload_bytes"] = size - tail - flen - len(MAGIC)
    return footer


def read_checkpoint(path, store, game_table: dict) -> dict:
    """Load checkpoint `path` into `store` (after checking it is the same game and layout) and
    return its state. Nothing in the store changes unless every segment decodes."""
    path = Path(path)
    footer = read_footer(path)
    if footer.get("game") != game_table:
        raise CheckpointError(f"{path} is a checkpoint of game {footer.get('game')!r}, not of {game_table!r}")
    index = footer["segments"]
    keys = [k for k, _ in index]
    if sorted(keys) != sorted(store.specs):
        raise CheckpointError(
            f"{path}: holds segments {_few(keys)}, the game has {_few(list(store.specs))} "
            "(another split, chunking or averaging?)"
        )
    total = sum(n for _, arrays in index for _, n in arrays)
    if total != footer["_payload_bytes"]:
        raise CheckpointError(f"{path}: the index names {total} payload bytes, the file holds {footer['_payload_bytes']}")
    loaded = []
    with open(path, "rb") as fh:
        fh.seek(len(MAGIC))
        for key, arrays in index:
            blobs = {name: fh.read(n) for name, n in arrays}
            try:
                store._decode(key, blobs)  # every checksum and size, before anything changes
            except SolverkitError as exc:
                raise CheckpointError(f"{path}: {exc}") from None
            loaded.append((key, blobs))
    for key, blobs in loaded:
        store.restore(key, blobs)
    return {k: v for k, v in footer.items() if k not in ("segments", "format", "version", "_payload_bytes")}


def _few(names, n=4):
    names = sorted(names)
    return ", ".join(names[:n]) + (f" ... ({len(names)} in all)" if len(names) > n else "")
