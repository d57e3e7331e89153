"""PokerGame: a limit poker game solved over its public tree with the numba kernels.

Without a split the whole tree is one segment (``root``) and one kernel call is one pass. With
``split_round = s`` the tree is cut at the start of round s: the *trunk* (rounds < s) is one
segment, and every (round-end node of round s-1, board of round s-1) pair is a *subgame* segment
holding everything below it. A pass then walks the trunk down to the cut (reach vectors out),
hands the subgames to the transport, and walks the trunk again with the subgames'
counterfactual values (regret updates on the way up). Both paths run the same kernel.

Sampled passes (``[sampler] name = "public_chance"`` or ``"public_external"``, docs/samplers.md)
deal one board per round: the trunk walks one path of boards, only the subgames below its cut board are
handed to the transport, and each deals one board per round below it. Draws are keyed by the
boards' cards (:meth:`PokerGame.board_codes`), so a worker's smaller game draws what the trunk
would.
"""

from __future__ import annotations

import threading
from dataclasses import fields

import numpy as np

from ..core.game import Game
from ..core.params import Param
from ..core.units import Unit
from ..errors import ConfigError
from .betting import ROUND_END
from .cut import count_below
from .evaluation import GameEvaluation
from .gamedef import GameDef
from .pass_settings import SAMPLER_INSTEAD, GamePassSettings
from .presentation import GamePresentation
from .region import GameRegions
from .store_order import GameStoreOrder
from .subgames import GameSubgames
from .tree import PokerTree, build_tree
from .walks import GameWalks

# what other modules import from here (the pieces of PokerGame live in the modules above)
from .pass_settings import _Job  # noqa: F401 (re-exported: search.resolve, spot)
from .presentation import suit_class  # noqa: F401 (re-exported: nolimit_game)
from .walks import _balanced_ranges, _kernel  # noqa: F401 (re-exported: spot, tests)


class PokerGame(GameRegions, GameSubgames, GameStoreOrder, GamePassSettings, GameWalks, GameEvaluation,
                GamePresentation, Game):
    """A two-player limit poker game; subclasses provide :meth:`gamedef` (and a strength function).

    Its ideas live in the mixins it is made of: :mod:`.region` (the layouts of walks),
    :mod:`.subgames` (the trunk/subgame split), :mod:`.store_order` (the predictor's orders),
    :mod:`.pass_settings` (kernel settings of passes), :mod:`.walks` (kernel calls and passes),
    :mod:`.evaluation` (best responses, strategies) and :mod:`.presentation` (keys, reports);
    this class builds the tree and holds what subclasses override."""

    unit_name = "chips"
    samplers = ("full", "public_chance", "public_external")
    store_precisions = ("float64", "float32", "block16")  # float32: the kernels read and write them as they are
    sampler_instead = SAMPLER_INSTEAD
    export_limit = 200_000
    store_walk_is_exact = True
    pruning = True  # skip subtrees nothing reaches where that is exact (tests switch it off)

    engine_params = {
        "split_round": Param("int", 0, "cut into trunk + subgames at the start of this round (0: no cut)", min=0, max=7),
        "isomorphism": Param("bool", True, "merge boards that differ only by a permutation of suits"),
        "chunks": Param("int", 1, "split each subgame into this many segments of consecutive boards of the cut "
                        "round (smaller tasks for the transport)", min=1, max=10_000),
        "trunk_only": Param("bool", False, "build only the rounds above the cut (the trunk of a zmq run: the "
                            "subgames' boards and values live on the workers; needs split_round >= 1)"),
        "parallel_deals": Param("bool", False, "an unsplit game walks the boards dealt after its first round in "
                                "chunks on the transport's threads (the same values as one walk, bit for bit; off by "
                                "default: a small game runs faster as one kernel call per block of passes)"),
    }

    params = dict(engine_params)  # a subclass with params of its own takes these too (Game.__init_subclass__)

    def __init__(self, **params):
        params = self.prepare_params(params)
        super().__init__(**params)
        self.gd: GameDef = self.gamedef()
        # without the key, the declared default (on), as a config's [game] table resolves it
        self.tree_isomorphic = bool(params.get("isomorphism", self.params["isomorphism"].default))
        s = self._split_round(self.gd, params)
        self.trunk_only = bool(params.get("trunk_only", False))
        self.holds_subgames = not self.trunk_only
        if self.trunk_only and not s:
            raise ConfigError(f"[game] trunk_only = true needs a cut: set [game] split_round to 1..{self.gd.num_rounds - 1} "
                              "(the trunk holds the rounds above it, zmq workers the subgames below)")
        allowed = self.allowed_boards()
        if self.trunk_only and allowed and any(r >= s for r in allowed):
            raise ConfigError(f"[game] trunk_only = true: this game restricts the boards of round "
                              f"{max(allowed)}, below the cut at round {s}; a trunk-only game counts the boards "
                              "below the cut unrestricted")
        self._check_fits(s)
        self.tree: PokerTree = build_tree(self.gd, self.strength_function(), self.tree_isomorphic,
                                          allowed=allowed, rounds=s if self.trunk_only else None,
                                          bet=self.betting_tree(), root_board=self.root_board(),
                                          hand_rows=self.hand_rows(), suit_perms=self.suit_perms())
        sides = self.hand_sides()
        if sides is not None:
            from .tree import split_sides

            self.tree.sides = split_sides(self.tree, sides)
            # each player's showdown tables replace the shared list's (freed: not views of them)
            t = self.tree
            t.sd_order, t.sd_strength = t.sd_order[:0, :0].copy(), t.sd_strength[:0, :0].copy()
            t.sd_count = np.zeros(0, dtype=np.int64)
        self.split = s
        self.chunk_count = int(params.get("chunks", 1) or 1)
        self._local = threading.local()
        self._prepare()

    #: refuse to build a game whose tree and float64 store need more than this share of RAM
    memory_share = 0.8

    def _check_fits(self, split_round):
        """Raise ConfigError, before anything is allocated, when the public tree cannot fit in
        this machine's memory (full hold'em, say); the store is checked when it is made."""
        from ..core.memory import human_bytes, physical_memory

        size = self.game_size()
        frac = self.size_fraction(size)
        if self.trunk_only:  # the trunk's rounds only: no boards, showdowns or values below the cut
            frac = [f if r < split_round else 0.0 for r, f in enumerate(frac)]
        need = size.tree_bytes(self.tree_isomorphic, frac)
        have = physical_memory()
        self.store_estimate = size.store_bytes(self.tree_isomorphic, frac)
        if have and need > self.memory_share * have:
            subgames = size.subgames(split_round, self.tree_isomorphic)
            cut = (f"its {subgames:,} subgames (cut at round {split_round})" if split_round else
                   "its subgames (set [game] split_round)")
            raise ConfigError(
                f"game {self.name!r} ({self.gd.source}) does not fit on this machine: its public tree alone "
                f"needs about {human_bytes(need)}, and its regrets and averages "
                f"{human_bytes(self.store_estimate)} as float64 "
                f"({size.infosets_iso:,} information sets up to suit symmetry); this machine has "
                f"{human_bytes(have)}. Solve a smaller member of the family (fewer ranks, suits, rounds or "
                f"raises), or run it distributed: the trunk ([game] trunk_only = true builds only the rounds "
                f"above the cut), and {cut} on worker machines, with [transport] name = \"zmq\" and `solverkit worker "
                f"--connect tcp://TRUNK:PORT` on each (a hulhe worker builds only its flops' part of the "
                f"tree and holds only its subgames' values; docs/config.md; `solverkit info {self.name}` "
                f"prints the sizes)"
            )

    @classmethod
    def size_report(cls, params: dict) -> list[tuple[str, str]]:
        """`solverkit info` lines for these parameters, from the game definition alone."""
        from ..core.game import Game
        from .size import report

        params = cls.prepare_params(params)
        probe = cls.__new__(cls)
        Game.__init__(probe, **params)
        gd = probe.gamedef()
        probe.gd = gd
        return report(gd, bool(params.get("isomorphism", True)), cls._split_round(gd, params), cls.name,
                      size=probe.game_size(), trunk_only=bool(params.get("trunk_only", False)))

    @staticmethod
    def _split_round(gd: GameDef, params: dict) -> int:
        """``[game] split_round``, or a ConfigError when the game has no such round to cut at."""
        s = int(params.get("split_round", 0) or 0)
        if s >= gd.num_rounds:
            raise ConfigError(
                f"[game] split_round = {s}: the game has {gd.num_rounds} rounds; valid: 0 (no split) "
                f"to {gd.num_rounds - 1}"
            )
        return s

    # --- to override -------------------------------------------------------------------------

    @staticmethod
    def prepare_params(params: dict) -> dict:
        """Resolve parameters that depend on each other (before anything is built)."""
        return params

    def gamedef(self) -> GameDef:
        raise NotImplementedError

    def allowed_boards(self) -> dict | None:
        """Round -> card sets its board may take (None: every board). A restricted deal is a
        different game; it serves to study real subgames of a game too large to build."""
        return None

    def size_fraction(self, size) -> list[float]:
        """Per round, the share of the boards this game builds (1.0 without restrictions)."""
        return [1.0] * size.rounds

    def payoff_scale(self) -> np.ndarray:
        """Per round: the weight of one deal of hands and boards up to the round (the chance of
        each, 1 / the number of equally likely deals); a game with weighted ranges overrides it."""
        return 1.0 / self.tree.deals

    def game_size(self):
        """size.GameSize of this game, from its definition alone (nothing of its size is built)."""
        from .size import game_size

        return game_size(self.gd, self.betting_counts())

    def betting_counts(self):
        """size.BettingCounts of :meth:`betting_tree`, without building it (None: the limit game's)."""
        return None

    def betting_tree(self):
        """The betting tree the kernels walk (BettingTree): the limit game's by default."""
        from .betting import build_betting_tree

        return build_betting_tree(self.gd)

    def hand_rows(self):
        """Rows of the hand table this game keeps (None: every hand); a spot keeps its ranges' combos."""
        return None

    def hand_sides(self):
        """(player 0's, player 1's) rows among the kept hands when the players hold different
        hands (a spot: each its range's combos); None: both hold every hand."""
        return None

    def suit_perms(self):
        """The suit permutations isomorphism may use (None: all)."""
        return None

    def root_board(self) -> tuple:
        """Card ids on the board before round 0's betting (a postflop spot's); none by default."""
        return ()

    def strength_function(self):
        """None for ACPC ranking, else f(hands, board, out) filling strengths (-1 on clashes)."""
        return None

    # --- structure ---------------------------------------------------------------------------

    def _prepare(self):
        """What every walk reads (payoff extras and scales, first board per round, round-end
        indices) and the whole game's node bounds; a cut game's subgames in :meth:`_prepare_subgames`."""
        t = self.tree
        bet = t.bet
        #: per node, chips the winner gets on top of the loser's spent (dead money less rake)
        self.extra = (np.zeros(bet.num_nodes) if bet.extra is None else np.ascontiguousarray(bet.extra, dtype=np.float64))
        #: per round, the factor of a terminal's payoff: 1 / (equally likely deals up to the round)
        self.scale = np.ascontiguousarray(self.payoff_scale(), dtype=np.float64)
        R = self.gd.num_rounds
        s = self.split
        #: boards below the cut, counted (trunk-only: not built); None when the tree is whole
        self.below = count_below(self.gd, t.boards, s, self.tree_isomorphic) if self.trunk_only else None
        #: the whole game's first global board id per round (a trunk-only tree holds rounds < split)
        self.round_start = t.boards.round_start if self.below is None else self.below.round_start
        nboards = np.diff(self.round_start)
        lo = np.array([bet.nodes_of_round(r)[0] for r in range(R)], dtype=np.int64)
        hi = np.array([bet.nodes_of_round(r)[-1] + 1 for r in range(R)], dtype=np.int64)
        self.re_index = np.full(bet.num_nodes, -1, dtype=np.int64)
        for r in range(R):
            ends = np.flatnonzero((bet.kind == ROUND_END) & (bet.round == r))
            self.re_index[ends] = np.arange(ends.size)
        self._full_bounds = (lo, hi, nboards)
        if not s:
            self.trunk = self.full
            self.entries = []
            return
        self._prepare_subgames(lo, hi, nboards)

    def _whole_tree(self, what: str):
        """ConfigError: `what` needs the public tree below the cut, which a trunk-only game lacks."""
        if self.trunk_only:
            raise ConfigError(
                f"{what} needs the whole public tree, and game {self.name!r} was built with [game] trunk_only = "
                f"true (rounds {self.split} and later live on the zmq workers); use the stored values "
                "(best_response_from_store, strategy_of) or build the game without trunk_only")

    def value_units(self):
        """Deals per round: the kernels weight values by 1/deals, so regret x deals is in chips
        (summed over the opponent's hands, as the original fixed-point store kept them)."""
        return 1.0 / self.scale

    def with_abstraction(self, abstraction, definition: dict):
        """This game over the card abstraction's buckets (:mod:`.abstracted`): the store holds
        abstract arrays; strategies and best responses stay the real game's."""
        from ..abstraction.spec import CardSpec
        from .abstracted import abstracted

        return abstracted(self, abstraction.table(CardSpec.of_game(self)), definition)

    # --- identity and units ------------------------------------------------------------------

    def definition(self) -> dict:
        """The name and parameters, and the rules the game definition gives (every GameDef
        field: blinds, first player, hole cards ...), whichever file or name they came from. A
        field with a default is left out while it holds it, so that a field added later (with
        the default earlier games had) does not change the identity of runs already saved."""
        from dataclasses import MISSING

        rules = {f.name: getattr(self.gd, f.name) for f in fields(self.gd)
                 if f.name != "source" and (f.default is MISSING or getattr(self.gd, f.name) != f.default)}
        return {**super().definition(), "rules": rules}

    def units(self) -> tuple[Unit, ...]:
        """mbb/g: 1000 milli-big-blinds per big blind (the game definition's big blind); the
        metrics column exploitability_mbb and the target [solver] target_mbb."""
        return (Unit("mbb/g", "mbb", 1000.0 / self.gd.big_blind, "milli-big-blinds per game"),)
