"""Where each (public node, board) block of an array lies, its north neighbour and hand order:
the layout the fixed-point predictors walk, and the check that it covers an array exactly once."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..errors import SolverkitError


@dataclass(frozen=True)
class Grid:
    """Blocks of an array for the predictor: block i holds ``hands[i] x actions[i]`` values from
    ``offset[i]`` (hands outer, actions inner); ``north[i]`` is the block of the same node on
    the previous board (-1: none); ``round[i]`` picks the scale factor; ``order[i]`` is a row of
    the grid's ``orders`` table giving the order of the block's hands (-1: index order);
    ``visit`` is the order in which the north-predicting modes code the blocks (None: index
    order), so that a game may link each board to any earlier one in an order of its choosing
    (HULHE: boards sorted by flush suits, then rank).

    ``live[i]`` is a row of ``live_rows`` (uint8 [rows, hands]: nonzero for a hand the block's
    board leaves possible) or -1 (every hand): a block16 store keeps the values of those hands only,
    the others (a hand holding a card of the board: no reach, values always 0) read as 0. None: all."""

    offset: np.ndarray
    hands: np.ndarray
    actions: np.ndarray
    north: np.ndarray
    round: np.ndarray
    order: np.ndarray
    orders: np.ndarray  # int64 [rows, max hands]
    visit: np.ndarray | None = None
    live: np.ndarray | None = None
    live_rows: np.ndarray | None = None

    @cached_property
    def live_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(live [blocks] int64, starts, runs) as the block16 kernels take them: each live row's
        runs of live hands (:func:`.block16.live_runs`); no live table: every block -1, no runs."""
        from .block16 import live_runs

        if self.live is None:
            return (np.full(self.offset.shape[0], -1, dtype=np.int64), np.zeros(1, dtype=np.int64),
                    np.zeros((0, 3), dtype=np.int64))
        return (np.ascontiguousarray(self.live, dtype=np.int64), *live_runs(self.live_rows))

    @cached_property
    def stored_hands(self) -> np.ndarray:
        """int64 [blocks]: hands whose values a block16 body keeps (its live ones)."""
        if self.live is None:
            return self.hands.astype(np.int64)
        live = np.asarray(self.live, dtype=np.int64)
        width = self.live_rows.shape[1]
        counts = np.count_nonzero(self.live_rows, axis=1).astype(np.int64)
        out = self.hands.astype(np.int64).copy()
        has = live >= 0
        if np.any(self.hands[has] != width):
            raise SolverkitError(f"a grid's live table is {width} hands wide; its blocks with a live row must hold "
                                 "that many hands")
        out[has] = counts[live[has]]
        return out

    @cached_property
    def stored_offset(self) -> np.ndarray:
        """int64 [blocks + 1]: where each block's kept values start in a block16 body's values
        (the last entry: how many it keeps)."""
        out = np.zeros(self.offset.shape[0] + 1, dtype=np.int64)
        np.cumsum(self.stored_hands * self.actions, out=out[1:])
        return out

    @property
    def stored(self) -> int:
        """Values a block16 body keeps (the live hands' only)."""
        return int(self.stored_offset[-1])

    @property
    def visit_order(self) -> np.ndarray:
        """Blocks in coding order."""
        return np.arange(self.offset.size, dtype=np.int64) if self.visit is None else self.visit

    @classmethod
    def flat(cls, size: int) -> "Grid":
        """No structure: one block of `size` single-action 'hands' in index order, round 0."""
        one = np.ones(1, dtype=np.int64)
        return cls(np.zeros(1, np.int64), one * size, one, -one, np.zeros(1, np.int64), -one,
                   np.zeros((0, 1), np.int64))

    @classmethod
    def from_layout(cls, layout) -> "Grid":
        """One block per layout block (information sets as hands), no north neighbours."""
        n = layout.block_start.shape[0]
        minus = np.full(n, -1, dtype=np.int64)
        return cls(layout.block_start.astype(np.int64), layout.block_count.astype(np.int64),
                   layout.block_actions.astype(np.int64), minus, np.zeros(n, np.int64), minus.copy(),
                   np.zeros((0, 1), np.int64))

    @property
    def size(self) -> int:
        return int(np.sum(self.hands * self.actions))


def check_grid(grid: Grid, size: int, where: str) -> None:
    """A grid must cover an array of `size` values exactly once, with north blocks before and
    shaped like their blocks (the kernels rely on it and do not check)."""
    if grid.size != size:
        raise SolverkitError(f"{where}: the grid covers {grid.size} values, the array has {size}")
    covered = np.zeros(size, dtype=np.int32)
    for o, h, a in zip(grid.offset, grid.hands, grid.actions):
        covered[int(o): int(o + h * a)] += 1
    if covered.size and (covered.min() != 1 or covered.max() != 1):
        raise SolverkitError(f"{where}: the game's grid does not cover the array exactly once")
    visit = grid.visit_order
    if visit.shape != grid.offset.shape or not np.array_equal(np.sort(visit), np.arange(visit.size)):
        raise SolverkitError(f"{where}: the grid's visit order is not a permutation of its {visit.size} blocks")
    rank = np.empty(visit.size, dtype=np.int64)
    rank[visit] = np.arange(visit.size)
    has = grid.north >= 0
    if np.any(grid.north >= grid.offset.size) or np.any(rank[grid.north[has]] >= rank[has]):
        raise SolverkitError(f"{where}: a grid block's north neighbour must be visited before it")
    nb = grid.north[has]
    if np.any(grid.hands[nb] != grid.hands[has]) or np.any(grid.actions[nb] != grid.actions[has]):
        raise SolverkitError(f"{where}: a grid block and its north neighbour differ in hands or actions")
    if grid.orders.size and np.any(grid.order >= grid.orders.shape[0]):
        raise SolverkitError(f"{where}: a grid block names a hand order the grid does not have")
    if grid.live is not None:
        rows = grid.live_rows
        if grid.live.shape != grid.offset.shape or rows is None or rows.ndim != 2:
            raise SolverkitError(f"{where}: a grid's live rows need one entry per block and a 2-d table")
        if np.any(grid.live >= rows.shape[0]) or np.any(grid.live < -1):
            raise SolverkitError(f"{where}: a grid block names a live row the grid does not have")
        grid.stored_hands  # noqa: B018 (checks the live table's width)
