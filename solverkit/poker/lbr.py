"""Local best response (Lisý & Bowling 2017, arXiv 1612.07547): a lower bound on the
exploitability of a strategy in games too large for an exact best response.

LBR plays the real game against the evaluated player π, both seats of every deal. It knows its
own cards and keeps π's range (a weight per hand of the game's hand table, card removal applied,
multiplied after each of π's actions by π's probability of that action for every hand). At each
of its decisions it takes, among fold, check/call and a fixed set of bets/raises, the action of
the best *local* utility, which assumes both players check/call to the end afterwards:

    u(fold) = 0,  u(call) = WP * pot - (1 - WP) * asked,
    u(bet b) = fp * pot + (1 - fp) * (WP * (pot + b) - (1 - WP) * (asked + b)),

WP being LBR's share of the pot at a showdown against the range (lbr_kernels.win_probability),
fp the range's chance that π folds to the bet, pot both players' chips in, asked the chips to
call and b the raise beyond the call. Whatever it decides, LBR is a strategy of the real game, so
its expected winnings are at most π's exploitability: its mean over many hands is a lower bound
on it, in expectation (the 95% interval is the sampling error of that mean).
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from ..errors import ConfigError
from .acpc_protocol import NoLimitState, check_game
from .cards import hand_table
from .evaluator import acpc_strengths
from .gamedef_nolimit import NoLimitGameDef
from .lbr_kernels import binomials, strength_table, win_probability
from .lbr_policy import RANDOM_SIZE, BetLists, BotOpponent, LimitState, TranslatingOpponent, TreeOpponent

PREFLOP = {"auto": "call when rolling the first round out exactly would cost more than the exact budget "
                   "(hold'em), else lbr",
           "call": "check/call every first-round decision (the paper's choice for no-limit hold'em)",
           "lbr": "the local best response in the first round too (rolled out over the whole board)"}
#: the paper's no-limit sizes: a pot-sized bet/raise and all-in
DEFAULT_SIZES = "1p,a"
#: (opponent hand, runout) draws of a sampled rollout
SAMPLES = 1000
#: runouts x hands in the range up to which a rollout is exact
BUDGET = 20_000


def parse_sizes(text: str) -> list[float]:
    """Bet/raise sizes as fractions of the pot after the call (inf: all-in) from "1p,a": items
    ``<x>p`` (x pots), ``<x>%`` (percent of the pot) or ``a`` (all-in), comma-separated."""
    valid = "comma-separated sizes: <x>p (x times the pot, e.g. 0.5p, 1p), <x>% (e.g. 75%) or a (all-in)"
    out = []
    for item in str(text).split(","):
        item = item.strip().lower()
        try:
            if item == "a":
                x = math.inf
            elif item.endswith("p"):
                x = float(item[:-1])
            elif item.endswith("%"):
                x = float(item[:-1]) / 100.0
            else:
                raise ValueError
        except ValueError:
            raise ConfigError(f"--sizes {text!r:.60}: {item!r:.20} is no size; expected {valid}") from None
        if not (x > 0 and (math.isfinite(x) or x == math.inf)):
            raise ConfigError(f"--sizes {text!r:.60}: {item!r:.20} must be a positive size; expected {valid}")
        if x not in out:
            out.append(x)
    return out


@dataclass
class LbrResult:
    """LBR's winnings against the evaluated player, per game, with a 95% interval over deals
    (each deal played in both seats)."""

    opponent: str
    game: str
    value: float  # chips per game
    half_width: float
    mbb_per_chip: float  # mbb/g = chips x this
    hands: int
    seconds: float
    seat_values: tuple  # chips per game with LBR in seat 0, in seat 1
    settings: dict = field(default_factory=dict)
    translation: dict = field(default_factory=dict)

    @property
    def mbb(self) -> float:
        return self.value * self.mbb_per_chip

    @property
    def half_width_mbb(self) -> float:
        return self.half_width * self.mbb_per_chip

    def lines(self) -> list[str]:
        s = self.settings
        out = [f"local best response against {self.opponent} ({self.game}; sizes {s.get('sizes')}, preflop "
               f"{s.get('preflop')}, seed {s.get('seed')})",
               f"LBR value: {self.value:+.6g} +/- {self.half_width:.4g} chips/g = {self.mbb:+.1f} +/- "
               f"{self.half_width_mbb:.1f} mbb/g (95% interval over {self.hands // 2:,} deals, both seats)",
               f"seat 0: {self.seat_values[0] * self.mbb_per_chip:+.1f} mbb/g, seat 1: "
               f"{self.seat_values[1] * self.mbb_per_chip:+.1f} mbb/g; {self.hands:,} hands in {self.seconds:.1f} s "
               f"({self.hands / max(self.seconds, 1e-9):,.0f} hands/s)",
               "a lower bound on the exploitability, in expectation"]
        if any(self.translation.values()):
            t = self.translation
            out.append(f"translation: {t['translated']:,} LBR sizes mapped between two tree sizes, "
                       f"{t['off_tree_hands']:,} hands left the opponent's tree (it check/called)")
        return out

    def to_json(self) -> dict:
        d = asdict(self)
        d.update(mbb=self.mbb, half_width_mbb=self.half_width_mbb)
        return d


class LocalBestResponse:
    """LBR against one opponent (lbr_policy's TreeOpponent, TranslatingOpponent or BotOpponent)
    in `game` (a PokerGame, or dealer.NoLimitTable for a no-limit file without a tree)."""

    def __init__(self, game, opponent, sizes: str | None = None, preflop: str = "auto", samples: int = SAMPLES,
                 budget: int = BUDGET):
        self.game, self.gd, self.opp = game, game.gd, opponent
        gd = self.gd
        _check_game(game)
        self.nolimit = isinstance(gd, NoLimitGameDef)
        if sizes is not None and not self.nolimit:
            raise ConfigError(f"--sizes {sizes!r:.60}: game {game.name!r} ({gd.source}) is a limit game, whose one bet "
                              "size is its raiseSize; --sizes applies to no-limit games")
        self.sizes_text = (sizes or DEFAULT_SIZES) if self.nolimit else "limit"
        self.sizes = parse_sizes(self.sizes_text) if self.nolimit else []
        if preflop not in PREFLOP:
            raise ConfigError(f"--preflop {preflop!r:.40}: valid: {', '.join(PREFLOP)}")
        tree = getattr(game, "tree", None)
        self.hands = np.ascontiguousarray(tree.hands if tree is not None else
                                          hand_table(gd.deck_size, gd.num_hole_cards), dtype=np.int64)
        H, k = self.hands.shape
        self.index = {tuple(int(c) for c in row): i for i, row in enumerate(self.hands)}
        self.by_card = np.zeros((gd.deck_size, H), dtype=np.bool_)
        for j in range(k):
            self.by_card[self.hands[:, j], np.arange(H)] = True
        self.board_total = int(sum(gd.num_board_cards))
        self.binom = binomials(gd.deck_size, max(self.board_total, 1))
        fn = game.strength_function()
        S = gd.num_suits
        self.strength = fn if fn is not None else (lambda hands, board, out: acpc_strengths(hands, board, S, out))
        self.table = (np.zeros((0, 0), dtype=np.int64) if fn is None else
                      strength_table(fn, self.hands, gd.deck_size, self.board_total, self.binom))
        self.samples, self.budget = int(samples), int(budget)
        if preflop == "auto":
            first = math.comb(gd.deck_size - 2 * k, self.board_total) * H
            preflop = "call" if first > self.budget else "lbr"
        self.preflop = preflop
        self.bet = None if self.nolimit else (tree.bet if tree is not None else game.bet)
        self.lists = BetLists(self.bet) if not self.nolimit else None

    # --- one hand ---------------------------------------------------------------------------

    def _deal(self, rng):
        """A deal drawn from `rng`: hole cards per position, board cards per later round."""
        gd = self.gd
        k = gd.num_hole_cards
        cards = rng.permutation(gd.deck_size)[:2 * k + self.board_total]
        hole = (tuple(sorted(int(c) for c in cards[:k])), tuple(sorted(int(c) for c in cards[k:2 * k])))
        board, pos = [], 2 * k
        for r in range(1, gd.num_rounds):
            board.append(tuple(int(c) for c in cards[pos:pos + gd.num_board_cards[r]]))
            pos += gd.num_board_cards[r]
        return hole, board

    def _hand_index(self, cards) -> int:
        return self.index[tuple(sorted(cards))]

    def play_hand(self, hole, board, seat: int, rng, opp=None) -> int:
        """LBR's chips in one hand, LBR in position `seat` (against `opp`, a clone of the
        opponent for another thread; default the opponent)."""
        state = NoLimitState(self.gd) if self.nolimit else LimitState(self.lists)
        opp = opp or self.opp
        opp.new_hand(rng)
        own, theirs = hole[seat], self._hand_index(hole[1 - seat])
        weights = (~self.by_card[list(own)].any(axis=0)).astype(np.float64)
        dealt, cards, board_sets = 0, [], ((),)
        while not state.finished:
            while dealt < state.round:
                new = board[dealt]
                dealt += 1
                cards += new
                board_sets += (tuple(sorted(new)),)
                if new:
                    weights[self.by_card[list(new)].any(axis=0)] = 0.0
            if state.current_player() == seat:
                token = self._act(state, seat, own, cards, board_sets, weights, rng, opp)
                opp.seen(state, token, rng)
            else:
                probs, tokens = opp.options(state, board_sets)
                slot = _draw(probs[theirs], rng.random()) if len(tokens) > 1 else 0
                token = tokens[slot]
                same = [i for i, t in enumerate(tokens) if t == token]
                weights *= probs[:, same].sum(axis=1)
                weights /= weights.sum()
                opp.chose(slot)
                if token[1] == RANDOM_SIZE:
                    lo, hi = state.raise_range()
                    token = ("r", int(rng.integers(lo, hi + 1)))
            state.apply(*token)
        loser = None
        if state.showdown:
            full = np.array([c for b in board for c in b], dtype=np.int64)
            ranks = np.empty(2, dtype=np.int64)
            self.strength(np.array(hole, dtype=np.int64), full, ranks)
            loser = None if ranks[0] == ranks[1] else (0 if ranks[0] < ranks[1] else 1)
        return state.payoffs(loser)[seat]

    def _raises(self, state, seat: int) -> list[tuple[str, int]]:
        """LBR's bets/raises at `state`: the limit raise, or the sizes as legal raise-to amounts."""
        span = state.raise_range()
        if span is None:
            return []
        if not self.nolimit:
            return [("r", span[0])]
        spent = state.spent
        top = max(spent)
        base = spent[0] + spent[1] + top - spent[seat]  # the pot after LBR's call
        out = []
        for x in self.sizes:
            to = span[1] if x == math.inf else top + int(round(x * base))
            token = ("r", min(max(to, span[0]), span[1]))
            if token not in out:
                out.append(token)
        return out

    def _act(self, state, seat, own, cards, board_sets, weights, rng, opp) -> tuple[str, int]:
        """The action of the best local utility (check/call preflop with --preflop call)."""
        if state.round == 0 and self.preflop == "call":
            return ("c", 0)
        wp, _ = win_probability(np.array(own, dtype=np.int64), self._hand_index(own),
                                np.array(cards, dtype=np.int64), weights, self.hands, self.gd.deck_size,
                                self.gd.num_suits, self.board_total - len(cards), self.samples, self.budget,
                                int(rng.integers(2**31 - 1)), self.table, self.binom)
        spent = state.spent
        top, pot = max(spent), spent[0] + spent[1]
        asked = top - spent[seat]
        best, value = ("c", 0), wp * pot - (1 - wp) * asked
        total = weights.sum()
        cap = self.gd.stack[1 - seat] if self.nolimit else math.inf
        for token in self._raises(state, seat):
            folds = opp.fold_after(state, board_sets, token)
            fp = float(folds) if np.isscalar(folds) else float(np.dot(folds, weights)) / total
            b = min(token[1], cap) - top
            u = fp * pot + (1 - fp) * (wp * (pot + b) - (1 - wp) * (asked + b))
            if u > value:
                best, value = token, u
        if value < 0 and state.can_fold():
            return ("f", 0)
        return best

    # --- a match ----------------------------------------------------------------------------

    def _play_deals(self, first: int, last: int, seed: int, chips: np.ndarray, opp) -> None:
        """Deals first..last-1, both seats, into chips[d]: each deal draws from its own stream."""
        for d in range(first, last):
            rng = np.random.default_rng([seed, d])  # deal d's cards, then its two hands' draws
            hole, board = self._deal(rng)
            for seat in (0, 1):
                chips[d, seat] = self.play_hand(hole, board, seat, rng, opp)

    def run(self, hands: int, seed: int = 0, jobs: int = 1) -> LbrResult:
        """`hands` hands (even: each deal twice, LBR in each seat), reproducible from `seed`
        whatever `jobs` (threads, each playing a run of deals against its own opponent copy:
        the kernel releases the GIL)."""
        if hands < 2 or hands % 2:
            raise ConfigError(f"--hands {hands}: expected an even number >= 2 (each deal is played twice, LBR in "
                              "each seat)")
        start = time.perf_counter()
        deals = hands // 2
        chips = np.zeros((deals, 2))
        jobs = max(1, min(int(jobs), deals))
        opps = [self.opp] + [self.opp.clone() for _ in range(jobs - 1)]
        for o in opps:  # this run's counts only
            if getattr(o, "stats", None):
                o.stats = dict.fromkeys(o.stats, 0)
        if jobs == 1:
            self._play_deals(0, deals, seed, chips, self.opp)
        else:
            from concurrent.futures import ThreadPoolExecutor

            edges = np.linspace(0, deals, jobs + 1).round().astype(int)
            with ThreadPoolExecutor(jobs) as pool:
                for f in [pool.submit(self._play_deals, int(a), int(b), seed, chips, o)
                          for a, b, o in zip(edges[:-1], edges[1:], opps)]:
                    f.result()
        seconds = time.perf_counter() - start
        pairs = chips.mean(axis=1)
        half = 1.96 * float(pairs.std(ddof=1)) / math.sqrt(pairs.size) if pairs.size > 1 else math.inf
        stats = {}
        for o in opps:
            for key, v in (getattr(o, "stats", None) or {}).items():
                stats[key] = stats.get(key, 0) + v
        return LbrResult(self.opp.name, f"{self.game.name} ({self.gd.source})", float(pairs.mean()), half,
                         1000.0 / self.gd.big_blind, hands, seconds, tuple(float(x) for x in chips.mean(axis=0)),
                         {"sizes": self.sizes_text, "preflop": self.preflop, "seed": seed, "samples": self.samples,
                          "budget": self.budget, "jobs": jobs}, stats)


def _draw(row: np.ndarray, u: float) -> int:
    """The index a uniform u in [0, 1) picks from probabilities `row` summing to 1 (inverse cdf;
    a few actions: a Python scan beats numpy's calls)."""
    acc = 0.0
    probs = row.tolist()
    for i, p in enumerate(probs):
        acc += p
        if u < acc:
            return i
    return len(probs) - 1


def _check_game(game) -> None:
    """ConfigError for a game LBR cannot play: not two players, ranges, restricted boards."""
    gd = game.gd
    if getattr(gd, "num_players", 2) != 2:
        raise ConfigError(f"game {game.name!r}: local best response plays two-player games; this one has "
                          f"{gd.num_players}")
    check_game(gd)
    tree = getattr(game, "tree", None)
    if tree is None:
        return
    if tree.sides is not None or game.hand_rows() is not None or len(game.root_board()):
        raise ConfigError(f"game {game.name!r} deals its players ranges of hands (a spot); local best response plays "
                          "games whose players are dealt every hand: acpc, kuhn, leduc, rhode_island, hulhe")
    if game.allowed_boards() is not None or getattr(game, "trunk_only", False):
        raise ConfigError(f"game {game.name!r} holds only some boards ([game] flops or trunk_only); local best "
                          "response deals every board: solve the game with all its boards")


def opponent_for(game, player):
    """The lbr_policy opponent of a Player or NoLimitPlayer of `game`, or of a baseline's name
    (players.BASELINES) or NoLimitBot."""
    from .players import BASELINES, NoLimitBot, NoLimitPlayer

    if isinstance(player, (str, NoLimitBot)):
        kind = player if isinstance(player, str) else player.kind
        if kind not in BASELINES:
            raise ConfigError(f"unknown baseline {kind!r}; valid: {', '.join(BASELINES)}")
        return BotOpponent(kind, math.comb(game.gd.deck_size, game.gd.num_hole_cards))
    if isinstance(player, NoLimitPlayer):
        return TranslatingOpponent(player)
    if hasattr(player, "blueprint_game"):  # a blueprint run (solverkit.blueprint.lbr_opponent)
        if not player.nolimit:
            raise ConfigError(f"{player.name}: local best response evaluates no-limit blueprints (a limit blueprint "
                              "has an exact evaluation where its game fits: solverkit exploit)")
        from ..blueprint.lbr_opponent import BlueprintOpponent

        return BlueprintOpponent(player, hand_table(game.gd.deck_size, game.gd.num_hole_cards).astype(np.int64))
    return TreeOpponent(player)


class LimitTable:
    """A limit game definition with its betting tree and no public tree: what LBR needs to play
    a baseline in a game too large to build (heads-up limit hold'em)."""

    def __init__(self, gd):
        from .betting import build_betting_tree

        self.gd, self.name, self.tree = gd, "acpc", None
        self.bet = build_betting_tree(gd)

    def strength_function(self):
        return None  # ACPC ranking


def table_game(game_name: str, params: dict):
    """The game of a baseline LBR plays without a solve: for ``acpc`` with a ``gamedef`` file, the
    rules alone (dealer.NoLimitTable, LimitTable: full hold'em builds no tree); None otherwise."""
    from .dealer import NoLimitTable
    from .gamedef import load_any_gamedef

    if game_name != "acpc" or set(params) != {"gamedef"} or not isinstance(params["gamedef"], str):
        return None
    gd = load_any_gamedef(params["gamedef"])
    if getattr(gd, "num_players", 2) != 2:
        raise ConfigError(f"{gd.source}: local best response plays two-player games; this one has {gd.num_players}")
    return NoLimitTable(gd) if isinstance(gd, NoLimitGameDef) else LimitTable(gd)


def real_player(player):
    """A player of a run with a card abstraction ([abstraction]) made a player of the real game
    (its buckets' policies per real hand, PokerGame.real_policy); others as they are."""
    game = player.game
    if getattr(game, "abstraction_definition", None) is None:
        return player
    real, strategy = game.real_policy(player.strategy)
    return type(player)(real, strategy, player.name)


def write_result(result: LbrResult, run_dir: Path) -> Path:
    """lbr.json in the run directory."""
    path = Path(run_dir) / "lbr.json"
    path.write_text(json.dumps(result.to_json(), indent=2) + "\n")
    return path
