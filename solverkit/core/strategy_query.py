"""Read one information set's policy from a solve's output directory without loading the
strategy: from the part that holds it (a distributed strategy, ``strategy.skm``) or from its
slice of ``strategy.npz`` (read in place: the archive's members are stored uncompressed)."""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import SolverkitError
from .checkpoint import PARTS_DIR, part_path
from .identity import check_identity, warn_unchecked
from .parts import PartError, open_part, read_arrays
from .strategy_file import FORMAT, STRATEGY_MANIFEST, VERSION


@dataclass(frozen=True)
class InfosetPolicy:
    """One information set's action probabilities and where they were read from."""

    key: str
    player: int
    probabilities: dict[str, float]
    kind: str  # "average" or "current"
    iteration: int
    source: Path
    #: the key the solver stored the set under (poker: canonical suits), `key` when the same
    stored_key: str = ""


def read_infoset(run_dir, key: str, player: int | None = None, game=None) -> InfosetPolicy:
    """The policy at information set `key` (as the game's ``infoset_keys`` names it) of the
    solve in `run_dir`: only the part (or the slice of strategy.npz) holding it is read.
    `game`: the run's game, when already built (else from RUN_DIR/config.toml)."""
    run_dir = Path(run_dir)
    config = run_dir / "config.toml"
    if game is None:
        from .config import load_config

        if not config.is_file():
            from .run_dir import not_a_run

            raise not_a_run(run_dir, config)
        game = load_config(config).game
    place = game.infoset_place(key, player)
    manifest = run_dir / STRATEGY_MANIFEST
    if manifest.is_file():
        values, kind, iteration, source, identified = _from_parts(run_dir, manifest, place, game, config)
    else:
        values, kind, iteration, source, identified = _from_npz(run_dir / "strategy.npz", place, game, config)
    _check_values(source, place, values)
    if not identified:  # an older file: said once it is read, so that an error stays one line
        warn_unchecked(manifest if manifest.is_file() else run_dir / "strategy.npz", game)
    probs = {label: float(x) for label, x in zip(place.labels, values)}
    return InfosetPolicy(key, place.player, probs, kind, iteration, source, place.stored_key)


def _check_values(source, place, values) -> None:
    """Raise unless the values read are probabilities (finite, in [0, 1], summing to 1): a
    slice read in place is not checked by load_strategy, and a damaged file must not print NaN."""
    from .strategy_file import PROB_TOLERANCE

    ok = values.size == len(place.labels) and bool(np.all(np.isfinite(values)))
    ok = ok and bool(np.all(values >= -PROB_TOLERANCE)) and abs(float(values.sum()) - 1.0) <= PROB_TOLERANCE
    if not ok:
        raise SolverkitError(f"{source}: information set {place.stored_key!r} has probabilities "
                             f"{[float(x) for x in values]}; expected {len(place.labels)} finite numbers >= 0 "
                             "summing to 1 (a damaged file: solve again)")


def _from_parts(run_dir: Path, manifest: Path, place, game, config: Path):
    """The information set's values from the part of a distributed strategy holding its segment
    (the manifest must have been written for `game`, the game of `config`)."""
    top = open_part(manifest, kind="strategy", owner="the trunk")
    identified = check_identity(manifest, top, game, str(config), warn=False)
    name = f"policy{place.player}"
    if place.segment in top["_offsets"]:
        footer = top
    else:
        record = next((r for r in top.get("parts") or () if place.segment in r["segments"]), None)
        if record is None:
            raise PartError(f"{manifest}: no part holds segment {place.segment!r} (the manifest is damaged)")
        path = part_path(record, run_dir / PARTS_DIR)
        try:
            footer = open_part(path, record, kind="strategy", run=top["run"], verify=False,
                               owner=f"worker {record['worker']} ({record['owner']}, in its {record['dir']})")
        except PartError as exc:
            if path.is_file():
                raise
            raise PartError(f"{exc}: a worker's part on its own disk can be read on that machine only; keep "
                            "parts on a directory shared with this machine (solverkit worker --checkpoint-dir)") from None
    raw = read_arrays(footer, place.segment, [name])[name]
    arr = np.frombuffer(raw, dtype="<f8")
    end = place.segment_offset + len(place.labels)
    if end > arr.size:
        raise PartError(f"{footer['_path']}: segment {place.segment!r} {name} has {arr.size} values, information set "
                        f"{place.key!r} needs values up to {end} (a part of another game?)")
    return (arr[place.segment_offset:end], top.get("strategy", "average"), int(top.get("iteration", 0)),
            footer["_path"], identified)


def _from_npz(path: Path, place, game, config: Path):
    """The information set's values from its slice of strategy.npz, read in place (the file
    must have been written for `game`, the game of `config`)."""
    if not path.is_file():
        raise SolverkitError(f"no strategy in {path.parent}: neither {STRATEGY_MANIFEST} nor strategy.npz (did the "
                             "solve finish?)")
    name = f"policy{place.player}.npy"
    try:
        with zipfile.ZipFile(path) as zf:
            meta = json.loads(np.lib.format.read_array(zf.open("meta.npy"), allow_pickle=False).item())
            if not isinstance(meta, dict):
                raise SolverkitError(f"cannot read strategy file {path}: meta is {type(meta).__name__}, not an object")
            if meta.get("format") != FORMAT or meta.get("version") != VERSION:
                raise SolverkitError(f"{path}: format {meta.get('format')!r} version {meta.get('version')!r}; "
                                     f"expected {FORMAT!r} version {VERSION}")
            identified = check_identity(path, meta, game, str(config), warn=False)
            with zf.open(name) as fh:
                version = np.lib.format.read_magic(fh)
                read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                               else np.lib.format.read_array_header_2_0)
                shape, fortran, dtype = read_header(fh)
                size = game.layout(place.player).size
                if dtype != np.dtype("<f8") or len(shape) != 1 or shape[0] != size:
                    raise SolverkitError(f"{path}: {name} is {dtype} of shape {shape}; game {game.name!r} of {config} "
                                         f"lays out {size} float64 values (a strategy of another game?)")
                fh.seek(fh.tell() + 8 * place.offset)
                raw = fh.read(8 * len(place.labels))
    except SolverkitError:
        raise
    except (KeyError, OSError, TypeError, ValueError, RecursionError, zipfile.BadZipFile) as exc:
        raise SolverkitError(f"cannot read strategy file {path}: {' '.join(str(exc).split())[:200]}") from None
    return np.frombuffer(raw, dtype="<f8"), meta.get("kind", "average"), int(meta.get("iteration", 0)), path, identified
