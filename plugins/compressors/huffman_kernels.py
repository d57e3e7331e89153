"""Kernels of the huffman compressor: 32-bit words coded as (bit length, extra bits).

A word x of bit length b (0 for x = 0) is coded as the Huffman code of b, then, for b >= 2, its
b - 1 bits below the leading one as they are. Residuals of a good predictor are mostly small,
so the 33 classes carry nearly all the information and the extra bits are close to uniform:
order-0 entropy of real store residuals is within 5% of this code (bench/store_codecs.py).
Bits go least significant first into little-endian 32-bit words; codes are canonical and
bit-reversed, so a decoder peeks LIMIT bits and looks the class up in one table.
"""

from __future__ import annotations

import heapq

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros

#: classes: bit lengths 0..32
CLASSES = 33
#: longest code: the decode table has 2**LIMIT entries
LIMIT = 12
NO_CLASS = 255
#: a decode-table window that starts no code (no bits consumed, flagged by bit 24)
NO_ENTRY = np.uint64(1 << 24)


@njit(cache=True, nogil=True, inline="always")
def _bitlen(x):
    return 32 - leading_zeros(x)


@njit(cache=True, nogil=True)
def class_counts(v):
    """How many words of each bit length 0..32."""
    c = np.zeros(CLASSES, dtype=np.int64)
    for i in range(v.size):
        c[_bitlen(v[i])] += 1
    return c


@njit(cache=True, nogil=True)
def encode_words(v, codes, lengths, out):
    """Write each word's class code and extra bits into `out` (sized by the caller from the
    counts: exactly the bits needed, rounded up to words); returns the words written."""
    acc = np.uint64(0)
    nb = np.uint64(0)
    pos = 0
    thirty_two = np.uint64(32)
    low = np.uint64(0xFFFFFFFF)
    one = np.uint64(1)
    for i in range(v.size):
        x = np.uint64(v[i])
        b = _bitlen(v[i])
        ln = np.uint64(lengths[b])
        c = np.uint64(codes[b])
        e = np.uint64(b - 1) if b > 1 else np.uint64(0)
        extra = x & ((one << e) - one)
        if ln + e <= thirty_two:
            acc |= (c | (extra << ln)) << nb
            nb += ln + e
            if nb >= thirty_two:
                out[pos] = np.uint32(acc & low)
                pos += 1
                acc >>= thirty_two
                nb -= thirty_two
        else:
            acc |= c << nb
            nb += ln
            if nb >= thirty_two:
                out[pos] = np.uint32(acc & low)
                pos += 1
                acc >>= thirty_two
                nb -= thirty_two
            acc |= extra << nb
            nb += e
            if nb >= thirty_two:
                out[pos] = np.uint32(acc & low)
                pos += 1
                acc >>= thirty_two
                nb -= thirty_two
    if nb > 0:
        out[pos] = np.uint32(acc & low)
        pos += 1
    return pos


@njit(cache=True, nogil=True)
def decode_words(words, table, out):
    """Inverse of encode_words into `out` (its size is the number of words coded). Returns 0,
    or -1 when a window starts no code or the stream ends before `out` is full (a decoder of
    untrusted bytes: it never reads past `words`). Measured against two and four interleaved
    streams, with and without branches: this plain loop was as fast as any."""
    nw = words.size
    buf = np.uint64(0)
    nb = np.uint64(0)
    pos = 0  # words taken, counting the zeros read past the end
    thirty_two = np.uint64(32)
    one = np.uint64(1)
    mask = np.uint64((1 << LIMIT) - 1)
    low8 = np.uint64(0xFF)
    eight = np.uint64(8)
    sixteen = np.uint64(16)
    for i in range(out.size):
        if nb < thirty_two:
            if pos < nw:
                buf |= np.uint64(words[pos]) << nb
            pos += 1
            nb += thirty_two
        entry = table[buf & mask]
        if entry >= NO_ENTRY:
            return -1
        ln = entry & low8
        buf >>= ln
        nb -= ln
        e = (entry >> eight) & low8  # bits below the leading one
        if nb < e:
            if pos < nw:
                buf |= np.uint64(words[pos]) << nb
            pos += 1
            nb += thirty_two
        out[i] = np.uint32(((entry >> sixteen) << e) | (buf & ((one << e) - one)))
        buf >>= e
        nb -= e
    if pos > nw and (pos - nw) * 32 > np.int64(nb):  # bits taken from past the end
        return -1
    return 0


def code_lengths(counts, limit: int = LIMIT) -> np.ndarray:
    """Huffman code length per class (0: unused), none longer than `limit`: counts are halved
    (keeping every used class) until the longest code fits. One used class gets length 0."""
    counts = np.asarray(counts, dtype=np.int64)
    used = np.flatnonzero(counts)
    lengths = np.zeros(counts.size, dtype=np.uint8)
    if used.size <= 1:
        return lengths
    if used.size > (1 << limit):
        raise ValueError(f"{used.size} classes need codes longer than {limit} bits")
    work = counts[used].copy()
    while True:
        heap = [(int(c), i, (i,)) for i, c in enumerate(work)]  # i breaks ties deterministically
        heapq.heapify(heap)
        depth = np.zeros(used.size, dtype=np.int64)
        while len(heap) > 1:
            c1, t1, s1 = heapq.heappop(heap)
            c2, t2, s2 = heapq.heappop(heap)
            for j in s1 + s2:
                depth[j] += 1
            heapq.heappush(heap, (c1 + c2, min(t1, t2), s1 + s2))
        if depth.max() <= limit:
            lengths[used] = depth
            return lengths
        work = (work + 1) // 2


def canonical_codes(lengths) -> np.ndarray:
    """Canonical codes for `lengths` (shorter first, then by class), bit-reversed so that they
    are read least significant bit first."""
    lengths = np.asarray(lengths)
    codes = np.zeros(lengths.size, dtype=np.uint32)
    code, prev = 0, 0
    for b in sorted(np.flatnonzero(lengths), key=lambda s: (lengths[s], s)):
        ln = int(lengths[b])
        code <<= ln - prev
        prev = ln
        codes[b] = int(f"{code:0{ln}b}"[::-1], 2)
        code += 1
    return codes


def decode_table(lengths, only: int) -> np.ndarray:
    """For every LIMIT-bit window, the code it starts with as one uint64: code length (bits
    0-7), extra bits to read (8-15) and the leading one (bit 16: 1 for every class but 0);
    NO_ENTRY (bit 24 alone) where no code matches. `only`: the one class used when every length is 0 (its code
    is empty), else NO_CLASS."""
    def entry(b, ln):
        return ln | (max(b - 1, 0) << 8) | (int(b > 0) << 16)

    table = np.full(1 << LIMIT, NO_ENTRY, dtype=np.uint64)
    if only != NO_CLASS:
        table[:] = entry(only, 0)
        return table
    codes = canonical_codes(lengths)
    for b in np.flatnonzero(lengths):
        ln = int(lengths[b])
        table[int(codes[b]) + (np.arange(1 << (LIMIT - ln), dtype=np.int64) << ln)] = entry(int(b), ln)
    return table
