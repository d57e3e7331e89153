"""A disk cache of enumerated game trees: a game that names itself exactly (an OpenSpiel game
string and the OpenSpiel version; the bundled limit trees' rules and a digest of their code) is
walked in Python once per machine, then read back as flat arrays in a fraction of the time and
memory (3-player Leduc: 1.8M nodes).

The cache lives in ``$SOLVERKIT_CACHE_DIR/trees`` (default ``~/.cache/solverkit/trees``); a file
that cannot be read, or was written for another key or format, is ignored and written again; a
cache that cannot be written is skipped (the tree is still enumerated). ``SOLVERKIT_CACHE_DIR=off``
turns it off.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np

from ..core.cache import cache_folder
from ..core.layout import Layout
from .build import FlatTree, enumerate_tree, narrow

#: bumped whenever FlatTree's fields or their meaning change (older files are then ignored)
FORMAT = 1


def cache_dir() -> Path | None:
    """The tree cache's folder (None: turned off)."""
    return cache_folder("trees")


def cached_tree(game, max_nodes: int) -> FlatTree:
    """`game`'s FlatTree: from the cache when the game gives a key (``tree_cache_key``) and a file
    for it exists, else enumerated (and then saved when it has a key)."""
    key = game.tree_cache_key()
    folder = cache_dir() if key else None
    if folder is None:
        return enumerate_tree(game, max_nodes)
    path = folder / (hashlib.sha256(f"{FORMAT}|{key}".encode()).hexdigest()[:32] + ".npz")
    tree = _load(path, key)
    if tree is not None and tree.num_nodes <= max_nodes:
        return tree
    tree = enumerate_tree(game, max_nodes)  # refuses a tree over max_nodes as it always did
    _save(path, key, tree)
    return tree


def _load(path: Path, key: str) -> FlatTree | None:
    try:
        with np.load(path, allow_pickle=False) as f:
            meta = json.loads(str(f["meta"]))
            if meta.get("format") != FORMAT or meta.get("key") != key:
                return None
            P = int(meta["players"])
            layouts = tuple(Layout(f[f"block_start{p}"], f[f"block_count{p}"], f[f"block_actions{p}"]) for p in range(P))
            return narrow(FlatTree(  # a file of int64 index arrays (written before they were int32) too
                node=f["node"], prob=f["prob"], util=f["util"], infoset=f["infoset"],
                layouts=layouts, keys=tuple(meta["keys"]), actions=tuple(meta["actions"]),
                offsets=tuple(f[f"offsets{p}"] for p in range(P)),
                br_order=tuple((f[f"br_order{p}"], f[f"br_bounds{p}"]) for p in range(P)),
                utils=f["utils"] if meta["utils"] else None,
            ))
    except (OSError, ValueError, KeyError, TypeError, json.JSONDecodeError):
        return None


def _save(path: Path, key: str, tree: FlatTree) -> None:
    P = tree.num_players
    try:
        meta = json.dumps({"format": FORMAT, "key": key, "players": P, "utils": tree.utils is not None,
                           "keys": [list(k) for k in tree.keys], "actions": [list(map(list, a)) for a in tree.actions]})
    except TypeError:  # actions that are not JSON numbers or strings: not cached
        return
    arrays = {"meta": np.array(meta), "node": tree.node, "prob": tree.prob, "util": tree.util,
              "infoset": tree.infoset}
    if tree.utils is not None:
        arrays["utils"] = tree.utils
    for p in range(P):
        lay = tree.layouts[p]
        arrays.update({f"block_start{p}": lay.block_start, f"block_count{p}": lay.block_count,
                       f"block_actions{p}": lay.block_actions, f"offsets{p}": np.asarray(tree.offsets[p]),
                       f"br_order{p}": tree.br_order[p][0], f"br_bounds{p}": tree.br_order[p][1]})
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as out:
            np.savez(out, **arrays)
        os.replace(tmp, path)
    except OSError:  # a read-only or full disk: the cache is skipped, nothing else
        tmp.unlink(missing_ok=True)
