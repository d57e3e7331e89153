"""solverkit.core.jit and the ahead-of-time build (issue 30): kernels that import numba only when
the JIT must run, argument keys that agree with numba's types, builds found stale when a source
changes, and (slow) a real build whose Kuhn solve matches the JIT's byte for byte without numba."""

import json
import os
import pickle
import subprocess
import sys
import time
from collections import namedtuple

import numpy as np
import pytest

from solverkit.core import aot_load
from solverkit.core.aot_key import freeze, type_key, value_key
from solverkit.core.jit import Kernel

LAZY = """
import sys
from solverkit.core.jit import njit, numba_started
import solverkit.core.arith as arith  # kernels decorated: numba not needed yet
assert isinstance(arith.regret_matching, __import__("solverkit.core.jit", fromlist=["Kernel"]).Kernel)
before = "numba" in sys.modules or "llvmlite" in sys.modules
@njit(cache=False)
def add_one(x):
    return x + 1.0
value = add_one(1.5)  # no build covers it: numba starts
print(before, "numba" in sys.modules, numba_started(), value)
"""


def _child(code, **env):
    full = {**os.environ, **env}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_kernels_import_numba_only_when_called(tmp_path):
    before, after, started, value = _child(LAZY, SOLVERKIT_AOT_DIR=str(tmp_path))
    assert (before, after, started, value) == ("False", "True", "True", "2.5")


def test_compiled_callers_see_kernels_as_dispatchers():
    """A jitted caller calls, and inlines, a kernel that is still lazy (numba types it as its dispatcher)."""
    from solverkit.core.arith import regret_matching, rule_step
    from solverkit.core.jit import njit

    @njit(cache=False)
    def step_all(r, d):
        out = np.empty_like(r)
        for i in range(r.size):
            out[i] = rule_step(r[i], d[i], 1.0, 1.0, 1.0, 0.0)
        return out

    assert isinstance(rule_step, Kernel) and rule_step.targetoptions.get("inline") == "always"
    assert step_all(np.array([1.0, -2.0]), np.array([0.5, 0.5])).tolist() == [1.5, 0.0]
    out = np.empty(2)
    regret_matching(np.array([1.0, 3.0]), np.zeros(1, np.int64), np.ones(1, np.int64), np.full(1, 2, np.int64), out)
    assert out.tolist() == [0.25, 0.75]
    assert pickle.loads(pickle.dumps(regret_matching)) is regret_matching


Pair = namedtuple("Pair", "a b")


def test_value_keys_agree_with_numba_types():
    from numba import typeof

    base = np.arange(12.0).reshape(3, 4)
    readonly = np.ones(3)
    readonly.flags.writeable = False
    values = [np.zeros(3), np.zeros(3, np.int16), base, base.T, base[:, ::2], readonly, np.zeros((0, 2), np.int32),
              1, 2.5, True, None, np.float32(1.0), np.uint64(3), np.bool_(True), (1, 2.0), (np.zeros(2), 3),
              Pair(np.zeros(2), 1), ()]
    for v in values:
        key = value_key(v)
        assert key is not None and key == type_key(typeof(v)), v
        assert freeze(json.loads(json.dumps(key))) == key
    keys = [value_key(v) for v in values]
    assert len(set(keys)) == len(keys) - 1  # all distinct but True and np.bool_(True): numba's boolean both
    assert value_key([1]) is None and value_key(np.zeros(2, dtype="M8[s]")) is None and value_key(2 ** 64) is None


def test_a_build_is_stale_once_a_source_changes(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("x = 1\n")
    sources = {str(src): aot_load.stamp(str(src))}
    assert aot_load.stale_sources(sources) == []
    os.utime(src, ns=(time.time_ns(), time.time_ns() + 10**9))  # touched, same text: still current
    assert aot_load.stale_sources(sources) == []
    src.write_text("x = 2\n")
    assert aot_load.stale_sources(sources) == [str(src)]
    src.unlink()
    assert aot_load.stale_sources(sources) == [str(src)]


def test_the_environment_key_follows_numba_settings(monkeypatch, tmp_path):
    monkeypatch.setenv("SOLVERKIT_AOT_DIR", str(tmp_path))
    key = aot_load.environment_key()
    assert aot_load.build_dir() == tmp_path / key
    monkeypatch.setenv("NUMBA_NUM_THREADS", "1")  # a runtime setting: the same build
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    assert aot_load.environment_key() == key
    monkeypatch.setenv("NUMBA_OPT", "1")  # the machine code changes: another build
    assert aot_load.environment_key() != key


def test_builds_follow_solverkit_cache_dir(monkeypatch, tmp_path):
    """Without SOLVERKIT_AOT_DIR, builds live in solverkit's cache folder (tests: this session's);
    SOLVERKIT_CACHE_DIR=off means no builds (the JIT runs)."""
    monkeypatch.delenv("SOLVERKIT_AOT_DIR", raising=False)
    monkeypatch.setenv("SOLVERKIT_CACHE_DIR", str(tmp_path))
    assert aot_load.build_dir() == tmp_path / "aot" / aot_load.environment_key()
    monkeypatch.setenv("SOLVERKIT_CACHE_DIR", "off")
    aot_load.reset()
    try:
        assert aot_load.build_dir() is None and aot_load.table_for("solverkit.core.arith:regret_matching") == {}
        assert "off" in aot_load.reason
    finally:
        aot_load.reset()


def test_a_missing_or_foreign_manifest_means_no_build(tmp_path, monkeypatch):
    monkeypatch.setenv("SOLVERKIT_AOT_DIR", str(tmp_path))
    aot_load.reset()
    try:
        assert aot_load.table_for("solverkit.core.arith:regret_matching") == {}
        assert "no build" in aot_load.reason
        d = aot_load.build_dir()
        d.mkdir(parents=True)
        (d / aot_load.MANIFEST).write_text(json.dumps({"format": 0}))
        aot_load.reset()
        assert aot_load.table_for("solverkit.core.arith:regret_matching") == {}
        src = tmp_path / "k.py"
        src.write_text("")
        stamp = aot_load.stamp(str(src))
        src.write_text("changed")
        (d / aot_load.MANIFEST).write_text(json.dumps({"format": aot_load.FORMAT, "sources": {str(src): stamp},
                                                       "module": "x", "file": "x.so", "entries": []}))
        aot_load.reset()
        assert aot_load.table_for("solverkit.core.arith:regret_matching") == {} and "stale" in aot_load.reason
    finally:
        aot_load.reset()


SOLVE = """
import json, sys, pathlib
from solverkit.core.config import load_config
from solverkit.core.solver import run_solve
out = pathlib.Path(sys.argv[1])
run_solve(load_config({"preset": "cfr_plus", "game": "kuhn", "solver": {"iterations": 20},
                       "transport": {"threads": 1}}), out=out)
print(json.dumps({"numba": "numba" in sys.modules, "llvmlite": "llvmlite" in sys.modules,
                  "exploitability": json.loads((out / "result.json").read_text())["exploitability"]}))
"""


@pytest.mark.slow
def test_a_real_build_solves_kuhn_as_the_jit_does_without_numba(tmp_path):
    """solverkit compile (Kuhn only, ~25 s), then a Kuhn solve in a process that never imports numba:
    the same strategy file, byte for byte, and the same exploitability as numba's JIT."""
    from solverkit.core.aot_build import compiler_available

    if not compiler_available():
        pytest.skip("no C compiler")
    env = {**os.environ, "SOLVERKIT_AOT_DIR": str(tmp_path / "aot")}
    built = subprocess.run([sys.executable, "-m", "solverkit", "compile", "--game", "kuhn", "--iterations", "5"],
                           capture_output=True, text=True, env=env, timeout=900)
    assert built.returncode == 0, built.stderr
    runs = {}
    for mode in ("0", "1"):
        out = subprocess.run([sys.executable, "-c", SOLVE, str(tmp_path / mode)], capture_output=True, text=True,
                             env={**env, "SOLVERKIT_AOT": mode}, timeout=600)
        assert out.returncode == 0, out.stderr
        runs[mode] = json.loads(out.stdout.splitlines()[-1])
    assert runs["0"]["numba"] and not runs["1"]["numba"] and not runs["1"]["llvmlite"]
    assert runs["0"]["exploitability"] == runs["1"]["exploitability"]
    assert (tmp_path / "0" / "strategy.npz").read_bytes() == (tmp_path / "1" / "strategy.npz").read_bytes()
    status = subprocess.run([sys.executable, "-m", "solverkit", "compile", "--status"], capture_output=True,
                            text=True, env=env, timeout=120)
    assert ": current;" in status.stdout and "solverkit.poker.kernels:dfs_pass" in status.stdout


def test_compile_without_a_c_compiler_is_one_line(monkeypatch, tmp_path):
    """No C compiler: ``solverkit compile`` says so in one line (solves keep numba's JIT)."""
    from click.testing import CliRunner

    import solverkit.core.aot_build as aot_build
    from solverkit.cli import cli

    monkeypatch.setenv("SOLVERKIT_AOT_DIR", str(tmp_path))
    monkeypatch.setattr(aot_build, "compiler_available", lambda: False)
    res = CliRunner().invoke(cli, ["compile", "--game", "kuhn"])
    assert res.exit_code != 0 and "no C compiler found" in res.output and len(res.output.strip().splitlines()) == 1
    status = CliRunner().invoke(cli, ["compile", "--status"])
    assert status.exit_code == 0 and status.output.startswith("no build in ")


def test_a_numba_without_pycc_is_said_in_one_line(monkeypatch, tmp_path):
    """numba announces numba.pycc's removal: a numba without it makes ``solverkit compile`` say
    so in one line (solves keep numba's JIT), not a traceback."""
    import sys

    from click.testing import CliRunner

    from solverkit.cli import cli

    monkeypatch.setenv("SOLVERKIT_AOT_DIR", str(tmp_path))
    monkeypatch.setitem(sys.modules, "numba.pycc", None)  # import numba.pycc raises ImportError
    res = CliRunner().invoke(cli, ["compile", "--game", "kuhn"])
    lines = [line for line in res.output.strip().splitlines() if not line.startswith("loading the kernels")]
    assert res.exit_code != 0 and len(lines) == 1 and "has no numba.pycc" in lines[0], res.output
    assert not list(tmp_path.glob("*.so"))


def test_a_kernel_made_in_a_function_never_takes_a_build(monkeypatch, tmp_path):
    """Kernels made by one factory share a name: a build could not tell them apart, so they have none."""
    from solverkit.core import jit
    from solverkit.core.aot_build import called_signatures

    def make(c):
        @jit.njit(cache=False)
        def add(x):
            return x + c
        return add

    monkeypatch.setattr(aot_load, "table_for", lambda key: pytest.fail(f"looked up {key}"))
    one, two = make(1.0), make(2.0)
    assert one.aot_function((1.0,)) is None and two.aot_function((1.0,)) is None
    assert (one(1.0), two(1.0)) == (2.0, 3.0)
    assert "<locals>" in one.key and not [k for k, _ in called_signatures() if "<locals>" in k]
