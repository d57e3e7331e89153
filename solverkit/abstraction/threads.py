"""Run a nogil numba kernel over a range in parallel threads.

The abstraction kernels take a range (lo, hi) of their items and run serially; threads split the
items. The result is the same as one serial call (each item is computed on its own), and serial
kernels compile in a third of the time numba's parallel loops take (compile time counts on every
cold start and in CI).
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import ThreadPoolExecutor


def _numba_threads() -> int:
    """numba's thread count (NUMBA_NUM_THREADS, else the CPUs this process may run on), read as
    numba reads it; numba's own value when numba is loaded, and numba is not imported for it (a
    solve whose kernels were compiled ahead of time never loads it: solverkit.core.jit)."""
    if "numba" in sys.modules:
        from numba import config

        return int(config.NUMBA_NUM_THREADS)
    try:
        return int(os.environ["NUMBA_NUM_THREADS"])
    except (KeyError, ValueError):
        affinity = getattr(os, "sched_getaffinity", None)
        return len(affinity(0)) if affinity is not None else os.cpu_count() or 1


#: threads: numba's own count (the machine's cores, or NUMBA_NUM_THREADS)
THREADS = max(1, _numba_threads())


def run_ranges(kernel, n: int, *args, threads: int | None = None) -> None:
    """kernel(lo, hi, *args) over 0..n in contiguous ranges, several per thread (for balance)."""
    threads = threads or THREADS
    if n <= 0:
        return
    if threads == 1 or n < 2:
        kernel(0, n, *args)
        return
    parts = min(n, 8 * threads)
    bounds = [n * i // parts for i in range(parts + 1)]
    pool = _pool(threads)
    for future in [pool.submit(kernel, bounds[i], bounds[i + 1], *args) for i in range(parts)]:
        future.result()


_POOLS: dict[int, ThreadPoolExecutor] = {}


def _pool(threads: int) -> ThreadPoolExecutor:
    """One pool per thread count, kept for the process (k-means calls a kernel per iteration)."""
    if threads not in _POOLS:
        _POOLS[threads] = ThreadPoolExecutor(threads, thread_name_prefix="solverkit-abstraction")
    return _POOLS[threads]
