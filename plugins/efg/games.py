"""Limit poker written as a TreeGame: Kuhn and Leduc, the same rules as the ACPC game files
``kuhn.game`` and ``leduc.game`` of the poker engine (antes 1, player 0 acts first in every
round, cards numbered rank * suits + suit)."""

from __future__ import annotations

from solverkit.efg import TreeGame
from solverkit.poker.cards import card_name


class LimitPokerTree(TreeGame):
    """A one-card-per-player limit poker game as a tree; subclasses set the class constants.

    A state is (cards dealt, betting per round): hole cards first (player 0's, then 1's), then
    one board card at the start of each round that has one."""

    ranks = 3
    suits = 1
    raise_size = (1,)
    max_raises = (1,)
    board_cards = (0,)
    ante = 1
    unit_name = "chips"

    def initial_state(self):
        return ((), ("",))

    def _cards_needed(self, hist) -> int:
        return 2 + sum(self.board_cards[: len(hist)])

    def _round(self, hist):
        """(spent, player to act, raises, folded player or -1, round over) of the last round."""
        r = len(hist) - 1
        base = self.ante + sum(self.raise_size[i] * s.count("r") for i, s in enumerate(hist[:-1]))
        spent = [base, base]
        s = hist[-1]
        to_act, raises, folded = 0, 0, -1
        for ch in s:
            if ch == "f":
                folded = to_act
            elif ch == "c":
                spent[to_act] = max(spent)
            else:
                spent[to_act] = max(spent) + self.raise_size[r]
                raises += 1
            to_act ^= 1
        over = folded >= 0 or (len(s) >= 2 and s[-1] == "c")
        return spent, to_act, raises, folded, over

    def is_terminal(self, state):
        cards, hist = state
        if len(cards) < self._cards_needed(hist):
            return False
        _, _, _, folded, over = self._round(hist)
        return folded >= 0 or (over and len(hist) == len(self.raise_size))

    def player(self, state):
        cards, hist = state
        if len(cards) < self._cards_needed(hist):
            return self.CHANCE
        return self._round(hist)[1]

    def chance_outcomes(self, state):
        cards, _ = state
        left = [c for c in range(self.ranks * self.suits) if c not in cards]
        return [(c, 1.0 / len(left)) for c in left]

    def legal_actions(self, state):
        spent, to_act, raises, _, _ = self._round(state[1])
        r = len(state[1]) - 1
        acts = ["f"] if spent[to_act] < max(spent) else []
        acts.append("c")
        if raises < self.max_raises[r]:
            acts.append("r")
        return acts

    def child(self, state, action):
        cards, hist = state
        if self.player(state) == self.CHANCE:
            return (cards + (action,), hist)
        hist = hist[:-1] + (hist[-1] + action,)
        _, _, _, folded, over = self._round(hist)
        if over and folded < 0 and len(hist) < len(self.raise_size):
            hist = hist + ("",)
        return (cards, hist)

    def _strength(self, hole, board):
        rank = hole // self.suits
        if board and board[0] // self.suits == rank:
            return 100 + rank
        return rank

    def returns(self, state):
        cards, hist = state
        spent, _, _, folded, _ = self._round(hist)
        if folded >= 0:
            u0 = -spent[0] if folded == 0 else spent[1]
        else:
            board = cards[2:]
            s0, s1 = self._strength(cards[0], board), self._strength(cards[1], board)
            u0 = spent[1] if s0 > s1 else -spent[0] if s1 > s0 else 0.0
        return (u0, -u0)

    def infoset_key(self, state, player):
        cards, hist = state
        board = "".join(card_name(c, self.suits, self.ranks) for c in cards[2:])
        return f"{card_name(cards[player], self.suits, self.ranks)}|{board}|{'/'.join(hist)}"

    def action_label(self, action, player):
        return card_name(action, self.suits, self.ranks) if player is None else str(action)


class KuhnTree(LimitPokerTree):
    """Kuhn poker as a tree (3 cards, ante 1, one bet of 1); game value -1/18 for player 0."""

    name = "kuhn_tree"
    description = "Kuhn poker described as a tree (generic extensive-form engine)"


class LeducTree(LimitPokerTree):
    """Leduc hold'em as a tree (6 cards, bets 2 then 4, two bets per round, one board card)."""

    name = "leduc_tree"
    description = "Leduc hold'em described as a tree (generic extensive-form engine)"
    suits = 2
    raise_size = (2, 4)
    max_raises = (2, 2)
    board_cards = (0, 1)
