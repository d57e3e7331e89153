"""Which players a pass updates and whose averages it adds to, and a block's per-pass arrays:
one plan for every engine (the poker and the tree engines each had their own, and drifted)."""

from __future__ import annotations

import numpy as np

from .passes import _bits, kernel_coefficients_block


def average_players(players, num_players: int, averaging=None) -> list[int]:
    """Whose averages a pass that updates `players` adds to: with alternating updates the player
    who updated just before (p - 1; the opponent for two players, as Tammelin et al. 2015), or
    the updating player itself where `averaging` says so (``own_pass``: ``[solver] average_pass
    = "own"``, OpenSpiel's convention); with simultaneous updates everyone."""
    if len(players) == 1:
        return [players[0] if getattr(averaging, "own_pass", False) else (players[0] - 1) % num_players]
    return list(range(num_players))


def average_mask(players, num_players: int, averaging, decay: float, weight: float) -> int:
    """The bit mask of :func:`average_players`, or 0 where the pass adds nothing to an average
    (none kept, or a zero weight without decay)."""
    if averaging.keeps_average and (weight != 0.0 or decay != 1.0):
        return _bits(average_players(players, num_players, averaging))
    return 0


def block_plan(block, num_players: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(update masks, average masks, kernel coefficients [passes, 6]) of a block of full passes,
    iteration by iteration and group by group within one, each as :func:`average_mask` and
    :func:`.passes.kernel_coefficients_at` give one pass."""
    groups = [tuple(g) for g in block.groups]
    per_it = kernel_coefficients_block(block.first, block.count, block.rule, block.averaging)
    coeffs = np.repeat(per_it, len(groups), axis=0)
    upd = _per_pass([_bits(g) for g in groups], block.count)
    avgs = _per_pass([_bits(average_players(g, num_players, block.averaging)) for g in groups], block.count)
    grows = block.averaging.keeps_average & ((coeffs[:, 5] != 0.0) | (coeffs[:, 4] != 1.0))
    return upd, np.where(grows, avgs, 0).astype(np.int64), coeffs


def _per_pass(per_group: list[int], count: int) -> np.ndarray:
    """The groups' values repeated for `count` iterations, iteration-major (np.tile's result,
    at a third of its cost for the short blocks between evaluations)."""
    return np.repeat(np.array(per_group, dtype=np.int64)[None, :], count, axis=0).ravel()


def block_predictions(block) -> np.ndarray:
    """[passes, 4]: a predictive rule's ``kernel_prediction(t)`` (pre, floor, nxt, weight) for each
    pass of `block`, iteration by iteration as :func:`block_plan`."""
    ts = range(block.first, block.first + block.count)
    per_it = np.array([block.rule.kernel_prediction(t) for t in ts], dtype=np.float64).reshape(-1, 4)
    return np.repeat(per_it, len(block.groups), axis=0)
