"""Matrix games: the fused pass kernels against numpy references, and the O(n) evaluation of the
average strategy (avgval0 = A S1, avgval1 = -(S0 A) kept in the store) against the exact one."""

import numpy as np
import pytest

from solverkit.core.averaging import Averaging
from solverkit.core.compressor import Compressor
from solverkit.core.config import load_config
from solverkit.core.game import PassJob
from solverkit.core.layout import Layout, policy
from solverkit.core.solver import Solver
from solverkit.core.store import Store
from solverkit_compressors.none import NoCompression
from solverkit_matrix.games import average_best_responses, current_policy, instantaneous_regret


def solver_for(preset="cfr_plus", rows=30, cols=20, seed=4, **tables):
    cfg = {"preset": preset, "game": {"name": "random_matrix", "rows": rows, "cols": cols, "seed": seed}}
    cfg.update(tables)
    return Solver(load_config(cfg))


def close_to(fast, exact):
    """Fast and exact best responses agree to rounding, relative to the payoff scale (~1)."""
    return abs(fast - exact) <= 1e-12 * max(1.0, abs(exact))


# --- kernels -----------------------------------------------------------------------------------


VECTORS = [
    [0.5, -1.0, 2.0, 0.0],
    [-1.0, -2.0, -0.5],  # no positive regret: uniform
    [0.0, 0.0],
    [1e-300, 3e-300, -1.0],
    [7.0],
]


@pytest.mark.parametrize("values", VECTORS + [list(np.random.default_rng(0).standard_normal(257))])
def test_current_policy_equals_layout_policy(values):
    r = np.array(values)
    out = np.empty_like(r)
    current_policy(r, out)
    np.testing.assert_array_equal(out, policy(r, Layout.single(len(r))))


@pytest.mark.parametrize("negate", [False, True])
@pytest.mark.parametrize("values", VECTORS + [list(np.random.default_rng(1).standard_normal(257))])
def test_instantaneous_regret_matches_numpy(values, negate):
    r = np.array(values)
    u = np.random.default_rng(2).standard_normal(len(r))
    ref_u = -u if negate else u
    sigma = policy(r, Layout.single(len(r)))
    expected = ref_u - sigma @ ref_u
    got_u, delta = u.copy(), np.empty_like(u)
    instantaneous_regret(r, got_u, negate, delta)
    np.testing.assert_array_equal(got_u, ref_u)
    np.testing.assert_allclose(delta, expected, rtol=0, atol=1e-13 * max(1.0, np.abs(ref_u).max()))


def test_average_best_responses_kernel_and_its_refusals():
    v0, v1 = np.array([1.0, 3.0]), np.array([-2.0, 0.5, 0.25])
    s0, s1 = np.array([1.0, 3.0]), np.array([0.5, 0.0, 1.5])
    assert average_best_responses(v0, v1, s0, s1) == (3.0 / 2.0, 0.5 / 4.0)
    br0, br1 = average_best_responses(v0, v1, np.zeros(2), s1)  # no weight yet
    assert br0 == 1.5 and np.isnan(br1)
    br0, br1 = average_best_responses(v0, v1, s0, np.array([1.0, -0.5, 1.0]))  # negative weight
    assert np.isnan(br0) and br1 == 0.125
    br0, _ = average_best_responses(np.array([np.nan, 1.0]), v1, s0, s1)
    assert np.isnan(br0)


# --- passes against a numpy reference ------------------------------------------------------------


def reference_run(A, iterations, alternating, plus, linear):
    """Textbook CFR / CFR+ on a matrix game: the plain numpy pass the fused one replaced."""
    rows, cols = A.shape
    r0, r1, s0, s1 = np.zeros(rows), np.zeros(cols), np.zeros(rows), np.zeros(cols)
    L0, L1 = Layout.single(rows), Layout.single(cols)

    def fold(r, d):
        r += d
        if plus:
            np.maximum(r, 0.0, out=r)

    for t in range(1, iterations + 1):
        w = float(t) if linear else 1.0
        groups = ((0,), (1,)) if alternating else ((0, 1),)
        for players in groups:
            x, y = policy(r0, L0), policy(r1, L1)
            u0, u1 = A @ y, -(x @ A)
            if 0 in players:
                fold(r0, u0 - x @ u0)
                s1 += w * y
            if 1 in players:
                fold(r1, u1 - y @ u1)
                s0 += w * x
    return r0, r1, s0, s1


@pytest.mark.parametrize(
    "preset, alternating, plus, linear",
    [("cfr_plus", True, True, True), ("cfr", True, False, False), ("cfr", False, False, False)],
)
def test_pass_matches_the_numpy_reference(preset, alternating, plus, linear):
    solver = solver_for(preset, rows=13, cols=9, seed=7, solver={"update": "alternating" if alternating else "simultaneous"})
    for _ in range(200):
        solver.step()
    seg = solver.store.read("root")
    ref = reference_run(solver.game.matrix, 200, alternating, plus, linear)
    for name, want in zip(("regret0", "regret1", "avg0", "avg1"), ref):
        np.testing.assert_allclose(seg[name], want, rtol=1e-9, atol=1e-9 * np.abs(want).max())


def test_alternating_cfr_on_a_row_vector_game():
    """1 x n and n x 1 games: one player has a single action (regret always zero)."""
    for rows, cols in ((1, 5), (5, 1)):
        solver = solver_for("cfr", rows=rows, cols=cols, seed=1, solver={"update": "alternating"})
        for _ in range(50):
            solver.step()
        row = solver.evaluate()
        exact = solver.evaluate(exact=True)
        assert close_to(row["br_0"], exact["br_0"]) and close_to(row["br_1"], exact["br_1"])


# --- the fast evaluation ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "preset, tables",
    [
        ("cfr_plus", {}),
        ("cfr", {}),
        ("lcfr", {}),
        ("dcfr", {}),
        ("cfr_plus", {"averaging": {"name": "quadratic"}}),
        ("cfr", {"solver": {"update": "alternating"}}),
    ],
)
def test_fast_evaluation_matches_exact_over_a_run(preset, tables):
    solver = solver_for(preset, **tables)
    for t in range(1, 301):
        solver.step()
        fast = solver.game.best_response_from_store(solver.store, "average")
        assert fast is not None, f"no fast path at iteration {t}"
        exact = solver.evaluate(exact=True)
        assert close_to(fast[0], exact["br_0"]) and close_to(fast[1], exact["br_1"]), (t, fast, exact)
        row = solver.evaluate()
        assert row["exploitability"] == (fast[0] + fast[1]) / 2.0


def test_delayed_averaging_falls_back_until_the_average_has_weight():
    solver = solver_for("cfr_plus", averaging={"name": "delayed", "delay": 5})
    for t in range(1, 21):
        solver.step()
        fast = solver.game.best_response_from_store(solver.store, "average")
        exact = solver.evaluate(exact=True)
        if t <= 5:
            assert fast is None
        else:
            assert close_to(fast[0], exact["br_0"]) and close_to(fast[1], exact["br_1"])


def test_current_strategy_uses_the_exact_path():
    solver = solver_for("cfr_plus", averaging={"name": "current"})
    assert "avgval0" not in solver.store.specs["root"].arrays
    for _ in range(10):
        solver.step()
    assert solver.game.best_response_from_store(solver.store, "current") is None
    assert solver.evaluate() == solver.evaluate(exact=True)


def test_no_fast_path_before_the_first_pass():
    solver = solver_for("cfr_plus")
    assert solver.game.best_response_from_store(solver.store, "average") is None
    assert solver.game.best_response_from_store(solver.store, "current") is None


class SquaredAveraging(Averaging):
    """Not linear in the contribution: avgval would no longer equal A S."""

    name = "squared_test"
    family = "custom"

    def coefficients(self, t):
        return 1.0, 1.0

    def update(self, total, contrib, t):
        total += contrib * contrib


def test_nonlinear_averaging_disables_the_fast_path():
    asm = load_config({"preset": "cfr_plus", "game": {"name": "random_matrix", "rows": 6, "cols": 4}})
    game = asm.game
    store = Store(game.segments(True), NoCompression())
    for t in range(1, 4):
        for p in (0, 1):
            game.cfr_pass(store, PassJob(t, (p,), asm.rule, SquaredAveraging()), None)
    assert game.best_response_from_store(store, "average") is None
    # a separate store of the same game keeps its own fast path
    other = Store(game.segments(True), NoCompression())
    for p in (0, 1):
        game.cfr_pass(other, PassJob(1, (p,), asm.rule, asm.averaging), None)
    assert game.best_response_from_store(other, "average") is not None


class CopyingCodec(Compressor):
    """A lossless codec that is not a passthrough: every pass decodes fresh arrays."""

    name = "copying_test"

    def compress(self, data, typesize):
        return bytes(data)

    def decompress(self, payload):
        return payload


def test_encoded_store_gives_the_same_numbers():
    asm = load_config({"preset": "cfr_plus", "game": {"name": "random_matrix", "rows": 8, "cols": 5, "seed": 2}})
    game = asm.game
    plain = Store(game.segments(True), NoCompression())
    coded = Store(game.segments(True), CopyingCodec())
    for t in range(1, 31):
        for p in (0, 1):
            for store in (plain, coded):
                game.cfr_pass(store, PassJob(t, (p,), asm.rule, asm.averaging), None)
    a, b = plain.read("root"), coded.read("root")
    assert sorted(a) == sorted(b) == ["avg0", "avg1", "avgval0", "avgval1", "regret0", "regret1"]
    for name in a:
        np.testing.assert_array_equal(a[name], b[name])
    assert game.best_response_from_store(plain, "average") == game.best_response_from_store(coded, "average")


def test_skewed_pennies_anchors_hold_with_the_fast_path():
    """Tammelin et al. (2015), Figure 2a: CFR+ reaches 1e-3 at 343, alternating CFR at 3,539;
    the stopping test now reads the fast path's exploitability."""
    import solverkit

    def iterations(cfg):
        cfg = dict(cfg, game={"name": "skewed_pennies"}, solver=dict(cfg.get("solver", {}), eval_every=1))
        return solverkit.solve(cfg, iterations=5000, target=1e-3).iterations

    assert iterations({"preset": "cfr_plus"}) == 343
    assert iterations({"rule": {"name": "rm"}, "averaging": {"name": "uniform"}, "solver": {"update": "alternating"}}) == 3539


def test_game_pickles_without_its_per_store_buffers():
    import pickle

    solver = solver_for("cfr_plus", rows=5, cols=4)
    solver.step()
    game = pickle.loads(pickle.dumps(solver.game))
    np.testing.assert_array_equal(game.matrix, solver.game.matrix)
    store = Store(game.segments(True), NoCompression())
    game.cfr_pass(store, PassJob(1, (0,), solver.assembly.rule, solver.assembly.averaging), None)
    assert store.read("root")["avg1"].sum() == pytest.approx(1.0)
