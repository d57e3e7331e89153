"""PokerGame: a limit poker game solved over its public tree with the numba kernels.

Without a split the whole tree is one segment (``root``) and one kernel call is one pass. With
``split_round = s`` the tree is cut at the start of round s: the *trunk* (rounds < s) is one
segment, and every (round-end node of round s-1, board of round s-1) pair is a *subgame* segment
holding everything below it. A pass then walks the trunk down to the cut (reach vectors out),
hands the subgames to the transport, and walks the trunk again with the subgames'
counterfactual values (regret updates on the way up). Both paths run the same kernel.

Sampled passes (``[sampler] name = "public_chance"`` or ``"public_external"``, docs/samplers.md)
deal one board per round: the trunk walks one path of boards, only the subgames below its cut board are
handed to the transport, and each deals one board per round below it. Draws are keyed by the
boards' cards (:meth:`PokerGame.board_codes`), so a worker's smaller game draws what the trunk
would.
"""

from __future__ import annotations


import threading
import functools
from dataclasses import astuple, dataclass, fields, replace
from pathlib import Path

import numpy as np

from ..core.game import Game, PassBlock, PassJob
from ..core.layout import Layout
from ..core.params import Param
from ..core.rng import stream
from ..core.passes import (NO_COEFFS, finish_segment, kernel_coefficients, kernel_coefficients_at, policy_source,
                           rule_of, segment_arrays, writes)
from ..core.store import SegmentSpec
from ..core.units import Unit
from ..core.wire import check_keys, field
from ..errors import ConfigError, ProtocolError, SolverkitError
from .betting import ACTION_CHARS, DECISION, ROUND_END
from .cards import card_name
from .gamedef import GameDef
from .kernels import (MODE_CHANCE, MODE_EXTERNAL, MODE_FULL, Buffers, Pass, PublicTree, Walk, compact_values, copy_runs, float_values,
                      dfs_block, dfs_pass, sample_path)
from .cut import count_below, rollout_all
from .tree import PokerTree, build_tree

_FAST_KERNEL = []


def _kernel():
    """dfs_pass, or once it has been compiled for the one argument signature the engine uses,
    its compiled entry point: skips numba's per-call type dispatch over ~50 arguments
    (about 40 us a call, which dominates small games such as Leduc)."""
    if _FAST_KERNEL:
        return _FAST_KERNEL[0]
    sigs = dfs_pass.signatures
    if len(sigs) == 1:
        _FAST_KERNEL.append(dfs_pass.overloads[sigs[0]].entry_point)
    return dfs_pass


#: kernel modes of the sampling schemes the poker engine runs
_MODES = {"full": MODE_FULL, "public_chance": MODE_CHANCE, "public_external": MODE_EXTERNAL}
#: the Monte-Carlo schemes of the literature this engine does not run -> (the scheme it runs
#: instead, why): it samples public chance only, every private hand stays in the vectors
SAMPLER_INSTEAD = {
    "chance": ("public_chance", "chance sampling draws the private cards too; this engine walks every private hand "
                                "and draws one board per round: public chance sampling, called 'chance' here before"),
    "external": ("public_external", "external-sampling MCCFR draws the private cards and walks one opponent history; "
                                    "this engine walks every private hand, draws one board per round and one opponent "
                                    "action per hand: public_external, called 'external' here before"),
}


def _players(mask: int) -> list[int]:
    """The players whose bits are set in `mask`, in order."""
    return [p for p in (0, 1) if (mask >> p) & 1]


def _others(players) -> list[int]:
    """The players whose averages grow in a pass that updates `players`: the opponent of one,
    both in a simultaneous pass."""
    return [1 - p for p in players] if len(players) == 1 else [0, 1]


def _prunable(pruning, pre, pos, neg, avg_mask, decay):
    """Whether a pass may skip what nothing reaches: a zero update must leave regrets (no
    discount) and averages (no decay) as they are. Scalars or numpy arrays alike."""
    return pruning & (pre == 1.0) & (pos == 1.0) & (neg == 1.0) & ((avg_mask == 0) | (decay == 1.0))


def _boards_below(boards, c0: int, c1: int) -> np.ndarray:
    """Per child board c0..c1-1 of the root board: boards in its subtree, itself included."""
    def count(g):
        return 1 + sum(count(c) for c in range(int(boards.child_start[g]), int(boards.child_end[g])))
    return np.array([count(c) for c in range(c0, c1)], dtype=np.int64)


def _balanced_ranges(first: int, weights: np.ndarray, parts: int) -> list[tuple[int, int]]:
    """Up to `parts` consecutive ranges over first, first + 1, ... of about equal total weight."""
    n = len(weights)
    if n == 0:
        return []
    cum = np.cumsum(weights)
    cuts = sorted({int(np.searchsorted(cum, cum[-1] * k / parts, side="left")) + 1 for k in range(1, parts)})
    edges = [0] + [c for c in cuts if 0 < c < n] + [n]
    return [(first + a, first + b) for a, b in zip(edges, edges[1:]) if b > a]


def _bits(players) -> int:
    m = 0
    for p in players:
        m |= 1 << p
    return m


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


@dataclass
class _Compact:
    """A compact segment's block16 values for one kernel walk: per player (scales, int16 values)
    of the policy source and of the average (None: not used). The regrets a pass updates are
    its policy source."""

    src: list
    avg: list

    @classmethod
    def of(cls, seg, job: "_Job", pj) -> "_Compact":
        src = [seg.compact(f"{job.source}{p}") if f"{job.source}{p}" in seg else None for p in (0, 1)]
        avg = [None, None]
        if pj is not None and pj.averaging.keeps_average:
            avg = [seg.compact(f"avg{q}") if (job.avg_mask >> q) & 1 and f"avg{q}" in seg else None
                   for q in (0, 1)]
        return cls(src, avg)


@dataclass
class _Job:
    """Per-pass settings of a kernel call (what to update, accumulate and evaluate)."""

    upd_mask: int
    avg_mask: int
    val_mask: int
    br_player: int
    coeffs: tuple
    inline_rule: bool = True
    inline_avg: bool = True
    source: str = "regret"  # policy source: "regret" (CFR) or a strategy kind for best response
    prune: bool = True  # skip zero-reach subtrees (exact unless a zero update changes stored values)
    sample: int = MODE_FULL  # MODE_FULL, MODE_CHANCE (one board per round) or MODE_EXTERNAL
    stream: tuple = (0, 0, 0)  # (seed, iteration, stream player) of a sampled pass's draws

    def key(self) -> np.uint64:
        """The pass's stream key (:func:`solverkit.core.rng.stream`; subgame field 0: the
        boards' codes name where a draw is, in the trunk and on every worker alike)."""
        if self.sample == MODE_FULL:
            return np.uint64(0)
        return np.uint64(stream(*self.stream, 0))

    def sampling_player(self) -> int:
        """External sampling: the player whose hands sample their actions (the one not
        updated); -1 otherwise."""
        if self.sample != MODE_EXTERNAL:
            return -1
        return 1 if self.upd_mask == 1 else 0

    def to_wire(self) -> dict:
        """The settings as a msgpack-able map (field name -> value)."""
        return {f.name: (list(v) if isinstance(v, tuple) else v) for f, v in zip(fields(self), astuple(self))}

    @classmethod
    def from_wire(cls, data, where: str = "kernel job") -> "_Job":
        """Settings from :meth:`to_wire` data, every field checked (ProtocolError names it)."""
        if not isinstance(data, dict):
            raise ProtocolError(f"{where}: {type(data).__name__} {data!r:.60}, expected a map")
        check_keys(data, [f.name for f in fields(cls)], where)
        masks = {name: field(data, name, where, "int", lo=0, hi=3) for name in ("upd_mask", "avg_mask", "val_mask")}
        return cls(
            **masks,
            br_player=field(data, "br_player", where, "int", lo=-1, hi=1),
            coeffs=tuple(float(c) for c in field(data, "coeffs", where, "float_list", length=len(NO_COEFFS))),
            inline_rule=field(data, "inline_rule", where, "bool"),
            inline_avg=field(data, "inline_avg", where, "bool"),
            source=field(data, "source", where, "str", choices=("regret", "avg")),
            prune=field(data, "prune", where, "bool"),
            sample=field(data, "sample", where, "int", lo=MODE_FULL, hi=MODE_EXTERNAL),
            stream=tuple(field(data, "stream", where, "int_list", length=3, lo=0, hi=2**64 - 1)),
        )


def suit_class(cards, num_suits: int) -> tuple:
    """The smallest image of a hand under every renaming of the suits: two hands with the same
    class differ only by suits, and before any board card they play alike."""
    from itertools import permutations

    return min(tuple(sorted(int(c) - int(c) % num_suits + perm[int(c) % num_suits] for c in cards))
               for perm in permutations(range(num_suits)))


class PokerGame(Game):
    """A two-player limit poker game; subclasses provide :meth:`gamedef` (and a strength function)."""

    unit_name = "chips"
    samplers = ("full", "public_chance", "public_external")
    sampler_instead = SAMPLER_INSTEAD
    export_limit = 200_000
    store_walk_is_exact = True
    pruning = True  # skip subtrees nothing reaches where that is exact (tests switch it off)
    engine_params = {
        "split_round": Param("int", 0, "cut into trunk + subgames at the start of this round (0: no cut)", min=0, max=7),
        "isomorphism": Param("bool", True, "merge boards that differ only by a permutation of suits"),
        "chunks": Param("int", 1, "split each subgame into this many segments of consecutive boards of the cut "
                        "round (smaller tasks for the transport)", min=1, max=10_000),
        "trunk_only": Param("bool", False, "build only the rounds above the cut (the trunk of a zmq run: the "
                            "subgames' boards and values live on the workers; needs split_round >= 1)"),
        "parallel_deals": Param("bool", False, "an unsplit game walks the boards dealt after its first round in "
                                "chunks on the transport's threads (sums over boards in another order: the last "
                                "bits of values differ from one walk's)"),
    }
    params = dict(engine_params)  # a subclass with params of its own takes these too (Game.__init_subclass__)

    def __init__(self, **params):
        params = self.prepare_params(params)
        super().__init__(**params)
        self.gd: GameDef = self.gamedef()
        self.tree_isomorphic = bool(params.get("isomorphism", False))
        s = self._split_round(self.gd, params)
        self.trunk_only = bool(params.get("trunk_only", False))
        self.holds_subgames = not self.trunk_only
        if self.trunk_only and not s:
            raise ConfigError(f"[game] trunk_only = true needs a cut: set [game] split_round to 1..{self.gd.num_rounds - 1} "
                              "(the trunk holds the rounds above it, zmq workers the subgames below)")
        allowed = self.allowed_boards()
        if self.trunk_only and allowed and any(r >= s for r in allowed):
            raise ConfigError(f"[game] trunk_only = true: this game restricts the boards of round "
                              f"{max(allowed)}, below the cut at round {s}; a trunk-only game counts the boards "
                              "below the cut unrestricted")
        self._check_fits(s)
        self.tree: PokerTree = build_tree(self.gd, self.strength_function(), self.tree_isomorphic,
                                          allowed=allowed, rounds=s if self.trunk_only else None,
                                          bet=self.betting_tree(), root_board=self.root_board(),
                                          hand_rows=self.hand_rows(), suit_perms=self.suit_perms())
        sides = self.hand_sides()
        if sides is not None:
            from .tree import split_sides

            self.tree.sides = split_sides(self.tree, sides)
            # each player's showdown tables replace the shared list's (freed: not views of them)
            t = self.tree
            t.sd_order, t.sd_strength = np.zeros((0, 0), dtype=np.int64), np.zeros((0, 0), dtype=np.int64)
            t.sd_count = np.zeros(0, dtype=np.int64)
        self.split = s
        self.chunk_count = int(params.get("chunks", 1) or 1)
        self._local = threading.local()
        self._prepare()

    #: refuse to build a game whose tree and float64 store need more than this share of RAM
    memory_share = 0.8

    def _check_fits(self, split_round):
        """Raise ConfigError, before anything is allocated, when the public tree cannot fit in
        this machine's memory (full hold'em, say); the store is checked when it is made."""
        from ..core.memory import human_bytes, physical_memory

        size = self.game_size()
        frac = self.size_fraction(size)
        if self.trunk_only:  # the trunk's rounds only: no boards, showdowns or values below the cut
            frac = [f if r < split_round else 0.0 for r, f in enumerate(frac)]
        need = size.tree_bytes(self.tree_isomorphic, frac)
        have = physical_memory()
        self.store_estimate = size.store_bytes(self.tree_isomorphic, frac)
        if have and need > self.memory_share * have:
            subgames = size.subgames(split_round, self.tree_isomorphic)
            cut = (f"its {subgames:,} subgames (cut at round {split_round})" if split_round else
                   "its subgames (set [game] split_round)")
            raise ConfigError(
                f"game {self.name!r} ({self.gd.source}) does not fit on this machine: its public tree alone "
                f"needs about {human_bytes(need)}, and its regrets and averages "
                f"{human_bytes(self.store_estimate)} as float64 "
                f"({size.infosets_iso:,} information sets up to suit symmetry); this machine has "
                f"{human_bytes(have)}. Solve a smaller member of the family (fewer ranks, suits, rounds or "
                f"raises), or run it distributed: the trunk ([game] trunk_only = true builds only the rounds "
                f"above the cut), and {cut} on worker machines, with [transport] name = \"zmq\" and `solverkit worker "
                f"--connect tcp://TRUNK:PORT` on each (a hulhe worker builds only its flops' part of the "
                f"tree and holds only its subgames' values; docs/config.md; `solverkit info {self.name}` "
                f"prints the sizes)"
            )

    @classmethod
    def size_report(cls, params: dict) -> list[tuple[str, str]]:
        """`solverkit info` lines for these parameters, from the game definition alone."""
        from ..core.game import Game
        from .size import report

        params = cls.prepare_params(params)
        probe = cls.__new__(cls)
        Game.__init__(probe, **params)
        gd = probe.gamedef()
        probe.gd = gd
        return report(gd, bool(params.get("isomorphism", True)), cls._split_round(gd, params), cls.name,
                      size=probe.game_size())

    @staticmethod
    def _split_round(gd: GameDef, params: dict) -> int:
        """``[game] split_round``, or a ConfigError when the game has no such round to cut at."""
        s = int(params.get("split_round", 0) or 0)
        if s >= gd.num_rounds:
            raise ConfigError(
                f"[game] split_round = {s}: the game has {gd.num_rounds} rounds; valid: 0 (no split) "
                f"to {gd.num_rounds - 1}"
            )
        return s

    # --- to override -------------------------------------------------------------------------

    @staticmethod
    def prepare_params(params: dict) -> dict:
        """Resolve parameters that depend on each other (before anything is built)."""
        return params

    def gamedef(self) -> GameDef:
        raise NotImplementedError

    def allowed_boards(self) -> dict | None:
        """Round -> card sets its board may take (None: every board). A restricted deal is a
        different game; it serves to study real subgames of a game too large to build."""
        return None

    def size_fraction(self, size) -> list[float]:
        """Per round, the share of the boards this game builds (1.0 without restrictions)."""
        return [1.0] * size.rounds

    def payoff_scale(self) -> np.ndarray:
        """Per round: the weight of one deal of hands and boards up to the round (the chance of
        each, 1 / the number of equally likely deals); a game with weighted ranges overrides it."""
        return 1.0 / self.tree.deals

    def game_size(self):
        """size.GameSize of this game, from its definition alone (nothing of its size is built)."""
        from .size import game_size

        return game_size(self.gd, self.betting_counts())

    def betting_counts(self):
        """size.BettingCounts of :meth:`betting_tree`, without building it (None: the limit game's)."""
        return None

    def betting_tree(self):
        """The betting tree the kernels walk (BettingTree): the limit game's by default."""
        from .betting import build_betting_tree

        return build_betting_tree(self.gd)

    def hand_rows(self):
        """Rows of the hand table this game keeps (None: every hand); a spot keeps its ranges' combos."""
        return None

    def hand_sides(self):
        """(player 0's, player 1's) rows among the kept hands when the players hold different
        hands (a spot: each its range's combos); None: both hold every hand."""
        return None

    def suit_perms(self):
        """The suit permutations isomorphism may use (None: all)."""
        return None

    def root_board(self) -> tuple:
        """Card ids on the board before round 0's betting (a postflop spot's); none by default."""
        return ()

    def strength_function(self):
        """None for ACPC ranking, else f(hands, board, out) filling strengths (-1 on clashes)."""
        return None

    # --- structure ---------------------------------------------------------------------------

    def _region(self, r0, r_end, n0, round_lo, round_hi, boards_per_round):
        bet = self.tree.bet
        Hp = (self.tree.hands_of(0), self.tree.hands_of(1))
        node_off = np.zeros(bet.num_nodes, dtype=np.int64)
        stride = np.zeros((2, self.gd.num_rounds), dtype=np.int64)
        block_off = np.zeros(bet.num_nodes, dtype=np.int64)
        block_stride = np.zeros((2, self.gd.num_rounds), dtype=np.int64)
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
                stride[p, r] += Hp[p] * int(bet.num_actions[n])
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

    def _prepare(self):
        t = self.tree
        bet = t.bet
        #: per node, chips the winner gets on top of the loser's spent (dead money less rake)
        self.extra = (np.zeros(bet.num_nodes) if bet.extra is None else np.ascontiguousarray(bet.extra, dtype=np.float64))
        #: per round, the factor of a terminal's payoff: 1 / (equally likely deals up to the round)
        self.scale = np.ascontiguousarray(self.payoff_scale(), dtype=np.float64)
        R = self.gd.num_rounds
        s = self.split
        #: boards below the cut, counted (trunk-only: not built); None when the tree is whole
        self.below = count_below(self.gd, t.boards, s, self.tree_isomorphic) if self.trunk_only else None
        #: the whole game's first global board id per round (a trunk-only tree holds rounds < split)
        self.round_start = t.boards.round_start if self.below is None else self.below.round_start
        nboards = np.diff(self.round_start)
        lo = np.array([bet.nodes_of_round(r)[0] for r in range(R)], dtype=np.int64)
        hi = np.array([bet.nodes_of_round(r)[-1] + 1 for r in range(R)], dtype=np.int64)
        self.re_index = np.full(bet.num_nodes, -1, dtype=np.int64)
        for r in range(R):
            ends = np.flatnonzero((bet.kind == ROUND_END) & (bet.round == r))
            self.re_index[ends] = np.arange(ends.size)
        self._full_bounds = (lo, hi, nboards)
        if not s:
            self.trunk = self.full
            self.entries = []
            return
        self.trunk = self._region(0, s - 1, 0, lo, hi, nboards)
        # subgames: one per (round-end node of round s-1, board of round s-1), each cut into
        # `chunks` runs of consecutive boards of round s (a chunk is one segment and one task)
        self.entries = [int(e) for e in np.flatnonzero((bet.kind == ROUND_END) & (bet.round == s - 1))]
        self._sub_bounds = {}
        for e in self.entries:
            # a subgame's walk starts at its round-end node e on the parent board: the kernel
            # then deals the next round's boards itself (one call per chunk)
            desc = self._descendants(int(bet.children[e, 0]))
            slo, shi = lo.copy(), hi.copy()
            slo[s - 1], shi[s - 1] = e, e + 1
            for r in range(s, R):
                ids = desc[bet.round[desc] == r]
                slo[r], shi[r] = ids.min(), ids.max() + 1
            self._sub_bounds[e] = (slo, shi)
        self.sub_boards = list(t.boards.of_round(s - 1))
        k = self.chunk_count
        self._chunks = {}
        for b in self.sub_boards:
            c0, c1 = self._children_of(b)
            # offsets from c0, so that a game dealing fewer boards (a worker's) chunks alike
            edges = c0 + np.unique(np.linspace(0, c1 - c0, min(k, c1 - c0) + 1).round().astype(np.int64))
            self._chunks[b] = [(int(x), int(y)) for x, y in zip(edges[:-1], edges[1:])]
        self._keys = [(e, b, j) for e in self.entries for b in self.sub_boards for j in range(len(self._chunks[b]))]
        self._chunked = any(len(v) > 1 for v in self._chunks.values())
        self._segment_names = [self._segment_name(k) for k in self._keys]
        self._sub_regions = {}

    @property
    def full(self) -> _Region:
        """The whole game as one region (the unsplit layout), made when first needed: a
        trunk-only game of full hold'em could not hold it."""
        region = self.__dict__.get("_full")
        if region is None:
            lo, hi, nboards = self._full_bounds
            region = self._full = self._region(0, self.gd.num_rounds - 1, 0, lo, hi, nboards)
        return region

    def _children_of(self, b) -> tuple[int, int]:
        """Global ids c0..c1-1 of the next round's boards below cut board b (counted when the
        tree stops at the cut)."""
        if self.below is None:
            bd = self.tree.boards
            return int(bd.child_start[b]), int(bd.child_end[b])
        i = b - int(self.tree.boards.round_start[self.split - 1])
        c0 = int(self.below.first[i, self.split])
        return c0, c0 + int(self.below.children[i].shape[0])

    def _chunk_boards(self, b, j):
        """(first board per round, boards per round) of chunk j of the subgames on board b."""
        t = self.tree
        R = self.gd.num_rounds
        first = self.round_start.copy()
        count = np.zeros(R, dtype=np.int64)
        c0, c1 = self._chunks[b][j]
        first[self.split - 1], count[self.split - 1] = b, 1
        if self.below is not None:
            i = b - int(t.boards.round_start[self.split - 1])
            base = int(self.below.first[i, self.split])
            f, c = self.below.chunk(i, c0 - base, c1 - base)
            first[self.split:R], count[self.split:] = f[self.split:], c[self.split:]
            return first, count
        lo, hi = c0, c1
        for r in range(self.split, R):
            first[r], count[r] = lo, hi - lo
            if r + 1 < R:
                lo, hi = int(t.boards.child_start[lo]), int(t.boards.child_end[hi - 1])
        return first, count

    def _sub_region(self, e, b, j):
        first, count = self._chunk_boards(b, j)
        key = (e, tuple(int(x) for x in count))
        region = self._sub_regions.get(key)
        if region is None:
            slo, shi = self._sub_bounds[e]
            region = self._region(self.split - 1, self.gd.num_rounds - 1, e, slo, shi, count)
            self._sub_regions[key] = region
        return region, first

    def _segment_name(self, key):
        e, b, j = key
        return f"sub/{e}/{b}/{j}" if self._chunked else f"sub/{e}/{b}"

    def _layout_of(self, region, p):
        counts = np.full(region.units[p][0].size, self.tree.hands_of(p), dtype=np.int64)
        actions = self.tree.bet.num_actions[region.units[p][0]].astype(np.int64)
        start = np.zeros(counts.size, dtype=np.int64)
        start[1:] = np.cumsum(counts * actions)[:-1]
        return Layout(start, counts, actions)

    def value_offset(self, node: int, board: int, hand: int) -> int:
        """Offset of (decision node, global board id, hand index) in the unsplit layout."""
        bet = self.tree.bet
        r = int(bet.round[node])
        k = board - int(self.round_start[r])
        return self.full.offset(node, k, int(bet.player[node]), r) + hand * int(bet.num_actions[node])

    def _descendants(self, root):
        ch = self.tree.bet.children
        out, stack = [], [root]
        while stack:
            n = stack.pop()
            out.append(n)
            stack.extend(int(c) for c in ch[n] if c >= 0)
        return np.array(sorted(out), dtype=np.int64)

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

    def _whole_tree(self, what: str):
        """ConfigError: `what` needs the public tree below the cut, which a trunk-only game lacks."""
        if self.trunk_only:
            raise ConfigError(
                f"{what} needs the whole public tree, and game {self.name!r} was built with [game] trunk_only = "
                f"true (rounds {self.split} and later live on the zmq workers); use the stored values "
                "(best_response_from_store, strategy_of) or build the game without trunk_only")

    def locate(self, board_sets, hand) -> tuple[int, int]:
        """(global board id, hand index) where a deal's board (card sets per round dealt so
        far) and private hand are stored; under suit isomorphism, their canonical images."""
        t = self.tree
        if not hasattr(self, "_board_lookup"):
            self._board_lookup = {}
            for g in range(int(t.boards.round_start[-1])):
                cards = [int(c) for c in t.boards.cards[g, : t.boards.num_cards[g]]]
                sets, pos = [], 0
                r = 0
                while pos < len(cards) or r == 0:
                    nb = self.gd.num_board_cards[r]
                    sets.append(tuple(cards[pos : pos + nb]))
                    pos += nb
                    r += 1
                    if pos >= len(cards):
                        break
                self._board_lookup[tuple(sets)] = g
            self._hand_lookup = {tuple(int(c) for c in row): i for i, row in enumerate(t.hands)}
        S = self.gd.num_suits
        from itertools import permutations

        perms = permutations(range(S)) if self.tree_isomorphic else [tuple(range(S))]
        allowed = self.suit_perms()
        if allowed is not None:  # only the permutations the boards were merged by (a spot's ranges keep them)
            keep = {tuple(int(x) for x in q) for q in allowed}
            perms = [q for q in perms if tuple(q) in keep]
        for perm in perms:
            def move(cards):
                return tuple(sorted(int(c) - int(c) % S + perm[int(c) % S] for c in cards))  # noqa: B023 (called in this iteration)

            key = tuple(move(st) for st in board_sets)
            g = self._board_lookup.get(key)
            if g is not None:
                return g, self._hand_lookup[move(hand)]
        raise KeyError(f"board {board_sets!r} is not a board of game {self.name!r}")

    def segments(self, with_average):
        def spec(key, sizes):
            arrays = {f"regret{p}": sizes[p] for p in (0, 1)}
            if with_average:
                arrays.update({f"avg{p}": sizes[p] for p in (0, 1)})
            return SegmentSpec(key, arrays)

        if not self.split:
            return [spec("root", self.full.sizes)]
        out = [spec("trunk", self.trunk.sizes)]
        for key in self._keys:
            out.append(spec(self._segment_name(key), self._sub_sizes(*key)))
        return out

    def _sub_sizes(self, e, b, j) -> tuple[int, int]:
        """Values per player of subgame segment (e, b, j), from its board counts and the
        per-board strides of entry e (no region with its per-block arrays is made)."""
        strides = self.__dict__.setdefault("_sub_strides", {})
        stride = strides.get(e)
        if stride is None:
            slo, shi = self._sub_bounds[e]
            ones = np.ones(self.gd.num_rounds, dtype=np.int64)
            stride = strides[e] = self._region(self.split - 1, self.gd.num_rounds - 1, e, slo, shi, ones).stride
        count = self._chunk_boards(b, j)[1]
        r = slice(self.split - 1, self.gd.num_rounds)
        return int(stride[0, r] @ count[r]), int(stride[1, r] @ count[r])

    def value_units(self):
        """Deals per round: the kernels weight values by 1/deals, so regret x deals is in chips
        (summed over the opponent's hands, as the original fixed-point store kept them)."""
        return 1.0 / self.scale

    def _segment_region(self, key):
        """(region, first board per round) of a segment name."""
        if key in ("root", "trunk"):
            return (self.full if key == "root" else self.trunk), self.round_start
        return self._sub_region(*self._name_to_key()[key])

    def _name_to_key(self) -> dict:
        """Segment name -> subgame key."""
        index = self.__dict__.get("_names")
        if index is None:
            index = self._names = {self._segment_name(k): k for k in self._keys}
        return index

    #: bytes of board tables below the cut a trunk-only game keeps (least recently used dropped)
    below_cache_bytes = 512 << 20

    def _below_tables(self, key):
        """For a trunk-only game: (board keys, hand orders, first row per round, first board per
        round) of the boards below subgame `key`'s cut board, rows in the whole game's board
        order, taken from the game a worker owning `key` builds (:meth:`subgame_config`:
        hold'em deals only its flop). Made when a segment below the cut must be decoded here
        (the strategy output, --resume); kept, within `below_cache_bytes`, per configuration."""
        cfg = self.subgame_config([key])
        tag = tuple(sorted((k, str(v)) for k, v in cfg.items()))
        cache = self.__dict__.setdefault("_below_cache", {})
        if tag in cache:
            cache[tag] = cache.pop(tag)  # most recently used last
            return cache[tag]
        game = type(self)(**{**self.config, **cfg, "trunk_only": False})
        e, b, _ = key
        i = b - int(self.tree.boards.round_start[self.split - 1])
        local_b = game.subgame_key_at(self.subgame_address(key))[1]
        R, s = self.gd.num_rounds, self.split
        local_first = game._chunk_boards(local_b, 0)[0]  # chunk 0 starts at the cut board's first child
        rows, board_keys, orders = np.zeros(R, dtype=np.int64), [], []
        n = 0
        for r in range(s, R):
            count = int(self.below.count[i, r])
            ids = np.arange(local_first[r], local_first[r] + count)
            rows[r] = n
            n += count
            board_keys.append(game.board_keys()[ids])
            orders.append(game.hand_orders()[ids])
        tables = (np.concatenate(board_keys), np.concatenate(orders), rows, self.below.first[i].copy())
        cache[tag] = tables
        while sum(t[1].nbytes for t in cache.values()) > self.below_cache_bytes and len(cache) > 1:
            cache.pop(next(iter(cache)))
        return tables

    def subgame_config(self, keys):
        """A worker builds the subgames it owns: never trunk-only (subclasses add a smaller deal)."""
        return {"trunk_only": False}

    def hand_strength(self) -> np.ndarray:
        """int64 [boards, H] rollout strength: on a final board 2 x (the opponent's valid hands
        a hand beats) + (those it ties), card removal ignored; on earlier boards the sum over
        every board below (canonical ones and, through the hand maps, the rest of their suit
        orbits). Clashing hands get -1. Integers, so that the sum is exact in any order: a
        trunk-only game gets its cut boards' sums from a rollout (:func:`.cut.rollout_wins`)
        equal to the whole tree's. Orders hands for the store's predictor."""
        if self.tree.sides is not None:
            raise SolverkitError(f"game {self.name!r}: its players hold different hands: no shared strength order")
        if getattr(self, "_strength", None) is None:
            t = self.tree
            b = t.boards
            last = self.gd.num_rounds - 1
            lo, hi = int(b.round_start[last]), int(b.round_start[last + 1])
            share = np.zeros((hi, t.num_hands), dtype=np.int64)
            for i in range(hi - lo):
                c = int(t.sd_count[i])
                st = t.sd_strength[i, :c]
                below = np.searchsorted(st, st, side="left")
                ties = np.searchsorted(st, st, side="right") - below - 1
                share[lo + i, t.sd_order[i, :c]] = 2 * below + ties
            if self.below is not None:  # the cut boards: rolled out over the rounds not built
                lo = int(b.round_start[self.split - 1])
                share[lo:hi] = rollout_all(self.gd, t.hands, b, range(lo, hi), self.strength_function())
            for g in range(lo - 1, -1, -1):  # parents come before their children
                total = np.zeros(t.num_hands, dtype=np.int64)
                for c in range(int(b.child_start[g]), int(b.child_end[g])):
                    # the canonical child and, through the hand maps, the other boards of its orbit
                    total += share[c]
                    for j in range(int(b.perm_start[c]), int(b.perm_end[c])):
                        total += share[c][b.perms[j]]
                share[g] = total
            share[t.valid[:hi] == 0] = -1
            self._strength = share
        return self._strength

    def hand_orders(self):
        """[boards, H]: each board's hands by rollout strength, weakest first, clashing hands
        first (they hold zeros); the predictor's 'previous hand'."""
        if self.tree.sides is not None:  # each player its own hands: the predictor takes them in index order
            return np.zeros((self.tree.valid.shape[0], 0), dtype=np.int64)
        if getattr(self, "_hand_orders", None) is None:
            self._hand_orders = np.argsort(self.hand_strength(), axis=1, kind="stable").astype(np.int64)
        return self._hand_orders

    def board_keys(self) -> np.ndarray:
        """[boards] sort key of every board for the predictor: the number of suits that can still
        make a flush (a suit whose board cards plus the cards still to come, hole cards
        included, reach a flush), then the ranks, highest first. Boards next to each other in
        this order have alike values, so each predicts the next (Cepheus's board ordering)."""
        if getattr(self, "_board_keys", None) is None:
            b = self.tree.boards
            gd = self.gd
            S, R = gd.num_suits, gd.num_ranks
            final = int(np.sum(gd.num_board_cards))
            flush = min(5, gd.num_hole_cards + final)
            cards = b.cards
            n = b.num_cards.astype(np.int64)
            present = cards >= 0
            suit_counts = np.zeros((cards.shape[0], S), dtype=np.int64)
            for s in range(S):
                suit_counts[:, s] = np.sum(present & (cards % S == s), axis=1)
            to_come = final - n + gd.num_hole_cards
            suits = np.sum(suit_counts + to_come[:, None] >= flush, axis=1)
            ranks = np.where(present, cards // S, -1)
            ranks = -np.sort(-ranks, axis=1)  # highest first, missing cards (-1) last
            code = np.zeros(cards.shape[0], dtype=np.int64)
            for j in range(ranks.shape[1]):
                code = code * (R + 1) + (ranks[:, j] + 1)
            self._board_keys = suits * (R + 1) ** ranks.shape[1] + code
        return self._board_keys

    def segment_grid(self, key, name, board_order: bool = True):
        """Blocks (decision node, board) of hands x actions in layout order, hands in
        rollout-strength order on every board; north = the same node on the previous board of
        the segment's round in :meth:`board_keys` order (`board_order`; else layout order),
        which is also the order the north-predicting modes visit the boards in."""
        from ..core.codec import Grid

        p = int(name[-1])
        memo = self.__dict__.setdefault("_grid_memo", {})  # regrets and averages share a grid
        if (key, p, board_order) in memo:
            return memo[(key, p, board_order)]
        region, first = self._segment_region(key)
        t = self.tree
        bet = t.bet
        nodes, k = region.units[p]
        rnd = bet.round[nodes].astype(np.int64)
        offset = region.node_off[nodes] + k * region.stride[p, rnd]
        north = np.full(nodes.size, -1, dtype=np.int64)
        visit = []
        if self.below is None or key == "trunk":
            keys_table, orders = self.board_keys(), self.hand_orders()
            row0, board0 = np.zeros(self.gd.num_rounds, dtype=np.int64), np.zeros(self.gd.num_rounds, dtype=np.int64)
        else:  # below a trunk-only game's cut: tables of this cut board's boards alone
            keys_table, orders, row0, board0 = self._below_tables(self._name_to_key()[key])
        board_keys = keys_table if board_order else None
        # units run board-major within a round, the same nodes on every board
        for r in np.unique(rnd):
            idx = np.flatnonzero(rnd == r)
            per_board = int(np.count_nonzero(k[idx] == k[idx[0]]))
            by_board = idx.reshape(-1, per_board)  # [boards of the round here, nodes]
            if board_keys is not None:
                boards = first[r] + k[by_board[:, 0]] - board0[r] + row0[r]
                by_board = by_board[np.argsort(board_keys[boards], kind="stable")]
            north[by_board[1:]] = by_board[:-1]
            visit.append(by_board.ravel())
        order = (first[rnd] + k - board0[rnd] + row0[rnd]).astype(np.int64)  # the board's row of `orders`
        hands = np.full(nodes.size, t.hands_of(p), dtype=np.int64)
        if t.sides is not None:
            # each player its own hands (a spot's ranges): the strength orders rank the shared
            # list, so the predictor visits this player's hands in index order
            order = np.full(nodes.size, -1, dtype=np.int64)
        grid = Grid(offset.astype(np.int64), hands, bet.num_actions[nodes].astype(np.int64), north, rnd, order,
                    orders, np.concatenate(visit).astype(np.int64) if visit else None)
        if self.below is None or key == "trunk":  # (the store keeps the grids it uses)
            memo[(key, p, board_order)] = grid
        return grid

    def subgame_keys(self):
        """(round-end node, board of round s-1, chunk) of every subgame segment."""
        return list(self._keys) if self.split else []

    def subgame_segment(self, key):
        return self._segment_name(key)

    def subgame_address(self, key):
        """[round-end node, chunk, board cards...]: the same in any game dealt from the same
        rules (board indices differ between a whole game and one restricted to some flops)."""
        e, b, j = key
        bd = self.tree.boards
        return [int(e), int(j), *(int(c) for c in bd.cards[b, : bd.num_cards[b]])]

    def subgame_shape(self):
        """Reach in: [player, hand] at the cut."""
        return (2, self.tree.max_hands)

    def subgame_output_shape(self, job):
        """Values out: [one row per player whose values the pass computes, hand] (one row in an
        alternating CFR pass and a best response: half the bytes back)."""
        return (len(_players(job[0].val_mask)), self.tree.max_hands)

    def job_to_wire(self, job):
        """A subgame job ``(_Job, PassJob | None)`` as {"kernel": settings, "pass": None or
        iteration and players}."""
        kjob, pj = job
        return {"kernel": kjob.to_wire(), "pass": None if pj is None else pj.to_wire()}

    def job_from_wire(self, data, rule, averaging):
        """``(_Job, PassJob | None)`` from :meth:`job_to_wire` data; the PassJob gets the
        worker's own rule and averaging instances."""
        if not isinstance(data, dict):
            raise ProtocolError(f"subgame job: {type(data).__name__} {data!r:.60}, expected a map")
        check_keys(data, ("kernel", "pass"), "subgame job")
        kjob = _Job.from_wire(field(data, "kernel", "subgame job", "map"), "subgame job field 'kernel'")
        wire = field(data, "pass", "subgame job", "map", optional=True)
        pj = None if wire is None else PassJob.from_wire(wire, rule, averaging, "subgame job field 'pass'")
        return kjob, pj

    # --- kernel calls ------------------------------------------------------------------------

    def _bufs(self):
        bufs = getattr(self._local, "bufs", None)
        if bufs is None:
            N, H = self.tree.bet.num_nodes, self.tree.max_hands
            bufs = Buffers(np.zeros((N, 2, H)), np.zeros((N, 2, H)), np.zeros(N, dtype=np.uint8), np.zeros((2, H)))
            self._local.bufs = bufs
        return bufs

    def kernel_tree(self) -> PublicTree:
        """The public tree as the kernels read it (made once)."""
        kt = self.__dict__.get("_kernel_tree")
        if kt is None:
            t = self.tree
            bet, b = t.bet, t.boards
            s0, s1 = t.side(0), t.side(1)
            last = self.gd.num_rounds - 1
            kt = self._kernel_tree = PublicTree(
                bet.kind, bet.player, bet.spent, self.extra, bet.num_actions, bet.children, self.re_index,
                b.child_start, b.child_end, b.perm_start, b.perm_end, self.board_codes(),
                s0.hands, s1.hands, s0.valid, s1.valid, s0.perms, s1.perms, s0.same, s1.same,
                s0.sd_order, s1.sd_order, s0.sd_strength, s1.sd_strength, s0.sd_count, s1.sd_count,
                t.sides is None, int(b.round_start[last]), int(self.gd.deck_size), self.scale,
                *self.locks(), np.ascontiguousarray(b.round_start, dtype=np.int64))
        return kt

    def locks(self):
        """(has_lock [nodes] uint8, lock_start [nodes] int64, lock0, lock1): hands whose policy is
        fixed (node locking; a spot's [game.lock], see PublicTree); none by default."""
        none = np.zeros(1)
        N = self.tree.bet.num_nodes
        return np.zeros(N, dtype=np.uint8), np.full(N, -1, dtype=np.int64), none, none

    @staticmethod
    def _walk_plan(region, b0, c_first, c_last, seg_board_lo) -> Walk:
        return Walk(int(region.r0), int(region.r_end), int(region.n0), int(b0), int(c_first), int(c_last),
                    region.round_lo, region.round_hi, region.node_off, region.stride, seg_board_lo, region.block_off,
                    region.block_stride)

    def _call(self, region, b0, entry, seg_board_lo, src, reg, avg, job: _Job, boundary_mode=0, boundary=None,
              do_backward=True, children=None):
        """One kernel walk of `region`. src, reg, avg: per player float64 arrays, or a
        :class:`_Compact` of a compact store's block16 values (from :meth:`_segment_arrays`)."""
        t = self.tree
        bufs = self._bufs()
        pre, pos, neg, floor, decay, weight = job.coeffs
        if boundary is None:
            boundary = np.zeros((1, 1, 2, 1))
        c0, c1 = children or (t.boards.child_start[b0], t.boards.child_end[b0])
        if isinstance(src, _Compact):
            values = compact_values(src.src, src.avg)
        else:
            values = float_values(src[0], src[1], reg[0], reg[1], avg[0], avg[1])
        _kernel()(
            self.kernel_tree(), self._walk_plan(region, b0, c0, c1, seg_board_lo),
            values,
            Pass(int(job.upd_mask), int(job.avg_mask if do_backward else 0), int(job.val_mask), int(job.br_player),
                 float(pre), float(pos), float(neg), float(floor), float(decay), float(weight), bool(job.prune),
                 int(job.sample), np.uint64(job.key()), int(job.sampling_player())),
            entry, int(boundary_mode), boundary, bool(do_backward), bufs,
        )
        return bufs.out_cfv.copy()

    def _segment_arrays(self, store, key, seg, job: _Job, pj: PassJob | None):
        """(src, reg, avg) of one open segment for the kernel (see solverkit.core.passes); from a
        compact store, where the kernel can apply the pass itself, the block16 values live
        (:class:`_Compact`, three times: the kernel updates them in place)."""
        if getattr(seg, "compact", None) is not None and self._kernel_compact(job, pj):
            c = _Compact.of(seg, job, pj)
            return c, c, c
        return segment_arrays(store, seg, key, pj, job.upd_mask, job.avg_mask, job.source)

    def _kernel_compact(self, job: _Job, pj: PassJob | None) -> bool:
        """True when the kernel can work on block16 values itself: a policy source it reads as
        stored (regrets or averages), and a pass whose rule and averaging
        update in the kernel and play the regrets (else the segment is decoded to float64)."""
        if job.source not in ("regret", "avg"):
            return False
        if pj is None:
            return True
        rule, averaging = pj.rule, pj.averaging
        return (rule.inline and rule.plain_policy and not rule.state
                and (averaging.inline or not averaging.keeps_average) and job.source == "regret")

    @staticmethod
    def _writes(job: _Job, pj):
        """Arrays a pass changes: the updated players' regrets and rule state, the growing averages."""
        if pj is None:
            return ()
        return writes(pj, job.upd_mask, job.avg_mask)

    def _finish_segment(self, seg, reg, avg, job: _Job, pj: PassJob | None):
        finish_segment(seg, reg, avg, pj, job.upd_mask, job.avg_mask)

    def _root_entry(self):
        """Reach [2, H] at the root: 1 for every hand valid on the empty board (made once; the
        kernels only read it)."""
        entry = self.__dict__.get("_entry")
        if entry is None:
            v = self.tree.valid[0].astype(np.float64)
            entry = self._entry = np.stack([v, v])
        return entry

    def _root_value(self, out, p) -> float:
        """Player p's value from the root's per-hand values: each hand's weighted by its chance
        at the root (the reach it entered with: 1 for every hand of a game dealt uniformly)."""
        return float((out[p] * self._root_entry()[p]).sum())

    def _pass(self, store, job: _Job, transport, pj: PassJob | None = None):
        """Run one walk over the whole game (split or not); return root values [2, H]."""
        t = self.tree
        if not self.split:
            chunks = self._deal_chunks(transport, job)
            with store.open("root", self._writes(job, pj)) as seg:
                src, reg, avg = self._segment_arrays(store, "root", seg, job, pj)
                if chunks:
                    out = self._chunked_call(transport, chunks, src, reg, avg, job)
                else:
                    out = self._call(self.full, 0, self._root_entry(), t.boards.round_start, src, reg, avg, job)
                self._finish_segment(seg, reg, avg, job, pj)
            return out
        s = self.split
        boundary, inputs = self.trunk_reach(store, job)
        self._trim(store)
        base = int(t.boards.round_start[s - 1])
        keys = self._keys
        if job.sample != MODE_FULL:  # only the subgames below the cut board the trunk dealt
            keys = self.sampled_keys(job)
            inputs = {k: inputs[k] for k in keys}
            store.expect([self._segment_name(k) for k in keys])
        else:
            store.expect(self._segment_names)
        shape = boundary.shape
        # the reach buffer lives on in the views of `inputs` only, which a transport may take
        # out as it sends them (full hold'em: 2.3 GB freed before the values come back)
        del boundary
        outputs = transport.map_subgames((job, pj), inputs) if transport is not None else {
            k: self.subgame_pass(k, (job, pj), v, store) for k, v in inputs.items()}
        del inputs
        # the way up reads the values of the players in val_mask only (a subgame returns those)
        boundary = np.zeros((*shape[:2], *self.subgame_output_shape((job, pj))))
        for key in keys:  # chunks add up in a fixed order, whatever order they finished in
            e, b, _ = key
            boundary[self.re_index[e], b - base] += outputs[key]
        del outputs  # (2.3 GB for full hold'em) before the trunk's arrays are decoded for the way up
        # up: values from the subgames, trunk updates
        with store.open("trunk", self._writes(job, pj)) as seg:
            src, reg, avg = self._segment_arrays(store, "trunk", seg, job, pj)
            out = self._call(self.trunk, 0, self._root_entry(), t.boards.round_start, src, reg, avg, job,
                             boundary_mode=2, boundary=boundary)
            del boundary  # freed before the updated arrays are encoded
            self._finish_segment(seg, reg, avg, job, pj)
        self._trim(store)
        return out

    def _trim(self, store):
        """A trunk-only trunk's store holds one segment, decoded twice a pass, between which
        the transport's buffers come and go: it keeps no spare decode buffers (full hold'em:
        5 GB) through them."""
        if self.trunk_only and hasattr(store, "free_spare_buffers"):
            store.free_spare_buffers()

    def sampled_keys(self, job: _Job) -> list:
        """The subgame keys a sampled pass hands out: those below the cut board that the trunk's
        walk deals (the same draws, :func:`.kernels.sample_path`), and of its chunks the one
        holding the board dealt below it (a trunk-only game, which lacks those boards, hands out
        every chunk of the cut board: the others walk nothing)."""
        t = self.tree
        b = t.boards
        s = self.split
        key = job.key()
        path, _ = sample_path(key, 0, s - 1, self.board_codes(), b.child_start, b.child_end, b.perm_start, b.perm_end)
        cut = int(path[-1])
        chunks = self._chunks[cut]
        if self.below is None and len(chunks) > 1:
            child = int(sample_path(key, cut, 1, self.board_codes(), b.child_start, b.child_end, b.perm_start,
                                    b.perm_end)[0][1])
            chunks = [next((c0, c1) for c0, c1 in chunks if c0 <= child < c1)]
        index = {c: j for j, c in enumerate(self._chunks[cut])}
        return [(e, cut, index[c]) for e in self.entries for c in chunks]

    def board_codes(self) -> np.ndarray:
        """int64 [boards]: each board named by its round and cards (not its index, which differs
        in a worker's smaller game): the node of its draw in a sampled pass's stream."""
        codes = self.__dict__.get("_board_codes")
        if codes is None:
            b = self.tree.boards
            rnd = np.searchsorted(b.round_start, np.arange(b.cards.shape[0]), side="right") - 1
            code = rnd.astype(np.uint64)
            with np.errstate(over="ignore"):
                for j in range(b.cards.shape[1]):
                    code = code * np.uint64(131) + (b.cards[:, j] + 1).astype(np.uint64)
            codes = self._board_codes = (code >> np.uint64(1)).astype(np.int64)
        return codes

    def _parallel_deals(self, transport) -> bool:
        """Whether full passes of this whole game walk their boards in chunks on threads."""
        return (not self.split and bool(self.config.get("parallel_deals")) and transport is not None
                and transport.local_threads() > 1 and self.gd.num_rounds > 1)

    def _deal_chunks(self, transport, job: _Job):
        """Ranges [first, end) of the boards dealt after the first round that a whole walk runs in
        parallel ([game] parallel_deals, a transport with threads here, a full pass), balanced by
        the boards below each; None: one walk."""
        if job.sample != MODE_FULL or not self._parallel_deals(transport):
            return None
        threads = transport.local_threads()
        chunks = self.__dict__.get("_deal_chunk_list")
        if chunks is None:
            b = self.tree.boards
            c0, c1 = int(b.child_start[0]), int(b.child_end[0])
            chunks = self._deal_chunk_list = _balanced_ranges(c0, _boards_below(b, c0, c1), 2 * threads)
        return chunks if len(chunks) > 1 else None

    def _chunked_call(self, transport, chunks, src, reg, avg, job: _Job):
        """One pass of a whole game as chunks of the first round's child boards on the transport's
        threads (kernel boundary mode 3: each chunk leaves its boards' values below the first
        round's round-end nodes in a buffer), then the first round itself (mode 4) collecting them
        board by board: the same sums as one walk, bit for bit. Chunks write disjoint values (their
        own boards'); only the last walk writes the first round's."""
        t = self.tree
        lo = t.boards.round_start
        entry = self._root_entry()
        buf = self.__dict__.get("_deal_buffer")
        if buf is None:
            ends = int(np.count_nonzero((t.bet.kind == ROUND_END) & (t.bet.round == 0)))
            kids = int(t.boards.child_end[0] - t.boards.child_start[0])
            buf = self._deal_buffer = np.zeros((ends, kids, 2, t.max_hands))
        else:
            buf.fill(0.0)

        def chunk(bounds):
            self._call(self.full, 0, entry, lo, src, reg, avg, job, boundary_mode=3, boundary=buf, children=bounds)

        transport.map_local(chunk, chunks)
        return self._call(self._first_round(), 0, entry, lo, src, reg, avg, job, boundary_mode=4, boundary=buf)

    def _first_round(self) -> _Region:
        """The whole game's layout walked over its first round only (r_end = r0)."""
        top = self.__dict__.get("_first_round_region")
        if top is None:
            top = self._first_round_region = replace(self.full, r_end=self.full.r0)
        return top

    def pass_nodes(self, job: _Job) -> int:
        """Public nodes (betting decision node, board: one vector over the hands each) that a
        pass visits: every board's, or one board's per round for a sampled pass
        (``nodes_touched``; counted from the tree, the same wherever the subgames ran)."""
        counts = self.__dict__.get("_node_counts")
        if counts is None:
            bet = self.tree.bet
            per_round = np.array([np.count_nonzero((bet.kind == DECISION) & (bet.round == r))
                                  for r in range(self.gd.num_rounds)], dtype=np.int64)
            counts = self._node_counts = (int(per_round @ np.diff(self.round_start)), int(per_round.sum()))
        return counts[0] if job.sample == MODE_FULL else counts[1]

    def trunk_reach(self, store, job: _Job):
        """The trunk's down walk: (boundary buffer, {subgame key: reach [2, H] at the cut})."""
        t = self.tree
        nre = int(np.count_nonzero(self.re_index[self.entries] >= 0))
        boundary = np.zeros((nre, len(self.sub_boards), 2, t.max_hands))
        with store.open("trunk", ()) as seg:  # read only: its buffers go back to the store's pool
            src, reg, avg = self._segment_arrays(store, "trunk", seg, job, None)
            self._call(self.trunk, 0, self._root_entry(), t.boards.round_start, src, reg, avg, job,
                       boundary_mode=1, boundary=boundary, do_backward=False)
            del src, reg, avg
        base = int(t.boards.round_start[self.split - 1])
        # views, not copies (2.3 GB for full hold'em): the transport reads them before _pass
        # reuses the buffer for the subgames' values
        return boundary, {key: boundary[self.re_index[key[0]], key[1] - base] for key in self._keys}

    def subgame_pass(self, key, job, inputs, store):
        """Values [players in the job's val_mask, H] at the cut for subgame segment key =
        (round-end node, board, chunk), given the reach [2, H] there."""
        if self.below is not None:
            raise ConfigError(f"game {self.name!r} was built with [game] trunk_only = true: it holds no subgame "
                              f"(asked for {key!r}); run its subgames on workers with [transport] name = \"zmq\"")
        kjob, pj = job
        e, b, j = key
        region, first = self._sub_region(e, b, j)
        c0, c1 = self._chunks[b][j]
        name = self._segment_name(key)
        with store.open(name, self._writes(kjob, pj)) as seg:
            src, reg, avg = self._segment_arrays(store, name, seg, kjob, pj)
            out = self._call(region, b, inputs, first, src, reg, avg, kjob, children=(c0, c1))
            self._finish_segment(seg, reg, avg, kjob, pj)
        return out if kjob.val_mask == 3 else out[_players(kjob.val_mask)]

    def cfr_pass(self, store, job: PassJob, transport=None) -> int:
        """One pass (full or sampled, as job.sampler says); returns the public nodes visited."""
        kjob = self.kernel_job(job)
        self._pass(store, kjob, transport, job)
        return self.pass_nodes(kjob)

    def blocks_passes(self, rule, averaging, store) -> bool:
        """True when :meth:`cfr_block` runs a block of passes in one kernel call: a whole (unsplit)
        game, a rule that updates in the kernel and plays its regrets, an averaging scheme in
        the kernel or none, and a store that keeps doubles as they are (a lossy store rounds at
        every encode, which one call per block would skip)."""
        return (not self.split and rule.inline and rule.plain_policy and not rule.state
                and (averaging.inline or not averaging.keeps_average) and store.codec.passthrough)

    def cfr_block(self, store, block: PassBlock, transport=None) -> int:
        """A block of passes: one kernel call (:func:`.kernels.dfs_block`) where
        :meth:`blocks_passes` allows, with the numbers of one call per pass; else pass by pass."""
        if not self.blocks_passes(block.rule, block.averaging, store) or self._parallel_deals(transport):
            return sum(self.cfr_pass(store, job, transport) for job in block.jobs())
        upd, avgm, coeffs, prunes, modes, keys, samp, nodes = self._block_arrays(block)
        upd_all, avg_all = int(np.bitwise_or.reduce(upd)), int(np.bitwise_or.reduce(avgm))
        pj = PassJob(block.first, (0, 1), block.rule, block.averaging, block.sampler)
        t = self.tree
        region = self.full
        with store.open("root", writes(pj, upd_all, avg_all)) as seg:
            src, reg, avg = segment_arrays(store, seg, "root", pj, upd_all, avg_all)
            dfs_block(self.kernel_tree(),
                      self._walk_plan(region, 0, t.boards.child_start[0], t.boards.child_end[0], t.boards.round_start),
                      float_values(src[0], src[1], reg[0], reg[1], avg[0], avg[1]), self._root_entry(),
                      upd, avgm, coeffs, prunes, modes, keys, samp, self._bufs())
        return nodes

    def _block_arrays(self, block: PassBlock):
        """The per-pass arrays of a block for :func:`.kernels.dfs_block` (update masks, average
        masks, coefficients, pruning, sampling mode, stream key, sampling player) and the public
        nodes it visits: what :meth:`kernel_job` gives each pass. A block of full passes is
        built from one coefficient call per iteration (Python per pass cost Leduc a fifth of
        its time); a sampled block pass by pass (its draws and checks are per pass)."""
        sampler = block.sampler
        if sampler is not None and sampler.sampled:
            kjobs = [self.kernel_job(job) for job in block.jobs()]
            return (np.array([k.upd_mask for k in kjobs], dtype=np.int64),
                    np.array([k.avg_mask for k in kjobs], dtype=np.int64),
                    np.array([k.coeffs for k in kjobs], dtype=np.float64).reshape(-1, 6),
                    np.array([k.prune for k in kjobs], dtype=np.bool_),
                    np.array([k.sample for k in kjobs], dtype=np.int64),
                    np.array([k.key() for k in kjobs], dtype=np.uint64),
                    np.array([k.sampling_player() for k in kjobs], dtype=np.int64),
                    sum(self.pass_nodes(k) for k in kjobs))
        groups = [tuple(p) for p in block.groups]
        g, n = len(groups), block.count * len(groups)
        per_it = np.array([kernel_coefficients_at(t, block.rule, block.averaging)
                           for t in range(block.first, block.first + block.count)], dtype=np.float64)
        coeffs = np.repeat(per_it.reshape(-1, 6), g, axis=0)
        upd = np.tile(np.array([_bits(p) for p in groups], dtype=np.int64), block.count)
        others = np.tile(np.array([_bits(_others(p)) for p in groups], dtype=np.int64), block.count)
        pre, pos, neg, decay, weight = coeffs[:, 0], coeffs[:, 1], coeffs[:, 2], coeffs[:, 4], coeffs[:, 5]
        grows = block.averaging.keeps_average & ((weight != 0.0) | (decay != 1.0))
        avgm = np.where(grows, others, 0).astype(np.int64)
        prunes = _prunable(bool(self.pruning), pre, pos, neg, avgm, decay)
        full = _Job(1, 0, 1, -1, NO_COEFFS)
        return (upd, avgm, coeffs, prunes.astype(np.bool_), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.uint64),
                np.full(n, -1, dtype=np.int64), n * self.pass_nodes(full))

    def check_sampler(self, sampler, solver: dict) -> None:
        """public_external explores one player's actions and samples the other's: a pass per
        player, so it needs alternating updates here (both players' regrets from one profile
        would need a copy of one player's regrets: a sweep)."""
        if sampler.scheme == "public_external" and solver.get("update") == "simultaneous":
            raise ConfigError(
                f"[sampler] name = {sampler.name!r} on game {self.name!r} needs [solver] update = \"alternating\" "
                "(each pass explores one player's actions and samples the other's); use alternating updates "
                "(preset cfr_plus) or [sampler] name = \"public_chance\"")

    def kernel_job(self, job: PassJob) -> _Job:
        """The kernel settings of a CFR pass (what cfr_pass hands the trunk and subgames)."""
        players = job.players
        others = _others(players)
        keep = job.averaging.keeps_average
        coeffs = kernel_coefficients(job)
        pre, pos, neg, floor, decay, weight = coeffs
        avg_mask = _bits(others) if keep and (weight != 0.0 or decay != 1.0) else 0
        # a subtree that nothing reaches gets zero updates; skipping it is exact when a zero
        # update leaves regrets (no discount, and a stateless rule) and averages (no decay) as they are
        # (a custom rule's update runs over the whole array after the kernel, so its
        # instantaneous regrets may skip what nothing reaches: they are zero there)
        prune = bool(_prunable(bool(self.pruning), pre, pos, neg, avg_mask, decay))
        sampler = job.sampler
        mode = _MODES[sampler.scheme] if sampler is not None and sampler.sampled else MODE_FULL
        if mode != MODE_FULL:
            sampler.check_coefficients(job.rule, job.averaging, job.iteration)
            if mode == MODE_EXTERNAL and len(players) != 1:
                self.check_sampler(sampler, {"update": "simultaneous"})
        upd = _bits(players)
        return _Job(upd, avg_mask, upd, -1, coeffs, job.rule.inline, job.averaging.inline, prune=prune,
                    sample=mode, stream=(int(sampler.seed), int(job.iteration), upd - 1) if mode else (0, 0, 0))

    # --- evaluation --------------------------------------------------------------------------

    def best_response(self, strategy):
        """(br_0, br_1) against a flat per-player strategy over the unsplit layout."""
        self._whole_tree("a best response to a whole-game strategy")
        vals = []
        t = self.tree
        for p in (0, 1):
            job = _Job(0, 0, 1 << p, p, NO_COEFFS)
            out = self._call(self.full, 0, self._root_entry(), t.boards.round_start, strategy, strategy,
                             [np.zeros(1), np.zeros(1)], job)
            vals.append(self._root_value(out, p))
        return vals[0], vals[1]

    def best_response_from_store(self, store, kind, transport=None):
        """(br_0, br_1) of the stored average (or current) strategy, walking the segments as a
        CFR pass does (trunk, subgames through the transport, trunk), max at the responder's
        nodes. Cumulative strategies are used unnormalised: the walk normalises per hand."""
        if kind == "average" and store.specs[next(iter(store.specs))].arrays.get("avg0") is None:
            return None
        source = "avg" if kind == "average" else "regret"
        vals = []
        for p in (0, 1):
            job = _Job(0, 0, 1 << p, p, NO_COEFFS, source=source)
            out = self._pass(store, job, transport)
            vals.append(self._root_value(out, p))
        return vals[0], vals[1]

    def expected_values(self, strategy) -> tuple[float, float]:
        """(v_0, v_1): each player's expected payoff (chips) when both play `strategy`."""
        self._whole_tree("the expected values of a whole-game strategy")
        t = self.tree
        job = _Job(0, 0, 3, -1, NO_COEFFS)
        out = self._call(self.full, 0, self._root_entry(), t.boards.round_start, strategy, strategy,
                         [np.zeros(1), np.zeros(1)], job)
        return self._root_value(out, 0), self._root_value(out, 1)

    def strategy(self, store, which):
        """Flat per-player policies over the unsplit layout, gathered from every segment."""

        return [self.strategy_of(store, which, p) for p in (0, 1)]

    def strategy_of(self, store, which, player, out=None, release=None):
        """One player's flat policy over the unsplit layout, gathered segment by segment: each
        segment is normalised on its own (information sets never straddle segments) and copied
        into `out` (a new array, or for example a memory-mapped file), and `release()` is called
        after each one, so only one segment's values are in memory besides `out`."""
        from ..core.arith import regret_matching
        from ..core.layout import parts, policy, policy_in_parts

        def values(seg_name):
            seg = store.read(seg_name)
            return policy_source(store, seg, seg_name, player) if which == "current" else seg[f"avg{player}"]

        if out is None:
            out = np.zeros(self.layout(player).size)
        if not self.split:  # straight into `out`, part by part, so a memory map's pages can go
            seg = store.read("root")
            rule = rule_of(store)
            name = f"avg{player}" if which != "current" else f"regret{player}"
            if hasattr(seg, "decode_range") and (which != "current" or rule is None or rule.plain_policy):
                # a compact store: decoded part by part too, never resident whole
                src = functools.partial(seg.decode_range, name)
            else:
                src = values("root")
            policy_in_parts(src, self.layout(player), out.view(np.ndarray), release)
            return out
        segments = [(self.trunk, None, "trunk")]
        # a trunk-only game decodes a subgame with a game built for its cut board: board by board
        keys = self._keys if self.below is None else sorted(self._keys, key=lambda k: (k[1], k[0], k[2]))
        for key in keys:
            region, first = self._sub_region(*key)
            segments.append((region, first, self._segment_name(key)))
        for region, first, seg_name in segments:
            seg = store.read(seg_name)
            layout = self._layout_of(region, player)
            if hasattr(seg, "decode_range") and (which != "current" or rule_of(store) is None
                                                 or rule_of(store).plain_policy):
                # a compact store: a part decoded at a time, never the segment whole; small parts,
                # since one part's blocks land on every board of the whole-game layout, and a
                # memory-mapped `out` holds a page (a large folio) per board touched until release
                name = f"avg{player}" if which != "current" else f"regret{player}"
                for lo, hi, start, stop in parts(layout, SCATTER_PART_VALUES):
                    pol = np.empty(stop - start)
                    regret_matching(seg.decode_range(name, start, stop), layout.block_start[lo:hi] - start,
                                    layout.block_count[lo:hi], layout.block_actions[lo:hi], pol)
                    self._scatter(out, region, pol, first, player, (lo, hi), start)
                    if release is not None:
                        release()
            else:
                pol = policy(values(seg_name), layout)
                for lo, hi, start, _ in parts(layout, SCATTER_PART_VALUES):
                    self._scatter(out, region, pol[start:], first, player, (lo, hi), start)
                    if release is not None:
                        release()
                del pol
        return out

    def segment_policy(self, store, segment, which, player):
        """`player`'s policy over one segment (the trunk, or a subgame chunk) in the segment's
        own layout, as :meth:`strategy_of` computes it before scattering it."""
        from ..core.layout import policy

        region, _ = self._segment_region(segment)
        seg = store.read(segment)
        values = policy_source(store, seg, segment, player) if which == "current" else seg[f"avg{player}"]
        return policy(values, self._layout_of(region, player))

    def infoset_place(self, key, player=None):
        """'<hand>|<board>|<betting>' (as :meth:`infoset_keys` names it, or with any suits and card
        order: mapped to the canonical key stored) -> where it is stored: parsed, not looked up
        among every key, so that it costs nothing like the game's size."""
        from ..core.game import InfosetPlace
        from ..errors import SolverkitError
        from .infoset_key import resolve_key

        t, bet = self.tree, self.tree.bet
        found = resolve_key(self, key)
        h, g, n = found.hand, found.board, found.node
        r = int(bet.round[n])
        start = t.boards.round_start
        p = int(bet.player[n])
        if player is not None and player != p:
            raise SolverkitError(f"information set {key!r} is player {p}'s, not player {player}'s")
        A = int(bet.num_actions[n])
        s = self.split
        if not s or r < s:
            region, seg, first = (self.trunk if s else self.full), ("trunk" if s else "root"), start
        else:
            e = n
            while bet.round[e] >= s:  # up to the end of round s - 1: the subgame's entry
                e = int(bet.parent[e])
            lineage = [g]
            while len(lineage) <= r - (s - 1):
                lineage.append(int(t.boards.parent[lineage[-1]]))
            b, g_s = lineage[r - (s - 1)], lineage[r - s]  # the boards of rounds s - 1 and s
            j = next(j for j, (c0, c1) in enumerate(self._chunks[b]) if c0 <= g_s < c1)
            region, first = self._sub_region(e, b, j)
            seg = self._segment_name((e, b, j))
        seg_offset = int(region.node_off[n] + (g - int(first[r])) * region.stride[p, r]) + h * A
        return InfosetPlace(key, p, self.value_offset(n, g, h), tuple(self.action_labels(n)), seg, seg_offset,
                            found.key)

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

    def warmup(self):
        """Load the kernel: a best-response walk over the trunk alone where the game is cut, over
        the first round alone where it is whole (a whole game's strategy would cost as much memory
        as the store: 466 MB for a large flop)."""
        t = self.tree
        if not self.split:
            src = [np.full(max(int(self.full.stride[p, self.full.r0]), 1), 0.5) for p in (0, 1)]
            self._call(self._first_round(), 0, self._root_entry(), t.boards.round_start, src, src,
                       [np.zeros(1), np.zeros(1)], _Job(0, 0, 1, 0, NO_COEFFS))
            self._warm_block()
            return
        src = [np.full(self.trunk.sizes[p], 0.5) for p in (0, 1)]
        boundary = np.zeros((int(np.count_nonzero(self.re_index[self.entries] >= 0)), len(self.sub_boards), 2,
                             t.max_hands))
        self._call(self.trunk, 0, self._root_entry(), t.boards.round_start, src, src, [np.zeros(1), np.zeros(1)],
                   _Job(0, 0, 1, 0, NO_COEFFS), boundary_mode=1, boundary=boundary, do_backward=False)

    def _warm_block(self):
        """Compile or load dfs_block: an empty block (no pass) over the whole game."""
        t = self.tree
        z = np.zeros(1)
        none = np.zeros(0, dtype=np.int64)
        dfs_block(self.kernel_tree(),
                  self._walk_plan(self.full, 0, t.boards.child_start[0], t.boards.child_end[0], t.boards.round_start),
                  float_values(z, z, z, z, z, z), self._root_entry(), none, none, np.zeros((0, 6)),
                  np.zeros(0, dtype=np.bool_), none, np.zeros(0, dtype=np.uint64), none, self._bufs())

    def with_abstraction(self, abstraction, definition: dict):
        """This game over the card abstraction's buckets (:mod:`.abstracted`): the store holds
        abstract arrays; strategies and best responses stay the real game's."""
        from ..abstraction.spec import CardSpec
        from .abstracted import abstracted

        return abstracted(self, abstraction.table(CardSpec.of_game(self)), definition)

    # --- presentation ------------------------------------------------------------------------

    def definition(self) -> dict:
        """The name and parameters, and the rules the game definition gives (every GameDef
        field: blinds, first player, hole cards ...), whichever file or name they came from. A
        field with a default is left out while it holds it, so that a field added later (with
        the default earlier games had) does not change the identity of runs already saved."""
        from dataclasses import MISSING

        rules = {f.name: getattr(self.gd, f.name) for f in fields(self.gd)
                 if f.name != "source" and (f.default is MISSING or getattr(self.gd, f.name) != f.default)}
        return {**super().definition(), "rules": rules}

    def units(self) -> tuple[Unit, ...]:
        """mbb/g: 1000 milli-big-blinds per big blind (the game definition's big blind); the
        metrics column exploitability_mbb and the target [solver] target_mbb."""
        return (Unit("mbb/g", "mbb", 1000.0 / self.gd.big_blind, "milli-big-blinds per game"),)

    openspiel_exports = "kuhn, leduc (and acpc with those game definitions)"

    def openspiel_table(self, strategy) -> dict:
        """OpenSpiel information-state string -> {action id: probability} (Kuhn and Leduc)."""
        from .openspiel import openspiel_table

        return openspiel_table(self, strategy)

    def infoset_keys(self, player):
        """'<hand>|<board>|<betting>' for each (decision node, board, hand) of the player, in
        layout order."""
        self._whole_tree("the information-set keys (every board's cards)")
        t = self.tree
        bet = t.bet
        S, R = self.gd.num_suits, self.gd.num_ranks
        hands = ["".join(card_name(c, S, R) for c in row) for row in t.side(player).hands]
        keys = []
        for n, k in zip(*self.full.units[player]):
            g = int(t.boards.round_start[bet.round[n]]) + int(k)
            board = "".join(card_name(c, S, R) for c in t.boards.cards[g, : t.boards.num_cards[g]])
            keys.extend(f"{name}|{board}|{bet.history[n]}" for name in hands)
        return keys

    def impossible_infosets(self, player):
        """True for each (node, board, hand) slot of `player` whose hand shares a card with the
        board (the layout keeps a slot per hand on every board), in layout order."""
        t = self.tree
        nodes, k = self.full.units[player]
        boards = t.boards.round_start[t.bet.round[nodes]] + k
        return ~t.side(player).valid[boards].astype(bool).ravel()

    def infoset_actions(self, player):
        """Action labels ('f', 'c', 'r') of each information set of `player`, in layout order."""
        out = []
        for n in self.full.units[player][0]:
            labels = self.action_labels(int(n))
            out.extend([labels] * self.tree.hands_of(player))
        return out

    def report_strategy(self, strategy, limit: int = 200):
        """``solverkit report``: the preflop chart for two hole cards, else per-hand action
        probabilities at the first decision and at the answer to an opening raise."""
        import tempfile

        from ..core.report import table
        from .preflop import plot_preflop, preflop_nodes

        out = []
        if self.gd.num_hole_cards == 2:
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "preflop.png"
                plot_preflop(self, strategy, path, title=f"{self.name}: preflop (fold red, call blue, raise green)")
                out.append(("preflop chart", path.read_bytes()))
            return out
        S, R = self.gd.num_suits, self.gd.num_ranks
        for title, node in preflop_nodes(self):
            labels = self.action_labels(node)
            p = int(self.tree.bet.player[node])
            rows = {}  # (suit class, shown probabilities) -> hand names
            for h, cards in enumerate(self.tree.hands):
                off = self.value_offset(node, 0, h)
                probs = tuple(f"{x:.3f}" for x in strategy[p][off: off + len(labels)])
                name = "".join(card_name(int(c), S, R) for c in cards)
                rows.setdefault((suit_class(cards, S), probs), []).append(name)
            shown = [(" ".join(names) if len(names) <= 4 else f"{names[0]} (+{len(names) - 1} suit images)", *probs)
                     for (_, probs), names in rows.items()]
            more = f" (first {limit} of {len(shown)})" if len(shown) > limit else ""
            out.append((f"{title}: action probabilities per hand, suit images that play alike on one row{more}",
                        table(("hands", *labels), shown[:limit])))
        return out

    def action_labels(self, node: int) -> list[str]:
        bet = self.tree.bet
        return [ACTION_CHARS[a] for a in bet.actions[node, : bet.num_actions[node]]]
