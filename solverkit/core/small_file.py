"""Reading a small input file whole (a game definition, a file sent to workers) with one
ConfigError, never an OSError or a read of a huge file, when it is too large or unreadable."""

from __future__ import annotations

from pathlib import Path

from ..errors import ConfigError


def read_small_file(path: Path, limit: int, too_large, unreadable) -> bytes:
    """The bytes of `path`; ConfigError(too_large(size)) when it holds more than `limit` bytes,
    ConfigError(unreadable(the OS's reason)) when it cannot be read."""
    try:
        size = path.stat().st_size
        if size > limit:
            raise ConfigError(too_large(size))
        return path.read_bytes()
    except OSError as exc:
        raise ConfigError(unreadable(exc.strerror)) from None
