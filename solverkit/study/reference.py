"""A study's reference numbers: published values (a paper's table, its authors' curves) beside the
study's own at the same iterations, a verdict per cell, written to ``reference.csv`` and printed.

``[reference]`` names a CSV file (columns ``game``, ``assembly``, ``iteration``, ``value``, and
optionally ``low`` and ``high``: the reference's spread) whose games and assemblies are the study's
own names; ``source`` says where the numbers come from, ``measure`` what they measure
(``exploitability``: solverkit's, the players' mean best-response gain; ``nash_conv``: their sum)
and ``unit`` the display unit they are in ("" for the game's own). A cell matches when the
reference (its [low, high], or its value) meets the study's seeds' range widened by ``tolerance``
either way: for one seed, the study's value within ``tolerance`` times the reference."""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path

from ..core.params import Param
from ..core.schedule import log_schedule
from ..errors import ConfigError, choices, shown
from .stats import FLOOR, mean_interval, plain

REFERENCE_KEYS = ("file", "source", "tolerance", "measure", "unit")
#: what a reference value measures: solverkit's exploitability (NashConv / players) or NashConv
MEASURES = ("exploitability", "nash_conv")
REQUIRED_COLUMNS = ("game", "assembly", "iteration", "value")
OPTIONAL_COLUMNS = ("low", "high")
#: the default tolerance: a study's value within 1.25x of the reference (either way) matches
TOLERANCE = 1.25
#: the largest reference file read (a table of values, not curves of every iteration)
MAX_BYTES = 4 << 20

_TOLERANCE = Param("float", None, min=1.0)
_TEXT = Param("str", None)
_MEASURE = Param("str", None, choices=MEASURES)


@dataclass(frozen=True)
class Point:
    """One reference value: `value` (within [low, high] where the source gives a spread) of an
    assembly on a game at an iteration."""

    game: str
    assembly: str
    iteration: int
    value: float
    low: float | None = None
    high: float | None = None


@dataclass
class Reference:
    source: str
    tolerance: float
    measure: str
    unit: str
    points: list[Point]


def load_reference(table, base: Path, runs, where: str = "[reference]") -> tuple[Reference, list[str]]:
    """The study's ``[reference]`` table read and its file checked against the study's runs
    (each point's game and assembly run, its iteration evaluated); returns it and the notes to
    show (points past a ``--iterations`` cap are left out, with a note)."""
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table (e.g. [reference] file = \"paper.csv\"), got {shown(table)}")
    for key in table:
        if key not in REFERENCE_KEYS:
            raise ConfigError(f"unknown key {shown(key)} in {where}; valid: {choices(REFERENCE_KEYS)}")
    if "file" not in table:
        raise ConfigError(f"{where} has no 'file': the CSV of reference values (columns "
                          f"{', '.join(REQUIRED_COLUMNS)}[, low, high])")
    path = (base / Path(_TEXT.check(table["file"], f"{where} file")).expanduser()).resolve()
    source = _TEXT.check(table.get("source", path.name), f"{where} source")
    tolerance = _TOLERANCE.check(table.get("tolerance", TOLERANCE), f"{where} tolerance")
    measure = _MEASURE.check(table.get("measure", "exploitability"), f"{where} measure")
    unit = _TEXT.check(table.get("unit", ""), f"{where} unit")
    points = _read_points(path, where)
    notes = []
    by_pair = {}
    for run in runs:
        by_pair.setdefault((run.game, run.assembly), run)
    games = list(dict.fromkeys(r.game for r in runs))
    kept, capped = [], 0
    for i, p in enumerate(points, start=2):
        at = f"{path.name} line {i}"
        if p.game not in games:
            raise ConfigError(f"{at}: game {shown(p.game)} is not a game of the study; valid: {choices(games)}")
        run = by_pair.get((p.game, p.assembly))
        if run is None:
            valid = [a for g, a in by_pair if g == p.game]
            raise ConfigError(f"{at}: assembly {shown(p.assembly)} does not run on game {p.game!r}; valid: "
                              f"{choices(valid)}")
        if unit and unit not in run.units:
            raise ConfigError(f"{where} unit = {unit!r}: game {p.game!r} has no display unit {unit!r}; its units: "
                              f"{choices(run.units) if run.units else 'none'} (or \"\" for its own)")
        if p.iteration > run.iterations:
            if run.capped:
                capped += 1
                continue
            raise ConfigError(f"{at}: iteration {p.iteration} is past the {run.iterations} iterations that "
                              f"{p.assembly!r} runs on {p.game!r}; raise the study's or the game's iterations")
        why = _not_evaluated(run, p.iteration)
        if why:
            raise ConfigError(f"{at}: {p.assembly!r} on {p.game!r} is not evaluated at iteration {p.iteration}: {why}")
        kept.append(p)
    if capped:
        notes.append(f"reference: {capped} of {len(points)} values are past the --iterations cap and are not compared")
    return Reference(source, tolerance, measure, unit, kept), notes


def _read_points(path: Path, where: str) -> list[Point]:
    from ..core.small_file import read_small_file

    data = read_small_file(path, MAX_BYTES,
                           lambda size: f"{where} file = {str(path)!r} holds {size} bytes; a reference file is a "
                                        f"table of at most {MAX_BYTES} bytes",
                           lambda why: f"{where} file = {str(path)!r}: cannot read it ({why})")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError(f"{where} file = {str(path)!r} is not UTF-8 text: expected a CSV file") from None
    rows = list(csv.reader(text.splitlines()))
    header = [h.strip() for h in rows[0]] if rows else []
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise ConfigError(f"{path.name}: no column {', '.join(missing)}; a reference file has the columns "
                          f"{', '.join(REQUIRED_COLUMNS)} and optionally {', '.join(OPTIONAL_COLUMNS)}, got "
                          f"{', '.join(header) or 'none'}")
    extra = [c for c in header if c not in REQUIRED_COLUMNS + OPTIONAL_COLUMNS]
    if extra:
        raise ConfigError(f"{path.name}: unknown column {shown(extra[0])}; valid: "
                          f"{choices(REQUIRED_COLUMNS + OPTIONAL_COLUMNS)}")
    col = {c: header.index(c) for c in header}
    points, seen = [], set()
    for n, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise ConfigError(f"{path.name} line {n}: {len(row)} cells for {len(header)} columns")
        cell = {c: row[i].strip() for c, i in col.items()}
        at = f"{path.name} line {n}"
        iteration = _number(cell["iteration"], f"{at} iteration", integer=True)
        value = _number(cell["value"], f"{at} value")
        low = _number(cell["low"], f"{at} low") if cell.get("low") else None
        high = _number(cell["high"], f"{at} high") if cell.get("high") else None
        if (low is None) != (high is None):
            raise ConfigError(f"{at}: give both low and high (the reference's spread) or neither")
        if low is not None and not low <= value <= high:
            raise ConfigError(f"{at}: value {cell['value']} is outside its spread [{cell['low']}, {cell['high']}]")
        key = (cell["game"], cell["assembly"], iteration)
        if key in seen:
            raise ConfigError(f"{at}: a second value for {cell['assembly']!r} on {cell['game']!r} at iteration "
                              f"{iteration}")
        seen.add(key)
        points.append(Point(cell["game"], cell["assembly"], iteration, value, low, high))
    if not points:
        raise ConfigError(f"{path.name}: no reference values (a header and no rows)")
    return points


def _number(text: str, where: str, integer: bool = False):
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if integer:
        if not (math.isfinite(value) and value.is_integer() and 1 <= value < 2**62):
            raise ConfigError(f"{where} = {text!r:.40} is invalid: expected a whole number of iterations >= 1")
        return int(value)
    if not (math.isfinite(value) and value > 0):
        raise ConfigError(f"{where} = {text!r:.40} is invalid: expected a positive number")
    return value


def _not_evaluated(run, t: int) -> str:
    """Why the run's evaluation schedule skips iteration t ("" when it evaluates there: the
    last iteration always, the log schedule's iterations, every N's multiples)."""
    from ..core.config_text import parse_schedule

    if t == run.iterations:
        return ""
    kind, period = parse_schedule(run.raw["solver"].get("eval_every", "log")) or ("log", 0)
    if kind == "log":
        return "" if log_schedule(t) else ("the log schedule skips it (it evaluates at 1..20 and then about 20 "
                                           "iterations a decade); set eval_every to a divisor of it")
    if kind == "iterations":
        return "" if t % period == 0 else f"eval_every = {period} does not divide it"
    return f"eval_every {run.raw['solver'].get('eval_every')!r} evaluates by {kind}; give a number of iterations"


REFERENCE_COLUMNS = ("game", "assembly", "iteration", "solverkit", "solverkit_min", "solverkit_max", "seeds",
                     "reference", "reference_low", "reference_high", "ratio", "verdict", "measure", "unit", "source")


def compare(reference: Reference, study, results) -> list[dict]:
    """A row per reference point: the study's value there (the seeds' mean, as ``[study] mean``
    says, and their range), the ratio to the reference and the verdict: "match", "higher" or
    "lower" (outside the tolerance and the spread), or "no value" (the run stopped before it)."""
    from .tables import groups

    runs_of = groups(study)
    column = f"exploitability_{reference.unit}" if reference.unit else "exploitability"
    curves: dict[str, dict[float, float]] = {}  # a run's evaluations by iteration, read once
    rows = []
    for p in reference.points:
        runs = runs_of[(p.assembly, p.game)]
        factor = float(runs[0].players) if reference.measure == "nash_conv" else 1.0
        values = []
        for run in runs:
            if run.slug not in curves:
                curves[run.slug] = dict(results[run.slug].curve("iteration", column))
            at = curves[run.slug].get(p.iteration)
            if at is not None:
                values.append(at * factor)
        row = {"game": p.game, "assembly": p.assembly, "iteration": p.iteration, "seeds": f"{len(values)}/{len(runs)}",
               "reference": plain(p.value), "reference_low": plain(p.low), "reference_high": plain(p.high),
               "measure": reference.measure, "unit": reference.unit, "source": reference.source}
        if len(values) < len(runs):
            row.update(solverkit="", solverkit_min="", solverkit_max="", ratio="", verdict="no value")
        else:
            middle = mean_interval(values, study.mean)[0]
            ratio = max(middle, FLOOR) / p.value
            row.update(solverkit=plain(middle, 6), solverkit_min=plain(min(values), 6),
                       solverkit_max=plain(max(values), 6), ratio=plain(ratio, 4),
                       verdict=verdict(ratio, min(values), max(values), p, reference.tolerance))
        rows.append(row)
    return rows


def verdict(ratio: float, lo: float, hi: float, p: Point, tolerance: float) -> str:
    """"match" when the reference's spread ([low, high], or its value alone) meets the seeds'
    range [lo, hi] widened by the tolerance either way (one seed: the ratio within the
    tolerance); else "higher" or "lower", as the seeds' mean stands to the reference."""
    ref_lo, ref_hi = (p.low, p.high) if p.low is not None else (p.value, p.value)
    if ref_lo <= hi * tolerance and ref_hi >= lo / tolerance:
        return "match"
    return "higher" if ratio > 1 else "lower"


#: a comparison longer than this prints the values that do not match only (reference.csv has all)
PRINT_ALL = 40


def text_table(reference: Reference, rows: list[dict]) -> str:
    """The comparison as the study command prints it (every value, or past :data:`PRINT_ALL` rows
    the ones that do not match), with a count of the matches."""
    lines = [f"reference: {reference.source} ({reference.measure}"
             f"{', ' + reference.unit if reference.unit else ''}; match: within {reference.tolerance:g}x"
             f"{' or the spread' if any(p.low is not None for p in reference.points) else ''})",
             f"{'game':<14} {'assembly':<16} {'iteration':>9} {'solverkit':>12} {'reference':>12} {'ratio':>7}  verdict"]
    shown_rows = rows if len(rows) <= PRINT_ALL else [r for r in rows if r["verdict"] != "match"]
    if len(shown_rows) < len(rows):
        lines[0] += f"; the {len(rows) - len(shown_rows)} values that match are in reference.csv"
    for r in shown_rows:
        sk = f"{float(r['solverkit']):.4g}" if r["solverkit"] else "-"
        lines.append(f"{r['game']:<14} {r['assembly']:<16} {r['iteration']:>9} {sk:>12} "
                     f"{float(r['reference']):>12.4g} {r['ratio'] or '-':>7}  {r['verdict']}")
    matched = sum(r["verdict"] == "match" for r in rows)
    lines.append(f"{matched} of {len(rows)} reference values matched")
    return "\n".join(lines)
