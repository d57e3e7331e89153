"""The evaluation schedule of a run with a target (``eval_every`` left at 0): doublings, then
the predicted crossing of the target; a resumed run evaluates where a straight run does."""

from __future__ import annotations

import csv
import json


from solverkit.core.config import load_config
from solverkit.core.schedule import EvalSchedule, log_schedule, target_next
from solverkit.core.solver import run_solve

from .resume_runs import straight_and_resumed

LEDUC = """preset = "cfr_plus"

[game]
name = "leduc"

[solver]
iterations = {iterations}
target = 0.01
"""


def iterations(path):
    with open(path) as fh:
        return [int(r["iteration"]) for r in csv.DictReader(fh)]


def test_target_next_follows_the_power_law_through_the_last_two_points():
    # e(t) = 10 / t: from (10, 1.0) and (20, 0.5) the goal 0.3 is crossed at t = 33.3
    assert target_next(20, [(10, 1.0), (20, 0.5)], 0.3) == 34
    # too far ahead: one doubling at most
    assert target_next(20, [(10, 1.0), (20, 0.5)], 0.01) == 40
    # just ahead: at least the next iteration
    assert target_next(20, [(10, 1.0), (20, 0.5)], 0.4999) == 21
    # the value rose (a noisy curve): a quarter further on
    assert target_next(20, [(10, 0.5), (20, 0.6)], 0.1) == 26
    # one point only: double
    assert target_next(1, [(1, 3.0)], 0.1) == 2


def test_the_schedule_doubles_then_aims_at_the_target():
    sched = EvalSchedule(0, [("exploitability", 0.1)])
    assert sched.kind == "target"
    seen = []
    for t in range(1, 200):
        if sched.due(t, 0.0, None):
            seen.append(t)
            sched.observed({"iteration": t, "exploitability": 10.0 / t})
            if 10.0 / t <= 0.1:
                break
    assert seen[:5] == [1, 2, 4, 8, 16]
    assert seen[-1] == 100 and len(seen) <= 9  # the exact crossing, with a few evaluations
    # without a target, or with eval_every set, the schedules stay as they were
    assert EvalSchedule(0).kind == "log" and EvalSchedule(5, [("exploitability", 0.1)]).kind == "iterations"
    # "log" keeps the log schedule with a target (what a study's runs do)
    assert EvalSchedule("log", [("exploitability", 0.1)]).kind == "log"


def test_a_run_with_a_target_stops_near_its_crossing_with_few_evaluations(tmp_path):
    cfg = tmp_path / "leduc.toml"
    cfg.write_text(LEDUC.format(iterations=5000))
    run_solve(load_config(cfg), out=tmp_path / "run")
    result = json.loads((tmp_path / "run" / "result.json").read_text())
    its = iterations(tmp_path / "run" / "metrics.csv")
    assert result["reached_target"] and result["exploitability"] <= 0.01
    every = tmp_path / "every"
    run_solve(load_config(cfg, ["solver.eval_every=1"]), out=every)
    first = iterations(every / "metrics.csv")[-1]  # the first iteration at the target
    assert first <= its[-1] <= first * 1.1 + 2
    logged = [t for t in range(1, first + 1) if log_schedule(t)]
    assert len(its) <= 16 and 2 * len(its) <= len(logged)


def test_a_resumed_run_evaluates_where_a_straight_run_does(tmp_path):
    full, part = straight_and_resumed(tmp_path, LEDUC.format(iterations=5000), 5000, 37, "10")
    assert iterations(part / "metrics.csv") == iterations(full / "metrics.csv")


def test_the_target_schedule_starts_where_a_delayed_average_holds_something():
    """Before iteration delay + 1 delayed averaging's output is the uniform strategy: evaluations
    there measured it (a flat curve, then steps of a quarter), not the solve."""
    cfg = {"game": {"name": "kuhn"}, "rule": {"name": "rm_plus"}, "averaging": {"name": "delayed", "delay": 20}}
    res = run_solve(load_config(cfg), target=0.01, iterations=2000)
    assert res.reached_target
    its = [row["iteration"] for row in res.metrics]
    assert its[0] == 21 and its[1] == 42, its  # the first weighted iteration, then doubling
    sched = EvalSchedule(0, [("exploitability", 0.01)], first=21)
    sched.replay([{"iteration": 21, "exploitability": 0.2}])
    assert sched.next_at == 42
    sched.replay([])
    assert sched.due(20, 0.0, None) is False and sched.due(21, 0.0, None) is True
