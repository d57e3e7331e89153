"""Memory of this machine and of this process, and sizes in words (for errors and reports)."""

from __future__ import annotations

import os
import resource


def physical_memory() -> int:
    """Bytes of RAM on this machine (0 when unknown)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 0


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def human_bytes(n: float) -> str:
    """1234567 -> '1.23 MB' (decimal units)."""
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(n) < 1000:
            return f"{n:.3g} {unit}"
        n /= 1000.0
    return f"{n:.3g} PB"
