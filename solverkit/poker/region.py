"""Where one kernel walk's values live (:class:`_Region`: rounds, node ranges, offsets per board),
and how a segment's values map into the whole-game layout: the geometry every pass, store and
export of a poker game shares."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..core.layout import Layout
from ..errors import ConfigError
from .betting import DECISION
from .kernels import copy_runs


@dataclass
class _Region:
    """What one kernel call walks: rounds r0..r_end from node n0, node ranges per round.

    Values are laid out in the order the kernel visits them: round by round, board by board,
    and within a board the round's decision nodes of the player (hands, then actions). The
    values of (node n, k-th board of its round in this region) start at
    ``node_off[n] + k * stride[player, round]``.
    """

    r0: int
    r_end: int
    n0: int
    round_lo: np.ndarray
    round_hi: np.ndarray
    node_off: np.ndarray  # int64 [nodes]: offset of a decision node's block on the first board
    stride: np.ndarray  # int64 [2, rounds]: values per board of a round, per player
    sizes: tuple[int, int]  # values per player in one segment of this region
    units: tuple  # per player: (node, board index) int64 arrays, one (H x A) block each, in order
    block_off: np.ndarray  # int64 [nodes]: index of a decision node's block among units, first board
    block_stride: np.ndarray  # int64 [2, rounds]: blocks per board of a round, per player

    def offset(self, node: int, k: int, player: int, rnd: int) -> int:
        return int(self.node_off[node] + k * self.stride[player, rnd])


#: values per part of a compact segment's policy scattered into a whole-game strategy (2 MB)
SCATTER_PART_VALUES = 1 << 18


def build_region(bet, hands: tuple[int, int], num_rounds: int, r0, r_end, n0, round_lo, round_hi,
                 boards_per_round) -> _Region:
    """The region of rounds r0..r_end from node n0 of betting tree `bet`, each player holding
    hands[p] hands, with round r's nodes in round_lo[r]..round_hi[r]-1 on boards_per_round[r]
    boards (values laid out as :class:`_Region` says)."""
    node_off = np.zeros(bet.num_nodes, dtype=np.int64)
    stride = np.zeros((2, num_rounds), dtype=np.int64)
    block_off = np.zeros(bet.num_nodes, dtype=np.int64)
    block_stride = np.zeros((2, num_rounds), dtype=np.int64)
    sizes = [0, 0]
    blocks = [0, 0]
    units = ([], [])
    for r in range(r0, r_end + 1):
        nodes = [([], []), ([], [])]
        for n in range(round_lo[r], round_hi[r]):
            if bet.kind[n] != DECISION:
                continue
            p = int(bet.player[n])
            node_off[n] = sizes[p] + stride[p, r]
            stride[p, r] += hands[p] * int(bet.num_actions[n])
            block_off[n] = blocks[p] + block_stride[p, r]
            block_stride[p, r] += 1
            nodes[p][0].append(n)
        nb = int(boards_per_round[r])
        for p in (0, 1):
            sizes[p] += nb * int(stride[p, r])
            blocks[p] += nb * int(block_stride[p, r])
            ids = np.array(nodes[p][0], dtype=np.int64)
            units[p].append((np.tile(ids, nb), np.repeat(np.arange(nb, dtype=np.int64), ids.size)))
    units = tuple(
        (np.concatenate([u[0] for u in units[p]]), np.concatenate([u[1] for u in units[p]])) for p in (0, 1)
    )
    return _Region(r0, r_end, n0, round_lo, round_hi, node_off, stride, tuple(sizes), units, block_off,
                   block_stride)


def region_layout(region: _Region, p: int, hands: int, num_actions) -> Layout:
    """The information-set layout of player p's values in `region` (`hands` hands each,
    num_actions[node] actions): one block of hands x actions per unit, in order."""
    counts = np.full(region.units[p][0].size, hands, dtype=np.int64)
    actions = num_actions[region.units[p][0]].astype(np.int64)
    start = np.zeros(counts.size, dtype=np.int64)
    start[1:] = np.cumsum(counts * actions)[:-1]
    return Layout(start, counts, actions)


def descendants(children, root) -> np.ndarray:
    """Sorted ids of betting node `root` and every node below it (children [nodes, k], -1: none)."""
    out, stack = [], [root]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(int(c) for c in children[n] if c >= 0)
    return np.array(sorted(out), dtype=np.int64)


class GameRegions:
    """The layouts of a poker game's walks (a mixin of :class:`.game.PokerGame`: reads its tree and
    round_start)."""

    def _region(self, r0, r_end, n0, round_lo, round_hi, boards_per_round) -> _Region:
        """:func:`build_region` over this game's betting tree and hands."""
        return build_region(self.tree.bet, (self.tree.hands_of(0), self.tree.hands_of(1)), self.gd.num_rounds,
                            r0, r_end, n0, round_lo, round_hi, boards_per_round)

    @property
    def full(self) -> _Region:
        """The whole game as one region (the unsplit layout), made when first needed: a
        trunk-only game of full hold'em could not hold it."""
        region = self.__dict__.get("_full")
        if region is None:
            lo, hi, nboards = self._full_bounds
            region = self._full = self._region(0, self.gd.num_rounds - 1, 0, lo, hi, nboards)
        return region

    def _first_round(self) -> _Region:
        """The whole game's layout walked over its first round only (r_end = r0)."""
        top = self.__dict__.get("_first_round_region")
        if top is None:
            top = self._first_round_region = replace(self.full, r_end=self.full.r0)
        return top

    def _layout_of(self, region, p) -> Layout:
        """:func:`region_layout` of player p's values in `region`."""
        return region_layout(region, p, self.tree.hands_of(p), self.tree.bet.num_actions)

    def value_offset(self, node: int, board: int, hand: int) -> int:
        """Offset of (decision node, global board id, hand index) in the unsplit layout."""
        bet = self.tree.bet
        r = int(bet.round[node])
        k = board - int(self.round_start[r])
        return self.full.offset(node, k, int(bet.player[node]), r) + hand * int(bet.num_actions[node])

    def _descendants(self, root):
        """:func:`descendants` of a betting node."""
        return descendants(self.tree.bet.children, root)

    def layout(self, player):
        """Information-set layout of `player`'s flat arrays over the whole game (made when first
        needed; a trunk-only game refuses one that cannot fit in memory)."""
        layouts = self.__dict__.get("_layouts")
        if layouts is None:
            if self.trunk_only:
                self._check_layout_fits()
            layouts = self._layouts = tuple(self._layout_of(self.full, p) for p in (0, 1))
        return layouts[player]

    def _check_layout_fits(self):
        """ConfigError when the whole game's layout and one player's policy (what the strategy
        output gathers on the trunk) need more than `memory_share` of this machine."""
        from ..core.memory import human_bytes, physical_memory

        bet = self.tree.bet
        nboards = np.diff(self.round_start)
        dec = bet.kind == DECISION
        blocks = sum(int(np.count_nonzero(dec & (bet.round == r))) * int(nboards[r]) for r in range(self.gd.num_rounds))
        values = self.tree.max_hands * sum(int(bet.num_actions[n]) * int(nboards[bet.round[n]])
                                           for n in np.flatnonzero(dec))
        need = 24 * blocks + 8 * values
        have = physical_memory()
        if have and need > self.memory_share * have:
            raise ConfigError(
                f"game {self.name!r} (trunk_only): its strategy over the whole game needs about "
                f"{human_bytes(need)} on the trunk ({values:,} values and their layout) and this machine has "
                f"{human_bytes(have)}; the strategy output and `solverkit export` need the whole strategy in one "
                "file: solve a smaller member, or read the subgames' values from the workers' checkpoints")

    def _scatter(self, flat, region, values, first, p, units=None, base=0):
        """Copy player p's values of a segment into the unsplit layout; `first` = the
        segment's first board per round (None: the trunk). `units` (lo, hi): only those blocks,
        whose values start at `base` of the segment's array."""
        t = self.tree
        bet = t.bet
        seg_lo = self.round_start if first is None else first
        nodes, k = region.units[p]
        if units is not None:
            nodes, k = nodes[units[0]:units[1]], k[units[0]:units[1]]
        rnd = bet.round[nodes]
        length = t.hands_of(p) * bet.num_actions[nodes].astype(np.int64)
        src = region.node_off[nodes] + k * region.stride[p, rnd]
        kf = k + seg_lo[rnd] - self.round_start[rnd]
        dst = self.full.node_off[nodes] + kf * self.full.stride[p, rnd]
        copy_runs(values, flat, src - base, dst, length)
