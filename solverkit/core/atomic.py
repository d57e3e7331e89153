"""Files replaced atomically: written as NAME.tmp, then renamed over NAME, so a crash or a full
disk at any moment leaves either the old file or the new one, never a torn one."""

from __future__ import annotations

import errno
import os
from contextlib import contextmanager
from pathlib import Path


def reason(exc: OSError, path=None) -> str:
    """A short reason for a failed write: "the disk is full" for ENOSPC, the file size limit for
    EFBIG, a directory in the file's place for EISDIR, else the OS message; prefixed with the
    file it concerns when that is not `path` (the temporary NAME.tmp)."""
    if exc.errno == errno.ENOSPC:
        return "the disk is full"
    if exc.errno == errno.EFBIG:
        text = "the file is larger than this process may write (ulimit -f)"
    elif exc.errno == errno.EISDIR:
        text = "a directory is in its place"
    else:
        text = exc.strerror or str(exc)
    # a failed rename of NAME.tmp over `path` concerns `path` (filename2); a failed open, the file it opened
    if path is not None and exc.filename2 is None and exc.filename is not None and str(exc.filename) != str(path):
        return f"{exc.filename}: {text}"
    return text


def write_text(path, text: str) -> None:
    """Replace `path` with `text` atomically (NAME.tmp, fsync, rename): a crash or a full disk
    leaves the old file whole. An OSError becomes an OutputError naming the file and why."""
    write_bytes(path, text.encode("utf-8"))


def write_bytes(path, data: bytes) -> None:
    """Replace `path` with `data` atomically, as :func:`write_text` does."""
    from ..errors import OutputError

    try:
        with atomic_file(path) as fh:
            fh.write(data)
    except OSError as exc:
        if exc.errno == errno.ENOENT and not Path(path).parent.is_dir():
            raise OutputError(f"cannot write {path}: no such directory {Path(path).parent}") from None
        kept = " (the file there before is unchanged)" if Path(path).is_file() else ""
        raise OutputError(f"cannot write {path}: {reason(exc, path)}{kept}") from None


@contextmanager
def atomic_file(path, durable: bool = True):
    """Yield a binary file for ``path.tmp``; on success rename it over `path` (fsyncing the file
    and the directory when `durable`); on any error remove the temporary file and re-raise."""
    path = Path(path)
    if path.exists() and not path.is_file() and not path.is_dir():
        # a device or a pipe (-o /dev/stdout): written in place. Renaming over it replaced the device
        # node itself (as root, export -o /dev/full left a regular file at /dev/full)
        with open(path, "wb") as fh:
            yield fh
        return
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
