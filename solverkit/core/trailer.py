"""The trailer that checkpoints and part files share: a magic first line, the payloads, a
msgpack footer, its crc32 and length, and an end marker; read back with every check."""

from __future__ import annotations

import struct
import zlib

import msgpack

END = b"SKEND\n"
TAIL = struct.Struct("<IQ")  # crc32 of the footer, footer length
#: bytes after the footer: its crc32 and length, and the end marker
TRAILER_BYTES = TAIL.size + len(END)
#: the longest footer read back: its metrics rows (a few hundred bytes each) and segment index fit
#: many times over; a longer length is damage, refused before its bytes are read
FOOTER_LIMIT = 1 << 30


def write_trailer(fh, footer: dict) -> None:
    """Write `footer` (msgpack), its crc32 and length, and the end marker to `fh`."""
    raw = msgpack.packb(footer)
    fh.write(raw)
    fh.write(TAIL.pack(zlib.crc32(raw), len(raw)))
    fh.write(END)


def read_trailer(path, size: int, magic: bytes, error, name: str, label: str) -> tuple[dict, int]:
    """(footer map, footer length) of the file at `path` (`size` bytes) that starts with
    `magic`; `error` (an exception class) says what is wrong, naming `name` for a foreign file
    ("X is not a solverkit <...>") and starting other messages with `label`."""
    tail = TRAILER_BYTES
    with open(path, "rb") as fh:
        if size < len(magic) + tail or fh.read(len(magic)) != magic:
            raise error(name)
        fh.seek(size - tail)
        crc, flen = TAIL.unpack(fh.read(TAIL.size))
        if fh.read(len(END)) != END or flen > size - len(magic) - tail:
            raise error(f"{label} is truncated (no valid end marker)")
        if flen > FOOTER_LIMIT:
            raise error(f"{label}: footer length {flen} bytes is past the {FOOTER_LIMIT >> 20} MiB a footer can have "
                        "(the file is damaged)")
        # the checksum first, a chunk at a time: a damaged length never has its bytes held in memory
        fh.seek(size - tail - flen)
        check, left = 0, flen
        while left:
            chunk = fh.read(min(left, 1 << 24))
            if not chunk:
                break
            check, left = zlib.crc32(chunk, check), left - len(chunk)
        if left or check != crc:
            raise error(f"{label}: footer checksum mismatch (the file is damaged)")
        fh.seek(size - tail - flen)
        raw = fh.read(flen)
    try:
        footer = msgpack.unpackb(raw, strict_map_key=False)
    except Exception as exc:
        raise error(f"{label}: footer does not decode ({exc})") from None
    if not isinstance(footer, dict):
        raise error(f"{label}: footer is a {type(footer).__name__}, expected a map (the file is damaged)")
    return footer, flen
