"""Start numba without importing SciPy: the first kernel load otherwise imports scipy.linalg.

Numba's array support checks once, when its first kernel is compiled or loaded from the cache,
whether SciPy's BLAS is there (``numba.np.linalg.ensure_blas``: ``import scipy.linalg``), which
costs 0.3-0.6 s and ~18 MB. Answering "absent" changes one thing: np.correlate and
np.convolve in compiled code use a plain loop instead of BLAS. ``np.dot`` and ``np.linalg`` in
compiled code still work (they import SciPy when first compiled). ``SOLVERKIT_NUMBA_BLAS=1``
keeps the check. Called by :func:`solverkit.core.config.resolve`, before a game loads kernels.
"""

from __future__ import annotations

import os
import sys

ENV = "SOLVERKIT_NUMBA_BLAS"


def skip_blas_check() -> bool:
    """Import numba's array support with the BLAS check answering "absent"; True when skipped.

    Does nothing when ``SOLVERKIT_NUMBA_BLAS`` is set (not "0"), or when numba's array support
    or scipy.linalg is already loaded (then the check is done or free)."""
    if os.environ.get(ENV, "0").strip() not in ("", "0"):
        return False
    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return False
    import numba.np.linalg as linalg

    original = linalg.ensure_blas

    def absent():
        raise ImportError(f"BLAS check skipped at start-up ({ENV}=1 keeps it)")

    linalg.ensure_blas = absent  # numba.np.arraymath binds it at import and calls it once
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        linalg.ensure_blas = original  # np.linalg in compiled code still checks for real
    return True
