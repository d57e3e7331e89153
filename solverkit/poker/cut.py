"""What lies below a trunk's cut, without building it: board counts and rollout strengths.

A trunk-only game (``PokerGame(trunk_only=True)``) deals the boards of the rounds above the cut
alone. It still needs, for every board of the last trunk round, how many boards of each later
round lie below it (the subgames' segment sizes, and where their values sit in the whole
game's layout) and the rollout strength of its hands (the store's hand order). Both are
counted here exactly as the whole tree would give them: the children of a board are its
suit-canonical card sets under the permutations that fix the board (the same rule as
:func:`~solverkit.poker.tree.enumerate_boards`), the last round counted by Burnside's lemma.
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from ..core.jit import njit

from .evaluator import acpc_rank
from .gamedef import GameDef
from .tree import _apply, _suit_perms


@dataclass
class BelowCut:
    """Board counts below the boards of round ``split - 1`` (the cut boards).

    ``count[i, r]``: boards of round r below cut board i (0 for r < split);
    ``first[i, r]``: the whole game's global id of the first of them (boards are numbered
    round by round, depth first, as in the whole tree); ``children[i]``: for each round-`split`
    child of board i in tree order, its own descendants per round ([children, rounds]; its
    column `split` is 1), which is what cutting a subgame into chunks of children needs.
    ``round_start``: the whole game's first global id of each round (rounds + 1 entries)."""

    split: int
    count: np.ndarray
    first: np.ndarray
    children: list
    round_start: np.ndarray

    def chunk(self, i: int, c0: int, c1: int) -> tuple[np.ndarray, np.ndarray]:
        """(first board per round, boards per round) below cut board i restricted to its
        round-`split` children c0..c1-1 (offsets from its first child); rounds before the cut
        are left for the caller."""
        kids = self.children[i]
        before = kids[:c0].sum(axis=0)
        return self.first[i] + before, kids[c0:c1].sum(axis=0)


def _stabilizer(sets, perms, S):
    return [p for p in perms if all(_apply(p, st, S) == tuple(sorted(st)) for st in sets)]


def _orbits_of_subsets(stab, remaining, nb, S) -> int:
    """Orbits of `nb`-card subsets of `remaining` under the permutations `stab` (Burnside:
    a subset fixed by a permutation is a union of its card cycles)."""
    if len(stab) == 1 and all(int(x) == i for i, x in enumerate(stab[0])):
        return math.comb(len(remaining), nb)  # no symmetry left: every subset is canonical
    total = 0
    rem = set(remaining)
    for perm in stab:
        seen, lengths = set(), []
        for c in remaining:
            if c in seen:
                continue
            n, x = 0, c
            while x not in seen:
                seen.add(x)
                x = x - x % S + int(perm[x % S])
                n += 1
            lengths.append(n)
        assert seen == rem
        ways = [1] + [0] * nb  # polynomial prod (1 + z^len), coefficient of z^nb
        for n in lengths:
            for k in range(nb, n - 1, -1):
                ways[k] += ways[k - n]
        total += ways[nb]
    assert total % len(stab) == 0
    return total // len(stab)


def _children(stab, used, deck, nb, S):
    """The canonical next-round card sets below a board whose stabilizer is `stab` (sorted, as
    the tree orders them)."""
    combos = combinations([c for c in deck if c not in used], nb)
    return sorted({min(_apply(p, combo, S) for p in stab) for combo in combos})


def _descendants(gd: GameDef, sets, r, parent_stab, S) -> np.ndarray:
    """Boards per round below a board of round r-1 whose card sets are `sets` (rounds r..);
    `parent_stab` holds the stabilizer of its parent (the board's own is a subgroup)."""
    R = gd.num_rounds
    out = np.zeros(R, dtype=np.int64)
    used = {c for st in sets for c in st}
    deck = range(gd.deck_size)
    nb = gd.num_board_cards[r]
    stab = _stabilizer(sets[-1:], parent_stab, S)
    if r == R - 1:  # the last round: count its canonical boards without listing them
        out[r] = 1 if nb == 0 else _orbits_of_subsets(stab, [c for c in deck if c not in used], nb, S)
        return out
    keys = [()] if nb == 0 else _children(stab, used, deck, nb, S)
    out[r] = len(keys)
    for key in keys:
        out += _descendants(gd, sets + (key,), r + 1, stab, S)
    return out


def count_below(gd: GameDef, boards, split: int, isomorphic: bool) -> BelowCut:
    """Count the boards of rounds >= `split` below every board of round `split - 1` of a
    trunk-only tree `boards` (:class:`~solverkit.poker.tree.Boards` dealt to round split-1)."""
    S, R = gd.num_suits, gd.num_rounds
    perms = _suit_perms(S) if isomorphic else [np.arange(S)]
    cut = list(boards.of_round(split - 1))
    deck = range(gd.deck_size)
    count = np.zeros((len(cut), R), dtype=np.int64)
    children = []
    for i, g in enumerate(cut):
        sets = _card_sets(gd, boards, g)
        used = {c for st in sets for c in st}
        nb = gd.num_board_cards[split]
        stab = _stabilizer(sets, perms, S)
        keys = [()] if nb == 0 else _children(stab, used, deck, nb, S)
        kids = np.zeros((len(keys), R), dtype=np.int64)
        for j, key in enumerate(keys):
            kids[j, split] = 1
            if split + 1 < R:
                kids[j] += _descendants(gd, sets + (key,), split + 1, stab, S)
        children.append(kids)
        count[i] = kids.sum(axis=0)
    round_start = np.array(boards.round_start, dtype=np.int64).copy()
    for r in range(split, R):
        round_start[r + 1] = round_start[r] + count[:, r].sum()
    first = np.zeros_like(count)
    for r in range(split, R):
        first[:, r] = round_start[r] + np.concatenate([[0], np.cumsum(count[:-1, r])])
    return BelowCut(split, count, first, children, round_start)


def _card_sets(gd: GameDef, boards, g) -> tuple:
    """Board g's cards as one sorted tuple per round dealt so far (round 0 included)."""
    cards = [int(c) for c in boards.cards[g, : boards.num_cards[g]]]
    sets, pos, r = [()], 0, 1
    while pos < len(cards):
        nb = gd.num_board_cards[r]
        sets.append(tuple(sorted(cards[pos: pos + nb])))
        pos += nb
        r += 1
    return tuple(sets)


@njit(cache=True, nogil=True)
def _rollout_acpc(hands, base, completions, num_suits, out):
    """out[h] += 2 * (valid hands h beats) + (hands it ties) on every final board base +
    completions[i] (ACPC ranking; card removal between the two hands ignored)."""
    H, k = hands.shape
    nb, na = base.shape[0], completions.shape[1]
    cards = np.empty(k + nb + na, dtype=np.int64)
    vals = np.empty(H, dtype=np.int64)
    for i in range(nb):
        cards[k + i] = base[i]
    for i in range(completions.shape[0]):
        for j in range(na):
            cards[k + nb + j] = completions[i, j]
        n = 0
        for h in range(H):
            clash = False
            for a in range(k):
                cards[a] = hands[h, a]
                for b in range(nb + na):
                    if hands[h, a] == cards[k + b]:
                        clash = True
            vals[h] = -1 if clash else acpc_rank(cards, num_suits)
            if vals[h] >= 0:
                n += 1
        _credit(vals, n, out)


@njit(cache=True, nogil=True)
def _credit(vals, n, out):
    """out[h] += 2 * below + ties among the n valid (>= 0) strengths of vals."""
    order = np.argsort(vals, kind="mergesort")
    st = vals[order]
    lo = st.shape[0] - n  # the -1s sort first
    i = lo
    while i < st.shape[0]:
        j = i
        while j < st.shape[0] and st[j] == st[i]:
            j += 1
        w = 2 * (i - lo) + (j - i - 1)
        for m in range(i, j):
            out[order[m]] += w
        i = j


def rollout_wins(gd: GameDef, hands: np.ndarray, boards, g: int, strength=None) -> np.ndarray:
    """int64 [H]: summed over every way (round by round) the later rounds can deal the board
    below board g, 2 x (the valid hands h beats) + (those it ties) on the final board; 0 for
    hands that share a card with it. This is what the whole tree's rollout strength sums (each
    final card set is reached by the same number of round-by-round orders: a multinomial)."""
    sets = _card_sets(gd, boards, g)
    used = sorted({c for st in sets for c in st})
    r0 = len(sets)
    adds = [gd.num_board_cards[r] for r in range(r0, gd.num_rounds)]
    na = sum(adds)
    out = np.zeros(hands.shape[0], dtype=np.int64)
    base = np.array(used, dtype=np.int64)
    if na == 0:
        combos = np.zeros((1, 0), dtype=np.int64)
    else:
        combos = np.array(list(combinations([c for c in range(gd.deck_size) if c not in used], na)), dtype=np.int64)
    if strength is None:
        _rollout_acpc(hands, base, combos, gd.num_suits, out)
    else:
        vals = np.empty(hands.shape[0], dtype=np.int64)
        for row in combos:
            strength(hands, np.concatenate([base, row]), vals)
            _credit(vals, int(np.count_nonzero(vals >= 0)), out)
    ways = math.factorial(na)
    for a in adds:
        ways //= math.factorial(a)
    return out * ways


#: threads of :func:`rollout_all` (the rollout of full hold'em's 1,755 flops is minutes of CPU)
ROLLOUT_THREADS = os.cpu_count() or 1


def rollout_all(gd: GameDef, hands: np.ndarray, boards, cut, strength=None, threads: int | None = None) -> list:
    """:func:`rollout_wins` of every board in `cut`, on `threads` threads (the ACPC kernel
    releases the GIL; a Python strength function runs on one)."""
    threads = threads or ROLLOUT_THREADS
    if strength is not None or threads == 1 or len(cut) < 2:
        return [rollout_wins(gd, hands, boards, g, strength) for g in cut]
    with ThreadPoolExecutor(min(threads, len(cut)), thread_name_prefix="solverkit-rollout") as pool:
        return list(pool.map(lambda g: rollout_wins(gd, hands, boards, g), cut))
