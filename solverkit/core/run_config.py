"""The resolved config a run writes and records, and the check that its averaging weighs some iteration."""

from __future__ import annotations

from ..errors import ConfigError
from .config_text import parse_every


def run_config(assembly, iterations=None, target=None, checkpoint_every=None) -> dict:
    """The resolved config a run writes to OUT/config.toml (and records in its checkpoints):
    the assembly's, with the iterations, target and checkpoint interval it runs with (the
    ``[solver]`` values where not given)."""
    cfg = assembly.solver
    resolved = dict(assembly.resolved)
    resolved["solver"] = dict(resolved["solver"], iterations=iterations if iterations is not None else cfg["iterations"],
                              target=target if target is not None else cfg["target"])
    every = checkpoint_every if checkpoint_every is not None else cfg.get("checkpoint_every", "")
    if parse_every(every) is not None:
        resolved["solver"]["checkpoint_every"] = str(every)
    return resolved


def run_config_text(assembly) -> str:
    """OUT/config.toml as a run of `assembly` with its own ``[solver]`` settings writes it."""
    return toml_text(run_config(assembly))


def first_weighted_iteration(averaging, last: int) -> int | None:
    """The first iteration <= `last` that the averaging gives a weight (None: every one is left
    out, so the average holds nothing and its strategy would be uniform, not the solve's)."""
    if not averaging.keeps_average:
        return 1
    for t in range(1, last + 1):
        if averaging.coefficients(t)[1] != 0.0:
            return t
    return None


def check_average_starts(assembly, iterations: int) -> None:
    """Refuse a run whose averaging leaves out every iteration up to its cap (delayed averaging
    with delay >= iterations): its output, the average, would be the uniform strategy."""
    averaging = assembly.averaging
    if averaging.keeps_average and averaging.inline and first_weighted_iteration(averaging, iterations) is None:
        params = ", ".join(f"{k} = {v}" for k, v in averaging.config.items())
        raise ConfigError(f"[averaging] ({averaging.name}{': ' + params if params else ''}) gives no weight to any of "
                          f"the {iterations} iterations of [solver] iterations = {iterations}: the average would "
                          "be empty and the output the uniform strategy; run more iterations than the delay, "
                          "lower it, or use averaging 'current'")



def toml_text(table) -> str:
    """`table` as TOML text."""
    import tomli_w

    return tomli_w.dumps(table)

