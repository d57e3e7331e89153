"""The strategy file, ``strategy.npz``: per-player flat policies plus their layouts.

Arrays: ``policy0``, ``policy1`` (float64, probabilities, actions innermost), and for each
player ``block_start{p}``, ``block_count{p}``, ``block_actions{p}`` (int64, see
:class:`solverkit.core.layout.Layout`). ``meta`` is a JSON string with ``format``
(``"solverkit.strategy"``), ``version`` (1), ``kind`` (``"average"`` or ``"current"``),
``iteration`` and ``game`` (the resolved [game] table).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np

from ..errors import SolverkitError
from .atomic import atomic_file
from .layout import Layout

FORMAT = "solverkit.strategy"
VERSION = 1


def save_strategy(path, strategy, layouts, kind: str, iteration: int, game_table: dict) -> None:
    """Write the strategy file atomically (temporary file, fsync, rename).

    `strategy` is a list of the two players' policies, or a function ``fill(player, out,
    release)`` that writes one player's policy into `out`: a memory-mapped temporary file
    next to `path`, whose pages `release()` hands back to the OS, so that a large game's
    policy never has to fit in memory."""
    path = Path(path)
    meta = {"format": FORMAT, "version": VERSION, "kind": kind, "iteration": iteration, "game": game_table}
    with atomic_file(path) as fh:
        # the layout np.savez writes (a zip of .npy members), one member at a time
        with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
            def member(name, arr):
                with zf.open(f"{name}.npy", "w", force_zip64=True) as out:
                    np.lib.format.write_array(out, np.asanyarray(arr), allow_pickle=False)

            for p in (0, 1):
                if callable(strategy):
                    _policy_member(zf, path.with_name(f"{path.name}.policy{p}.npy"), p, layouts[p].size, strategy)
                else:
                    member(f"policy{p}", np.asarray(strategy[p], dtype=np.float64))
                member(f"block_start{p}", layouts[p].block_start)
                member(f"block_count{p}", layouts[p].block_count)
                member(f"block_actions{p}", layouts[p].block_actions)
            member("meta", np.array(json.dumps(meta)))


def _policy_member(zf, scratch: Path, player: int, size: int, fill) -> None:
    """policy{player}.npy written through a memory-mapped scratch file, then streamed into the zip."""
    import mmap
    import shutil

    mm = np.lib.format.open_memmap(scratch, mode="w+", dtype=np.float64, shape=(size,))
    try:
        def release():
            mm.flush()
            raw = getattr(mm, "_mmap", None)
            if raw is not None and hasattr(mmap, "MADV_DONTNEED"):
                raw.madvise(mmap.MADV_DONTNEED)  # clean file pages: dropped from this process

        fill(player, mm, release)
        release()
        del mm
        with open(scratch, "rb") as src, zf.open(f"policy{player}.npy", "w", force_zip64=True) as dst:
            shutil.copyfileobj(src, dst, 1 << 22)
    finally:
        try:
            scratch.unlink()
        except OSError:
            pass


def load_strategy(path):
    """Read a strategy file: returns (strategy list, layouts list, meta dict)."""
    path = Path(path)
    if not path.is_file():
        raise SolverkitError(f"strategy file not found: {path}")
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            strategy = [data[f"policy{p}"].astype(np.float64) for p in (0, 1)]
            layouts = [
                Layout(data[f"block_start{p}"], data[f"block_count{p}"], data[f"block_actions{p}"]) for p in (0, 1)
            ]
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        raise SolverkitError(f"cannot read strategy file {path}: {exc}") from None
    if not isinstance(meta, dict):
        raise SolverkitError(f"cannot read strategy file {path}: meta is {type(meta).__name__}, not an object")
    if meta.get("format") != FORMAT or meta.get("version") != VERSION:
        raise SolverkitError(
            f"{path}: format {meta.get('format')!r} version {meta.get('version')!r}; "
            f"expected {FORMAT!r} version {VERSION}"
        )
    for p in (0, 1):
        if strategy[p].ndim != 1 or strategy[p].shape[0] != layouts[p].size:
            raise SolverkitError(
                f"{path}: policy{p} has shape {strategy[p].shape}; its layout needs {layouts[p].size} values"
            )
    return strategy, layouts, meta


def check_layout(path, layouts, game) -> None:
    """Raise unless the file's layouts are the game's (same game, same parameters)."""
    for p in (0, 1):
        mine = game.layout(p)
        theirs = layouts[p]
        same = all(
            np.array_equal(getattr(mine, f), getattr(theirs, f)) for f in ("block_start", "block_count", "block_actions")
        )
        if not same:
            raise SolverkitError(
                f"{path}: player {p}'s layout ({theirs.num_infosets} information sets, {theirs.size} values) "
                f"does not match game {game.name!r} ({mine.num_infosets} information sets, {mine.size} values)"
            )
