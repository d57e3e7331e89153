"""Comparative studies: a grid of assemblies x games x seeds, with curves and tables out.

The file format is documented key by key in docs/studies.md. In short: ``[study]`` holds the
defaults (``iterations``, ``targets`` and ``targets_<unit>``, ``seeds``, ``eval_every``,
``stop_at_target``), ``[assemblies.NAME]`` one config each without its game (its ``[solver]``
keys override the study's and the game's), ``[games.NAME]`` one game each (``game = {name =
..., params...}`` plus optional ``seeds``, ``targets``, ``targets_<unit>``, ``iterations``,
``eval_every``). Seeds vary only what is random: a game's ``seed`` parameter unless the game
table fixes it, and the assembly's sampler; a run with nothing random runs once.

Its parts live beside it in solverkit.study: :mod:`.file` (reading and checking a study file),
:mod:`.runs` (how each run starts, solving it, reading a finished one back), :mod:`.tables`
(results.csv, summary.csv), :mod:`.plot` and :mod:`.stats`; this module runs the grid and stops it.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from ..errors import ConfigError, SolverkitError
from .file import Study
from .runs import RunResult, _run_one, plan_runs
from .tables import RESULT_COLUMNS, SUMMARY_COLUMNS, _result_rows, _summarise, _write_csv


class StudyStopped(SolverkitError):
    """A study stopped part way (SIGINT / SIGTERM): its runs' checkpoints and outputs stay in
    OUT, and ``solverkit study FILE --out OUT --resume`` goes on from them."""


def run_study(study: Study, out, jobs: int = 1, progress: bool = True, resume: bool = False,
              force: bool = False, results: dict[str, RunResult] | None = None) -> str:
    """Run every run of the study; write results.csv, summary.csv and per game its plot (PNG
    and SVG) and the plotted numbers (GAME_curves.csv).

    `resume` keeps the runs already finished in `out` with the same settings and lets runs that
    were stopped go on from their checkpoints; `force` solves runs found in `out` again (without
    either, such an `out` is refused: :func:`plan_runs`). SIGINT or SIGTERM stops the study: the
    runs under way save a checkpoint and their outputs, and StudyStopped says how to go on.
    `results`: a dict that receives each run's :class:`RunResult` by slug."""
    if not str(out).strip():  # Path("") is the working directory
        raise ConfigError(f"--out {str(out)!r} is empty: give a directory for the study's outputs")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} is a file, not a directory: give a directory for the study's outputs")
    plan = plan_runs(study, out, resume, force)
    (out / "runs").mkdir(parents=True, exist_ok=True)
    results = {} if results is None else results
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(study.runs), unit="run", dynamic_ncols=True)
    try:
        with _signals_stop_the_study():
            return _run_and_write(study, out, jobs, plan, results, bar)
    except KeyboardInterrupt:  # a signal between runs or while the outputs are written
        pass
    finally:
        if bar:
            bar.close()
    raise _stopped(study, out, results)


@contextmanager
def _signals_stop_the_study():
    """SIGTERM, like SIGINT, raises KeyboardInterrupt in this process while the study runs
    (a solve under way turns either into a stop request of its own), instead of ending it
    without a word."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def _stopped(study, out: Path, results: dict) -> StudyStopped:
    done = sum(1 for r in results.values() if not r.interrupted)
    part = sum(1 for r in results.values() if r.interrupted)
    return StudyStopped(
        f"study stopped: {done} of {len(study.runs)} runs finished, {part} stopped part way (their checkpoints "
        f"are in {out / 'runs'}); go on with: solverkit study {study.source} --out {out} --resume")


def _run_and_write(study, out: Path, jobs: int, plan: dict, results: dict, bar) -> str:
    stopped = False
    try:
        if jobs == 1:
            for run in study.runs:  # the solve in this process turns a signal into a stop request
                results[run.slug] = r = _run_one(run, str(out), plan[run.slug])
                if bar:
                    bar.update(1)
                if r.interrupted:
                    stopped = True
                    break
        else:
            stopped = _run_pool(study, str(out), jobs, plan, results, bar)
    finally:
        if bar:
            bar.close()
    if stopped:
        raise _stopped(study, out, results)
    _write_csv(out / "results.csv", RESULT_COLUMNS, _result_rows(study, results))
    summary = _summarise(study, results)
    _write_csv(out / "summary.csv", SUMMARY_COLUMNS, summary)
    from .plot import plot_study

    plot_study(study, results, out)
    compared = None
    if study.reference is not None:
        from .reference import REFERENCE_COLUMNS, compare

        compared = compare(study.reference, study, results)
        _write_csv(out / "reference.csv", REFERENCE_COLUMNS, compared)
    lines = [f"{'assembly':<16} {'game':<14} {'target':>14} {'reached':>8} {'mean iters':>11} "
                 f"{'mean secs':>10} {'mean-curve iters':>17}"]
    for s in summary:
        target = f"{float(s['target']):.3g} {s['unit']}".strip()
        lines.append(f"{s['assembly']:<16} {s['game']:<14} {target:>14} {s['reached']:>8} "
                     f"{s['mean_iterations']!s:>11} {s['mean_seconds']!s:>10} {s['mean_curve_iterations']!s:>17}")
    if compared is not None:
        from .reference import text_table

        lines.append(text_table(study.reference, compared))
    lines.append(f"results in {out}")
    return "\n".join(lines)


def _run_pool(study, out: str, jobs: int, plan: dict, results: dict, bar) -> bool:
    """Runs on `jobs` processes; True when a signal stopped the study. A signal to this process
    is passed on to the runs under way (each saves a checkpoint and stops), and runs not started
    are cancelled."""
    import multiprocessing
    import signal
    import threading
    from concurrent.futures import as_completed

    stop = threading.Event()

    def on_signal(signum, frame):
        stop.set()
        for child in multiprocessing.active_children():
            try:
                os.kill(child.pid, signal.SIGTERM)
            except OSError:
                pass

    main = threading.current_thread() is threading.main_thread()
    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)} if main else {}
    pool = ProcessPoolExecutor(jobs, initializer=_ignore_sigint)
    try:
        futures = {pool.submit(_run_one, run, out, plan[run.slug]): run.slug for run in study.runs}
        for fut in as_completed(futures):
            if fut.cancelled():
                continue
            results[futures[fut]] = r = fut.result()
            if bar:
                bar.update(1)
            if r.interrupted or stop.is_set():
                stop.set()
                for f in futures:
                    f.cancel()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        for s, handler in old.items():
            signal.signal(s, handler)
    return stop.is_set()


def _ignore_sigint():
    """A study's worker process between runs: Ctrl-C reaches the whole process group, and an
    idle worker must not die of it (the study cancels what has not started; a run under way
    has its own handler, which saves and stops)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
