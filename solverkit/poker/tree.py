"""The public tree of a limit poker game: betting tree x board sequences, with hand vectors.

A public node is (betting node, board). Boards of each round are enumerated depth-first (the
children of a board are one contiguous range of the next round's boards), each round dealing its
cards as a set. Every public node carries a vector over all private hands of each player;
hands that share a card with the board simply have zero reach.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, permutations
from math import comb

import numpy as np

from ..errors import ConfigError
from .betting import DECISION, BettingTree, build_betting_tree
from .cards import hand_table
from .evaluator import acpc_strengths
from .gamedef import GameDef


@dataclass
class Boards:
    """Board sequences of every round, flattened over rounds (global board ids).

    With suit isomorphism only canonical boards are listed; a canonical board stands for its
    whole orbit under the suit permutations that fix its parent, and ``perms[perm_start[g] :
    perm_end[g]]`` hold, for every other member of the orbit, the hand index map h -> h' such
    that the member's value for hand h is the canonical board's value for hand h'.
    """

    round_start: np.ndarray  # int64 [num_rounds + 1]: first global id of each round
    cards: np.ndarray  # int64 [num_boards, max_board_cards]: cumulative cards, -1 padded
    num_cards: np.ndarray  # int64 [num_boards]
    parent: np.ndarray  # int64 [num_boards]: board of the previous round (-1 in round 0)
    child_start: np.ndarray  # int64 [num_boards]: first child in the next round
    child_end: np.ndarray  # int64 [num_boards]
    perm_start: np.ndarray  # int64 [num_boards]
    perm_end: np.ndarray  # int64 [num_boards]
    perms: np.ndarray  # int64 [num_perms, num_hands]
    hand_orbits: np.ndarray  # int64 [num_boards]: valid hands up to the board's suit symmetries

    def of_round(self, r):
        return range(int(self.round_start[r]), int(self.round_start[r + 1]))

    def orbit_size(self, g) -> int:
        return 1 + int(self.perm_end[g] - self.perm_start[g])


def _suit_perms(num_suits):
    return [np.array(p, dtype=np.int64) for p in permutations(range(num_suits))]


def _apply(perm, cards, num_suits):
    return tuple(sorted(int(c - c % num_suits + perm[c % num_suits]) for c in cards))


def enumerate_boards(gd: GameDef, hands: np.ndarray, isomorphic: bool = False, max_boards: int = 20_000_000,
                     allowed: dict | None = None, rounds: int | None = None, root_board: tuple = (),
                     suit_perms: list | None = None) -> Boards:
    """All board sequences (or their suit-canonical representatives), children contiguous.

    `allowed` maps a round to the card sets its board may take (any representatives: they are
    made canonical here); the other boards of that round, and everything below them, are left
    out. That deals one flop of hold'em, say, to study real subgames without the whole game.
    `rounds` < the game's rounds deals only the first `rounds` rounds (a trunk): the later
    rounds hold no boards, and the last dealt round's boards no children. `root_board`: the cards
    on the board from the start (a postflop spot's flop): round 0's one board. `suit_perms`: the
    suit permutations isomorphism may use (default all; a game whose hands are not all equally
    likely allows only those that keep its weights), under which `hands` must be closed."""
    dealt = gd.num_rounds if rounds is None else rounds
    S = gd.num_suits
    H = hands.shape[0]
    deck = list(range(gd.deck_size))
    perms = _suit_perms(S) if isomorphic else [np.arange(S)]
    if isomorphic and suit_perms is not None:
        allowed_perms = {tuple(int(x) for x in p) for p in suit_perms}
        perms = [p for p in perms if tuple(int(x) for x in p) in allowed_perms]
    index = _HandIndex(hands, gd.deck_size, S)

    def hand_map(perm, inverse):
        if inverse:
            perm = np.argsort(perm)
        return index.moved(perm)

    # each board: (per-round card sets, parent index in previous round, orbit hand maps)
    rounds = [[((tuple(sorted(int(c) for c in root_board)),) if len(root_board) else (), -1, [])]]
    for r in range(1, dealt):
        nb = gd.num_board_cards[r]
        nxt = []
        for i, (sets, _, _) in enumerate(rounds[-1]):
            used = {c for st in sets for c in st}
            if nb == 0:
                nxt.append((sets + ((),), i, []))
                continue
            stab = [p for p in perms if all(_apply(p, st, S) == tuple(sorted(st)) for st in sets)]
            keep = None
            if allowed and r in allowed:
                keep = {min(_apply(p, tuple(sorted(c)), S) for p in stab) for c in allowed[r]}
            groups: dict[tuple, list] = {}
            for combo in combinations([c for c in deck if c not in used], nb):
                key = min(_apply(p, combo, S) for p in stab)
                if keep is None or key in keep:
                    groups.setdefault(key, []).append(combo)
            for key in sorted(groups):
                maps = []
                for member in groups[key]:
                    if member == key:
                        continue
                    perm = next(p for p in stab if _apply(p, key, S) == member)
                    maps.append(hand_map(perm, inverse=True))
                nxt.append((sets + (key,), i, maps))
            if len(nxt) > max_boards:
                raise ConfigError(f"{gd.source}: more than {max_boards:,} boards in round {r} (numBoardCards = "
                                  f"{list(gd.num_board_cards)}, a {gd.deck_size}-card deck); solve a smaller game "
                                  "(fewer ranks, suits or board cards)")
        rounds.append(nxt)
    rounds += [[] for _ in range(gd.num_rounds - dealt)]
    starts = np.zeros(gd.num_rounds + 1, dtype=np.int64)
    for r in range(gd.num_rounds):
        starts[r + 1] = starts[r] + len(rounds[r])
    n = int(starts[-1])
    total_cards = max(int(np.sum(gd.num_board_cards)), 1)
    cards = np.full((n, total_cards), -1, dtype=np.int64)
    num = np.zeros(n, dtype=np.int64)
    parent = np.full(n, -1, dtype=np.int64)
    child_start = np.zeros(n, dtype=np.int64)
    child_end = np.zeros(n, dtype=np.int64)
    perm_start = np.zeros(n, dtype=np.int64)
    perm_end = np.zeros(n, dtype=np.int64)
    orbits = np.zeros(n, dtype=np.int64)
    all_maps = []
    for r in range(gd.num_rounds):
        for i, (sets, par, maps) in enumerate(rounds[r]):
            g = starts[r] + i
            flat = [c for st in sets for c in st]
            cards[g, : len(flat)] = flat
            num[g] = len(flat)
            if r > 0:
                parent[g] = starts[r - 1] + par
            perm_start[g] = len(all_maps)
            all_maps.extend(maps)
            perm_end[g] = len(all_maps)
            if isomorphic:
                orbits[g] = _hand_orbits(sets, hands, perms, index, S)
            else:
                orbits[g] = int(np.count_nonzero(~np.isin(hands, flat).any(axis=1))) if flat else H
    child_start[:] = child_end[:] = starts[dealt]  # the last dealt round: no children here
    for r in range(1, dealt):
        p = parent[starts[r] : starts[r + 1]]
        idx = np.arange(starts[r - 1], starts[r])
        child_start[starts[r - 1] : starts[r]] = starts[r] + np.searchsorted(p, idx, side="left")
        child_end[starts[r - 1] : starts[r]] = starts[r] + np.searchsorted(p, idx, side="right")
    perm_arr = np.array(all_maps, dtype=np.int64).reshape(len(all_maps), H) if all_maps else np.zeros((1, H), dtype=np.int64)
    return Boards(starts, cards, num, parent, child_start, child_end, perm_start, perm_end, perm_arr, orbits)


class _HandIndex:
    """Hand index of every hand moved by a suit permutation, vectorised (a hand's cards as
    one integer code, looked up among the sorted codes of the hand table)."""

    def __init__(self, hands, deck_size, num_suits):
        self.hands, self.S = hands, num_suits
        self.weights = deck_size ** np.arange(hands.shape[1], dtype=np.int64)
        codes = hands @ self.weights
        self.order = np.argsort(codes, kind="stable")
        self.codes = codes[self.order]
        self.cards = np.arange(deck_size, dtype=np.int64)

    def code(self, perm) -> np.ndarray:
        """Code of each hand's image under `perm` (suit s -> perm[s])."""
        moved = self.cards - self.cards % self.S + np.asarray(perm, dtype=np.int64)[self.cards % self.S]
        return np.sort(moved[self.hands], axis=1) @ self.weights

    def moved(self, perm) -> np.ndarray:
        """int64 [H]: the index of each hand's image under `perm` (the hands must be closed under it)."""
        code = self.code(perm)
        at = np.minimum(np.searchsorted(self.codes, code), len(self.codes) - 1)
        if not np.array_equal(self.codes[at], code):
            raise AssertionError("a suit permutation maps a hand out of the game's hands")  # a caller bug
        return self.order[at]


def _hand_orbits(sets, hands, perms, index, S):
    """Number of valid hands distinct up to the suit permutations fixing the board."""
    used = np.array(sorted({c for st in sets for c in st}), dtype=np.int64)
    stab = [p for p in perms if all(_apply(p, st, S) == tuple(sorted(st)) for st in sets)]
    valid = ~np.isin(hands, used).any(axis=1)
    rep = np.min([index.code(p) for p in stab], axis=0)  # each orbit's smallest code
    return int(np.unique(rep[valid]).size)


@dataclass
class HandSide:
    """One player's hands in the kernels' terms: rows of the tree's hand table, and the tree's
    per-hand tables restricted to them (valid, suit-orbit hand maps, showdown orders); ``same[h]``
    is the other player's index of hand h, or -1."""

    rows: np.ndarray
    hands: np.ndarray
    valid: np.ndarray
    perms: np.ndarray
    sd_order: np.ndarray
    sd_strength: np.ndarray
    sd_count: np.ndarray
    same: np.ndarray = None

    @property
    def num_hands(self) -> int:
        return int(self.hands.shape[0])


def shared_side(t) -> HandSide:
    """Both players' side when they hold every hand of the tree (limit games)."""
    H = t.num_hands
    return HandSide(np.arange(H, dtype=np.int64), t.hands, t.valid, t.boards.perms, t.sd_order, t.sd_strength,
                    t.sd_count, np.arange(H, dtype=np.int64))


def showdown_dtype(num_hands: int) -> type:
    """The integer type of the showdown tables (hand indices and strength ranks, both < H):
    int16 while H fits it (hold'em's 1,326 hands), int32 beyond; a spot's tables are ~4x
    smaller than as int64 (~11 MB on a flop spot)."""
    return np.int16 if num_hands < np.iinfo(np.int16).max else np.int32


def dense_ranks(sorted_strengths: np.ndarray) -> np.ndarray:
    """0, 1, 2, ... for ascending strengths, equal strengths one rank: the showdown compares
    strengths only for order and ties, which ranks keep."""
    if sorted_strengths.size == 0:
        return sorted_strengths
    return np.concatenate(([0], np.cumsum(np.diff(sorted_strengths) != 0)))


def split_sides(t, rows: tuple) -> tuple:
    """(player 0's, player 1's) HandSide holding rows[p] of the tree's hands (a spot's ranges).
    Each row set must be closed under the tree's suit-orbit hand maps."""
    H = t.num_hands
    sides = []
    inv = []
    for r in rows:
        r = np.asarray(r, dtype=np.int64)
        m = np.full(H, -1, dtype=np.int64)
        m[r] = np.arange(r.size, dtype=np.int64)
        inv.append(m)
    for p, r in enumerate(rows):
        r = np.asarray(r, dtype=np.int64)
        m = inv[p]
        used = int(t.boards.perm_end.max()) if t.boards.perm_end.size else 0  # (no maps: one placeholder row)
        perms = (np.ascontiguousarray(m[t.boards.perms[:used][:, r]]) if used else
                 np.zeros((1, r.size), dtype=np.int64))
        if np.any(perms < 0):
            raise AssertionError("a player's hands are not closed under the boards' suit maps")  # a caller bug
        nb = t.sd_order.shape[0]
        order = np.full((nb, max(r.size, 1)), -1, dtype=t.sd_order.dtype)
        strength = np.zeros((nb, max(r.size, 1)), dtype=t.sd_strength.dtype)
        count = np.zeros(nb, dtype=np.int64)
        for i in range(nb):
            o = t.sd_order[i, : t.sd_count[i]]
            keep = m[o] >= 0
            c = int(keep.sum())
            order[i, :c] = m[o[keep]]
            strength[i, :c] = t.sd_strength[i, : t.sd_count[i]][keep]
            count[i] = c
        sides.append(HandSide(r, np.ascontiguousarray(t.hands[r]), np.ascontiguousarray(t.valid[:, r]), perms, order,
                              strength, count, np.ascontiguousarray(inv[1 - p][r])))
    return tuple(sides)


@dataclass
class PokerTree:
    """Everything the kernels need about a game: betting, hands, boards, showdown orders."""

    gd: GameDef
    bet: BettingTree
    hands: np.ndarray  # int64 [H, k]
    boards: Boards
    valid: np.ndarray  # uint8 [num_boards, H]: hand does not clash with the board
    sd_order: np.ndarray  # int16/int32 (showdown_dtype) [num_last_boards, H]: valid hands by ascending strength, then -1
    sd_strength: np.ndarray  # the same type [num_last_boards, H]: sd_order's hands' strength ranks (ties equal)
    sd_count: np.ndarray  # int64 [num_last_boards]: valid hands per last-round board
    deals: np.ndarray  # float64 per round: equally likely (hand, hand, boards so far) deals
    #: (player 0's, player 1's) HandSide when they hold different hands (a spot's ranges); None: both all
    sides: tuple | None = None

    @property
    def num_hands(self) -> int:
        return int(self.hands.shape[0])

    def side(self, p: int) -> HandSide:
        """Player p's hands and their tables."""
        if self.sides is None:
            side = self.__dict__.get("_shared")
            if side is None:
                side = self._shared = shared_side(self)
            return side
        return self.sides[p]

    def hands_of(self, p: int) -> int:
        return self.side(p).num_hands

    @property
    def max_hands(self) -> int:
        return max(self.hands_of(0), self.hands_of(1))

    def num_infosets(self, player: int | None = None) -> int:
        """Information sets = (decision node, board, hand), per player or both; with suit
        isomorphism, (board, hand) pairs are counted up to suit permutations."""
        total = 0
        for n in np.flatnonzero(self.bet.kind == DECISION):
            if player is not None and self.bet.player[n] != player:
                continue
            r = self.bet.round[n]
            lo, hi = self.boards.round_start[r], self.boards.round_start[r + 1]
            total += int(self.boards.hand_orbits[lo:hi].sum())
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


def build_tree(gd: GameDef, strength=None, isomorphic: bool = False, allowed: dict | None = None,
               rounds: int | None = None, bet: BettingTree | None = None, root_board: tuple = (),
               hand_rows: np.ndarray | None = None, suit_perms: list | None = None) -> PokerTree:
    """Build the public tree. `strength(hands, board_cards, out)` defaults to ACPC ranking;
    `allowed` restricts the boards of some rounds (see :func:`enumerate_boards`); `rounds`
    deals only the first rounds (a trunk: the betting tree stays whole, the later rounds hold
    no boards and there are no showdown tables); `bet` is the betting tree (default: the limit
    game's); `root_board` the cards on the board before round 0's betting (a spot's);
    `hand_rows` the rows of the hand table the game keeps (a spot's ranges; default all) and
    `suit_perms` the suit permutations isomorphism may use (see :func:`enumerate_boards`)."""
    if bet is None:
        bet = build_betting_tree(gd)
    hands = hand_table(gd.deck_size, gd.num_hole_cards)
    if hand_rows is not None:
        hands = np.ascontiguousarray(hands[hand_rows])
    boards = enumerate_boards(gd, hands, isomorphic, allowed=allowed, rounds=rounds, root_board=root_board,
                              suit_perms=suit_perms)
    H = hands.shape[0]
    nbrd = int(boards.round_start[-1])
    valid = np.ones((nbrd, H), dtype=np.uint8)
    for g in range(nbrd):
        b = boards.cards[g, : boards.num_cards[g]]
        if b.size:
            valid[g] = ~np.isin(hands, b).any(axis=1)
    last = gd.num_rounds - 1
    lo, hi = int(boards.round_start[last]), int(boards.round_start[last + 1])
    small = showdown_dtype(H)
    sd_order = np.full((hi - lo, H), -1, dtype=small)
    sd_strength = np.zeros((hi - lo, H), dtype=small)
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
        sd_strength[i, : order.size] = dense_ranks(vals[order])
        sd_count[i] = order.size
    return PokerTree(gd, bet, hands, boards, valid, sd_order, sd_strength, sd_count, count_deals(gd))
