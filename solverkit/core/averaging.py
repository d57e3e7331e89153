"""Base class of averaging schemes: the weight of iteration t in the average strategy."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from numba import njit

from .params import Param


@njit(cache=True)
def scaled_accumulate(total, contrib, decay, weight):
    """total = total * decay + weight * contrib, elementwise."""
    if decay == 1.0:
        for i in range(total.shape[0]):
            total[i] += weight * contrib[i]
    else:
        for i in range(total.shape[0]):
            total[i] = total[i] * decay + weight * contrib[i]


class Averaging:
    """An averaging scheme: cumulative strategy S <- S * decay(t) + weight(t) * reach * sigma.

    Schemes override :meth:`coefficients`. ``keeps_average = False`` (the ``current`` scheme)
    means no average is stored at all and the current strategy is the solver's output.
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    params: ClassVar[dict[str, Param]] = {}
    keeps_average: ClassVar[bool] = True

    def __init__(self, **params):
        self.config = params

    def coefficients(self, t: int) -> tuple[float, float]:
        """(decay, weight) for iteration t (1-based)."""
        raise NotImplementedError

    def update(self, total: np.ndarray, contrib: np.ndarray, t: int) -> None:
        """In place: add iteration t's reach-weighted strategy `contrib` to `total`."""
        decay, weight = self.coefficients(t)
        if weight == 0.0 and decay == 1.0:
            return
        scaled_accumulate(total, contrib, float(decay), float(weight))
