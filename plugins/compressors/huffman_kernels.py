"""Kernels of the huffman compressor: 32-bit words coded as (bit length, extra bits).

A word x of bit length b (0 for x = 0) is coded as the Huffman code of b, then, for b >= 2, its
b - 1 bits below the leading one as they are. Residuals of a good predictor are mostly small,
so the 33 classes carry nearly all the information and the extra bits are close to uniform:
on real Rhode Island residuals this code is within 5% of their order-0 entropy (3.73 against
3.55 bits per regret residual, 5.24 against 5.17 per average residual, after 150 iterations).
Bits go least significant first into little-endian 32-bit words; codes are canonical and
bit-reversed, so a decoder peeks LIMIT bits and looks the class up in one table.
"""

from __future__ import annotations

import numpy as np

from solverkit.core import jit
from solverkit.core.jit import njit

leading_zeros = None  # numba's intrinsic, bound once numba starts (the kernels compile after that)


def _bind_intrinsics() -> None:
    global leading_zeros
    from numba.cpython.unsafe.numbers import leading_zeros


jit.on_start(_bind_intrinsics)

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
    counts: exactly the bits needed, rounded up to words); returns the words written. The
    word flush is written out three times on purpose: a helper returning (pos, acc, nb), even
    inlined, made encoding 1.7x slower (measured on Rhode Island residuals)."""
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
    n = out.size
    i = 0
    while i < n:
        if nb < thirty_two:
            if pos < nw:
                buf |= np.uint64(words[pos]) << nb
            pos += 1
            nb += thirty_two
        entry = table[buf & mask]
        if entry & NO_ENTRY:
            return -1
        run = np.int64((entry >> thirty_two) & low8)
        if run >= 2 and i + run <= n:  # a run of zeros, several codes at once
            for k in range(run):
                out[i + k] = 0
            i += run
            ln = (entry >> np.uint64(40)) & low8
            buf >>= ln
            nb -= ln
            continue
        ln = entry & low8
        buf >>= ln
        nb -= ln
        e = (entry >> eight) & low8  # bits below the leading one
        if nb < e:
            if pos < nw:
                buf |= np.uint64(words[pos]) << nb
            pos += 1
            nb += thirty_two
        out[i] = np.uint32((((entry >> sixteen) & one) << e) | (buf & ((one << e) - one)))
        buf >>= e
        nb -= e
        i += 1
    if pos > nw and (pos - nw) * 32 > np.int64(nb):  # bits taken from past the end
        return -1
    return 0


@njit(cache=True, nogil=True)
def _huffman_depths(weights):
    """Huffman code lengths of `weights` (all > 0, at least two): merge the two lightest of the
    nodes left (ties: the lower node number) until one is left."""
    n = weights.size
    weight = np.zeros(2 * n, dtype=np.int64)
    parent = np.full(2 * n, -1, dtype=np.int64)
    alive = np.zeros(2 * n, dtype=np.bool_)
    weight[:n] = weights
    alive[:n] = True
    for node in range(n, 2 * n - 1):
        a = -1
        b = -1
        for j in range(node):
            if alive[j]:
                if a < 0 or weight[j] < weight[a]:
                    b = a
                    a = j
                elif b < 0 or weight[j] < weight[b]:
                    b = j
        weight[node] = weight[a] + weight[b]
        parent[a] = node
        parent[b] = node
        alive[a] = False
        alive[b] = False
        alive[node] = True
    depth = np.zeros(n, dtype=np.int64)
    for j in range(n):
        k = j
        while parent[k] >= 0:
            depth[j] += 1
            k = parent[k]
    return depth


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
        depth = _huffman_depths(work)
        if depth.max() <= limit:
            lengths[used] = depth
            return lengths
        work = (work + 1) // 2


@njit(cache=True, nogil=True)
def canonical_codes(lengths):
    """Canonical codes for `lengths` (shorter first, then by class), bit-reversed so that they
    are read least significant bit first."""
    codes = np.zeros(lengths.size, dtype=np.uint32)
    code = 0
    prev = 0
    for ln in range(1, LIMIT + 1):
        for b in range(lengths.size):
            if lengths[b] == ln:
                code <<= ln - prev
                prev = ln
                rev = 0
                for k in range(ln):
                    rev |= ((code >> k) & 1) << (ln - 1 - k)
                codes[b] = rev
                code += 1
    return codes


@njit(cache=True, nogil=True)
def decode_table(lengths, only):
    """For every LIMIT-bit window, the code it starts with as one uint64: code length (bits
    0-7), extra bits to read (8-15), the leading one (bit 16: 1 for every class but 0), and how
    many codes of class 0 the window starts with (bits 32-39) and their bits (40-47), so that
    runs of zeros decode several at a time; NO_ENTRY (bit 24 alone) where no code matches.
    `only`: the one class used when every length is 0 (its code is empty), else NO_CLASS."""
    size = 1 << LIMIT
    table = np.full(size, NO_ENTRY, dtype=np.uint64)
    if only != NO_CLASS:
        e = max(only - 1, 0) << 8 | (1 << 16 if only > 0 else 0)
        table[:] = e
        return table
    codes = canonical_codes(lengths)
    for b in range(lengths.size):
        ln = np.int64(lengths[b])
        if ln == 0:
            continue
        e = ln | (max(b - 1, 0) << 8) | (1 << 16 if b > 0 else 0)
        for k in range(1 << (LIMIT - ln)):
            table[np.int64(codes[b]) + (k << ln)] = e
    z = np.int64(lengths[0])
    if 0 < z <= LIMIT // 2:  # runs of two or more zero codes fit in a window
        zc = np.int64(codes[0])
        cap = LIMIT // z - 1  # zero codes that fit after the first
        runs = np.zeros(size, dtype=np.int64)
        for idx in range(size):  # idx >> z < idx: its run is known (a window shifted by one code)
            if idx & ((1 << z) - 1) == zc:
                runs[idx] = 1 + min(runs[idx >> z], cap)
            table[idx] |= np.uint64(runs[idx] << 32 | (runs[idx] * z) << 40)
    return table
