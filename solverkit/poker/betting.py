"""The betting tree of a two-player limit game: every betting sequence, round by round.

Nodes are numbered round by round (all of round 0 first), and within a round in preorder,
so parents precede children and every subtree is one contiguous range per round. A node is a decision (player to act, 2 or 3 actions in the
order fold, call, raise as available), a fold terminal, a showdown terminal (after the last
round), or a round end, whose single child is the first node of the next round (a chance deal
sits between them). This is the betting skeleton shared by every board.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .gamedef import GameDef

DECISION, FOLD, SHOWDOWN, ROUND_END = 0, 1, 2, 3
FOLD_A, CALL_A, RAISE_A = 0, 1, 2
ACTION_CHARS = "fcr"


class NodeArrays:
    """What every betting tree's flat per-node arrays (``round``, ``kind``) answer."""

    round: np.ndarray
    kind: np.ndarray

    @property
    def num_nodes(self) -> int:
        return int(self.round.shape[0])

    def nodes_of_round(self, r: int) -> np.ndarray:
        return np.flatnonzero(self.round == r)

    def decision_nodes(self, r: int | None = None) -> np.ndarray:
        mask = self.kind == DECISION
        if r is not None:
            mask &= self.round == r
        return np.flatnonzero(mask)


@dataclass
class BettingTree(NodeArrays):
    """Flat arrays over betting nodes; ``children[n, a]`` is -1 for actions a node lacks."""

    round: np.ndarray  # int64 per node
    kind: np.ndarray  # DECISION / FOLD / SHOWDOWN / ROUND_END
    player: np.ndarray  # acting player (decision), folding player (fold), -1 otherwise
    spent: np.ndarray  # int64 [n, 2]: chips each player has committed
    num_actions: np.ndarray  # decision nodes: 2 or 3; else 0
    actions: np.ndarray  # int64 [n, 3]: action codes of the node's actions (FOLD_A/CALL_A/RAISE_A), -1 pad
    children: np.ndarray  # int64 [n, 3]: child node per action slot; ROUND_END: slot 0 = next round's root
    parent: np.ndarray  # parent node (-1 for the root)
    history: list  # ACPC-style betting string per node, rounds separated by '/'
    #: int64 [n, width]: the mover's chips over the hand after each action (no-limit trees; None in limit)
    amounts: np.ndarray | None = None
    #: float64 [n]: chips the winner of a FOLD / SHOWDOWN node gets on top of the loser's spent
    #: (dead money less rake; a tie splits it); None: 0 everywhere
    extra: np.ndarray | None = None



def build_betting_tree(gd: GameDef) -> BettingTree:
    """Enumerate every betting sequence of a limit game (ACPC rules: a call brings the caller to
    the most anyone has committed, a raise to that plus the round's raiseSize, and a round ends
    when both have acted and the last action is a call)."""
    rows = []  # (round, kind, player, spent0, spent1, actions, parent, history)
    children: list[list[int]] = []

    def add(round_, kind, player, spent, parent, history):
        rows.append((round_, kind, player, spent[0], spent[1], parent, history))
        children.append([-1, -1, -1])
        return len(rows) - 1

    action_codes: list[list[int]] = []
    # frontier per round: nodes to expand, as (node id, raises, acted count, to-act)
    root = add(0, DECISION, gd.first_player[0], tuple(gd.blind), -1, "")
    frontier = [(root, 0, 0)]
    for r in range(gd.num_rounds):
        next_frontier = []
        queue = list(frontier)
        head = 0
        while head < len(queue):
            node, raises, acted = queue[head]
            head += 1
            _, _, player, s0, s1, _, hist = rows[node]
            spent = [s0, s1]
            opp = 1 - player
            top = max(spent)  # ACPC's maxSpent: a call matches it, a raise adds raiseSize to it
            facing = spent[player] < top
            codes = []
            if facing:
                codes.append(FOLD_A)
            codes.append(CALL_A)
            if raises < gd.max_raises[r]:
                codes.append(RAISE_A)
            while len(action_codes) <= node:
                action_codes.append([])
            action_codes[node] = codes
            for slot, code in enumerate(codes):
                h = hist + ACTION_CHARS[code]
                if code == FOLD_A:
                    child = add(r, FOLD, player, spent, node, h)
                elif code == CALL_A:
                    new = list(spent)
                    new[player] = top  # never lowers: the first actor may have posted the larger blind
                    if acted + 1 >= 2:  # a call ends the round unless it is the round's first action
                        if r + 1 == gd.num_rounds:
                            child = add(r, SHOWDOWN, -1, new, node, h)
                        else:
                            child = add(r, ROUND_END, -1, new, node, h)
                            nxt = add(r + 1, DECISION, gd.first_player[r + 1], new, child, h + "/")
                            children[child][0] = nxt
                            next_frontier.append((nxt, 0, 0))
                    else:
                        child = add(r, DECISION, opp, new, node, h)
                        queue.append((child, raises, acted + 1))
                else:
                    new = list(spent)
                    new[player] = top + gd.raise_size[r]
                    child = add(r, DECISION, opp, new, node, h)
                    queue.append((child, raises + 1, acted + 1))
                children[node][slot] = child
        frontier = next_frontier
    # renumber by (round, preorder): parents precede children within a round, and the nodes of
    # any subtree form one contiguous range in every round
    n = len(rows)
    pre = [0] * n
    stack, count = [root], 0
    while stack:
        i = stack.pop()
        pre[i] = count
        count += 1
        stack.extend(c for c in reversed(children[i]) if c >= 0)
    order = sorted(range(n), key=lambda i: (rows[i][0], pre[i]))
    new_id = {old: new for new, old in enumerate(order)}
    while len(action_codes) < n:
        action_codes.append([])
    rnd = np.array([rows[i][0] for i in order], dtype=np.int64)
    kind = np.array([rows[i][1] for i in order], dtype=np.int64)
    player = np.array([rows[i][2] for i in order], dtype=np.int64)
    spent = np.array([[rows[i][3], rows[i][4]] for i in order], dtype=np.int64)
    parent = np.array([new_id[rows[i][5]] if rows[i][5] >= 0 else -1 for i in order], dtype=np.int64)
    ch = np.full((n, 3), -1, dtype=np.int64)
    acts = np.full((n, 3), -1, dtype=np.int64)
    nact = np.zeros(n, dtype=np.int64)
    for new, old in enumerate(order):
        for s in range(3):
            if children[old][s] >= 0:
                ch[new, s] = new_id[children[old][s]]
        if rows[old][1] == DECISION:
            codes = action_codes[old]
            nact[new] = len(codes)
            acts[new, : len(codes)] = codes
    history = [rows[i][6] for i in order]
    return BettingTree(rnd, kind, player, spent, nact, acts, ch, parent, history)

