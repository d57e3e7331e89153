"""Curves of a study across seeds: each run's metrics as a step function, combined over *all*
seeds (a run that stopped keeps its last value), their geometric mean, a 95% confidence band
of that mean and the min-max band.

Exploitability curves are drawn on log axes, where the arithmetic mean is dominated by the
worst seed; the geometric mean (the mean of the logarithms) is what a log plot shows as the
middle. A value of 0 (an exact equilibrium) is floored at ``FLOOR`` before taking logarithms.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

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


#: how a study averages its seeds' curves ([study] mean)
MEANS = ("geometric", "arithmetic")


def aligned(curves: list[list[tuple[float, float]]]) -> list[tuple[float, list[float]]]:
    """(x, every curve's value at x) at each x where all curves have begun, each curve carried
    forward past its last point; one sweep per curve (curves hold thousands of points)."""
    curves = [c for c in curves if c]
    if not curves:
        return []
    start = max(c[0][0] for c in curves)
    xs = sorted({x for c in curves for x, _ in c if x >= start})
    pos = [0] * len(curves)
    out = []
    for at in xs:
        vals = []
        for i, c in enumerate(curves):
            while pos[i] + 1 < len(c) and c[pos[i] + 1][0] <= at:
                pos[i] += 1
            vals.append(c[pos[i]][1])
        out.append((at, vals))
    return out


def combine(curves: list[list[tuple[float, float]]], how: str = "geometric") -> list[tuple[float, float, float, float]]:
    """(x, mean, min, max) over every curve at each x where all curves have begun; the mean is
    geometric (the middle of a log axis) or arithmetic (the papers' "averaged over games").

    Every seed counts at every x: a run that stopped early (it reached its target, or its
    iteration cap) keeps its last value, so the mean never silently drops to the seeds that are
    still running."""
    return [(b.x, b.mean, b.min, b.max) for b in bands(curves, how)]


def first_reach(curve: list[tuple[float, float]], target: float) -> float | None:
    """The first x at which the curve is at or below `target` (None: never)."""
    return next((x for x, y in curve if y <= target), None)


def mean(values: list[float]) -> float | None:
    """Arithmetic mean (None for no values)."""
    return sum(values) / len(values) if values else None


#: two-sided 95% quantiles of Student's t for 1..30 degrees of freedom
_T975 = (12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004, 2.262157, 2.228139,
         2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905, 2.109816, 2.100922, 2.093024, 2.085963,
         2.079614, 2.073873, 2.068658, 2.063899, 2.059539, 2.055529, 2.051831, 2.048407, 2.045230, 2.042272)


def t975(df: int) -> float:
    """Student's t quantile for a two-sided 95% interval with `df` degrees of freedom (a table
    to 30, then the Cornish-Fisher expansion, within 1e-4 of it: no scipy needed at run time)."""
    if df < 1:
        raise ValueError(f"degrees of freedom {df} < 1")
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959964
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)


@dataclass(frozen=True)
class Band:
    """The seeds of one curve at one x: their mean (geometric or arithmetic), the 95%
    confidence interval of that mean (Student's t over the seeds, on the logarithms for the
    geometric mean; the mean itself for one seed) and their min and max."""

    x: float
    mean: float
    ci_low: float
    ci_high: float
    min: float
    max: float
    seeds: int


def mean_interval(values: list[float], how: str = "geometric") -> tuple[float, float, float]:
    """(mean, ci_low, ci_high) of `values`: geometric (computed on the logarithms, values
    floored at FLOOR) or arithmetic, with the two-sided 95% Student's t interval of the mean."""
    n = len(values)
    if n == 1:  # the seed's own value (exp(log(v)) may differ from v in its last bit)
        return values[0], values[0], values[0]
    data = [math.log(max(v, FLOOR)) for v in values] if how == "geometric" else list(values)
    centre = sum(data) / n
    half = 0.0
    if n > 1:
        sd = math.sqrt(sum((d - centre) ** 2 for d in data) / (n - 1))
        half = t975(n - 1) * sd / math.sqrt(n)
    if how == "geometric":
        return math.exp(centre), math.exp(centre - half), math.exp(centre + half)
    return centre, centre - half, centre + half


def bands(curves: list[list[tuple[float, float]]], how: str = "geometric") -> list[Band]:
    """A :class:`Band` at each x where every curve has begun (a curve that stopped keeps its
    last value, as in :func:`combine`): what a study plots and writes to ``<game>_curves.csv``."""
    out = []
    for at, vals in aligned(curves):
        middle, ci_low, ci_high = mean_interval(vals, how)
        out.append(Band(at, middle, ci_low, ci_high, min(vals), max(vals), len(vals)))
    return out


def plain(value, digits: int | None = None) -> str:
    """A number as a CSV cell, written plainly: a whole number as an integer (10170300, not
    1.01703e+07), any other float in full precision (repr) or to `digits` significant digits
    (never in e+ notation: 12345678.9 to 6 digits is 12345679), None as ""."""
    if value is None:
        return ""
    if isinstance(value, bool):
        raise TypeError(f"{value!r} is not a number")
    if isinstance(value, int):
        return str(value)
    value = float(value)
    if value.is_integer() and abs(value) < 2 ** 53:
        return str(int(value))
    text = repr(value) if digits is None else f"{value:.{digits}g}"
    return f"{value:.0f}" if "e+" in text and math.isfinite(value) else text
