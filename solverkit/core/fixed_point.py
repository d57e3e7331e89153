"""Fixed-point predictor kernels: values rounded to int32 per block, then coded as zigzag residuals
against a west, north or gradient prediction (small residuals compress well), and back."""

import numpy as np
from .jit import njit


#: predictor modes: what a value is predicted from (its residual is what gets compressed)
PREDICTORS = {"none": 0, "west": 1, "north": 2, "gradient": 3}


@njit(cache=True, nogil=True, inline="always")
def _zigzag(r):
    """int64 residual -> wrapped to int32 -> zigzag uint32 (small magnitudes, small codes)."""
    w = ((r + 0x80000000) & 0xFFFFFFFF) - 0x80000000
    return np.uint32(((w << 1) ^ (w >> 63)) & 0xFFFFFFFF)


@njit(cache=True, nogil=True, inline="always")
def _unzigzag(z, p):
    """Inverse of _zigzag(q - p): the int32 q."""
    r = (z >> 1) ^ -(z & 1)
    return np.int32((((r + p) + 0x80000000) & 0xFFFFFFFF) - 0x80000000)


@njit(cache=True, nogil=True, inline="always")
def _gradient(q, o, no, h, g, A, a):
    """Prediction of value (hand h, action a) from west (hand g, -1: none) + north - northwest,
    the north block at offset no; the first hand has north alone."""
    if g < 0:
        return np.int64(q[no + h * A + a])
    return np.int64(q[o + g * A + a]) + q[no + h * A + a] - q[no + g * A + a]


@njit(cache=True, nogil=True)
def _order_buffer(hands):
    """Scratch for one block's hand order (as long as the largest block)."""
    hmax = 1
    for b in range(hands.shape[0]):
        hmax = max(hmax, hands[b])
    return np.empty(hmax, dtype=np.int64)


@njit(cache=True, nogil=True)
def _block_order(order, orders, b, H, out):
    if order[b] < 0:
        for j in range(H):
            out[j] = j
    else:
        row = order[b]
        for j in range(H):
            out[j] = orders[row, j]


@njit(cache=True, nogil=True, inline="always")
def _visit_block(vb, visit, mode, offset, hands, actions, north):
    """(block, actions, hands, offset, values, north block, north offset) of the vb-th block
    coded: blocks go in `visit` order where a north prediction needs it, else in index order."""
    b = visit[vb] if mode >= 2 else vb
    A = actions[b]
    H = hands[b]
    nb = north[b] if mode >= 2 else -1
    return b, A, H, offset[b], H * A, nb, (offset[nb] if nb >= 0 else 0)


@njit(cache=True, nogil=True)
def _encode_fixed(x, offset, hands, actions, north, rnd, order, orders, visit, scales, mode, q, res):
    """Block by block: q = round(x * scale) saturated to int32, then the zigzag residual of q
    against its prediction into res (mode 0 none: q's bits; 1 west: the previous hand in the
    block's order; 2 north: the same value in the north block, layout order; 3 gradient:
    west + north - northwest), blocks in `visit` order. Returns the number of saturated values.
    Arithmetic on residuals wraps modulo 2^32, so decoding is exact whatever the values."""
    sat = 0
    pos = 0
    ordv = _order_buffer(hands)
    for vb in range(visit.shape[0]):
        b, A, H, o, n, nb, no = _visit_block(vb, visit, mode, offset, hands, actions, north)
        s = scales[rnd[b]]
        for i in range(o, o + n):
            v = np.rint(x[i] * s)
            c = min(max(v, -2147483647.0), 2147483647.0)
            if c != v:
                sat += 1
            q[i] = np.int32(c)
        if mode == 0:
            for i in range(n):
                res[pos + i] = np.uint32(np.int64(q[o + i]) & 0xFFFFFFFF)
        elif mode == 2:
            if nb >= 0:
                for i in range(n):
                    res[pos + i] = _zigzag(np.int64(q[o + i]) - q[no + i])
            else:
                for i in range(n):
                    res[pos + i] = _zigzag(np.int64(q[o + i]))
        elif nb < 0:  # west only: differences along the block's hand order
            _block_order(order, orders, b, H, ordv)
            g = o + ordv[0] * A
            for a in range(A):
                res[pos + a] = _zigzag(np.int64(q[g + a]))
            k = pos + A
            for j in range(1, H):
                h = o + ordv[j] * A
                for a in range(A):
                    res[k + a] = _zigzag(np.int64(q[h + a]) - q[g + a])
                g = h
                k += A
        else:
            _block_order(order, orders, b, H, ordv)
            k = pos
            for j in range(H):
                h = ordv[j]
                g = ordv[j - 1] if j > 0 else -1
                for a in range(A):
                    res[k] = _zigzag(q[o + h * A + a] - _gradient(q, o, no, h, g, A, a))
                    k += 1
        pos += n
    return sat


@njit(cache=True, nogil=True)
def _decode_fixed(res, offset, hands, actions, north, rnd, order, orders, visit, scales, mode, q, x):
    """Inverse of _encode_fixed: q from the residuals, then x = q * (1 / scale). West-only
    blocks run as a prefix sum per action with the running value in a register."""
    pos = 0
    ordv = _order_buffer(hands)
    for vb in range(visit.shape[0]):
        b, A, H, o, n, nb, no = _visit_block(vb, visit, mode, offset, hands, actions, north)
        if mode == 0:
            for i in range(n):
                q[o + i] = np.int32(((np.int64(res[pos + i]) + 0x80000000) & 0xFFFFFFFF) - 0x80000000)
        elif mode == 2:
            if nb >= 0:
                for i in range(n):
                    q[o + i] = _unzigzag(np.int64(res[pos + i]), np.int64(q[no + i]))
            else:
                for i in range(n):
                    q[o + i] = _unzigzag(np.int64(res[pos + i]), np.int64(0))
        elif nb < 0:  # west only: q along the order is a running sum of the residuals
            _block_order(order, orders, b, H, ordv)
            for a in range(A):
                acc = np.int64(0)
                for j in range(H):
                    acc = _wrap_add(acc, np.int64(res[pos + j * A + a]))
                    q[o + ordv[j] * A + a] = np.int32(acc)
        else:
            _block_order(order, orders, b, H, ordv)
            k = pos
            for j in range(H):
                h = ordv[j]
                g = ordv[j - 1] if j > 0 else -1
                for a in range(A):
                    q[o + h * A + a] = _unzigzag(np.int64(res[k]), _gradient(q, o, no, h, g, A, a))
                    k += 1
        inv = 1.0 / scales[rnd[b]]
        for i in range(o, o + n):
            x[i] = q[i] * inv
        pos += n


@njit(cache=True, nogil=True, inline="always")
def _quantize(v, s):
    """(q, saturated): round(v * s) clamped to the int32 range, and 1 where it was clamped."""
    r = np.rint(v * s)
    c = min(max(r, -2147483647.0), 2147483647.0)
    return np.int64(c), np.int64(c != r)


@njit(cache=True, nogil=True, inline="always")
def _wrap_add(acc, z):
    """acc + unzigzag(z), wrapped to int32 (held in an int64)."""
    return (((acc + ((z >> 1) ^ -(z & 1))) + 0x80000000) & 0xFFFFFFFF) - 0x80000000


@njit(cache=True, nogil=True)
def _encode_west(x, offset, hands, actions, rnd, order, orders, scales, res):
    """Mode 1 (west) of _encode_fixed, specialised: each block is quantized in one sequential
    sweep into an L1-sized scratch, then walked in its hand order with the previous hand's values
    in registers (2 and 3 actions; a generic loop otherwise). Same residuals, about 1.8x faster:
    gathering from the array itself in hand order misses the cache on every hand."""
    sat = 0
    pos = 0
    nmax = 1
    for b in range(offset.shape[0]):
        nmax = max(nmax, hands[b] * actions[b])
    qb = np.empty(nmax, dtype=np.int64)
    prev = np.zeros(nmax, dtype=np.int64)
    for b in range(offset.shape[0]):
        A = actions[b]
        H = hands[b]
        o = offset[b]
        s = scales[rnd[b]]
        row = order[b]
        for i in range(H * A):
            qb[i], over = _quantize(x[o + i], s)
            sat += over
        if A == 2:
            p0 = p1 = np.int64(0)
            for j in range(H):
                h = (orders[row, j] if row >= 0 else j) * 2
                q0, q1 = qb[h], qb[h + 1]
                res[pos], res[pos + 1] = _zigzag(q0 - p0), _zigzag(q1 - p1)
                p0, p1 = q0, q1
                pos += 2
        elif A == 3:
            p0 = p1 = p2 = np.int64(0)
            for j in range(H):
                h = (orders[row, j] if row >= 0 else j) * 3
                q0, q1, q2 = qb[h], qb[h + 1], qb[h + 2]
                res[pos], res[pos + 1], res[pos + 2] = _zigzag(q0 - p0), _zigzag(q1 - p1), _zigzag(q2 - p2)
                p0, p1, p2 = q0, q1, q2
                pos += 3
        else:
            for a in range(A):
                prev[a] = 0
            for j in range(H):
                h = (orders[row, j] if row >= 0 else j) * A
                for a in range(A):
                    res[pos] = _zigzag(qb[h + a] - prev[a])
                    prev[a] = qb[h + a]
                    pos += 1
    return sat


@njit(cache=True, nogil=True)
def _decode_west(res, offset, hands, actions, rnd, order, orders, scales, x):
    """Inverse of _encode_west: a running int32 sum per action along the block's hand order
    (in registers for 2 and 3 actions), written straight to float64."""
    pos = 0
    amax = 1
    for b in range(offset.shape[0]):
        amax = max(amax, actions[b])
    acc = np.zeros(amax, dtype=np.int64)
    for b in range(offset.shape[0]):
        A = actions[b]
        H = hands[b]
        o = offset[b]
        inv = 1.0 / scales[rnd[b]]
        row = order[b]
        if A == 2:
            a0 = a1 = np.int64(0)
            for j in range(H):
                h = o + (orders[row, j] if row >= 0 else j) * 2
                a0, a1 = _wrap_add(a0, np.int64(res[pos])), _wrap_add(a1, np.int64(res[pos + 1]))
                x[h], x[h + 1] = a0 * inv, a1 * inv
                pos += 2
        elif A == 3:
            a0 = a1 = a2 = np.int64(0)
            for j in range(H):
                h = o + (orders[row, j] if row >= 0 else j) * 3
                a0 = _wrap_add(a0, np.int64(res[pos]))
                a1 = _wrap_add(a1, np.int64(res[pos + 1]))
                a2 = _wrap_add(a2, np.int64(res[pos + 2]))
                x[h], x[h + 1], x[h + 2] = a0 * inv, a1 * inv, a2 * inv
                pos += 3
        else:
            for a in range(A):
                acc[a] = 0
            for j in range(H):
                h = o + (orders[row, j] if row >= 0 else j) * A
                for a in range(A):
                    acc[a] = _wrap_add(acc[a], np.int64(res[pos]))
                    x[h + a] = acc[a] * inv
                    pos += 1


@njit(cache=True, nogil=True)
def _round_in_place(x, offset, hands, actions, rnd, scales):
    """x = decode(encode(x)) without the predictor or the compressor: each value rounded to its
    block's fixed point and saturated as _encode_west does, then multiplied by 1 / scale as
    _decode_west does (the same operations, so the same doubles). Returns the number saturated
    and the largest |value| in stored units among them (0.0: none)."""
    sat = 0
    peak = 0.0
    for b in range(offset.shape[0]):
        s = scales[rnd[b]]
        inv = 1.0 / s
        o = offset[b]
        for i in range(o, o + hands[b] * actions[b]):
            q, over = _quantize(x[i], s)
            if over:
                sat += 1
                peak = max(peak, abs(x[i]) * s)
            x[i] = np.int32(q) * inv
    return sat, peak
