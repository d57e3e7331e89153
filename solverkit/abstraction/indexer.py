"""Suit-isomorphism hand indexer (Waugh 2013, "A fast and optimal hand isomorphism algorithm").

The hand a player sees in round r (hole cards, then the board cards dealt so far, each of the
two an unordered set, as imperfect-recall abstraction uses them) maps to a dense canonical index
in [0, size(r)); two hands share an index exactly when a permutation of the suits maps one onto
the other. A hand's suits are sorted by their counts of hole and board cards; suits with equal counts form a group whose per-suit indices (the
ranks of each round, colex-ranked among the ranks still free in that suit) are ranked as a
multiset. The configurations of counts are enumerated once; the per-hand work is a few dozen
integer operations in :func:`canonical_index`, which other numba kernels call directly with
``HandIndexer.arrays``.
"""

from __future__ import annotations

from math import comb

import numpy as np
from ..core.jit import njit

from ..errors import ConfigError
from .spec import CardSpec
from .threads import run_ranges


#: a suit's index sits in the low 40 bits of its sort key, below its count vector
_LOW = (1 << 40) - 1


@njit(cache=True, nogil=True, inline="always")
def _multi(a, k):
    """C(a + k - 1, k): the colex weight of the k-th smallest index of a multiset (k <= 4)."""
    if k == 1:
        return a
    if k == 2:
        return (a + 1) * a // 2
    if k == 3:
        return (a + 2) * (a + 1) * a // 6
    return (a + 3) * (a + 2) * (a + 1) * a // 24


@njit(cache=True, nogil=True, inline="always")
def _pick(i, a, b, c, d):
    if i == 0:
        return a
    if i == 1:
        return b
    if i == 2:
        return c
    return d


@njit(cache=True, nogil=True, inline="always")
def _suit_index(h, b, nr, popc, binom):
    """Index of one suit's cards: the colex rank of its hole ranks `h` plus C(nr, |h|) times the
    colex rank of its board ranks `b` among the ranks `h` leaves free."""
    rank_h, j, m = 0, 0, h
    while m:
        low = m & -m
        j += 1
        rank_h += binom[popc[low - 1], j]
        m ^= low
    rank_b, j, m = 0, 0, b
    while m:
        low = m & -m
        j += 1
        rank_b += binom[popc[low - 1] - popc[(low - 1) & h], j]
        m ^= low
    return rank_h + binom[nr, popc[h]] * rank_b


@njit(cache=True, nogil=True)
def canonical_index(arrays, r, row):
    """Canonical index in round `r` of `row` (int64 cards: hole cards, then the board cards
    dealt up to round r in deal order); `arrays` is ``HandIndexer.arrays``. Allocates nothing."""
    meta, binom, round_cards, radix = arrays[0], arrays[1], arrays[2], arrays[4]
    cfg_key, cfg_off, round_cfg, cfg_mult, popc = arrays[5], arrays[6], arrays[10], arrays[11], arrays[12]
    cardbit = arrays[14]
    nr, ns, V, H = meta[0], meta[1], meta[2], meta[3]
    bradix = radix[1]
    m0 = 0  # hole ranks, 16 bits per suit
    m1 = 0  # board ranks
    for i in range(round_cards[r]):
        bit = 1 << cardbit[row[i]]  # a table, not two divisions
        if i < H:
            m0 |= bit
        else:
            m1 |= bit
    k0 = k1 = k2 = k3 = -1
    for s in range(ns):  # sort key: count vector (descending), then suit index (ascending)
        h = (m0 >> (16 * s)) & 0xFFFF
        b = (m1 >> (16 * s)) & 0xFFFF
        key = ((popc[h] * bradix + popc[b]) << 40) | (_LOW - _suit_index(h, b, nr, popc, binom))
        if s == 0:
            k0 = key
        elif s == 1:
            k1 = key
        elif s == 2:
            k2 = key
        else:
            k3 = key
    if k0 < k1:  # a sorting network, descending
        k0, k1 = k1, k0
    if k2 < k3:
        k2, k3 = k3, k2
    if k0 < k2:
        k0, k2 = k2, k0
    if k1 < k3:
        k1, k3 = k3, k1
    if k1 < k2:
        k1, k2 = k2, k1
    key = 0
    for i in range(ns):
        key = key * V + (_pick(i, k0, k1, k2, k3) >> 40)
    lo, hi = round_cfg[r], round_cfg[r + 1]
    while lo < hi:  # the configuration, by binary search of its key
        mid = (lo + hi) >> 1
        if cfg_key[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    total = cfg_off[lo]
    prev, mult, k = -1, 0, 0
    for i in range(ns):  # suits of equal vectors: their indices ranked as a multiset
        x = _pick(i, k0, k1, k2, k3)
        v = x >> 40
        if v != prev:
            prev, mult, k = v, cfg_mult[lo, i], 0
        k += 1
        total += mult * _multi(_LOW - (x & _LOW), k)
    return total


@njit(cache=True, nogil=True)
def _largest(k, rem, hi):
    """Largest b in [k - 1, hi] with C(b + 0, k) <= rem, as _multi counts: C(b, k) = _multi(b - k + 1, k)."""
    if k == 1:
        return rem
    lo = k - 1
    while lo < hi:
        mid = (lo + hi + 1) >> 1
        if _multi(mid - k + 1, k) <= rem:
            lo = mid
        else:
            hi = mid - 1
    return lo


@njit(cache=True, nogil=True)
def _unrank_set(rem, k, top, binom):
    """Mask of the k-subset of positions 0..top-1 with colex rank `rem`."""
    mask, p = 0, top - 1
    for t in range(k, 0, -1):
        while binom[p, t] > rem:
            p -= 1
        rem -= binom[p, t]
        mask |= 1 << p
        p -= 1
    return mask


@njit(cache=True, nogil=True)
def canonical_row(arrays, r, index, out):
    """Write into `out` one hand of round `r` whose canonical index is `index` (the inverse of
    :func:`canonical_index` up to suit permutation): hole cards, then board cards, each ascending."""
    meta, binom = arrays[0], arrays[1]
    cfg_off, cfg_vec, cfg_cnt, cfg_S, round_cfg, cfg_radix = arrays[6], arrays[7], arrays[8], arrays[9], arrays[10], arrays[13]
    nr, ns, H = meta[0], meta[1], meta[3]
    lo, hi = round_cfg[r], round_cfg[r + 1] - 1
    while lo < hi:  # last configuration starting at or before index
        mid = (lo + hi + 1) >> 1
        if cfg_off[mid] <= index:
            lo = mid
        else:
            hi = mid - 1
    c = lo
    rem = index - cfg_off[c]
    m0 = 0
    m1 = 0
    i = 0
    while i < ns:
        j = i + 1
        while j < ns and cfg_vec[c, j] == cfg_vec[c, i]:
            j += 1
        g = rem % cfg_radix[c, i]
        rem //= cfg_radix[c, i]
        for k in range(j - i, 0, -1):  # the group's multiset of suit indices, largest first
            b = _largest(k, g, cfg_S[c, i] + k - 1)
            g -= _multi(b - k + 1, k)
            sidx = b - (k - 1)
            s = i + k - 1  # canonical suit of this index
            ch = cfg_cnt[c, s, 0]
            space = binom[nr, ch]
            h = _unrank_set(sidx % space, ch, nr, binom)
            compressed = _unrank_set(sidx // space, cfg_cnt[c, s, 1], nr - ch, binom)
            bmask, q = 0, 0
            for p in range(nr):  # the q-th free rank for each compressed position q
                if not (h >> p) & 1:
                    if (compressed >> q) & 1:
                        bmask |= 1 << p
                    q += 1
            m0 |= h << (16 * s)
            m1 |= bmask << (16 * s)
        i = j
    fh, fb = 0, H
    for p in range(nr):  # ascending cards
        for s in range(ns):
            if (m0 >> (16 * s + p)) & 1:
                out[fh] = p * ns + s
                fh += 1
            if (m1 >> (16 * s + p)) & 1:
                out[fb] = p * ns + s
                fb += 1


@njit(cache=True, nogil=True)
def _index_rows(lo, hi, arrays, r, cards, out):
    for i in range(lo, hi):
        out[i] = canonical_index(arrays, r, cards[i])


@njit(cache=True, nogil=True)
def _unindex_rows(lo, hi, arrays, r, ids, out):
    for i in range(lo, hi):
        canonical_row(arrays, r, ids[i], out[i])


def _configs(counts_max, ns, nr, ng):
    """Every multiset of `ns` per-suit count vectors (over `ng` groups) whose sums per group are
    `counts_max`, each suit's vectors in descending order (as the kernel sorts them)."""
    vectors = []

    def vecs(g, acc, left):
        if g == ng:
            vectors.append(tuple(acc))
            return
        for k in range(min(counts_max[g], left) + 1):
            vecs(g + 1, acc + [k], left - k)

    vecs(0, [], nr)
    vectors.sort(reverse=True)
    out = []

    def pick(start, chosen, remaining):
        if len(chosen) == ns:
            if not any(remaining):
                out.append(tuple(chosen))
            return
        for i in range(start, len(vectors)):
            v = vectors[i]
            if all(a <= b for a, b in zip(v, remaining)):
                pick(i, chosen + [v], [b - a for a, b in zip(v, remaining)])

    pick(0, [], list(counts_max))
    return out


def _space(vec, nr):
    """Number of suit indices of a count vector: the rank sets of each group among free ranks."""
    s, free = 1, nr
    for k in vec:
        s *= comb(free, k)
        free -= k
    return s


class HandIndexer:
    """Canonical indices of the hands of each round of a CardSpec, under suit permutation."""

    def __init__(self, spec: CardSpec):
        self.spec = spec
        ns, nr, H = spec.num_suits, spec.num_ranks, spec.hole_cards
        boards = [sum(spec.board_cards[: r + 1]) for r in range(spec.rounds)]
        radix = [H + 1, max(boards) + 1]
        V = radix[0] * radix[1]
        keys, offs, vecs, cnts, spaces, round_cfg, sizes, mults, radices = [], [], [], [], [], [0], [], [], []
        for r in range(spec.rounds):
            groups = [H, boards[r]] if boards[r] else [H]
            ng = len(groups)
            rows = []
            for cfg in _configs(groups, ns, nr, ng):
                full = [tuple(v) + (0,) * (2 - ng) for v in cfg]
                ids = [v[0] * radix[1] + v[1] for v in full]
                key = 0
                for v in ids:
                    key = key * V + v
                rows.append((key, ids, full, [_space(v[:ng], nr) for v in full]))
            rows.sort()
            size = 0
            for key, ids, full, sp in rows:
                keys.append(key)
                offs.append(size)
                vecs.append(ids)
                cnts.append(full)
                spaces.append(sp)
                within, i = 1, 0
                mult, rad = [0] * ns, [0] * ns
                while i < ns:
                    j = i
                    while j < ns and ids[j] == ids[i]:
                        j += 1
                    mult[i] = within
                    rad[i] = comb(sp[i] + j - i - 1, j - i)
                    within *= rad[i]
                    i = j
                mults.append(mult)
                radices.append(rad)
                size += within
            if size >= 2**62:
                raise ConfigError(f"card spec {spec.key()[:4]}: round {r} has too many hands to index in 64 bits")
            sizes.append(size)
            round_cfg.append(len(keys))
        binom = np.array([[comb(n, k) for k in range(16)] for n in range(16)], dtype=np.int64)
        cards = [H + b for b in boards]
        seen = [2 if b else 1 for b in boards]
        self._sizes = tuple(sizes)
        #: what canonical_index and canonical_row read (pass it whole): meta (ranks, suits, V, hole
        #: cards), binomials, cards per round, groups per round, count radices, then per
        #: configuration of suit counts (rounds in round_cfg ranges): key, first index, count
        #: vectors, counts, suit index spaces, round ranges, multiset multipliers, popcounts,
        #: multiset radices, each card's bit (16 * suit + rank)
        self.arrays = (
            np.array([nr, ns, V, H], dtype=np.int64), binom, np.array(cards, dtype=np.int64),
            np.array(seen, dtype=np.int64), np.array(radix, dtype=np.int64), np.array(keys, dtype=np.int64),
            np.array(offs, dtype=np.int64), np.array(vecs, dtype=np.int64).reshape(-1, ns),
            np.array(cnts, dtype=np.int64).reshape(-1, ns, 2), np.array(spaces, dtype=np.int64).reshape(-1, ns),
            np.array(round_cfg, dtype=np.int64), np.array(mults, dtype=np.int64).reshape(-1, ns),
            np.array([bin(x).count("1") for x in range(1 << 13)], dtype=np.int64),
            np.array(radices, dtype=np.int64).reshape(-1, ns),
            np.array([16 * (c % ns) + c // ns for c in range(nr * ns)], dtype=np.int64),
        )

    def size(self, r: int) -> int:
        """Number of canonical hands (suit-isomorphism classes) in round `r`."""
        return self._sizes[r]

    def _round(self, r) -> int:
        if not 0 <= int(r) < self.spec.rounds:
            raise ConfigError(f"round {r} is invalid: the game has rounds 0..{self.spec.rounds - 1}")
        return int(r)

    def index(self, r: int, cards) -> np.ndarray:
        """Canonical indices of rows of `cards` (int64[n, cards seen in round r]: hole cards, then
        board cards in deal order)."""
        r = self._round(r)
        cards = np.ascontiguousarray(np.atleast_2d(cards), dtype=np.int64)
        if cards.shape[1] != self.spec.cards_in(r):
            raise ConfigError(f"round {r} hands have {self.spec.cards_in(r)} cards (hole, then board); got "
                              f"rows of {cards.shape[1]}")
        deck = self.spec.deck_size
        if cards.size and (cards.min() < 0 or cards.max() >= deck or (np.diff(np.sort(cards, axis=1), axis=1) == 0).any()):
            bad = cards[((cards < 0) | (cards >= deck)).any(axis=1) | (np.diff(np.sort(cards, axis=1), axis=1) == 0).any(axis=1)][0]
            raise ConfigError(f"hand {bad.tolist()} is invalid: expected distinct cards 0..{deck - 1} (rank * "
                              f"{self.spec.num_suits} + suit)")
        out = np.empty(cards.shape[0], dtype=np.int64)
        run_ranges(_index_rows, cards.shape[0], self.arrays, r, cards, out)
        return out

    def unindex(self, r: int, i) -> np.ndarray:
        """One hand (a row of cards, each group ascending) of canonical index `i` in round `r`;
        for an array of indices, one row each."""
        r = self._round(r)
        ids = np.atleast_1d(np.asarray(i, dtype=np.int64))
        if ids.size and (ids.min() < 0 or ids.max() >= self.size(r)):
            raise ConfigError(f"index out of range 0..{self.size(r) - 1} of round {r}")
        out = np.empty((ids.shape[0], self.spec.cards_in(r)), dtype=np.int64)
        run_ranges(_unindex_rows, ids.shape[0], self.arrays, r, ids, out)
        return out[0] if np.ndim(i) == 0 else out
