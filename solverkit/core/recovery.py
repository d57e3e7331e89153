"""After a transport lost a worker: have it replaced, then take the run back to its last checkpoint (or the start)."""

from __future__ import annotations

import time


def roll_back(run, lost) -> None:
    """Have the transport replace the lost worker(s) of `run` (a :class:`~solverkit.core.run_loop.Run`),
    then put it back at its last checkpoint: the store, the metrics rows (metrics.csv and the bar
    again), and the loop's end and target when they lie after that point. The recovery is recorded
    for result.json."""
    solver = run.solver
    t0 = time.perf_counter()
    at = solver.iteration
    run.attempt = run.attempt + 1 if at <= run.high else 1  # losses in a row without getting past the last one
    run.high = max(run.high, at)
    run.say(f"lost a worker in iteration {at}: {getattr(lost, 'reason', lost)}")
    # resumed_from stays None when another loss interrupts this recovery
    record = {"lost": getattr(lost, "reason", str(lost)), "at_iteration": at, "resumed_from": None}
    run.recoveries.append(record)
    solver.transport.recover(lost, run.attempt)
    run.metrics[:] = solver.rollback(run.ckpt_path if run.have_ckpt else None)
    if run.done_at is None or solver.iteration != run.done_at:  # the loop's end is to be redone
        run.done_at, run.reached, run.reached_row = None, False, None
    run.row = run.metrics[-1] if run.metrics else None
    run.schedule.replay(run.metrics)
    run.last_ckpt = (solver.iteration, time.perf_counter())
    if run.writer:
        run.writer.restart(run.metrics)
    if run.bar is not None:
        run.bar.rewind(solver.iteration, run.metrics)
    record.update(resumed_from=solver.iteration, seconds=time.perf_counter() - t0)
    run.say(f"resuming from iteration {solver.iteration} "
            f"({'its checkpoint' if run.have_ckpt else 'the start: no checkpoint yet'})")
