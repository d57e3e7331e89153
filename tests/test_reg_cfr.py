"""Reg-CFR (solverkit/rules_regularised.py, rule ``reg_cfr``; Liu, Ozdaglar, Yu and Zhang, ICLR
2023) against references written here independently, in the paper's form (probabilities of a
reference point x^ and a played point x, multiplicative optimistic steps), not the engine's
(R, pred) bookkeeping:

    x^(t+1) ~ x^t^(1 - eta tau) exp(eta g^t),   x(t+1) ~ x^(t+1)^(1 - eta tau) exp(eta g^t)

with g^t the counterfactual action values of the profile x^t (both players at once): on a matrix
game (g = A y, -A^T x), on Kuhn poker over explicit histories (both engines) and on Leduc. Its last iterate
reaches the information sets' softmax fixed point x = softmax(g(x) / tau), solved here by a
damped fixed-point iteration; on Leduc exploitability falls to the limit that ``mmd`` (the same
fixed point, another algorithm) reaches at the same tau."""

from __future__ import annotations

import numpy as np
import pytest

from solverkit.core.config import load_config
from solverkit.core.solver import Solver
from solverkit.errors import ConfigError

from .history_reference import Histories

MATRIX = {"name": "random_matrix", "rows": 4, "cols": 3, "seed": 7}


def _config(game, **rule):
    return load_config({"game": game, "rule": {"name": "reg_cfr", **rule}, "averaging": "current",
                        "solver": {"update": "simultaneous"}})


def _softmax(z):
    e = np.exp(z - z.max())
    return e / e.sum()


def _tau(tau, halve_every, t):
    return tau * 0.5 ** ((t - 1) // halve_every) if halve_every else tau


def _step(xhat, g, eta, tau):
    """One optimistic step of one information set: (new reference, new played point)."""
    keep = 1.0 - eta * tau
    new_hat = _softmax(keep * np.log(xhat) + eta * g)
    return new_hat, _softmax(keep * np.log(new_hat) + eta * g)


# --- the matrix game ---------------------------------------------------------------------------


@pytest.mark.parametrize("eta, tau, halve_every", [(0.7, 0.3, 0), (1.5, 0.2, 3), (0.4, 0.0, 0)])
def test_matrix_iterates_are_the_papers_recursion(eta, tau, halve_every):
    A = np.random.default_rng(MATRIX["seed"]).standard_normal((MATRIX["rows"], MATRIX["cols"]))
    xh, yh = np.full(4, 1 / 4), np.full(3, 1 / 3)
    x, y = xh.copy(), yh.copy()
    s = Solver(_config(MATRIX, eta=eta, tau=tau, halve_every=halve_every))
    try:
        for t in range(1, 16):
            gx, gy, tt = A @ y, -A.T @ x, _tau(tau, halve_every, t)
            (xh, x), (yh, y) = _step(xh, gx, eta, tt), _step(yh, gy, eta, tt)
            s.step()
            sx, sy = s.strategy("current")
            np.testing.assert_allclose(sx, x, rtol=0, atol=1e-12)
            np.testing.assert_allclose(sy, y, rtol=0, atol=1e-12)
    finally:
        s.close()


# --- Kuhn poker over explicit histories --------------------------------------------------------


def _flat(solver, profile):
    """A profile dict as the engine's per-player arrays (layout order of its keys)."""
    return [np.concatenate([profile[(p, k)] for k in solver.game.infoset_keys(p)]) for p in (0, 1)]


def _reference(game="kuhn_tree"):
    s = Solver(_config(game))
    try:
        return Histories(s.game)
    finally:
        s.close()


@pytest.fixture(scope="module")
def kuhn():
    return _reference()


@pytest.mark.parametrize("game, tree, iterations", [("kuhn_tree", "kuhn_tree", 10), ("kuhn", "kuhn_tree", 10),
                                                    ("leduc_tree", "leduc_tree", 4)])
def test_iterates_are_the_papers_recursion(kuhn, game, tree, iterations):
    """Both engines (the tree engine's kuhn_tree, the poker engine's kuhn: the same keys), and
    Leduc's two rounds with a public card on the tree engine."""
    eta, tau = 1.3, 0.2
    ref = kuhn if tree == "kuhn_tree" else _reference(tree)
    hat = {k: np.full(n, 1.0 / n) for k, n in ref.sets.items()}
    x = dict(hat)
    s = Solver(_config(game, eta=eta, tau=tau))
    try:
        for _ in range(iterations):
            g = ref.values(x)
            for k in ref.sets:
                hat[k], x[k] = _step(hat[k], g[k], eta, tau)
            s.step()
            for ours, want in zip(s.strategy("current"), _flat(s, x)):
                np.testing.assert_allclose(ours, want, rtol=0, atol=1e-12)
    finally:
        s.close()


def _fixed_point(ref, tau, iterations=1500, damping=0.2):
    """x = softmax(g(x) / tau) at every information set, by damped iteration."""
    x = {k: np.full(n, 1.0 / n) for k, n in ref.sets.items()}
    for _ in range(iterations):
        g = ref.values(x)
        x = {k: (1 - damping) * x[k] + damping * _softmax(g[k] / tau) for k in x}
    g = ref.values(x)
    residual = max(np.abs(x[k] - _softmax(g[k] / tau)).max() for k in x)
    return x, residual


def test_kuhn_last_iterate_reaches_the_regularised_fixed_point(kuhn):
    tau = 0.05
    fixed, residual = _fixed_point(kuhn, tau)
    assert residual < 1e-10
    s = Solver(_config("kuhn_tree", eta=2.0, tau=tau))
    try:
        gaps = []
        for k in (10, 100, 2000):
            s.step(k - s.iteration)
            gaps.append(max(np.abs(a - b).max() for a, b in zip(s.strategy("current"), _flat(s, fixed))))
        assert gaps[0] > 1e-3 and gaps[1] < 0.2 * gaps[0] and gaps[2] < 1e-9, gaps
    finally:
        s.close()


# --- Leduc --------------------------------------------------------------------------------------


def _leduc_run(rule, checks):
    s = Solver(load_config({"game": "leduc", "rule": rule, "averaging": "current",
                            "solver": {"update": "simultaneous"}}))
    out, done = [], 0
    try:
        for k in checks:
            s.step(k - done)
            done = k
            out.append(s.evaluate()["exploitability"])
        return out, s.strategy("current")
    finally:
        s.close()


def test_leduc_last_iterate_falls_to_the_regularised_limit():
    """tau 0.01: the last iterate's exploitability falls and levels off where mmd's does (the
    same fixed point; it stays well away from 0 at this tau, as the regularised equilibrium does)."""
    checks = [1, 10, 100, 1000, 4000]
    ours, strat = _leduc_run({"name": "reg_cfr", "eta": 1.0, "tau": 0.01}, checks)
    assert ours[1] < ours[0] and ours[2] < 0.5 * ours[1] and ours[3] < ours[2]
    theirs, mmd = _leduc_run({"name": "mmd", "eta": 1.0, "tau": 0.01}, [4000])
    assert abs(ours[-1] - theirs[-1]) < 1e-6 * theirs[-1]
    for a, b in zip(strat, mmd):
        np.testing.assert_allclose(a, b, atol=1e-6)
    assert ours[-1] > 0.3  # the limit at tau 0.01 is the regularised one, not Nash


# --- bad parameters ----------------------------------------------------------------------------


@pytest.mark.parametrize("bad, words", [
    ({"eta": 0.0}, ["eta", "0.0", "> 0"]),
    ({"tau": -1.0}, ["tau", "-1.0", ">= 0"]),
    ({"eta": 10.0, "tau": 0.1}, ["eta * tau", "10.0", "0.1", "< 1"]),
    ({"halve_every": -2}, ["halve_every", "-2", ">= 0"]),
    ({"step": 1.0}, ["step"]),
])
def test_bad_parameters_are_refused_in_one_line(bad, words):
    with pytest.raises(ConfigError) as err:
        _config("kuhn_tree", **bad)
    text = str(err.value)
    assert "\n" not in text
    for w in words:
        assert w in text, (w, text)
