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


def process_age() -> float | None:
    """Seconds since this process started (Linux /proc, 10 ms resolution); None elsewhere.
    Start-up time to the first iteration is measured against it, so imports count."""
    try:
        with open("/proc/self/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
        return max(0.0, uptime - int(fields[19]) / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return None


def human_bytes(n: float) -> str:
    """1234567 -> '1.23 MB' (decimal units)."""
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(n) < 1000:
            return f"{n:.3g} {unit}"
        n /= 1000.0
    return f"{n:.3g} PB"
