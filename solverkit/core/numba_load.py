"""Load numba's cached kernels without starting its compiler.

Before every load from its cache, numba refreshes its target context
(``numba.core.caching.Cache.load_overload``), and the first refresh imports and installs every
lowering and typing registry numba has (arrays, typed containers, random, datetime, ...):
0.2-0.3 s that only compiling needs. A cached kernel needs two things of that at load time: the
NRT runtime's symbols (``rtsys.initialize``) and the hash secret's symbols that
``numba.cpython.hashing`` adds on import. Loads are patched to do just those; a kernel that is
not in the cache still compiles as before (numba's compiler refreshes the context in full
itself), and that first full refresh skips the BLAS check (:mod:`.numba_blas`).
``SOLVERKIT_NUMBA_REFRESH=1`` keeps numba's refresh at each load.

Each ``@njit(cache=True)`` also checks at import that its cache directory is writable by creating
a temporary file there (numba's ``_CacheLocator.ensure_cache_path``): 0.2-0.3 ms per kernel, for
the 120 kernels a solve imports, and the same few directories each time. :func:`probe_cache_dirs_once`
keeps the directory creation and probes each directory once per process.
"""

from __future__ import annotations

import os
import tempfile

ENV = "SOLVERKIT_NUMBA_REFRESH"

_installed = False
_probed: set[str] = set()


def probe_cache_dirs_once() -> None:
    """Patch numba's cache-directory check as the module says (idempotent); call before the
    first ``@njit(cache=True)`` runs (:mod:`solverkit.core.arith`, which every engine imports)."""
    from numba.core import caching

    locator = getattr(caching, "_CacheLocator", None)
    if locator is None or not hasattr(locator, "ensure_cache_path"):  # another numba: its own probes
        return
    if getattr(locator.ensure_cache_path, "_solverkit", False):
        return

    def ensure_cache_path(self):
        path = self.get_cache_path()
        os.makedirs(path, exist_ok=True)
        if path not in _probed:  # writable: numba's own probe, once per directory
            tempfile.TemporaryFile(dir=path).close()
            _probed.add(path)

    ensure_cache_path._solverkit = True
    locator.ensure_cache_path = ensure_cache_path


def light_cache_loads() -> bool:
    """Patch numba's cache loads as the module says (once per process); True when loads are
    light, False when ``SOLVERKIT_NUMBA_REFRESH`` is set (not "0") or this numba's cache lacks the
    private methods the patch replaces."""
    global _installed
    if _installed:
        return True
    if os.environ.get(ENV, "0").strip() not in ("", "0"):
        return False
    from numba.core import caching
    from numba.core.cpu import CPUContext
    from numba.core.runtime import rtsys

    from .numba_blas import skip_blas_check

    if not all(hasattr(caching.Cache, name)
               for name in ("load_overload", "_load_overload", "_guard_against_spurious_io_errors")):
        return False  # a numba whose cache is built otherwise: its loads stay as they are
    full_refresh = CPUContext.refresh
    full_load = caching.Cache.load_overload

    def refresh(self):
        skip_blas_check()  # before the first full refresh imports numba.np.arraymath (a no-op after)
        full_refresh(self)

    def load_overload(self, sig, target_context):
        if not isinstance(target_context, CPUContext):  # another target's cache: as numba does
            return full_load(self, sig, target_context)
        rtsys.initialize(target_context)  # what a compiled kernel links against: NRT's symbols
        import numba.cpython.hashing  # noqa: F401  (and the hash secret's, added on import)

        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)

    CPUContext.refresh = refresh
    caching.Cache.load_overload = load_overload
    _installed = True
    return True
