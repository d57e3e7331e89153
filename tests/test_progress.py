"""What a run says about its progress and time: the bar fills toward the target (not the cap),
kernel compilation is not solve time, and the Python API says once that it is compiling."""

from __future__ import annotations

import json
import math
import time

import pytest

import solverkit
import solverkit.api as api
import solverkit.core.solver as solver_module
from solverkit.core.config import load_config
from solverkit.core.solver import COMPILE_NOTICE, run_solve, target_fraction


def test_target_fraction_is_log_progress_from_the_first_evaluation_to_the_target():
    goals = [("exploitability", 0.01)]
    first = {"exploitability": 1.0}
    assert target_fraction(first, first, goals) == 0.0
    assert target_fraction(first, {"exploitability": 0.1}, goals) == pytest.approx(0.5)
    assert target_fraction(first, {"exploitability": 0.01}, goals) == 1.0
    assert target_fraction(first, {"exploitability": 0.001}, goals) == 1.0
    assert target_fraction(first, {"exploitability": 2.0}, goals) == 0.0  # worse than at first: empty, not negative
    # several targets: the nearest counts; a column the row lacks is skipped
    both = goals + [("exploitability_mbb", 5.0)]
    row = {"exploitability": 0.1, "exploitability_mbb": 6.0}
    assert target_fraction({"exploitability": 1.0, "exploitability_mbb": 500.0}, row, both) == pytest.approx(
        math.log(500 / 6) / math.log(100))
    assert target_fraction({"exploitability": 1.0}, {"exploitability_mbb": 1.0}, goals) == 0.0


def test_a_target_bar_fills_toward_the_target_and_names_the_cap(capsys):
    a = load_config({"preset": "cfr", "game": "leduc", "solver": {"iterations": 300, "target_mbb": 0.001}})
    run_solve(a, progress=True)
    last = capsys.readouterr().err.replace("\r", "\n").strip().splitlines()[-1]
    assert last.startswith("toward target:") and "iteration 300/300 (cap)" in last, last
    percent = int(last.split(":", 1)[1].split("%", 1)[0])
    assert 0 < percent < 100  # cap reached before the target: the bar is not full


def test_compilation_during_the_passes_is_not_solve_time(tmp_path, monkeypatch):
    """A kernel compiled (or loaded) in the middle of a pass: its seconds go to compile_seconds,
    not to the seconds a study compares."""
    from numba.core import event

    a = load_config({"preset": "cfr_plus", "game": "kuhn", "solver": {"iterations": 2, "eval_every": 1}})
    real = type(a.game).cfr_pass

    def compiling_pass(self, store, job, transport=None):
        with event.trigger_event("numba:compiler_lock"):  # what numba's dispatcher does around a compile
            time.sleep(0.25)
        return real(self, store, job, transport)

    monkeypatch.setattr(type(a.game), "cfr_pass", compiling_pass)
    res = run_solve(a, out=tmp_path / "run")
    summary = json.loads((tmp_path / "run" / "result.json").read_text())
    assert summary["compile_seconds"] >= 4 * 0.25  # two passes an iteration, two iterations
    assert res.seconds < 0.25 and summary["seconds"] == res.seconds
    assert all(row["seconds"] < 0.25 for row in res.metrics)


def test_a_real_compile_in_a_pass_is_left_out(monkeypatch):
    """The same with numba compiling a new kernel at its first call."""
    import numba
    import numpy as np

    a = load_config({"preset": "cfr_plus", "game": "kuhn", "solver": {"iterations": 1}})
    real = type(a.game).cfr_pass
    fresh = numba.njit(lambda x: np.sum(np.sin(x)) * 2.0 + 1.0)  # not cached: compiled at its first call

    def pass_with_a_new_kernel(self, store, job, transport=None):
        fresh(np.ones(3))
        return real(self, store, job, transport)

    monkeypatch.setattr(type(a.game), "cfr_pass", pass_with_a_new_kernel)
    t0 = time.perf_counter()
    res = run_solve(a)
    wall = time.perf_counter() - t0
    assert res.seconds < 0.05 < wall  # the compile (tenths of a second) is not in the solve time


def test_the_api_says_once_that_it_is_compiling(monkeypatch, capsys):
    monkeypatch.setattr(solver_module, "COMPILE_NOTICE_AFTER", 0.0)  # as if compiling took long
    monkeypatch.setattr(api, "_compiling_said", False)
    solverkit.solve({"game": "kuhn_tree", "preset": "cfr_plus"}, iterations=2)
    solverkit.solve({"game": "kuhn_tree", "preset": "cfr_plus"}, iterations=2)
    err = capsys.readouterr().err
    assert err.count(COMPILE_NOTICE) == 1, err
