"""Limit poker written as a TreeGame: Kuhn and Leduc, the same rules as the ACPC game files
``kuhn.game`` and ``leduc.game`` of the poker engine (antes 1, player 0 acts first in every
round, cards numbered rank * suits + suit).

With ``players = N`` (3 to 6) they follow OpenSpiel's ``kuhn_poker(players=N)`` and
``leduc_poker(players=N)``: a deck of N + 1 ranks (Leduc: two suits each), each player antes 1,
a round ends when every player still in has acted and matched the highest bet, a player who
folds is out, the best hand among those left wins the pot (Leduc: a tie splits it), and the
first player still in acts first in every round.
"""

from __future__ import annotations

import functools

from solverkit.core.params import Param
from solverkit.efg import TreeGame
from solverkit.poker.cards import card_name

#: the `players` parameter of the tree engine's Kuhn and Leduc
PLAYERS = Param("int", 2, "players (2 to 6; with more than 2, OpenSpiel's N-player rules: docs/players.md)",
                min=2, max=6)


@functools.cache
def _code_digest(cls) -> str:
    """SHA-256 of the source files that decide a limit tree's nodes, keys and names (read once a process)."""
    import inspect

    import solverkit.efg.build as build
    import solverkit.efg.tree as tree
    import solverkit.poker.cards as cards
    from solverkit.core.identity import files_digest

    return files_digest(sorted({inspect.getfile(cls), __file__, cards.__file__, build.__file__, tree.__file__}))


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
    params = {**TreeGame.params, "players": PLAYERS}

    def __init__(self, **params):
        players = int(params.get("players", 2))
        if players != 2:  # OpenSpiel's N-player deck: N + 1 ranks
            self.num_players = players
            self.ranks = players + 1
        super().__init__(**params)

    def tree_cache_key(self) -> str:
        """The rules (class, constants, players) and a digest of the code that writes the tree
        (the class's file, card names, the enumeration): enumerated once per machine (3-player
        Leduc: ~30 s in Python), an edit of any of them is a new key."""
        rules = (self.ranks, self.suits, self.raise_size, self.max_raises, self.board_cards, self.ante)
        return (f"limit_tree|{type(self).__module__}.{type(self).__qualname__}|players={self.num_players}|"
                f"rules={rules}|code={_code_digest(type(self))}")

    def initial_state(self):
        return ((), ("",))

    def _cards_needed(self, hist) -> int:
        return self.num_players + sum(self.board_cards[: len(hist)])

    def _replay(self, hist):
        """N players: (spent, folded, player to act, raises this round, round over) after `hist`
        (remembered per betting history: the cards do not change it)."""
        cache = self.__dict__.setdefault("_replays", {})
        got = cache.get(hist)
        if got is None:
            got = cache[hist] = self._replay_once(hist)
        return got

    def _replay_once(self, hist):
        P = self.num_players
        spent = [self.ante] * P
        folded = [False] * P
        to_act, raises, over = 0, 0, False
        for r, s in enumerate(hist):
            to_act = folded.index(False)
            raises, acted = 0, [False] * P
            for ch in s:
                if ch == "f":
                    folded[to_act] = True
                elif ch == "c":
                    spent[to_act] = max(spent)
                else:
                    spent[to_act] = max(spent) + self.raise_size[r]
                    raises += 1
                acted[to_act] = True
                to_act = (to_act + 1) % P
                while folded[to_act]:
                    to_act = (to_act + 1) % P
            top = max(spent)
            left = [p for p in range(P) if not folded[p]]
            over = len(left) == 1 or all(acted[p] and spent[p] == top for p in left)
        return spent, folded, to_act, raises, over

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
        if self.num_players != 2:
            _, folded, _, _, over = self._replay(hist)
            return folded.count(False) == 1 or (over and len(hist) == len(self.raise_size))
        _, _, _, folded, over = self._round(hist)
        return folded >= 0 or (over and len(hist) == len(self.raise_size))

    def player(self, state):
        cards, hist = state
        if len(cards) < self._cards_needed(hist):
            return self.CHANCE
        if self.num_players != 2:
            return self._replay(hist)[2]
        return self._round(hist)[1]

    def chance_outcomes(self, state):
        cards, _ = state
        left = [c for c in range(self.ranks * self.suits) if c not in cards]
        return [(c, 1.0 / len(left)) for c in left]

    def legal_actions(self, state):
        if self.num_players != 2:
            spent, _, to_act, raises, _ = self._replay(state[1])
        else:
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
        if self.num_players != 2:
            _, folded, _, _, over = self._replay(hist)
            if over and folded.count(False) > 1 and len(hist) < len(self.raise_size):
                hist = hist + ("",)
            return (cards, hist)
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
        if self.num_players != 2:
            return self._returns_n(cards, hist)
        spent, _, _, folded, _ = self._round(hist)
        if folded >= 0:
            u0 = -spent[0] if folded == 0 else spent[1]
        else:
            board = cards[2:]
            s0, s1 = self._strength(cards[0], board), self._strength(cards[1], board)
            u0 = spent[1] if s0 > s1 else -spent[0] if s1 > s0 else 0.0
        return (u0, -u0)

    def _returns_n(self, cards, hist):
        """Every player's winnings: the pot split among the best hands still in, less what each put in."""
        P = self.num_players
        spent, folded, _, _, _ = self._replay(hist)
        board = cards[P:]
        left = [p for p in range(P) if not folded[p]]
        strength = {p: self._strength(cards[p], board) for p in left}
        best = max(strength.values())
        winners = [p for p in left if strength[p] == best]
        pot = float(sum(spent))
        return tuple((pot / len(winners) if p in winners else 0.0) - spent[p] for p in range(P))

    def infoset_key(self, state, player):
        cards, hist = state
        board = "".join(card_name(c, self.suits, self.ranks) for c in cards[self.num_players:])
        return f"{card_name(cards[player], self.suits, self.ranks)}|{board}|{'/'.join(hist)}"

    def action_label(self, action, player):
        return card_name(action, self.suits, self.ranks) if player is None else str(action)

    def openspiel_table(self, strategy):
        """OpenSpiel information-state string -> {action id: probability} over OpenSpiel's game of
        the same rules (:attr:`openspiel_name` with this many players): its tree walked beside
        this game's flat tree (same children in the same order: chance cards ascending, actions
        fold, call, raise), each decision taking the policy of the flat node's information set."""
        from solverkit_openspiel.games import import_pyspiel

        pyspiel = import_pyspiel()
        os_game = pyspiel.load_game(f"{self.openspiel_name}(players={self.num_players})")
        return twin_table(self.tree, strategy, os_game.new_initial_state())


def twin_table(tree, strategy, root) -> dict:
    """The OpenSpiel policy table of `strategy` over the OpenSpiel state `root`, whose tree is the
    flat `tree`'s node for node (checked: the same kind of node, player and number of children)."""
    from solverkit.efg.build import CHANCE, DECISION, TERMINAL

    node = tree.node
    table = {}
    stack = [(0, root)]
    while stack:
        n, state = stack.pop()
        kind, who, off, _, first, count = (int(x) for x in node[n])
        if state.is_terminal() and kind == TERMINAL:
            continue
        if state.is_terminal() or kind == TERMINAL or (kind == CHANCE) != state.is_chance_node():
            raise ValueError(f"node {n} of the tree is not OpenSpiel's {state.history_str()!r}")
        acts = [a for a, _ in state.chance_outcomes()] if kind == CHANCE else state.legal_actions()
        if len(acts) != count or (kind == DECISION and who != state.current_player()):
            raise ValueError(f"node {n} of the tree is not OpenSpiel's {state.history_str()!r}")
        if kind == DECISION:
            key = state.information_state_string()
            if key not in table:
                table[key] = {int(a): float(strategy[who][off + i]) for i, a in enumerate(acts)}
        for i, a in enumerate(acts):
            stack.append((first + i, state.child(a)))
    return table


class KuhnTree(LimitPokerTree):
    """Kuhn poker as a tree (3 cards, ante 1, one bet of 1); game value -1/18 for player 0."""

    name = "kuhn_tree"
    description = "Kuhn poker described as a tree (generic extensive-form engine)"
    openspiel_name = "kuhn_poker"


class LeducTree(LimitPokerTree):
    """Leduc hold'em as a tree (6 cards, bets 2 then 4, two bets per round, one board card)."""

    name = "leduc_tree"
    description = "Leduc hold'em described as a tree (generic extensive-form engine)"
    openspiel_name = "leduc_poker"
    suits = 2
    raise_size = (2, 4)
    max_raises = (2, 2)
    board_cards = (0, 1)
