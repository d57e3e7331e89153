"""A blueprint strategy playing the real two-player game at the ACPC dealer (``solverkit match``,
``solverkit play``): each hand's betting mapped into the blueprint's betting tree (an opponent's
bet of a size the tree lacks by the pseudo-harmonic mapping, solverkit.poker.translation), the
agent's cards mapped to their bucket on the round, and the policy of that (node, bucket) sampled;
its own pot-sized bets and all-ins go out as raise-to amounts clamped to the real state's range.

The policy is what the blueprint exports (BlueprintGame.strategy: the average on the first
``average_rounds`` rounds, the current strategy later, as Pluribus played). Where the tree has
no counterpart of the real hand (a raise where the tree allows none, a hand the tree ended
while the real one goes on) the agent checks or calls to the end of the hand, and counts it.
"""

from __future__ import annotations

import numpy as np

from ..errors import SolverkitError
from ..poker.acpc_protocol import MatchState, NoLimitState, ProtocolMismatch, pot_fraction, split_betting
from ..poker.players import RealStates
from ..poker.translation import translation_probabilities
from .betting import DECISION


class TableRules:
    """What the two-player dealer needs of a game with no solver tree: its definition (the poker
    engine's reading of the same file), ACPC hand ranking, and for a limit game its betting tree."""

    def __init__(self, gd, name: str):
        from ..poker.gamedef_nolimit import NoLimitGameDef

        self.gd, self.name = gd, name
        if not isinstance(gd, NoLimitGameDef):
            from types import SimpleNamespace

            from ..poker.betting import build_betting_tree

            self.tree = SimpleNamespace(bet=build_betting_tree(gd))

    def strength_function(self):
        return None  # ACPC ranking


def table_rules(game) -> TableRules:
    """The dealer's game of a two-player blueprint: the file it solved, read by the poker engine."""
    from ..poker.gamedef import load_any_gamedef

    if game.num_players != 2:
        raise SolverkitError(f"a blueprint of {game.num_players} players plays at an N-seat table; this match seats "
                             "two players (two-player ACPC files)")
    return TableRules(load_any_gamedef(game.config["gamedef"]), game.name)


class BlueprintPlayer(RealStates):
    """A two-player blueprint (BlueprintGame and its exported strategy) at the dealer."""

    def __init__(self, game, strategy, name: str):
        if game.num_players != 2:
            raise SolverkitError(f"{name}: a blueprint of {game.num_players} players cannot sit at a two-player table")
        self.blueprint_game, self.strategy, self.name = game, strategy, name
        self.bp = game.bp
        self.game = table_rules(game)
        self.gd = self.game.gd
        self.nolimit = not hasattr(self.game, "tree")
        if not self.nolimit:  # the N-player limit rules (two seats here) replay the betting
            from ..poker.nplayer import two_player_table

            self._table = two_player_table(self.gd)
        self.tree = self.bp.tree
        #: per hand: the tree node after each real action mapped (-1: off the tree), and the tree
        #: child of each of the agent's own actions by its index among the hand's actions
        self._hand, self._path, self._own = None, [], {}
        self.stats = {"translated": 0, "off_tree_hands": 0, "clamped": 0}
        self._rng = np.random.default_rng(0)

    # --- the real hand -----------------------------------------------------------------------

    def _fresh(self):
        """The real betting state at the start of a hand."""
        if self.nolimit:
            return NoLimitState(self.gd)
        from ..poker.nplayer import LimitState

        return LimitState(self._table)

    def _replay(self, state: MatchState):
        """(tree node the hand's betting maps to, -1 off the tree; the real state). Each real
        action is mapped once per hand (a translation is drawn once)."""
        if state.hand != self._hand:
            self._hand, self._path, self._own = state.hand, [], {}
        real = self._fresh()
        n = 0
        for i, (letter, size) in enumerate(a for a in split_betting(state.betting, self.nolimit) if a[0] != "/"):
            if i == len(self._path):
                self._path.append(self._map(real, n, letter, size, i, state.position))
            n = self._path[i]
            if self.nolimit:
                real.apply(letter, size)
            else:
                real.apply(letter)
        return n, real

    def _children(self, n: int):
        t = self.tree
        first = int(t.first[n])
        return [(t.labels[first + a], first + a) for a in range(int(t.nact[n]))]

    def _map(self, real, n: int, letter: str, size: int, index: int, me: int) -> int:
        """The tree child for the real action (letter, size) at real state `real`, from node n."""
        if n < 0:
            return -1
        t = self.tree
        actor = real.current_player()
        if actor == me and index in self._own:
            return self._own[index]
        if int(t.kind[n]) != DECISION or int(t.player[n]) != actor or int(t.round[n]) != real.round:
            return self._leave()
        pairs, exact = mapped_children(t, n, real, letter, size, self.gd.stack if self.nolimit else None)
        if not pairs:
            return self._leave()
        if not exact:
            self.stats["translated"] += 1
        if len(pairs) == 1:  # (translation's one draw where two sizes are possible)
            return pairs[0][0]
        return pairs[0][0] if self._rng.random() < pairs[0][1] else pairs[1][0]

    def _leave(self) -> int:
        self.stats["off_tree_hands"] += 1
        return -1

    # --- the policy ------------------------------------------------------------------------------

    def probabilities_at(self, n: int, state: MatchState) -> np.ndarray:
        """The exported policy at tree node n for the state's own cards (their bucket on the round)."""
        t, bp = self.tree, self.bp
        r = int(t.round[n])
        cards = list(state.hole[state.position]) + [c for b in state.board[:r] for c in b]
        try:
            b = int(bp.table.bucket_of(r, np.array([cards], dtype=np.int64))[0])
        except (IndexError, ValueError, KeyError) as exc:
            raise ProtocolMismatch(f"hand {state.hand}: cards {cards} are not a hand of the blueprint's game "
                                   f"({exc})") from None
        return policy_rows(self, n, np.array([b]))[0]

    def act(self, state: MatchState, rng: np.random.Generator) -> str:
        """An action token ('f', 'c', 'r' or 'r<N>') for the real state, sampled at the mapped node."""
        self._rng = rng
        n, real = self._replay(state)
        index = sum(len(a) for a in real.actions)
        t = self.tree
        if n < 0 or int(t.kind[n]) != DECISION or int(t.player[n]) != state.position or int(t.round[n]) != real.round:
            if n >= 0:  # the tree ended (or went elsewhere) while the real hand goes on
                self._own[index] = self._leave()
            return "c"
        probs = self.probabilities_at(n, state)
        total = float(probs.sum())
        if not total > 0:
            raise ProtocolMismatch(f"hand {state.hand}: the blueprint has no probabilities at {state.betting!r}")
        kids = self._children(n)
        slot = int(rng.choice(len(kids), p=probs / total))
        label, child = kids[slot]
        token = "c"
        if label == "f" and real.can_fold():
            token = "f"
        elif label not in "fc":
            if not self.nolimit:
                token = "r" if real.can_raise() else "c"
            else:
                span = real.raise_range()
                if span is not None:
                    lo, hi = span
                    amount = hi if label == "a" else int(t.spent[child][state.position])
                    if not lo <= amount <= hi:
                        self.stats["clamped"] += 1
                    token = f"r{min(max(amount, lo), hi)}"
        if token == "c" and label != "c":  # the real state has no such action: follow the tree's call
            child = next(c for lab, c in kids if lab == "c")
        self._own[index] = child
        return token


def mapped_children(tree, n: int, real, letter: str, size: int, stacks=None) -> tuple[list[tuple[int, float]], bool]:
    """(tree child, probability) of the real action (letter, size) at decision node n of a
    blueprint's betting tree ([]: the tree has no such action), and whether the size is one of the
    tree's. A raise of a size the tree lacks goes to the two nearest raise sizes by the
    pseudo-harmonic mapping (solverkit.poker.translation); an all-in to the tree's all-in;
    `stacks` None: a limit game (one raise)."""
    first, A = int(tree.first[n]), int(tree.nact[n])
    labels = [tree.labels[first + a] for a in range(A)]
    if letter in "fc":
        return ([(first + labels.index(letter), 1.0)] if letter in labels else []), True
    raises = [a for a in range(A) if labels[a] not in "fc"]
    if not raises:
        return [], True
    if stacks is None:
        return [(first + raises[0], 1.0)], True
    actor = real.current_player()
    if size == stacks[actor] and labels[raises[-1]] == "a":
        return [(first + raises[-1], 1.0)], True
    spent = [int(v) for v in tree.spent[n]]
    fractions = [pot_fraction(int(tree.spent[first + a][actor]), spent, actor) for a in raises]
    x = real.pot_fraction(size)
    probs = translation_probabilities(x, fractions)
    return [(first + raises[i], float(probs[i])) for i in np.flatnonzero(probs)], x in fractions


def hand_buckets(bp, r: int, shown, hands: np.ndarray) -> np.ndarray:
    """int64 [len(hands)]: each hole-card row's bucket on round r with the board cards `shown`
    (rows that meet the board: 0, never used)."""
    live = ~np.isin(hands, shown).any(axis=1)
    rows = np.concatenate([hands, np.tile(np.array(shown, dtype=np.int64), (hands.shape[0], 1))], axis=1)
    b = np.zeros(hands.shape[0], dtype=np.int64)
    if live.any():
        b[live] = bp.table.bucket_of(r, rows[live])
    return b


def policy_rows(player, n: int, buckets: np.ndarray) -> np.ndarray:
    """float64 [len(buckets), actions]: the exported policy at tree node n of each bucket."""
    t, bp = player.tree, player.bp
    q, A = int(t.player[n]), int(t.nact[n])
    off = int(bp.off[n]) - int(bp.base[q])
    x = np.asarray(player.strategy[q], dtype=np.float64)
    return x[off + buckets[:, None] * A + np.arange(A)[None, :]]


def hand_policies(player: BlueprintPlayer, n: int, board_sets, hands: np.ndarray) -> np.ndarray:
    """float64 [len(hands), actions]: the exported policy at tree node n of every hole-card row of
    `hands` on the board (card sets per round), each through its bucket on n's round."""
    r = int(player.tree.round[n])
    return policy_rows(player, n, hand_buckets(player.bp, r, [c for st in board_sets[1:r + 1] for c in st], hands))
