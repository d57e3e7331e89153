"""solverkit: plugin-based counterfactual regret minimization for two-player zero-sum games."""

from .errors import ConfigError, PluginError, SolverkitError

__version__ = "0.1.0"

__all__ = ["ConfigError", "PluginError", "SolverkitError", "__version__", "solve"]


def solve(config, iterations=None, target=None, out=None, progress=False):
    """Solve the assembly described by `config` (a TOML path or a dict); return the Result."""
    from .core.config import load_config
    from .core.solver import run_solve

    assembly = load_config(config) if not hasattr(config, "game") else config
    return run_solve(assembly, iterations=iterations, target=target, out=out, progress=progress)
