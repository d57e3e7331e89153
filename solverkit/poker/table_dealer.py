"""The dealer of an N-seat table: deals every deal once per seating (duplicate) and sums each player's chips."""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field

import numpy as np

from ..core.address import check_host, check_port
from ..errors import SolverkitError
from .acpc_protocol import MatchState
from .dealer import ACTION_TIMEOUT, CONNECT_TIMEOUT, MatchError, _is_int, check_timeout, listen_seats, serve_seats
from .nplayer import LimitState, TableDef, deal_cards, strengths


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
        self._listen = listen_seats(host, ports, self.connect_timeout)
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
