"""BucketTable: the bucket of every canonical hand of every round, with the file it lives in.

A table file is an uncompressed .npz: ``assign_<r>`` (int32, one entry per canonical hand of
round r, as HandIndexer numbers them) and ``meta``, a JSON string holding the format version,
the solverkit version, the method's name, its parameters, the card spec and the bucket counts.
Loading checks all of them against what is asked and refuses a mismatch in one line.
"""

from __future__ import annotations

import json
import os
import zipfile
from functools import cached_property
from pathlib import Path

import numpy as np

from .. import __version__
from ..errors import ConfigError, OutputError
from .indexer import HandIndexer
from .spec import CardSpec

#: bumped whenever the meaning of a table file's arrays changes
FORMAT_VERSION = 1


class BucketTable:
    """Buckets per round of one card abstraction of one CardSpec."""

    def __init__(self, spec: CardSpec, name: str, params: dict, assign, indexer: HandIndexer | None = None):
        self.spec = spec
        self.name = name
        self.params = dict(params)
        self.assign = tuple(np.ascontiguousarray(a, dtype=np.int32) for a in assign)
        if indexer is not None:
            self.__dict__["indexer"] = indexer
        if len(self.assign) != spec.rounds:
            raise ConfigError(f"bucket table has {len(self.assign)} rounds; the game has {spec.rounds}")
        for r, a in enumerate(self.assign):
            if a.shape != (self.indexer.size(r),):
                raise ConfigError(f"bucket table round {r} has {a.shape[0]} entries; the round has "
                                  f"{self.indexer.size(r)} canonical hands")
        self.buckets = tuple(int(a.max()) + 1 if a.size else 0 for a in self.assign)

    @cached_property
    def indexer(self) -> HandIndexer:
        return HandIndexer(self.spec)

    def lossless(self, r: int) -> bool:
        """Whether round `r` keeps every canonical hand apart (its buckets are the classes)."""
        a = self.assign[r]
        return self.buckets[r] == a.shape[0] and bool(np.array_equal(a, np.arange(a.shape[0], dtype=np.int32)))

    def bucket_of(self, r: int, cards) -> np.ndarray:
        """Buckets of rows of `cards` (as HandIndexer.index takes them), int32."""
        return self.assign[r][self.indexer.index(r, cards)]

    def describe(self) -> str:
        return (f"{self.name} abstraction of {self.spec.num_ranks}x{self.spec.num_suits} cards, hole "
                f"{self.spec.hole_cards}, board {list(self.spec.board_cards)}: buckets {list(self.buckets)} of "
                f"{[self.indexer.size(r) for r in range(self.spec.rounds)]} canonical hands")

    # --- files -------------------------------------------------------------------------------

    def meta(self) -> dict:
        return {"format": FORMAT_VERSION, "solverkit": __version__, "name": self.name, "params": self.params,
                "spec": self.spec.key(), "buckets": list(self.buckets)}

    def save(self, path) -> Path:
        """Write the table to `path` (.npz), atomically (a temporary file renamed into place)."""
        path = Path(path)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        arrays = {f"assign_{r}": a for r, a in enumerate(self.assign)}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(tmp, "wb") as fh:
                np.savez(fh, meta=np.array(json.dumps(self.meta())), **arrays)
            os.replace(tmp, path)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise OutputError(f"cannot write bucket table {path}: {exc.strerror or exc}") from None
        return path

    @staticmethod
    def read_meta(path) -> dict:
        """The meta of a table file, or a ConfigError naming the file."""
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as npz:
                return json.loads(str(npz["meta"]))
        except FileNotFoundError:
            raise ConfigError(f"bucket table {path} not found") from None
        except (OSError, ValueError, KeyError, zipfile.BadZipFile, json.JSONDecodeError) as exc:
            raise ConfigError(f"bucket table {path} is not a solverkit table file: {exc}") from None

    @classmethod
    def load(cls, path, spec: CardSpec | None = None, name: str | None = None, params: dict | None = None) -> "BucketTable":
        """Read a table; with `spec`, `name` or `params`, refuse a file built for others. A file
        of another format or solverkit version is refused too (rebuild it)."""
        path = Path(path)
        meta = cls.read_meta(path)
        if meta.get("format") != FORMAT_VERSION or meta.get("solverkit") != __version__:
            raise ConfigError(f"bucket table {path} has format {meta.get('format')} of solverkit "
                              f"{meta.get('solverkit')}; this is format {FORMAT_VERSION} of solverkit {__version__}: "
                              "rebuild it (delete the file or run solverkit abstraction build)")
        stored = {"name": meta.get("name"), **meta.get("params", {})}
        if spec is not None and meta.get("spec") != spec.key():
            raise ConfigError(f"bucket table {path} was built for cards {meta.get('spec')}; the game has "
                              f"{spec.key()}: delete it or give another table path")
        asked = {"name": name if name is not None else stored["name"], **(params if params is not None else {})}
        if params is not None and stored != asked:
            raise ConfigError(f"bucket table {path} was built with {_short(stored)}; [abstraction] asks for "
                              f"{_short(asked)}: delete it or give another table path")
        m = meta["spec"]
        if spec is None:
            if m[4] != "acpc":
                raise ConfigError(f"bucket table {path} ranks hands with {m[5]}: load it with the game's CardSpec")
            spec = CardSpec(m[0], m[1], m[2], tuple(m[3]))
        try:
            with np.load(path, allow_pickle=False) as npz:
                assign = [npz[f"assign_{r}"] for r in range(spec.rounds)]
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
            raise ConfigError(f"bucket table {path} is damaged: {exc}") from None
        return cls(spec, meta["name"], meta.get("params", {}), assign)


def _short(d: dict) -> str:
    return ", ".join(f"{k} = {json.dumps(v)}" for k, v in sorted(d.items()))
