"""A counter-based random stream: every draw is a hash of its key, never of call order.

A sampler's draw at a node is ``uniform(stream(seed, iteration, player, subgame), node)``: the
splitmix64 finaliser (Steele, Lea and Flood 2014) applied to the key, so that the same key gives
the same number in any process, in any order, after any resume, and there is no global RNG state
to save in a checkpoint or to keep in step between a trunk and its workers. Keys that differ in
any field give independent-looking numbers (each field passes through the full mixer).
"""

from __future__ import annotations

import numpy as np
from .jit import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)
#: 2^-53: a 53-bit integer times this is a double in [0, 1)
_UNIT = 1.0 / 9007199254740992.0


@njit(cache=True, nogil=True, inline="always")
def mix64(x):
    """splitmix64's finaliser: a bijection of uint64 whose output bits all depend on every input bit."""
    x = (x ^ (x >> _S30)) * _M1
    x = (x ^ (x >> _S27)) * _M2
    return x ^ (x >> _S31)


@njit(cache=True, nogil=True, inline="always")
def stream(seed, iteration, player, subgame):
    """The key of one pass's draws: (seed, iteration, player, subgame) mixed into one uint64."""
    h = mix64(np.uint64(seed) + _GOLDEN)
    h = mix64(h ^ (np.uint64(iteration) * _GOLDEN))
    h = mix64(h ^ (np.uint64(player) + _GOLDEN))
    return mix64(h ^ (np.uint64(subgame) * _M1 + _GOLDEN))


@njit(cache=True, nogil=True, inline="always")
def uniform(key, node):
    """The draw of `node` (an int >= 0) in stream `key`: a double in [0, 1) with 53 random bits."""
    x = mix64(key ^ mix64(np.uint64(node) * _M2 + _GOLDEN))
    return float(x >> _S11) * _UNIT


@njit(cache=True, nogil=True, inline="always")
def pick(u, w, base, n):
    """Index a in [0, n) drawn with probabilities w[base + a] (summing to 1) from uniform u; an
    action of probability 0 is never picked, whatever the rounding of the cumulative sum."""
    c = 0.0
    last = 0
    for a in range(n):
        p = w[base + a]
        if p > 0.0:
            c += p
            last = a
            if u < c:
                return a
    return last


@njit(cache=True, nogil=True)
def draws(seed, iteration, player, subgame, nodes):
    """uniform(stream(...), node) for each of `nodes` (for tests and Python callers)."""
    key = stream(seed, iteration, player, subgame)
    out = np.empty(nodes.shape[0])
    for i in range(nodes.shape[0]):
        out[i] = uniform(key, nodes[i])
    return out
