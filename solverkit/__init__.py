"""solverkit: plugin-based counterfactual regret minimization for two-player zero-sum games."""

import sys

# Keep solverkit's own bytecode cached even under PYTHONDONTWRITEBYTECODE (as numba's cache=True
# kernels are, in the same __pycache__ folders): without it every `solverkit` process compiles
# its ~160 modules again, 0.24 s of a 0.8 s start-up (issue 30's warm start-up).
sys.dont_write_bytecode = False

from .errors import ConfigError, PluginError, SolverkitError  # noqa: E402

__version__ = "0.1.0"

__all__ = ["ConfigError", "PluginError", "SolverkitError", "__version__", "exploitability", "load_game", "read_policy",
           "solve"]


def solve(config, iterations=None, target=None, out=None, progress=False, **overrides):
    """Solve the assembly `config` (a TOML path, a dict or an Assembly; keyword overrides per
    section); return a :class:`solverkit.api.Solution` (see :func:`solverkit.api.solve`)."""
    from .api import solve as _solve

    return _solve(config, iterations=iterations, target=target, out=out, progress=progress, **overrides)


def load_game(name, /, **params):
    """The game plugin `name` built with `params` (see :func:`solverkit.api.load_game`)."""
    from .api import load_game as _load_game

    return _load_game(name, **params)


def exploitability(game, policy):
    """Exploitability of a policy profile (see :func:`solverkit.api.exploitability`)."""
    from .api import exploitability as _exploitability

    return _exploitability(game, policy)


def read_policy(run_dir, key, player=None):
    """{action: probability} at one information set of a saved solve, reading only the part
    that holds it (see :func:`solverkit.api.read_policy`)."""
    from .api import read_policy as _read_policy

    return _read_policy(run_dir, key, player)
