"""solverkit.core.numba_load: cached kernels load from their object code (bitcode parsed on use),
NRT's functions load from their own cache file, and numba imports without SciPy and PyYAML."""

import os
import pickle
import subprocess
import sys

import llvmlite.binding as ll
import pytest
from numba import njit

from solverkit.core.numba_load import NRT_FILE, elf_defined


@njit(cache=False)
def _plus_one(x):
    return x + 1.0


def _object_and_bitcode():
    """A compiled library's object code and numba's bitcode for linking, as its cache stores them."""
    _plus_one(1.0)
    compiled = _plus_one.overloads[_plus_one.signatures[0]]
    name, kind, (obj, bitcode) = compiled.library.serialize_using_object_code()
    assert kind == "object"
    return obj, bitcode, {compiled.fndesc.llvm_func_name, compiled.fndesc.llvm_cpython_wrapper_name}


def test_object_code_symbols_are_names_the_bitcode_defines():
    """Every name read from the symbol table is one numba's bitcode parse defines (the engine may
    answer these without parsing); among them, the two numba looks up (the function and its wrapper)."""
    obj, bitcode, entry_points = _object_and_bitcode()
    names = elf_defined(obj)
    if names is None:
        pytest.skip("object code is not 64-bit little-endian ELF here")
    module = ll.parse_bitcode(bitcode)
    defined = {gv.name for group in (module.functions, module.global_variables) for gv in group
               if not gv.is_declaration}
    assert entry_points <= names <= defined


def test_other_formats_are_not_read():
    assert elf_defined(b"\x7fELF\x01\x01" + bytes(64)) is None  # 32-bit
    assert elf_defined(b"MZ" + bytes(64)) is None


LINK = """
import sys, numpy as np
from numba import njit
from solverkit.core.config import load_config  # noqa: F401 (the loads are patched where a solve patches them)
from solverkit.core.numba_load import light_cache_loads, _LazyLinking
assert light_cache_loads()
from solverkit.core.arith import regret_matching
out = np.empty(2)
regret_matching(np.array([1.0, 3.0]), np.zeros(1, np.int64), np.ones(1, np.int64), np.full(1, 2, np.int64), out)
library = regret_matching.overloads[regret_matching.signatures[0]].library
lazy = library._shared_module is None

@njit
def caller(values):  # compiled here: links the library loaded from the cache
    o = np.empty(2)
    regret_matching(values, np.zeros(1, np.int64), np.ones(1, np.int64), np.full(1, 2, np.int64), o)
    return o

linked = caller(np.array([2.0, -1.0])).tolist()
print(lazy, library._shared_module is not None, out.tolist(), linked)
"""


def run_code(code, env_extra=None, cwd=None):
    env = {k: v for k, v in os.environ.items() if k != "SOLVERKIT_NUMBA_REFRESH"}
    env.update(env_extra or {})
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=cwd,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_a_compile_links_a_library_loaded_without_its_bitcode():
    """A kernel loaded from the cache has no parsed bitcode until a new compile links it; then the
    compile parses it and runs with the right numbers."""
    run_code(LINK)  # fills the cache if a checkout's first run
    lazy, parsed, *values = run_code(LINK)
    assert (lazy, parsed) == ("True", "True")
    assert " ".join(values) == "[0.25, 0.75] [1.0, 0.0]"


NRT = """
import numpy as np
from solverkit.core.config import load_config  # noqa: F401
from solverkit.core.numba_load import light_cache_loads
from numba.core.runtime.nrt import rtsys
assert light_cache_loads()
from solverkit.core.arith import regret_matching
out = np.empty(2)
regret_matching(np.array([1.0, 3.0]), np.zeros(1, np.int64), np.ones(1, np.int64), np.full(1, 2, np.int64), out)
print(rtsys._init, out.tolist())
"""


def test_nrt_loads_from_its_file(tmp_path):
    """The first process compiles NRT's functions and keeps them in the kernels' cache directory;
    the next loads them from there (same numbers); a file for another key is not used."""
    env = {"NUMBA_CACHE_DIR": str(tmp_path)}
    first = run_code(NRT, env)
    files = sorted(tmp_path.rglob(NRT_FILE.format(key="*")))
    assert len(files) == 1, files
    key, state = pickle.loads(files[0].read_bytes())
    assert files[0].name == NRT_FILE.format(key=key) and state[1] == "object"
    stamp = files[0].stat().st_mtime_ns
    assert run_code(NRT, env) == first == ["True", "[0.25,", "0.75]"]
    assert files[0].stat().st_mtime_ns == stamp  # loaded, not written again
    files[0].write_bytes(pickle.dumps(("another key", state)))  # refused: compiled, written again
    assert run_code(NRT, env) == first
    assert pickle.loads(files[0].read_bytes())[0] == key


IMPORT = """
import sys
from solverkit.core.numba_load import import_numba
import_numba()
from numba.core import config
print("scipy" in sys.modules, "yaml" in sys.modules, config._HAVE_YAML, getattr(config, "CACHE_DIR", "?") or "-")
"""


def test_numba_imports_without_scipy_and_yaml(tmp_path):
    pytest.importorskip("yaml")
    scipy, yaml, have_yaml, _ = run_code(IMPORT, cwd=tmp_path)
    assert (scipy, yaml, have_yaml) == ("False", "False", "True")


def test_a_numba_config_file_is_still_read(tmp_path):
    """A .numba_config.yaml in the working directory: numba imports PyYAML and reads it."""
    pytest.importorskip("yaml")
    (tmp_path / ".numba_config.yaml").write_text(f"cache_dir: {tmp_path / 'c'}\n")
    scipy, yaml, have_yaml, cache_dir = run_code(IMPORT, cwd=tmp_path)
    assert (yaml, have_yaml, cache_dir) == ("True", "True", str(tmp_path / "c"))



ENVS = """
import sys
from solverkit.core.config import load_config
from solverkit.core.solver import run_solve
run_solve(load_config({"preset": "cfr_plus", "game": "kuhn", "solver": {"iterations": 1}}))
before = "numba.np.arrayobj" in sys.modules
from numba.core.environment import Environment
envs = [e for e in Environment._memo.values() if e.globals.get("__name__") == "numba.np.arrayobj"]
import numba.np.arrayobj as arrayobj
print(before, len(envs) > 0, all(e.globals is arrayobj.__dict__ for e in envs), "make_array" in envs[0].globals)
"""


def test_callee_environments_hold_the_module_imported_later():
    """A warm Kuhn solve loads kernels whose callees live in numba.np.arrayobj without importing it;
    their environments hold the dictionary the module is executed into when it is imported."""
    run_code(ENVS)
    assert run_code(ENVS) == ["False", "True", "True", "True"]


KERNEL = '''
import numpy as np
from numba import njit

@njit(cache=True)
def filled(n, x):
    out = np.empty(n)  # a callee of numba.np.arrayobj: its environment
    out[:] = x
    return out
'''

SAVE_LOAD = """
import sys
sys.path.insert(0, sys.argv[1])
from solverkit.core.config import load_config  # noqa: F401
from solverkit.core.numba_load import light_cache_loads
assert light_cache_loads()
import kernel_mod
print(kernel_mod.filled(3, 2.5).tolist(), "numba.np.arrayobj" in sys.modules)
"""


def test_a_kernel_compiled_and_cached_with_light_loads_loads_again(tmp_path):
    """Compiled (its environments pickled by reference to numba's _rebuild_env) and saved in one
    process, loaded in the next without numba's array support imported."""
    (tmp_path / "kernel_mod.py").write_text(KERNEL)
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    code = SAVE_LOAD.replace("sys.argv[1]", repr(str(tmp_path)))
    assert run_code(code, env) == ["[2.5,", "2.5,", "2.5]", "True"]  # compiled: numba's full refresh
    assert list((tmp_path / "cache").rglob("*.nbi")), "not cached"
    assert run_code(code, env) == ["[2.5,", "2.5,", "2.5]", "False"]  # loaded
