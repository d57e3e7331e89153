"""Review of solverkit.core.numba_load's start-up paths: a damaged NRT cache file (one that
unpickles, with this process's key, but whose object code or bitcode is not what numba wrote)
falls back to compiling NRT's functions, as an absent or foreign one does, instead of ending
every later process with an LLVM or struct error."""

from __future__ import annotations

import pickle

import pytest

from solverkit.core.numba_load import NRT_FILE
from .test_numba_load import NRT, run_code


@pytest.mark.parametrize("damage", ["elf_header_only", "not_object_code"])
def test_a_damaged_nrt_file_is_compiled_again(tmp_path, damage):
    env = {"NUMBA_CACHE_DIR": str(tmp_path)}
    first = run_code(NRT, env)
    (path,) = tmp_path.rglob(NRT_FILE.format(key="*"))
    key, (name, kind, (obj, bitcode), *digest) = pickle.loads(path.read_bytes())
    bad = obj[:64] if damage == "elf_header_only" else b"\0" * 64  # (the digest, if any, of the file as written)
    path.write_bytes(pickle.dumps((key, (name, kind, (bad, bitcode), *digest))))
    assert run_code(NRT, env) == first == ["True", "[0.25,", "0.75]"]
    assert pickle.loads(path.read_bytes())[1][2][0] == obj  # written again as numba compiles it
    assert run_code(NRT, env) == first  # and loaded from there


TWO = '''
import numpy as np
from numba import njit

@njit(cache=True)
def value(x):
    return x + {add}

@njit(cache=True)
def table(n):
    out = np.empty(n)
    for i in range(n):
        out[i] = value(float(i))
    return out
'''

USE_TWO = """
import sys
sys.path.insert(0, {path!r})
from solverkit.core.config import load_config  # noqa: F401
from solverkit.core.numba_load import light_cache_loads
assert light_cache_loads()
from numba import njit
import mod_a, mod_b
both = mod_a.table(2).tolist() + mod_b.table(2).tolist() + [mod_a.value(0.0), mod_b.value(0.0)]

@njit
def linked(x):  # a compile linking both cached libraries: each name its own function
    return mod_a.value(x) * 1000.0 + mod_b.value(x)

print(*both, linked(0.0), sum(len(f.stats.cache_hits) for f in (mod_a.value, mod_a.table, mod_b.value, mod_b.table)))
"""


def test_same_named_kernels_of_two_modules_and_an_edited_kernel_load_their_own_code(tmp_path):
    """Kernels of the same names in two modules, loaded from the cache into one process (and
    linked into a new compile), each run their own code; a module edited after caching (same
    size: only numba's source stamp tells) runs the edit, not the cached code."""
    import os

    (tmp_path / "mod_a.py").write_text(TWO.format(add="1.0"))
    (tmp_path / "mod_b.py").write_text(TWO.format(add="2.0"))
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    code = USE_TWO.format(path=str(tmp_path))
    want = ["1.0", "2.0", "2.0", "3.0", "1.0", "2.0", "1002.0"]
    assert run_code(code, env)[:-1] == want  # compiled and cached
    out = run_code(code, env)
    assert out[:-1] == want and int(out[-1]) >= 4  # loaded from the cache
    stamp = os.stat(tmp_path / "mod_b.py").st_mtime_ns
    (tmp_path / "mod_b.py").write_text(TWO.format(add="5.0"))
    os.utime(tmp_path / "mod_b.py", ns=(stamp + 2_000_000_000, stamp + 2_000_000_000))
    out = run_code(code, env)
    assert out[:-1] == ["1.0", "2.0", "5.0", "6.0", "1.0", "5.0", "1005.0"]
