"""The betting (action) tree of any two-player poker game as flat arrays: limit games, no-limit
games with OpenSpiel's fcpa abstraction, and no-limit games or postflop spots with bet-size lists.

Downstream code (public tree, kernels, export) reads these arrays and never the rules of betting.
Nodes are numbered as in solverkit.poker.betting: round by round, and within a round in preorder,
so parents precede children and every subtree is one contiguous range per round. Per node:
``round``, ``kind`` (DECISION / FOLD / SHOWDOWN / ROUND_END, betting.py's codes), ``player``
(acting, or folding; -1 otherwise), ``spent`` [n, 2] (chips committed over the hand, ACPC's
spent: a bigger all-in keeps its unmatched chips here, and they return at the showdown, so a
showdown pays min(spent) and a fold the folder's spent), ``parent``, ``history`` (ACPC betting
string: 'f', 'c', 'r' in limit games and 'r<N>' raise-to totals in no-limit games, rounds
separated by '/'; a spot's strings start in its first round), ``allin`` (some player has put his whole stack in) and ``runout`` (a board
is dealt without betting: the ROUND_END nodes after an all-in and call before the last round,
which chain through the remaining rounds to a SHOWDOWN in the last round).

Edges are CSR: the edges of node n are ``act_start[n]:act_end[n]`` in ``act_child``,
``act_kind`` (FOLD_K, CALL_K (call or check), RAISE_K (bet or raise), ALLIN_K, or DEAL_K for the
single edge of a ROUND_END node to the next round's first node, a chance deal between them) and
``act_amount`` (the mover's chips over the hand after the action, i.e. ACPC's raise-to total for a
bet or raise; 0 for DEAL_K). Decisions list fold, call, then bets by amount (all-in last).

Rules (see :class:`BettingRules`): ACPC limit rules as betting.py; ACPC no-limit with fcpa
exactly as OpenSpiel 2.0.2's universal_poker builds it (REFERENCE.md, "No-limit"); size lists
with postflop-solver's amounts (solverkit.poker.bet_sizes), its donk rule and its add / force
all-in thresholds, TexasSolver's all-in commit threshold, and a raise cap.

The parts live beside it: :mod:`.betting_rules` (the rules), :mod:`.betting_states` (betting
states and their actions) and :mod:`.action_counts` (counting nodes without building).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .action_counts import _count, betting_counts, count_nodes, refuse_if_too_large  # noqa: F401 (re-exported)
from .betting import DECISION, FOLD, ROUND_END, SHOWDOWN, BettingTree, NodeArrays
from .betting_rules import (FCPA, LIMIT, SIZE_KEYS, BettingRules, SizeAbstraction,  # noqa: F401 (re-exported)
                            StreetSizes, limit_rules, nolimit_rules, size_abstraction, spot_rules, street_sizes)
from .betting_states import (_DEC, _END, _FOLD, ALLIN_K, CALL_K, DEAL_K, FOLD_K,  # noqa: F401 (re-exported)
                             KIND_NAMES, RAISE_K, _next_decision, expand, is_allin, next_round_state, root_state,
                             round_end_kind)


# --- building ---------------------------------------------------------------------------------


@dataclass
class ActionTree(NodeArrays):
    """Flat arrays over betting nodes (module docstring); ``rules`` built it."""

    round: np.ndarray
    kind: np.ndarray
    player: np.ndarray
    spent: np.ndarray
    act_start: np.ndarray
    act_end: np.ndarray
    act_child: np.ndarray
    act_kind: np.ndarray
    act_amount: np.ndarray
    parent: np.ndarray
    history: list
    allin: np.ndarray
    runout: np.ndarray
    rules: BettingRules

    @property
    def num_actions(self) -> np.ndarray:
        """Edges per node (a ROUND_END node has one, its deal)."""
        return self.act_end - self.act_start

    def counts(self) -> tuple[int, ...]:
        """Nodes per round (rounds before the start round count 0)."""
        return tuple(int(c) for c in np.bincount(self.round, minlength=self.rules.num_rounds))

    def children(self, n: int) -> np.ndarray:
        return self.act_child[self.act_start[n]: self.act_end[n]]


_SHOW, _NEXT, _RUNOUT = 3, 4, 5  # a round-ending call resolved: showdown, next round, run-out


def _resolved_edges(rules: BettingRules, state: tuple) -> tuple:
    """expand(state) for the builder: (kinds, amounts, children in reverse action order as
    (action index, target, payload, token)), round ends resolved to _SHOW / _NEXT / _RUNOUT."""
    kids = expand(rules, state)
    r, p = state[0], state[3]
    out = []
    for i, (_, _, token, target, payload) in enumerate(kids):
        if target == _FOLD:
            out.append((i, _FOLD, (payload, p), token))
        elif target == _END:
            spent = payload[0]
            how = round_end_kind(rules, r, spent)
            if how == "next":
                out.append((i, _NEXT, (spent, _next_decision(rules, r, payload)), token))
            else:
                out.append((i, _SHOW if how == "showdown" else _RUNOUT, spent, token))
        else:
            out.append((i, _DEC, payload, token))
    out.reverse()
    return [k[0] for k in kids], [k[1] for k in kids], out


def build_action_tree(rules: BettingRules, max_nodes: int | None = None) -> ActionTree:
    """Build the whole tree of ``rules`` (refused with ConfigError before building when
    count_nodes says it has more than ``max_nodes`` nodes). One depth-first walk in preorder;
    the actions of each distinct betting state are computed once."""
    rules.validate()
    if max_nodes is not None:
        refuse_if_too_large(rules, max_nodes)
    last = rules.num_rounds - 1
    cols = _Columns()
    rnd = cols.round
    e_start, e_count, e_child, e_kind, e_amount = cols.e_start, cols.e_count, cols.e_child, cols.e_kind, cols.e_amount
    cache: dict[tuple, tuple] = {}
    # work items: (target, payload, round, history, parent node, parent's edge slot)
    work = [(_DEC, root_state(rules), rules.start_round, "", -1, -1)]
    pop, push = work.pop, work.append
    while work:
        target, payload, r, hist, par, slot = pop()
        n = len(rnd)
        if slot >= 0:
            e_child[slot] = n
        if target == _DEC:
            cols.add(r, DECISION, payload[3], payload[1], payload[2], par, hist, False)
            entry = cache.get(payload)
            if entry is None:
                entry = cache[payload] = _resolved_edges(rules, payload)
            kinds, amounts, children = entry
            first = len(e_child)
            e_start[n] = first
            e_count[n] = len(kinds)
            e_child.extend([-1] * len(kinds))
            e_kind.extend(kinds)
            e_amount.extend(amounts)
            for i, tgt, pay, token in children:
                push((tgt, pay, r, hist + token, n, first + i))
        elif target == _FOLD:
            spent, folder = payload
            cols.add(r, FOLD, folder, spent[0], spent[1], par, hist, False)
        elif target == _SHOW:
            cols.add(r, SHOWDOWN, -1, payload[0], payload[1], par, hist, False)
        elif target == _NEXT:
            spent, nxt = payload
            cols.add(r, ROUND_END, -1, spent[0], spent[1], par, hist, False)
            cols.deal_edge(n)
            push((_DEC, nxt, r + 1, hist + "/", n, len(e_child) - 1))
        else:  # run-out: ROUND_END nodes through the remaining rounds, then a showdown
            prev = par
            for rr in range(r, last + 1):
                m = len(rnd)
                if rr > r:
                    e_child[len(e_child) - 1] = m
                    hist += "/"
                cols.add(rr, SHOWDOWN if rr == last else ROUND_END, -1, payload[0], payload[1], prev, hist, True)
                if rr < last:
                    cols.deal_edge(m)
                prev = m
    return _finish(cols, rules)


class _Columns:
    """Node columns in visit (global preorder) order, and their edges."""

    def __init__(self):
        self.round, self.kind, self.player, self.s0, self.s1 = [], [], [], [], []
        self.parent, self.history, self.runout = [], [], []
        self.e_start, self.e_count = [], []
        self.e_child, self.e_kind, self.e_amount = [], [], []

    def add(self, r, kind, player, a, b, parent, history, runout):
        """Append a node without edges."""
        self.round.append(r)
        self.kind.append(kind)
        self.player.append(player)
        self.s0.append(a)
        self.s1.append(b)
        self.parent.append(parent)
        self.history.append(history)
        self.runout.append(runout)
        self.e_start.append(len(self.e_child))
        self.e_count.append(0)

    def deal_edge(self, n):
        """Give ROUND_END node ``n`` its one edge (the deal); its child is filled in later."""
        self.e_start[n] = len(self.e_child)
        self.e_count[n] = 1
        self.e_child.append(-1)
        self.e_kind.append(DEAL_K)
        self.e_amount.append(0)


def _finish(b: _Columns, rules: BettingRules) -> ActionTree:
    """Renumber the visit order by (round, preorder) and lay the edges out as CSR in that order."""
    rnd = np.array(b.round, dtype=np.int64)
    order = np.argsort(rnd, kind="stable")  # new id -> visit index; stable keeps preorder per round
    new_id = np.empty(len(order), dtype=np.int64)
    new_id[order] = np.arange(len(order), dtype=np.int64)
    count = np.array(b.e_count, dtype=np.int64)[order]
    old_start = np.array(b.e_start, dtype=np.int64)[order]
    act_end = np.cumsum(count)
    act_start = act_end - count
    pos = np.arange(int(act_end[-1]) if len(act_end) else 0, dtype=np.int64)
    pos += np.repeat(old_start - act_start, count)
    child_old = np.array(b.e_child, dtype=np.int64)[pos]
    if np.any(child_old < 0):
        raise AssertionError("action tree: an edge without a child")  # a builder bug, never input
    parent_old = np.array(b.parent, dtype=np.int64)[order]
    parent = np.where(parent_old >= 0, new_id[np.maximum(parent_old, 0)], -1)
    spent = np.stack([np.array(b.s0, dtype=np.int64), np.array(b.s1, dtype=np.int64)], axis=1)[order]
    allin = np.zeros(len(order), dtype=bool)
    if rules.stack is not None:
        allin = np.any(spent >= np.array(rules.stack, dtype=np.int64), axis=1)
    return ActionTree(
        round=rnd[order], kind=np.array(b.kind, dtype=np.int64)[order],
        player=np.array(b.player, dtype=np.int64)[order], spent=spent,
        act_start=act_start, act_end=act_end, act_child=new_id[child_old],
        act_kind=np.array(b.e_kind, dtype=np.int64)[pos], act_amount=np.array(b.e_amount, dtype=np.int64)[pos],
        parent=parent, history=[b.history[i] for i in order], allin=allin,
        runout=np.array(b.runout, dtype=bool)[order], rules=rules)


# --- limit trees as today's BettingTree -------------------------------------------------------


def to_betting_tree(tree: ActionTree) -> BettingTree:
    """The BettingTree the kernels walk: ``children`` [n, width] with width the most actions of a
    node (at least 3, so that a limit tree's is identical to build_betting_tree's), action codes
    FOLD_K / CALL_K / RAISE_K / ALLIN_K, and ``amounts``. A showdown's ``spent`` is the matched
    stake, min(spent) for both players: the unmatched chips of a bigger all-in return to it."""
    n = tree.num_nodes
    num = tree.num_actions
    decision = tree.kind == DECISION
    width = max(3, int(num[decision].max()) if decision.any() else 0)
    children = np.full((n, width), -1, dtype=np.int64)
    actions = np.full((n, width), -1, dtype=np.int64)
    amounts = np.full((n, width), -1, dtype=np.int64)
    slot = np.arange(len(tree.act_child), dtype=np.int64) - np.repeat(tree.act_start, num)
    owner = np.repeat(np.arange(n, dtype=np.int64), num)
    children[owner, slot] = tree.act_child
    is_decision_edge = decision[owner]
    actions[owner[is_decision_edge], slot[is_decision_edge]] = tree.act_kind[is_decision_edge]
    amounts[owner[is_decision_edge], slot[is_decision_edge]] = tree.act_amount[is_decision_edge]
    spent = tree.spent.copy()
    show = tree.kind == SHOWDOWN
    spent[show] = spent[show].min(axis=1, keepdims=True)
    return BettingTree(tree.round.copy(), tree.kind.copy(), tree.player.copy(), spent,
                       np.where(decision, num, 0), actions, children, tree.parent.copy(), list(tree.history),
                       amounts=None if tree.rules.is_limit else amounts)

