"""Enumerate a described game tree once into flat arrays, checking what the engine relies on.

Nodes are numbered breadth first, so a node's children are one contiguous run
(``first[n] .. first[n] + nchild[n]``) and every parent comes before its children: a top-down
sweep is ascending node order, a bottom-up sweep descending. Information sets are numbered per
player in order of discovery and grouped into a :class:`~solverkit.core.layout.Layout` (runs of
information sets with the same action count), so the value store and export work unchanged.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, replace

import numpy as np

from ..core.layout import Layout
from ..core.memory import MEMORY_SHARE, affordable, current_rss, human_bytes, physical_memory
from ..errors import ConfigError

DECISION, CHANCE, TERMINAL = 0, 1, 2
#: columns of FlatTree.node
KIND, PLAYER, OFF, REP, FIRST, NCHILD = range(6)
#: chance probabilities must sum to 1 within this tolerance; returns must sum to 0 within it
TOLERANCE = 1e-9


@dataclass
class FlatTree:
    """A game tree as flat arrays (see the module docstring for the numbering)."""

    #: the index arrays (node, infoset, br_order) are int32 where every value fits (:func:`narrow`)
    node: np.ndarray  # int32 [N, 6]: kind, player (-1: none), value offset, representative flag, first child, children
    prob: np.ndarray  # float64 [N]: probability of the chance edge into the node (1.0 below a decision)
    util: np.ndarray  # float64 [N]: player 0's utility at a terminal
    infoset: np.ndarray  # int32 [N]: the acting player's information-set index (-1: none)
    layouts: tuple  # per player: Layout of its information sets
    keys: tuple  # per player: list of information-set key strings, in layout order
    actions: tuple  # per player: list of action lists (the game's action objects), in layout order
    offsets: tuple  # per player: int64 value offset of each information set
    br_order: tuple  # per player: (order int32 [N], bounds int32 [levels, 3]) for best response
    #: float64 [N, players]: every player's utility at a terminal (games of more than two players;
    #: None for two, whose kernels read `util`)
    utils: np.ndarray | None = None

    @property
    def num_nodes(self) -> int:
        return int(self.node.shape[0])

    @property
    def num_players(self) -> int:
        return len(self.layouts)


def index_dtype(*largest) -> type:
    """int32 for index arrays whose values are all below `largest` (node counts, layout sizes):
    any tree a machine holds (2^31 nodes would take hundreds of GB), else int64."""
    return np.int32 if max((int(x) for x in largest), default=0) < 2**31 - 1 else np.int64


def narrow(tree: FlatTree) -> FlatTree:
    """`tree` with its index arrays (node, infoset, br_order) in :func:`index_dtype`: half
    of int64's bytes (liar's dice: 12 MB of 295k nodes), read by every pass; the same tree when
    they already are. Values, and so every result, are unchanged."""
    dt = index_dtype(tree.num_nodes, *(lay.size for lay in tree.layouts))
    if tree.node.dtype == dt and tree.infoset.dtype == dt and all(o.dtype == dt and b.dtype == dt for o, b in tree.br_order):
        return tree
    return replace(tree, node=tree.node.astype(dt), infoset=tree.infoset.astype(dt),
                   br_order=tuple((o.astype(dt), b.astype(dt)) for o, b in tree.br_order))


def _where(history) -> str:
    """A history (tuple of action labels from the root) for error messages."""
    return "root" if not history else "history " + " ".join(str(a) for a in history)


#: bytes a node takes while the tree is enumerated (Python lists and the queue's states) and
#: as flat arrays: the memory cap of enumerate_tree
NODE_BYTES = 300


#: nodes between two looks at the process's memory while a tree is enumerated
RSS_EVERY = 1 << 15
#: random descents that estimate a tree's size before it is enumerated, and how far above the node
#: limit their estimate must be to refuse the game at once
PROBES, PROBE_MARGIN = 64, 4.0


def estimate_nodes(game, probes: int = PROBES, seed: int = 0) -> float | None:
    """Knuth's (1975) estimate of a tree's node count from random descents: 1 + b1 + b1*b2 + ...
    (b: the branching of each node passed), the median over `probes` descents (the mean's heavy
    tail overstates); None when a descent fails (the walk's own checks then name the problem)."""
    import random

    rng = random.Random(seed)
    totals = []
    try:
        for _ in range(probes):
            state, total, width = game.initial_state(), 1.0, 1.0
            while not game.is_terminal(state) and total < 1e300:
                if game.player(state) == game.CHANCE:
                    moves = [a for a, _ in game.chance_outcomes(state)]
                else:
                    moves = list(game.legal_actions(state))
                if not moves:
                    break
                width *= len(moves)
                total += width
                state = game.child(state, moves[rng.randrange(len(moves))])
            totals.append(total)
    except Exception:  # a broken game: enumerate_tree names what is wrong
        return None
    totals.sort()
    return totals[len(totals) // 2]


def _refuse_by_estimate(game, name: str, limit: int, max_nodes: int) -> None:
    """Refuse, before the walk starts, a tree whose estimated size is far beyond the node limit
    (Go, chess: astronomically many nodes), instead of filling memory up to the limit first."""
    guess = estimate_nodes(game)
    if guess is None or guess <= PROBE_MARGIN * limit:
        return
    which = ("the tree size limit, [game] max_nodes" if limit == max_nodes else
             f"as many as {MEMORY_SHARE:.0%} of this machine's {human_bytes(physical_memory())} of memory holds at "
             f"about {NODE_BYTES} bytes a node")
    raise ConfigError(f"game {name!r} has about {guess:.3g} nodes (estimated from {PROBES} random descents of its "
                      f"tree), more than {limit:,} ({which}); solve a smaller game")


def enumerate_tree(game, max_nodes: int) -> FlatTree:
    """Walk `game` (a :class:`~solverkit.efg.tree.TreeGame`) breadth first into a FlatTree;
    ConfigError names the first information set or history that breaks a rule.

    Python's cyclic garbage collector is paused for the walk: the walk's millions of live
    tuples would make each of its full collections scan them all again (3-player Leduc, 1.8M
    nodes: 33 s instead of 57 s), and it makes no garbage cycles of its own."""
    import gc

    paused = gc.isenabled()
    gc.disable()
    try:
        return _enumerate(game, max_nodes)
    finally:
        if paused:
            gc.enable()


def _enumerate(game, max_nodes: int) -> FlatTree:
    name = game.name or type(game).__name__
    P = int(getattr(game, "num_players", 2))
    kinds, players, isets, firsts, nchild, probs, utils, levels = [], [], [], [], [], [], [], []
    # per player: key -> index; per index: (acting histories' actions, last own (infoset, action))
    index = tuple({} for _ in range(P))
    iset_actions = tuple([] for _ in range(P))
    iset_prev = tuple([] for _ in range(P))
    iset_where = tuple([] for _ in range(P))
    reps = []
    fit = affordable(NODE_BYTES)  # this machine's memory caps the walk too: it fails fast, never swaps
    limit = max_nodes if fit is None else min(max_nodes, fit)
    _refuse_by_estimate(game, name, limit, max_nodes)
    queue = deque([(game.initial_state(), (), (-1,) * P, (0,) * P)])
    count = 1
    budget = MEMORY_SHARE * physical_memory()
    next_check = RSS_EVERY
    while queue:
        state, history, prev, lvl = queue.popleft()
        levels.append(lvl)
        if game.is_terminal(state):
            u = game.returns(state)
            u0 = _check_returns(name, u, history) if P == 2 else _check_returns_n(name, u, history, P)
            kinds.append(TERMINAL), players.append(-1), isets.append(-1), utils.append(u0)
            firsts.append(0), nchild.append(0), reps.append(0)
            continue
        utils.append(0.0 if P == 2 else (0.0,) * P)
        who = game.player(state)
        if who == game.CHANCE:
            outcomes = _listed(game.chance_outcomes(state),
                               lambda: f"game {name!r}: chance_outcomes at {_where(history)}",  # noqa: B023 (called within this step)
                               "(action, probability) pairs")
            _check_chance(name, outcomes, history)
            kinds.append(CHANCE), players.append(-1), isets.append(-1), reps.append(0)
            firsts.append(count), nchild.append(len(outcomes))
            for action, p in outcomes:
                queue.append((game.child(state, action), history + (game.action_label(action, None),), prev, lvl))
                probs.append(float(p))
            count += len(outcomes)
        elif who in range(P):
            q = int(who)
            acts = _listed(game.legal_actions(state),
                           lambda: f"game {name!r}: legal_actions at {_where(history)}",  # noqa: B023 (called within this step)
                           "actions")
            if not acts:
                raise ConfigError(f"game {name!r}: player {q} has no legal action at {_where(history)} "
                                  "(a state without actions must be terminal)")
            key = game.infoset_key(state, q)
            if not isinstance(key, str):
                key = str(key)
            for o in range(P):
                other = index[o].get(key) if o != q else None
                if other is not None:
                    raise ConfigError(
                        f"game {name!r}: information set {key!r} is player {q}'s at {_where(history)} but player "
                        f"{o}'s at {iset_where[o][other]}; an information set has one acting player")
            i = index[q].get(key)
            own = prev[q]
            if i is None:
                i = index[q][key] = len(iset_actions[q])
                iset_actions[q].append(acts)
                iset_prev[q].append(own)
                iset_where[q].append(_where(history))
                reps.append(1)
            else:
                reps.append(0)
                if acts != iset_actions[q][i]:
                    raise ConfigError(
                        f"game {name!r}: information set {key!r} has actions {_labels(game, acts)} at "
                        f"{_where(history)} but {_labels(game, iset_actions[q][i])} at {iset_where[q][i]}; "
                        "every history of an information set must have the same legal actions")
                if own != iset_prev[q][i]:
                    raise ConfigError(
                        f"game {name!r}: information set {key!r} breaks perfect recall: player {q} reaches it at "
                        f"{_where(history)} after {_own(game, index[q], iset_actions[q], own)} but at "
                        f"{iset_where[q][i]} after {_own(game, index[q], iset_actions[q], iset_prev[q][i])}; "
                        "a player's information set must follow the same own information sets and actions")
            kinds.append(DECISION), players.append(q), isets.append(i)
            firsts.append(count), nchild.append(len(acts))
            nxt = tuple(x + 1 if j == q else x for j, x in enumerate(lvl))
            for a, action in enumerate(acts):
                step = list(prev)
                step[q] = (i, a)
                queue.append((game.child(state, action), history + (game.action_label(action, q),), tuple(step), nxt))
                probs.append(1.0)
            count += len(acts)
        else:
            expect = "0, 1" if P == 2 else f"0 .. {P - 1}"
            raise ConfigError(f"game {name!r}: player({_where(history)}) returned {who!r}; expected {expect} or "
                              f"TreeGame.CHANCE ({game.CHANCE!r})")
        if count >= next_check:  # states may be heavier than NODE_BYTES (OpenSpiel's): watch the process too
            next_check += RSS_EVERY
            if budget and current_rss() > budget:
                raise ConfigError(
                    f"game {name!r}: enumerating its tree filled {human_bytes(current_rss())} of this machine's "
                    f"{human_bytes(physical_memory())} of memory after {count:,} nodes (at most {MEMORY_SHARE:.0%}); "
                    "solve a smaller game")
        if count > limit and limit < max_nodes:
            raise ConfigError(
                f"game {name!r} has more than {limit:,} nodes: at about {NODE_BYTES} bytes a node while its tree "
                f"is enumerated, more than {MEMORY_SHARE:.0%} of this machine's {human_bytes(physical_memory())} of "
                f"memory ([game] max_nodes = {max_nodes:,} allows more); solve a smaller game")
        if count > max_nodes:
            raise ConfigError(
                f"game {name!r} has more than {max_nodes:,} nodes (the tree size limit, [game] max_nodes); "
                "raise max_nodes if it fits in memory (about 150 bytes per node), or solve a smaller game")
    return _assemble(kinds, players, isets, firsts, nchild, probs, utils, levels, reps, index, iset_actions)


def _labels(game, acts):
    return "[" + ", ".join(game.action_label(a, None) for a in acts) + "]"


def _own(game, keys, actions, own):
    if own[0] < 0:
        return "no earlier decision"
    key = next(k for k, v in keys.items() if v == own[0])
    return f"action {game.action_label(actions[own[0]][own[1]], None)} at {key!r}"


def _listed(items, what, of: str) -> list:
    """`items` (any sequence or iterable a game method returned) as a list, or a ConfigError
    naming `what`: None, a number, a string or a mapping is not a list of `of`."""
    if items is None or isinstance(items, (str, bytes, dict)):
        raise ConfigError(f"{_text(what)} returned {items!r:.60}; expected a list of {of}")
    try:
        return list(items)
    except TypeError:
        raise ConfigError(f"{_text(what)} returned {items!r:.60}; expected a list of {of}") from None


def _text(what) -> str:
    """An error's subject: `what`, or what it returns when it is a function (built only for an
    error: the walk passes every node's subject this way, and most never need it)."""
    return what() if callable(what) else what


def _real(value, what: str) -> float:
    """`value` as a float when it is a real number (int, float, numpy integer or float), else a
    ConfigError naming `what`: no complex (whose imaginary part float() drops or refuses), no
    strings ("0.5" would pass float()), no booleans."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ConfigError(f"{_text(what)} = {value!r:.60} is not a real number; expected an int or a float")
    return float(value)


def _check_returns(name, u, history) -> float:
    """Player 0's utility from `returns` (a number, or both players' pair that must sum to 0)."""
    what = lambda: f"game {name!r}: returns at {_where(history)}"  # noqa: E731 (built for an error only)
    if isinstance(u, (str, bytes)) or np.ndim(u) == 0:
        u0 = _real(u, what)
        pair = None
    else:
        pair = [_real(x, what) for x in u]
        if len(pair) != 2:
            raise ConfigError(f"game {name!r}: returns at {_where(history)} = {u!r}; expected player 0's "
                              "utility or a pair (u0, u1)")
        u0 = pair[0]
    vals = pair if pair is not None else [u0]
    if not all(math.isfinite(x) for x in vals):
        raise ConfigError(f"game {name!r}: returns at {_where(history)} = {u!r} are not finite; utilities must "
                          "be finite numbers")
    if pair is not None and abs(pair[0] + pair[1]) > TOLERANCE * max(1.0, abs(pair[0])):
        raise ConfigError(f"game {name!r}: returns at {_where(history)} = {tuple(pair)} do not sum to 0; the "
                          "engine solves two-player zero-sum games")
    return u0


def _check_returns_n(name, u, history, players) -> tuple:
    """Every player's utility from `returns` in a game of more than two players: a sequence of
    `players` finite numbers (any sum: NashConv needs no zero-sum)."""
    what = lambda: f"game {name!r}: returns at {_where(history)}"  # noqa: E731 (built for an error only)
    if isinstance(u, (str, bytes)) or len(np.shape(u)) != 1 or len(u) != players:
        raise ConfigError(f"{what()} = {u!r:.60}; expected {players} utilities, one per player")
    vals = tuple(_real(x, what) for x in u)
    if not all(math.isfinite(x) for x in vals):
        raise ConfigError(f"{what()} = {u!r:.80} are not finite; utilities must be finite numbers")
    return vals


def _check_chance(name, outcomes, history) -> None:
    if not outcomes:
        raise ConfigError(f"game {name!r}: chance node at {_where(history)} has no outcomes")
    ps = []
    for outcome in outcomes:
        if not isinstance(outcome, (tuple, list)) or len(outcome) != 2:
            raise ConfigError(f"game {name!r}: chance outcome {outcome!r:.60} at {_where(history)} is not an "
                              "(action, probability) pair")
        action, p = outcome
        p = _real(p, lambda: f"game {name!r}: probability of chance outcome {action!r:.40} at {_where(history)}")  # noqa: B023 (called immediately)
        if not math.isfinite(p) or p < 0.0:
            raise ConfigError(f"game {name!r}: chance outcome {action!r} at {_where(history)} has probability "
                              f"{p!r}; probabilities must be finite and >= 0")
        ps.append(p)
    if abs(math.fsum(ps) - 1.0) > TOLERANCE:
        raise ConfigError(f"game {name!r}: chance probabilities at {_where(history)} sum to {math.fsum(ps)!r}, "
                          f"expected 1 (within {TOLERANCE:g})")


def _layout(actions) -> tuple[Layout, np.ndarray]:
    """Runs of information sets with equal action counts as layout blocks; and each set's offset."""
    blocks = []
    for acts in actions:
        n = len(acts)
        if blocks and blocks[-1][1] == n:
            blocks[-1][0] += 1
        else:
            blocks.append([1, n])
    counts = np.array([len(a) for a in actions], dtype=np.int64)
    offsets = np.zeros(len(actions), dtype=np.int64)
    if len(actions):
        offsets[1:] = np.cumsum(counts)[:-1]
    return Layout.from_blocks([tuple(b) for b in blocks]), offsets


def _br_order(kind, player, level, p):
    """Nodes in the order the best response of player p visits them: by p's level (decisions of
    p above the node), deepest first; within a level p's own nodes, then the rest bottom-up.
    bounds[k] = (start of the level's own nodes, start of the rest, end)."""
    n = np.arange(kind.size, dtype=np.int64)
    lv = level[p]
    own = (kind == DECISION) & (player == p)
    # sort key: level descending, own nodes first, then node index descending
    order = np.lexsort((-n, ~own, -lv))
    lv_sorted = lv[order]
    own_sorted = own[order]
    bounds = []
    start = 0
    N = kind.size
    while start < N:
        L = lv_sorted[start]
        end = start
        while end < N and lv_sorted[end] == L:
            end += 1
        mid = start + int(np.count_nonzero(own_sorted[start:end]))
        bounds.append((start, mid, end))
        start = end
    return order.astype(np.int64), np.array(bounds, dtype=np.int64).reshape(-1, 3)


def _assemble(kinds, players, isets, firsts, nchild, probs, utils, levels, reps, index, iset_actions) -> FlatTree:
    N = len(kinds)
    kind = np.array(kinds, dtype=np.int64)
    player = np.array(players, dtype=np.int64)
    infoset = np.array(isets, dtype=np.int64)
    P = len(iset_actions)
    layouts, offsets = [], []
    for q in range(P):
        lay, off = _layout(iset_actions[q])
        layouts.append(lay)
        offsets.append(off)
    node = np.zeros((N, 6), dtype=np.int64)
    node[:, KIND] = kind
    node[:, PLAYER] = player
    dec = kind == DECISION
    for q in range(P):
        m = dec & (player == q)
        node[m, OFF] = offsets[q][infoset[m]]
    node[:, REP] = np.array(reps, dtype=np.int64)
    node[:, FIRST] = np.array(firsts, dtype=np.int64)
    node[:, NCHILD] = np.array(nchild, dtype=np.int64)
    prob = np.ones(N)
    # the edge into node c carries its chance probability when the parent is a chance node
    edge_probs = np.array(probs, dtype=np.float64)
    prob[1:] = edge_probs
    # decisions of each player strictly above each node [P, N]: read only to order the best responses
    level = np.array(levels, dtype=np.int64).T.copy().reshape(P, N)
    keys = tuple([k for k, _ in sorted(index[q].items(), key=lambda kv: kv[1])] for q in range(P))
    many = None
    if P == 2:
        util = np.array(utils, dtype=np.float64)
    else:
        many = np.array(utils, dtype=np.float64).reshape(N, P)
        util = many[:, 0].copy()
    return narrow(FlatTree(
        node=node, prob=prob, util=util, infoset=infoset,
        layouts=tuple(layouts), keys=keys, actions=tuple(list(a) for a in iset_actions),
        offsets=tuple(offsets), br_order=tuple(_br_order(kind, player, level, p) for p in range(P)), utils=many,
    ))
