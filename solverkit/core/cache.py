"""Where solverkit caches what it can compute again (enumerated game trees, card abstraction
tables): ``$SOLVERKIT_CACHE_DIR/<kind>`` (default ``~/.cache/solverkit/<kind>``); the value
``off`` turns every cache off."""

from __future__ import annotations

import os
from pathlib import Path


def cache_folder(kind: str) -> Path | None:
    """The cache folder of `kind` ("trees", "tables"; None: caching is off)."""
    root = os.environ.get("SOLVERKIT_CACHE_DIR", "")
    if root.strip().lower() == "off":
        return None
    base = Path(root).expanduser() if root else Path.home() / ".cache" / "solverkit"
    return base / kind
