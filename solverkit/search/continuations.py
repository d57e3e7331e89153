"""Continuation strategies of depth-limited search (Brown, Sandholm & Amos 2018; Pluribus): at a
leaf the opponent picks, per hand, how it plays the rest of the game: the blueprint, or the
blueprint biased toward one class of actions (that class's probabilities multiplied by `bias`,
then renormalised). Also the checks of the depth-limited settings."""

from __future__ import annotations

import numpy as np

from ..errors import ConfigError
from ..poker.betting_states import ALLIN_K, CALL_K, FOLD_K, RAISE_K

#: name -> the edge kinds it biases toward (None: the blueprint as it is)
CONTINUATIONS = {"blueprint": None, "fold": (FOLD_K,), "call": (CALL_K,), "raise": (RAISE_K, ALLIN_K)}
DEFAULT_CONTINUATIONS = ("blueprint", "fold", "call", "raise")


def check_options(depth, continuations, bias) -> tuple:
    """(depth, continuations as a tuple, bias) checked: a one-line ConfigError naming a bad value
    and the valid choices."""
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
        raise ConfigError(f"[search] depth = {depth!r} is invalid: expected an integer >= 1 (betting rounds "
                          "re-solved before the leaves)")
    if isinstance(continuations, str) or not isinstance(continuations, (list, tuple)) or not continuations:
        raise ConfigError(f"[search] continuations = {continuations!r} is invalid: expected a non-empty list of "
                          f"names from {', '.join(CONTINUATIONS)}")
    for c in continuations:
        if c not in CONTINUATIONS:
            raise ConfigError(f"[search] continuations: {c!r} is not a continuation strategy; valid: "
                              f"{', '.join(CONTINUATIONS)}")
    if len(set(continuations)) != len(continuations):
        raise ConfigError(f"[search] continuations = {list(continuations)!r} names one strategy twice; each of "
                          f"{', '.join(CONTINUATIONS)} at most once")
    if isinstance(bias, bool) or not isinstance(bias, (int, float, np.floating)) or not np.isfinite(bias) \
            or bias <= 0:
        raise ConfigError(f"[search] bias = {bias!r} is invalid: expected a finite number > 0 (the factor on the "
                          "biased class's probabilities; 5 in Brown et al. 2018)")
    return int(depth), tuple(continuations), float(bias)


def biased(game, region, p: int, seg: np.ndarray, name: str, bias: float) -> np.ndarray:
    """Player p's policy `seg` (over `region`'s layout) biased toward continuation `name`'s
    actions: their probabilities times `bias`, each row renormalised (a row summing to zero
    is uniform first, as regret matching plays it)."""
    kinds = CONTINUATIONS[name]
    if kinds is None:
        return seg
    bet = game.tree.bet
    H = game.tree.hands_of(p)
    nodes = region.units[p][0]
    A = bet.num_actions[nodes].astype(np.int64)
    size = H * A
    unit = np.repeat(np.arange(nodes.size), size)
    pos = np.arange(unit.size) - np.repeat(np.cumsum(size) - size, size)
    action = pos % A[unit]
    row = np.repeat(np.cumsum(H * np.ones_like(A)) - H, size) + pos // A[unit]
    assert unit.size == seg.size, "a segment of another region"
    x = np.where(seg > 0.0, seg, 0.0)
    sums = np.bincount(row, weights=x, minlength=H * nodes.size)
    x = np.where(sums[row] > 0.0, x, 1.0)  # an all-zero row plays uniformly
    x = x * np.where(np.isin(bet.actions[nodes[unit], action], kinds), bias, 1.0)
    return x / np.bincount(row, weights=x, minlength=H * nodes.size)[row]
