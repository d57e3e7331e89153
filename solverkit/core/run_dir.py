"""A run's output directory (``--out``): what marks one as holding a run, the refusal of one that
holds another run (unless resumed or replaced with ``--force``), the replaced run set aside until
the new one has written something and put back when it fails before, the files that go stale
when a run (re)starts, and the metrics row a resumed run drops."""

from __future__ import annotations

import copy
import fcntl
import math
import os
import shutil
from pathlib import Path

from ..errors import ConfigError
from .checkpoint import FILENAME as CHECKPOINT_FILE
from .checkpoint import PARTS_DIR
from .schedule import log_schedule
from .strategy_file import STRATEGY_MANIFEST

#: what a run writes in its output directory; a directory holding any of them holds a run (or a
#: file of the user's that a run would overwrite)
RUN_FILES = ("config.toml", "metrics.csv", "result.json", "strategy.npz", STRATEGY_MANIFEST, CHECKPOINT_FILE,
             PARTS_DIR, "report.html")
#: the folder of a run's disk store in its output directory (``[store] backend = "disk"`` without a path)
STORE_DIR = "store"
#: files made from a run's outputs afterwards (``solverkit report``): stale once the run (re)starts
DERIVED_FILES = ("report.html",)


def check_out_dir(out, resume: bool = False, force: bool = False) -> None:
    """Refuse an output directory given as empty text (which would be the working directory), a file,
    or (without `resume` or `force`) holds another run's files: a new run never overwrites them."""
    if not str(out).strip():  # Path("") is the working directory
        raise ConfigError(f"--out {str(out)!r} is empty: give a directory for the run's outputs (e.g. --out runs/mine)")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} is a file, not a directory: give a directory for the run's outputs")
    if resume or force or not out.is_dir():
        return
    held = [name for name in RUN_FILES if (out / name).exists()]
    if held:
        resume_hint = f"go on with it with --resume {out}, " if CHECKPOINT_FILE in held else ""
        raise ConfigError(f"--out {out} already holds a run ({', '.join(held)}): {resume_hint}give another --out, "
                          "or add --force to replace it")


def hold_out_dir(out: Path, resume: bool = False, force: bool = False) -> int:
    """Make the output directory `out` and hold it for this run: an exclusive lock on the
    directory itself (flock; the system drops it when the process ends, so a killed run leaves
    none behind), then `out` checked again under the lock. Two solves into one --out at once
    wrote one metrics.csv in turns and one's config.toml beside the other's result.json; the
    second is refused and touches nothing. Returns the lock for :func:`release_out_dir`."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        fd = os.open(out, os.O_RDONLY)
    except OSError as exc:
        raise ConfigError(f"--out {out}: cannot make or open the directory: {exc.strerror or exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise ConfigError(f"--out {out} is being written by another solve right now: give another --out, or wait "
                          "for that solve to end") from None
    except OSError:  # a file system without locks: the check before is all there is
        pass
    try:
        check_out_dir(out, resume, force)  # another solve may have finished its run there meanwhile
    except BaseException:
        os.close(fd)
        raise
    return fd


def release_out_dir(lock: int | None) -> None:
    """Let another solve write the output directory held by :func:`hold_out_dir`."""
    if lock is not None:
        try:
            os.close(lock)
        except OSError:
            pass


#: the longest line of a run's metrics.csv read back (a row is a few hundred bytes)
LINE_LIMIT = 1 << 20
#: the largest result.json read back (a few kB)
RESULT_LIMIT = 16 << 20


class LongLine(ValueError):
    """A line of a run's CSV file longer than LINE_LIMIT: the file is damaged."""


def bounded_lines(fh, limit: int = LINE_LIMIT):
    """The lines of text file `fh`, none longer than `limit` characters (LongLine): a damaged
    file of one endless line (zeros of a sparse file) is never read into memory whole."""
    while True:
        line = fh.readline(limit + 1)
        if not line:
            return
        if len(line) > limit:
            raise LongLine(f"a line longer than {limit >> 20} MiB")
        yield line


def not_a_run(run_dir, config) -> ConfigError:
    """The error for a RUN_DIR whose config.toml (`config`) is missing or no regular file."""
    why = "not found" if not Path(config).exists() else "is not a regular file (a directory?)"
    return ConfigError(f"{run_dir} is not a solve output directory: {config} {why}")


#: where --force keeps the outputs of the run it replaces until the new run has written its first
#: metrics row or checkpoint (they come back if it fails before)
REPLACED_DIR = ".replaced-run"


def set_aside(out: Path) -> Path | None:
    """Move the run files in `out` into OUT/.replaced-run (a leftover one, of a run replaced
    before a crash, is dropped: it was being replaced); None when there are none."""
    present = [name for name in RUN_FILES if (out / name).exists() or (out / name).is_symlink()]
    if not present:
        return None
    aside = out / REPLACED_DIR
    if aside.exists():
        shutil.rmtree(aside)
    aside.mkdir()
    for name in present:
        os.replace(out / name, aside / name)
    return aside


def undo_start(out: Path | None, aside: Path | None, made: bool, made_store: bool = False,
               outputs: bool = True) -> None:
    """Leave `out` as a run that failed before its first metrics row or checkpoint found it: its
    own files removed (unless `outputs` is false: it failed before writing any, and the run
    files there are still those of the run --force replaces), the files of the run it replaced
    put back, the disk store's folder OUT/store removed if this run made it (`made_store`), and
    the directory removed if this run made it and nothing else is in it. Errors here never hide
    the run's own error."""
    if out is None:
        return
    try:
        if outputs:
            clear_out_dir(out, replace=True)
        if aside is not None:
            for path in aside.iterdir():
                os.replace(path, out / path.name)
            aside.rmdir()
        if made_store:
            shutil.rmtree(out / STORE_DIR, ignore_errors=True)
        if made and out.is_dir() and not any(out.iterdir()):
            out.rmdir()
    except OSError:
        pass


def drop_aside(aside: Path | None) -> None:
    """Delete the replaced run set aside in `aside` (the new run has written its first output)."""
    if aside is not None:
        shutil.rmtree(aside, ignore_errors=True)


def clear_out_dir(out: Path, replace: bool) -> None:
    """Remove what would misdescribe the run about to write `out`: derived files (report.html)
    always, and with `replace` every output of the run that was there (its checkpoint too)."""
    for name in RUN_FILES if replace else DERIVED_FILES:
        path = out / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)


def drop_cap_row(metrics: list[dict], schedule, iteration: int) -> list[dict]:
    """A resumed run's metrics rows without the last one when only the earlier run's iteration
    cap made it (off the evaluation schedule): the resumed run measures on its own schedule,
    as one run straight to the new cap would."""
    if not metrics or metrics[-1]["iteration"] != iteration:
        return metrics
    last = metrics[-1]
    prev = metrics[-2] if len(metrics) > 1 else None
    if schedule.kind == "iterations":
        due = last["iteration"] % schedule.period == 0
    elif schedule.kind == "log":
        due = log_schedule(int(last["iteration"]))
    elif schedule.kind == "target":  # where a straight run, seeing the rows before, would have evaluated
        straight = copy.copy(schedule)
        straight.replay(metrics[:-1])
        due = int(last["iteration"]) == straight.next_at
    else:  # a time or node mark is due at the first evaluation past it
        column = "seconds" if schedule.kind == "seconds" else "nodes_touched"
        value, before = last.get(column), (prev or {}).get(column) or 0.0
        if value is None:
            return metrics
        due = math.floor(float(value) / schedule.period) > math.floor(float(before) / schedule.period)
    return metrics if due else metrics[:-1]
