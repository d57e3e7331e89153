"""What local best response needs of the evaluated player: its action probabilities for every
hand of the game's hand table at a public state (to Bayes-update the range and to get the chance
that it folds to a bet), and how it follows the hand. Three kinds of player:

- :class:`TreeOpponent`: a strategy of a limit game (a solve's, or a baseline's policy arrays),
  read at the betting tree's node;
- :class:`TranslatingOpponent`: a no-limit strategy over an action abstraction, followed as
  :class:`~solverkit.poker.players.NoLimitPlayer` plays it (LBR's sizes are mapped into its tree by
  the pseudo-harmonic mapping; off the tree it checks or calls to the end);
- :class:`BotOpponent`: a baseline (always call, always raise, uniform random), whose policy
  ignores its cards: the same in every game, no tree needed (limit and no-limit hold'em).

A player's options at a state are (probabilities [hands, K], tokens): tokens are the real
actions ('f' | 'c' | 'r', raise-to chips); ('r', -1) is a raise to a size drawn uniformly from the
legal ones. Betting states are the real game's: :class:`LimitState` (a limit game's tree) or
:class:`~solverkit.poker.acpc_protocol.NoLimitState`.
"""

from __future__ import annotations

import copy

import numpy as np

from .acpc_protocol import pot_fraction
from .action_tree import ALLIN_K, CALL_K, FOLD_K, RAISE_K
from .betting import CALL_A, DECISION, FOLD, FOLD_A, RAISE_A, ROUND_END, SHOWDOWN
from .translation import translation_probabilities

RANDOM_SIZE = -1  # the size of a raise drawn uniformly from the legal ones (a baseline's)


class BetLists:
    """A limit betting tree's per-node arrays as Python lists (read once per game): a hand's
    steps index them hundreds of thousands of times, where numpy scalars are slow."""

    def __init__(self, bet):
        self.bet = bet
        self.kind, self.round, self.player = bet.kind.tolist(), bet.round.tolist(), bet.player.tolist()
        self.spent, self.children = bet.spent.tolist(), bet.children.tolist()
        self.codes = [[int(c) for c in bet.actions[n, :int(bet.num_actions[n])]] for n in range(bet.num_nodes)]


class LimitState:
    """A limit game's betting at a node of its tree (`lists`: its BetLists), with
    NoLimitState's interface."""

    def __init__(self, lists: BetLists, node: int = 0):
        self.lists, self.node = lists, node

    def copy(self) -> "LimitState":
        return LimitState(self.lists, self.node)

    @property
    def finished(self) -> bool:
        return self.lists.kind[self.node] in (FOLD, SHOWDOWN)

    @property
    def showdown(self) -> bool:
        return self.lists.kind[self.node] == SHOWDOWN

    @property
    def round(self) -> int:
        return self.lists.round[self.node]

    @property
    def spent(self) -> list[int]:
        return self.lists.spent[self.node]

    def current_player(self) -> int:
        return -1 if self.finished else self.lists.player[self.node]

    def _codes(self) -> list[int]:
        return self.lists.codes[self.node]

    def can_fold(self) -> bool:
        return not self.finished and FOLD_A in self._codes()

    def raise_range(self):
        """(to, to): the one raise-to amount of a limit raise; None where raising is capped."""
        codes = self._codes() if not self.finished else []
        if RAISE_A not in codes:
            return None
        to = max(self.lists.spent[self.lists.children[self.node][codes.index(RAISE_A)]])
        return to, to

    def apply(self, letter: str, size: int = 0) -> None:
        lists = self.lists
        n = lists.children[self.node][self._codes().index(_CODES[letter])]
        if lists.kind[n] == ROUND_END:
            n = lists.children[n][0]
        self.node = n

    def payoffs(self, loser):
        """Chips each player wins: the folder (or the showdown's loser) loses what he put in."""
        kind, spent = self.lists.kind[self.node], self.lists.spent[self.node]
        if kind == FOLD:
            loser = self.lists.player[self.node]
        elif loser is None:
            return 0, 0
        won = spent[loser]
        return (-won, won) if loser == 0 else (won, -won)


_CODES = {"f": FOLD_A, "c": CALL_A, "r": RAISE_A}


class PolicyCache:
    """A player's normalised hand policies per (tree node, board), kept while few (small games
    meet the same public states over and over)."""

    def __init__(self, player, most: int = 200_000):
        self.player, self.most, self.saved = player, most, {}

    def __call__(self, n: int, board_sets) -> np.ndarray:
        key = (n, board_sets)
        hit = self.saved.get(key)
        if hit is None:
            if len(self.saved) >= self.most:
                self.saved.clear()
            hit = self.saved[key] = normalise(self.player.hand_policies(n, board_sets))
        return hit


def normalise(probs: np.ndarray) -> np.ndarray:
    """Rows scaled to sum to 1; an all-zero row (a hand the strategy never reaches) uniform."""
    total = probs.sum(axis=1, keepdims=True)
    return np.where(total > 0, probs / np.where(total > 0, total, 1.0), 1.0 / probs.shape[1])


class TreeOpponent:
    """A limit game's strategy (a Player, solved or baseline), read at the state's tree node."""

    def __init__(self, player):
        self.player, self.name = player, player.name
        self.policy = PolicyCache(player)

    def new_hand(self, rng) -> None:
        self.rng = rng

    def clone(self) -> "TreeOpponent":
        """A copy for another thread (its own cache)."""
        return TreeOpponent(self.player)

    def options(self, state: LimitState, board_sets):
        n = state.node
        probs = self.policy(n, board_sets)
        tokens = [("r", state.raise_range()[1]) if code == RAISE_A else ("f" if code == FOLD_A else "c", 0)
                  for code in state._codes()]
        return probs, tokens

    def chose(self, slot: int) -> None:
        """The opponent took option `slot` of its last options (its node is the state's)."""

    def fold_after(self, state: LimitState, board_sets, token) -> np.ndarray | float:
        """P(fold) of every hand at its next decision after LBR's `token` at `state`."""
        after = state.copy()
        after.apply(*token)
        if after.finished or after.round != state.round or not after.can_fold():
            return 0.0
        probs = self.policy(after.node, board_sets)
        return probs[:, after._codes().index(FOLD_A)]

    def seen(self, state, token, rng) -> None:
        """LBR played `token` at `state` (a limit tree follows the state itself)."""


class FollowingOpponent:
    """An abstraction's strategy that follows the real hand through its own tree (its node,
    -1 once off the tree): its own actions move to the tree child it sampled, LBR's to the child
    :meth:`_mapped` gives (the pseudo-harmonic mapping draws between two sizes). Subclasses give
    the tree's reading: ``_sync``, ``_tokens``, ``_mapped_at``, ``_fold_slot``, ``policy`` and
    ``num_hands``."""

    def options(self, real, board_sets):
        """(policy per hand, LBR tokens) at the real state: the tree node's, or off the tree a
        check or call for every hand."""
        n = self._sync(self.node, real)
        if n < 0:
            self._leave()
            self._slots = None
            return np.ones((self.num_hands, 1)), [("c", 0)]
        self.node = n
        tokens, self._slots = self._tokens(n, real)
        return self.policy(n, board_sets), tokens

    def _mapped(self, real, token) -> list[tuple[int, float]]:
        """(tree child, probability) of LBR's `token` at real state `real`; (-1, 1) off the tree."""
        n = self._sync(self.node, real)
        if n < 0:
            return [(-1, 1.0)]
        return self._mapped_at(n, real, token)

    def new_hand(self, rng) -> None:
        self.rng, self.node, self._slots = rng, 0, None

    def _leave(self) -> None:
        if self.node >= 0:
            self.stats["off_tree_hands"] += 1
        self.node = -1

    def chose(self, slot: int) -> None:
        if self._slots is not None:
            self.node = self._slots[slot]

    def fold_after(self, real, board_sets, token) -> np.ndarray | float:
        after = _after(real, token)
        if after.finished or not after.can_fold():
            return 0.0
        out = 0.0
        for child, prob in self._mapped(real, token):
            n = self._sync(child, after)
            if n < 0:
                continue  # off the tree: it calls
            slot = self._fold_slot(n)
            if slot is not None:
                out = out + prob * self.policy(n, board_sets)[:, slot]
        return out

    def seen(self, real, token, rng) -> None:
        if self.node < 0:
            return
        mapped = self._mapped(real, token)
        if len(mapped) > 1:
            self.stats["translated"] += 1
        pick = 0 if len(mapped) == 1 or rng.random() < mapped[0][1] else 1
        self.node = mapped[pick][0]
        if self.node < 0:
            self.stats["off_tree_hands"] += 1


class TranslatingOpponent(FollowingOpponent):
    """A no-limit strategy over an action abstraction, following the real hand through its tree
    as NoLimitPlayer does: its own actions move to the tree child it sampled, LBR's raises to the
    tree size the pseudo-harmonic mapping draws; where the tree has no counterpart it checks or
    calls for the rest of the hand."""

    def __init__(self, player):
        self.player, self.name = player, player.name
        self.bet = player.game.tree.bet
        self.policy = PolicyCache(player)
        self.gd = player.game.gd
        self.stats = {"translated": 0, "off_tree_hands": 0}

    def clone(self) -> "TranslatingOpponent":
        """A copy for another thread (its own node, cache and counts)."""
        return TranslatingOpponent(self.player)

    def _sync(self, n: int, real) -> int:
        """Node n moved past round ends into the real state's round; -1 unless it is then the
        real actor's decision in that round."""
        bet = self.bet
        while n >= 0 and int(bet.kind[n]) == ROUND_END and int(bet.round[n]) < real.round:
            n = int(bet.children[n, 0])
        if n < 0 or real.finished:
            return -1
        if int(bet.kind[n]) != DECISION or int(bet.player[n]) != real.current_player() \
                or int(bet.round[n]) != real.round:
            return -1
        return n

    @property
    def num_hands(self) -> int:
        return self.player.game.tree.num_hands

    def _tokens(self, n: int, real):
        """(LBR's token, tree child) of each action at node n, as NoLimitPlayer.act plays them."""
        bet = self.bet
        A = int(bet.num_actions[n])
        codes = [int(c) for c in bet.actions[n, :A]]
        span = real.raise_range()
        tokens, children = [], []
        for slot, code in enumerate(codes):  # NoLimitPlayer.act's tokens
            token = ("c", 0)
            if code == FOLD_K and real.can_fold():
                token = ("f", 0)
            elif code in (RAISE_K, ALLIN_K) and span is not None:
                amount = span[1] if code == ALLIN_K else int(bet.amounts[n, slot])
                token = ("r", min(max(amount, span[0]), span[1]))
            tokens.append(token)
            children.append(int(bet.children[n, slot if token[0] != "c" or code == CALL_K else codes.index(CALL_K)]))
        return tokens, children

    def _mapped_at(self, n: int, real, token) -> list[tuple[int, float]]:
        """(tree child, probability) of LBR's `token` at tree node n (NoLimitPlayer._map)."""
        bet = self.bet
        A = int(bet.num_actions[n])
        codes = [int(c) for c in bet.actions[n, :A]]
        letter, size = token
        if letter in "fc":
            want = FOLD_K if letter == "f" else CALL_K
            return [(int(bet.children[n, codes.index(want)]), 1.0)] if want in codes else [(-1, 1.0)]
        slots = [a for a in range(A) if codes[a] in (RAISE_K, ALLIN_K)]
        if not slots:
            return [(-1, 1.0)]
        actor = real.current_player()
        if size == self.gd.stack[actor] and codes[slots[-1]] == ALLIN_K:
            return [(int(bet.children[n, slots[-1]]), 1.0)]
        spent = [int(v) for v in bet.spent[n]]
        fractions = [pot_fraction(int(bet.amounts[n, a]), spent, actor) for a in slots]
        probs = translation_probabilities(real.pot_fraction(size), fractions)
        return [(int(bet.children[n, slots[i]]), float(probs[i])) for i in np.flatnonzero(probs)]

    def _fold_slot(self, n: int) -> int | None:
        codes = [int(c) for c in self.bet.actions[n, :int(self.bet.num_actions[n])]]
        return codes.index(FOLD_K) if FOLD_K in codes else None


class BotOpponent:
    """A baseline (players.BASELINES, NOLIMIT_BASELINES): call, raise (in no-limit games to a
    uniformly drawn legal size) or random (fold when facing a bet, call, raise, equally likely
    among the legal ones), whatever its cards."""

    def __init__(self, kind: str, hands: int):
        self.kind, self.name, self.H = kind, kind, hands

    def new_hand(self, rng) -> None:
        self.rng = rng

    def clone(self) -> "BotOpponent":
        return BotOpponent(self.kind, self.H)

    def _tokens(self, real) -> list:
        span = real.raise_range()
        if self.kind == "call":
            return [("c", 0)]
        if self.kind == "raise":
            return [("r", RANDOM_SIZE)] if span else [("c", 0)]
        return ([("f", 0)] if real.can_fold() else []) + [("c", 0)] + ([("r", RANDOM_SIZE)] if span else [])

    def options(self, real, board_sets):
        tokens = self._tokens(real)
        return np.full((self.H, len(tokens)), 1.0 / len(tokens)), tokens

    def chose(self, slot: int) -> None:
        pass

    def fold_after(self, real, board_sets, token) -> float:
        after = _after(real, token)
        if after.finished:
            return 0.0
        tokens = self._tokens(after)
        return 1.0 / len(tokens) if ("f", 0) in tokens else 0.0

    def seen(self, real, token, rng) -> None:
        pass


def _after(real, token):
    """A copy of no-limit state `real` after `token`."""
    if isinstance(real, LimitState):
        after = real.copy()
    else:
        after = copy.copy(real)
        after.spent, after.actions = list(real.spent), [list(a) for a in real.actions]
    after.apply(*token)
    return after
