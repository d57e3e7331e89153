"""Depth-limited search (Brown, Sandholm & Amos 2018, "Depth-Limited Solving for Imperfect-
Information Games"; Pluribus): re-solve each public state at the start of round `s` with the
blueprint's ranges (as unsafe re-solving does), but only to the end of round s + depth - 1.
At each leaf (a round-end node there) the searching player's opponent picks, per hand, one of k
continuation strategies for the rest of the game (the searcher plays the blueprint beyond it):
a decision of the opponent with k actions inside the subgame's CFR.

The leaf values come from walks of the rest of the game below each leaf under each
continuation with the current reaches, every pass (they are linear in the reaches): k walks
per leaf and pass, which small games afford (Leduc, Leduc-13, ...); large games would need
leaf values precomputed once (matrices per leaf and continuation). The head of the subgame is
walked twice a pass by the engine's kernel: boundary mode 1 (the reaches at the leaves), then
mode 2 (the leaf values read in, CFR+ with linear averaging as the other re-solves).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..core.passes import NO_COEFFS
from ..errors import ConfigError
from ..poker.betting import ROUND_END
from ..poker.kernels import MODE_FULL, Pass, float_values
from ..poker.pass_settings import _Job
from ..poker.walks import _kernel
from .continuations import DEFAULT_CONTINUATIONS, biased, check_options
from .resolve import SearchStats, _trunk_reach, split_game, to_segment


@dataclass
class Head:
    """One public state's depth-limited subgame: the region walked (rounds r0..L from node n0),
    its first board b0 and child boards, first board per round, the ranges entering it, and the
    game object whose kernel walks it (any game of the same tree)."""

    key: tuple
    game: object
    region: object
    b0: int
    children: tuple | None
    first: np.ndarray
    count: np.ndarray  # boards per round in the region
    entry: np.ndarray  # [2, H] reach at the root


@dataclass
class _Leaf:
    """A leaf (round-end node e on board g of the last round re-solved) and the rest of the game
    below it: the region of the cut game, its first boards and child boards, and per
    continuation the two players' policies there (searcher: blueprint, opponent: continuation)."""

    j: int  # round-end index of e (the boundary's first axis)
    bi: int  # g's index among the head's boards of its round
    plan: object  # the kernel's Walk of the rest of the game below e on g
    values: list  # per continuation: the kernel's Values of [player 0's policy, player 1's] there


def heads(real, cut, s: int, last: int, per_card: bool, strategy) -> list[Head]:
    """The depth-limited subgames of rounds s..last: from the root when s = 0, else one per
    public state at the start of round s (`per_card`: after its new cards), entering with the
    ranges `strategy` gives. `cut`: the game split after round `last` (None: last is the last)."""
    R = real.gd.num_rounds
    if s == 0:
        game = real if cut is None else cut
        return [Head((), game, game.trunk, 0, None, real.round_start, np.diff(real.round_start), real._root_entry())]
    game = split_game(real, s, per_card)
    reach = _trunk_reach(game, strategy)
    out = []
    cache = {}
    for key in game.subgame_keys():
        e, b, j = key
        first, count = game._chunk_boards(b, j)
        if last == R - 1:
            region = game._sub_region(e, b, j)[0]
        else:
            ck = (e, tuple(int(x) for x in count))
            region = cache.get(ck)
            if region is None:
                slo, shi = game._sub_bounds[e]
                region = cache[ck] = game._region(s - 1, last, e, slo, shi, count)
        out.append(Head(key, game, region, b, game._chunks[b][j], first, count, np.ascontiguousarray(reach[key])))
    return out


class LeafGame:
    """CFR+ with linear averaging over one head whose leaves are the opponent's choice among
    continuation strategies (`me`: the searching player). Without leaves (the head reaches the
    end of the game) it is unsafe re-solving of the head, pass for pass."""

    def __init__(self, head: Head, cut, strategy, me: int, continuations=DEFAULT_CONTINUATIONS, bias: float = 5.0):
        g = head.game
        t = g.tree
        self.head, self.me, self.opp = head, me, 1 - me
        self.H = t.max_hands
        sizes = head.region.sizes
        self.reg = [np.zeros(sizes[0]), np.zeros(sizes[1])]
        self.avg = [np.zeros(sizes[0]), np.zeros(sizes[1])]
        self.k = len(continuations)
        self.dummy = [np.zeros(1), np.zeros(1)]
        self.no_boundary = np.zeros((1, 1, 2, 1))
        self.leaves = [] if cut is None else self._leaves(cut, strategy, continuations, bias)
        n = len(self.leaves)
        self.regret = np.zeros((n, self.k, self.H))  # the opponent's leaf regrets (CFR+)
        self.leaf_avg = np.zeros((n, self.k, self.H))
        r = head.region
        last = int(r.r_end)
        nre = int(np.count_nonzero((t.bet.kind == ROUND_END) & (t.bet.round == last)))
        nb = max((lf.bi for lf in self.leaves), default=0) + 1
        self.reach_b = np.zeros((nre, nb, 2, self.H))
        self.value_b = np.zeros((nre, nb, 2, self.H))

    def _leaves(self, cut, strategy, continuations, bias) -> list[_Leaf]:
        head = self.head
        t = cut.tree
        bet = t.bet
        r = head.region
        last = int(r.r_end)
        nodes = np.arange(r.round_lo[last], r.round_hi[last])
        ends = nodes[bet.kind[nodes] == ROUND_END]
        g0, nb = int(head.first[last]), int(head.count[last])
        out = []
        for e in ends:
            for g in range(g0, g0 + nb):
                region, first = cut._sub_region(int(e), g, 0)
                mine = to_segment(cut, strategy[self.me], region, first, self.me)
                theirs = to_segment(cut, strategy[self.opp], region, first, self.opp)
                values = []
                for name in continuations:
                    pair = [None, None]
                    pair[self.me] = mine
                    pair[self.opp] = biased(cut, region, self.opp, theirs, name, bias)
                    values.append(float_values(pair[0], pair[1], pair[0], pair[1], *self.dummy))
                c0, c1 = cut._chunks[g][0]
                out.append(_Leaf(int(cut.re_index[e]), g - g0, cut._walk_plan(region, g, c0, c1, first), values))
        return out

    def leaf_policy(self) -> np.ndarray:
        """[leaves, k, H]: the opponent's current leaf policy (regret matching; uniform at no regret)."""
        pos = np.maximum(self.regret, 0.0)
        total = pos.sum(axis=1, keepdims=True)
        return np.where(total > 0.0, pos / np.where(total > 0.0, total, 1.0), 1.0 / self.k)

    def average_leaf_policy(self) -> np.ndarray:
        """[leaves, k, H]: the opponent's average leaf policy (uniform where it never got there)."""
        total = self.leaf_avg.sum(axis=1, keepdims=True)
        return np.where(total > 0.0, self.leaf_avg / np.where(total > 0.0, total, 1.0), 1.0 / self.k)

    def _head_walk(self, src, reg, avg, job, mode, boundary=None, backward=True):
        h = self.head
        return h.game._call(h.region, h.b0, h.entry, h.first, src, reg, avg, job, boundary_mode=mode,
                            boundary=boundary, do_backward=backward, children=h.children)

    def _leaf_values(self, mask: int, w: np.ndarray) -> np.ndarray:
        """From the reaches in reach_b, the leaf values of the players in `mask` into value_b (the
        opponent's: its hands' values under its leaf policy w); the opponent's values per
        continuation [leaves, k, H] (zeros unless it is in mask)."""
        me, opp = self.me, self.opp
        game = self.head.game
        V = np.zeros((len(self.leaves), self.k, self.H))
        # the kernel called as GameWalks._call calls it (the same numbers), its arguments made
        # once per leaf: k walks per leaf and pass make Python's share per call count
        kernel, tree, bufs = _kernel(), game.kernel_tree(), game._bufs()
        settings = Pass(0, 0, mask, -1, *(float(x) for x in NO_COEFFS), True, MODE_FULL, np.uint64(0), -1, 1.0, 1.0)
        entry = np.zeros((2, self.H))
        for i, lf in enumerate(self.leaves):
            r = self.reach_b[lf.j, lf.bi]
            mine = np.zeros(self.H)
            for c in range(self.k):
                entry[me] = r[me]
                entry[opp] = r[opp] * w[i, c]
                # me's values are linear in the opponent's reach, the opponent's in me's
                if not ((mask >> me) & 1 and entry[opp].any()) and not ((mask >> opp) & 1 and entry[me].any()):
                    continue
                kernel(tree, lf.plan, lf.values[c], settings, entry, 0, self.no_boundary, True, bufs)
                mine += bufs.out_cfv[me]
                V[i, c] = bufs.out_cfv[opp]
            self.value_b[lf.j, lf.bi, me] = mine
            self.value_b[lf.j, lf.bi, opp] = (w[i] * V[i]).sum(axis=0)
        return V

    def run(self, p: int, t: int) -> np.ndarray:
        """Iteration t's pass updating player p (the other's average grows): p's root values [H]."""
        job = _Job(1 << p, 1 << (1 - p), 1 << p, -1, (1.0, 1.0, 1.0, 0.0, 1.0, float(t)), prune=False)
        if not self.leaves:
            return self._head_walk(self.reg, self.reg, self.avg, job, 0)[p]
        self.reach_b.fill(0.0)
        self._head_walk(self.reg, self.reg, self.avg, _Job(0, 0, 1 << p, -1, NO_COEFFS, prune=False), 1,
                        self.reach_b, backward=False)
        w = self.leaf_policy()
        V = self._leaf_values(1 << p, w)
        if p == self.opp:  # CFR+ on the opponent's leaf choice
            v = (w * V).sum(axis=1, keepdims=True)
            np.maximum(self.regret + V - v, 0.0, out=self.regret)
        else:  # the opponent's leaf average grows with its reach (linear averaging: weight t)
            r = np.stack([self.reach_b[lf.j, lf.bi, self.opp] for lf in self.leaves])
            self.leaf_avg += t * r[:, None, :] * w
        return self._head_walk(self.reg, self.reg, self.avg, job, 2, self.value_b)[p]

    def solve(self, iterations: int, deadline: float | None = None) -> int:
        """Up to `iterations` alternating iterations (player 0's pass, then player 1's), fewer
        when `deadline` (perf_counter seconds) passes first (at least one); how many ran."""
        for t in range(1, iterations + 1):
            self.run(0, t)
            self.run(1, t)
            if deadline is not None and time.perf_counter() > deadline:
                return t
        return iterations

    def values(self, src) -> np.ndarray:
        """[2, H]: both players' counterfactual values at the head's root when they play `src`
        (per player, over the head's layout) there, the opponent its current leaf policy at the
        leaves and the rest of the game as the leaves' continuations play it."""
        job = _Job(0, 0, 3, -1, NO_COEFFS, prune=False)
        if not self.leaves:
            return self._head_walk(src, src, self.dummy, job, 0)
        self.reach_b.fill(0.0)
        self._head_walk(src, src, self.dummy, job, 1, self.reach_b, backward=False)
        self._leaf_values(3, self.leaf_policy())
        return self._head_walk(src, src, self.dummy, job, 2, self.value_b)


def depth_limited_strategy(real, blueprint, iterations: int, start_round: int = 1, nested: bool = True,
                           depth: int = 1, continuations=DEFAULT_CONTINUATIONS, bias: float = 5.0,
                           per_card: bool = True, budget: float = 0.0):
    """(strategy, SearchStats): what an agent plays that re-solves every public state at the
    start of round `start_round` (0: from the deal) to the end of round start_round + depth - 1
    with continuation leaves, each player keeping its own re-solve; `nested`: again at the start
    of the next round after the depth, from the strategy re-solved so far, and so on (else the
    blueprint plays the rounds after the depth). `budget` > 0: seconds per re-solve."""
    from ..core.layout import policy

    if iterations < 1:
        raise ConfigError(f"[search] iterations = {iterations} is invalid: at least 1")
    depth, continuations, bias = check_options(depth, continuations, bias)
    R = real.gd.num_rounds
    if isinstance(start_round, bool) or not 0 <= start_round < R:
        raise ConfigError(f"[search] round = {start_round!r} is invalid for depth_limited search in game "
                          f"{real.name!r} of {R} rounds: 0 (from the deal) to {R - 1}")
    strategy = [np.array(x, dtype=np.float64) for x in blueprint]
    stats = SearchStats({}, {})
    s = start_round
    while s < R:
        last = min(s + depth - 1, R - 1)
        cut = split_game(real, last + 1, per_card=False) if last + 1 < R else None
        new = [x.copy() for x in strategy]
        stats.resolved[s], stats.kept_blueprint[s] = 0, 0
        for head in heads(real, cut, s, last, per_card, strategy):
            if not head.entry.any(axis=1).all():
                continue  # a player never gets here: nothing to re-solve
            # without leaves both players' re-solves are one (unsafe re-solving of the head)
            runs = [(0, (0, 1))] if cut is None else [(0, (0,)), (1, (1,))]
            for me, keep in runs:
                deadline = time.perf_counter() + budget / len(runs) if budget > 0 else None
                lg = LeafGame(head, cut, strategy, me, continuations, bias)
                lg.solve(iterations, deadline)
                for p in keep:
                    g = head.game
                    g._scatter(new[p], head.region, policy(lg.avg[p], g._layout_of(head.region, p)), head.first, p)
            stats.resolved[s] += 1
        strategy = new
        if not nested:
            break
        s = last + 1
    return strategy, stats
