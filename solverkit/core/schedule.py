"""When the solver loop evaluates: every N iterations, the log schedule, every so many seconds
of solve time, or every so many touched nodes (``[solver] eval_every``)."""

from __future__ import annotations

import math

from ..errors import ConfigError
from .config import parse_schedule

POINTS_PER_DECADE = 20


def log_schedule(t: int) -> bool:
    """True at iterations 1..20 and then at about 20 log-spaced iterations per decade."""
    if t <= POINTS_PER_DECADE:
        return True
    return math.floor(POINTS_PER_DECADE * math.log10(t)) > math.floor(POINTS_PER_DECADE * math.log10(t - 1))


class EvalSchedule:
    """An evaluation schedule; ``due`` is asked after every step (one iteration or a block of
    sampled iterations) and ``horizon`` tells how far a block may run without skipping a due
    iteration (time and node schedules are due at the first step end past each multiple)."""

    def __init__(self, every):
        self.kind, self.period = parse_schedule(every) or ("log", 0)
        self.next = None

    def start(self, seconds: float, nodes) -> None:
        """Place the next time or node mark after a (resumed) run's current totals."""
        if self.kind == "seconds":
            self.next = (math.floor(seconds / self.period) + 1) * self.period
        elif self.kind == "nodes":
            self.next = (math.floor((nodes or 0) / self.period) + 1) * self.period

    def due(self, t: int, seconds: float, nodes, game_name: str = "") -> bool:
        if self.kind == "iterations":
            return t % self.period == 0
        if self.kind == "log":
            return log_schedule(t)
        if self.kind == "nodes" and nodes is None:
            raise ConfigError(f"[solver] eval_every by nodes: game {game_name!r} does not count the nodes its passes "
                              "visit; use a number of iterations or a time (\"30s\")")
        value = seconds if self.kind == "seconds" else nodes
        if value < self.next:
            return False
        self.next = (math.floor(value / self.period) + 1) * self.period
        return True

    def horizon(self, t: int) -> int | None:
        """The next iteration after t that is due (iteration and log schedules), else None."""
        if self.kind == "iterations":
            return (t // self.period + 1) * self.period
        if self.kind != "log":
            return None
        if t + 1 <= POINTS_PER_DECADE:
            return t + 1
        nxt = max(t + 1, math.ceil(10 ** ((math.floor(POINTS_PER_DECADE * math.log10(t)) + 1) / POINTS_PER_DECADE)) - 1)
        while not log_schedule(nxt):
            nxt += 1
        return nxt
