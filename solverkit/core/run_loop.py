"""run_solve's steps over one explicit state (a Run): check the settings, open the output directory and
the Solver, iterate with evaluations and checkpoints, finish; one object instead of closures."""

from __future__ import annotations

import time
from pathlib import Path

from ..errors import ConfigError, WorkerLost
from .atomic import write_text
from .checkpoint import FILENAME as CHECKPOINT_FILE
from .checkpoint import check_game, check_resume, parts_dir, read_footer
from .config import SOLVER_PARAMS
from .config_text import parse_every
from .memory import process_age
from .metrics import NASH_CONV, MetricsWriter, metric_columns
from .progress import Progress, progress_postfix, say, stop_reason, target_text
from .recovery import roll_back
from .run_config import check_average_starts, first_weighted_iteration, run_config, toml_text
from .run_dir import (STORE_DIR, check_out_dir, clear_out_dir, drop_aside, drop_cap_row, hold_out_dir, release_out_dir,
                      set_aside, undo_start)
from .run_outputs import Result, store_kind, write_outputs
from .schedule import EvalSchedule
from .units import EXPLOITABILITY as EXPLOITABILITY_COLUMN, reached as unit_target_reached, units_of

#: a block of sampled iterations (Solver.step(count)) lasts about this long at most, so that
#: time schedules, stop requests and the progress bar stay responsive
BLOCK_SECONDS = 0.02


class Run:
    """One run of run_solve: its checked settings, its output directory, its Solver, and what the
    loop carries from step to step (metrics rows, the target reached, the last checkpoint, the stop
    request, the lost workers' recoveries). The steps, in order: the constructor (settings checked,
    refusals before anything is made), :meth:`open`, :meth:`solve` (:meth:`advance` and
    :func:`~solverkit.core.recovery.roll_back` until the run ends), :meth:`result`."""

    def __init__(self, assembly, iterations=None, target=None, out=None, checkpoint_every=None, resume=False,
                 force=False, *, progress=False, on_metrics=None, notice=None, strategy_in_memory: int):
        self.assembly = assembly
        self.progress, self.on_metrics, self.notice = progress, on_metrics, notice
        self.resume, self.force = resume, force
        #: above this many policy values the strategy goes to its file one player at a time
        self.strategy_in_memory = strategy_in_memory
        cfg = assembly.solver
        # arguments are checked as the [solver] values they replace (the CLI passes them as --set)
        spec = SOLVER_PARAMS.params
        self.iterations = spec["iterations"].check(iterations if iterations is not None else cfg["iterations"],
                                                   "[solver] iterations")
        self.target = spec["target"].check(target if target is not None else cfg["target"], "[solver] target")
        check_average_starts(assembly, self.iterations)
        if checkpoint_every is not None:
            checkpoint_every = spec["checkpoint_every"].check(str(checkpoint_every), "[solver] checkpoint_every")
        self.units = units_of(assembly.game)
        self.unit_targets = {u.target_key: float(cfg.get(u.target_key, 0.0)) for u in self.units}
        self.ckpt_every = parse_every(checkpoint_every if checkpoint_every is not None
                                      else cfg.get("checkpoint_every", ""))
        if (self.ckpt_every or resume) and out is None:
            raise ConfigError("checkpoints need an output directory (--out DIR)")
        if out is not None:  # refused before the solver is built or anything is written
            check_out_dir(out, resume, force)
        self.ckpt_path = Path(out) / CHECKPOINT_FILE if out is not None else None
        self.resolved = run_config(assembly, self.iterations, self.target, checkpoint_every)
        self.run_id = None
        if resume:  # refused before anything in `out` changes: the footer and the settings it records
            footer = read_footer(self.ckpt_path)
            check_game(self.ckpt_path, footer, assembly.resolved["game"], assembly.game)
            check_resume(self.ckpt_path, footer, self.resolved, Path(out) / "config.toml")
            if self.iterations < footer["iteration"]:
                raise ConfigError(f"[solver] iterations = {self.iterations} is below the iteration of the checkpoint "
                                  f"in {out} ({footer['iteration']}): expected >= {footer['iteration']} "
                                  "(--iterations)")
            self.run_id = footer["run"]
        self.out = Path(out) if out is not None else None
        self.time_limit = float(cfg.get("time_limit", 0.0) or 0.0)
        self.targets_text = target_text(assembly.game, self.target, self.unit_targets)
        #: the column [solver] target bounds: exploitability, or NashConv with more than two players
        self.target_column = EXPLOITABILITY_COLUMN if assembly.game.num_players == 2 else NASH_CONV
        self.goals = [(self.target_column, self.target)] if self.target > 0 else []
        self.goals += [(u.column, self.unit_targets[u.target_key]) for u in self.units
                       if self.unit_targets.get(u.target_key, 0) > 0]
        averaging = assembly.averaging
        first = (first_weighted_iteration(averaging, self.iterations) or 1) if averaging.inline else 1
        self.schedule = EvalSchedule(cfg["eval_every"], self.goals, first=first)
        # what the loop carries
        self.metrics: list[dict] = []
        self.row = None  # the last metrics row
        self.reached = False
        self.reached_row = None
        self.interrupted = False
        self.timed_out = False
        self.strategy = None
        self.done_at = None  # the iteration where the loop stopped (a loss after it need not redo the loop)
        self.startup = None
        self.extra = {}  # the game's own result fields (advance fills them)
        self.recoveries: list[dict] = []
        self.attempt, self.high = 0, -1  # losses in a row without getting past the last one, and how far
        self.writer = self.bar = self.stop = None

    def say(self, line: str) -> None:
        """A line for the user: to `notice`, else stderr."""
        (self.notice or say)(line)

    def open(self, solver_class) -> None:
        """Hold `out`, build the Solver (`solver_class`), load the checkpoint to resume, write
        config.toml and start metrics.csv; a failure leaves `out` as it was found."""
        out, resume = self.out, self.resume
        self.made_out = out is not None and not out.exists()
        # a disk store's folder, made by the Solver
        self.made_store = out is not None and not (out / STORE_DIR).exists()
        # `out` made and held (one solve at a time) before anything is made or written in it
        self.lock = hold_out_dir(out, resume, self.force) if out is not None else None
        try:
            self.solver = solver = solver_class(
                self.assembly, store_dir=(out / STORE_DIR) if out is not None else None, run_id=self.run_id,
                notice=self.notice, parts_dir=parts_dir(self.ckpt_path) if out is not None else None)
        except BaseException:  # nothing written yet but what the store made
            undo_start(out, None, self.made_out, self.made_store, outputs=False)
            release_out_dir(self.lock)
            raise
        solver.resolved = self.resolved
        solver.planned_iterations = self.iterations
        eval_current = bool(self.assembly.solver.get("eval_current")) and self.assembly.averaging.keeps_average
        columns = metric_columns(self.assembly.game, eval_current)
        self.aside = None  # OUT/.replaced-run: the outputs of the run that --force replaces, until this one commits
        #: whether this run's outputs stand (a metrics row or a checkpoint written, or a resumed run):
        #: a run that fails before it leaves `out` as it found it
        self.committed = resume or out is None
        try:
            if resume:
                self.metrics = drop_cap_row(solver.load_checkpoint(self.ckpt_path), self.schedule, solver.iteration)
                self.schedule.replay(self.metrics)
            if out is not None:  # once the store (its directory locked) is up and the checkpoint loaded
                out.mkdir(parents=True, exist_ok=True)
                if self.force and not resume:
                    self.aside = set_aside(out)
                else:
                    clear_out_dir(out, replace=False)
                write_text(out / "config.toml", toml_text(self.resolved))
        except BaseException:
            solver.close()
            if not self.committed:
                undo_start(out, self.aside, self.made_out, self.made_store)
            release_out_dir(self.lock)
            raise
        try:
            self.writer = MetricsWriter(out / "metrics.csv", columns, self.metrics) if out is not None else None
        except BaseException:  # e.g. a directory in its place: `out` is free for the run that goes on once it is moved
            solver.close()  # its transport's threads or workers and its store go too
            if not self.committed:
                undo_start(out, self.aside, self.made_out, self.made_store)
            release_out_dir(self.lock)
            raise
        self.bar = Progress(self.iterations, solver.iteration, self.goals, self.metrics) if self.progress else None
        self.row = self.metrics[-1] if self.metrics else None
        self.stop = _StopRequest()
        self.last_ckpt = (solver.iteration, time.perf_counter())
        self.have_ckpt = resume  # a checkpoint of this run to roll back to (not one left in `out` by another)

    def solve(self) -> None:
        """Advance to the end; a lost worker (WorkerLost, also while recovering) is replaced and
        the run goes back to its last checkpoint. Then the stop handlers, bar, metrics file,
        solver and `out` are let go (a run that never committed leaves `out` as it was)."""
        lost = None
        finished = False
        try:
            while True:
                try:
                    if lost is not None:
                        roll_back(self, lost)
                        lost = None
                    self.advance()
                    break
                except WorkerLost as exc:
                    lost = exc
            finished = True
        finally:
            self.stop.restore()
            if self.bar is not None:
                self.bar.close()
            if self.writer:
                self.writer.close()
            self.solver.close()
            if not finished and not self.committed:  # refused or stopped before its first row: nothing of it stays
                undo_start(self.out, self.aside, self.made_out, self.made_store)
            release_out_dir(self.lock)

    def target_met(self, row) -> bool:
        return ((self.target > 0 and row[self.target_column] <= self.target)
                or unit_target_reached(row, self.unit_targets, self.assembly.game))

    def checkpoint(self) -> None:
        self.solver.save_checkpoint(self.ckpt_path, self.metrics)
        self.last_ckpt = (self.solver.iteration, time.perf_counter())
        self.have_ckpt = True
        self.commit()

    def commit(self) -> None:
        """This run has written a metrics row or a checkpoint: its outputs stand, and the run it
        replaces (--force), set aside until now, goes."""
        self.committed = True
        drop_aside(self.aside)
        self.aside = None

    def record(self, row: dict) -> None:
        """A metrics row: kept, written to metrics.csv (which commits the run)."""
        self.metrics.append(row)
        if self.writer:
            self.writer.write(row)
            self.commit()

    def advance(self) -> None:
        """Iterate to the end, then write the final checkpoint, metrics row and outputs."""
        solver, schedule, iterations, bar = self.solver, self.schedule, self.iterations, self.bar
        schedule.start(solver.solve_seconds, solver.nodes_touched)
        if self.startup is None:  # process start to the first iteration: imports, game, store
            self.startup = process_age()
        block = 1  # iterations per step: grows for cheap sampled iterations, up to BLOCK_SECONDS a step
        while solver.iteration < iterations and self.done_at is None and not self.interrupted:
            count = _block_size(solver, block, iterations, schedule, self.ckpt_every, self.last_ckpt[0])
            before = solver.solve_seconds
            solver.step(count)
            if solver.batches:
                spent = solver.solve_seconds - before
                block = max(1, min(100_000, int(count * BLOCK_SECONDS / spent) if spent > 0 else 2 * count))
            if self.stop.requested:
                self.interrupted = True
            t = solver.iteration
            due = schedule.due(t, solver.solve_seconds, solver.nodes_touched, self.assembly.game.name)
            if due or t == iterations:
                self.measure()
            if bar is not None:
                bar.advance(solver.iteration, reached=self.reached)
            if self.ckpt_every is not None and not (self.reached or self.interrupted or t == iterations):
                kind, n = self.ckpt_every
                if ((t - self.last_ckpt[0] >= n) if kind == "iterations"
                        else (time.perf_counter() - self.last_ckpt[1] >= n)):
                    self.checkpoint()
            if self.reached or self.interrupted:
                break
            if self.time_limit and solver.solve_seconds >= self.time_limit:
                self.timed_out = True
                break
        self.done_at = solver.iteration
        self.finish()

    def measure(self) -> None:
        """An evaluation due in the loop: its row (confirmed when it meets a target and the
        workers' values are not trusted) is kept, written, passed on and shown."""
        solver = self.solver
        row = solver.evaluate()
        row.update(solver.store_row())
        if self.target_met(row) and not solver.transport.trusted_values:
            # a target counts only when an evaluation that trusts no worker's value agrees
            row = solver.confirm(row)
        self.row = row
        self.schedule.observed(row)
        self.record(row)
        if self.on_metrics:
            self.on_metrics(row)
        if self.bar is not None:
            self.bar.measured(row, progress_postfix(self.assembly.game, row, self.targets_text))
        self.reached = self.target_met(row)
        if self.reached:
            self.reached_row = row

    def finish(self) -> None:
        """After the loop: the warning of an empty average, the last checkpoint, the final row
        (evaluated exactly, or the last one confirmed) and the outputs."""
        solver, assembly = self.solver, self.assembly
        done_at = self.done_at
        if first_weighted_iteration(assembly.averaging, done_at) is None and assembly.averaging.inline:
            self.say(f"warning: the run stopped at iteration {done_at}, before [averaging] "
                     f"({assembly.averaging.name}) gave any iteration a weight: its output is the uniform "
                     "strategy, not the solve's")
        if (self.ckpt_path is not None and (self.ckpt_every is not None or self.interrupted)
                and solver.iteration > self.last_ckpt[0]):
            self.checkpoint()  # the state the outputs below describe, so --resume can extend (or finish) the run
        if self.row is None or self.row["iteration"] != solver.iteration:
            self.row = solver.evaluate(exact=True)
            self.row.update(solver.store_row())
            self.record(self.row)
        else:
            # the reported result is always recomputed from the strategy itself
            self.row = solver.confirm(self.row)
        write_outputs(self)

    def result(self) -> Result:
        """What the run produced."""
        solver, row = self.solver, self.row
        return Result(
            iterations=solver.iteration,
            exploitability=row["exploitability"],
            br=(row["br_0"], row["br_1"]),
            seconds=solver.solve_seconds,
            reached_target=self.reached,
            metrics=self.metrics,
            interrupted=self.interrupted,
            strategy=self.strategy,
            out=self.out,
            stored_bytes=solver.values.stored_bytes(),
            compression_ratio=solver.values.compression_ratio(),
            store_kind=store_kind(self.assembly, solver.store),
            saturated_values=solver.values.saturated_values(),
            store_warnings=list(solver.store_warnings),
            fields=self.extra,
            stop_reason="" if self.interrupted else (
                f"time limit reached ({self.time_limit:g} s of solve time) at iteration {solver.iteration}"
                if self.timed_out and not self.reached else
                stop_reason(self.assembly.game, self.reached_row, self.target, self.unit_targets, self.iterations,
                            solver.iteration)),
        )


def _block_size(solver, block: int, iterations: int, schedule, ckpt_every, last_ckpt: int) -> int:
    """Iterations of the next step: 1, or for a solver that batches, `block` cut at the last
    iteration, the next due evaluation and the next checkpoint by iterations."""
    if not solver.batches:
        return 1
    t = solver.iteration
    n = min(block, iterations - t)
    horizon = schedule.horizon(t)
    if horizon is not None:
        n = min(n, horizon - t)
    if ckpt_every is not None and ckpt_every[0] == "iterations":
        n = min(n, max(1, last_ckpt + ckpt_every[1] - t))
    return max(1, n)


class _StopRequest:
    """SIGINT/SIGTERM ask the loop to stop after the current iteration and save its outputs;
    a second SIGINT interrupts at once."""

    def __init__(self):
        import signal
        import threading

        self.requested = False
        self._old = {}
        if threading.current_thread() is not threading.main_thread():
            return
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._old[sig] = signal.getsignal(sig)
            signal.signal(sig, self._handle)

    def _handle(self, signum, frame):
        import signal

        if self.requested and signum == signal.SIGINT:
            raise KeyboardInterrupt
        self.requested = True

    def restore(self):
        import signal

        for sig, handler in self._old.items():
            signal.signal(sig, handler)
        self._old = {}

