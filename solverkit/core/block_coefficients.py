"""Per-iteration kernel coefficients of a whole block of iterations at once: a rule or averaging
scheme may give them as numpy arrays (``_block``), used only while the methods that define them
per iteration are the ones written beside it, so that a subclass overriding ``coefficients``
falls back to one call per iteration instead of silently inheriting the wrong arrays."""

from __future__ import annotations

import functools

import numpy as np


def owner(cls: type, name: str) -> type | None:
    """The class of `cls`'s MRO that defines attribute `name`, or None."""
    for c in cls.__mro__:
        if name in c.__dict__:
            return c
    return None


def block_valid(obj, base: type, names: tuple[str, ...]) -> bool:
    """True when `obj`'s ``_block`` is written in the class that defines each method of `names`
    (or that method is `base`'s own)."""
    return _block_valid(type(obj), base, names)


@functools.lru_cache(maxsize=256)
def _block_valid(cls: type, base: type, names: tuple[str, ...]) -> bool:
    fast = owner(cls, "_block")
    if fast is None or fast is base:
        return False
    return all(owner(cls, n) in (fast, base) for n in names)


def per_iteration(fn, first: int, count: int, width: int) -> np.ndarray:
    """fn(t) for t = first .. first + count - 1, stacked as a [count, width] float64 array."""
    return np.array([fn(t) for t in range(first, first + count)], dtype=np.float64).reshape(count, width)
