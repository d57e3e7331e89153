"""Two-player zero-sum matrix games (row player maximises x^T A y) for CFR and CFR+.

A matrix game is a sequential game with one information set per player, so a CFR pass is two
matrix-vector products: the row player's counterfactual values are A y, the column player's
are -x^T A. Exploitability of (x, y) is (max A y + max -x^T A) / 2.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from solverkit.core.game import Game, PassJob
from solverkit.core.layout import Layout, policy
from solverkit.core.params import Param
from solverkit.errors import ConfigError


class MatrixGame(Game):
    """Base of the matrix games: subclasses build ``self.matrix`` (rows x cols, row payoff)."""

    unit_name = "payoff"

    def __init__(self, **params):
        super().__init__(**params)
        matrix = np.ascontiguousarray(self.build_matrix(), dtype=np.float64)
        if matrix.ndim != 2 or matrix.shape[0] < 1 or matrix.shape[1] < 1:
            raise ConfigError(f"game {self.name!r}: payoff matrix must be 2-D and non-empty, got shape {matrix.shape}")
        if not np.all(np.isfinite(matrix)):
            raise ConfigError(f"game {self.name!r}: payoff matrix has non-finite entries")
        self.matrix = matrix
        self._layouts = (Layout.single(matrix.shape[0]), Layout.single(matrix.shape[1]))

    def build_matrix(self) -> np.ndarray:
        raise NotImplementedError

    def layout(self, player):
        return self._layouts[player]

    def cfr_pass(self, store, job: PassJob, transport=None):
        A = self.matrix
        with store.open("root") as seg:
            r0, r1 = seg["regret0"], seg["regret1"]
            s0, s1 = seg.get("avg0"), seg.get("avg1")
            x = policy(r0, self._layouts[0])
            y = policy(r1, self._layouts[1])
            if 0 in job.players:
                u0 = A @ y  # row player's action values against y
                d0 = u0 - x @ u0
            if 1 in job.players:
                u1 = -(x @ A)  # column player's action values against x
                d1 = u1 - y @ u1
            if 0 in job.players:
                job.update_regret(r0, d0)
                job.accumulate(s1, y)  # y is what the row player's regrets were computed against
            if 1 in job.players:
                job.update_regret(r1, d1)
                job.accumulate(s0, x)

    def best_response(self, strategy):
        x, y = strategy
        return float(np.max(self.matrix @ y)), float(np.max(-(x @ self.matrix)))

    def infoset_keys(self, player):
        return ["row" if player == 0 else "column"]

    def action_names(self, player):
        return [f"{'r' if player == 0 else 'c'}{i}" for i in range(self.matrix.shape[player])]


class SkewedPennies(MatrixGame):
    """Matching pennies with skewed payoffs (Tammelin et al. 2015, Figure 2a): the row player
    gets +1 when both show heads, +4 when both show tails, -2 otherwise."""

    name = "skewed_pennies"
    description = "matching pennies, row payoffs +1 (heads), +4 (tails), -2 (mismatch)"
    params = {
        "heads": Param("float", 1.0, "row payoff when both show heads"),
        "tails": Param("float", 4.0, "row payoff when both show tails"),
        "mismatch": Param("float", -2.0, "row payoff when the coins differ"),
    }

    def build_matrix(self):
        c = self.config
        return np.array([[c["heads"], c["mismatch"]], [c["mismatch"], c["tails"]]])

    def action_names(self, player):
        return ["heads", "tails"]


class RandomMatrix(MatrixGame):
    """A rows x cols game with i.i.d. N(0, 1) payoffs drawn from numpy's default_rng(seed)."""

    name = "random_matrix"
    description = "random game, payoffs i.i.d. N(0,1) from a seed"
    params = {
        "rows": Param("int", 1000, "row player's actions", min=1, max=100_000),
        "cols": Param("int", 1000, "column player's actions", min=1, max=100_000),
        "seed": Param("int", 0, "seed of numpy.random.default_rng", min=0),
    }

    def build_matrix(self):
        c = self.config
        if c["rows"] * c["cols"] > 400_000_000:
            raise ConfigError(
                f"game 'random_matrix': rows x cols = {c['rows'] * c['cols']:,} payoffs exceeds 400,000,000 (3.2 GB)"
            )
        return np.random.default_rng(c["seed"]).standard_normal((c["rows"], c["cols"]))


class MatrixFile(MatrixGame):
    """A payoff matrix for the row player from a .npy file or a comma-separated .csv file."""

    name = "matrix_file"
    description = "payoff matrix from a .npy or .csv file"
    params = {"path": Param("path", None, "the .npy or .csv file", required=True)}

    def build_matrix(self):
        path = Path(self.config["path"])
        if not path.is_file():
            raise ConfigError(f"[game] path = {str(path)!r}: file not found")
        suffix = path.suffix.lower()
        try:
            if suffix == ".npy":
                m = np.load(path, allow_pickle=False)
            elif suffix == ".csv":
                m = np.loadtxt(path, delimiter=",", ndmin=2, dtype=np.float64)
            else:
                raise ConfigError(f"[game] path = {str(path)!r}: unsupported extension {suffix!r}; valid: .csv, .npy")
        except ConfigError:
            raise
        except Exception as exc:
            raise ConfigError(f"[game] path = {str(path)!r}: cannot read the matrix: {exc}") from None
        if m.ndim != 2:
            raise ConfigError(f"[game] path = {str(path)!r}: expected a 2-D matrix, got shape {m.shape}")
        if not np.issubdtype(m.dtype, np.number):
            raise ConfigError(f"[game] path = {str(path)!r}: expected numbers, got dtype {m.dtype}")
        return m
