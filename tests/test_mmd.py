"""Magnetic mirror descent (solverkit/rules_regularised.py): on a matrix game its iterates are
the recursion x' = softmax((log x + eta A y) / (1 + eta tau)) (simultaneous, computed here
independently), and its last iterate reaches the logit quantal response equilibrium with
temperature tau (an independent fixed-point solve); on Leduc it lowers exploitability."""

import numpy as np
import pytest

from solverkit.core.config import load_config
from solverkit.core.solver import Solver
from solverkit.errors import ConfigError

GAME = {"name": "random_matrix", "rows": 4, "cols": 3, "seed": 7}


def _matrix():
    return np.random.default_rng(GAME["seed"]).standard_normal((GAME["rows"], GAME["cols"]))


def _softmax(z):
    e = np.exp(z - z.max())
    return e / e.sum()


def _solver(eta, tau):
    return Solver(load_config({"preset": "mmd", "game": GAME, "rule": {"name": "mmd", "eta": eta, "tau": tau}}))


def test_iterates_are_the_mmd_recursion():
    A, eta, tau = _matrix(), 0.7, 0.3
    x, y = np.full(4, 1 / 4), np.full(3, 1 / 3)
    s = _solver(eta, tau)
    try:
        for _ in range(12):
            x, y = (_softmax((np.log(x) + eta * A @ y) / (1 + eta * tau)),
                    _softmax((np.log(y) - eta * A.T @ x) / (1 + eta * tau)))
            s.step()
        sx, sy = s.strategy("current")
        np.testing.assert_allclose(sx, x, rtol=0, atol=1e-12)
        np.testing.assert_allclose(sy, y, rtol=0, atol=1e-12)
    finally:
        s.close()


def test_last_iterate_is_the_logit_qre():
    A, eta, tau = _matrix(), 1.0, 0.5
    x, y = np.full(4, 1 / 4), np.full(3, 1 / 3)
    for _ in range(20000):  # damped fixed point of x = softmax(A y / tau), y = softmax(-A^T x / tau)
        x = 0.9 * x + 0.1 * _softmax(A @ y / tau)
        y = 0.9 * y + 0.1 * _softmax(-A.T @ x / tau)
    assert np.abs(x - _softmax(A @ y / tau)).max() < 1e-13
    s = _solver(eta, tau)
    try:
        s.step(600)
        sx, sy = s.strategy("current")
        np.testing.assert_allclose(sx, x, atol=1e-9)
        np.testing.assert_allclose(sy, y, atol=1e-9)
    finally:
        s.close()


def test_leduc_exploitability_falls():
    s = Solver(load_config({"preset": "mmd", "game": "leduc"}))
    try:
        s.step()
        first = s.evaluate()["exploitability"]
        s.step(299)
        assert s.evaluate()["exploitability"] < 0.3 * first
    finally:
        s.close()


@pytest.mark.parametrize("bad", [{"eta": 0.0}, {"tau": -1.0}, {"step": 1.0}])
def test_bad_parameters_are_refused(bad):
    with pytest.raises(ConfigError, match="mmd|eta|tau|step"):
        load_config({"preset": "mmd", "game": "kuhn", "rule": {"name": "mmd", **bad}})
