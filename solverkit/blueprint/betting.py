"""The betting tree of an N-player ACPC limit game as flat arrays, enumerated once in Python.

Children of a node are contiguous (``first[n] + a``), so node-indexed scratch doubles as
edge-indexed scratch in the kernels. Chance is not in the tree: a blueprint iteration samples the
whole deal up front and reads each player's bucket per round. A terminal keeps what every player
put in and who is still in; the kernel pays the pot out from the deal's hand strengths.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ConfigError
from ..poker.nplayer import LimitState, TableDef

DECISION, TERMINAL = 0, 2


@dataclass
class BettingTree:
    """Flat betting tree: kind, player, round, first child, number of actions, and per node the
    chips each player has put in (spent) and whether each is still in (alive); ``betting`` the
    ACPC betting string of every node, ``labels`` the actions ('f', 'c', 'r')."""

    kind: np.ndarray
    player: np.ndarray
    round: np.ndarray
    first: np.ndarray
    nact: np.ndarray
    spent: np.ndarray
    alive: np.ndarray
    betting: list
    labels: list
    num_players: int
    num_rounds: int

    @property
    def num_nodes(self) -> int:
        return int(self.kind.shape[0])


def limit_tree(gd: TableDef, max_nodes: int = 5_000_000) -> BettingTree:
    """Every betting sequence of `gd` under the ACPC server's rules (:class:`LimitState`)."""
    P = gd.num_players
    states = [LimitState(gd)]
    kind, player, rnd, first, nact, spent, alive, betting, labels = [], [], [], [], [], [], [], [], [""]
    i = 0
    while i < len(states):
        s = states[i]
        spent.append(list(s.spent))
        alive.append([not f for f in s.folded])
        betting.append(s.betting())
        rnd.append(s.round)
        if s.finished:
            kind.append(TERMINAL)
            player.append(-1)
            first.append(-1)
            nact.append(0)
        else:
            acts = s.legal()
            kind.append(DECISION)
            player.append(s.current_player())
            first.append(len(states))
            nact.append(len(acts))
            for a in acts:
                c = LimitState(gd)
                c.spent, c.max_spent, c.round = list(s.spent), s.max_spent, s.round
                c.actions = [list(x) for x in s.actions]
                c.folded, c.finished = list(s.folded), s.finished
                c.apply(a)
                states.append(c)
                labels.append(a)
        if len(states) > max_nodes:
            raise ConfigError(f"betting tree of {gd.source} has more than {max_nodes} nodes; use an action "
                              "abstraction or a smaller game")
        states[i] = None  # done with it
        i += 1
    a = np.asarray
    return BettingTree(a(kind, np.int64), a(player, np.int64), a(rnd, np.int64), a(first, np.int64),
                       a(nact, np.int64), a(spent, np.float64).reshape(-1, P), a(alive, np.bool_).reshape(-1, P),
                       betting, labels, P, gd.num_rounds)
