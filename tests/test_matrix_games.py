"""Matrix games against linear programming (scipy.optimize.linprog), brute-force best
responses, files, and the CFR vs CFR+ comparisons of Tammelin et al. (2015), Figure 2."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from solverkit.core.config import load_config
from solverkit.core.solver import exploitability, run_solve
from solverkit.errors import ConfigError

SKEWED = np.array([[1.0, -2.0], [-2.0, 4.0]])


def lp_solve(A):
    """Value v and maximin row strategy x: max v s.t. x^T A >= v (each column), sum x = 1."""
    m, n = A.shape
    c = np.zeros(m + 1)
    c[-1] = -1.0  # maximise v
    A_ub = np.hstack([-A.T, np.ones((n, 1))])  # v - (x^T A)_j <= 0
    A_eq = np.hstack([np.ones((1, m)), np.zeros((1, 1))])
    res = linprog(c, A_ub=A_ub, b_ub=np.zeros(n), A_eq=A_eq, b_eq=[1.0], bounds=[(0, None)] * m + [(None, None)])
    assert res.status == 0
    return res.x[-1], res.x[:m]


def assembly(game, preset="cfr_plus", **solver):
    cfg = {"preset": preset, "game": game}
    if solver:
        cfg["solver"] = solver
    return load_config(cfg)


def test_skewed_pennies_lp():
    v, x = lp_solve(SKEWED)
    assert v == pytest.approx(0.0, abs=1e-9)
    np.testing.assert_allclose(x, [2 / 3, 1 / 3], atol=1e-9)
    game = assembly("skewed_pennies").game
    np.testing.assert_array_equal(game.matrix, SKEWED)
    # the equilibrium (2/3, 1/3) for both players has zero exploitability
    eq = [np.array([2 / 3, 1 / 3]), np.array([2 / 3, 1 / 3])]
    expl, br0, br1 = exploitability(game, eq)
    assert expl == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize(
    "game",
    [
        "skewed_pennies",
        {"name": "random_matrix", "rows": 5, "cols": 7, "seed": 0},
        {"name": "random_matrix", "rows": 5, "cols": 7, "seed": 1},
        {"name": "random_matrix", "rows": 5, "cols": 7, "seed": 2},
        {"name": "random_matrix", "rows": 7, "cols": 5, "seed": 3},
    ],
)
def test_cfr_plus_reaches_the_lp_value(game):
    asm = assembly(game, iterations=3000, eval_every=50)
    v, _ = lp_solve(asm.game.matrix)
    res = run_solve(asm)
    for row in res.metrics:  # best responses bound the value for any profile
        assert row["br_0"] >= v - 1e-9
        assert -row["br_1"] <= v + 1e-9
        assert row["exploitability"] == pytest.approx((row["br_0"] + row["br_1"]) / 2, abs=1e-15)
    assert res.exploitability < 1e-3
    x, y = res.strategy
    assert x @ asm.game.matrix @ y == pytest.approx(v, abs=2 * res.exploitability)
    assert res.br[0] - v <= 2 * res.exploitability + 1e-12
    assert v + res.br[1] <= 2 * res.exploitability + 1e-12


def brute_force_br(A, x, y):
    m, n = len(A), len(A[0])
    br0 = max(sum(A[i][j] * y[j] for j in range(n)) for i in range(m))
    br1 = max(-sum(x[i] * A[i][j] for i in range(m)) for j in range(n))
    return br0, br1


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 6), st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_best_response_brute_force(rows, cols, seed):
    asm = assembly({"name": "random_matrix", "rows": rows, "cols": cols, "seed": seed % 1000})
    A = asm.game.matrix
    rng = np.random.default_rng(seed)
    x = rng.dirichlet(np.ones(rows))
    y = rng.dirichlet(np.ones(cols))
    br0, br1 = asm.game.best_response([x, y])
    w0, w1 = brute_force_br(A.tolist(), x.tolist(), y.tolist())
    assert br0 == pytest.approx(w0, rel=1e-12, abs=1e-12)
    assert br1 == pytest.approx(w1, rel=1e-12, abs=1e-12)
    # no mixed response does better than the best pure one
    for _ in range(5):
        assert rng.dirichlet(np.ones(rows)) @ A @ y <= br0 + 1e-12
        assert -(x @ A @ rng.dirichlet(np.ones(cols))) <= br1 + 1e-12


# --- matrices from files -----------------------------------------------------------------------


def _file_game(path):
    return {"name": "matrix_file", "path": str(path)}


@pytest.mark.parametrize("ext", ["npy", "csv", "CSV"])
def test_matrix_file_equals_the_matrix(tmp_path, ext):
    ref = assembly({"name": "random_matrix", "rows": 4, "cols": 6, "seed": 5}, iterations=200, eval_every=10)
    path = tmp_path / f"m.{ext}"
    if ext == "npy":
        np.save(path, ref.game.matrix)
    else:
        np.savetxt(path, ref.game.matrix, delimiter=",", fmt="%.17g")
    asm = assembly(_file_game(path), iterations=200, eval_every=10)
    np.testing.assert_array_equal(asm.game.matrix, ref.game.matrix)
    a, b = run_solve(ref), run_solve(asm)
    assert [r["exploitability"] for r in a.metrics] == [r["exploitability"] for r in b.metrics]
    for p in (0, 1):
        np.testing.assert_array_equal(a.strategy[p], b.strategy[p])


def test_matrix_file_single_row_csv_is_2d(tmp_path):
    path = tmp_path / "row.csv"
    path.write_text("1,2,3\n")
    assert assembly(_file_game(path)).game.matrix.shape == (1, 3)


@pytest.mark.parametrize(
    "name, content, expect",
    [
        ("missing.npy", None, "file not found"),
        ("folder.npy", "dir", "is not a regular file; expected a .csv or .npy file"),  # was 'file not found'
        ("m.txt", "1,2\n3,4\n", "unsupported extension '.txt'"),
        ("vec.npy", np.array([1.0, 2.0]), "expected a 2-D matrix"),
        ("cube.npy", np.zeros((2, 2, 2)), "expected a 2-D matrix"),
        ("words.csv", "1,2\nx,y\n", "cannot read the matrix"),
        ("ragged.csv", "1,2\n3\n", "cannot read the matrix"),
        ("strings.npy", np.array([["a", "b"]]), "expected numbers"),
        ("notnpy.npy", "garbage", "cannot read the matrix"),
    ],
)
def test_bad_matrix_files_name_the_path(tmp_path, name, content, expect):
    path = tmp_path / name
    if isinstance(content, np.ndarray):
        np.save(path, content)
    elif content == "dir":
        path.mkdir()
    elif content is not None:
        path.write_text(content)
    with pytest.raises(ConfigError) as info:
        assembly(_file_game(path))
    msg = str(info.value)
    assert str(path) in msg
    assert expect in msg


@pytest.mark.filterwarnings("ignore:loadtxt")
@pytest.mark.parametrize("content", ["1,nan\n2,3\n", ""])
def test_non_finite_or_empty_csv_is_a_config_error(tmp_path, content):
    path = tmp_path / "m.csv"
    path.write_text(content)
    with pytest.raises(ConfigError):
        assembly(_file_game(path))


# --- CFR vs CFR+ (Figure 2 of the CFR+ paper) ----------------------------------------------------


def _iterations_to(game, target, cap, preset, update=None):
    solver = {"iterations": cap, "target": target, "eval_every": 1}
    if update:
        solver["update"] = update
    res = run_solve(assembly(game, preset, **solver))
    return res.iterations if res.reached_target else None


def test_paper_anchors_skewed_pennies_alternating():
    """Figure 2a: to exploitability 1e-3, CFR at iteration 3,539 and CFR+ at 343 (both with
    alternating updates, which is what the paper's numbers match exactly)."""
    assert _iterations_to("skewed_pennies", 1e-3, 5000, "cfr_plus") == 343
    assert _iterations_to("skewed_pennies", 1e-3, 5000, "cfr", update="alternating") == 3539


def test_cfr_plus_five_times_faster_than_textbook_cfr_on_pennies():
    """Textbook CFR (rm + uniform + simultaneous) has not reached 1e-3 after 5x the
    iterations CFR+ needs."""
    n_plus = _iterations_to("skewed_pennies", 1e-3, 5000, "cfr_plus")
    assert n_plus is not None
    assert _iterations_to("skewed_pennies", 1e-3, 5 * n_plus, "cfr") is None


@pytest.mark.parametrize("seed", [0, 1])
def test_cfr_plus_faster_on_a_random_50x50_game(seed):
    game = {"name": "random_matrix", "rows": 50, "cols": 50, "seed": seed}
    n_plus = _iterations_to(game, 1e-3, 3000, "cfr_plus")
    assert n_plus is not None
    # both CFR orders are still above 1e-3 after 3x the iterations CFR+ needed
    assert _iterations_to(game, 1e-3, 3 * n_plus, "cfr") is None
    assert _iterations_to(game, 1e-3, 3 * n_plus, "cfr", update="alternating") is None


def test_matrix_game_presentation():
    game = assembly({"name": "random_matrix", "rows": 2, "cols": 3}).game
    assert game.infoset_keys(0) == ["row"] and game.infoset_keys(1) == ["column"]
    assert game.action_names(0) == ["r0", "r1"] and game.action_names(1) == ["c0", "c1", "c2"]
    assert assembly("skewed_pennies").game.action_names(1) == ["heads", "tails"]


def test_a_csv_with_a_byte_order_mark_reads_as_its_numbers(tmp_path):
    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbf1,2\n3,4\n")
    np.testing.assert_array_equal(assembly(_file_game(path)).game.matrix, [[1.0, 2.0], [3.0, 4.0]])
