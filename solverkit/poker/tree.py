"""The public tree of a limit poker game: betting tree x board sequences, with hand vectors.

A public node is (betting node, board). Boards of each round are enumerated depth-first (the
children of a board are one contiguous range of the next round's boards), each round dealing its
cards as a set. Every public node carries a vector over all private hands of each player;
hands that share a card with the board simply have zero reach.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from math import comb

import numpy as np

from .betting import DECISION, BettingTree, build_betting_tree
from .cards import hand_table
from .evaluator import acpc_strengths
from .gamedef import GameDef


@dataclass
class Boards:
    """Board sequences of every round, flattened over rounds (global board ids)."""

    round_start: np.ndarray  # int64 [num_rounds + 1]: first global id of each round
    cards: np.ndarray  # int64 [num_boards, max_board_cards]: cumulative cards, -1 padded
    num_cards: np.ndarray  # int64 [num_boards]
    parent: np.ndarray  # int64 [num_boards]: board of the previous round (-1 in round 0)
    child_start: np.ndarray  # int64 [num_boards]: first child in the next round
    child_end: np.ndarray  # int64 [num_boards]

    def of_round(self, r):
        return range(int(self.round_start[r]), int(self.round_start[r + 1]))


def enumerate_boards(gd: GameDef, max_boards: int = 20_000_000) -> Boards:
    """All board sequences, round by round, children contiguous."""
    total_cards = int(np.sum(gd.num_board_cards))
    deck = list(range(gd.deck_size))
    per_round = [[()]]
    parents = [[-1]]
    for r in range(1, gd.num_rounds):
        nb = gd.num_board_cards[r]
        nxt, par = [], []
        for i, b in enumerate(per_round[-1]):
            if nb == 0:
                nxt.append(b)
                par.append(i)
                continue
            rest = [c for c in deck if c not in b]
            for combo in combinations(rest, nb):
                nxt.append(b + combo)
                par.append(i)
            if len(nxt) > max_boards:
                raise MemoryError(f"more than {max_boards:,} boards in round {r}")
        per_round.append(nxt)
        parents.append(par)
    starts = np.zeros(gd.num_rounds + 1, dtype=np.int64)
    for r in range(gd.num_rounds):
        starts[r + 1] = starts[r] + len(per_round[r])
    n = int(starts[-1])
    cards = np.full((n, max(total_cards, 1)), -1, dtype=np.int64)
    num = np.zeros(n, dtype=np.int64)
    parent = np.full(n, -1, dtype=np.int64)
    child_start = np.zeros(n, dtype=np.int64)
    child_end = np.zeros(n, dtype=np.int64)
    for r in range(gd.num_rounds):
        for i, b in enumerate(per_round[r]):
            g = starts[r] + i
            cards[g, : len(b)] = b
            num[g] = len(b)
            if r > 0:
                parent[g] = starts[r - 1] + parents[r][i]
    for r in range(1, gd.num_rounds):
        p = parent[starts[r] : starts[r + 1]]
        first = np.searchsorted(p, np.arange(starts[r - 1], starts[r]), side="left")
        last = np.searchsorted(p, np.arange(starts[r - 1], starts[r]), side="right")
        child_start[starts[r - 1] : starts[r]] = starts[r] + first
        child_end[starts[r - 1] : starts[r]] = starts[r] + last
    return Boards(starts, cards, num, parent, child_start, child_end)


@dataclass
class PokerTree:
    """Everything the kernels need about a game: betting, hands, boards, showdown orders."""

    gd: GameDef
    bet: BettingTree
    hands: np.ndarray  # int64 [H, k]
    boards: Boards
    valid: np.ndarray  # uint8 [num_boards, H]: hand does not clash with the board
    sd_order: np.ndarray  # int64 [num_last_boards, H]: valid hands by ascending strength, then -1
    sd_strength: np.ndarray  # int64 [num_last_boards, H]: strength of sd_order's hands
    sd_count: np.ndarray  # int64 [num_last_boards]: valid hands per last-round board
    deals: np.ndarray  # float64 per round: equally likely (hand, hand, boards so far) deals

    @property
    def num_hands(self) -> int:
        return int(self.hands.shape[0])

    def num_infosets(self, player: int | None = None) -> int:
        """Information sets = (decision node, board, valid hand), per player or both."""
        total = 0
        for n in np.flatnonzero(self.bet.kind == DECISION):
            if player is not None and self.bet.player[n] != player:
                continue
            r = self.bet.round[n]
            lo, hi = self.boards.round_start[r], self.boards.round_start[r + 1]
            total += int(self.valid[lo:hi].sum())
        return total


def count_deals(gd: GameDef) -> np.ndarray:
    """Per round: the number of equally likely deals of both hands and the boards so far."""
    k = gd.num_hole_cards
    d = gd.deck_size
    total = comb(d, k) * comb(d - k, k)
    left = d - 2 * k
    out = []
    for nb in gd.num_board_cards:
        total *= comb(left, nb)
        left -= nb
        out.append(float(total))
    return np.array(out)


def build_tree(gd: GameDef, strength=None) -> PokerTree:
    """Build the public tree. `strength(hands, board_cards, out)` defaults to ACPC ranking."""
    bet = build_betting_tree(gd)
    hands = hand_table(gd.deck_size, gd.num_hole_cards)
    boards = enumerate_boards(gd)
    H = hands.shape[0]
    nbrd = int(boards.round_start[-1])
    valid = np.ones((nbrd, H), dtype=np.uint8)
    for g in range(nbrd):
        b = boards.cards[g, : boards.num_cards[g]]
        if b.size:
            valid[g] = ~np.isin(hands, b).any(axis=1)
    last = gd.num_rounds - 1
    lo, hi = int(boards.round_start[last]), int(boards.round_start[last + 1])
    sd_order = np.full((hi - lo, H), -1, dtype=np.int64)
    sd_strength = np.zeros((hi - lo, H), dtype=np.int64)
    sd_count = np.zeros(hi - lo, dtype=np.int64)
    vals = np.empty(H, dtype=np.int64)
    for i, g in enumerate(range(lo, hi)):
        b = boards.cards[g, : boards.num_cards[g]].copy()
        if strength is None:
            acpc_strengths(hands, b, gd.num_suits, vals)
        else:
            strength(hands, b, vals)
        ok = np.flatnonzero(vals >= 0)
        order = ok[np.argsort(vals[ok], kind="stable")]
        sd_order[i, : order.size] = order
        sd_strength[i, : order.size] = vals[order]
        sd_count[i] = order.size
    return PokerTree(gd, bet, hands, boards, valid, sd_order, sd_strength, sd_count, count_deals(gd))
