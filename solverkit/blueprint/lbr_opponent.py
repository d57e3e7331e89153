"""A two-player no-limit blueprint as the opponent of local best response (solverkit.poker.lbr):
followed through the blueprint's betting tree as the BlueprintPlayer plays it (LBR's sizes mapped
by the pseudo-harmonic mapping, off the tree it checks or calls), its policy per hand of LBR's
hand table through each hand's bucket."""

from __future__ import annotations

import numpy as np

from ..poker.lbr_policy import FollowingOpponent, normalise
from .betting import DECISION
from .player import hand_policies, mapped_children


class BlueprintOpponent(FollowingOpponent):
    """LBR's view of a BlueprintPlayer (solverkit.poker.lbr_policy's opponent interface)."""

    def __init__(self, player, hands: np.ndarray):
        self.player, self.name, self.hands = player, player.name, hands
        self.tree, self.gd = player.tree, player.gd
        self.stats = {"translated": 0, "off_tree_hands": 0}
        self._cache: dict = {}

    def clone(self) -> "BlueprintOpponent":
        return BlueprintOpponent(self.player, self.hands)

    def policy(self, n: int, board_sets) -> np.ndarray:
        key = (n, board_sets)
        hit = self._cache.get(key)
        if hit is None:
            if len(self._cache) > 100_000:
                self._cache.clear()
            hit = self._cache[key] = normalise(hand_policies(self.player, n, board_sets, self.hands))
        return hit

    def _sync(self, n: int, real) -> int:
        t = self.tree
        if n < 0 or real.finished:
            return -1
        if int(t.kind[n]) != DECISION or int(t.player[n]) != real.current_player() or int(t.round[n]) != real.round:
            return -1
        return n

    def _fold_slot(self, n: int) -> int | None:
        first = int(self.tree.first[n])
        labels = [self.tree.labels[first + a] for a in range(int(self.tree.nact[n]))]
        return labels.index("f") if "f" in labels else None

    @property
    def num_hands(self) -> int:
        return self.hands.shape[0]

    def _tokens(self, n: int, real):
        """(LBR's token, tree child) of each action at node n, as BlueprintPlayer plays them."""
        t = self.tree
        first, A = int(t.first[n]), int(t.nact[n])
        span = real.raise_range()
        tokens, children = [], []
        call = next(first + a for a in range(A) if t.labels[first + a] == "c")
        for a in range(A):
            label, child = t.labels[first + a], first + a
            token = ("c", 0)
            if label == "f" and real.can_fold():
                token = ("f", 0)
            elif label not in "fc" and span is not None:
                amount = span[1] if label == "a" else int(t.spent[child][real.current_player()])
                token = ("r", min(max(amount, span[0]), span[1]))
            tokens.append(token)
            children.append(child if token[0] != "c" or label == "c" else call)
        return tokens, children

    def _mapped_at(self, n: int, real, token) -> list[tuple[int, float]]:
        """(tree child, probability) of LBR's `token` at tree node n (as BlueprintPlayer maps it)."""
        pairs, _ = mapped_children(self.tree, n, real, token[0], token[1], self.gd.stack)
        return pairs or [(-1, 1.0)]
