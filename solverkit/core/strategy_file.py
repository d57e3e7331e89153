"""The strategy file, ``strategy.npz``: per-player flat policies plus their layouts.

Arrays: ``policy0``, ``policy1`` (float64, probabilities, actions innermost; float32 from a run
whose store holds float32 values, whose policies have no more digits), and for each
player ``block_start{p}``, ``block_count{p}``, ``block_actions{p}`` (int64, see
:class:`solverkit.core.layout.Layout`). ``meta`` is a JSON string with ``format``
(``"solverkit.strategy"``), ``version`` (1), ``kind`` (``"average"`` or ``"current"``),
``iteration``, ``game`` (the resolved [game] table), ``game_id`` and ``game_definition`` (the
game's identity, :mod:`.identity`: checked whenever the file is read for a game). A game of
more than two players adds ``players`` (N) to meta and the arrays of players 2 .. N - 1.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np

from ..errors import OutputError, SolverkitError
from .atomic import atomic_file, reason
from .layout import Layout

FORMAT = "solverkit.strategy"
VERSION = 1
#: a distributed strategy's manifest in an output directory (a part file, :mod:`.parts`): the
#: trunk's segments' policies and the records of the workers' strategy parts
STRATEGY_MANIFEST = "strategy.skm"


def save_strategy(path, strategy, layouts, kind: str, iteration: int, game_table: dict,
                  identity: dict | None = None, dtype=np.float64) -> None:
    """Write the strategy file atomically (temporary file, fsync, rename); `identity`: the
    game's identity fields (:func:`.identity.identity_fields`), recorded in meta; `dtype`: the
    policies' (float64, or float32 for a store of float32 values: half the file, and the time
    to write it, with every digit those values hold).

    `strategy` is a list of the two players' policies, or a function ``fill(player, out,
    release)`` that writes one player's policy into `out`: a memory-mapped temporary file
    next to `path`, whose pages `release()` hands back to the OS, so that a large game's
    policy never has to fit in memory."""
    path = Path(path)
    meta = {"format": FORMAT, "version": VERSION, "kind": kind, "iteration": iteration, "game": game_table,
            **(identity or {})}
    if len(layouts) != 2:
        meta["players"] = len(layouts)
    try:
        _write(path, strategy, layouts, meta, np.dtype(dtype))
    except OSError as exc:
        raise OutputError(f"cannot write strategy file {path}: {reason(exc, path)} (the file there before is "
                          "unchanged)") from None


def _write(path: Path, strategy, layouts, meta: dict, dtype: np.dtype) -> None:
    with atomic_file(path) as fh:
        # the layout np.savez writes (a zip of .npy members), one member at a time
        with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
            def member(name, arr):
                with zf.open(f"{name}.npy", "w", force_zip64=True) as out:
                    np.lib.format.write_array(out, np.asanyarray(arr), allow_pickle=False)

            for p in range(len(layouts)):
                if callable(strategy):
                    _policy_member(zf, path.with_name(f"{path.name}.policy{p}.npy"), p, layouts[p].size, strategy,
                                   dtype)
                else:
                    member(f"policy{p}", np.asarray(strategy[p], dtype=dtype))
                member(f"block_start{p}", layouts[p].block_start)
                member(f"block_count{p}", layouts[p].block_count)
                member(f"block_actions{p}", layouts[p].block_actions)
            member("meta", np.array(json.dumps(meta)))


def _policy_member(zf, scratch: Path, player: int, size: int, fill, dtype=np.float64) -> None:
    """policy{player}.npy written through a memory-mapped scratch file, then streamed into the zip."""
    import mmap
    import shutil

    mm = np.lib.format.open_memmap(scratch, mode="w+", dtype=dtype, shape=(size,))
    try:
        def release():
            # a shared file mapping: dropping its pages from this process keeps what they hold
            # (dirty pages stay in the page cache for the copy below), so no msync per part
            raw = getattr(mm, "_mmap", None)
            if raw is not None and hasattr(mmap, "MADV_DONTNEED"):
                raw.madvise(mmap.MADV_DONTNEED)

        fill(player, mm, release)
        release()
        mm = None  # unmap before the copy and the unlink below (Windows cannot remove a mapped file)
        with open(scratch, "rb") as src, zf.open(f"policy{player}.npy", "w", force_zip64=True) as dst:
            shutil.copyfileobj(src, dst, 1 << 20)  # 1 MB reads: 4 MB ones added 5 MB to a flop spot's peak
    finally:
        try:
            scratch.unlink()
        except OSError:
            pass


#: a stored probability may miss [0, 1] and an information set's sum may miss 1 by this much
#: (rounding of the normalisation); anything further is damage
PROB_TOLERANCE = 1e-6
ARRAYS = ("meta", *(f"{name}{p}" for p in (0, 1) for name in ("policy", "block_start", "block_count", "block_actions")))
KINDS = ("average", "current")
#: most players a strategy file holds
MAX_PLAYERS = 6


def _player_arrays(players: int) -> tuple[str, ...]:
    """The arrays of players 2 .. players - 1 (a game of more than two players)."""
    return tuple(f"{name}{p}" for p in range(2, players) for name in ("policy", "block_start", "block_count",
                                                                      "block_actions"))


def load_strategy(path, game=None, where: str = ""):
    """Read and check a strategy file: returns (strategy list, layouts list, meta dict).

    Every array must be present with its dtype and shape, the layouts consistent, and every
    information set's probabilities finite, in [0, 1] and summing to 1 (within PROB_TOLERANCE);
    with `game` (built from `where`, e.g. a run's config.toml), the file must have been written
    for that game (its recorded identity; a file without one: a warning), the layouts must be
    the game's, and errors name an information set by key. Anything else is a SolverkitError
    naming the file, the array, the information set and the value."""
    path = Path(path)
    if not path.is_file():
        if path.exists():  # a directory, a device: nothing to read a strategy from
            raise SolverkitError(f"strategy file {path} is not a regular file; expected the .npz archive a solve writes")
        raise SolverkitError(f"strategy file not found: {path}")
    try:
        with path.open("rb") as fh:
            head = fh.read(6)
    except OSError as exc:
        raise SolverkitError(f"cannot read strategy file {path}: {exc.strerror or exc}") from None
    if not head.startswith((b"PK", b"\x93NUMPY")):  # np.load takes anything else for a pickle
        raise SolverkitError(f"cannot read strategy file {path}: not an .npz archive (it starts with {head!r}); "
                             "a damaged file: solve again, or resume from the checkpoint")
    try:
        with np.load(path, allow_pickle=False) as data:
            if not hasattr(data, "files"):
                raise SolverkitError(f"{path}: a single .npy array, expected a strategy file (an .npz archive "
                                     f"with {', '.join(ARRAYS)})")
            missing = [n for n in ARRAYS if n not in data.files]
            if missing:
                raise SolverkitError(f"{path}: missing array(s) {', '.join(missing)}; expected {', '.join(ARRAYS)} "
                                     "(a damaged file: solve again, or resume from the checkpoint)")
            arrays = {n: data[n] for n in ARRAYS}
            for n, arr in arrays.items():
                if not isinstance(arr, np.ndarray):  # np.load hands back the raw bytes of a member without an .npy header
                    raise SolverkitError(f"cannot read strategy file {path}: member {n}.npy has no .npy header (the "
                                         "file is damaged: solve again, or resume from the checkpoint)")
    except SolverkitError:
        raise
    except Exception as exc:  # zip, npy header, pickle refusals, truncation
        raise SolverkitError(f"cannot read strategy file {path}: {' '.join(str(exc).split())[:200]}") from None
    meta_arr = arrays["meta"]
    if meta_arr.ndim != 0 or meta_arr.dtype.kind != "U":
        raise SolverkitError(f"{path}: array meta has dtype {meta_arr.dtype} and shape {meta_arr.shape}; "
                             "expected one JSON string")
    try:
        meta = json.loads(str(meta_arr))
    except (ValueError, RecursionError) as exc:  # RecursionError: nested too deeply for the decoder
        why = "nested too deeply" if isinstance(exc, RecursionError) else exc
        raise SolverkitError(f"cannot read strategy file {path}: meta is not JSON: {why}") from None
    if not isinstance(meta, dict):
        raise SolverkitError(f"cannot read strategy file {path}: meta is {type(meta).__name__}, not an object")
    if meta.get("format") != FORMAT or meta.get("version") != VERSION:
        raise SolverkitError(
            f"{path}: format {meta.get('format')!r} version {meta.get('version')!r}; "
            f"expected {FORMAT!r} version {VERSION}"
        )
    if meta.get("kind") not in KINDS:
        raise SolverkitError(f"{path}: meta kind = {meta.get('kind')!r:.60}; expected one of {', '.join(KINDS)}")
    it = meta.get("iteration")
    if not isinstance(it, int) or isinstance(it, bool) or it < 0:
        raise SolverkitError(f"{path}: meta iteration = {it!r:.60}; expected an integer >= 0")
    players = meta.get("players", 2)
    if not isinstance(players, int) or isinstance(players, bool) or not 2 <= players <= MAX_PLAYERS:
        raise SolverkitError(f"{path}: meta players = {players!r:.60}; expected an integer from 2 to {MAX_PLAYERS}")
    more = _player_arrays(players)
    if more:
        try:
            with np.load(path, allow_pickle=False) as data:
                missing = [n for n in more if n not in data.files]
                if missing:
                    raise SolverkitError(f"{path}: missing array(s) {', '.join(missing)} of a {players}-player "
                                         "strategy (a damaged file: solve again, or resume from the checkpoint)")
                arrays.update({n: data[n] for n in more})
            for n in more:
                if not isinstance(arrays[n], np.ndarray):
                    raise SolverkitError(f"cannot read strategy file {path}: member {n}.npy has no .npy header (the "
                                         "file is damaged: solve again, or resume from the checkpoint)")
        except SolverkitError:
            raise
        except Exception as exc:
            raise SolverkitError(f"cannot read strategy file {path}: {' '.join(str(exc).split())[:200]}") from None
    if game is not None and game.num_players != players:
        raise SolverkitError(f"{path}: a {players}-player strategy, but game {game.name!r} has {game.num_players} "
                             "players")
    identified = game is None
    if game is not None:
        from .identity import check_identity

        identified = check_identity(path, meta, game, where or "the game it is checked against", warn=False)
    strategy, layouts = [], []
    for p in range(players):
        for name in ("block_start", "block_count", "block_actions"):
            arr = arrays[f"{name}{p}"]
            if arr.dtype.kind not in "iu" or arr.ndim != 1:
                raise SolverkitError(f"{path}: array {name}{p} has dtype {arr.dtype} and shape {arr.shape}; "
                                     "expected a 1-D int64 array")
        start, count, actions = (arrays[f"{n}{p}"].astype(np.int64) for n in ("block_start", "block_count", "block_actions"))
        if not len(start) == len(count) == len(actions):
            raise SolverkitError(f"{path}: player {p}'s layout arrays have lengths {len(start)}, {len(count)}, "
                                 f"{len(actions)}; expected equal lengths (one entry per block)")
        if len(count) and (count.min() < 0 or actions.min() < 1):
            raise SolverkitError(f"{path}: player {p}'s layout has a negative block_count{p} or a block_actions{p} "
                                 "below 1; expected counts >= 0 and actions >= 1")
        sizes = count * actions
        expect = np.concatenate(([0], np.cumsum(sizes)[:-1])) if len(sizes) else sizes
        if not np.array_equal(start, expect):
            b = int(np.flatnonzero(start != expect)[0])
            raise SolverkitError(f"{path}: block_start{p}[{b}] = {start[b]}; expected {expect[b]} "
                                 "(blocks are laid out one after another)")
        layouts.append(Layout(start, count, actions))
        pol = arrays[f"policy{p}"]
        if pol.dtype.kind != "f":
            raise SolverkitError(f"{path}: array policy{p} has dtype {pol.dtype}; expected float64 probabilities")
        if pol.ndim != 1 or pol.shape[0] != layouts[p].size:
            raise SolverkitError(
                f"{path}: policy{p} has shape {pol.shape}; its layout needs {layouts[p].size} values"
            )
        strategy.append(pol.astype(np.float64))
    if game is not None:
        check_layout(path, layouts, game)
    for p in range(players):
        _check_probabilities(path, p, strategy[p], layouts[p], game)
    if not identified:  # an older file, read whole: said now, so that an error above stays one line
        from .identity import warn_unchecked

        warn_unchecked(path, game)
    return strategy, layouts, meta


def _check_probabilities(path, player, policy, layout, game) -> None:
    """Raise unless every information set's probabilities are finite, in [0, 1] and sum to 1."""
    first = 0  # index of the block's first information set
    for start, count, actions in zip(layout.block_start.tolist(), layout.block_count.tolist(),
                                     layout.block_actions.tolist()):
        probs = policy[start:start + count * actions].reshape(count, actions)
        bad_value = ~np.isfinite(probs) | (probs < -PROB_TOLERANCE) | (probs > 1 + PROB_TOLERANCE)
        with np.errstate(invalid="ignore", over="ignore"):
            bad_sum = ~(np.abs(probs.sum(axis=1) - 1.0) <= PROB_TOLERANCE)
        bad_rows = bad_value.any(axis=1) | bad_sum
        if bad_rows.any():
            row = int(np.flatnonzero(bad_rows)[0])
            index = first + row
            where = f"{path}: policy{player}, information set {index}{_key(game, player, index)}"
            if bad_value[row].any():
                a = int(np.flatnonzero(bad_value[row])[0])
                raise SolverkitError(f"{where}: action {a} has probability {float(probs[row, a])!r}; expected a "
                                     f"finite number in [0, 1] (a damaged file: solve again)")
            raise SolverkitError(f"{where}: probabilities sum to {float(probs[row].sum())!r}; expected 1 "
                                 f"(within {PROB_TOLERANCE:g}; a damaged file: solve again)")
        first += count


def _key(game, player, index) -> str:
    """" (key 'K')" for an information set of `game` when its keys are cheap to list, else ""."""
    if game is None:
        return ""
    try:
        if game.layout(player).num_infosets > 1_000_000:
            return ""
        return f" (key {game.infoset_keys(player)[index]!r:.60})"
    except Exception:  # a game without keys: the index alone
        return ""


def check_layout(path, layouts, game) -> None:
    """Raise unless the file's layouts are the game's (same game, same parameters)."""
    for p in range(len(layouts)):
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
