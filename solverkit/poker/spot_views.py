"""What players look at in a hold'em spot: values and equity per hand, node views, labels, keys, the report."""

from __future__ import annotations


import numpy as np

from .cards import card_name
from .ranges import combo_name

#: node equities within this of 0 or 1 are rounding of the kernel's sums (a few ulps): shown as 0 or 1
EQUITY_SNAP = 1e-12


class SpotViews:
    """HoldemSpot's presentation: per-hand values in chips, equity, node views, labels and keys."""

    def opponent_mass(self) -> np.ndarray:
        """[2, H]: for each player's combo, the opponent's range weight on combos that share no card with it."""
        w = self._root_entry()
        t = self.tree
        out = np.zeros_like(w)
        for p in (0, 1):
            mine, theirs = t.side(p), t.side(1 - p)
            o = w[1 - p, : theirs.num_hands]
            by_card = np.zeros(52)
            for j in range(2):
                np.add.at(by_card, theirs.hands[:, j], o)
            same = np.where(mine.same >= 0, o[np.maximum(mine.same, 0)], 0.0)
            out[p, : mine.num_hands] = o.sum() - by_card[mine.hands[:, 0]] - by_card[mine.hands[:, 1]] + same
        return out

    def hand_values(self, strategy) -> np.ndarray:
        """[2, H]: each combo's expected value in chips (its share of the pot when both play
        `strategy`, a flat policy per player; rake paid), NaN for combos not in the range."""
        from ..core.passes import NO_COEFFS
        from .game import _Job

        t = self.tree
        job = _Job(0, 0, 3, -1, NO_COEFFS)
        out = self._call(self.full, 0, self._root_entry(), t.boards.round_start, strategy, strategy,
                         [np.zeros(1), np.zeros(1)], job)
        return self._chips(out)

    def hand_values_from_store(self, store, kind: str = "average", transport=None) -> np.ndarray:
        """:meth:`hand_values` of the store's ``kind`` strategy, walked segment by segment."""
        from ..core.passes import NO_COEFFS
        from .game import _Job

        job = _Job(0, 0, 3, -1, NO_COEFFS, source="avg" if kind == "average" else "regret")
        return self._chips(self._pass(store, job, transport))

    def _chips(self, out) -> np.ndarray:
        return self._per_hand(out) + self.gd.pot // 2  # (each had pot // 2 in; an odd chip is dead)

    def _per_hand(self, out) -> np.ndarray:
        """Root values per hand (payoffs x scale[0] summed over the opponent's weights) per unit of
        the opponent's weight facing the hand: chips (payoffs in chips) per deal."""
        m = self.opponent_mass() * float(self.scale[0])
        w = self._root_entry()
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where((w > 0) & (m > 0), out / np.where(m > 0, m, 1.0), np.nan)

    def hand_equity(self) -> np.ndarray:
        """[2, H]: each combo's showdown equity against the opponent's range over every runout
        (win 1, tie 1/2), NaN for combos not in the range."""
        eq = self.__dict__.get("_equity")
        if eq is None:
            eq = self._equity = 0.5 * (1.0 + self._per_hand(self._runout_values()))
        return eq

    def _runout_values(self) -> np.ndarray:
        """[2, H] root values of a tree without bets: the board runs out, a showdown for 1 chip."""
        return self._runout_kernel(self._root_entry(), 0, 0)

    def _runout_kernel(self, entry, r: int, g: int) -> np.ndarray:
        """[2, H] values of a tree without bets from round `r` on (global) board `g`, each player
        reaching it with `entry` (per hand index): the board runs out, a showdown for 1 chip;
        payoffs x scale[R - 1] summed over the opponent's weights and the runouts."""
        from .betting import ROUND_END, SHOWDOWN
        from .game import _kernel
        from .kernels import MODE_FULL, Buffers, Pass, Walk, float_values

        t = self.tree
        R = self.gd.num_rounds
        kind = np.array([ROUND_END] * (R - 1) + [SHOWDOWN], dtype=np.int64)
        children = np.full((R, 3), -1, dtype=np.int64)
        children[: R - 1, 0] = np.arange(1, R)
        kt = self.kernel_tree()._replace(
            kind=kind, player=np.full(R, -1, dtype=np.int64), spent=np.ones((R, 2), dtype=np.int64), extra=np.zeros(R),
            nact=np.zeros(R, dtype=np.int64), children=children,
            re_index=np.where(kind == ROUND_END, 0, -1).astype(np.int64))
        lo = np.arange(R, dtype=np.int64)
        walk = Walk(int(r), R - 1, int(r), int(g), int(t.boards.child_start[g]), int(t.boards.child_end[g]), lo, lo + 1,
                    np.zeros(R, dtype=np.int64), np.zeros((2, R), dtype=np.int64), t.boards.round_start,
                    np.zeros(R, dtype=np.int64), np.zeros((2, R), dtype=np.int64))
        z = np.zeros(1)
        H = t.max_hands
        bufs = Buffers(np.zeros((R, 2, H)), np.zeros((R, 2, H)), np.zeros(R, dtype=np.uint8), np.zeros((2, H)))
        job = Pass(0, 0, 3, -1, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, False, MODE_FULL, np.uint64(0), -1, 1.0, 1.0)
        _kernel()(kt, walk, float_values(z, z, z, z, z, z), job, entry, 0, np.zeros((1, 1, 2, 1)), True, bufs)
        return bufs.out_cfv.copy()  # a stake of 1 chip: (win - lose) per unit of opponent weight, after scaling

    def node_view(self, strategy, path: str):
        """The NodeView (solverkit.poker.node_view) of `strategy` at the node `path` names."""
        from .node_view import node_view

        return node_view(self, strategy, path)

    def _node_entry(self, sets, reach):
        """(global board id, canon, entry) of the board `sets` (card sets per street dealt so far)
        and the players' weights `reach` (per player, per its combos): canon[p][i] the hand index
        where p's combo i is stored on that board (its suit image under isomorphism; -1 where it
        meets the board), entry [2, max hands] the weights at those indices; board None when no
        combo is left."""
        t = self.tree
        g, canon = self.board_places(sets)
        entry = np.zeros((2, t.max_hands))
        for p in (0, 1):
            ok = canon[p] >= 0
            np.add.at(entry[p], canon[p][ok], np.asarray(reach[p], dtype=np.float64)[ok])
        return g, canon, entry

    def board_places(self, sets):
        """(global board id, canon) of the board `sets` (card sets per street dealt so far):
        canon[p][i] the hand index where p's combo i is stored there (its suit image under
        isomorphism; -1 where it meets the board); kept per board, which every node of a line
        after the same cards shares (node views, the tree export)."""
        memo = self.__dict__.setdefault("_board_places", {})
        key = tuple(tuple(st) for st in sets)
        if key not in memo:
            if len(memo) > 4096:
                memo.clear()
            memo[key] = self._locate_combos(sets)
        return memo[key]

    def _locate_combos(self, sets):
        """:meth:`board_places`, computed: each combo located on the board."""
        t = self.tree
        canon = []
        g = None
        used = {c for st in sets for c in st}
        for p in (0, 1):
            side = t.side(p)
            inv = np.full(t.num_hands, -1, dtype=np.int64)
            inv[side.rows] = np.arange(side.num_hands)
            idx = np.full(side.num_hands, -1, dtype=np.int64)
            for i, h in enumerate(side.hands):
                if used & {int(h[0]), int(h[1])}:
                    continue
                g, u = self.locate(list(sets), (int(h[0]), int(h[1])))
                idx[i] = inv[u]
            canon.append(idx)
        return g, canon

    def facing_mass(self, reach) -> list[np.ndarray]:
        """Per player, per its combos: the opponent's weight in `reach` on combos that share no
        card with it (the weight of the deals the combo is in)."""
        t = self.tree
        out = []
        for p in (0, 1):
            mine, theirs = t.side(p), t.side(1 - p)
            o = np.array(reach[1 - p], dtype=np.float64)
            by_card = np.zeros(52)
            for j in range(2):
                np.add.at(by_card, theirs.hands[:, j], o)
            same = np.where(mine.same >= 0, o[np.maximum(mine.same, 0)], 0.0)
            out.append(o.sum() - by_card[mine.hands[:, 0]] - by_card[mine.hands[:, 1]] + same)
        return out

    def node_values(self, strategy, node: int, sets, reach) -> np.ndarray:
        """[2, combos of each player]: EV in chips of each combo at betting node `node` after the
        board `sets` (card sets per street), when both play `strategy` from there and reach it
        with weights `reach` (per player, per its combos); NaN where a combo cannot be there. The
        EV is from the node on: the pot it wins less the chips it puts in after the node (what it
        has in at the node is sunk: a fold there is worth 0); at the root, :meth:`hand_values`."""

        t = self.tree
        bet = t.bet
        r = int(bet.round[node])
        desc = self._descendants(node)
        R = self.gd.num_rounds
        lo, hi = self.full.round_lo.copy(), self.full.round_hi.copy()
        for rr in range(R):
            ids = desc[bet.round[desc] == rr]
            if ids.size:
                lo[rr], hi[rr] = ids.min(), ids.max() + 1
        g, canon, entry = self._node_entry(sets, reach)
        if g is None:
            return np.full((2, t.max_hands), np.nan)
        from .kernels import Walk

        full = self.full
        walk = Walk(r, R - 1, int(node), int(g), int(t.boards.child_start[g]), int(t.boards.child_end[g]), lo, hi,
                    full.node_off, full.stride, t.boards.round_start, full.block_off, full.block_stride)
        from .game import _kernel
        from .kernels import Pass, float_values

        z = np.zeros(1)
        job = Pass(0, 0, 3, -1, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, False, 0, np.uint64(0), -1, 1.0, 1.0)
        values = float_values(strategy[0], strategy[1], strategy[0], strategy[1], z, z)
        bufs = self._bufs(values.src0.dtype)
        _kernel(values.src0.dtype)(self.kernel_tree(), walk, values, job, entry, 0, np.zeros((1, 1, 2, 1)), True, bufs)
        out = bufs.out_cfv.copy()
        ev = np.full((2, t.max_hands), np.nan)
        mass = self.facing_mass(reach)
        for p in (0, 1):
            m, u = mass[p], canon[p]
            i = np.flatnonzero((u >= 0) & (m > 0) & (np.asarray(reach[p]) > 0))
            # the payoffs are net of every chip put in since the root: add back what p has in at
            # the node (sunk), so that EV counts only what it wins and puts in from here on
            ev[p, i] = out[p, u[i]] / (m[i] * float(self.scale[r])) + int(bet.spent[node, p])
        return ev

    def node_equity(self, sets, reach) -> np.ndarray:
        """[2, combos of each player]: each combo's showdown equity on the board `sets` (card sets
        per street dealt so far) against the opponent's weights `reach` (per player, per its
        combos: at a node, its range times its strategy along the line), card removal counted,
        win 1 and tie 1/2, averaged over every runout of the cards left (none on the river); NaN
        where the combo meets the board or no opponent weight is left facing it. The root's
        board and ranges give :meth:`hand_equity`."""
        t = self.tree
        eq = np.full((2, t.max_hands), np.nan)
        g, canon, entry = self._node_entry(sets, reach)
        if g is None:
            return eq
        r = len(sets) - 1
        out = self._runout_kernel(entry, r, int(g))
        mass = self.facing_mass(reach)
        for p in (0, 1):
            m, u = mass[p], canon[p]
            i = np.flatnonzero((u >= 0) & (m > 0))
            eq[p, i] = 0.5 * (1.0 + out[p, u[i]] / (m[i] * float(self.scale[r])))
        # a combo drawing dead (or drawing to nothing the opponent can beat) comes out of the sums
        # a few ulps off 0 (or 1): such an equity is 0 (1), so that its EQR is undefined, not huge
        eq[eq < EQUITY_SNAP] = 0.0
        eq[eq > 1.0 - EQUITY_SNAP] = 1.0
        return eq

    def result_fields(self, store, kind: str, transport=None) -> dict:
        """``ev`` [oop, ip] in chips at the root (rake paid) and ``equity`` [oop, ip]."""
        w = self._root_entry()
        m = self.opponent_mass()
        ev = self.hand_values_from_store(store, kind, transport)
        eq = self.hand_equity()
        out = {"unit": self.unit_name, "pot": self.gd.pot}
        for name, per_hand in (("ev", ev), ("equity", eq)):
            vals = []
            for p in (0, 1):
                k = (w[p] > 0) & (m[p] > 0)
                vals.append(float(np.sum(w[p][k] * m[p][k] * per_hand[p][k]) / np.sum(w[p][k] * m[p][k])))
            out[name] = vals
        return out

    def infoset_keys(self, player):
        """'<combo>|<board>|<betting>' per (decision node, board, combo), in layout order."""
        t = self.tree
        bet = t.bet
        hands = [combo_name(int(i)) for i in self.player_combos(player)]
        keys = []
        for n, k in zip(*self.full.units[player]):
            g = int(t.boards.round_start[bet.round[n]]) + int(k)
            board = "".join(card_name(c, 4, 13) for c in t.boards.cards[g, : t.boards.num_cards[g]])
            keys.extend(f"{name}|{board}|{bet.history[n]}" for name in hands)
        return keys

    def key_hand_name(self, cards) -> str:
        """A hand's name in this game's information-set keys: the higher card first ("KdQd")."""
        from .ranges import combo_index

        return combo_name(combo_index(int(cards[0]), int(cards[1])))

    def infoset_place(self, key, player=None):
        """The engine's place of `key` (any suits, either card order), its stored key naming the
        hand as :meth:`infoset_keys` and the export do: the higher card first ("KdQd")."""
        from dataclasses import replace

        from .cards import parse_card

        place = super().infoset_place(key, player)  # type: ignore[misc]
        hand, rest = place.stored_key.split("|", 1)
        stored = f"{self.key_hand_name((parse_card(hand[:2], 4, 13), parse_card(hand[2:], 4, 13)))}|{rest}"
        return replace(place, stored="" if stored == key else stored)

    def action_labels(self, node: int) -> list[str]:
        """'fold', 'check' / 'call', 'bet N' / 'raise N' (chips put in this street), 'allin'."""
        bet = self.tree.bet
        labels = []
        facing = bet.spent[node, 0] != bet.spent[node, 1]
        base = self._street_base(node)
        for a in range(int(bet.num_actions[node])):
            kind = int(bet.actions[node, a])
            if kind == 0:
                labels.append("fold")
            elif kind == 1:
                labels.append("call" if facing else "check")
            else:
                amount = int(bet.amounts[node, a]) - base
                labels.append(("allin " if kind == 3 else ("raise " if facing else "bet ")) + str(amount))
        return labels

    def _street_base(self, node: int) -> int:
        """Chips each player had in when the node's street began."""
        bet = self.tree.bet
        n = node
        r = bet.round[node]
        while bet.parent[n] >= 0 and bet.round[bet.parent[n]] == r:
            n = bet.parent[n]
        return int(bet.spent[n].min()) if bet.round[n] == r else int(bet.spent[n].min())

    def report_strategy(self, strategy, limit: int = 200):
        """The HTML report's sections: the tree's first street as foldable nodes, each a 13x13
        hand grid of action frequencies (solverkit.poker.spot_report)."""
        from .spot_report import spot_report

        return spot_report(self, strategy)
