"""Start-up: numba starts without scipy.linalg, and result.json records the start-up time."""

import json
import os
import subprocess
import sys

import pytest

from solverkit.core.memory import process_age

SKIP = """
import sys
import numba
from solverkit.core.numba_blas import skip_blas_check
skipped = skip_blas_check()
import numpy as np
from solverkit.core.arith import regret_matching
out = np.empty(2)
regret_matching(np.array([1.0, 3.0]), np.zeros(1, np.int64), np.ones(1, np.int64), np.full(1, 2, np.int64), out)
print(skipped, "scipy.linalg" in sys.modules, out.tolist())
"""


def run_skip(env_value=None):
    env = {k: v for k, v in os.environ.items() if k != "SOLVERKIT_NUMBA_BLAS"}
    if env_value is not None:
        env["SOLVERKIT_NUMBA_BLAS"] = env_value
    out = subprocess.run([sys.executable, "-c", SKIP], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.split(maxsplit=2)


def test_kernels_load_without_scipy_linalg():
    skipped, linalg, values = run_skip()
    assert (skipped, linalg) == ("True", "False")
    assert values.strip() == "[0.25, 0.75]"


def test_numba_blas_env_keeps_the_check():
    skipped, linalg, values = run_skip("1")
    assert (skipped, linalg) == ("False", "True")
    assert values.strip() == "[0.25, 0.75]"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")
def test_result_records_startup_seconds(tmp_path):
    from solverkit.core.config import load_config
    from solverkit.core.solver import run_solve

    age = process_age()
    assert age is not None and age > 0
    run_solve(load_config({"preset": "cfr_plus", "game": "kuhn", "solver": {"iterations": 3}}), out=tmp_path)
    result = json.loads((tmp_path / "result.json").read_text())
    # from the start of this (test) process to the first iteration: at least our age before the solve
    assert age <= result["startup_seconds"] <= process_age()


def test_ctrl_c_while_the_command_line_loads_is_no_traceback():
    """Ctrl-C in the first 0.2 s (click importing) was a KeyboardInterrupt traceback through
    importlib (issue 26 round 2): it is 'Aborted!' and status 130, as after loading."""
    code = ("import builtins\nreal = builtins.__import__\n"
            "def imp(name, *a, **k):\n"
            "    if name == 'click':\n        raise KeyboardInterrupt\n"
            "    return real(name, *a, **k)\n"
            "builtins.__import__ = imp\nimport solverkit.cli\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 130 and proc.stderr == "Aborted!\n", (proc.returncode, proc.stderr)


#: what a small solve does not use: other engines' and transports' libraries, figures, numba's
#: compiler registries and array support, and what numba imports only to check a version or read a
#: config file (a kernel loaded from the cache needs none of them: solverkit.core.numba_load)
NOT_FOR_KUHN = ("matplotlib", "pyspiel", "zmq", "dask", "distributed", "asyncio", "scipy", "yaml",
                "numba.np.arraymath", "numba.np.arrayobj", "solverkit.blueprint.engine")


def test_a_small_solve_imports_only_what_it_uses(tmp_path):
    """A 1-iteration Kuhn solve from the command line (issue 30: start-up of a warm run). The first
    run may compile kernels (a cold cache imports numba's compiler); the second loads them."""
    env = {k: v for k, v in os.environ.items() if k not in ("SOLVERKIT_NUMBA_REFRESH", "SOLVERKIT_LOAD_PLUGINS")}
    seen = []
    for run in ("cold", "warm"):
        args = ["solve", "--game", "kuhn", "--preset", "cfr_plus", "--iterations", "1", "--quiet",
                "--out", str(tmp_path / run)]
        code = ("import sys\nfrom solverkit.cli import cli\n"
                f"try:\n    cli({args!r}, prog_name='solverkit')\nexcept SystemExit as exc:\n    assert not exc.code\n"
                f"print('imported:', *(m for m in {NOT_FOR_KUHN!r} if m in sys.modules))")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)
        assert out.returncode == 0, out.stderr
        seen.append(out.stdout.splitlines()[-1])
    assert seen[1] == "imported:", f"a warm Kuhn solve {seen[1]}"
    assert json.loads((tmp_path / "warm" / "result.json").read_text())["iterations"] == 1
