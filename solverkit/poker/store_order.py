"""The order a compact store's predictor reads a poker game's values in: hands by rollout
strength, boards by the suits that can still flush and their ranks (Cepheus's order), and each
segment's grid of blocks; below a trunk-only game's cut, the tables of a worker's game."""

from __future__ import annotations

import numpy as np

from ..errors import SolverkitError
from .cut import rollout_all


class GameStoreOrder:
    """Predictor orders of a poker game's store (a mixin of :class:`.game.PokerGame`)."""

    #: bytes of board tables below the cut a trunk-only game keeps (least recently used dropped)
    below_cache_bytes = 512 << 20

    def _below_tables(self, key):
        """For a trunk-only game: (board keys, hand orders, first row per round, first board per
        round, each player's hands valid per board) of the boards below subgame `key`'s cut board,
        rows in the whole game's board order, taken from the game a worker owning `key` builds
        (:meth:`subgame_config`: hold'em deals only its flop). Made when a segment below the cut
        must be decoded here (the strategy output, --resume); kept, within `below_cache_bytes`,
        per configuration."""
        cfg = self.subgame_config([key])
        tag = tuple(sorted((k, str(v)) for k, v in cfg.items()))
        cache = self.__dict__.setdefault("_below_cache", {})
        if tag in cache:
            cache[tag] = cache.pop(tag)  # most recently used last
            return cache[tag]
        game = type(self)(**{**self.config, **cfg, "trunk_only": False})
        e, b, _ = key
        i = b - int(self.tree.boards.round_start[self.split - 1])
        local_b = game.subgame_key_at(self.subgame_address(key))[1]
        R, s = self.gd.num_rounds, self.split
        local_first = game._chunk_boards(local_b, 0)[0]  # chunk 0 starts at the cut board's first child
        rows, board_keys, orders, valid = np.zeros(R, dtype=np.int64), [], [], ([], [])
        n = 0
        for r in range(s, R):
            count = int(self.below.count[i, r])
            ids = np.arange(local_first[r], local_first[r] + count)
            rows[r] = n
            n += count
            board_keys.append(game.board_keys()[ids])
            orders.append(game.hand_orders()[ids])
            for p in (0, 1):
                valid[p].append(game.tree.side(p).valid[ids])
        tables = (np.concatenate(board_keys), np.concatenate(orders), rows, self.below.first[i].copy(),
                  tuple(np.concatenate(v) for v in valid))
        cache[tag] = tables
        while sum(t[1].nbytes for t in cache.values()) > self.below_cache_bytes and len(cache) > 1:
            cache.pop(next(iter(cache)))
        return tables

    def hand_strength(self) -> np.ndarray:
        """int64 [boards, H] rollout strength: on a final board 2 x (the opponent's valid hands
        a hand beats) + (those it ties), card removal ignored; on earlier boards the sum over
        every board below (canonical ones and, through the hand maps, the rest of their suit
        orbits). Clashing hands get -1. Integers, so that the sum is exact in any order: a
        trunk-only game gets its cut boards' sums from a rollout (:func:`.cut.rollout_wins`)
        equal to the whole tree's. Orders hands for the store's predictor."""
        if self.tree.sides is not None:
            raise SolverkitError(f"game {self.name!r}: its players hold different hands: no shared strength order")
        if getattr(self, "_strength", None) is None:
            t = self.tree
            b = t.boards
            last = self.gd.num_rounds - 1
            lo, hi = int(b.round_start[last]), int(b.round_start[last + 1])
            share = np.zeros((hi, t.num_hands), dtype=np.int64)
            for i in range(hi - lo):
                c = int(t.sd_count[i])
                st = t.sd_strength[i, :c]
                below = np.searchsorted(st, st, side="left")
                ties = np.searchsorted(st, st, side="right") - below - 1
                share[lo + i, t.sd_order[i, :c]] = 2 * below + ties
            if self.below is not None:  # the cut boards: rolled out over the rounds not built
                lo = int(b.round_start[self.split - 1])
                share[lo:hi] = rollout_all(self.gd, t.hands, b, range(lo, hi), self.strength_function())
            for g in range(lo - 1, -1, -1):  # parents come before their children
                total = np.zeros(t.num_hands, dtype=np.int64)
                for c in range(int(b.child_start[g]), int(b.child_end[g])):
                    # the canonical child and, through the hand maps, the other boards of its orbit
                    total += share[c]
                    for j in range(int(b.perm_start[c]), int(b.perm_end[c])):
                        total += share[c][b.perms[j]]
                share[g] = total
            share[t.valid[:hi] == 0] = -1
            self._strength = share
        return self._strength

    def hand_orders(self):
        """[boards, H]: each board's hands by rollout strength, weakest first, clashing hands
        first (they hold zeros); the predictor's 'previous hand'."""
        if self.tree.sides is not None:  # each player its own hands: the predictor takes them in index order
            return np.zeros((self.tree.valid.shape[0], 0), dtype=np.int64)
        if getattr(self, "_hand_orders", None) is None:
            self._hand_orders = np.argsort(self.hand_strength(), axis=1, kind="stable").astype(np.int64)
        return self._hand_orders

    def board_keys(self) -> np.ndarray:
        """[boards] sort key of every board for the predictor: the number of suits that can still
        make a flush (a suit whose board cards plus the cards still to come, hole cards
        included, reach a flush), then the ranks, highest first. Boards next to each other in
        this order have alike values, so each predicts the next (Cepheus's board ordering)."""
        if getattr(self, "_board_keys", None) is None:
            b = self.tree.boards
            gd = self.gd
            S, R = gd.num_suits, gd.num_ranks
            final = int(np.sum(gd.num_board_cards))
            flush = min(5, gd.num_hole_cards + final)
            cards = b.cards
            n = b.num_cards.astype(np.int64)
            present = cards >= 0
            suit_counts = np.zeros((cards.shape[0], S), dtype=np.int64)
            for s in range(S):
                suit_counts[:, s] = np.sum(present & (cards % S == s), axis=1)
            to_come = final - n + gd.num_hole_cards
            suits = np.sum(suit_counts + to_come[:, None] >= flush, axis=1)
            ranks = np.where(present, cards // S, -1)
            ranks = -np.sort(-ranks, axis=1)  # highest first, missing cards (-1) last
            code = np.zeros(cards.shape[0], dtype=np.int64)
            for j in range(ranks.shape[1]):
                code = code * (R + 1) + (ranks[:, j] + 1)
            self._board_keys = suits * (R + 1) ** ranks.shape[1] + code
        return self._board_keys

    def segment_grid(self, key, name, board_order: bool = True):
        """Blocks (decision node, board) of hands x actions in layout order, hands in
        rollout-strength order on every board; north = the same node on the previous board of
        the segment's round in :meth:`board_keys` order (`board_order`; else layout order),
        which is also the order the north-predicting modes visit the boards in."""
        from ..core.grid import Grid

        p = int(name[-1])
        memo = self.__dict__.setdefault("_grid_memo", {})  # regrets and averages share a grid
        if (key, p, board_order) in memo:
            return memo[(key, p, board_order)]
        region, first = self._segment_region(key)
        t = self.tree
        bet = t.bet
        nodes, k = region.units[p]
        rnd = bet.round[nodes].astype(np.int64)
        offset = region.node_off[nodes] + k * region.stride[p, rnd]
        north = np.full(nodes.size, -1, dtype=np.int64)
        visit = []
        if self.below is None or key == "trunk":
            keys_table, orders = self.board_keys(), self.hand_orders()
            row0, board0 = np.zeros(self.gd.num_rounds, dtype=np.int64), np.zeros(self.gd.num_rounds, dtype=np.int64)
            valid = t.side(p).valid
        else:  # below a trunk-only game's cut: tables of this cut board's boards alone
            keys_table, orders, row0, board0, below_valid = self._below_tables(self._name_to_key()[key])
            valid = below_valid[p]
        board_keys = keys_table if board_order else None
        # units run board-major within a round, the same nodes on every board
        for r in np.unique(rnd):
            idx = np.flatnonzero(rnd == r)
            per_board = int(np.count_nonzero(k[idx] == k[idx[0]]))
            by_board = idx.reshape(-1, per_board)  # [boards of the round here, nodes]
            if board_keys is not None:
                boards = first[r] + k[by_board[:, 0]] - board0[r] + row0[r]
                by_board = by_board[np.argsort(board_keys[boards], kind="stable")]
            north[by_board[1:]] = by_board[:-1]
            visit.append(by_board.ravel())
        order = (first[rnd] + k - board0[rnd] + row0[rnd]).astype(np.int64)  # the board's row of `orders`
        live = order.copy()  # ... and of `valid`: a block16 store keeps the hands its board leaves live
        hands = np.full(nodes.size, t.hands_of(p), dtype=np.int64)
        if t.sides is not None:
            # each player its own hands (a spot's ranges): the strength orders rank the shared
            # list, so the predictor visits this player's hands in index order
            order = np.full(nodes.size, -1, dtype=np.int64)
        grid = Grid(offset.astype(np.int64), hands, bet.num_actions[nodes].astype(np.int64), north, rnd, order,
                    orders, np.concatenate(visit).astype(np.int64) if visit else None, live, valid)
        if self.below is None or key == "trunk":  # (the store keeps the grids it uses)
            memo[(key, p, board_order)] = grid
        return grid
