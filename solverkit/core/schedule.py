"""When the solver loop evaluates: every N iterations, the log schedule, every so many seconds
of solve time, or every so many touched nodes (``[solver] eval_every``); with a target and no
``eval_every``, where the exploitability curve predicts the target (:func:`target_next`)."""

from __future__ import annotations

import math

from ..errors import ConfigError
from .config_text import parse_schedule

POINTS_PER_DECADE = 20


def log_schedule(t: int) -> bool:
    """True at iterations 1..20 and then at about 20 log-spaced iterations per decade."""
    if t <= POINTS_PER_DECADE:
        return True
    return math.floor(POINTS_PER_DECADE * math.log10(t)) > math.floor(POINTS_PER_DECADE * math.log10(t - 1))


def target_next(t: int, points: list[tuple[int, float]], goal: float) -> int:
    """The next iteration to evaluate a run that stops at `goal`, after evaluations `points`
    ((iteration, value), the last at `t`): where the line through the last two points on log
    axes (CFR's curves are near power laws) crosses the goal, at least t + 1 and at most 2t (a
    bad fit costs at most one doubling); t + 1 + t // 4 when the value did not fall (noise)."""
    if len(points) < 2 or goal <= 0:
        return 2 * t
    (t0, v0), (t1, v1) = points[-2], points[-1]
    if not (v1 > goal and 0 < v1 < v0 and t0 < t1) or not all(map(math.isfinite, (v0, v1))):
        return t + 1 + t // 4
    slope = math.log(v0 / v1) / math.log(t1 / t0)
    ahead = math.log(v1 / goal) / slope  # log(t* / t1)
    if ahead >= math.log(2.0):
        return 2 * t
    return min(2 * t, max(t + 1, math.ceil(t1 * math.exp(ahead))))


class EvalSchedule:
    """An evaluation schedule; ``due`` is asked after every step (one iteration or a block of
    sampled iterations) and ``horizon`` tells how far a block may run without skipping a due
    iteration (time and node schedules are due at the first step end past each multiple).

    ``goals`` ((column, target) pairs, the run's targets): with ``eval_every`` left at 0 a run
    with a target evaluates at iterations 1, 2, 4, ... and, once two evaluations predict where
    the curve crosses a target, there (kind "target", :func:`target_next`): an evaluation
    costs about an iteration, and the log schedule's ~20 per decade spent a fifth of a spot
    solve on them. The decisions depend on the evaluated rows only, so a resumed run that
    replays its rows through :meth:`observed` evaluates where a straight run would.
    ``eval_every = "log"`` keeps the log schedule with a target (what studies run)."""

    def __init__(self, every, goals=(), first: int = 1):
        parsed = parse_schedule(every)
        self.goals = [(column, float(goal)) for column, goal in goals if goal and goal > 0]
        self.kind, self.period = parsed or (("target", 0) if self.goals else ("log", 0))
        self.next = None
        self.points = {column: [] for column, _ in self.goals}
        #: the target schedule's first evaluation: the first iteration the average holds (before
        #: it, delayed averaging's output is the uniform strategy, whose flat curve says nothing)
        self.first = max(1, int(first))
        self.next_at = self.first

    def observed(self, row) -> None:
        """An evaluated metrics row: the target schedule places its next evaluation."""
        if self.kind != "target":
            return
        t = int(row["iteration"])
        nxt = 2 * t
        for column, goal in self.goals:
            value = row.get(column)
            if value is None:
                continue
            points = self.points[column]
            points.append((t, float(value)))
            nxt = min(nxt, target_next(t, points, goal))
        self.next_at = max(t + 1, nxt)

    def replay(self, rows) -> None:
        """Start again from a (resumed or rolled back) run's metrics rows."""
        self.points = {column: [] for column, _ in self.goals}
        self.next_at = self.first
        for row in rows:
            self.observed(row)

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
        if self.kind == "target":
            return t >= self.next_at
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
        if self.kind == "target":
            return max(t + 1, self.next_at)
        if self.kind != "log":
            return None
        if t + 1 <= POINTS_PER_DECADE:
            return t + 1
        nxt = max(t + 1, math.ceil(10 ** ((math.floor(POINTS_PER_DECADE * math.log10(t)) + 1) / POINTS_PER_DECADE)) - 1)
        while not log_schedule(nxt):
            nxt += 1
        return nxt
