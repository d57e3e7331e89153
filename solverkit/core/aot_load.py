"""Where ahead-of-time builds live and when one may be used, read without importing numba.

A build is a directory ``<root>/<environment key>/`` (:func:`build_dir`) holding ``manifest.json``
and the extension module it names. The environment key hashes what compiled code depends on
outside solverkit: Python, numba, numpy, the CPU (model and feature flags) and the ``NUMBA_*``
settings that change machine code (not :data:`RUNTIME_ONLY`). The manifest lists the source files the compiled code can depend on (the modules
defining kernels and what they import: :func:`.aot_build._sources`) with their size, mtime and
SHA-256: the build is stale (unused: the JIT runs) as soon as one of them has changed (a file
whose stamp differs is hashed; equal contents pass).
The root is ``SOLVERKIT_AOT_DIR``, else solverkit's cache folder ``aot``
(:func:`.cache.cache_folder`: ``$SOLVERKIT_CACHE_DIR/aot``, default ``~/.cache/solverkit/aot``;
``SOLVERKIT_CACHE_DIR=off``: no builds).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import platform
import sys
import threading
from pathlib import Path

from .identity import file_digest

MANIFEST = "manifest.json"
#: the manifest's format; a different one is ignored
FORMAT = 1

_tables: dict | None = None
_lock = threading.Lock()
#: why no build is used in this process ("" when one is), for ``solverkit compile --status``
reason = ""


def root() -> Path | None:
    """The directory holding the builds (see the module); None when caches are off."""
    env = os.environ.get("SOLVERKIT_AOT_DIR")
    if env:
        return Path(env).expanduser()
    from .cache import cache_folder

    return cache_folder("aot")


def _cpu() -> str:
    """The CPU model and its feature flags (Linux), else what ``platform`` knows."""
    try:
        with open("/proc/cpuinfo") as f:
            lines = {}
            for line in f:
                if not line.strip():
                    break  # the first processor's block
                k, _, v = line.partition(":")
                lines[k.strip()] = v.strip()
        return f"{lines.get('model name', '')}|{lines.get('flags', lines.get('Features', ''))}"
    except OSError:
        return platform.processor()


def _numba_version() -> str:
    """numba's version without importing it (its _version.py's text), or "" when absent."""
    spec = importlib.util.find_spec("numba")
    if spec is None or not spec.origin:
        return ""
    try:
        return Path(spec.origin).with_name("_version.py").read_text()
    except OSError:
        return spec.origin


#: NUMBA_* settings that change where numba keeps things or how it runs threads and reports, not the
#: machine code it makes: left out of the key (a bench's NUMBA_NUM_THREADS=1 child loads the same build)
RUNTIME_ONLY = frozenset(("NUMBA_CACHE_DIR", "NUMBA_NUM_THREADS", "NUMBA_THREADING_LAYER", "NUMBA_WARNINGS",
                          "NUMBA_DISABLE_PERFORMANCE_WARNINGS", "NUMBA_CAPTURED_ERRORS"))


def environment_key() -> str:
    """The hash of what a build depends on outside solverkit (see the module)."""
    import numpy

    settings = sorted((k, v) for k, v in os.environ.items() if k.startswith("NUMBA_") and k not in RUNTIME_ONLY)
    text = repr((sys.version, sys.implementation.cache_tag, platform.machine(), _numba_version(),
                 numpy.__version__, _cpu(), settings))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def build_dir() -> Path | None:
    """This environment's build directory (None when caches are off)."""
    base = root()
    return None if base is None else base / environment_key()


def stamp(path: str) -> list:
    """[size, mtime_ns, sha256] of a source file."""
    st = os.stat(path)
    return [st.st_size, st.st_mtime_ns, file_digest(path)]


def stale_sources(sources: dict) -> list[str]:
    """The files of a manifest's ``sources`` that changed or are gone."""
    changed = []
    for path, (size, mtime, digest) in sources.items():
        try:
            st = os.stat(path)
        except OSError:
            changed.append(path)
            continue
        if st.st_size == size and st.st_mtime_ns == mtime:
            continue
        if st.st_size != size or file_digest(path) != digest:
            changed.append(path)
    return changed


def read_manifest(directory: Path) -> dict | None:
    try:
        manifest = json.loads((directory / MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    return manifest if manifest.get("format") == FORMAT else None


def _load() -> dict:
    """kernel key -> {argument key: compiled function} of this environment's build, when it is
    there and fresh; {} otherwise (:data:`reason` says why)."""
    global reason
    from .aot_key import freeze

    directory = build_dir()
    if directory is None:
        reason = "caches are off (SOLVERKIT_CACHE_DIR=off)"
        return {}
    manifest = read_manifest(directory)
    if manifest is None:
        reason = f"no build in {directory}"
        return {}
    changed = stale_sources(manifest["sources"])
    if changed:
        reason = f"stale: {len(changed)} source files changed since the build (first: {changed[0]})"
        return {}
    name = manifest["module"]
    path = directory / manifest["file"]
    try:
        loader = importlib.machinery.ExtensionFileLoader(name, str(path))
        spec = importlib.util.spec_from_file_location(name, str(path), loader=loader)
        assert spec is not None
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
    except (ImportError, OSError, AssertionError) as exc:
        reason = f"could not load {path}: {exc}"
        return {}
    tables: dict = {}
    for kernel, key, export in manifest["entries"]:
        tables.setdefault(kernel, {})[freeze(key)] = getattr(module, export)
    reason = ""
    return tables


def table_for(kernel_key: str) -> dict:
    """{argument key: compiled function} of one kernel in this environment's build ({}: none)."""
    global _tables
    if _tables is None:
        with _lock:  # one load of the extension module, whichever thread calls first
            if _tables is None:
                _tables = _load()
    return _tables.get(kernel_key, {})


def loaded() -> bool:
    """Whether this process has looked for its build already."""
    return _tables is not None


def reset() -> None:
    """Forget the loaded build (tests; after ``solverkit compile`` in the same process)."""
    global _tables
    _tables = None
