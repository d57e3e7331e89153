"""What a run says on stderr: the progress bar and its text, the stop targets and why the run stopped."""

from __future__ import annotations

import math
import time

from .metrics import NASH_CONV
from .units import units_of


def say(line: str) -> None:
    """One line on stderr, now."""
    import sys

    print(line, file=sys.stderr, flush=True)


def _native(game, value: float) -> str:
    label = getattr(game, "unit_name", "")
    return f"{value:.3g}" + (f" {label}" if label else "")


def target_text(game, target: float, unit_targets: dict[str, float]) -> str:
    """The stop targets of a run as text (``1 mbb/g``, ``0.001 chips``); "" when none is set."""
    parts = [f"{unit_targets[u.target_key]:g} {u.name}" for u in units_of(game)
             if unit_targets.get(u.target_key, 0) > 0]
    if target > 0:
        parts.insert(0, _native(game, target))
    return " or ".join(parts)


def progress_postfix(game, row: dict, targets: str = "") -> str:
    """The progress bar's text after a metrics row: exploitability in the game's display units
    (native too) and the target, e.g. ``expl 0.0019 chips = 0.95 mbb/g (target 1 mbb/g)``."""
    text = "expl " + _native(game, row["exploitability"])
    if NASH_CONV in row:
        text = "NashConv " + _native(game, row[NASH_CONV])
    text += "".join(f" = {row[u.column]:.3g} {u.name}" for u in units_of(game) if u.column in row)
    return text + (f" (target {targets})" if targets else "")


def stop_reason(game, reached_row, target: float, unit_targets: dict[str, float], cap: int, done: int) -> str:
    """Why a run with a target stopped: ``target reached: exploitability 0.95 mbb/g <= 1 mbb/g
    at iteration 875`` (the target met, in its unit) or ``iteration cap reached (N) before the
    target (1 mbb/g)``; "" for a run without a target."""
    targets = target_text(game, target, unit_targets)
    if not targets:
        return ""
    if reached_row is None:
        return f"iteration cap reached ({done}) before the target ({targets})" if done >= cap else ""
    at = f"at iteration {reached_row['iteration']}"
    for u in units_of(game):
        limit = unit_targets.get(u.target_key, 0)
        if limit > 0 and reached_row.get(u.column, math.inf) <= limit:
            return f"target reached: exploitability {reached_row[u.column]:.3g} {u.name} <= {limit:g} {u.name} {at}"
    if game.num_players != 2:
        return f"target reached: NashConv {_native(game, reached_row[NASH_CONV])} <= {_native(game, target)} {at}"
    return (f"target reached: exploitability {_native(game, reached_row['exploitability'])} "
            f"<= {_native(game, target)} {at}")



def target_fraction(first: dict, row: dict, goals) -> float:
    """How far `row` has come toward the nearest of `goals` ((metrics column, target) pairs) from
    the first evaluation `first`, on a log scale (exploitability falls by factors): 0 at the
    first row's value, 1 at the target; the largest over the goals."""
    best = 0.0
    for column, goal in goals:
        start, now = first.get(column), row.get(column)
        if now is None or start is None:
            continue
        if now <= goal:
            return 1.0
        if start > goal and now > 0:
            best = max(best, min(1.0, max(0.0, math.log(start / now) / math.log(start / goal))))
    return best


class Progress:
    """The run's progress bar on stderr. Without a target it counts iterations toward
    ``[solver] iterations``. With one the cap is not the goal: the bar fills toward the target
    (:func:`target_fraction`, after each evaluation) and ends full when it is met, with the
    iteration, the cap and the rate beside it; no time left is estimated."""

    STEPS = 1000  # resolution of the bar toward a target

    def __init__(self, cap: int, iteration: int, goals, metrics):
        from tqdm.std import tqdm  # the class tqdm exports, without its CLI and version modules (8 ms)

        self.cap, self.goals, self.iteration = cap, list(goals), iteration
        self.first = None
        self.text = ""
        self.t0 = time.perf_counter()
        self.start_iteration = iteration
        if not self.goals:
            self.bar = tqdm(total=cap, initial=iteration, unit="it", dynamic_ncols=True, mininterval=0.5)
            return
        self.bar = tqdm(total=self.STEPS, initial=0, dynamic_ncols=True, mininterval=0.5, desc="toward target",
                        bar_format="{desc}: {percentage:3.0f}%|{bar}| [{elapsed}{postfix}]")
        self.rewind(iteration, metrics)

    def measured(self, row: dict, text: str) -> None:
        """A metrics row was written: its exploitability (`text`) beside the bar, and with a target
        the bar's fill."""
        if not self.goals:
            self.bar.set_postfix_str(text, refresh=False)
            return
        self.first = self.first or row
        self.text = text
        self.bar.n = int(self.STEPS * target_fraction(self.first, row, self.goals))
        self._label()

    def advance(self, iteration: int, reached: bool = False) -> None:
        """The run is at `iteration`; `reached`: the target is met and the bar ends full here."""
        if not self.goals:
            if reached:  # the bar ends here, full
                self.bar.total = iteration
            self.bar.update(iteration - self.bar.n)
            return
        self.iteration = iteration
        if reached:
            self.bar.n = self.STEPS
        self._label()

    def rewind(self, iteration: int, metrics) -> None:
        """The run went back to `iteration` (a checkpoint) whose metrics rows are `metrics`."""
        self.iteration = iteration
        if not self.goals:
            self.bar.n = iteration
            self.bar.total = max(self.bar.total, self.cap)
            self.bar.refresh()
            return
        self.first = metrics[0] if metrics else None
        self.bar.n = int(self.STEPS * target_fraction(self.first, metrics[-1], self.goals)) if metrics else 0
        self.text = ""
        self._label()

    def _label(self):
        spent = time.perf_counter() - self.t0
        done = self.iteration - self.start_iteration
        rate = f", {done / spent:.3g} it/s" if spent > 0 and done > 0 else ""
        self.bar.set_postfix_str(f"iteration {self.iteration}/{self.cap} (cap){rate}"
                                 + (f", {self.text}" if self.text else ""), refresh=False)
        self.bar.update(0)  # redrawn at tqdm's pace

    def close(self):
        self.bar.close()

