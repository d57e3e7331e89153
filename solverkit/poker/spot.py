"""``holdem_spot``: a no-limit hold'em postflop spot, the daily tool of poker players.

A spot starts on a board of 3, 4 or 5 cards with ``pot`` chips in the middle (half each) and
``stack`` chips behind each player; each player's hand is drawn from a weighted range (the
board's cards removed) and the out-of-position player (player 0, "oop") acts first on every
street. The public tree is the poker engine's: the spot's streets are its rounds (round 0 the
street of the given board, its cards the root board), the betting tree the bet-size lists of
``[game.sizes]`` (solverkit.poker.size_tables), the ranges the reach vectors at the root.

Native unit: percent of the starting pot (exploitability, values, ``--target``), as postflop
solvers print it; ``ev`` and ``equity`` of ``result.json`` are in chips and shares.

What players look at (values and equity per hand, node views, labels, the report) is the mixin
:class:`.spot_views.SpotViews`; this module keeps the spot's definition, rake and values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core.params import Param
from ..core.units import Unit  # noqa: F401 (the return type of units)
from ..errors import ConfigError
from .action_tree import betting_counts, build_action_tree, spot_rules, to_betting_tree
from .game import PokerGame
from .ranges import parse_board, parse_range
from .size_tables import STREETS, game_size_tables, size_options
from .spot_views import SpotViews

#: refuse betting trees larger than this many nodes before building them (a few sizes on three
#: streets with deep stacks grow fast)
MAX_NODES = 2_000_000


def combo_image(perm) -> np.ndarray:
    """int64 [1326]: the index of the combo each combo becomes when suit s is renamed perm[s]."""
    from .cards import hand_table

    hands = hand_table(52, 2)
    index = np.full((52, 52), -1, dtype=np.int64)
    index[hands[:, 0], hands[:, 1]] = np.arange(hands.shape[0])
    moved = np.sort(hands - hands % 4 + np.asarray(perm, dtype=np.int64)[hands % 4], axis=1)
    return index[moved[:, 0], moved[:, 1]]


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


class HoldemSpot(SpotViews, PokerGame):
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
        **size_options(),
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
            abst = game_size_tables(c, self.street_names(), ("oop", "ip"),
                                    ignored=tuple(s for s in STREETS if s not in self.street_names()))
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

        early = self.__dict__.pop("_early_bet", None)  # built for the locks' suit permutations
        if early is not None:
            return early
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

    def strategy_of(self, store, which, player, out=None, release=None, parallel=None):
        """The stored policy with the locked hands' locks written in (locks.write_locks)."""
        out = super().strategy_of(store, which, player, out=out, release=release, parallel=parallel)
        if self.config.get("lock"):
            from .locks import write_locks

            write_locks(self, player, out)
        return out

    def parts_refusal(self) -> str | None:
        """A locked spot's strategy holds its locks, written in by :meth:`strategy_of` on the
        trunk; the workers' strategy parts would hold the stored values only."""
        if self.config.get("lock"):
            return ("a spot with node locks ([game.lock]) writes the locks into its strategy in one process; the "
                    "workers' strategy parts would show locked combos as their unmoved regrets")
        return None

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
        """The suit permutations under which both ranges keep their weights and every first-street
        lock its combos' locks (isomorphism is exact only for those; the board's own symmetry is
        checked by the board enumeration)."""
        from itertools import permutations

        memo = self.__dict__.get("_suit_perms")
        if memo is not None:
            return memo
        w = self.ranges()
        out = [np.array(perm, dtype=np.int64) for perm in permutations(range(4))
               if np.array_equal(w[:, combo_image(perm)], w)]
        if self.config.get("lock") and self.config.get("isomorphism", True):
            from .locks import first_street_perms

            if "_early_bet" not in self.__dict__:
                self._early_bet = self.betting_tree()
            out = first_street_perms(self, self._early_bet, out, w)
        self._suit_perms = out
        return out

    def board_perms(self):
        """The :meth:`suit_perms` that map the spot's board onto itself: those by which suit
        isomorphism merges the boards of later streets."""
        root = tuple(sorted(self.gd.board))
        return [p for p in self.suit_perms() if tuple(sorted(int(c - c % 4 + p[c % 4]) for c in root)) == root]

    def _check_fits(self, split_round):
        self.ranges()  # a bad range is refused before anything is built
        self._check_deals()
        super()._check_fits(split_round)

    def _check_deals(self) -> float:
        """The pair mass; ConfigError when no oop combo and ip combo are free of a common card
        (the spot has no deal: every value would be 0 / 0). The mass is a difference of sums, so
        a range pair without a deal leaves rounding noise (1e-17), never a real deal's weight."""
        w = self.ranges()
        z = self.pair_mass()
        if not z > 1e-12 * float(w[0].sum() * w[1].sum()):
            c = self.config
            raise ConfigError(f"[game] oop_range = {c['oop_range']!r}, ip_range = {c['ip_range']!r}: every oop combo "
                              f"shares a card with every ip combo (board {c['board']}): the spot has no deal; give "
                              "the ranges combos that can meet")
        return z

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
        perms = self.board_perms() if self.config.get("isomorphism", True) else [np.arange(4)]
        raw, iso = [1], [1]
        for r in range(1, gd.num_rounds):
            raw.append(raw[-1] * (len(left) - (r - 1)))
            iso.append(_canonical_sequences(left, r, perms))
        # (board, hand) pairs over the ranges' combos that the board leaves live: the information
        # sets of each player's range (a combo holds two of the cards left: a board sequence of r
        # cards misses both in (n-2)_r of the (n)_r sequences; exact for raw boards, the same share
        # of the canonical ones)
        live = [math.perm(len(left) - 2, r) / math.perm(len(left), r) for r in range(gd.num_rounds)]
        pairs = [[round(b * hands * f) for b, f in zip(boards, live)] for boards in (raw, iso)]
        return GameSize(gd.num_rounds, hands, bet.decision_nodes, bet.decision_values, raw, *pairs,
                        bet.sequences_to_round, iso, bet.num_nodes)

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
        z = self._check_deals()
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
    openspiel_table = None

    def units(self) -> tuple[Unit, ...]:
        """None beyond the native % of the pot (what plots, targets and the report show); ev is in chips."""
        return ()

    # --- what players look at -----------------------------------------------------------------

