"""``holdem_spot``: a no-limit hold'em postflop spot, the daily tool of poker players.

A spot starts on a board of 3, 4 or 5 cards with ``pot`` chips in the middle (half each) and
``stack`` chips behind each player; each player's hand is drawn from a weighted range (the
board's cards removed) and the out-of-position player (player 0, "oop") acts first on every
street. The public tree is the poker engine's: the spot's streets are its rounds (round 0 the
street of the given board, its cards the root board), the betting tree the bet-size lists of
``[game.sizes]`` (solverkit.poker.size_tables), the ranges the reach vectors at the root.

Native unit: percent of the starting pot (exploitability, values, ``--target``), as postflop
solvers print it; ``ev`` and ``equity`` of ``result.json`` are in chips and shares.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.game import Game
from ..core.params import Param
from ..core.units import Unit  # noqa: F401 (the return type of units)
from ..errors import ConfigError
from .action_tree import betting_counts, build_action_tree, spot_rules, to_betting_tree
from .cards import card_name
from .game import PokerGame
from .ranges import combo_name, parse_board, parse_range
from .size_tables import STREETS, parse_size_tables

#: refuse betting trees larger than this many nodes before building them (a few sizes on three
#: streets with deep stacks grow fast)
MAX_NODES = 2_000_000


def _canonical_sequences(left, depth: int, perms) -> int:
    """Ordered sequences of `depth` cards from `left`, counted up to the suit permutations
    `perms` (which fix the board): the boards per street the engine keeps."""
    from itertools import permutations

    seen = set()
    for seq in permutations(left, depth):
        seen.add(min(tuple(int(c - c % 4 + p[c % 4]) for c in seq) for p in perms))
    return len(seen)


@dataclass(frozen=True)
class SpotDef:
    """The dealing structure of a spot: rounds from the given board's street to the river."""

    num_rounds: int
    board: tuple[int, ...]
    pot: int
    stack: int
    num_board_cards: tuple[int, ...]  # round 0: the given board
    first_player: tuple[int, ...]
    num_suits: int = 4
    num_ranks: int = 13
    num_hole_cards: int = 2
    source: str = "holdem_spot"

    @property
    def deck_size(self) -> int:
        return self.num_suits * self.num_ranks

    @property
    def blind(self) -> tuple[int, int]:
        """Each player's chips in at the start (an odd pot's last chip is nobody's)."""
        return (self.pot // 2, self.pot // 2)

    @property
    def big_blind(self) -> int:
        return self.pot


class HoldemSpot(PokerGame):
    """A heads-up no-limit hold'em spot from a flop, turn or river (see the module docstring)."""

    name = "holdem_spot"
    description = "no-limit hold'em postflop spot: board, pot, stacks, ranges, bet sizes"
    unit_name = "% pot"
    params = {
        **PokerGame.params,
        "board": Param("str", None, "the board: 3, 4 or 5 cards, e.g. 'QsJh2h'", required=True),
        "pot": Param("int", None, "chips in the pot when the spot starts (half from each player; an odd chip is "
                     "dead money the winner takes)",
                     required=True, min=2, max=2**40),
        "stack": Param("int", None, "effective stack: chips behind, each player", required=True, min=1, max=2**40),
        "oop_range": Param("str", None, "player 0's range (acts first), e.g. '88+,A8s+,A5s-A2s:0.5'", required=True),
        "ip_range": Param("str", None, "player 1's range (in position)", required=True),
        "sizes": Param("table", {}, "bet sizes: [game.sizes.flop] bet = \"52%, a\", raise = \"45%\", donk; "
                       "[game.sizes.ip.river] for one player"),
        "raise_limit": Param("int", -1, "raises per street after the opening bet (-1: no cap)", min=-1, max=100),
        "allin_commit_threshold": Param("float", 0.0, "TexasSolver's rule: a bet or raise that would put more "
                                        "than this x stack in (half the pot counted) is an all-in (0: off)", min=0.0),
        "add_allin_threshold": Param("float", 0.0, "postflop-solver's: add an all-in when it is at most this x the "
                                     "pot (0: off)", min=0.0),
        "force_allin_threshold": Param("float", 0.0, "postflop-solver's: a bet leaving at most this x the pot "
                                       "behind becomes all-in (0: off)", min=0.0),
        "rake": Param("float", 0.0, "share of the final pot raked from the winner (0 to 1)", min=0.0, max=1.0),
        "rake_cap": Param("float", 0.0, "the most chips raked (0: no cap)", min=0.0),
        "max_nodes": Param("int", MAX_NODES, "refuse betting trees with more nodes than this", min=1),
        "lock": Param("table", {}, "node locking: [game.lock.\"check\"] \"bet 50\" = 1.0, or \"AA,KK\" = { call = 1.0 } "
                      "(docs/spots.md)"),
        "parallel_deals": Param("bool", True, "walk the turn / river cards in chunks on the transport's threads "
                                "(an unsplit spot; the same values as one thread's walk, bit for bit)"),
    }

    @staticmethod
    def prepare_params(params: dict) -> dict:
        if params.get("trunk_only"):
            raise ConfigError("[game] trunk_only: a holdem_spot builds its whole tree on one machine; remove it")
        return params

    # --- definition --------------------------------------------------------------------------

    def gamedef(self) -> SpotDef:
        c = self.config
        try:
            board = parse_board(c["board"])
        except ConfigError as exc:
            raise type(exc)(f"[game] board: {exc}") from None
        if len(board) not in (3, 4, 5):
            raise ConfigError(f"[game] board = {c['board']!r}: {len(board)} cards; expected 3 (flop), 4 (turn) or "
                              "5 (river)")
        R = 6 - len(board)
        return SpotDef(R, tuple(board), int(c["pot"]), int(c["stack"]), (len(board),) + (1,) * (R - 1), (0,) * R)

    def street_names(self) -> list[str]:
        return list(STREETS[4 - self.gd.num_rounds:])

    def rules(self):
        """The BettingRules of the spot (made once)."""
        rules = self.__dict__.get("_rules")
        if rules is None:
            c = self.config
            gd = self.gd
            limit = int(c.get("raise_limit", -1))
            commit = float(c.get("allin_commit_threshold", 0.0))
            abst = parse_size_tables(c.get("sizes") or {}, self.street_names(), ("oop", "ip"),
                                     ignored=tuple(s for s in STREETS if s not in self.street_names()),
                                     raise_limit=None if limit < 0 else limit,
                                     allin_commit_threshold=commit or None,
                                     add_allin_threshold=float(c.get("add_allin_threshold", 0.0)),
                                     force_allin_threshold=float(c.get("force_allin_threshold", 0.0)))
            rules = self._rules = spot_rules(gd.pot, gd.stack, abst, 0, gd.num_rounds, name="[game] (holdem_spot)")
        return rules

    def ranges(self) -> np.ndarray:
        """float64 [2, 1326]: each player's weight per combo (0 where it meets the board)."""
        w = self.__dict__.get("_ranges")
        if w is None:
            board = self.gd.board
            w = np.zeros((2, 1326))
            for p, key in enumerate(("oop_range", "ip_range")):
                try:
                    w[p] = parse_range(self.config[key], board)
                except ConfigError as exc:
                    raise type(exc)(f"[game] {key}: {exc}") from None
                if not w[p].any():
                    raise ConfigError(f"[game] {key} = {self.config[key]!r}: no combo left once the board's cards "
                                      f"({self.config['board']}) are removed")
            self._ranges = w
        return w

    def betting_counts(self):
        return betting_counts(self.rules())

    def betting_tree(self):
        from .action_tree import refuse_if_too_large

        refuse_if_too_large(self.rules(), int(self.config.get("max_nodes", MAX_NODES)))
        self.action_tree = build_action_tree(self.rules())
        bet = to_betting_tree(self.action_tree)
        bet.extra = self._extra(bet)
        return bet

    def _extra(self, bet) -> np.ndarray | None:
        """Per node, what the winner gets beyond the loser's chips: an odd pot's dead chip, less
        the rake (rake x final pot, capped)."""
        rate = float(self.config.get("rake", 0.0))
        dead = float(self.gd.pot % 2)
        if rate <= 0 and not dead:
            return None
        cap = float(self.config.get("rake_cap", 0.0))
        # the matched chips: an uncalled bet goes back to the bettor unraked (showdowns hold min already)
        final = 2.0 * bet.spent.min(axis=1).astype(np.float64) + dead
        rake = rate * final
        if cap > 0:
            rake = np.minimum(rake, cap)
        return dead - rake

    def root_board(self) -> tuple:
        return self.gd.board

    def locks(self):
        """[game.lock]: the locked combos' policies (solverkit.poker.locks)."""
        table = self.config.get("lock") or {}
        if not table:
            return super().locks()
        from .locks import build_locks

        return build_locks(self, table)

    def check_sampler(self, sampler, solver: dict) -> None:
        super().check_sampler(sampler, solver)
        if (self.config.get("lock") or {}) and sampler is not None and sampler.sampled:
            raise ConfigError("[game.lock] with a sampling [sampler]: locked nodes are solved by full passes only; "
                              "remove the [sampler] table")

    # --- exploitability with rake ----------------------------------------------------------------

    @property
    def raked(self) -> bool:
        return float(self.config.get("rake", 0.0)) > 0

    def best_response(self, strategy):
        """(br_0, br_1); with rake, each less half the profile's total value (the rake it pays), so
        that (br_0 + br_1) / 2 is the average best-response gain, as postflop-solver reports it
        (in a zero-sum spot the profile's values add up to 0 and nothing changes)."""
        br = super().best_response(strategy)
        if not self.raked:
            return br
        v = self.expected_values(strategy)
        return self._gains(br, v)

    def best_response_from_store(self, store, kind, transport=None):
        br = super().best_response_from_store(store, kind, transport)
        if br is None or not self.raked:
            return br
        from ..core.passes import NO_COEFFS
        from .game import _Job

        job = _Job(0, 0, 3, -1, NO_COEFFS, source="avg" if kind == "average" else "regret")
        out = self._pass(store, job, transport)
        return self._gains(br, (self._root_value(out, 0), self._root_value(out, 1)))

    @staticmethod
    def _gains(br, v):
        shift = (v[0] + v[1]) / 2.0
        return br[0] - shift, br[1] - shift

    @property
    def combos(self) -> np.ndarray:
        """int64 [H]: the combo index (solverkit.poker.ranges) of each hand the game keeps: those
        either player's range holds (the others never reach any node)."""
        combos = self.__dict__.get("_combos")
        if combos is None:
            w = self.ranges()
            combos = self._combos = np.flatnonzero((w[0] > 0) | (w[1] > 0)).astype(np.int64)
        return combos

    def hand_rows(self):
        return self.combos

    def hand_sides(self):
        """Each player holds its own range's combos (rows among :attr:`combos`)."""
        w = self.ranges()[:, self.combos]
        return tuple(np.flatnonzero(w[p] > 0).astype(np.int64) for p in (0, 1))

    def player_combos(self, p: int) -> np.ndarray:
        """int64 [H_p]: the combo index of each of player p's hands."""
        return self.combos[self.tree.side(p).rows]

    def suit_perms(self):
        """The suit permutations under which both ranges keep their weights (isomorphism is exact
        only for those; the board's own symmetry is checked by the board enumeration)."""
        from itertools import permutations

        from .cards import hand_table

        memo = self.__dict__.get("_suit_perms")
        if memo is not None:
            return memo
        hands = hand_table(52, 2)
        w = self.ranges()
        index = {(int(a), int(b)): i for i, (a, b) in enumerate(hands)}
        out = []
        for perm in permutations(range(4)):
            moved = hands - hands % 4 + np.array(perm)[hands % 4]
            moved.sort(axis=1)
            image = np.array([index[(int(a), int(b))] for a, b in moved])
            if np.array_equal(w[:, image], w):
                out.append(np.array(perm, dtype=np.int64))
        self._suit_perms = out
        return out

    def _check_fits(self, split_round):
        self.ranges()  # a bad range is refused before anything is built
        super()._check_fits(split_round)

    def game_size(self):
        """Sizes from the board, the ranges and the betting counts: boards per street dealt from
        the cards left (canonical ones under the suit permutations isomorphism may use), hands the
        mean of the two ranges' combos (each player's values are over its own)."""
        from .size import GameSize

        gd = self.gd
        bet = self.betting_counts()
        w = self.ranges()
        hands = max(1, round(float(np.count_nonzero(w[0]) + np.count_nonzero(w[1])) / 2))
        left = [c for c in range(52) if c not in gd.board]
        perms = self.suit_perms() if self.config.get("isomorphism", True) else [np.arange(4)]
        root = tuple(sorted(gd.board))
        perms = [p for p in perms if tuple(sorted(int(c - c % 4 + p[c % 4]) for c in root)) == root]
        raw, iso = [1], [1]
        for r in range(1, gd.num_rounds):
            raw.append(raw[-1] * (len(left) - (r - 1)))
            iso.append(_canonical_sequences(left, r, perms))
        # (board, hand) pairs over the ranges' combos: the information sets of each player's range
        return GameSize(gd.num_rounds, hands, bet.decision_nodes, bet.decision_values, raw, [b * hands for b in raw],
                        [b * hands for b in iso], bet.sequences_to_round, iso, bet.num_nodes)

    # --- values --------------------------------------------------------------------------------

    def pair_mass(self) -> float:
        """Sum of w0(h0) w1(h1) over combos that share no card: the normaliser of the deal."""
        from .cards import hand_table

        w = self.ranges()
        hands = hand_table(52, 2)
        by_card = np.zeros((2, 52))
        for j in range(2):
            np.add.at(by_card[0], hands[:, j], w[0])
            np.add.at(by_card[1], hands[:, j], w[1])
        return float(w[0].sum() * w[1].sum() - by_card[0] @ by_card[1] + w[0] @ w[1])

    def payoff_scale(self) -> np.ndarray:
        """Per round: 100 / pot (percent of the pot) / (pair mass x board cards dealt so far)."""
        gd = self.gd
        left = 52 - len(gd.board) - 4
        deals = [1.0]
        for _ in range(1, gd.num_rounds):
            deals.append(deals[-1] * left)
            left -= 1
        z = self.pair_mass()
        return np.array([100.0 / gd.pot / (z * d) for d in deals])

    def _root_entry(self):
        """[2, max hands]: player p's range weights over its hands (its first H_p entries)."""
        entry = self.__dict__.get("_entry")
        if entry is None:
            t = self.tree
            entry = np.zeros((2, t.max_hands))
            w = self.ranges()
            for p in (0, 1):
                side = t.side(p)
                entry[p, : side.num_hands] = w[p, self.player_combos(p)] * side.valid[0]
            self._entry = entry
        return entry

    #: OpenSpiel has no postflop-spot game with ranges: export refuses it (the JSON export serves)
    openspiel_table = Game.openspiel_table

    def units(self) -> tuple[Unit, ...]:
        """None beyond the native % of the pot (what plots, targets and the report show); ev is in chips."""
        return ()

    # --- what players look at -----------------------------------------------------------------

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
        walk = Walk(0, R - 1, 0, 0, int(t.boards.child_start[0]), int(t.boards.child_end[0]), lo, lo + 1,
                    np.zeros(R, dtype=np.int64), np.zeros((2, R), dtype=np.int64), t.boards.round_start,
                    np.zeros(R, dtype=np.int64), np.zeros((2, R), dtype=np.int64))
        z = np.zeros(1)
        H = t.max_hands
        bufs = Buffers(np.zeros((R, 2, H)), np.zeros((R, 2, H)), np.zeros(R, dtype=np.uint8), np.zeros((2, H)))
        job = Pass(0, 0, 3, -1, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, False, MODE_FULL, np.uint64(0), -1)
        _kernel()(kt, walk, float_values(z, z, z, z, z, z), job, self._root_entry(), 0, np.zeros((1, 1, 2, 1)), True, bufs)
        return bufs.out_cfv.copy()  # a stake of 1 chip: (win - lose) per unit of opponent weight, after _per_hand

    def node_view(self, strategy, path: str):
        """The NodeView (solverkit.poker.node_view) of `strategy` at the node `path` names."""
        from .node_view import node_view

        return node_view(self, strategy, path)

    def node_values(self, strategy, node: int, sets, reach) -> np.ndarray:
        """[2, combos of each player]: EV in chips of each combo at betting node `node` after the
        board `sets` (card sets per street), when both play `strategy` from there and reach it
        with weights `reach` (per player, per its combos); NaN where a combo cannot be there."""

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
        entry = np.zeros((2, t.max_hands))
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
                entry[p, inv[u]] += reach[p][i]
            canon.append(idx)
        if g is None:
            return np.full((2, t.max_hands), np.nan)
        from .kernels import Walk

        full = self.full
        walk = Walk(r, R - 1, int(node), int(g), int(t.boards.child_start[g]), int(t.boards.child_end[g]), lo, hi,
                    full.node_off, full.stride, t.boards.round_start, full.block_off, full.block_stride)
        from .game import _kernel
        from .kernels import Pass, float_values

        bufs = self._bufs()
        z = np.zeros(1)
        job = Pass(0, 0, 3, -1, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, False, 0, np.uint64(0), -1)
        _kernel()(self.kernel_tree(), walk, float_values(strategy[0], strategy[1], strategy[0], strategy[1], z, z), job,
                  entry, 0, np.zeros((1, 1, 2, 1)), True, bufs)
        out = bufs.out_cfv.copy()
        ev = np.full((2, t.max_hands), np.nan)
        for p in (0, 1):
            mine, theirs = t.side(p), t.side(1 - p)
            o = np.array(reach[1 - p], dtype=np.float64)
            by_card = np.zeros(52)
            for j in range(2):
                np.add.at(by_card, theirs.hands[:, j], o)
            same = np.where(mine.same >= 0, o[np.maximum(mine.same, 0)], 0.0)
            m = o.sum() - by_card[mine.hands[:, 0]] - by_card[mine.hands[:, 1]] + same
            for i, u in enumerate(canon[p]):
                if u >= 0 and m[i] > 0 and reach[p][i] > 0:
                    ev[p, i] = out[p, u] / (m[i] * float(self.scale[r])) + self.gd.pot // 2
        return ev

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
