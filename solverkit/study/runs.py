"""A study's runs one at a time: how each starts in OUT (planned so nothing is overwritten), solved or read back."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from ..core.config import load_config
from ..core.config_text import read_toml
from ..errors import ConfigError
from .file import Run, Study
from .stats import points

#: how a run of a study starts (:func:`plan_runs`): solved in an empty directory, read back (it
#: finished there with the same settings), resumed from its checkpoint, or solved again over
#: what is there (--force, or a run of the same settings stopped without a checkpoint)
NEW, DONE, RESUME, REPLACE = "new", "done", "resume", "replace"


def _run_one(run: Run, out_dir: str, mode: str = NEW):
    """Solve one run into OUT/runs/SLUG as `mode` (:func:`plan_runs`) says: read back a run
    finished there, go on from its checkpoint, or solve it (replacing what is there)."""
    from ..core.solver import run_solve

    assembly = load_config(run.raw)
    run_dir = Path(out_dir) / "runs" / run.slug
    if mode == DONE:
        done = finished_run(run_dir, assembly)
        if done is not None:
            return done
        mode = REPLACE  # changed since it was planned: solved again, as planned for a stopped run
    result = run_solve(assembly, out=run_dir, resume=mode == RESUME, force=mode == REPLACE)
    from ..core.aot_auto import missing_here
    from ..core.memory import peak_rss_mb

    try:  # what this process took from numba's JIT, for the study's automatic build (aot_auto.after_study)
        jit = tuple(missing_here())
    except Exception:  # noqa: BLE001 (a run is never lost to the build's bookkeeping)
        jit = ()
    return RunResult(list(result.metrics), result.iterations, result.exploitability, result.seconds,
                     result.interrupted, jit, peak_rss_mb())


def _holds_run(run_dir: Path) -> bool:
    from ..core.run_dir import RUN_FILES

    return any((run_dir / name).exists() for name in RUN_FILES)


def plan_runs(study: "Study", out: Path, resume: bool = False, force: bool = False) -> dict[str, str]:
    """How each run of `study` starts in `out` (slug -> NEW, DONE, RESUME or REPLACE), decided
    before any run starts, so that nothing already computed is overwritten: without `resume`
    or `force`, runs already in `out` are refused; with `resume`, a run finished with other
    settings, or stopped with a checkpoint those settings cannot resume, is refused (naming
    the run and the setting); `force` solves every run again."""
    plan = {}
    for run in study.runs:
        run_dir = out / "runs" / run.slug
        if not _holds_run(run_dir):
            plan[run.slug] = NEW
        elif force:
            plan[run.slug] = REPLACE
        elif not resume:
            raise ConfigError(f"{out} already holds this study's runs (runs/{run.slug}): go on with --resume, give "
                              "another --out, or add --force to solve them again")
        else:
            plan[run.slug] = _resume_mode(run, run_dir)
    return plan


def _resume_mode(run: Run, run_dir: Path) -> str:
    """DONE, RESUME or REPLACE for a run found in `run_dir` by ``--resume``, or a ConfigError
    when its settings differ from the study's in a way it cannot go on from."""
    from ..core.checkpoint import FILENAME, CheckpointError, check_game, check_resume, read_footer
    from ..core.solver import run_config

    assembly = load_config(run.raw)
    fix = "restore the study's settings, give another --out, or add --force to solve it again"
    _check_result_game(run, run_dir, assembly.game, fix)
    if finished_run(run_dir, assembly) is not None:
        return DONE
    resolved = run_config(assembly)
    if (run_dir / FILENAME).is_file():
        try:
            footer = read_footer(run_dir / FILENAME)
            check_game(run_dir / FILENAME, footer, assembly.resolved["game"], assembly.game)
            check_resume(run_dir / FILENAME, footer, resolved, "the study file")
        except CheckpointError as exc:
            raise ConfigError(f"study run {run.slug}: {exc}; or give another --out, or --force") from None
        if footer["iteration"] > run.iterations:
            raise ConfigError(f"study run {run.slug} has a checkpoint at iteration {footer['iteration']}, past this "
                              f"study's {run.iterations} iterations: {fix}")
        return RESUME
    change = _first_change(run_dir / "config.toml", resolved)
    if change:
        raise ConfigError(f"study run {run.slug} in {run_dir.parent} ran with other settings ({change}) and has no "
                          f"checkpoint to go on from: {fix}")
    return REPLACE  # the same settings, stopped before any checkpoint: nothing to keep


def _check_result_game(run: Run, run_dir: Path, game, fix: str) -> None:
    """ConfigError when a run's result.json records another game than the study's (a game file
    edited since): its results are not this game's, and are neither kept nor silently replaced."""
    import json

    from ..core.identity import ID_FIELD, game_identity
    from ..core.run_dir import RESULT_LIMIT

    try:
        if (run_dir / "result.json").stat().st_size > RESULT_LIMIT:
            return  # damaged: finished_run decides
        summary = json.loads((run_dir / "result.json").read_text())
    except (OSError, ValueError, RecursionError):  # missing or damaged: finished_run decides
        return
    theirs = summary.get(ID_FIELD) if isinstance(summary, dict) else None
    if theirs is not None and theirs != game_identity(game):
        raise ConfigError(f"study run {run.slug} in {run_dir.parent} was solved for another game than this study's "
                          f"game {game.name!r} (result.json game_id {str(theirs)[:12]!r}..., the game's "
                          f"{game_identity(game)[:12]!r}...: its game file changed?): {fix}")


def _first_change(config_file: Path, resolved: dict) -> str:
    """The first setting whose value in a run's config.toml differs from `resolved`, as text
    (``[rule] alpha 1.5 there, 2.0 here``); "" when they agree."""
    try:
        saved = read_toml(config_file)
    except ConfigError:
        return f"{config_file} unreadable"
    flat = {}
    for side, tables in (("there", saved), ("here", resolved)):
        for table, values in tables.items():
            for key, value in (values.items() if isinstance(values, dict) else [("", values)]):
                flat.setdefault((table, key), {})[side] = value
    for (table, key), values in sorted(flat.items()):
        if values.get("there") != values.get("here"):
            there, here = values.get("there", "(not set)"), values.get("here", "(not set)")
            return f"[{table}] {key} {there!r} there, {here!r} here"
    return ""


def finished_run(run_dir: Path, assembly) -> "RunResult | None":
    """The result of a run that finished in `run_dir` with exactly the settings `assembly` has
    (its config.toml is what this run would write, its result.json says it was not stopped),
    read from its metrics.csv; None otherwise."""
    import json

    from ..core.run_dir import RESULT_LIMIT, bounded_lines
    from ..core.solver import run_config_text

    try:
        if (run_dir / "result.json").stat().st_size > RESULT_LIMIT:
            return None
        summary = json.loads((run_dir / "result.json").read_text())
        config = (run_dir / "config.toml").read_text()
        with open(run_dir / "metrics.csv", newline="") as fh:
            rows = list(csv.DictReader(bounded_lines(fh)))
    except (OSError, ValueError, RecursionError, csv.Error):  # damaged or missing: the run is solved again
        return None  # (ValueError: also a line too long, LongLine)
    if not isinstance(summary, dict) or summary.get("interrupted", True) or config != run_config_text(assembly):
        return None
    metrics = []
    for row in rows:
        if None in row or None in row.values():  # a row with more or fewer fields than the header (torn)
            return None  # a damaged file: the run is solved again
        try:
            metrics.append({k: (int(v) if k == "iteration" else float(v)) for k, v in row.items() if v != ""})
        except (ValueError, TypeError):
            return None
    try:
        result = RunResult(metrics, int(summary["iterations"]), float(summary["exploitability"]),
                           float(summary["seconds"]))
    except (KeyError, TypeError, ValueError):
        return None
    its = [m.get("iteration") for m in metrics]
    if not its or None in its or its != sorted(set(its)) or its[-1] != result.iterations:
        # rows lost (a metrics.csv cut short) or out of order: its curves and last value would be
        # silently another run's than result.json's, so it is not read back
        return None
    return result


@dataclass
class RunResult:
    """What a study keeps of a run: its metrics rows and how it ended."""

    metrics: list[dict]
    iterations: int
    exploitability: float
    seconds: float
    interrupted: bool = False
    #: kernel signatures the run's process took from numba's JIT that the build lacks
    jit_kernels: tuple = ()
    #: the run's process's peak memory (MB; a worker's covers the runs it did before)
    peak_rss_mb: float = 0.0

    def curve(self, x: str, y: str):
        return points(self.metrics, x, y)

    def last(self, column: str) -> float:
        """The last measured value of a column (the final exploitability in a target's unit)."""
        pts = points(self.metrics, "iteration", column)
        return pts[-1][1] if pts else float("nan")
