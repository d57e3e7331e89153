"""A two-player no-limit blueprint as the opponent of local best response (solverkit.poker.lbr):
followed through the blueprint's betting tree as the BlueprintPlayer plays it (LBR's sizes mapped
by the pseudo-harmonic mapping, off the tree it checks or calls), its policy per hand of LBR's
hand table through each hand's bucket."""

from __future__ import annotations

import numpy as np

from ..poker.acpc_protocol import pot_fraction
from ..poker.lbr_policy import _after, normalise
from ..poker.translation import translation_probabilities
from .betting import DECISION
from .player import hand_policies


class BlueprintOpponent:
    """LBR's view of a BlueprintPlayer (solverkit.poker.lbr_policy's opponent interface)."""

    def __init__(self, player, hands: np.ndarray):
        self.player, self.name, self.hands = player, player.name, hands
        self.tree, self.gd = player.tree, player.gd
        self.stats = {"translated": 0, "off_tree_hands": 0}
        self._cache: dict = {}

    def new_hand(self, rng) -> None:
        self.rng, self.node, self._slots = rng, 0, None

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

    def _leave(self) -> None:
        if self.node >= 0:
            self.stats["off_tree_hands"] += 1
        self.node = -1

    def options(self, real, board_sets):
        n = self._sync(self.node, real)
        if n < 0:
            self._leave()
            self._slots = None
            return np.ones((self.hands.shape[0], 1)), [("c", 0)]
        self.node = n
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
        self._slots = children
        return self.policy(n, board_sets), tokens

    def chose(self, slot: int) -> None:
        if self._slots is not None:
            self.node = self._slots[slot]

    def _mapped(self, real, token) -> list[tuple[int, float]]:
        """(tree child, probability) of LBR's `token` at `real` (BlueprintPlayer._map)."""
        n = self._sync(self.node, real)
        if n < 0:
            return [(-1, 1.0)]
        t = self.tree
        first, A = int(t.first[n]), int(t.nact[n])
        labels = [t.labels[first + a] for a in range(A)]
        letter, size = token
        if letter in "fc":
            return [(first + labels.index(letter), 1.0)] if letter in labels else [(-1, 1.0)]
        raises = [a for a in range(A) if labels[a] not in "fc"]
        if not raises:
            return [(-1, 1.0)]
        actor = real.current_player()
        if size == self.gd.stack[actor] and labels[raises[-1]] == "a":
            return [(first + raises[-1], 1.0)]
        spent = [int(v) for v in t.spent[n]]
        fractions = [pot_fraction(int(t.spent[first + a][actor]), spent, actor) for a in raises]
        probs = translation_probabilities(real.pot_fraction(size), fractions)
        return [(first + raises[i], float(probs[i])) for i in np.flatnonzero(probs)]

    def fold_after(self, real, board_sets, token):
        after = _after(real, token)
        if after.finished or not after.can_fold():
            return 0.0
        out = 0.0
        t = self.tree
        for child, prob in self._mapped(real, token):
            n = self._sync(child, after)
            if n < 0:
                continue  # off the tree: it calls
            first, A = int(t.first[n]), int(t.nact[n])
            labels = [t.labels[first + a] for a in range(A)]
            if "f" in labels:
                out = out + prob * self.policy(n, board_sets)[:, labels.index("f")]
        return out

    def seen(self, real, token, rng) -> None:
        if self.node < 0:
            return
        mapped = self._mapped(real, token)
        if len(mapped) > 1:
            self.stats["translated"] += 1
        pick = 0 if len(mapped) == 1 or rng.random() < mapped[0][1] else 1
        self.node = mapped[pick][0]
        if self.node < 0:
            self.stats["off_tree_hands"] += 1
