"""A poker game's strategy as people and other tools read it: information-set keys and where one
is stored, action labels, the `solverkit report` tables and the OpenSpiel table."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .betting import ACTION_CHARS
from .cards import card_name


def suit_class(cards, num_suits: int) -> tuple:
    """The smallest image of a hand under every renaming of the suits: two hands with the same
    class differ only by suits, and before any board card they play alike."""
    from itertools import permutations

    return min(tuple(sorted(int(c) - int(c) % num_suits + perm[int(c) % num_suits] for c in cards))
               for perm in permutations(range(num_suits)))


class GamePresentation:
    """Keys, labels and reports of a poker game's strategies (a mixin of :class:`.game.PokerGame`)."""

    def player_row(self, player: int, hand: int) -> int:
        """Row of hand `hand` (an index of the tree's hand table, as :meth:`locate` gives it) in
        `player`'s own hand list, where that player's values are stored: the same index in a game
        whose players share one list, its place among the player's range in a spot. KeyError when
        the player's range does not hold the hand."""
        inv = self.__dict__.setdefault("_player_rows", {}).get(player)
        if inv is None:
            rows = self.tree.side(player).rows
            inv = np.full(self.tree.hands.shape[0], -1, dtype=np.int64)
            inv[rows] = np.arange(rows.shape[0])
            self._player_rows[player] = inv
        row = int(inv[hand])
        if row < 0:
            raise KeyError(f"player {player}'s range does not hold hand {hand}")
        return row

    def policy_offset(self, node: int, board_sets, hand) -> int:
        """Where the acting player's values of a deal's `hand` (sorted cards) at decision `node`
        start in its flat policy, on the board dealt so far (card sets per round): :meth:`locate`,
        then the player's own row. KeyError when the game's boards or that player's range lack it."""
        g, h = self.locate(board_sets, hand)
        return self.value_offset(node, g, self.player_row(int(self.tree.bet.player[node]), h))

    def locate(self, board_sets, hand) -> tuple[int, int]:
        """(global board id, hand index) where a deal's board (card sets per round dealt so
        far) and private hand are stored; under suit isomorphism, their canonical images."""
        t = self.tree
        if not hasattr(self, "_board_lookup"):
            self._board_lookup = {}
            for g in range(int(t.boards.round_start[-1])):
                cards = [int(c) for c in t.boards.cards[g, : t.boards.num_cards[g]]]
                sets, pos = [], 0
                r = 0
                while pos < len(cards) or r == 0:
                    nb = self.gd.num_board_cards[r]
                    sets.append(tuple(cards[pos : pos + nb]))
                    pos += nb
                    r += 1
                    if pos >= len(cards):
                        break
                self._board_lookup[tuple(sets)] = g
            self._hand_lookup = {tuple(int(c) for c in row): i for i, row in enumerate(t.hands)}
        S = self.gd.num_suits
        from itertools import permutations

        perms = permutations(range(S)) if self.tree_isomorphic else [tuple(range(S))]
        allowed = self.suit_perms()
        if allowed is not None:  # only the permutations the boards were merged by (a spot's ranges keep them)
            keep = {tuple(int(x) for x in q) for q in allowed}
            perms = [q for q in perms if tuple(q) in keep]
        for perm in perms:
            def move(cards):
                return tuple(sorted(int(c) - int(c) % S + perm[int(c) % S] for c in cards))  # noqa: B023 (called in this iteration)

            key = tuple(move(st) for st in board_sets)
            g = self._board_lookup.get(key)
            if g is not None:
                return g, self._hand_lookup[move(hand)]
        raise KeyError(f"board {board_sets!r} is not a board of game {self.name!r}")

    def infoset_place(self, key, player=None):
        """'<hand>|<board>|<betting>' (as :meth:`infoset_keys` names it, or with any suits and card
        order: mapped to the canonical key stored) -> where it is stored: parsed, not looked up
        among every key, so that it costs nothing like the game's size."""
        from ..core.game import InfosetPlace
        from ..errors import SolverkitError
        from .infoset_key import resolve_key

        t, bet = self.tree, self.tree.bet
        found = resolve_key(self, key)
        g, n = found.board, found.node
        r = int(bet.round[n])
        start = t.boards.round_start
        p = int(bet.player[n])
        if player is not None and player != p:
            raise SolverkitError(f"information set {key!r} is player {p}'s, not player {player}'s")
        try:
            h = self.player_row(p, found.hand)  # the player's own row (a spot keeps each player's range)
        except KeyError:
            raise SolverkitError(f"information set {key!r}: player {p}'s range does not hold this hand") from None
        A = int(bet.num_actions[n])
        s = self.split
        if not s or r < s:
            region, seg, first = (self.trunk if s else self.full), ("trunk" if s else "root"), start
        else:
            e = n
            while bet.round[e] >= s:  # up to the end of round s - 1: the subgame's entry
                e = int(bet.parent[e])
            lineage = [g]
            while len(lineage) <= r - (s - 1):
                lineage.append(int(t.boards.parent[lineage[-1]]))
            b, g_s = lineage[r - (s - 1)], lineage[r - s]  # the boards of rounds s - 1 and s
            j = next(j for j, (c0, c1) in enumerate(self._chunks[b]) if c0 <= g_s < c1)
            region, first = self._sub_region(e, b, j)
            seg = self._segment_name((e, b, j))
        seg_offset = int(region.node_off[n] + (g - int(first[r])) * region.stride[p, r]) + h * A
        return InfosetPlace(key, p, self.value_offset(n, g, h), tuple(self.action_labels(n)), seg, seg_offset,
                            found.key)

    openspiel_exports = "kuhn, leduc (and acpc with those game definitions)"

    def openspiel_table(self, strategy) -> dict:
        """OpenSpiel information-state string -> {action id: probability} (Kuhn and Leduc)."""
        from .openspiel import openspiel_table

        return openspiel_table(self, strategy)

    def infoset_keys(self, player):
        """'<hand>|<board>|<betting>' for each (decision node, board, hand) of the player, in
        layout order."""
        self._whole_tree("the information-set keys (every board's cards)")
        t = self.tree
        bet = t.bet
        S, R = self.gd.num_suits, self.gd.num_ranks
        hands = ["".join(card_name(c, S, R) for c in row) for row in t.side(player).hands]
        keys = []
        for n, k in zip(*self.full.units[player]):
            g = int(t.boards.round_start[bet.round[n]]) + int(k)
            board = "".join(card_name(c, S, R) for c in t.boards.cards[g, : t.boards.num_cards[g]])
            keys.extend(f"{name}|{board}|{bet.history[n]}" for name in hands)
        return keys

    def impossible_infosets(self, player):
        """True for each (node, board, hand) slot of `player` whose hand shares a card with the
        board (the layout keeps a slot per hand on every board), in layout order."""
        t = self.tree
        nodes, k = self.full.units[player]
        boards = t.boards.round_start[t.bet.round[nodes]] + k
        return ~t.side(player).valid[boards].astype(bool).ravel()

    def infoset_actions(self, player):
        """Action labels ('f', 'c', 'r') of each information set of `player`, in layout order."""
        out = []
        for n in self.full.units[player][0]:
            labels = self.action_labels(int(n))
            out.extend([labels] * self.tree.hands_of(player))
        return out

    def report_strategy(self, strategy, limit: int = 200):
        """``solverkit report``: the preflop chart for two hole cards, else per-hand action
        probabilities at the first decision and at the answer to an opening raise."""
        import tempfile

        from ..core.html_table import table
        from .preflop import plot_preflop, preflop_nodes

        out = []
        if self.gd.num_hole_cards == 2:
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "preflop.png"
                plot_preflop(self, strategy, path, title=f"{self.name}: preflop (fold red, call blue, raise green)")
                out.append(("preflop chart", path.read_bytes()))
            return out
        S, R = self.gd.num_suits, self.gd.num_ranks
        for title, node in preflop_nodes(self):
            labels = self.action_labels(node)
            p = int(self.tree.bet.player[node])
            rows = {}  # (suit class, shown probabilities) -> hand names
            for h, cards in enumerate(self.tree.hands):
                off = self.value_offset(node, 0, h)
                probs = tuple(f"{x:.3f}" for x in strategy[p][off: off + len(labels)])
                name = "".join(card_name(int(c), S, R) for c in cards)
                rows.setdefault((suit_class(cards, S), probs), []).append(name)
            shown = [(" ".join(names) if len(names) <= 4 else f"{names[0]} (+{len(names) - 1} suit images)", *probs)
                     for (_, probs), names in rows.items()]
            more = f" (first {limit} of {len(shown)})" if len(shown) > limit else ""
            out.append((f"{title}: action probabilities per hand, suit images that play alike on one row{more}",
                        table(("hands", *labels), shown[:limit])))
        return out

    def action_labels(self, node: int) -> list[str]:
        bet = self.tree.bet
        return [ACTION_CHARS[a] for a in bet.actions[node, : bet.num_actions[node]]]
