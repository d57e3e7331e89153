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
