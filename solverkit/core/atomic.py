"""Files replaced atomically: written as NAME.tmp, then renamed over NAME, so a crash or a full
disk at any moment leaves either the old file or the new one, never a torn one."""

from __future__ import annotations

import errno
import os
from contextlib import contextmanager
from pathlib import Path


def reason(exc: OSError) -> str:
    """A short reason for a failed write: "the disk is full" for ENOSPC, else the OS message."""
    return "the disk is full" if exc.errno == errno.ENOSPC else str(exc)


@contextmanager
def atomic_file(path, durable: bool = True):
    """Yield a binary file for ``path.tmp``; on success rename it over `path` (fsyncing the file
    and the directory when `durable`); on any error remove the temporary file and re-raise."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "wb") as fh:
            yield fh
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise
    if durable:
        try:
            dfd = os.open(path.parent, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
        except OSError:
            pass
