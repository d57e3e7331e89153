"""The self-describing frame a stored array is written as: header layout, value kinds, run id
bytes, and reading a header back, so that no payload is decoded with settings it was not written with."""

from __future__ import annotations

import struct
import zlib

import msgpack

from ..errors import SolverkitError

MAGIC = b"SKV"
FRAME_VERSION = 2
KIND_FLOAT64 = 0
KIND_FIXED32 = 1
KIND_BLOCK16 = 2
KIND_FLOAT32 = 3
#: kinds whose values are floats as they are (no scale recorded)
UNSCALED = (KIND_FLOAT64, KIND_FLOAT32)
#: magic, version, crc32 (of everything after it: kind, count, description length, description,
#: body), kind, number of values, description length
_HEADER = struct.Struct("<3sBIBQH")
_CRC_FROM = 8  # the crc covers the frame from this byte on
_COVERED = struct.Struct("<BQH")
_OLD_HEADER = struct.Struct("<3sBB")  # what every version starts with
KIND_NAMES = {KIND_FLOAT64: "float64", KIND_FIXED32: "fixed-point int32", KIND_BLOCK16: "16-bit block-scaled",
              KIND_FLOAT32: "float32"}


class CorruptSegment(SolverkitError):
    """A stored payload does not decode: bad magic, checksum, size or codec error."""


def _run_bytes(run: str | None) -> bytes:
    """A run id (32 hex digits) as the 16 bytes a frame records (none: empty)."""
    if not run:
        return b""
    try:
        raw = bytes.fromhex(run)
    except ValueError:
        raw = b""
    if len(raw) != 16:
        raise SolverkitError(f"run id {run!r} is invalid: expected 32 hex digits")
    return raw


def describe(payload, where: str, expect: bytes | None = None) -> dict:
    """The checked header and description of a frame: kind, count, run, seg, arr, pred, comp,
    scale (CorruptSegment naming `where` if the frame is damaged, foreign or older). With
    `expect` (the description this codec would write) a frame that has exactly it is not
    unpacked: only ``{"match": True}``, kind, count and body come back."""
    mv = memoryview(payload)
    if len(mv) >= _HEADER.size:
        magic, version, crc, kind, n, mlen = _HEADER.unpack_from(mv)
    elif len(mv) >= _OLD_HEADER.size:
        magic, version, _ = _OLD_HEADER.unpack_from(mv)
    else:
        magic, version = MAGIC, FRAME_VERSION
    if magic != MAGIC:
        raise CorruptSegment(f"{where}: not a solverkit value payload (magic {bytes(magic)!r})")
    if version != FRAME_VERSION:
        older = " (written by an older solverkit, before frames recorded their scales and run)" \
            if version < FRAME_VERSION else " (written by a newer solverkit)"
        raise CorruptSegment(
            f"{where}: value frame version {version}{older}; this solverkit reads version {FRAME_VERSION}: "
            "start a new run, or finish that run with the solverkit that wrote it"
        )
    if len(mv) < _HEADER.size:
        raise CorruptSegment(f"{where}: truncated ({len(mv)} bytes, shorter than the {_HEADER.size}-byte header)")
    if zlib.crc32(mv[_CRC_FROM:]) != crc:
        raise CorruptSegment(f"{where}: checksum mismatch (the stored bytes are damaged)")
    if len(mv) < _HEADER.size + mlen:
        raise CorruptSegment(f"{where}: truncated ({len(mv)} bytes, the header names a {mlen}-byte description)")
    meta_raw = mv[_HEADER.size: _HEADER.size + mlen]
    body = mv[_HEADER.size + mlen:]
    if expect is not None and meta_raw == expect:
        return {"match": True, "kind": kind, "count": n, "body": body}
    if kind not in KIND_NAMES:
        raise CorruptSegment(f"{where}: unknown value kind {kind}; kinds: "
                             + ", ".join(f"{k} ({v})" for k, v in KIND_NAMES.items()))
    try:
        meta = msgpack.unpackb(meta_raw, max_str_len=0xFFFF, max_array_len=4096, max_map_len=16)
    except Exception as exc:
        raise CorruptSegment(f"{where}: frame description does not decode ({exc})") from None
    types = (bytes, str, str, str, str, (list, type(None)))
    if (not isinstance(meta, list) or len(meta) != len(types)
            or any(not isinstance(v, t) for v, t in zip(meta, types)) or len(meta[0]) not in (0, 16)):
        raise CorruptSegment(f"{where}: frame description {meta!r:.120} is not [run id, segment, array, "
                             "predictor, compressor, scale] with the expected types")
    meta = dict(zip(("run", "seg", "arr", "pred", "comp", "scale"), meta))
    meta["run"] = meta["run"].hex()
    if (meta["scale"] is None) != (kind in UNSCALED) or (
            meta["scale"] is not None and not all(isinstance(v, float) for v in meta["scale"])):
        raise CorruptSegment(f"{where}: frame of kind {KIND_NAMES[kind]} records scale {meta['scale']!r:.80}")
    return {**meta, "kind": kind, "count": n, "body": body}
