"""A blueprint's strategy as a profile of the tree engine's game of the same rules (kuhn_tree /
leduc_tree with N players), so the tree engine's exact best responses give its NashConv: each
tree information set (hole card, board, betting) reads the blueprint's set (betting node, bucket)."""

from __future__ import annotations

import numpy as np

from ..poker.cards import parse_card
from .betting import TERMINAL


def tree_strategy(bp, game, pol=None) -> list[np.ndarray]:
    """Per player, the blueprint's exported strategy (`pol`: a policy in its layout, default its
    own :meth:`~.engine.Blueprint.policy`) in `game`'s layout (keys "card|board|hist")."""
    t = bp.tree
    node_of = {t.betting[n]: n for n in range(t.num_nodes) if t.kind[n] != TERMINAL}
    pol = bp.policy() if pol is None else pol
    gd = bp.gd
    out = []
    for p in range(game.num_players):
        lay = game.layout(p)
        x = np.zeros(lay.size)
        for key in game.infoset_keys(p):
            hole, board, hist = key.split("|")
            n = node_of[hist]
            r = int(t.round[n])
            cards = [parse_card(hole, gd.num_suits, gd.num_ranks)]
            cards += [parse_card(board[i:i + 2], gd.num_suits, gd.num_ranks) for i in range(0, len(board), 2)]
            b = int(bp.table.bucket_of(r, np.array([cards], dtype=np.int64))[0])
            A = int(t.nact[n])
            start = game.infoset_place(key, p).offset
            x[start:start + A] = pol[bp.off[n] + b * A:bp.off[n] + (b + 1) * A]
        out.append(x)
    return out
