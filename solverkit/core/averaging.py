"""Base class of averaging schemes: the weight of iteration t in the average strategy."""

from __future__ import annotations

from typing import Callable, ClassVar

import numpy as np

from ..errors import PluginError
from .arith import scaled_accumulate
from .block_coefficients import block_valid, per_iteration
from .params import Param

#: averaging families: "linear" schemes are (decay, weight) applied inside the kernels;
#: "custom" schemes override :meth:`Averaging.update` (called once per array after a pass)
FAMILIES = ("linear", "custom")


class Averaging:
    """An averaging scheme: cumulative strategy S <- S * decay(t) + weight(t) * reach * sigma.

    Schemes of the ``linear`` family override :meth:`coefficients` only; the engines apply
    them inside their kernels. A ``custom`` scheme overrides :meth:`update` (vectorised over a
    flat array). ``keeps_average = False`` (the ``current`` scheme) means no average is stored
    at all and the current strategy is the solver's output.
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    params: ClassVar[dict[str, Param]] = {}
    keeps_average: ClassVar[bool] = True
    #: "linear" (coefficients inside the kernels) or "custom" (:meth:`update` after a pass)
    family: ClassVar[str] = "linear"
    #: alternating updates: a pass adds to the updating player's own average (the strategy it
    #: played; ``[solver] average_pass = "own"``) instead of the previous player's (set by the config)
    own_pass: bool = False
    #: optional: the kernel coefficients of iterations ts as arrays (core/block_coefficients.py; an
    #: annotation only, so that block_valid finds the class that writes one)
    _block: Callable[[np.ndarray], np.ndarray]

    def __init__(self, **params):
        self.config = params

    def coefficients(self, t: int) -> tuple[float, float]:
        """(decay, weight) for iteration t (1-based)."""
        raise NotImplementedError

    def coefficients_block(self, first: int, count: int) -> np.ndarray:
        """[count, 2]: :meth:`coefficients` of iterations first .. first + count - 1 (a scheme may
        write them as arrays in ``_block(ts)``; see core/block_coefficients.py)."""
        if block_valid(self, Averaging, ("coefficients",)):
            return self._block(np.arange(first, first + count, dtype=np.int64))
        return per_iteration(self.coefficients, first, count, 2)

    def update(self, total: np.ndarray, contrib: np.ndarray, t: int) -> None:
        """In place: add iteration t's reach-weighted strategy `contrib` to `total`."""
        decay, weight = self.coefficients(t)
        if weight == 0.0 and decay == 1.0:
            return
        scaled_accumulate(total, contrib, float(decay), float(weight))

    @property
    def inline(self) -> bool:
        """True when kernels apply (decay, weight) themselves."""
        return self.family == "linear"


def check_averaging_class(cls) -> None:
    """Refuse an averaging class whose declarations contradict each other (at registration)."""
    where = f"averaging {cls.name!r} ({cls.__module__}.{cls.__qualname__})"
    if cls.family not in FAMILIES:
        raise PluginError(f"{where}: family = {cls.family!r}; valid: {', '.join(FAMILIES)}")
    if cls.family == "custom" and cls.update is Averaging.update:
        raise PluginError(f"{where}: family 'custom' must implement update(total, contrib, t)")
