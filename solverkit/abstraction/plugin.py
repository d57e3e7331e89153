"""The ``abstraction`` plugin kind: a card abstraction built from the config's [abstraction]
table, whose :meth:`Abstraction.table` gives the BucketTable of a game's cards (loaded from
``table = "path.npz"`` when that file exists and matches, else built and saved there)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import ClassVar

from ..errors import ConfigError
from ..core.params import Param
from .spec import CardSpec

#: parameters every abstraction takes
COMMON = {
    "buckets": Param("int_list", [], "buckets per round (0: lossless on that round); [] keeps every round lossless"),
    "table": Param("path", None, "table file (.npz): loaded when present (its parameters checked), else built "
                   "and written there"),
    "seed": Param("int", 0, "seed of sampling and k-means", min=0),
}
KMEANS = {
    "bins": Param("int", 50, "bins of the equity histograms (earth mover's distance between them)", min=2, max=1000),
    "restarts": Param("int", 1, "k-means runs from different seeds; the lowest inertia is kept", min=1, max=100),
    "iterations": Param("int", 50, "Lloyd iterations per k-means run at most", min=1, max=10000),
    "sample": Param("int", 100000, "canonical hands k-means trains on at most per round (then every hand is "
                    "assigned to its nearest centre)", min=1),
}


class Abstraction:
    """A card abstraction method; ``config`` holds its resolved [abstraction] parameters."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    params: ClassVar[dict[str, Param]] = COMMON
    #: this method's rounds with buckets > 0 may not be lossy (isomorphism)
    lossy: ClassVar[bool] = True

    def __init__(self, **params):
        self.config = params
        self.spec: CardSpec | None = None

    def table_params(self, spec: CardSpec) -> dict:
        """What the table is built from (the file path is not part of it): buckets in full."""
        params = {k: v for k, v in self.config.items() if k != "table" and v is not None}
        params["buckets"] = list(params.get("buckets") or [0] * spec.rounds)
        return params

    def check(self, spec: CardSpec) -> None:
        """ConfigError naming the value when the parameters do not fit the game's cards."""
        from .build import check_buckets

        buckets = self.config.get("buckets") or [0] * spec.rounds
        check_buckets(buckets, spec)
        if not self.lossy and any(buckets):
            raise ConfigError(f"[abstraction] buckets = {list(buckets)} is invalid for name = {self.name!r}, which "
                              "is lossless on every round: give [] or zeros, or name = \"ehs\", \"emd\" or \"ochs\"")
        self.spec = spec

    def table(self, spec: CardSpec, progress=None):
        """The BucketTable of `spec`: read from ``table`` when that file exists (refused when it
        was built otherwise), else built (and written to ``table`` when given). `progress(text)`
        gets a line per build step; by default builds of games with more than 100,000 canonical
        hands in a round report on stderr (hold'em takes minutes)."""
        from .table import BucketTable

        self.check(spec)
        params = self.table_params(spec)
        path = self.config.get("table")
        if path and Path(path).exists():
            return BucketTable.load(path, spec, self.name, params)
        cached = None if path else _cached_path(self.name, params, spec)
        if cached is not None and cached.exists():  # built before with these parameters (another command, a resume)
            try:
                return BucketTable.load(cached, spec, self.name, params)
            except (ConfigError, OSError, ValueError, KeyError):
                pass  # damaged, or of another version: built again below
        if progress is None and any(b > 0 for b in params["buckets"]):
            from .indexer import HandIndexer

            ix = HandIndexer(spec)
            if max(ix.size(r) for r in range(spec.rounds)) > 100_000:
                progress = print_progress
                progress(f"building the {self.name} card abstraction table (buckets {params['buckets']})"
                         + (f" for {path}" if path else ""))
        table = self.build(spec, progress)
        if path:
            table.save(path)
            if progress is not None:
                progress(f"wrote {path}")
        elif cached is not None:
            try:
                cached.parent.mkdir(parents=True, exist_ok=True)
                table.save(cached)
            except OSError:  # an unwritable cache: the table is built again next time, nothing else
                pass
        return table


    def build(self, spec: CardSpec, progress=None):
        """Compute the BucketTable of `spec` (checked); the built-in methods share one builder,
        a plugin overrides this."""
        from .build import build_table

        return build_table(spec, self.name, self.table_params(spec), progress)


class Isomorphism(Abstraction):
    name = "isomorphism"
    description = "lossless suit isomorphism: every canonical hand its own bucket"
    lossy = False


class Ehs(Abstraction):
    name = "ehs"
    description = "expected hand strength against a uniform hand, equal-count percentile buckets per round"


class Emd(Abstraction):
    name = "emd"
    description = ("histograms of final equity clustered by k-means under earth mover's distance (final round: "
                   "EHS percentiles)")
    params = {**COMMON, **KMEANS}


class Ochs(Abstraction):
    name = "ochs"
    description = ("final round: equity against opponent clusters, k-means (L2); earlier rounds as emd")
    params = {**COMMON, **KMEANS, "clusters": Param("int", 8, "opponent clusters of first-round hands (OCHS)",
                                                     min=1, max=256)}


METHODS = (Isomorphism, Ehs, Emd, Ochs)


def print_progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _cached_path(name: str, params: dict, spec: CardSpec):
    """Where a table built without a ``table`` path is cached (solverkit.core.cache "tables"),
    keyed by everything its file records; None when caching is off."""
    import hashlib
    import json

    from .. import __version__
    from ..core.cache import cache_folder
    from .table import FORMAT_VERSION

    folder = cache_folder("tables")
    if folder is None:
        return None
    key = json.dumps({"format": FORMAT_VERSION, "solverkit": __version__, "name": name, "params": params,
                      "spec": spec.key()}, sort_keys=True, default=str)
    return folder / (hashlib.sha256(key.encode()).hexdigest()[:32] + ".npz")
