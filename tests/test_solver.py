"""The solver loop against a hand-written CFR on small matrix games: update order semantics
(PassJob: the pass of player p adds to the OTHER player's average the strategy p's update was
computed against), the current strategy as output, the evaluation schedule, and early stops."""

import csv
import math

import numpy as np
import pytest

from solverkit.core.config import load_config
from solverkit.core.solver import POINTS_PER_DECADE, STORE_COLUMNS, Solver, exploitability, log_schedule, run_solve

PENNIES = [[1.0, -2.0], [-2.0, 4.0]]
RPS_SKEW = [[0.0, -1.0, 2.0], [1.0, 0.0, -1.5], [-1.0, 3.0, 0.0]]


# --- a slow, obviously-correct CFR for matrix games -----------------------------------------------


def rm(regret):
    pos = [max(r, 0.0) for r in regret]
    total = sum(pos)
    return [p / total for p in pos] if total > 0 else [1.0 / len(regret)] * len(regret)


def row_values(A, y):
    return [sum(A[i][j] * y[j] for j in range(len(y))) for i in range(len(A))]


def col_values(A, x):
    return [-sum(x[i] * A[i][j] for i in range(len(x))) for j in range(len(A[0]))]


def instant_regret(values, sigma):
    ev = sum(s * v for s, v in zip(sigma, values))
    return [v - ev for v in values]


def fold(rule, regret, delta, t):
    if rule == "rm":
        return [q + r for q, r in zip(regret, delta)]
    if rule == "rm_plus":
        return [max(q + r, 0.0) for q, r in zip(regret, delta)]
    if rule == "lcfr":
        return [(q + r) * t / (t + 1) for q, r in zip(regret, delta)]
    raise AssertionError(rule)


WEIGHT = {"uniform": lambda t: 1.0, "linear": lambda t: float(t), "quadratic": lambda t: float(t * t)}


def reference_cfr(A, T, rule, averaging, update):
    """Regrets R0, R1 and cumulative strategies S0, S1 after T iterations."""
    m, n = len(A), len(A[0])
    R0, R1, S0, S1 = [0.0] * m, [0.0] * n, [0.0] * m, [0.0] * n
    w = WEIGHT.get(averaging, lambda t: 0.0)
    for t in range(1, T + 1):
        x, y = rm(R0), rm(R1)
        if update == "simultaneous":
            # both players from the same profile (x, y)
            d0 = instant_regret(row_values(A, y), x)
            d1 = instant_regret(col_values(A, x), y)
            R0, R1 = fold(rule, R0, d0, t), fold(rule, R1, d1, t)
            S1 = [s + w(t) * v for s, v in zip(S1, y)]
            S0 = [s + w(t) * v for s, v in zip(S0, x)]
        else:
            # player 0 against y; y goes into player 1's average
            R0 = fold(rule, R0, instant_regret(row_values(A, y), x), t)
            S1 = [s + w(t) * v for s, v in zip(S1, y)]
            # player 1 against the updated x; that x goes into player 0's average
            x = rm(R0)
            R1 = fold(rule, R1, instant_regret(col_values(A, x), y), t)
            S0 = [s + w(t) * v for s, v in zip(S0, x)]
    return R0, R1, S0, S1


def matrix_assembly(A, rule, averaging, update, **solver):
    """An assembly for matrix A: skewed_pennies' parameters when A is 2x2, else a file game."""
    return load_config(
        {"game": _game(A), "rule": rule, "averaging": averaging, "solver": {"update": update, **solver}}
    )


_FILES = {}


def _game(A):
    if len(A) == 2 and len(A[0]) == 2 and A[0][1] == A[1][0]:
        return {"name": "skewed_pennies", "heads": A[0][0], "tails": A[1][1], "mismatch": A[0][1]}
    return {"name": "matrix_file", "path": _FILES[id(A)]}


@pytest.fixture(autouse=True)
def _rps_file(tmp_path):
    path = tmp_path / "rps.npy"
    np.save(path, np.array(RPS_SKEW))
    _FILES[id(RPS_SKEW)] = str(path)
    yield
    _FILES.clear()


@pytest.mark.parametrize("update", ["alternating", "simultaneous"])
@pytest.mark.parametrize(
    "A, rule, averaging",
    [
        (PENNIES, "rm", "uniform"),
        (PENNIES, "rm_plus", "linear"),
        (RPS_SKEW, "rm", "uniform"),
        (RPS_SKEW, "rm_plus", "linear"),
        (RPS_SKEW, "lcfr", "quadratic"),
    ],
)
def test_solver_matches_reference_cfr(A, rule, averaging, update):
    solver = Solver(matrix_assembly(A, rule, averaging, update))
    try:
        for T in range(1, 13):
            solver.step()
            R0, R1, S0, S1 = reference_cfr(A, T, rule, averaging, update)
            seg = solver.store.read("root")
            for name, want in (("regret0", R0), ("regret1", R1), ("avg0", S0), ("avg1", S1)):
                np.testing.assert_allclose(seg[name], want, rtol=1e-12, atol=1e-12, err_msg=f"{name} at t={T}")
            avg = solver.strategy("average")
            np.testing.assert_allclose(avg[0], np.array(S0) / sum(S0), rtol=1e-12, atol=1e-12)
            cur = solver.strategy("current")
            np.testing.assert_allclose(cur[1], rm(R1), rtol=1e-12, atol=1e-12)
    finally:
        solver.close()


def test_update_orders_really_differ():
    a = reference_cfr(RPS_SKEW, 5, "rm", "uniform", "alternating")
    b = reference_cfr(RPS_SKEW, 5, "rm", "uniform", "simultaneous")
    assert not np.allclose(a[1], b[1])


@pytest.mark.parametrize("update, groups", [("alternating", [(0,), (1,)]), ("simultaneous", [(0, 1)])])
def test_passes_per_iteration(update, groups):
    """Alternating: a pass per player, in order; simultaneous: one pass for both."""
    solver = Solver(matrix_assembly(PENNIES, "rm", "uniform", update))
    seen = []
    real = solver.game.cfr_pass

    def spy(store, job, transport):
        seen.append((job.iteration, tuple(job.players)))
        return real(store, job, transport)

    solver.game.cfr_pass = spy
    for _ in range(3):
        solver.step()
    solver.close()
    assert seen == [(t, g) for t in (1, 2, 3) for g in groups]


# --- current strategy as output ----------------------------------------------------------------


@pytest.mark.parametrize("update", ["alternating", "simultaneous"])
def test_current_averaging_outputs_the_current_strategy(tmp_path, update):
    asm = matrix_assembly(RPS_SKEW, "rm_plus", "current", update, iterations=25, eval_every=5)
    res = run_solve(asm, out=tmp_path)
    R0, R1, _, _ = reference_cfr(RPS_SKEW, 25, "rm_plus", "current", update)
    np.testing.assert_allclose(res.strategy[0], rm(R0), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(res.strategy[1], rm(R1), rtol=1e-12, atol=1e-12)
    expl, br0, br1 = exploitability(asm.game, [np.array(rm(R0)), np.array(rm(R1))])
    assert res.exploitability == pytest.approx(expl, rel=1e-12, abs=1e-15)
    with np.load(tmp_path / "strategy.npz") as data:
        assert '"kind": "current"' in str(data["meta"])
        np.testing.assert_array_equal(data["policy0"], res.strategy[0])


def test_current_keeps_no_average_arrays():
    solver = Solver(matrix_assembly(PENNIES, "rm_plus", "current", "alternating"))
    solver.step()
    assert solver.output_kind == "current"
    assert set(solver.store.read("root")) == {"regret0", "regret1"}
    solver.close()


# --- evaluation schedule ------------------------------------------------------------------------


def reference_log_points(limit):
    """1..20, then the first integer at or past each 10^(k/20)."""
    pts = set(range(1, POINTS_PER_DECADE + 1))
    k = 0
    while True:
        x = round(10 ** (k / POINTS_PER_DECADE), 9)
        if x > limit:
            return pts
        if x > POINTS_PER_DECADE:
            pts.add(math.ceil(x))
        k += 1


def test_log_schedule_matches_reference():
    limit = 200_000
    got = {t for t in range(1, limit + 1) if log_schedule(t)}
    assert got == reference_log_points(limit)
    # about 20 points per decade, never more than one per iteration
    assert len([t for t in got if 1000 < t <= 10000]) == POINTS_PER_DECADE
    assert {100, 1000, 10000, 100000} <= got


@pytest.mark.parametrize("every, iterations", [(1, 7), (3, 10), (5, 20), (50, 30)])
def test_eval_every(every, iterations):
    asm = load_config({"preset": "cfr_plus", "game": "skewed_pennies", "solver": {"iterations": iterations, "eval_every": every}})
    res = run_solve(asm)
    want = [t for t in range(1, iterations + 1) if t % every == 0]
    if iterations not in want:
        want.append(iterations)  # the last iteration is always evaluated
    assert [r["iteration"] for r in res.metrics] == want


def test_log_schedule_in_a_run():
    res = run_solve(load_config({"preset": "cfr", "game": "skewed_pennies", "solver": {"iterations": 150}}))
    want = [t for t in range(1, 151) if log_schedule(t)]
    if want[-1] != 150:
        want.append(150)
    assert [r["iteration"] for r in res.metrics] == want


def test_metrics_rows():
    res = run_solve(load_config({"preset": "cfr_plus", "game": "skewed_pennies", "solver": {"iterations": 40, "eval_every": 4}}))
    seconds = [r["seconds"] for r in res.metrics]
    assert seconds == sorted(seconds) and seconds[0] >= 0
    assert res.seconds == seconds[-1]
    for r in res.metrics:
        assert list(r) == ["iteration", "seconds", "exploitability", "br_0", "br_1", *STORE_COLUMNS]
        assert r["exploitability"] == pytest.approx((r["br_0"] + r["br_1"]) / 2, abs=1e-15)
    last = res.metrics[-1]
    assert (res.exploitability, *res.br) == pytest.approx((last["exploitability"], last["br_0"], last["br_1"]), abs=1e-15)


# --- stopping --------------------------------------------------------------------------------------


def test_target_stops_at_the_first_evaluation_below_it():
    asm = load_config({"preset": "cfr_plus", "game": "skewed_pennies", "solver": {"iterations": 5000, "target": 1e-2, "eval_every": 1}})
    res = run_solve(asm)
    assert res.reached_target and res.iterations < 5000
    assert res.exploitability <= 1e-2
    assert all(r["exploitability"] > 1e-2 for r in res.metrics[:-1])
    assert res.metrics[-1]["iteration"] == res.iterations


@pytest.mark.parametrize("every", [1, 7, 50])
def test_target_is_checked_only_at_evaluations(every):
    base = {"preset": "cfr_plus", "game": "skewed_pennies"}
    full = run_solve(load_config({**base, "solver": {"iterations": 400, "eval_every": 1}}))
    curve = {r["iteration"]: r["exploitability"] for r in full.metrics}
    want = min(t for t, e in curve.items() if t % every == 0 and e <= 1e-2)
    res = run_solve(load_config({**base, "solver": {"iterations": 400, "target": 1e-2, "eval_every": every}}))
    assert res.reached_target and res.iterations == want
    assert res.exploitability == pytest.approx(curve[want], rel=1e-12)


def test_zero_target_never_stops_and_arguments_override_config():
    asm = load_config({"preset": "cfr_plus", "game": "skewed_pennies", "solver": {"iterations": 5000, "target": 0.5}})
    res = run_solve(asm, iterations=60, target=0.0)
    assert res.iterations == 60 and not res.reached_target


def test_unreached_target():
    asm = load_config({"preset": "cfr", "game": "skewed_pennies", "solver": {"iterations": 30, "target": 1e-9, "eval_every": 1}})
    res = run_solve(asm)
    assert res.iterations == 30 and not res.reached_target and len(res.metrics) == 30


def test_runs_are_deterministic():
    cfg = {"preset": "cfr_plus", "game": {"name": "random_matrix", "rows": 6, "cols": 4, "seed": 2}, "solver": {"iterations": 100, "eval_every": 10}}
    a, b = run_solve(load_config(cfg)), run_solve(load_config(cfg))
    assert [r["exploitability"] for r in a.metrics] == [r["exploitability"] for r in b.metrics]
    np.testing.assert_array_equal(a.strategy[0], b.strategy[0])


def test_eval_current_adds_the_current_strategys_exploitability(tmp_path):
    from solverkit.core.solver import exploitability as exact_exploitability

    a = load_config({"preset": "cfr_plus", "game": {"name": "kuhn"}, "solver": {"eval_current": True, "eval_every": 5}})
    res = run_solve(a, iterations=20, out=tmp_path)
    rows = list(csv.DictReader((tmp_path / "metrics.csv").open()))
    assert list(rows[0])[-6:-4] == ["exploitability_current", "exploitability_current_mbb"]
    solver = Solver(load_config({"preset": "cfr_plus", "game": {"name": "kuhn"}}))
    for _ in range(20):
        solver.step()
    expected = exact_exploitability(solver.game, solver.strategy("current"))[0]
    assert float(rows[-1]["exploitability_current"]) == pytest.approx(expected, abs=1e-12)
    assert float(rows[-1]["exploitability_current_mbb"]) == pytest.approx(expected * 1000.0, abs=1e-9)
    assert res.exploitability != pytest.approx(expected)  # the average differs from the current


def test_time_limit_stops_the_run_and_says_so(tmp_path):
    from solverkit.core.config import load_config
    from solverkit.core.solver import run_solve

    assembly = load_config({"preset": "cfr_plus", "game": {"name": "leduc"},
                            "solver": {"iterations": 10 ** 6, "time_limit": 0.05, "target_mbb": 1e-9}})
    result = run_solve(assembly, out=tmp_path / "run")
    assert 1 <= result.iterations < 10 ** 6
    assert result.seconds >= 0.05
    assert result.stop_reason.startswith("time limit reached (0.05 s of solve time) at iteration ")
    assert result.metrics[-1]["iteration"] == result.iterations  # the last iteration evaluated
