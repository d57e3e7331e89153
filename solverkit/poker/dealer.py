"""A dealer for two-player games speaking the ACPC protocol 2.0.0, and the agent loop that
plays a strategy against any such dealer (solverkit's or the ACPC's own). Limit games are dealt
through the game's betting tree, no-limit games by the ACPC server's rules (NoLimitState), any
legal raise size allowed.

The dealer listens on one TCP port per seat, as the ACPC dealer does, deals each hand from a
random stream keyed by (seed, deal), and in a duplicate match plays every deal twice with the
seats' positions swapped, so that the cards' luck cancels. Illegal actions are read as a call
(the ACPC dealer's rule); a malformed reply, a reply to another state or a silent seat ends
the match with an error naming the seat and the line.
"""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from ..core.address import check_host, check_port
from ..errors import SolverkitError
from .acpc_protocol import (ACTIONS, VERSION, MatchState, NoLimitState, check_game, parse_action,
                            parse_matchstate)
from .betting import CALL_A, FOLD, FOLD_A, RAISE_A, ROUND_END, SHOWDOWN
from .evaluator import acpc_strengths
from .gamedef_nolimit import NoLimitGameDef

_CODE = {"f": FOLD_A, "c": CALL_A, "r": RAISE_A}
#: seconds a seat may take to connect, and to answer one state
CONNECT_TIMEOUT, ACTION_TIMEOUT = 60.0, 30.0
#: the longest line read from a peer, "\r\n" included: a limit-game state is under 200 bytes
MAX_LINE = 16384
#: the longest wait accepted, seconds (a year: sockets refuse timeouts beyond their clock's range)
MAX_WAIT = 365 * 86400.0


class MatchError(SolverkitError):
    """A match that cannot go on: a seat that broke the protocol, went silent or left."""


def check_timeout(value, what: str) -> float:
    """`value` seconds as a float in (0, MAX_WAIT]: sockets refuse 0 (non-blocking), negative,
    NaN and huge timeouts, with a traceback."""
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        seconds = float("nan")
    if not 0 < seconds <= MAX_WAIT:
        raise SolverkitError(f"{what} = {value!r:.40} is invalid: expected seconds > 0 and <= {MAX_WAIT:g}")
    return seconds


def _is_int(value) -> bool:
    """An integer, not a bool (True would deal one hand)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


class LineReader:
    """Whole lines from a socket, each within a deadline and a length limit: a peer that
    trickles bytes cannot stretch the wait past `timeout`, and a long line is refused, never
    cut in two. `who` names the peer in errors (MatchError)."""

    def __init__(self, conn: socket.socket, who: str, timeout: float, max_line: int = MAX_LINE):
        self.conn, self.who, self.timeout, self.max_line = conn, who, timeout, max_line
        self._buf = bytearray()

    def read(self, waiting_for: str) -> str | None:
        """The next line without its end ("\r\n" or "\n"), None when the peer closed the
        connection between lines; MatchError when the line is not whole within `timeout` s."""
        deadline = time.monotonic() + self.timeout
        while True:
            end = self._buf.find(b"\n")
            if end >= 0:
                if end + 1 > self.max_line:
                    self._too_long()
                raw = bytes(self._buf[:end])
                del self._buf[:end + 1]
                return raw.rstrip(b"\r").decode("ascii", errors="replace")
            if len(self._buf) >= self.max_line:
                self._too_long()
            chunk = self._recv(deadline, waiting_for)
            if not chunk:
                if self._buf:
                    raise MatchError(f"{self.who} closed the connection in the middle of a line "
                                     f"{bytes(self._buf[:80])!r} (waiting for {waiting_for})")
                return None
            self._buf += chunk

    def _recv(self, deadline: float, waiting_for: str) -> bytes:
        """Some bytes before `deadline` (b"" when the peer closed)."""
        left = deadline - time.monotonic()
        try:
            if left <= 0:
                raise TimeoutError
            self.conn.settimeout(left)
            return self.conn.recv(min(65536, self.max_line + 1 - len(self._buf)))  # never far past the limit
        except (socket.timeout, TimeoutError):
            partial = f"; it sent only {bytes(self._buf[:80])!r}" if self._buf else ""
            raise MatchError(f"{self.who} sent no whole line within {self.timeout:g} s (waiting for "
                             f"{waiting_for}{partial})") from None
        finally:
            self.conn.settimeout(self.timeout)

    def _too_long(self):
        raise MatchError(f"{self.who} sent a line of more than {self.max_line} bytes "
                         f"starting {bytes(self._buf[:60])!r}; the limit is {self.max_line} bytes (an ACPC "
                         "protocol 2.0.0 state of a limit game is under 200)")


@dataclass
class Deal:
    """The cards of one deal: hole cards per position, board cards per round (round 0: none)."""

    hole: tuple[tuple[int, ...], tuple[int, ...]]
    board: tuple[tuple[int, ...], ...]


class Rules:
    """A game's rules as the dealer applies them: deals, betting through the game's betting
    tree, and each position's winnings at the end of a hand."""

    nolimit = False
    #: the actions a reply may end with, as its error names them
    expected = ", ".join(ACTIONS)

    def __init__(self, game):
        check_game(game.gd)
        self.game, self.gd = game, game.gd
        if not self.nolimit:
            self.bet = game.tree.bet
        fn = game.strength_function()
        S = self.gd.num_suits
        self._strength = fn if fn is not None else (lambda hands, board, out: acpc_strengths(hands, board, S, out))

    # the hand's betting, as the dealer loop sees it: a betting-tree node here
    def start(self):
        return 0

    def over(self, node) -> bool:
        return int(self.bet.kind[node]) in (FOLD, SHOWDOWN)

    def is_showdown(self, node) -> bool:
        return int(self.bet.kind[node]) == SHOWDOWN

    def actor(self, node) -> int:
        return int(self.bet.player[node])

    def play(self, node, token: str):
        """(next betting, legal) for a reply's action token; None when the token is no action."""
        if token not in ACTIONS or len(token) != 1:
            return None
        return self.step(node, token)

    def _loser(self, deal: Deal):
        """The position that loses the showdown of `deal`, None at a tie."""
        board = np.array([c for b in deal.board for c in b], dtype=np.int64)
        ranks = np.empty(2, dtype=np.int64)
        self._strength(np.array(deal.hole, dtype=np.int64), board, ranks)
        if ranks[0] == ranks[1]:
            return None
        return 0 if ranks[0] < ranks[1] else 1

    def deal(self, seed: int, index: int) -> Deal:
        """Deal `index` of the stream `seed`: the same cards whoever sits where."""
        gd = self.gd
        k = gd.num_hole_cards
        need = 2 * k + sum(gd.num_board_cards)
        cards = np.random.default_rng([seed, index]).permutation(gd.deck_size)[:need]
        hole = (tuple(sorted(int(c) for c in cards[:k])), tuple(sorted(int(c) for c in cards[k:2 * k])))
        board, pos = [], 2 * k
        for r in range(1, gd.num_rounds):
            n = gd.num_board_cards[r]
            board.append(tuple(int(c) for c in cards[pos:pos + n]))
            pos += n
        return Deal(hole, tuple(board))

    def step(self, node: int, letter: str) -> tuple[int, bool]:
        """The node after `letter` at decision node `node` (an illegal action is a call), and
        whether the letter was legal; a round's end moves on to the next round's first node."""
        bet = self.bet
        codes = [int(a) for a in bet.actions[node, : bet.num_actions[node]]]
        code = _CODE.get(letter, -1)
        legal = code in codes
        slot = codes.index(code if legal else CALL_A)
        child = int(bet.children[node, slot])
        if int(bet.kind[child]) == ROUND_END:
            child = int(bet.children[child, 0])
        return child, legal

    def payoffs(self, node: int, deal: Deal) -> tuple[int, int]:
        """Chips each position wins at terminal node `node` (zero-sum)."""
        bet = self.bet
        spent = bet.spent[node]
        if int(bet.kind[node]) == FOLD:
            loser = int(bet.player[node])
        else:
            assert int(bet.kind[node]) == SHOWDOWN
            loser = self._loser(deal)
            if loser is None:
                return 0, 0
        won = int(spent[loser])
        return (-won, won) if loser == 0 else (won, -won)

    def state(self, hand: int, node: int, deal: Deal, position: int, showdown: bool) -> MatchState:
        """What `position` sees: its own hole cards (both at a showdown) and the boards dealt so far."""
        rnd = int(self.bet.round[node])
        hole = tuple(h if (p == position or showdown) else () for p, h in enumerate(deal.hole))
        return MatchState(position, hand, self.bet.history[node], hole, deal.board[:rnd])


class NoLimitRules(Rules):
    """A no-limit game's rules as the ACPC server applies them (acpc_protocol.NoLimitState): any
    raise size from the minimum raise to the stack; a raise outside the legal sizes is moved to
    the nearest, an impossible raise or fold is a call (game.c's fixing), counted as illegal."""

    nolimit = True
    expected = "f, c, r<N> (a raise to N chips over the hand)"

    def start(self) -> NoLimitState:
        return NoLimitState(self.gd)

    def over(self, state) -> bool:
        return state.finished

    def is_showdown(self, state) -> bool:
        return state.showdown

    def actor(self, state) -> int:
        return state.current_player()

    def play(self, state, token: str):
        action = parse_action(token, True)
        if action is None:
            return None
        letter, size, legal = state.fix(*action)
        state.apply(letter, size)
        return state, legal

    def payoffs(self, state, deal: Deal) -> tuple[int, int]:
        return state.payoffs(self._loser(deal) if state.showdown else None)

    def state(self, hand: int, state, deal: Deal, position: int, showdown: bool) -> MatchState:
        hole = tuple(h if (p == position or showdown) else () for p, h in enumerate(deal.hole))
        return MatchState(position, hand, state.betting(), hole, deal.board[:state.round])


class NoLimitTable:
    """A no-limit game definition with what the dealer and the no-limit baselines use of a game
    (its name, ``gd``, ACPC hand ranking), without the solver's tree: a dealer of full no-limit
    hold'em needs no abstraction of it."""

    name = "acpc"

    def __init__(self, gd: NoLimitGameDef):
        self.gd = gd

    def strength_function(self):
        return None  # ACPC ranking


def make_rules(game) -> Rules:
    """The dealer's rules of `game`: a limit game's betting tree, or a no-limit game definition's."""
    return NoLimitRules(game) if isinstance(game.gd, NoLimitGameDef) else Rules(game)


@dataclass
class MatchResult:
    """Chips each seat won, hand by hand (a duplicate match: hands 2d and 2d + 1 share deal d)."""

    seat_chips: list[tuple[int, int]] = field(default_factory=list)
    illegal: list[int] = field(default_factory=lambda: [0, 0])
    duplicate: bool = True
    seconds: float = 0.0

    def per_game(self, seat: int, unit: float) -> tuple[float, float, int]:
        """(mean, 95% half-width, games) of seat's winnings per game in `unit` chips (for mbb/g:
        big blind / 1000); a duplicate match's interval is over its deal pairs."""
        x = np.array([c[seat] for c in self.seat_chips], dtype=np.float64) / unit
        if self.duplicate and x.size >= 2:
            x = x[: x.size // 2 * 2].reshape(-1, 2).mean(axis=1)
        n = x.size
        half = 1.96 * float(x.std(ddof=1)) / np.sqrt(n) if n > 1 else float("inf")
        return float(x.mean()) if n else float("nan"), half, len(self.seat_chips)


def listen_seats(host: str, ports, connect_timeout: float) -> list:
    """A listening socket per seat on `host` (port 0: any free one), each waiting up to
    `connect_timeout` s for its player; a MatchError naming the address when one cannot listen
    (the sockets opened before it are closed)."""
    listen = []
    try:
        for port in ports:
            s = socket.socket(socket.AF_INET6 if ":" in str(host) else socket.AF_INET, socket.SOCK_STREAM)
            listen.append(s)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind((host, port))
            s.listen(1)
            s.settimeout(connect_timeout)
    except (OSError, OverflowError, TypeError) as exc:
        for s in listen:
            s.close()
        raise MatchError(f"the dealer cannot listen on {host}:{port} ({exc})") from None
    return listen


def serve_seats(listen, ports, connect_timeout: float, action_timeout: float, play):
    """Accept one player on each listening socket, check each one's version line, return
    play(seats); every connection and socket is closed whatever happens (both dealers' loop)."""
    seats = []
    try:
        for i, s in enumerate(listen):
            try:
                conn, _ = s.accept()
            except (socket.timeout, TimeoutError):
                raise MatchError(f"no player connected to seat {i} (port {ports[i]}) within "
                                 f"{connect_timeout:g} s") from None
            seats.append(_Seat(conn, i, action_timeout))
        for seat in seats:
            version = seat.read("its version line")
            if version != VERSION:
                raise MatchError(f"seat {seat.index} speaks {version[:60]!r}; this dealer speaks {VERSION}")
        return play(seats)
    finally:
        for seat in seats:
            seat.close()
        for s in listen:
            s.close()


class _Seat:
    """One connected seat: lines in and out with timeouts."""

    def __init__(self, conn: socket.socket, index: int, timeout: float):
        self.conn, self.index = conn, index
        conn.settimeout(timeout)
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # one short line per message: no Nagle delay
        self.reader = LineReader(conn, f"seat {index}", timeout)

    def send(self, text: str) -> None:
        try:
            self.conn.sendall(text.encode() + b"\r\n")
        except OSError as exc:
            raise MatchError(f"seat {self.index} left the match ({exc})") from None

    def read(self, waiting_for: str) -> str:
        """The seat's next whole line, within the action timeout however its bytes arrive."""
        try:
            line = self.reader.read(waiting_for)
        except OSError as exc:
            raise MatchError(f"seat {self.index} left the match ({exc})") from None
        if line is None:
            raise MatchError(f"seat {self.index} closed its connection (waiting for {waiting_for})")
        return line

    def close(self):
        try:
            self.conn.close()
        except OSError:
            pass


class Dealer:
    """Listens on one port per seat, then deals `hands` hands between the two seats."""

    def __init__(self, game, hands: int, seed: int = 0, duplicate: bool = True, host: str = "127.0.0.1",
                 action_timeout: float = ACTION_TIMEOUT, connect_timeout: float = CONNECT_TIMEOUT,
                 ports=(0, 0)):
        """`ports`: one per seat, 1..65535, or 0 for a free port picked by the system."""
        if not _is_int(hands) or hands < 1 or (duplicate and hands % 2):
            raise SolverkitError(f"hands = {hands!r:.40} is invalid: expected an integer >= 1 (an even number in a "
                                 "duplicate match)")
        if not _is_int(seed) or seed < 0:
            raise SolverkitError(f"seed = {seed!r:.40} is invalid: expected an integer >= 0")
        action_timeout = check_timeout(action_timeout, "action_timeout")
        connect_timeout = check_timeout(connect_timeout, "connect_timeout")
        ports = list(ports)
        if len(ports) != 2:
            raise SolverkitError(f"ports = {ports!r:.60} is invalid: expected one port per seat (2)")
        ports = [check_port(p, f"the dealer's seat {i}", allow_zero=True) for i, p in enumerate(ports)]
        host = check_host(host, "the dealer's --host")  # '[::1]' binds ::1
        if ports[0] and ports[0] == ports[1]:
            raise SolverkitError(f"ports = {ports}: the two seats need different ports")
        self.rules = make_rules(game)
        self.hands, self.seed, self.duplicate = hands, seed, duplicate
        self.action_timeout, self.connect_timeout = action_timeout, connect_timeout
        self._listen = listen_seats(host, ports, connect_timeout)
        self.ports = [s.getsockname()[1] for s in self._listen]

    def run(self) -> MatchResult:
        """Accept both seats, play the match, close the connections."""
        return serve_seats(self._listen, self.ports, self.connect_timeout, self.action_timeout, self._play)

    def _play(self, seats) -> MatchResult:
        rules, gd = self.rules, self.rules.gd
        result = MatchResult(duplicate=self.duplicate)
        start = time.perf_counter()
        for hand in range(self.hands):
            deal = rules.deal(self.seed, hand // 2 if self.duplicate else hand)
            swap = hand % 2  # seat s plays position s ^ swap: positions alternate, as in ACPC matches
            node = rules.start()
            while True:
                terminal = rules.over(node)
                showdown = rules.is_showdown(node)
                lines = [rules.state(hand, node, deal, s ^ swap, showdown).line(gd) for s in (0, 1)]
                for s, seat in enumerate(seats):
                    seat.send(lines[s])
                if terminal:
                    break
                s = rules.actor(node) ^ swap
                reply = seats[s].read(f"an action at {lines[s]!r}")
                played = rules.play(node, reply[len(lines[s]) + 1:]) if reply.startswith(lines[s] + ":") else None
                if played is None:
                    raise MatchError(f"seat {s} answered {reply[:120]!r} to {lines[s]!r}; expected the state "
                                     f"followed by ':' and one of {rules.expected}")
                node, legal = played
                result.illegal[s] += not legal
            won = rules.payoffs(node, deal)
            result.seat_chips.append((won[0 ^ swap], won[1 ^ swap]))
        result.seconds = time.perf_counter() - start
        return result


def play_agent(player, host: str, port: int, seed: int = 0, timeout: float = ACTION_TIMEOUT,
               log=None) -> dict:
    """Connect to a dealer at host:port and play `player` until the dealer closes the
    connection; returns {"hands": ..., "actions": ...}. A line that is not protocol 2.0.0, or a
    state the strategy does not cover, raises ProtocolMismatch; a dealer that sends no whole line
    within `timeout` seconds of the last (however its bytes trickle in), or a line over
    MAX_LINE bytes, raises MatchError."""
    rng = np.random.default_rng(seed)
    port = check_port(port, f"the dealer's address {host}:{port}")
    timeout = check_timeout(timeout, "timeout")
    try:
        conn = socket.create_connection((host, port), timeout=timeout)
    except (OSError, UnicodeError) as exc:  # an unknown host, a refused port, a host name too long
        raise MatchError(f"cannot connect to a dealer at {host}:{port}: {exc}") from None
    conn.settimeout(timeout)
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    reader = LineReader(conn, f"the dealer at {host}:{port}", timeout)
    hands, hand, actions, last = 0, None, 0, None  # a count, not a set: a long match stays small
    try:
        conn.sendall(VERSION.encode() + b"\r\n")
        while True:
            line = reader.read("its next match state" if last is None else f"the state after {last!r}")
            if line is None:
                break  # the match is over
            if not line or line[0] in "#;":
                continue
            state = parse_matchstate(line, player.game.gd)
            if state.hand != hand:
                hands, hand = hands + 1, state.hand
            if player.to_act(state):
                conn.sendall(f"{line}:{player.act(state, rng)}\r\n".encode())
                actions += 1
            last = line
    except OSError as exc:
        raise MatchError(f"lost the dealer at {host}:{port}: {exc} (last state {last!r})") from None
    finally:
        conn.close()
    if log:
        log(f"played {hands} hands ({actions} actions)")
    return {"hands": hands, "actions": actions}


def match_with_agents(dealer, players, seeds, timeout: float):
    """dealer.run() with player i an agent (seed seeds[i]) of its own thread on dealer.ports[i]
    over loopback TCP; an agent's error is raised rather than the match error it causes (both
    dealers' local matches)."""
    errors = []

    def agent(player, port, agent_seed):
        try:
            play_agent(player, "127.0.0.1", port, seed=agent_seed, timeout=timeout)
        except Exception as exc:  # reported by the match
            errors.append(exc)

    threads = [threading.Thread(target=agent, args=(p, port, agent_seed), daemon=True)
               for p, port, agent_seed in zip(players, dealer.ports, seeds)]
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
