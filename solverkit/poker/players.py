"""Players of a poker game: a solved strategy or a baseline (uniform random, always call, always
raise), as whole policy arrays (for exact expected values) and as a lookup from an ACPC match
state to action probabilities (for playing). In no-limit games a solved strategy plays through
action translation (:class:`NoLimitPlayer`) and the baselines bet any legal size
(:class:`NoLimitBot`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import SolverkitError, choices
from .acpc_protocol import MatchState, NoLimitState, ProtocolMismatch, pot_fraction, split_betting
from .action_tree import ALLIN_K, CALL_K, FOLD_K, RAISE_K
from .betting import CALL_A, DECISION, FOLD_A, RAISE_A, ROUND_END
from .gamedef_nolimit import NoLimitGameDef
from .translation import translate

#: the built-in baselines, by name
BASELINES = {
    "random": "uniform random over the legal actions",
    "call": "always check or call",
    "raise": "always bet or raise (call when raising is capped)",
    "example": "the ACPC server's example player: fold 0.06, call 0.47, raise 0.47 over the legal actions",
}
#: the ACPC example player's weights of fold, call and raise (example_player.c), renormalised over
#: the legal actions; its no-limit raises are uniform over the legal sizes
EXAMPLE_WEIGHTS = {"f": 0.06, "c": 0.47, "r": 0.47}
#: a player spec "blueprint:RUN_DIR" plays the run's strategy without the search its [search] asks for
BLUEPRINT_PREFIX = "blueprint:"
#: what the baselines do in no-limit games, where they play the real game's sizes (NoLimitBot)
NOLIMIT_BASELINES = {
    "random": "fold (facing a bet), call or raise with equal chances; a raise to a size drawn uniformly from the "
              "legal ones",
    "call": "always check or call",
    "raise": "always bet or raise to a size drawn uniformly from the legal ones (call when no raise is legal)",
    "example": "the ACPC server's example player: fold 0.06, call 0.47, raise 0.47 over the legal actions, a raise "
               "to a size drawn uniformly from the legal ones",
}


def baseline_strategy(game, kind: str) -> list[np.ndarray]:
    """Each player's policy array of a baseline, in the game's layout (built with numpy, no loop
    per information set)."""
    if kind not in BASELINES:
        raise SolverkitError(f"unknown baseline {kind!r}; valid: {choices(BASELINES)}")
    bet = game.tree.bet
    out = []
    for p in (0, 1):
        lay = game.layout(p)
        nodes = np.asarray(game.full.units[p][0], dtype=np.int64)
        A = bet.num_actions[nodes].astype(np.int64)
        sizes = lay.block_count * A
        unit = np.repeat(np.arange(nodes.size), sizes)  # the unit of every value
        slot = (np.arange(int(sizes.sum())) - np.repeat(lay.block_start, sizes)) % np.repeat(A, sizes)
        code = bet.actions[nodes[unit], slot]
        if kind == "random":
            pol = 1.0 / np.repeat(A, sizes)
        elif kind == "example":
            w_of = np.zeros(3)  # by action code; the padding (-1) weighs nothing below
            w_of[[FOLD_A, CALL_A, RAISE_A]] = EXAMPLE_WEIGHTS["f"], EXAMPLE_WEIGHTS["c"], EXAMPLE_WEIGHTS["r"]
            acts = bet.actions[nodes]
            total = np.where(acts >= 0, w_of[np.maximum(acts, 0)], 0.0).sum(axis=1)
            pol = w_of[code] / total[unit]
        elif kind == "call":
            pol = (code == CALL_A).astype(np.float64)
        else:
            can_raise = (bet.actions[nodes] == RAISE_A).any(axis=1)
            want = np.where(can_raise, RAISE_A, CALL_A)[unit]
            pol = (code == want).astype(np.float64)
        out.append(pol)
    return out


class SampledActions:
    """A player whose action is sampled from its ``probabilities(state)``: (probabilities, ACPC
    letters) at the state (a poker engine's Player, a tree game's TablePlayer)."""

    def act(self, state: MatchState, rng: np.random.Generator) -> str:
        """An action letter sampled from the policy."""
        probs, labels = self.probabilities(state)
        total = float(probs.sum())
        if not total > 0:
            raise ProtocolMismatch(f"hand {state.hand}: the strategy has no probabilities at {state.betting!r}")
        return labels[int(rng.choice(len(labels), p=probs / total))]


class RealStates:
    """A player that follows the real betting state: a no-limit state of ``gd``, or a limit one
    of its two-seat ``_table`` (``nolimit`` says which)."""

    def real_state(self, state: MatchState):
        """The real betting state of the match state (whose turn, legal actions, pot)."""
        if self.nolimit:
            return NoLimitState.from_betting(self.gd, state.betting)
        from .nplayer import LimitState

        return LimitState.from_betting(self._table, state.betting)

    def to_act(self, state: MatchState) -> bool:
        return self.real_state(state).current_player() == state.position


class Player(SampledActions):
    """A strategy of a poker game (a policy array per player) that answers match states."""

    def __init__(self, game, strategy, name: str):
        self.game, self.strategy, self.name = game, strategy, name
        self._nodes = {h: n for n, h in enumerate(game.tree.bet.history)}

    def node(self, state: MatchState) -> int:
        """The betting node of a match state (ProtocolMismatch when the game has no such betting)."""
        node = self._nodes.get(state.betting)
        if node is None:
            raise ProtocolMismatch(f"betting {state.betting!r} (hand {state.hand}) is not a betting sequence of game "
                                   f"{self.game.name!r}; this strategy does not cover it")
        return node

    def to_act(self, state: MatchState) -> bool:
        """Whether the state asks this agent (its position) to act."""
        n = self.node(state)
        bet = self.game.tree.bet
        return int(bet.kind[n]) == DECISION and int(bet.player[n]) == state.position

    def probabilities(self, state: MatchState) -> tuple[np.ndarray, list[str]]:
        """The policy at the state's information set and its action letters (f, c, r)."""
        return self.probabilities_at(self.node(state), state)

    def probabilities_at(self, n: int, state: MatchState) -> tuple[np.ndarray, list[str]]:
        """The policy at tree node n for the state's cards, and the node's action tokens."""
        game = self.game
        try:
            off = game.policy_offset(n, state.board_sets(), tuple(sorted(state.hole[state.position])))
        except KeyError as exc:
            raise ProtocolMismatch(f"hand {state.hand}: cards {state.line(game.gd)!r} are not a deal of game "
                                   f"{game.name!r} ({exc.args[0]})") from None
        A = int(game.tree.bet.num_actions[n])
        return np.asarray(self.strategy[state.position][off:off + A], dtype=np.float64), game.action_labels(n)

    def hand_policies(self, n: int, board_sets) -> np.ndarray:
        """float64 [hands, actions]: the policy at tree node n on a board (card sets per round, as
        MatchState.board_sets gives them) of every hand of the game's hand table, in one gather from
        the stored (suit-canonical) board's block: PokerGame.locate's suit permutation moves all the
        hands at once. Rows of hands that clash with the board are whatever the block holds there."""
        game = self.game
        g, moved = board_map(game, board_sets)
        bet = game.tree.bet
        A, p = int(bet.num_actions[n]), int(bet.player[n])
        H = game.tree.hands_of(p)
        off = game.value_offset(n, g, 0)
        block = np.asarray(self.strategy[p][off:off + H * A], dtype=np.float64).reshape(H, A)
        return block[moved]



class NoLimitPlayer(Player):
    """A solved strategy of a no-limit game under an action abstraction, playing the real game:
    each opponent action is mapped into the abstraction's tree (a bet or raise of a size the tree
    lacks by the pseudo-harmonic mapping, solverkit.poker.translation), the agent acts from the
    mapped node, and its own bets go out as the tree's raise-to amounts, clamped to what the real
    state allows. Where the tree has no counterpart (a raise where it has none, a hand the tree
    ended while the real one goes on) the agent checks or calls for the rest of the hand."""

    def __init__(self, game, strategy, name: str):
        super().__init__(game, strategy, name)
        self.gd = game.gd
        #: per hand: the tree node after each real action mapped so far (-1: off the tree), and
        #: the tree child of each of the agent's own actions by its index in the hand's actions
        self._hand, self._path, self._own = None, [], {}
        #: counts over the match: opponent sizes translated, hands that left the tree, own
        #: bets clamped to the real state's legal sizes
        self.stats = {"translated": 0, "off_tree_hands": 0, "clamped": 0}
        self._rng = np.random.default_rng(0)  # act() replaces it with the agent's own

    def real_state(self, state: MatchState) -> NoLimitState:
        return NoLimitState.from_betting(self.gd, state.betting)

    def to_act(self, state: MatchState) -> bool:
        return self.real_state(state).current_player() == state.position

    def node(self, state: MatchState) -> int:
        """The tree node the hand's betting maps to (-1: off the tree). Each real action is mapped
        once per hand (a translation is drawn once), so asking again gives the same node."""
        if state.hand != self._hand:
            self._hand, self._path, self._own = state.hand, [], {}
        real = NoLimitState(self.gd)
        n = 0
        for i, (letter, size) in enumerate(a for a in split_betting(state.betting, True) if a[0] != "/"):
            if i == len(self._path):
                self._path.append(self._map(real, n, letter, size, i, state.position))
            n = self._path[i]
            real.apply(letter, size)
        bet = self.game.tree.bet
        while n >= 0 and int(bet.kind[n]) == ROUND_END and int(bet.round[n]) < real.round:
            n = int(bet.children[n, 0])
        return n

    def _map(self, real: NoLimitState, n: int, letter: str, size: int, index: int, me: int) -> int:
        """The tree child for the real action (letter, size) taken at real state `real` from node n."""
        if n < 0:
            return -1
        bet = self.game.tree.bet
        while int(bet.kind[n]) == ROUND_END and int(bet.round[n]) < real.round:
            n = int(bet.children[n, 0])
        actor = real.current_player()
        if actor == me and index in self._own:
            return self._own[index]
        if int(bet.kind[n]) != DECISION or int(bet.player[n]) != actor or int(bet.round[n]) != real.round:
            return self._leave()
        A = int(bet.num_actions[n])
        codes = [int(c) for c in bet.actions[n, :A]]
        if letter in "fc":
            want = FOLD_K if letter == "f" else CALL_K
            return int(bet.children[n, codes.index(want)]) if want in codes else self._leave()
        slots = [a for a in range(A) if codes[a] in (RAISE_K, ALLIN_K)]
        if not slots:
            return self._leave()
        if size == self.gd.stack[actor] and codes[slots[-1]] == ALLIN_K:
            return int(bet.children[n, slots[-1]])  # an all-in is the tree's all-in
        tree_spent = [int(v) for v in bet.spent[n]]
        fractions = [pot_fraction(int(bet.amounts[n, a]), tree_spent, actor) for a in slots]
        x = real.pot_fraction(size)
        if x not in fractions:
            self.stats["translated"] += 1
        pick = slots[translate(x, fractions, self._rng)]
        return int(bet.children[n, pick])

    def _leave(self) -> int:
        self.stats["off_tree_hands"] += 1
        return -1

    def act(self, state: MatchState, rng: np.random.Generator) -> str:
        """An action token ('f', 'c' or 'r<N>') for the real state, sampled at the mapped node."""
        self._rng = rng
        n = self.node(state)
        real = self.real_state(state)
        index = sum(len(a) for a in real.actions)
        bet = self.game.tree.bet
        if n < 0 or int(bet.kind[n]) != DECISION or int(bet.player[n]) != state.position \
                or int(bet.round[n]) != real.round:
            if n >= 0:  # the tree ended (or went elsewhere) while the real hand goes on
                self._own[index] = self._leave()
            return "c"
        probs, _ = self.probabilities_at(n, state)
        total = float(probs.sum())
        if not total > 0:
            raise ProtocolMismatch(f"hand {state.hand}: the strategy has no probabilities at {state.betting!r}")
        slot = int(rng.choice(len(probs), p=probs / total))
        A = int(bet.num_actions[n])
        codes = [int(c) for c in bet.actions[n, :A]]
        code = codes[slot]
        span = real.raise_range()
        token = "c"
        if code == FOLD_K and real.can_fold():
            token = "f"
        elif code in (RAISE_K, ALLIN_K) and span is not None:
            lo, hi = span
            amount = hi if code == ALLIN_K else int(bet.amounts[n, slot])
            if not lo <= amount <= hi:
                self.stats["clamped"] += 1
            token = f"r{min(max(amount, lo), hi)}"
        if token == "c" and code != CALL_K:  # the real state has no such action: follow the tree's call
            slot = codes.index(CALL_K)
        self._own[index] = int(bet.children[n, slot])
        return token

    def probabilities(self, state: MatchState) -> tuple[np.ndarray, list[str]]:
        n = self.node(state)
        if n < 0:
            raise ProtocolMismatch(f"hand {state.hand}: betting {state.betting!r} has left the abstraction's tree")
        return self.probabilities_at(n, state)


class NoLimitBot(RealStates):
    """A baseline playing the real game from its rules alone (NOLIMIT_BASELINES): in a no-limit
    game its bets are any legal size, most of them off every abstraction's tree; a limit game
    without a solver tree (a blueprint's match) plays its f / c / r the same way."""

    def __init__(self, game, kind: str):
        if kind not in NOLIMIT_BASELINES:
            raise SolverkitError(f"unknown baseline {kind!r}; valid: {choices(NOLIMIT_BASELINES)}")
        self.game, self.gd, self.kind, self.name = game, game.gd, kind, kind
        self.nolimit = isinstance(self.gd, NoLimitGameDef)
        if not self.nolimit:
            from .nplayer import two_player_table

            self._table = two_player_table(self.gd)

    def act(self, state: MatchState, rng: np.random.Generator) -> str:
        real = self.real_state(state)
        span = real.raise_range() if self.nolimit else (real.can_raise() or None)
        if self.kind == "call":
            return "c"
        options = (["f"] if real.can_fold() else []) + ["c"] + (["r"] if span else [])
        if self.kind == "raise":
            choice = "r" if span else "c"
        elif self.kind == "example":
            weights = np.array([EXAMPLE_WEIGHTS[o] for o in options])
            choice = options[int(rng.choice(len(options), p=weights / weights.sum()))]
        else:
            choice = options[int(rng.integers(len(options)))]
        if choice == "r" and self.nolimit:
            return f"r{int(rng.integers(span[0], span[1] + 1))}"
        return choice


def board_map(game, board_sets) -> tuple[int, np.ndarray]:
    """(global board id, int64 [hands]: each hand's index at that board) of a board given as card
    sets per round: the stored board and hand images PokerGame.locate finds (the first suit
    permutation that moves the board to a stored one, applied to every hand), cached per board."""
    from itertools import permutations

    from .tree import _HandIndex

    cache = game.__dict__.setdefault("_board_maps", {})
    key = tuple(tuple(sorted(int(c) for c in st)) for st in board_sets)
    hit = cache.get(key)
    if hit is not None:
        return hit
    t = game.tree
    S = game.gd.num_suits
    used = {c for st in key for c in st}
    probe = next(tuple(int(c) for c in row) for row in t.hands if not used & set(int(c) for c in row))
    g, _ = game.locate(key, probe)  # builds the game's board lookup; raises KeyError off the game's boards
    perms = list(permutations(range(S))) if game.tree_isomorphic else [tuple(range(S))]
    allowed = game.suit_perms()
    if allowed is not None:
        keep = {tuple(int(x) for x in q) for q in allowed}
        perms = [q for q in perms if tuple(q) in keep]
    for perm in perms:  # locate's order: the first permutation whose image is stored
        image = tuple(tuple(sorted(c - c % S + perm[c % S] for c in st)) for st in key)
        if game._board_lookup.get(image) is not None:
            break
    if len(cache) > 100_000:
        cache.clear()
    index = game.__dict__.get("_hand_index")
    if index is None:
        index = game._hand_index = _HandIndex(t.hands, game.gd.deck_size, S)
    cache[key] = hit = (g, index.moved(perm))
    return hit


def is_poker_game(game) -> bool:
    """Whether `game` is a game of the poker engine (a tree-engine game such as kuhn_tree or an
    OpenSpiel game has a ``tree`` too, of another kind: no boards, no betting tree)."""
    from .game import PokerGame

    return isinstance(game, PokerGame)


def is_nolimit(game) -> bool:
    """Whether `game` is a poker game of a no-limit game definition (played through translation)."""
    return isinstance(getattr(game, "gd", None), NoLimitGameDef)


def load_player(spec: str, game=None) -> Player:
    """A player from a solve's output directory (its strategy.npz, checked against its game) or
    a baseline name (which needs `game`). In a no-limit game each solved player keeps its own
    abstraction (a NoLimitPlayer); only the game definitions must be the same."""
    from ..core.config import load_config
    from ..core.strategy_file import check_layout, load_strategy

    search = True
    if spec.startswith(BLUEPRINT_PREFIX):  # the run's blueprint alone, without its [search]
        spec, search = spec[len(BLUEPRINT_PREFIX):], False
    if spec in BASELINES:
        if game is None:
            raise SolverkitError(f"baseline {spec!r} needs a game: give a run directory for the other player or --game")
        if is_nolimit(game) or not is_poker_game(game):  # the real game's rules alone (a blueprint's match)
            return NoLimitBot(game, spec)
        return Player(game, baseline_strategy(game, spec), spec)
    run = Path(spec)
    if not (run / "config.toml").is_file():
        raise SolverkitError(f"{spec!r} is neither a solve output directory (no {run / 'config.toml'}) nor a "
                             f"baseline ({choices(BASELINES)})")
    assembly = load_config(run / "config.toml")
    own = assembly.game
    if getattr(own, "name", "") == "blueprint":  # bucketed MCCFR: plays the real game from its buckets
        return _blueprint_player(run, own, game, assembly.search if search else None)
    if not is_poker_game(own):
        raise SolverkitError(f"{spec}: game {own.name!r} is not a poker game of the poker engine")
    if game is not None:
        _check_same_rules(spec, own, game)
    strategy, layouts, meta = load_strategy(run / "strategy.npz", own, str(run / "config.toml"))
    label = f"{run.name} ({meta['kind']}, {meta['iteration']} iterations)"
    if search and assembly.search is not None:  # re-solving every public state (docs/search.md)
        from ..search.params import depth_limited_options
        from ..search.resolve import searched_strategy

        cfg = assembly.search
        real, blueprint = own.real_policy(strategy)
        strategy, _ = searched_strategy(real, blueprint, cfg["name"], cfg["iterations"], cfg["round"], cfg["nested"],
                                        cfg["safety_check"], per_card=cfg["per_card"], budget=cfg["budget"],
                                        **depth_limited_options(cfg))
        label = f"{run.name} ({meta['kind']}, {meta['iteration']} iterations, search {cfg['name']})"
    if is_nolimit(own):  # its own abstraction of the real game: the dealer plays the game definition
        return NoLimitPlayer(own, strategy, label)
    if game is not None and game is not own:
        try:
            check_layout(run / "strategy.npz", layouts, game)  # the same rules, another layout (isomorphism)
        except SolverkitError as exc:
            raise SolverkitError(f"{exc}: {spec} was solved with other engine settings than the match's game "
                                 f"([game] isomorphism?); both players' strategies need the same layout") from None
        if not _same_boards(own, game):  # a layout of the same size over other boards: other information sets
            raise SolverkitError(f"{spec} solved game {own.name!r} on other boards than the match's game "
                                 f"{game.name!r} ([game] flops?): its information sets are not the match's; both "
                                 "players must play the same game")
    return Player(game or own, strategy, label)


def _check_blueprint_search(run: Path, search: dict) -> None:
    """SolverkitError for a [search] table a blueprint run's spot search would not follow: it
    re-solves with name = "unsafe" only, each round from `round` on after its cards are seen, nested
    (solverkit.search.spot_search), so nested = false and per_card = false would be ignored."""
    if search["name"] != "unsafe":
        raise SolverkitError(f"{run}: [search] name = {search['name']!r}: a blueprint run re-solves hold'em spots from "
                             "the blueprint's ranges with name = \"unsafe\" (the safe gadgets re-solve poker-engine "
                             "games, docs/search.md); play its blueprint alone with blueprint:RUN")
    for key in ("nested", "per_card"):
        if not search[key]:
            raise SolverkitError(f"{run}: [search] {key} = false: a blueprint run's search re-solves every round from "
                                 f"round {search['round']} on, after the round's cards are seen and from the ranges "
                                 f"its earlier re-solves leave (docs/search.md); remove {key} from [search]")


def _blueprint_player(run: Path, own, game, search: dict | None):
    """A two-player blueprint run (solverkit.blueprint.player) for the match of `game` (the rules
    of the same file), its exported strategy read from the run's strategy file; with the run's
    [search] (name = "unsafe") it re-solves spots during play (solverkit.search.spot_search)."""
    from ..blueprint.player import BlueprintPlayer, table_rules
    from ..core.strategy_file import load_strategy

    if search is not None:
        _check_blueprint_search(run, search)
    if game is not None and rules_key(table_rules(own).gd) != rules_key(game.gd):
        raise SolverkitError(f"{run} solved the blueprint of {own.config['gamedef']!r}, another game than the match's "
                             f"{game.gd.source!r}; every player must play the same game")
    strategy, _, meta = load_strategy(run / "strategy.npz", own, str(run / "config.toml"))
    label = f"{run.name} (blueprint, {meta['iteration']} iterations)"
    if search is None:
        return BlueprintPlayer(own, strategy, label)
    from ..search.spot_search import SpotSearchPlayer

    return SpotSearchPlayer(own, strategy, f"{label[:-1]}, search unsafe)", iterations=search["iterations"],
                            budget=search["budget"], first_round=search["round"])


def rules_key(gd) -> tuple:
    """A game definition's rules and cards (its file name aside), to tell two games apart."""
    fields = ("num_players", "num_rounds", "blind", "stack", "raise_size", "first_player", "max_raises", "num_suits",
              "num_ranks", "num_hole_cards", "num_board_cards")
    return tuple(repr(getattr(gd, f, None)) for f in fields)


def _same_boards(own, game) -> bool:
    """Whether two games of the same rules and layout build the same boards (a hold'em game
    restricted to other flops has the same sizes, with other cards at each board's place)."""
    a, b = own.tree.boards, game.tree.boards
    return (a.cards.shape == b.cards.shape and np.array_equal(a.cards, b.cards)
            and np.array_equal(a.num_cards, b.num_cards))


def _check_same_rules(spec: str, own, game) -> None:
    """Raise unless the game a run solved (`own`) has the rules of the match's `game`: every
    field of the game definition (blinds, first player, hole cards, ...), not only its sizes."""
    from ..core.identity import differences, game_definition

    if not is_poker_game(game):  # the rules alone (a blueprint's match): the definitions' fields
        if rules_key(own.gd) != rules_key(game.gd):
            raise SolverkitError(f"{spec} solved game {own.name!r} ({own.gd.source}), another game than the match's "
                                 f"({game.gd.source}); both players must play the same game")
        return
    theirs, mine = game_definition(own).get("rules"), game_definition(game).get("rules")
    if theirs != mine:
        diff = "; ".join(d.replace(" in the file,", f" in {spec},").replace(" in the game", " in the match's game")
                         for d in differences(theirs or {}, mine or {}))
        raise SolverkitError(f"{spec} solved game {own.name!r} ({own.gd.source}), another game than {game.name!r} "
                             f"({game.gd.source}) of the match: {diff}; both players must play the same game")
