"""Base class of regret rules: how cumulative regrets absorb one iteration's regrets."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from numba import njit

from .params import Param


@njit(cache=True)
def discounted_update(regret, delta, pos_scale, neg_scale, floor):
    """regret = max(scale(regret + delta), floor), scale by sign: the RM/RM+/LCFR/DCFR family."""
    for i in range(regret.shape[0]):
        r = regret[i] + delta[i]
        r = r * pos_scale if r > 0.0 else r * neg_scale
        regret[i] = r if r > floor else floor


class RegretRule:
    """A regret rule; the policy is always regret matching on the positive part.

    Most rules are the discounted family: after adding iteration t's instantaneous regrets,
    positive cumulative regrets are scaled by ``pos_scale``, negative ones by ``neg_scale``,
    and the result is clipped below at ``floor``. Such a rule only overrides
    :meth:`coefficients`; the engine then runs one compiled kernel for every rule. A rule outside
    that family overrides :meth:`update` (vectorised numpy over a flat array, called once per
    segment, never per information set).
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    params: ClassVar[dict[str, Param]] = {}

    def __init__(self, **params):
        self.config = params

    def coefficients(self, t: int) -> tuple[float, float, float]:
        """(pos_scale, neg_scale, floor) applied at iteration t (1-based)."""
        raise NotImplementedError

    def update(self, regret: np.ndarray, delta: np.ndarray, t: int) -> None:
        """In place: fold iteration t's instantaneous regrets `delta` into `regret`."""
        pos, neg, floor = self.coefficients(t)
        discounted_update(regret, delta, float(pos), float(neg), float(floor))
