"""Matches of N players (2 to 6) at one table of an ACPC limit game: the dealer with N seats,
agents that play tree-engine strategies (``kuhn_tree`` / ``leduc_tree`` with ``players = N``,
OpenSpiel's ``kuhn_poker(players=N)`` through the ``openspiel`` game) or baselines, and
duplicate matches that deal every deal once per seating of the players (all N! of them), so
that the cards' and the seats' luck cancel. Results are chips per game with 95% intervals over
the deals; the exact value of each player over every deal and seating comes from the tree
engine's expected values.

Where a match state is in a tree game is in :mod:`.table_keys`, the dealer in :mod:`.table_dealer`;
this module keeps the players (strategies, baselines, blueprints) and the matches.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..errors import SolverkitError, choices
from .acpc_protocol import MatchState, ProtocolMismatch
from .dealer import match_with_agents
from .nplayer import LimitState, TableDef, load_table
from .players import SampledActions
from .table_dealer import TableDealer, TableResult, seatings  # noqa: F401 (re-exported)
from .table_keys import (AcpcKeys, OpenSpielKuhnKeys, UniversalPokerKeys,  # noqa: F401 (re-exported)
                         _openspiel_kind, game_table, key_map)

#: the baselines of a table, by name (they play the game's tree like a strategy does)
TABLE_BASELINES = {
    "random": "uniform random over the legal actions",
    "call": "always check or call",
    "raise": "always bet or raise (call when raising is capped)",
    "fold": "fold whenever facing a bet, else check",
    "example": "the ACPC server's example player: fold 0.06, call 0.47, raise 0.47 over the legal actions",
    "kuhn3p_eq": "3-player Kuhn only: a member of the equilibrium family the ACPC server's kuhn_3p_equilibrium_player "
                 "plays (kuhn3p_eq:c11=0.5,b11=0.25,...: solverkit.poker.kuhn3p_equilibrium)",
}


def _is_kuhn3p_eq(spec: str) -> bool:
    """Whether a player spec is ``kuhn3p_eq`` (it may carry ``:name=value,...``)."""
    return spec.partition(":")[0] == "kuhn3p_eq"


def is_table_baseline(spec: str) -> bool:
    """Whether a player spec names a baseline."""
    return spec in TABLE_BASELINES or _is_kuhn3p_eq(spec)


# --- the players ---------------------------------------------------------------------------------


@dataclass
class TableGame:
    """What an agent and the dealer need of a table: its rules (``gd``) and name, and the tree
    game whose strategies are played (None for a dealer of the rules alone)."""

    gd: TableDef
    name: str
    tree: object = None


class TablePlayer(SampledActions):
    """A strategy of a tree game (policy arrays per player, the game's layout) at an ACPC table:
    answers match states with actions sampled from the information set's policy."""

    def __init__(self, tree_game, strategy, name: str, table: TableDef | None = None):
        self.tree_game, self.strategy, self.name = tree_game, strategy, name
        self.keys = key_map(tree_game)
        gd = table or game_table(tree_game)
        self.game = TableGame(gd, gd.source, tree_game)

    def to_act(self, state: MatchState) -> bool:
        return LimitState.from_betting(self.game.gd, state.betting).current_player() == state.position

    def probabilities(self, state: MatchState) -> tuple[np.ndarray, list[str]]:
        """The policy at the state's information set and the ACPC letter of each action."""
        key = self.keys.key(state, self.game.gd)
        try:
            place = self.tree_game.infoset_place(key, state.position)
        except SolverkitError as exc:
            raise ProtocolMismatch(f"hand {state.hand}: {state.line(self.game.gd)!r} is no information set of "
                                   f"game {self.tree_game.name!r} ({exc})") from None
        A = len(place.labels)
        probs = np.asarray(self.strategy[state.position][place.offset:place.offset + A], dtype=np.float64)
        return probs, self.keys.letters(key, place.labels)


def baseline_policy(tree_game, kind: str) -> list[np.ndarray]:
    """Each player's policy array of a baseline over `tree_game`'s layout (once per match: a
    loop over information sets, not in any solver path)."""
    if _is_kuhn3p_eq(kind):
        from .kuhn3p_equilibrium import equilibrium_policy, parse_spec

        return equilibrium_policy(tree_game, parse_spec(kind))
    if kind not in TABLE_BASELINES:
        raise SolverkitError(f"unknown baseline {kind!r}; valid: {choices(TABLE_BASELINES)}")
    keys = key_map(tree_game)
    want = {"call": "c", "raise": "r", "fold": "f"}.get(kind)
    out = []
    for p in range(tree_game.num_players):
        pol = np.zeros(tree_game.layout(p).size)
        labels = tree_game.infoset_actions(p)
        for key, acts, off in zip(tree_game.infoset_keys(p), labels, tree_game.tree.offsets[p]):
            letters = keys.letters(key, acts)
            if kind == "example":
                from .players import EXAMPLE_WEIGHTS

                w = np.array([EXAMPLE_WEIGHTS[x] for x in letters])
                pol[off:off + len(acts)] = w / w.sum()
            elif want is None:
                pol[off:off + len(acts)] = 1.0 / len(acts)
            else:
                pol[off + letters.index(want if want in letters else "c")] = 1.0
        out.append(pol)
    return out


def blueprint_tree_game(game):
    """The tree-engine game of a blueprint of 3+ players (its own rules, small enough to
    enumerate: BlueprintGame._tree_game), or SolverkitError naming why it has no table here."""
    tree = game._tree_game()
    if tree is None:
        raise SolverkitError(f"a blueprint of {game.num_players} players of {game.config.get('gamedef')!r} plays at an "
                             "N-seat table where its game fits the tree engine ([game] exact_nodes) and is a limit "
                             "game; N-player no-limit and hold'em tables are not done")
    key_map(tree)  # a limit game with an ACPC table, else refused by name
    return tree


def _blueprint_table_player(run, own, tree_game) -> "TablePlayer":
    """A blueprint run of 3+ players at the table: its exported policy mapped onto the tree game
    of the same rules (each hand plays its bucket's policy), so the exact values are the tree
    engine's."""
    import numpy as np

    from ..blueprint.tree_map import tree_strategy
    from ..core.identity import game_identity
    from ..core.strategy_file import load_strategy

    tree = blueprint_tree_game(own)
    if tree_game is not None and game_identity(tree) != game_identity(tree_game):
        raise SolverkitError(f"{run} solved a blueprint of other rules than the match's {tree_game.name!r}; every "
                             "player must play the same game")
    strategy, _, meta = load_strategy(run / "strategy.npz", own, str(run / "config.toml"))
    mapped = tree_strategy(own.bp, tree, np.concatenate([np.asarray(x, dtype=np.float64) for x in strategy]))
    return TablePlayer(tree_game or tree, mapped, f"{run.name} (blueprint, {meta['iteration']} iterations)")


def load_table_player(spec: str, tree_game=None) -> TablePlayer:
    """A player from a solve's output directory of a tree game with an ACPC table, or a baseline
    (which needs `tree_game`); both must play the same game when `tree_game` is given."""
    from pathlib import Path

    from ..core.config import load_config
    from ..core.identity import game_identity
    from ..core.strategy_file import load_strategy

    if is_table_baseline(spec):
        if tree_game is None:
            raise SolverkitError(f"baseline {spec!r} needs a game: give a run directory for another player")
        name = spec
        if _is_kuhn3p_eq(spec):  # named by every parameter of its member
            from .kuhn3p_equilibrium import parse_spec

            name = parse_spec(spec).label()
        return TablePlayer(tree_game, baseline_policy(tree_game, spec), name)
    run = Path(spec)
    if not (run / "config.toml").is_file():
        raise SolverkitError(f"{spec!r} is neither a solve output directory (no {run / 'config.toml'}) nor a "
                             f"baseline ({choices(TABLE_BASELINES)})")
    own = load_config(run / "config.toml").game
    if getattr(own, "name", "") == "blueprint":  # bucketed: its policy mapped onto the same rules' tree game
        return _blueprint_table_player(run, own, tree_game)
    if tree_game is not None and game_identity(own) != game_identity(tree_game):
        raise SolverkitError(f"{spec} solved game {own.name!r} with other rules than the match's "
                             f"{tree_game.name!r}; every player must play the same game")
    strategy, _, meta = load_strategy(run / "strategy.npz", own, str(run / "config.toml"))
    return TablePlayer(tree_game or own, strategy, f"{run.name} ({meta['kind']}, {meta['iteration']} iterations)")


# --- matches -------------------------------------------------------------------------------------


@dataclass
class TableReport:
    """Each player's winnings in chips per game: exact (every deal and seating) and sampled."""

    names: list[str]
    exact: list[float] | None = None
    sampled: list[float] | None = None
    half_width: list[float] | None = None
    hands: int = 0
    deals: int = 0
    seatings: int = 1
    seconds: float = 0.0
    illegal: list[int] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = [f"{chr(65 + i)} = {n}" for i, n in enumerate(self.names)]
        if self.exact is not None:
            out.append("expected winnings (exact, every seating): " +
                       ", ".join(f"{chr(65 + i)} {v:+.5f}" for i, v in enumerate(self.exact)) + " chips/game")
        if self.sampled is not None:
            out.append(f"winnings over {self.hands:,} hands (duplicate: {self.deals:,} deals x {self.seatings} "
                       f"seatings), chips/game with 95% intervals over the deals, {self.seconds:.1f} s:")
            for i, (m, h) in enumerate(zip(self.sampled, self.half_width)):
                width = f"+/- {h:.5f}" if math.isfinite(h) else "(no interval: one deal)"
                out.append(f"  {chr(65 + i)} {m:+.5f} {width}")
        if any(self.illegal):
            out.append("illegal actions read as calls: " + ", ".join(f"{chr(65 + i)} {n}"
                                                                     for i, n in enumerate(self.illegal)))
        return out


def exact_values(tree_game, players) -> list[float]:
    """Each player's expected chips per game, averaged over every seating of the players (player
    i at position where[i]) and every deal: the tree engine's expected values, no sampling."""
    P = len(players)
    total = np.zeros(P)
    perms = seatings(P, True)
    for where in perms:
        strategy = [None] * P
        for i, pos in enumerate(where):
            strategy[pos] = players[i].strategy[pos]
        ev = tree_game.expected_values(strategy)
        for i, pos in enumerate(where):
            total[i] += ev[pos]
    return list(total / len(perms))


def table_match(gd: TableDef, players, hands: int, seed: int = 0, timeout: float = 30.0,
                duplicate: bool = True) -> TableResult:
    """A match of `hands` hands through the N-seat dealer over loopback TCP, player i in seat i,
    each an agent of its own thread."""
    dealer = TableDealer(gd, hands, seed=seed, duplicate=duplicate, action_timeout=timeout, connect_timeout=timeout)
    return match_with_agents(dealer, players, [seed * 7 + i + 1 for i in range(len(players))], timeout)


def run_table_match(players, hands: int = 0, seed: int = 0, exact: bool = True) -> TableReport:
    """The exact values (tree players of one game) and a sampled duplicate match of `hands` hands
    (a multiple of N!; 0: none) of 2..6 TablePlayers."""
    P = len(players)
    tree_game = players[0].tree_game
    if P != tree_game.num_players:
        raise SolverkitError(f"{P} players for game {tree_game.name!r} of {tree_game.num_players} players: "
                             f"expected {tree_game.num_players}")
    report = TableReport([p.name for p in players])
    if exact:
        report.exact = exact_values(tree_game, players)
    if hands:
        result = table_match(players[0].game.gd, players, hands, seed)
        stats = [result.per_game(i) for i in range(P)]
        report.sampled = [s[0] for s in stats]
        report.half_width = [s[1] for s in stats]
        report.hands, report.deals, report.seatings = len(result.seat_chips), stats[0][2], result.group
        report.seconds, report.illegal = result.seconds, list(result.illegal)
    return report


def table_of(name_or_path: str) -> TableGame:
    """A table of the rules alone (a dealer with no strategies): an N-player ACPC limit file."""
    gd = load_table(name_or_path)
    return TableGame(gd, name_or_path)
