"""Memory of this machine and of this process, and sizes in words (for errors and reports)."""

from __future__ import annotations

import os
import resource


def physical_memory() -> int:
    """Bytes of memory this process may use: the machine's RAM, or a container's (cgroup) memory
    limit when that is lower (0 when unknown)."""
    try:
        ram = int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        ram = 0
    limit = cgroup_memory_limit()
    return min(ram, limit) if ram and limit else ram or limit


#: where Linux shows a container's memory limit (cgroup v2, then v1)
CGROUP_LIMIT_FILES = ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")


def cgroup_memory_limit() -> int:
    """The memory limit of this process's cgroup in bytes; 0 when none is set or it is unknown
    (v1 shows "no limit" as a number near 2**63)."""
    for path in CGROUP_LIMIT_FILES:
        try:
            with open(path) as fh:
                text = fh.read().strip()
        except OSError:
            continue
        if text.isdigit() and 0 < int(text) < 1 << 60:
            return int(text)
        return 0
    return 0


def current_rss() -> int:
    """Resident memory of this process now, in bytes (Linux /proc; 0 elsewhere): cheap enough to
    ask every few thousand nodes while a tree is built."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MB: Linux's VmHWM (this program's own
    peak). getrusage's ru_maxrss, the fallback elsewhere, also holds the peak of the process it
    was started from (Linux keeps it across fork and exec): a small solve started by a 1 GB parent
    read 1,172 MB."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except (OSError, ValueError, IndexError):
        pass
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


#: the share of this machine's memory a game's tree and store may be planned to fill; beyond it a
#: game is refused from its sizes before anything is built
MEMORY_SHARE = 0.8


def affordable(each: int) -> int | None:
    """How many items of `each` bytes fit in MEMORY_SHARE of this machine's memory (None when
    the memory is unknown): the cap a builder checks while it grows, so that it fails fast
    instead of swapping or being killed."""
    have = physical_memory()
    return int(MEMORY_SHARE * have // max(1, int(each))) if have else None


def too_large(need: float) -> str:
    """"" when `need` bytes fit in MEMORY_SHARE of this machine's memory (or it is unknown), else
    the phrase an error ends with: ``needs about 12 GB; this machine has 8 GB (80%: 6.4 GB)``."""
    have = physical_memory()
    if not have or need <= MEMORY_SHARE * have:
        return ""
    return (f"needs about {human_bytes(need)}; this machine has {human_bytes(have)} "
            f"(at most {MEMORY_SHARE:.0%}: {human_bytes(MEMORY_SHARE * have)})")
