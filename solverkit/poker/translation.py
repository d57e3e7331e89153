"""Action translation: an opponent's bet or raise that the agent's action abstraction lacks is
mapped to one of the abstraction's sizes, here by the pseudo-harmonic mapping (Ganzfried and
Sandholm, IJCAI 2013), the least exploitable of the published mappings.

Sizes are fractions of the pot (a raise: of the pot after the raiser's call). An off-tree size
x between the abstraction's neighbours A < x < B maps to A with probability
f(x) = (B - x)(1 + A) / ((B - A)(1 + x)), else to B; below the smallest size to the smallest,
above the largest to the largest. The mapping is a pure function of x and the sizes; the draw
takes a numpy Generator, so a seeded agent translates the same way every time.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from ..errors import SolverkitError


def pseudo_harmonic(x: float, a: float, b: float) -> float:
    """The probability that size x maps to the smaller neighbour a (not b), for 0 <= a < b and
    a <= x <= b: f(x) = (b - x)(1 + a) / ((b - a)(1 + x)); f(a) = 1, f(b) = 0."""
    for name, v in (("x", x), ("A", a), ("B", b)):
        if not isinstance(v, (int, float, np.integer, np.floating)) or not math.isfinite(v):
            raise SolverkitError(f"pseudo-harmonic mapping: {name} = {v!r} is not a finite number")
    if not 0 <= a < b:
        raise SolverkitError(f"pseudo-harmonic mapping: sizes A = {a!r}, B = {b!r}: expected 0 <= A < B "
                             "(fractions of the pot)")
    if not a <= x <= b:
        raise SolverkitError(f"pseudo-harmonic mapping: x = {x!r} is not between A = {a!r} and B = {b!r}")
    return (b - x) * (1 + a) / ((b - a) * (1 + x))


def translation_probabilities(x: float, sizes: Sequence[float]) -> np.ndarray:
    """The probability of each of the abstraction's `sizes` (fractions of the pot, strictly
    increasing) for an opponent's size x: all on the smallest below it, on the largest above it,
    on an equal size, else split between the two neighbours by :func:`pseudo_harmonic`."""
    s = np.asarray(sizes, dtype=np.float64)
    if s.ndim != 1 or s.size == 0:
        raise SolverkitError(f"translation: sizes {list(sizes)!r}: expected at least one size")
    if not np.all(np.isfinite(s)) or np.any(s < 0) or np.any(np.diff(s) <= 0):
        raise SolverkitError(f"translation: sizes {list(sizes)!r}: expected finite fractions of the pot >= 0, "
                             "strictly increasing")
    if not math.isfinite(x):
        raise SolverkitError(f"translation: size x = {x!r} is not a finite number")
    out = np.zeros(s.size)
    if x <= s[0]:
        out[0] = 1.0
    elif x >= s[-1]:
        out[-1] = 1.0
    else:
        hi = int(np.searchsorted(s, x, side="left"))  # s[hi - 1] < x <= s[hi]
        if s[hi] == x:
            out[hi] = 1.0
        else:
            p = pseudo_harmonic(float(x), float(s[hi - 1]), float(s[hi]))
            out[hi - 1], out[hi] = p, 1.0 - p
    return out


def translate(x: float, sizes: Sequence[float], rng: np.random.Generator) -> int:
    """The index of the size x maps to, drawn from :func:`translation_probabilities` (one
    uniform draw from `rng` only where two sizes are possible)."""
    probs = translation_probabilities(x, sizes)
    nz = np.flatnonzero(probs)
    if nz.size == 1:
        return int(nz[0])
    return int(nz[0]) if rng.random() < probs[nz[0]] else int(nz[1])
