"""Subgame re-solving from a blueprint on the poker engine: at the start of a betting round, for
every public state (betting so far, board including the round's new cards), re-solve the rest
of the game with the real cards, both players' ranges taken from the blueprint (Bayes).

Methods: ``unsafe`` (the ranges fixed, the subgame solved as if they were chance: may be more
exploitable than the blueprint), ``resolve`` (the re-solve gadget of Burch, Johanson & Bowling
2014: at the root the opponent chooses, hand by hand, between entering and the blueprint's
counterfactual value) and ``maxmargin`` (Moravčík et al. 2016: maximise the smallest margin
by which every opponent hand does worse than in the blueprint). The safe methods re-solve once
per player (each keeps its own part): the opponent's counterfactual values never exceed the
blueprint's, so the combined strategy is no more exploitable than the blueprint (Burch et al.),
up to how far the re-solve converged. Each re-solve runs CFR+ with linear averaging through the
engine's kernels (one walk of the subgame per pass).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from ..core.jit import njit

from ..core.passes import NO_COEFFS
from ..errors import ConfigError
from ..poker.game import _Job
from ..poker.kernels import copy_runs, float_values
from ..poker.walks import block_kernel

METHODS = {
    "unsafe": "the blueprint's ranges as chance at the root: fast, no safety guarantee",
    "resolve": "the re-solve gadget (Burch et al. 2014): each opponent hand may take its blueprint value instead",
    "maxmargin": "maximise the smallest margin of the opponent's hands against their blueprint values "
                 "(Moravcik et al. 2016)",
    "reach": "max-margin with each margin widened by the opponent's gifts on the way in (Brown & Sandholm 2017), "
             "shared among the public states below each gift",
}
#: every [search] name: the re-solving methods and depth-limited search (solverkit/search/depth_limited.py)
SEARCHES = {**METHODS,
            "depth_limited": "re-solve `depth` rounds with the blueprint's ranges; at the leaves the opponent picks "
                             "per hand among continuation strategies (Brown, Sandholm & Amos 2018; Pluribus)"}


@dataclass
class SubgameResult:
    """One public state's re-solve: each player's average policy over the subgame segment's
    layout, and the opponent's root values before (blueprint) and after, per re-solving player."""

    key: tuple
    policy: list
    blueprint_values: np.ndarray  # [2, H]: each player's best-response values at the root against the blueprint
    values: np.ndarray  # [2, H]: each player's best-response values at the root against the other's re-solve
    #: [2, H]: the most each player's best response may get here without the whole strategy becoming
    #: more exploitable: the blueprint's values, plus this state's share of the gifts (reach)
    allowed: np.ndarray = None


def split_game(real, start_round: int, per_card: bool = True):
    """The real game cut at `start_round`: one subgame per (betting, board with the new round's
    cards) when `per_card`, else per (betting, board before them), the new cards inside."""
    R = real.gd.num_rounds
    if R < 2:
        raise ConfigError(f"[search] round = {start_round} is invalid for game {real.name!r}: it has one betting "
                          "round, so no later round to re-solve (name = \"depth_limited\" with round = 0 re-solves "
                          "from the deal)")
    if not 1 <= start_round < R:
        raise ConfigError(f"[search] round = {start_round} is invalid for game {real.name!r} of {R} rounds: "
                          f"re-solving starts at a round with cards still to come, 1 to {R - 1}")
    return type(real)(**{**real.config, "split_round": start_round, "chunks": 10_000 if per_card else 1})


def to_segment(game, full: np.ndarray, region, first, p: int) -> np.ndarray:
    """Player p's values of the whole-game layout copied into one segment's layout (the
    inverse of PokerGame._scatter)."""
    t = game.tree
    bet = t.bet
    seg_lo = game.round_start if first is None else first
    nodes, k = region.units[p]
    rnd = bet.round[nodes]
    length = t.hands_of(p) * bet.num_actions[nodes].astype(np.int64)
    dst = region.node_off[nodes] + k * region.stride[p, rnd]
    kf = k + seg_lo[rnd] - game.round_start[rnd]
    src = game.full.node_off[nodes] + kf * game.full.stride[p, rnd]
    out = np.zeros(region.sizes[p])
    copy_runs(np.ascontiguousarray(full, dtype=np.float64), out, src, dst, length)
    return out


def _trunk_reach(game, strategy):
    """Reach [2, H] at every subgame root of `game` (split) when both play `strategy`."""
    t = game.tree
    trunk = [to_segment(game, strategy[p], game.trunk, None, p) for p in (0, 1)]
    nre = int(np.count_nonzero(game.re_index[game.entries] >= 0))
    boundary = np.zeros((nre, len(game.sub_boards), 2, t.max_hands))
    job = _Job(0, 0, 3, -1, NO_COEFFS, prune=False)
    game._call(game.trunk, 0, game._root_entry(), t.boards.round_start, trunk, trunk, [np.zeros(1), np.zeros(1)],
               job, boundary_mode=1, boundary=boundary, do_backward=False)
    base = int(t.boards.round_start[game.split - 1])
    return {key: boundary[game.re_index[key[0]], key[1] - base].copy() for key in game.subgame_keys()}


def _walk(game, key, entry, src, reg, avg, upd, avg_mask, val_mask, coeffs, br_player=-1):
    e, b, j = key
    region, first = game._sub_region(e, b, j)
    job = _Job(upd, avg_mask, val_mask, br_player, coeffs, prune=False)
    return game._call(region, b, entry, first, src, reg, avg, job, children=game._chunks[b][j])


def _valid(game, key, p: int) -> np.ndarray:
    """Player p's hands that clash with no card of subgame `key`'s board (its board of the cut
    round when the subgame holds one, else the board before it)."""
    e, b, j = key
    c0, c1 = game._chunks[b][j]
    side = game.tree.side(p)
    out = np.zeros(game.tree.max_hands, dtype=bool)
    out[: side.num_hands] = side.valid[c0 if c1 - c0 == 1 else b].astype(bool)
    return out


class _Passes:
    """CFR+ passes over one subgame through the engine's block kernel (dfs_block), its arrays
    made once: a re-solve calls it twice an iteration, so Python's share per call stays small."""

    def __init__(self, game, key, reg, avg):
        e, b, j = key
        region, first = game._sub_region(e, b, j)
        c0, c1 = game._chunks[b][j]
        self.args = (game.kernel_tree(), game._walk_plan(region, b, c0, c1, first),
                     float_values(reg[0], reg[1], reg[0], reg[1], avg[0], avg[1]))
        self.bufs = game._bufs()
        self.coeffs = np.array([[1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0]])  # CFR+: floor 0; linear averaging (weight t)
        self.zero_i = np.zeros(1, dtype=np.int64)
        self.none = np.full(1, -1, dtype=np.int64)
        self.no_prune = np.zeros(1, dtype=np.bool_)
        self.keys = np.zeros(1, dtype=np.uint64)
        self.masks = {p: (np.array([1 << p], dtype=np.int64), np.array([1 << (1 - p)], dtype=np.int64))
                      for p in (0, 1)}

    def run(self, p: int, t: int, entry: np.ndarray, node: int | None = None) -> np.ndarray:
        """Iteration t's pass updating player p (the other's average grows): p's values [H] at
        the root, or at betting node `node` on the subgame's one board (:func:`_board_node`)."""
        self.coeffs[0, 5] = float(t)
        upd, avg = self.masks[p]
        block_kernel()(*self.args, entry, upd, avg, self.coeffs, self.no_prune, self.zero_i, self.keys, self.none,
                        self.bufs)
        return self.bufs.out_cfv[p] if node is None else self.bufs.cfv[node, p]

    def block(self, iterations: int, entry: np.ndarray, first: int = 1) -> None:
        """`iterations` alternating iterations (player 0's pass, then player 1's) in one call,
        the first numbered `first` (its weight in the average)."""
        n = 2 * iterations
        coeffs = np.repeat(self.coeffs, n, axis=0)
        coeffs[:, 5] = np.repeat(np.arange(first, first + iterations, dtype=np.float64), 2)
        upd = np.tile(np.array([1, 2], dtype=np.int64), iterations)
        block_kernel()(*self.args, entry, upd, 3 - upd, coeffs, np.zeros(n, dtype=np.bool_),
                        np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.uint64), np.full(n, -1, dtype=np.int64),
                        self.bufs)


@njit(cache=True, nogil=True)
def _resolve_entry(gadget, live, out):
    """Re-solve gadget: the opponent enters with each hand as regret matching of (terminate, follow) says."""
    for h in range(out.size):
        a, b = max(gadget[h, 0], 0.0), max(gadget[h, 1], 0.0)
        out[h] = (b / (a + b) if a + b > 0.0 else 0.5) if live[h] else 0.0


@njit(cache=True, nogil=True)
def _resolve_update(gadget, live, v, bv):
    """CFR+ on each opponent hand's choice between its blueprint value bv and entering (v)."""
    for h in range(v.size):
        if not live[h]:
            continue
        a, b = max(gadget[h, 0], 0.0), max(gadget[h, 1], 0.0)
        f = b / (a + b) if a + b > 0.0 else 0.5
        u = (1.0 - f) * bv[h] + f * v[h]
        gadget[h, 0] = max(gadget[h, 0] + bv[h] - u, 0.0)
        gadget[h, 1] = max(gadget[h, 1] + v[h] - u, 0.0)


@njit(cache=True, nogil=True)
def _margin_entry(gadget, live, out):
    """Max-margin gadget: the opponent picks its hand by regret matching of the margins' regrets."""
    total, n = 0.0, 0
    for h in range(out.size):
        if live[h]:
            total += max(gadget[h], 0.0)
            n += 1
    for h in range(out.size):
        if not live[h]:
            out[h] = 0.0
        elif total > 0.0:
            out[h] = max(gadget[h], 0.0) / total
        else:
            out[h] = 1.0 / n


@njit(cache=True, nogil=True)
def _margin_update(gadget, live, v, bv, z):
    """CFR+ on the opponent's choice of hand, each hand's payoff its gain v - bv over the blueprint."""
    _margin_entry(gadget, live, z)
    mean = 0.0
    for h in range(v.size):
        if live[h]:
            mean += z[h] * (v[h] - bv[h])
    for h in range(v.size):
        gadget[h] = max(gadget[h] + v[h] - bv[h] - mean, 0.0) if live[h] else 0.0


def resolve_subgame(game, key, reach, blueprint_seg, method: str, iterations: int, players=(0, 1),
                    budget: float = 0.0, gift: np.ndarray | None = None) -> SubgameResult:
    """Re-solve subgame `key` of split `game` given the blueprint's reach [2, H] at its root and
    the blueprint's policy in its segment (per player). `players`: whose re-solved policy is kept
    (a safe method solves once per player). `budget` > 0: seconds for the whole re-solve; the
    iterations stop when it is spent (at least one runs)."""

    if method not in METHODS:
        raise ConfigError(f"[search] name = {method!r} is not a re-solving method; valid: {', '.join(METHODS)}")
    e, b, j = key
    region, _ = game._sub_region(e, b, j)
    sizes = region.sizes
    reach = np.ascontiguousarray(reach, dtype=np.float64)
    node = _board_node(game, key)
    bp = best_values(game, key, reach, blueprint_seg, node)
    allowed = bp + gift if gift is not None and method == "reach" else bp
    policy = [None, None]
    values = np.zeros_like(bp)
    runs = [(None, (0, 1))] if method == "unsafe" else [(p, (p,)) for p in players]
    for me, keep in runs:
        # each run (a safe method runs one per player) gets its share of the budget
        deadline = time.perf_counter() + budget / len(runs) if budget > 0 else None
        reg = [np.zeros(sizes[0]), np.zeros(sizes[1])]
        avg = [np.zeros(sizes[0]), np.zeros(sizes[1])]
        passes = _Passes(game, key, reg, avg)
        if me is None:
            done = 0
            while done < iterations:  # blocks of iterations, the budget checked between them
                n = iterations - done if deadline is None else min(iterations - done, 16)
                passes.block(n, reach, first=done + 1)
                done += n
                if deadline is not None and time.perf_counter() > deadline:
                    break
        else:
            opp = 1 - me
            # every hand the opponent can hold here counts, reached by the blueprint or not: a best
            # response may steer any of them into this subgame (the safety guarantee needs them all)
            live = _valid(game, key, opp)
            H = reach.shape[1]
            gadget = np.zeros((H, 2)) if method == "resolve" else np.zeros(H)
            entry = reach.copy()
            z = np.zeros(H)
            bv = np.ascontiguousarray(allowed[opp])
            for t in range(1, iterations + 1):
                entry[opp] = reach[opp]
                v = passes.run(opp, t, entry, node)  # the opponent's values; my average grows
                if method == "resolve":
                    _resolve_update(gadget, live, v, bv)
                    _resolve_entry(gadget, live, z)
                else:
                    _margin_update(gadget, live, v, bv, z)
                    _margin_entry(gadget, live, z)
                entry[opp] = z  # the opponent enters as the gadget lets it
                passes.run(me, t, entry)
                if deadline is not None and time.perf_counter() > deadline:
                    break
        for p in keep:
            policy[p] = avg[p]
        # what each kept player's re-solved policy leaves the other's best response
        for p in keep:
            values[1 - p] = best_values(game, key, reach, [avg[0], avg[1]], node)[1 - p]
    return SubgameResult(key, policy, bp, values, allowed)


def _board_node(game, key) -> int | None:
    """The betting node below subgame `key`'s root (a round end) where its values are one public
    state's, when the subgame holds one board of the new round (per card); None otherwise.

    Under suit isomorphism the board is canonical and stands for its whole suit orbit: the
    root's values sum, for each hand, the values of every board of the orbit (through the hand
    maps), so a gadget reading them would weigh each opponent hand by the boards it can see and
    mix hands that differ only by suit (max-margin, reach); below the root, the values are the
    canonical board's alone, those of the one public state re-solved (the same numbers as the
    root's without isomorphism, where the orbit is the board)."""
    e, b, j = key
    c0, c1 = game._chunks[b][j]
    return int(game.tree.bet.children[e, 0]) if c1 - c0 == 1 else None


def best_values(game, key, reach, src, node: int | None = None) -> np.ndarray:
    """[2, H]: each player's best-response counterfactual values at subgame `key`'s root (or at
    betting node `node` on its one board: :func:`_board_node`) against the other's policy in
    `src` (per player, the segment's layout), the other entering with `reach`."""
    dummy = np.zeros(1)
    out = np.zeros((2, reach.shape[1]))
    for o in (0, 1):
        root = _walk(game, key, reach, src, src, [dummy, dummy], 0, 0, 1 << o, NO_COEFFS, br_player=o)[o]
        out[o] = root if node is None else game._bufs().cfv[node, o, : reach.shape[1]]
    return out


@dataclass
class SearchStats:
    """What :func:`searched_strategy` did: public states re-solved, per round, and those where a
    safe method's re-solve was dropped for the blueprint (it let some opponent hand gain)."""

    resolved: dict
    kept_blueprint: dict
    #: reach: rounds whose re-solves had no gifts (more than one board above the cut: max-margin there)
    without_gifts: list = None

    def __post_init__(self):
        if self.without_gifts is None:
            self.without_gifts = []


def searched_strategy(real, blueprint, method: str, iterations: int, start_round: int = 1, nested: bool = True,
                      safety_check: bool = True, progress=None, per_card: bool = True, budget: float = 0.0,
                      **depth_limited):
    """(strategy, SearchStats): what an agent plays when it re-solves at the start of round
    `start_round` (and, `nested`, of every later round, from the strategy re-solved so far) in
    every public state (`per_card`: after the round's new cards, else before them), each player
    keeping its own re-solve; per player a policy over `real`'s whole-game layout. `real` is the unsplit real game, `blueprint` its per-player policies.
    `safety_check`: a safe method's re-solve that lets any opponent hand's best response gain
    over the blueprint (it had not converged) is dropped there for the blueprint, so the result
    is never more exploitable than the blueprint. `budget` > 0: seconds per re-solve (a decision
    in play), the iterations cut short when it is spent. `method` "depth_limited": see
    :func:`.depth_limited.depth_limited_strategy` (its keywords depth, continuations, bias)."""
    from ..core.layout import policy

    if method == "depth_limited":
        from .depth_limited import depth_limited_strategy

        return depth_limited_strategy(real, blueprint, iterations, start_round, nested, per_card=per_card,
                                      budget=budget, **depth_limited)
    if depth_limited:
        raise ConfigError(f"searched_strategy: {', '.join(depth_limited)} apply to depth_limited search only, "
                          f"not to {method!r}")
    if iterations < 1:
        raise ConfigError(f"[search] iterations = {iterations} is invalid: at least 1")
    if method not in METHODS:
        raise ConfigError(f"[search] name = {method!r} is not a re-solving method; valid: {', '.join(SEARCHES)}")
    R = real.gd.num_rounds
    if not 1 <= start_round < R:
        split_game(real, start_round)  # the error naming the round and the valid ones
    strategy = [np.array(x, dtype=np.float64) for x in blueprint]
    stats = SearchStats({}, {})
    for s in (range(start_round, R) if nested else [start_round]):
        game = split_game(real, s, per_card)
        reach = _trunk_reach(game, strategy)
        gifts = _gifts(real, game, strategy) if method == "reach" else None
        if gifts is None and method == "reach":
            stats.without_gifts.append(s)
        new = [x.copy() for x in strategy]
        keys = game.subgame_keys()
        stats.resolved[s], stats.kept_blueprint[s] = 0, 0
        for i, key in enumerate(keys):
            if progress is not None:
                progress(s, i + 1, len(keys))
            if not reach[key].any(axis=1).all():
                continue  # a player never gets here: nothing to re-solve
            region, first = game._sub_region(*key)
            seg = [to_segment(game, strategy[p], region, first, p) for p in (0, 1)]
            res = resolve_subgame(game, key, reach[key], seg, method, iterations, budget=budget,
                                  gift=None if gifts is None else gifts.get(key))
            stats.resolved[s] += 1
            for p in (0, 1):
                if safety_check and method != "unsafe" and not _no_gain(game, key, res, 1 - p):
                    stats.kept_blueprint[s] += 1
                    continue
                game._scatter(new[p], region, policy(res.policy[p], game._layout_of(region, p)), first, p)
        strategy = new
    return strategy, stats


#: relative slack of the safety check (of the largest blueprint value at the root), for rounding
SAFETY_SLACK = 1e-12


def _no_gain(game, key, res: SubgameResult, opp: int) -> bool:
    """True when no hand of `opp` has a larger best-response value against the re-solve than it
    may (the blueprint's, plus its gift with reach)."""
    live = _valid(game, key, opp)
    bp, now = res.allowed[opp][live], res.values[opp][live]
    slack = SAFETY_SLACK * max(float(np.abs(bp).max(initial=0.0)), 1e-300)
    return bool(np.all(now <= bp + slack))


def _gifts(real, game, strategy):
    """{subgame key: [2, H]}: for each opponent o and hand, what o's best response may gain in
    that public state without gaining overall (Brown & Sandholm 2017): at each of o's decisions
    on the way in, the best alternative's value minus the value of the action taken (its gift),
    divided among every public state below that action, the least of those shares. None when a
    round above the cut deals more than one board (the values at the trunk's nodes are then per
    board; the re-solves get no gifts there)."""
    from ..poker.betting import DECISION

    t = real.tree
    bet = t.bet
    s = game.split
    if any(int(real.round_start[r + 1] - real.round_start[r]) != 1 for r in range(s)):
        return None
    keys = game.subgame_keys()
    per_entry = {}  # public states below each entry: a per-card subgame's values are one board's
    # (resolve_subgame reads them below the root), and a canonical board stands for its suit orbit
    for key in keys:
        e, b, j = key
        c0 = game._chunks[b][j][0]
        states = game.tree.boards.orbit_size(c0) if _board_node(game, key) is not None else 1
        per_entry[e] = per_entry.get(e, 0) + states
    paths = {}
    for e in per_entry:  # (o's decision node, action index) on the way from the root to e
        path, c = [], e
        while bet.parent[c] >= 0:
            n = int(bet.parent[c])
            if bet.kind[n] == DECISION:
                a = int(np.flatnonzero(bet.children[n, : bet.num_actions[n]] == c)[0])
                path.append((n, a))
            c = n
        paths[e] = path
    below = {}
    for e, path in paths.items():
        for step in path:
            below[step] = below.get(step, 0) + per_entry[e]
    H = t.max_hands
    out = {key: np.zeros((2, H)) for key in keys}
    dummy = [np.zeros(1), np.zeros(1)]
    for o in (0, 1):
        job = _Job(0, 0, 1 << o, o, NO_COEFFS, prune=False)
        real._call(real.full, 0, real._root_entry(), t.boards.round_start, strategy, strategy, dummy, job)
        cfv = real._bufs().cfv[:, o, :].copy()  # o's best-response values at every node (one board above the cut)
        share = {}
        for e, path in paths.items():
            g = np.full(H, np.inf)
            for n, a in path:
                if bet.player[n] != o:
                    continue
                kids = bet.children[n, : bet.num_actions[n]]
                gift = cfv[kids].max(axis=0) - cfv[kids[a]]
                g = np.minimum(g, np.maximum(gift, 0.0) / below[(n, a)])
            share[e] = np.where(np.isfinite(g), g, 0.0)
        for key in keys:
            out[key][o] = share[key[0]]
    return out
