"""Curves of a study across seeds: each run's metrics as a step function, combined over *all*
seeds (a run that stopped keeps its last value), their geometric mean and min-max band.

Exploitability curves are drawn on log axes, where the arithmetic mean is dominated by the
worst seed; the geometric mean (the mean of the logarithms) is what a log plot shows as the
middle. A value of 0 (an exact equilibrium) is floored at ``FLOOR`` before taking logarithms.
"""

from __future__ import annotations

import math

#: the smallest value a log-scale mean or plot takes (an exact 0 would have no logarithm)
FLOOR = 1e-300


def points(rows: list[dict], x: str, y: str) -> list[tuple[float, float]]:
    """(x, y) of every metrics row that has both (rows of a run, in order)."""
    out = []
    for row in rows:
        vx, vy = row.get(x), row.get(y)
        if vx is None or vy is None or vx == "" or vy == "":
            continue
        vx, vy = float(vx), float(vy)
        if math.isfinite(vx) and math.isfinite(vy):
            out.append((vx, vy))
    return out


def value_at(curve: list[tuple[float, float]], at: float) -> float | None:
    """The curve's last value at or before `at` (carried forward after its last point); None
    before its first point."""
    value = None
    for x, y in curve:
        if x > at:
            break
        value = y
    return value


#: how a study averages its seeds' curves ([study] mean)
MEANS = ("geometric", "arithmetic")


def combine(curves: list[list[tuple[float, float]]], how: str = "geometric") -> list[tuple[float, float, float, float]]:
    """(x, mean, min, max) over every curve at each x where all curves have begun; the mean is
    geometric (the middle of a log axis) or arithmetic (the papers' "averaged over games").

    Every seed counts at every x: a run that stopped early (it reached its target, or its
    iteration cap) keeps its last value, so the mean never silently drops to the seeds that are
    still running."""
    curves = [c for c in curves if c]
    if not curves:
        return []
    start = max(c[0][0] for c in curves)
    xs = sorted({x for c in curves for x, _ in c if x >= start})
    out = []
    for at in xs:
        vals = [value_at(c, at) for c in curves]
        if how == "arithmetic":
            middle = sum(vals) / len(vals)
        else:
            middle = math.exp(sum(math.log(max(v, FLOOR)) for v in vals) / len(vals))
        out.append((at, middle, min(vals), max(vals)))
    return out


def first_reach(curve: list[tuple[float, float]], target: float) -> float | None:
    """The first x at which the curve is at or below `target` (None: never)."""
    return next((x for x, y in curve if y <= target), None)


def mean(values: list[float]) -> float | None:
    """Arithmetic mean (None for no values)."""
    return sum(values) / len(values) if values else None
