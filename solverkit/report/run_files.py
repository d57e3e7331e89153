"""A run's result.json and metrics.csv read for ``solverkit report``, each checked: a damaged
file, or files of different runs or games, are a one-line SolverkitError naming the file."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from ..errors import SolverkitError


def read_result(run: Path) -> dict:
    """RUN/result.json as a dict ({} when there is none), or a SolverkitError naming the file and
    what is wrong: not UTF-8 JSON, not an object, or a number field that holds something else."""
    path = run / "result.json"
    if not path.is_file():
        return {}
    from ..core.run_dir import RESULT_LIMIT

    if path.stat().st_size > RESULT_LIMIT:
        raise SolverkitError(f"{path} is damaged: {path.stat().st_size} bytes, past the {RESULT_LIMIT >> 20} MiB a "
                             "result.json can have; solve again or remove it")
    try:
        result = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        why = "nested too deeply" if isinstance(exc, RecursionError) else " ".join(str(exc).split())[:120]
        raise SolverkitError(f"{path} is damaged: not JSON text ({why}); solve again or remove it") from None
    if not isinstance(result, dict):
        raise SolverkitError(f"{path} is damaged: a JSON {type(result).__name__}, expected an object of run results")
    for key, value in result.items():
        if (key in NUMBER_FIELDS or key.startswith("exploitability")) and value is not None and (
                isinstance(value, bool) or not isinstance(value, (int, float))):
            raise SolverkitError(f"{path} is damaged: {key} = {value!r:.60}, expected a number")
    return result


#: result.json fields the report formats as numbers
NUMBER_FIELDS = ("iterations", "seconds", "stored_bytes", "compression_ratio", "peak_rss_mb", "startup_seconds",
                 "saturated_values", "worker_peak_rss_mb")


def read_metrics(run: Path) -> list[dict]:
    """RUN/metrics.csv as rows of numbers ([] when there is none; text cells left out), or a
    SolverkitError naming the file when it is not the CSV a solve writes, or is cut short."""
    path = run / "metrics.csv"
    if not path.is_file():
        return []
    from ..core.run_dir import LongLine, bounded_lines

    try:
        with open(path, newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(bounded_lines(fh)))
    except (UnicodeDecodeError, csv.Error, LongLine) as exc:
        raise SolverkitError(f"{path} is damaged: {' '.join(str(exc).split())[:120]}; expected the CSV text a solve "
                             "writes") from None
    with open(path, "rb") as fh:
        torn = fh.seek(0, 2) > 0 and not (fh.seek(-1, 2), fh.read(1))[1] == b"\n"
    short = next((i for i, row in enumerate(rows) if None in row or None in row.values()), None)
    if torn or short is not None:
        where = "its last line is cut short" if torn else f"row {short + 1} has {'more' if None in rows[short] else 'fewer'} fields than the header"
        raise SolverkitError(f"{path} is damaged: {where}; solve again, or resume the run to rewrite it")
    out = []
    for row in rows:
        parsed = {}
        for k, v in row.items():
            try:
                parsed[k] = float(v)
            except (TypeError, ValueError):
                continue
        out.append(parsed)
    return out


def check_result_game(run: Path, result: dict, game) -> None:
    """Raise unless RUN/result.json was written for the game of RUN/config.toml (its game_id;
    a result of an older solverkit has none and is shown as it is)."""
    from ..core.identity import ID_FIELD, game_identity

    theirs = result.get(ID_FIELD)
    if theirs is not None and theirs != game_identity(game):
        raise SolverkitError(f"{run / 'result.json'} belongs to another game: game_id {str(theirs)[:12]!r}..., not "
                             f"game {game.name!r} of {run / 'config.toml'} (game_id {game_identity(game)[:12]!r}...); "
                             "use the files of one run together, or solve this game again")


def check_rows_match(run: Path, rows: list[dict], result: dict) -> None:
    """Raise unless RUN/metrics.csv ends at the iteration RUN/result.json reports, its iterations
    rising: a metrics.csv cut short, of another run, or of a resumed run stopped before its end
    (which writes result.json last) would draw a curve that is not the reported run's."""
    if not result or not rows:
        return
    its = [r.get("iteration") for r in rows]
    last = result.get("iterations")
    if None in its or any(b <= a for a, b in zip(its, its[1:])):
        raise SolverkitError(f"{run / 'metrics.csv'} is damaged: its iteration column is not rising row by row; "
                             "solve again, or resume the run to rewrite it")
    if last is not None and its[-1] != last:
        raise SolverkitError(f"{run / 'metrics.csv'} ends at iteration {its[-1]:.0f} but {run / 'result.json'} "
                             f"reports iteration {last}: the files are of different runs, metrics.csv was cut "
                             "short, or a resumed run stopped before its end (resume it again to finish it)")
