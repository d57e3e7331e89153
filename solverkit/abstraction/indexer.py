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
from numba import njit, prange

from ..errors import ConfigError
from .spec import CardSpec


@njit(cache=True, nogil=True)
def _binom(n, k):
    """C(n, k) for the small k of multisets and rank sets (exact in int64 for the sizes used)."""
    if k < 0 or n < k:
        return 0
    if k == 1:
        return n
    r = 1
    for j in range(k):
        r = r * (n - j) // (j + 1)
    return r


@njit(cache=True, nogil=True)
def canonical_index(arrays, r, row):
    """Canonical index in round `r` of `row` (int64 cards: hole cards, then the board cards
    dealt up to round r in deal order); `arrays` is ``HandIndexer.arrays``."""
    meta, binom = arrays[0], arrays[1]
    nr, ns, V, H = meta[0], meta[1], meta[2], meta[3]
    round_cards, round_groups = arrays[2], arrays[3]
    cfg_key, cfg_off, cfg_vec, cfg_cnt, cfg_S, round_cfg = arrays[5], arrays[6], arrays[7], arrays[8], arrays[9], arrays[10]
    bradix = arrays[4][1]
    ng = round_groups[r]
    m0 = 0  # hole ranks, 16 bits per suit
    m1 = 0  # board ranks
    for i in range(round_cards[r]):
        c = row[i]
        bit = 1 << (16 * (c % ns) + c // ns)
        if i < H:
            m0 |= bit
        else:
            m1 |= bit
    w = np.empty(12, dtype=np.int64)  # [0:4] suit order, [4:8] vectors, [8:12] suit indices
    for s in range(ns):
        a = (m0 >> (16 * s)) & 0xFFFF
        b = (m1 >> (16 * s)) & 0xFFFF
        ca = 0
        while a:
            a &= a - 1
            ca += 1
        cb = 0
        while b:
            b &= b - 1
            cb += 1
        w[4 + s] = ca * bradix + cb
        w[s] = s
    for i in range(1, ns):  # suits by descending count vector (insertion sort)
        j = i
        while j > 0 and w[4 + w[j - 1]] < w[4 + w[j]]:
            t = w[j - 1]
            w[j - 1] = w[j]
            w[j] = t
            j -= 1
    key = 0
    for i in range(ns):
        key = key * V + w[4 + w[i]]
    lo, hi = round_cfg[r], round_cfg[r + 1]
    while lo < hi:  # the configuration, by binary search of its key
        mid = (lo + hi) // 2
        if cfg_key[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    c = lo
    for i in range(ns):
        s = w[i]
        idx, mult, used, free = 0, 1, 0, nr
        for g in range(ng):
            m = ((m0 if g == 0 else m1) >> (16 * s)) & 0xFFFF
            k = cfg_cnt[c, i, g]
            rank, j = 0, 0
            mm = m
            while mm:
                low = mm & -mm
                below = used & (low - 1)
                q = 0
                x = low - 1
                while x:  # position of the bit among free ranks
                    x &= x - 1
                    q += 1
                while below:
                    below &= below - 1
                    q -= 1
                j += 1
                rank += binom[q, j]
                mm &= mm - 1
            idx += mult * rank
            mult *= binom[free, k]
            free -= k
            used |= m
        w[8 + i] = idx
    total, mult = 0, 1
    i = 0
    while i < ns:  # suits of equal vectors: their indices ranked as a multiset
        j = i + 1
        while j < ns and cfg_vec[c, j] == cfg_vec[c, i]:
            j += 1
        m = j - i
        for a in range(i + 1, j):  # ascending
            b = a
            while b > i and w[8 + b - 1] > w[8 + b]:
                t = w[8 + b - 1]
                w[8 + b - 1] = w[8 + b]
                w[8 + b] = t
                b -= 1
        rank = 0
        for k in range(m):
            rank += _binom(w[8 + i + k] + k, k + 1)
        total += rank * mult
        mult *= _binom(cfg_S[c, i] + m - 1, m)
        i = j
    return cfg_off[c] + total


@njit(cache=True, nogil=True)
def _largest(k, rem, hi):
    """Largest b in [k - 1, hi] with C(b, k) <= rem (binary search)."""
    lo = k - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _binom(mid, k) <= rem:
            lo = mid
        else:
            hi = mid - 1
    return lo


@njit(cache=True, nogil=True)
def canonical_row(arrays, r, index, out):
    """Write into `out` one hand of round `r` whose canonical index is `index` (the inverse of
    :func:`canonical_index` up to suit permutation)."""
    meta = arrays[0]
    nr, ns, H = meta[0], meta[1], meta[3]
    round_cards, round_groups = arrays[2], arrays[3]
    cfg_off, cfg_vec, cfg_cnt, cfg_S, round_cfg = arrays[6], arrays[7], arrays[8], arrays[9], arrays[10]
    ng = round_groups[r]
    lo, hi = round_cfg[r], round_cfg[r + 1] - 1
    while lo < hi:  # last configuration starting at or before index
        mid = (lo + hi + 1) // 2
        if cfg_off[mid] <= index:
            lo = mid
        else:
            hi = mid - 1
    c = lo
    within = index - cfg_off[c]
    sidx = np.zeros(4, dtype=np.int64)
    i = 0
    while i < ns:
        j = i + 1
        while j < ns and cfg_vec[c, j] == cfg_vec[c, i]:
            j += 1
        m = j - i
        radix = _binom(cfg_S[c, i] + m - 1, m)
        rem = within % radix
        within //= radix
        for k in range(m, 0, -1):
            b = _largest(k, rem, cfg_S[c, i] + m - 1)
            rem -= _binom(b, k)
            sidx[i + k - 1] = b - (k - 1)
        i = j
    pos = np.array([0, H, round_cards[r]])
    fill = pos.copy()
    for s in range(ns):
        idx, used, free = sidx[s], 0, nr
        for g in range(ng):
            k = cfg_cnt[c, s, g]
            radix = _binom(free, k)
            rem = idx % radix
            idx //= radix
            first = fill[g]
            for t in range(k, 0, -1):
                q = _largest(t, rem, free - 1)
                rem -= _binom(q, t)
                p = -1  # the q-th free rank (0-based) of this suit
                while q >= 0:
                    p += 1
                    if not (used >> p) & 1:
                        q -= 1
                out[fill[g]] = p * ns + s
                fill[g] += 1
            for t in range(first, fill[g]):  # mark after the group: positions were relative to `used`
                used |= 1 << (out[t] // ns)
            free -= k
    for g in range(ng):  # ascending within each group
        out[pos[g]:pos[g + 1]] = np.sort(out[pos[g]:pos[g + 1]])


@njit(cache=True, nogil=True, parallel=True)
def _index_rows(arrays, r, cards, out):
    for i in prange(cards.shape[0]):
        out[i] = canonical_index(arrays, r, cards[i])


@njit(cache=True, nogil=True, parallel=True)
def _unindex_rows(arrays, r, ids, out):
    for i in prange(ids.shape[0]):
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
        keys, offs, vecs, cnts, spaces, round_cfg, sizes = [], [], [], [], [], [0], []
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
                while i < ns:
                    j = i
                    while j < ns and ids[j] == ids[i]:
                        j += 1
                    within *= comb(sp[i] + j - i - 1, j - i)
                    i = j
                size += within
            if size >= 2**62:
                raise ConfigError(f"card spec {spec.key()[:4]}: round {r} has too many hands to index in 64 bits")
            sizes.append(size)
            round_cfg.append(len(keys))
        binom = np.array([[comb(n, k) for k in range(16)] for n in range(16)], dtype=np.int64)
        cards = [H + b for b in boards]
        seen = [2 if b else 1 for b in boards]
        self._sizes = tuple(sizes)
        self.arrays = (
            np.array([nr, ns, V, H], dtype=np.int64), binom, np.array(cards, dtype=np.int64),
            np.array(seen, dtype=np.int64), np.array(radix, dtype=np.int64), np.array(keys, dtype=np.int64),
            np.array(offs, dtype=np.int64), np.array(vecs, dtype=np.int64).reshape(-1, ns),
            np.array(cnts, dtype=np.int64).reshape(-1, ns, 2), np.array(spaces, dtype=np.int64).reshape(-1, ns),
            np.array(round_cfg, dtype=np.int64),
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
        out = np.empty(cards.shape[0], dtype=np.int64)
        _index_rows(self.arrays, r, cards, out)
        return out

    def unindex(self, r: int, i) -> np.ndarray:
        """One hand (a row of cards, each group ascending) of canonical index `i` in round `r`;
        for an array of indices, one row each."""
        r = self._round(r)
        ids = np.atleast_1d(np.asarray(i, dtype=np.int64))
        if ids.size and (ids.min() < 0 or ids.max() >= self.size(r)):
            raise ConfigError(f"index out of range 0..{self.size(r) - 1} of round {r}")
        out = np.empty((ids.shape[0], self.spec.cards_in(r)), dtype=np.int64)
        _unindex_rows(self.arrays, r, ids, out)
        return out[0] if np.ndim(i) == 0 else out
