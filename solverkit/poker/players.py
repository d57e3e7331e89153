"""Players of a poker game: a solved strategy or a baseline (uniform random, always call, always
raise), as whole policy arrays (for exact expected values) and as a lookup from an ACPC match
state to action probabilities (for playing)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import SolverkitError, choices
from .acpc_protocol import MatchState, ProtocolMismatch
from .betting import CALL_A, DECISION, RAISE_A

#: the built-in baselines, by name
BASELINES = {
    "random": "uniform random over the legal actions",
    "call": "always check or call",
    "raise": "always bet or raise (call when raising is capped)",
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
        elif kind == "call":
            pol = (code == CALL_A).astype(np.float64)
        else:
            can_raise = (bet.actions[nodes] == RAISE_A).any(axis=1)
            want = np.where(can_raise, RAISE_A, CALL_A)[unit]
            pol = (code == want).astype(np.float64)
        out.append(pol)
    return out


class Player:
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
        n = self.node(state)
        game = self.game
        try:
            g, h = game.locate(state.board_sets(), tuple(sorted(state.hole[state.position])))
        except KeyError as exc:
            raise ProtocolMismatch(f"hand {state.hand}: cards {state.line(game.gd)!r} are not a deal of game "
                                   f"{game.name!r} ({exc.args[0]})") from None
        A = int(game.tree.bet.num_actions[n])
        off = game.value_offset(n, g, h)
        return np.asarray(self.strategy[state.position][off:off + A], dtype=np.float64), game.action_labels(n)

    def act(self, state: MatchState, rng: np.random.Generator) -> str:
        """An action letter sampled from the policy."""
        probs, labels = self.probabilities(state)
        total = float(probs.sum())
        if not total > 0:
            raise ProtocolMismatch(f"hand {state.hand}: the strategy has no probabilities at {state.betting!r}")
        return labels[int(rng.choice(len(labels), p=probs / total))]


def is_poker_game(game) -> bool:
    """Whether `game` is a game of the poker engine (a tree-engine game such as kuhn_tree or an
    OpenSpiel game has a ``tree`` too, of another kind: no boards, no betting tree)."""
    from .game import PokerGame

    return isinstance(game, PokerGame)


def load_player(spec: str, game=None) -> Player:
    """A player from a solve's output directory (its strategy.npz, checked against its game) or
    a baseline name (which needs `game`)."""
    from ..core.config import load_config
    from ..core.strategy_file import check_layout, load_strategy

    if spec in BASELINES:
        if game is None:
            raise SolverkitError(f"baseline {spec!r} needs a game: give a run directory for the other player or --game")
        return Player(game, baseline_strategy(game, spec), spec)
    run = Path(spec)
    if not (run / "config.toml").is_file():
        raise SolverkitError(f"{spec!r} is neither a solve output directory (no {run / 'config.toml'}) nor a "
                             f"baseline ({choices(BASELINES)})")
    own = load_config(run / "config.toml").game
    if not is_poker_game(own):
        raise SolverkitError(f"{spec}: game {own.name!r} is not a limit poker game of the poker engine")
    if game is not None:
        _check_same_rules(spec, own, game)
    strategy, layouts, meta = load_strategy(run / "strategy.npz", own, str(run / "config.toml"))
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
    return Player(game or own, strategy, f"{run.name} ({meta['kind']}, {meta['iteration']} iterations)")


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

    theirs, mine = game_definition(own).get("rules"), game_definition(game).get("rules")
    if theirs != mine:
        diff = "; ".join(d.replace(" in the file,", f" in {spec},").replace(" in the game", " in the match's game")
                         for d in differences(theirs or {}, mine or {}))
        raise SolverkitError(f"{spec} solved game {own.name!r} ({own.gd.source}), another game than {game.name!r} "
                             f"({game.gd.source}) of the match: {diff}; both players must play the same game")
