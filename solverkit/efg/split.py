"""A tree game cut into a trunk and subgames, so that a network transport's workers can own the
subgames' values (``[game] split_actions = k``, games of more than two players).

The cut is made below the k-th decision on every path: each node entered by a decision at depth
k - 1 (decisions counted from the root, chance not counted) that is not terminal roots a subtree.
Subtrees that share an information set (for poker: every deal of the same betting) are joined
into one subgame, found by a union-find over the information sets below each root, so that every
information set lies wholly in the trunk or in one subgame and regret updates stay local. A
trunk information set that also occurs below a cut (histories of different depths) is refused.

Each part keeps the original nodes' order (a parent before its children, siblings contiguous),
so a part's kernel visits an information set's histories in the order of the whole tree. The
trunk marks each cut as a ``CUT`` node whose values come from its subgame; a subgame's roots
take their reach probabilities from the trunk.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from ..core.jit import njit

from ..core.layout import Layout
from ..errors import ConfigError
from .build import CHANCE, DECISION, FIRST, KIND, NCHILD, OFF, PLAYER, TERMINAL, _layout

#: node kind of a trunk node whose values come from a subgame (its FIRST column: the cut's index)
CUT = 3


@dataclass
class Part:
    """The trunk or one subgame as flat arrays in the whole tree's format (:class:`~.build.FlatTree`
    columns), with its own value layout per player."""

    node: np.ndarray  # int64 [n, 6]; decision offsets within this part's layout of their player
    prob: np.ndarray
    utils: np.ndarray
    roots: np.ndarray  # int64: local indices of the nodes whose reach comes from outside
    layouts: tuple  # per player: Layout of the information sets in this part
    index: tuple  # per player: int64 [layout size]: each value's index in the whole game's layout
    base: np.ndarray  # int64 [players + 1]: where each player's values start, concatenated

    @property
    def num_nodes(self) -> int:
        return int(self.node.shape[0])


@dataclass
class Split:
    """The trunk, the subgames, and where each cut's values come from."""

    trunk: Part
    subgames: list
    #: per cut (the trunk's CUT nodes' FIRST column): (subgame, root position in that subgame)
    cuts: np.ndarray
    #: per subgame: the trunk-local indices of its roots' CUT nodes, in root order
    cut_nodes: list
    max_roots: int


@njit(cache=True)
def _roots_below(node, k):
    """Per node: the cut root it lies below (itself for a root), -1 in the trunk; decisions are
    counted on the way down and a non-terminal node entered by the k-th decision is a root."""
    N = node.shape[0]
    depth = np.zeros(N, dtype=np.int64)
    under = np.full(N, -1, dtype=np.int64)
    for n in range(N):
        kind = node[n, 0]
        if kind == TERMINAL:
            continue
        step = 1 if kind == DECISION else 0
        for a in range(node[n, 5]):
            c = node[n, 4] + a
            depth[c] = depth[n] + step
            if under[n] >= 0:
                under[c] = under[n]
            elif step == 1 and depth[c] == k and node[c, 0] != TERMINAL:
                under[c] = c
    return under


def _find(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


def split_tree(tree, actions: int, name: str) -> Split:
    """Cut `tree` (a :class:`~.build.FlatTree`) below `actions` decisions; ConfigError when
    nothing is cut or an information set lies on both sides of the cut."""
    node = tree.node
    under = _roots_below(node, int(actions))
    roots = np.flatnonzero(under == np.arange(node.shape[0]))
    if roots.size == 0:
        raise ConfigError(f"[game] split_actions = {actions} cuts nothing in game {name!r}: no path has "
                          f"{actions} decisions before it ends; use a smaller value (or 0: no subgames)")
    dec = np.flatnonzero(node[:, KIND] == DECISION)
    pl, iset = node[dec, PLAYER], tree.infoset[dec]
    # union-find over roots: two roots that reach one information set are one subgame
    parent = {int(r): int(r) for r in roots}
    where: dict = {}
    for n, q, i in zip(dec.tolist(), pl.tolist(), iset.tolist()):
        r = int(under[n])
        key = (q, i)
        if key not in where:
            where[key] = r
            continue
        other = where[key]
        if (other < 0) != (r < 0):
            raise ConfigError(f"[game] split_actions = {actions} cuts information set {tree.keys[q][i]!r} of player "
                              f"{q} of game {name!r}: some of its histories are above the cut, some below; choose "
                              "another split_actions")
        if r >= 0:
            a, b = _find(parent, r), _find(parent, other)
            if a != b:
                parent[max(a, b)] = min(a, b)
    comp_of = {int(r): _find(parent, int(r)) for r in roots}
    comps = sorted(set(comp_of.values()))
    sub_of_comp = {c: s for s, c in enumerate(comps)}
    root_sub = np.array([sub_of_comp[comp_of[int(r)]] for r in roots], dtype=np.int64)
    # the part of every node: -1 trunk, else its subgame
    part = np.full(node.shape[0], -1, dtype=np.int64)
    below = under >= 0
    sub_of_root = np.full(node.shape[0], -1, dtype=np.int64)
    sub_of_root[roots] = root_sub
    part[below] = sub_of_root[under[below]]
    # the trunk: nodes above the cut and the cut roots as CUT nodes
    trunk_ids = np.flatnonzero((part < 0) | (under == np.arange(node.shape[0])))
    subgames, cuts = [], []
    cut_index = {}
    for s in range(len(comps)):
        ids = np.flatnonzero(part == s)
        local_roots = np.flatnonzero(under[ids] == ids)
        subgames.append(_part(tree, ids, local_roots, {}))
        for j, r in enumerate(ids[local_roots].tolist()):
            cut_index[r] = len(cuts)
            cuts.append((s, j))
    trunk = _part(tree, trunk_ids, np.zeros(1, dtype=np.int64), cut_index)
    t_local = {int(n): i for i, n in enumerate(trunk_ids.tolist())}
    per_sub = [[] for _ in comps]
    for r, c in cut_index.items():
        s, j = cuts[c]
        per_sub[s].append((j, t_local[r]))
    cut_nodes = [np.array([x for _, x in sorted(v)], dtype=np.int64) for v in per_sub]
    return Split(trunk, subgames, np.array(cuts, dtype=np.int64).reshape(-1, 2), cut_nodes,
                 max(int(sg.roots.size) for sg in subgames))


def _part(tree, ids: np.ndarray, roots: np.ndarray, cut_index: dict) -> Part:
    """Nodes `ids` (ascending original indices) as a part; nodes in `cut_index` become CUT
    nodes (no children, FIRST = the cut's index)."""
    P = tree.num_players
    node = tree.node[ids].copy()
    local = np.full(tree.node.shape[0], -1, dtype=np.int64)
    local[ids] = np.arange(ids.size)
    for r, c in cut_index.items():
        i = local[r]
        node[i, KIND], node[i, PLAYER], node[i, FIRST], node[i, NCHILD] = CUT, -1, c, 0
    inner = (node[:, KIND] == DECISION) | (node[:, KIND] == CHANCE)
    node[inner, FIRST] = local[node[inner, FIRST]]
    layouts, index = [], []
    for q in range(P):
        mine = inner & (node[:, KIND] == DECISION) & (node[:, PLAYER] == q)
        sets = np.unique(tree.infoset[ids[mine]])
        lay, offs = _layout([tree.actions[q][i] for i in sets.tolist()]) if sets.size else (Layout.from_blocks([]),
                                                                                              np.zeros(0, np.int64))
        glob = tree.offsets[q]
        counts = np.array([len(tree.actions[q][i]) for i in sets.tolist()], dtype=np.int64)
        idx = (np.concatenate([np.arange(glob[i], glob[i] + a) for i, a in zip(sets.tolist(), counts.tolist())])
               if sets.size else np.zeros(0, dtype=np.int64)).astype(np.int64)
        at = np.full(len(tree.actions[q]), -1, dtype=np.int64)
        at[sets] = offs
        node[mine, OFF] = at[tree.infoset[ids[mine]]]
        layouts.append(lay)
        index.append(idx)
    base = np.concatenate(([0], np.cumsum([lay.size for lay in layouts]))).astype(np.int64)
    utils = tree.utils[ids] if tree.utils is not None else np.stack([tree.util[ids], -tree.util[ids]], axis=1)
    return Part(node, tree.prob[ids].copy(), np.ascontiguousarray(utils), np.asarray(roots, dtype=np.int64),
                tuple(layouts), tuple(index), base)
