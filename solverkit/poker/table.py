"""Matches of N players (2 to 6) at one table of an ACPC limit game: the dealer with N seats,
agents that play tree-engine strategies (``kuhn_tree`` / ``leduc_tree`` with ``players = N``,
OpenSpiel's ``kuhn_poker(players=N)`` through the ``openspiel`` game) or baselines, and
duplicate matches that deal every deal once per seating of the players (all N! of them), so
that the cards' and the seats' luck cancel. Results are chips per game with 95% intervals over
the deals; the exact value of each player over every deal and seating comes from the tree
engine's expected values.
"""

from __future__ import annotations

import itertools
import math
import socket
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from ..core.address import check_host, check_port
from ..errors import SolverkitError, choices
from .acpc_protocol import MatchState, ProtocolMismatch
from .cards import card_name
from .dealer import ACTION_TIMEOUT, CONNECT_TIMEOUT, MatchError, _is_int, check_timeout, play_agent, serve_seats
from .nplayer import LimitState, TableDef, deal_cards, load_table, strengths, tree_table

#: the baselines of a table, by name (they play the game's tree like a strategy does)
TABLE_BASELINES = {
    "random": "uniform random over the legal actions",
    "call": "always check or call",
    "raise": "always bet or raise (call when raising is capped)",
    "fold": "fold whenever facing a bet, else check",
    "example": "the ACPC server's example player: fold 0.06, call 0.47, raise 0.47 over the legal actions",
}


# --- where a match state is in a tree game -------------------------------------------------------


class AcpcKeys:
    """Information sets of ``kuhn_tree`` / ``leduc_tree`` and of ``acpc`` games of 3+ players:
    ``<hole>|<board>|<betting>`` in ACPC card names (the hole cards and each round's board sorted)
    and f/c/r, so a match state is its own key and actions are ACPC letters."""

    def key(self, state: MatchState, gd: TableDef) -> str:
        S, R = gd.num_suits, gd.num_ranks
        hole = "".join(card_name(c, S, R) for c in sorted(state.hole[state.position]))
        board = "".join(card_name(c, S, R) for b in state.board for c in sorted(b))
        return f"{hole}|{board}|{state.betting}"

    def letters(self, key: str, labels) -> list[str]:
        return list(labels)


class OpenSpielKuhnKeys:
    """Information sets of OpenSpiel's ``kuhn_poker(players=N)``: the player's card id (the ACPC
    card id: one suit, ranks from the lowest) and the history of passes ``p`` and bets ``b``; a
    check or a fold is a pass, a bet or a call a bet. Action 0 passes, 1 bets."""

    def key(self, state: MatchState, gd: TableDef) -> str:
        hist, bet = [], False
        for ch in state.betting:
            if ch == "r":
                hist.append("b")
                bet = True
            elif ch == "c":
                hist.append("b" if bet else "p")
            elif ch == "f":
                hist.append("p")
        return f"{state.hole[state.position][0]}{''.join(hist)}"

    def letters(self, key: str, labels) -> list[str]:
        bet = "b" in key.lstrip("0123456789")
        return [("c" if bet else "r") if str(a) == "1" else ("f" if bet else "c") for a in labels]


class UniversalPokerKeys:
    """Information sets of OpenSpiel's ``universal_poker`` (limit betting): the match state
    replayed in OpenSpiel's game (which runs the ACPC server's game.c): the agent's own hole
    cards dealt to its position, cards no one shows to the others, the betting (fold 0, call 1,
    raise 2) and each round's board; its information-state string is the key. Card ids are the
    same in both decks (OpenSpiel names a small deck from the bottom, the ACPC dealer from the top)."""

    def __init__(self, os_game):
        self.os_game = os_game

    def key(self, state: MatchState, gd: TableDef) -> str:
        P, k = gd.num_players, gd.num_hole_cards
        own = list(state.hole[state.position])
        board = [c for b in state.board for c in b]
        spare = iter(c for c in range(gd.deck_size) if c not in own and c not in board)
        holes = [own if p == state.position else [next(spare) for _ in range(k)] for p in range(P)]
        cards = iter([c for h in holes for c in h])
        boards = iter(board)
        s = self.os_game.new_initial_state()
        rounds = state.betting.split("/")
        for r, text in enumerate(rounds):
            while s.is_chance_node():
                s.apply_action(next(cards) if r == 0 else next(boards))
            for ch in text:
                s.apply_action("fcr".index(ch))
        while s.is_chance_node():  # a new round's board, before anyone acts
            s.apply_action(next(boards))
        if s.is_terminal() or s.current_player() != state.position:
            raise ProtocolMismatch(f"hand {state.hand}: {state.betting!r} does not leave position {state.position} to "
                                   f"act in OpenSpiel's {self.os_game}")
        return s.information_state_string(state.position)

    def letters(self, key: str, labels) -> list[str]:
        return ["fcr"[int(a)] for a in labels]


def _openspiel_kind(game) -> str:
    """The OpenSpiel game name of an ``openspiel`` game ("" for another game)."""
    if getattr(game, "name", "") != "openspiel":
        return ""
    return str(getattr(game, "spec", "")).replace(" ", "").split("(")[0]


def key_map(game):
    """How match states of `game`'s table are found among its information sets; SolverkitError
    for a game that has no ACPC table."""
    if getattr(game, "name", "") in ("kuhn_tree", "leduc_tree") or getattr(game, "acpc_table", None) is not None:
        return AcpcKeys()
    kind = _openspiel_kind(game)
    if kind == "kuhn_poker":
        return OpenSpielKuhnKeys()
    if kind == "universal_poker" and str(game.os_game.get_parameters().get("betting")) == "limit":
        return UniversalPokerKeys(game.os_game)
    raise SolverkitError(f"game {getattr(game, 'name', game)!r} {getattr(game, 'spec', '')!s:.60} has no ACPC table: "
                         "N-player matches play kuhn_tree, leduc_tree (players = N), acpc limit files of 3+ players "
                         "and openspiel's "
                         "kuhn_poker(players=N) and universal_poker(betting=limit, ...)")


def game_table(game) -> TableDef:
    """The ACPC limit game definition a tree game's strategies play at the dealer."""
    if getattr(game, "name", "") in ("kuhn_tree", "leduc_tree"):
        return tree_table(game)
    if getattr(game, "acpc_table", None) is not None:  # an acpc file of 3+ players on the tree engine
        return game.acpc_table
    key_map(game)  # refuses other games by name
    P = game.num_players
    if _openspiel_kind(game) == "universal_poker":
        from .nplayer import parse_table

        params = game.os_game.get_parameters()
        fields = ("numPlayers", "numRounds", "blind", "raiseSize", "firstPlayer", "maxRaises", "numSuits",
                  "numRanks", "numHoleCards", "numBoardCards")
        text = "\n".join(["GAMEDEF", "limit", *(f"{f} = {params[f]}" for f in fields if str(params.get(f, ""))),
                          "END GAMEDEF"])
        return parse_table(text, game.spec)
    return TableDef(P, 1, (1,) * P, (1,), (0,), (1,), 1, P + 1, 1, (0,), f"kuhn_poker(players={P})").validate()


@dataclass
class TableGame:
    """What an agent and the dealer need of a table: its rules (``gd``) and name, and the tree
    game whose strategies are played (None for a dealer of the rules alone)."""

    gd: TableDef
    name: str
    tree: object = None


class TablePlayer:
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

    def act(self, state: MatchState, rng: np.random.Generator) -> str:
        probs, letters = self.probabilities(state)
        total = float(probs.sum())
        if not total > 0:
            raise ProtocolMismatch(f"hand {state.hand}: the strategy has no probabilities at {state.betting!r}")
        return letters[int(rng.choice(len(letters), p=probs / total))]


def baseline_policy(tree_game, kind: str) -> list[np.ndarray]:
    """Each player's policy array of a baseline over `tree_game`'s layout (once per match: a
    loop over information sets, not in any solver path)."""
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

    if spec in TABLE_BASELINES:
        if tree_game is None:
            raise SolverkitError(f"baseline {spec!r} needs a game: give a run directory for another player")
        return TablePlayer(tree_game, baseline_policy(tree_game, spec), spec)
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


# --- the dealer ----------------------------------------------------------------------------------


def seatings(players: int, duplicate: bool):
    """Per hand of a deal, the position of each seat: every permutation in a duplicate match
    (N! hands per deal), else one rotation a hand."""
    if duplicate:
        return [tuple(p) for p in itertools.permutations(range(players))]
    return [tuple((s + k) % players for s in range(players)) for k in range(players)]


@dataclass
class TableResult:
    """Chips each seat won, hand by hand; `group` hands share a deal in a duplicate match."""

    seat_chips: list[tuple[float, ...]] = field(default_factory=list)
    illegal: list[int] = field(default_factory=list)
    group: int = 1
    seconds: float = 0.0

    def per_game(self, seat: int) -> tuple[float, float, int]:
        """(mean, 95% half-width, samples) of the seat's chips per game; a duplicate match's
        interval is over its deals (each the mean of its `group` seatings)."""
        x = np.array([c[seat] for c in self.seat_chips], dtype=np.float64)
        x = x[: x.size // self.group * self.group].reshape(-1, self.group).mean(axis=1)
        n = x.size
        half = 1.96 * float(x.std(ddof=1)) / math.sqrt(n) if n > 1 else float("inf")
        return (float(x.mean()) if n else float("nan")), half, n


class TableDealer:
    """Listens on one port per seat of an N-player limit table, then deals `hands` hands."""

    def __init__(self, gd: TableDef, hands: int, seed: int = 0, duplicate: bool = True, host: str = "127.0.0.1",
                 action_timeout: float = ACTION_TIMEOUT, connect_timeout: float = CONNECT_TIMEOUT, ports=None):
        P = gd.num_players
        self.seatings = seatings(P, duplicate)
        group = len(self.seatings) if duplicate else 1
        if not _is_int(hands) or hands < 1 or hands % group:
            raise SolverkitError(f"hands = {hands!r:.40} is invalid: expected an integer >= 1" +
                                 (f", a multiple of {group} (every seating of {P} players once per deal)"
                                  if group > 1 else ""))
        if not _is_int(seed) or seed < 0:
            raise SolverkitError(f"seed = {seed!r:.40} is invalid: expected an integer >= 0")
        self.action_timeout = check_timeout(action_timeout, "action_timeout")
        self.connect_timeout = check_timeout(connect_timeout, "connect_timeout")
        ports = list(ports) if ports is not None else [0] * P
        if len(ports) != P:
            raise SolverkitError(f"ports = {ports!r:.60} is invalid: expected one port per seat ({P})")
        ports = [check_port(p, f"the dealer's seat {i}", allow_zero=True) for i, p in enumerate(ports)]
        nonzero = [p for p in ports if p]
        if len(set(nonzero)) != len(nonzero):
            raise SolverkitError(f"ports = {ports}: every seat needs its own port")
        host = check_host(host, "the dealer's --host")
        self.gd, self.hands, self.seed, self.duplicate, self.group = gd, hands, seed, duplicate, group
        self._listen = []
        try:
            for port in ports:
                s = socket.socket(socket.AF_INET6 if ":" in str(host) else socket.AF_INET, socket.SOCK_STREAM)
                self._listen.append(s)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind((host, port))
                s.listen(1)
                s.settimeout(self.connect_timeout)
        except (OSError, OverflowError, TypeError) as exc:
            for s in self._listen:
                s.close()
            raise MatchError(f"the dealer cannot listen on {host}:{port} ({exc})") from None
        self.ports = [s.getsockname()[1] for s in self._listen]

    def run(self) -> TableResult:
        """Accept every seat, play the match, close the connections."""
        return serve_seats(self._listen, self.ports, self.connect_timeout, self.action_timeout, self._play)

    def _line(self, hand: int, st: LimitState, deal, position: int) -> str:
        """What `position` sees: its hole cards (at a showdown those of every player still in)."""
        show = st.showdown
        hole = tuple(h if (p == position or (show and not st.folded[p])) else () for p, h in enumerate(deal.hole))
        return MatchState(position, hand, st.betting(), hole, deal.board[:st.round]).line(self.gd)

    def _play(self, seats) -> TableResult:
        gd, P = self.gd, self.gd.num_players
        result = TableResult(illegal=[0] * P, group=self.group)
        start = time.perf_counter()
        G = len(self.seatings)
        for hand in range(self.hands):
            if self.duplicate:
                d, k = divmod(hand, G)
            else:
                d, k = hand, hand % G
            where = self.seatings[k]  # where[seat] = position
            seat_of = {pos: s for s, pos in enumerate(where)}
            deal = deal_cards(gd, self.seed, d)
            st = LimitState(gd)
            while True:
                lines = [self._line(hand, st, deal, where[s]) for s in range(P)]
                for s, seat in enumerate(seats):
                    seat.send(lines[s])
                if st.finished:
                    break
                s = seat_of[st.current_player()]
                reply = seats[s].read(f"an action at {lines[s]!r}")
                token = reply[len(lines[s]) + 1:] if reply.startswith(lines[s] + ":") else None
                if token not in ("f", "c", "r"):
                    raise MatchError(f"seat {s} answered {reply[:120]!r} to {lines[s]!r}; expected the state followed "
                                     "by ':' and one of f, c, r")
                letter, legal = st.fix(token)
                st.apply(letter)
                result.illegal[s] += not legal
            won = st.payoffs(strengths(gd, deal) if st.showdown else None)
            result.seat_chips.append(tuple(won[where[s]] for s in range(P)))
        result.seconds = time.perf_counter() - start
        return result


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
    errors = []

    def agent(player, port, agent_seed):
        try:
            play_agent(player, "127.0.0.1", port, seed=agent_seed, timeout=timeout)
        except Exception as exc:  # reported by the match
            errors.append(exc)

    threads = [threading.Thread(target=agent, args=(p, port, seed * 7 + i + 1), daemon=True)
               for i, (p, port) in enumerate(zip(players, dealer.ports))]
    for t in threads:
        t.start()
    try:
        result = dealer.run()
    except MatchError as exc:
        if errors:
            raise errors[0] from exc
        raise
    for t in threads:
        t.join(timeout)
    if errors:
        raise errors[0]
    return result


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
