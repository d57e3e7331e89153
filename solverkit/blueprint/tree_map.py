"""A blueprint's strategy as a profile of the tree engine's game of the same rules (kuhn_tree /
leduc_tree with N players, or the tree-engine game of any small ACPC file, AcpcTreeGame), so
the tree engine's exact best responses give its NashConv: each tree information set
``<hole>|<board>|<betting>`` (ACPC card names, two characters each, any number of hole and board
cards) reads the blueprint's set (betting node of that betting string, bucket of those cards)."""

from __future__ import annotations

import numpy as np

from ..errors import SolverkitError
from ..poker.cards import card_name
from .betting import TERMINAL


def tree_index(bp, game) -> list[np.ndarray]:
    """Per player, for each value of `game`'s layout, the index of the blueprint policy value it
    takes (gather the blueprint's policy with it: :func:`tree_strategy`). Computed once per game
    pair: one pass over the keys, one bucket lookup per round."""
    t, gd = bp.tree, bp.gd
    node_of = {t.betting[n]: n for n in range(t.num_nodes) if t.kind[n] != TERMINAL}
    card_of = {card_name(c, gd.num_suits, gd.num_ranks): c for c in range(gd.deck_size)}
    k = gd.num_hole_cards
    through = np.cumsum([k + gd.num_board_cards[0], *gd.num_board_cards[1:]])  # cards seen by round
    out = []
    for p in range(game.num_players):
        keys = game.infoset_keys(p)
        nodes = np.empty(len(keys), dtype=np.int64)
        rows: list[list] = [[] for _ in range(gd.num_rounds)]
        which: list[list] = [[] for _ in range(gd.num_rounds)]
        for i, key in enumerate(keys):
            hole, board, hist = key.split("|")
            n = node_of.get(hist)
            cards = hole + board
            r = -1 if n is None else int(t.round[n])
            if r < 0 or len(cards) != 2 * through[r]:
                raise SolverkitError(f"information set {key!r} of game {game.name!r} is not one of the blueprint's "
                                     f"(betting string or number of cards of {gd.source} differ)")
            nodes[i] = n
            rows[r].append([card_of[cards[j:j + 2]] for j in range(0, len(cards), 2)])
            which[r].append(i)
        bucket = np.zeros(len(keys), dtype=np.int64)
        for r in range(gd.num_rounds):
            if which[r]:
                bucket[which[r]] = bp.table.bucket_of(r, np.array(rows[r], dtype=np.int64))
        slices = np.array(list(game.layout(p).infoset_slices()), dtype=np.int64).reshape(-1, 2)
        A = t.nact[nodes]
        if not np.array_equal(slices[:, 1], A):
            raise SolverkitError(f"game {game.name!r}'s action counts differ from the blueprint's of {gd.source}")
        within = np.arange(int(A.sum())) - np.repeat(np.cumsum(A) - A, A)
        index = np.empty(game.layout(p).size, dtype=np.int64)
        index[np.repeat(slices[:, 0], A) + within] = np.repeat(bp.off[nodes] + bucket * A, A) + within
        out.append(index)
    return out


def tree_strategy(bp, game, pol=None, index=None) -> list[np.ndarray]:
    """Per player, the blueprint's exported strategy (`pol`: a policy in its layout, default its
    own :meth:`~.engine.Blueprint.policy`) in `game`'s layout (`index`: :func:`tree_index`'s,
    computed when not given)."""
    pol = bp.policy() if pol is None else np.asarray(pol, dtype=np.float64)
    return [pol[ix] for ix in (tree_index(bp, game) if index is None else index)]
