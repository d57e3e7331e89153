"""Checkpoint files: the value store and the loop's state, written atomically, read with checks.

Layout of ``checkpoint.skc`` (streamed, so a checkpoint never needs the whole store decoded):

    MAGIC | payload bytes of every segment array, one after another |
    footer (msgpack: format, version, run, assembly, game, iteration, seconds, metrics, saturated,
            segment index) |
    crc32 of the footer (u32) | footer length (u64) | END

Every payload carries its own checksum (:mod:`solverkit.core.codec`), the footer has one too.
Every footer field is checked for type and range on reading (one line naming the file, the
field and the value). The footer records the run id and the resolved assembly that wrote it;
:func:`check_resume` refuses to continue it under a config that differs in anything but the
settings listed in :data:`MAY_CHANGE`.
The file is written as ``checkpoint.skc.tmp``, fsynced and renamed over the previous
checkpoint, so a crash at any moment leaves either the old or the new checkpoint whole.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import msgpack

from ..errors import SolverkitError
from .atomic import atomic_file, reason
from .parts import NAME, open_part, read_arrays
# END and _TAIL: the file's layout, re-exported for tools and tests that read it
from .trailer import END, TAIL as _TAIL, TRAILER_BYTES, read_trailer, write_trailer  # noqa: F401

FORMAT = "solverkit.checkpoint"
VERSION = 2
MAGIC = b"SKCKPT1\n"
FILENAME = "checkpoint.skc"


class CheckpointError(SolverkitError):
    """A checkpoint is missing, damaged, or belongs to another game or format version."""


def write_checkpoint(path, store, state: dict, parts=None) -> int:
    """Write `store`'s segments and `state` (iteration, seconds, metrics, game...) to `path`
    atomically; return the file's size. On failure the previous checkpoint is untouched.

    `parts` (a distributed checkpoint): the records of the part files their owners have
    written and fsynced (:mod:`.parts`); the file then holds the other segments and names
    every part, and it is the rename of this file that makes the new checkpoint count."""
    path = Path(path)
    index = []
    remote = {s for part in parts or () for s in part["segments"]}
    try:
        with atomic_file(path) as fh:
            fh.write(MAGIC)
            for key in [k for k in store.specs if k not in remote]:
                blobs = store.payloads(key)
                index.append([key, [[name, len(b)] for name, b in blobs.items()]])
                for b in blobs.values():
                    fh.write(b)
            extra = {"parts": list(parts)} if parts is not None else {}
            write_trailer(fh, {"format": FORMAT, "version": VERSION, "run": store.run_id, **state,
                               "segments": index, **extra})
    except OSError as exc:
        raise CheckpointError(f"cannot write checkpoint {path}: {reason(exc, path)}; the previous checkpoint is intact") from None
    return path.stat().st_size


def read_footer(path) -> dict:
    """The footer of checkpoint `path`, after checking magic, length and checksum."""
    path = Path(path)
    if path.exists() and not path.is_file():
        raise CheckpointError(f"{path} is not a regular file (a directory?): no checkpoint to read there")
    if not path.is_file():
        raise CheckpointError(f"no checkpoint at {path} (was the run started with --checkpoint-every?)")
    size = path.stat().st_size
    tail = TRAILER_BYTES
    footer, flen = read_trailer(path, size, MAGIC, CheckpointError,
                                f"{path} is not a solverkit checkpoint (truncated or foreign file)", f"{path}")
    if footer.get("format") != FORMAT:
        raise CheckpointError(f"{path}: format {footer.get('format')!r}, expected {FORMAT!r}")
    if footer.get("version") != VERSION:
        v = footer.get("version")
        older = (" (written by an older solverkit, before checkpoints recorded their run and settings): start a new "
                 "run, or finish that run with the solverkit that wrote it") if isinstance(v, int) and v < VERSION else ""
        raise CheckpointError(f"{path}: checkpoint format version {v!r}; this solverkit reads version {VERSION}{older}")
    payload_bytes = size - tail - flen - len(MAGIC)
    check_footer(footer, path, payload_bytes)
    footer["_payload_bytes"] = payload_bytes
    return footer


#: every field of a checkpoint footer, in the order docs/formats.md lists them
FOOTER_FIELDS = ("format", "version", "run", "assembly", "game", "iteration", "seconds", "metrics", "saturated",
                 "segments")
#: footer fields a checkpoint may lack (written by later versions): nodes_touched, the passes'
#: visited nodes so far (null for a game that does not count them); parts, the part files of a
#: distributed checkpoint (their segments are not in this file); game_id and game_definition, the
#: game's identity (:mod:`.identity`; checkpoints of older versions lack it); game_state, a game's
#: own run state (:meth:`.game.Game.checkpoint_state`: a map of names to numbers or lists of them)
OPTIONAL_FIELDS = ("nodes_touched", "parts", "game_id", "game_definition", "game_state")
#: every field of a part's record in the ``parts`` footer field
PART_FIELDS = ("owner", "worker", "dir", "file", "bytes", "crc32", "segments")
#: the smallest payload a segment array can have (a value frame's fixed header)
_MIN_PAYLOAD = 19
_RUN_CHARS = frozenset("0123456789abcdef")


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_footer(footer: dict, path, payload_bytes: int) -> None:
    """Type and range of every footer field (CheckpointError: one line naming the file, the
    field and its value, and what was expected). Cross-checks: the metrics rows lie within the
    checkpoint's iteration and seconds, the iteration within the recorded run's iteration cap,
    and the segment index covers exactly the payload bytes of the file."""

    def bad(field, value, expected):
        raise CheckpointError(f"{path}: footer field {field} = {value!r:.100} is invalid: expected {expected} "
                              "(the file is damaged or was not written by solverkit; resume from another "
                              "checkpoint or start a new run)")

    known = FOOTER_FIELDS + OPTIONAL_FIELDS
    for k in footer:
        if k not in known:
            bad(f"{k!r}", footer[k], f"only the fields {', '.join(sorted(known))}")
    for k in FOOTER_FIELDS:
        if k not in footer:
            raise CheckpointError(f"{path}: footer field {k} is missing (the file is damaged or was not written by "
                                  "solverkit; resume from another checkpoint or start a new run)")
    run = footer["run"]
    if not isinstance(run, str) or len(run) != 32 or not set(run) <= _RUN_CHARS:
        bad("run", run, "a run id of 32 hex digits")
    asm = footer["assembly"]
    if not isinstance(asm, dict) or not all(isinstance(k, str) and isinstance(v, dict) for k, v in asm.items()):
        bad("assembly", asm, "a map of config tables")
    solver = asm.get("solver")
    if not isinstance(solver, dict) or not _is_int(solver.get("iterations")) or solver["iterations"] < 1:
        bad("assembly.solver.iterations", (solver or {}).get("iterations") if isinstance(solver, dict) else solver,
            "an integer >= 1")
    if not isinstance(footer["game"], dict) or footer["game"] != asm.get("game"):
        bad("game", footer["game"], "the [game] table of the recorded assembly")
    it = footer["iteration"]
    if not _is_int(it) or it < 0:
        bad("iteration", it, "an integer >= 0")
    if it > solver["iterations"]:
        bad("iteration", it, f"at most the {solver['iterations']} iterations the run that wrote it was set to run")
    nodes = footer.get("nodes_touched")
    if nodes is not None and (not _is_int(nodes) or nodes < 0):
        bad("nodes_touched", nodes, "an integer >= 0 or null")
    secs = footer["seconds"]
    if not _is_number(secs) or not math.isfinite(secs) or secs < 0:
        bad("seconds", secs, "a finite number >= 0")
    sat = footer["saturated"]
    if not _is_int(sat) or sat < 0:
        bad("saturated", sat, "an integer >= 0")
    gs = footer.get("game_state", {})
    if not isinstance(gs, dict) or not all(
            isinstance(k, str) and (_is_number(v) or (isinstance(v, list) and all(_is_number(x) for x in v)))
            for k, v in gs.items()):
        bad("game_state", gs, "a map of names to numbers or lists of numbers")
    metrics = footer["metrics"]
    if not isinstance(metrics, list):
        bad("metrics", metrics, "a list of metrics rows")
    last = 0
    for i, row in enumerate(metrics):
        where = f"metrics[{i}]"
        if not isinstance(row, dict) or not all(isinstance(k, str) for k in row):
            bad(where, row, "a map of column -> value")
        for col in ("iteration", "seconds", "exploitability", "br_0", "br_1"):
            if col not in row:
                bad(where, row, f"a row with column {col!r}")
        for col, v in row.items():
            if col == "nodes_touched" and v is None:  # a game that does not count its nodes
                continue
            if not _is_number(v) or (col in ("iteration", "seconds") and not math.isfinite(v)):
                bad(f"{where}.{col}", v, "a number")
        ri = row["iteration"]
        if not _is_int(ri) or ri <= last or ri > it:
            bad(f"{where}.iteration", ri, f"an integer after the previous row's {last} and at most the checkpoint's "
                                          f"iteration {it}")
        last = ri
        if row["seconds"] < 0 or row["seconds"] > secs * (1 + 1e-9) + 1e-9:
            bad(f"{where}.seconds", row["seconds"], f"between 0 and the checkpoint's seconds {secs!r}")
    segs = footer["segments"]
    if not isinstance(segs, list):
        bad("segments", segs, "a list of [segment key, [[array, bytes], ...]]")
    total, seen = 0, set()
    for i, entry in enumerate(segs):
        if (not isinstance(entry, list) or len(entry) != 2 or not isinstance(entry[0], str)
                or not isinstance(entry[1], list)):
            bad(f"segments[{i}]", entry, "[segment key, [[array, bytes], ...]]")
        key, arrays = entry
        if key in seen:
            bad(f"segments[{i}]", key, "each segment once")
        seen.add(key)
        names = set()
        for j, arr in enumerate(arrays):
            if (not isinstance(arr, list) or len(arr) != 2 or not isinstance(arr[0], str) or not _is_int(arr[1])
                    or arr[1] < _MIN_PAYLOAD or arr[0] in names):
                bad(f"segments[{i}][{j}]", arr, f"[array name (once per segment), payload bytes >= {_MIN_PAYLOAD}]")
            names.add(arr[0])
            total += arr[1]
    if total != payload_bytes:
        bad("segments", f"{total} payload bytes", f"the {payload_bytes} payload bytes the file holds")
    parts = footer.get("parts")
    if parts is None:
        return
    if not isinstance(parts, list):
        bad("parts", parts, "a list of part records")
    files = set()
    for i, part in enumerate(parts):
        where = f"parts[{i}]"
        if not isinstance(part, dict) or set(part) != set(PART_FIELDS):
            bad(where, part, f"a map with exactly {', '.join(PART_FIELDS)}")
        for k in ("owner", "worker", "dir"):
            if not isinstance(part[k], str):
                bad(f"{where}.{k}", part[k], "a string")
        if not isinstance(part["file"], str) or not NAME.fullmatch(part["file"]) or part["file"] in files:
            bad(f"{where}.file", part["file"], "a plain file name, each part once")
        files.add(part["file"])
        if not _is_int(part["bytes"]) or part["bytes"] <= 0:
            bad(f"{where}.bytes", part["bytes"], "an integer > 0")
        if not _is_int(part["crc32"]) or not 0 <= part["crc32"] < 1 << 32:
            bad(f"{where}.crc32", part["crc32"], "a crc32 (an integer in [0, 2^32))")
        if not isinstance(part["segments"], list) or not all(isinstance(s, str) for s in part["segments"]):
            bad(f"{where}.segments", part["segments"], "a list of segment keys")
        for s in part["segments"]:
            if s in seen:
                bad(f"{where}.segments", s, "each segment in one place: this file or one part")
            seen.add(s)


#: settings that may differ between a checkpoint's run and its resumption: how long and how
#: often (the solver's stopping and evaluation schedule), where the work runs (transport) and
#: where the store lives (backend and I/O tuning); "table.*" means every key of that table
MAY_CHANGE = frozenset({
    "solver.iterations", "solver.target", "solver.target_*", "solver.eval_every", "solver.checkpoint_every",
    "solver.time_limit",
    "transport.*", "store.backend", "store.hold", "store.path", "store.prefetch", "store.write_behind",
    "compressor.threads",
})


def _may_change(field: str) -> bool:
    table = field.split(".", 1)[0]
    if f"{table}.*" in MAY_CHANGE or field in MAY_CHANGE:
        return True
    return any(p.endswith("*") and field.startswith(p[:-1]) for p in MAY_CHANGE)


#: settings added after checkpoints were first written, with the value an older checkpoint's run had
ADDED_LATER = {"store.precision": "float64", "solver.average_pass": "opponent", "solver.jitter": 0.0}


def _flat(tables: dict) -> dict:
    out = {}
    for table, values in tables.items():
        if isinstance(values, dict):
            for k, v in values.items():
                out[f"{table}.{k}"] = v
        else:
            out[table] = values
    return out


def _toml_value(v) -> str:
    if isinstance(v, str):
        return repr(v).replace("'", '"') if '"' not in v else repr(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "(not set)"
    return repr(v)


def _shown(name: str) -> str:
    """A table or key name as a message shows it: bare when plain, quoted (escapes and all) when
    not, so that a message stays one line whatever a damaged footer holds."""
    return name if re.fullmatch(r"[A-Za-z0-9_.-]*", name) else repr(name)


def check_resume(path, footer: dict, resolved: dict, config_file=None) -> None:
    """Refuse to resume checkpoint `path` under the resolved config `resolved` if anything that
    shapes the stored values or the update sequence differs from the assembly the checkpoint
    records (anything outside :data:`MAY_CHANGE`): one line naming the setting, the recorded
    and the configured value, and how to proceed."""
    saved, now = _flat(footer["assembly"]), _flat(_as_stored(resolved))
    where = config_file or "the config"
    # table by table, each table's plugin name first (a changed rule is named as such)
    order = sorted(set(saved) | set(now), key=lambda f: (f.split(".")[0], not f.endswith(".name"), f))
    for field in order:
        if _may_change(field):
            continue
        a, b = saved.get(field, ADDED_LATER.get(field)), now.get(field)
        if a != b:
            table, _, key = (_shown(part) for part in field.partition("."))
            raise CheckpointError(
                f"cannot resume {path}: [{table}] {key} is {_toml_value(b)} in {where} but the checkpoint was "
                f"written with {_toml_value(a)}; restore {key} = {_toml_value(a)}, or start a new run "
                "(without --resume)"
            )


def _as_stored(value):
    """`value` as it reads back from a footer (tuples become lists, and so on)."""
    return msgpack.unpackb(msgpack.packb(value), strict_map_key=False)


def check_game(path, footer: dict, game_table: dict, game=None) -> bool:
    """Raise a CheckpointError unless checkpoint `path` was written for this [game] table and,
    given `game`, for this game's identity (a game file edited since has another); returns
    whether the identity was checked (an older checkpoint records none: read_checkpoint warns
    once it is loaded)."""
    if footer["game"] != _as_stored(game_table):
        raise CheckpointError(f"{path} is a checkpoint of game {footer['game']!r}, not of {game_table!r}; "
                              "restore the [game] table, or start a new run (without --resume)")
    if game is not None:
        from .identity import check_identity

        try:
            return check_identity(path, footer, game, "the run's config", warn=False)
        except CheckpointError:
            raise
        except SolverkitError as exc:
            raise CheckpointError(f"{exc} (start a new run, without --resume)") from None
    return False


def read_checkpoint(path, store, game_table: dict, columns=None, game=None) -> dict:
    """Load checkpoint `path` into `store` (after checking it is the same game and layout, and
    that its metrics rows have exactly `columns` where given) and return its state. Nothing in
    the store changes unless every segment decodes."""
    path = Path(path)
    footer = read_footer(path)
    identified = check_game(path, footer, game_table, game)
    if columns is not None:
        for i, row in enumerate(footer["metrics"]):
            if set(row) != set(columns):
                raise CheckpointError(
                    f"{path}: footer field metrics[{i}] has columns {sorted(row)}, expected {sorted(columns)} "
                    "(the file is damaged, or [solver] eval_current changed: restore it, or start a new run)")
    index = footer["segments"]
    parts = footer.get("parts") or []
    keys = [k for k, _ in index] + [s for part in parts for s in part["segments"]]
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
                # every checksum, size and frame description (this run's), before anything changes
                store._decode(key, blobs, run=footer["run"])
            except SolverkitError as exc:
                raise CheckpointError(f"{path}: {exc}") from None
            loaded.append((key, blobs))
    if parts:
        # every owner loads its own parts (a worker) or they are read here; each part checked
        # against the size and checksum this file records before anything of it is restored
        load = getattr(store, "load_parts", None)
        if load is not None:
            load(parts, footer["run"], parts_dir(path))
        else:
            restore_parts(store, parts, footer["run"], parts_dir(path))
    store.adopt_run(footer["run"])  # the run goes on: what it writes from now on carries its id
    for key, blobs in loaded:
        store.restore(key, blobs)
    if game is not None and not identified:
        from .identity import warn_unchecked

        warn_unchecked(path, game)
    return {k: v for k, v in footer.items() if k not in ("segments", "format", "version", "_payload_bytes")}


#: the directory of a distributed checkpoint's parts next to OUT/checkpoint.skc (the workers a
#: trunk spawns write there; hand-started ones where `solverkit worker --checkpoint-dir` says)
PARTS_DIR = "checkpoint.d"


def parts_dir(path) -> Path:
    """OUT/checkpoint.d for checkpoint OUT/checkpoint.skc."""
    return Path(path).parent / PARTS_DIR


def part_path(part: dict, default_dir) -> Path:
    """Where this process finds a part: in `default_dir` (OUT/checkpoint.d), else in the
    directory its owner wrote it to (the same machine, or a shared file system)."""
    first = Path(default_dir) / part["file"]
    if first.is_file() or not part["dir"]:
        return first
    return Path(part["dir"]) / part["file"]


def restore_parts(store, parts, run: str, default_dir) -> None:
    """Load the segments of part files into `store` in this process (a run resumed on one
    machine, or with [transport] checkpoint = "file"): every part is checked (size, checksum,
    every frame) before any segment changes."""
    loaded = []
    for part in parts:
        footer = open_part(part_path(part, default_dir), part, kind="checkpoint", run=run,
                           owner=f"worker {part['worker']}")
        for key in part["segments"]:
            blobs = read_arrays(footer, key)
            try:
                store._decode(key, blobs, run=run)
            except SolverkitError as exc:
                raise CheckpointError(f"{footer['_path']}: {exc}") from None
            loaded.append((key, blobs))
    for key, blobs in loaded:
        store.restore(key, blobs)


def _few(names, n=4):
    names = sorted(names)
    return ", ".join(names[:n]) + (f" ... ({len(names)} in all)" if len(names) > n else "")
