"""What the zmq trunk knows of each worker (its record, its spawned process), and how it says what happens to them."""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass
from dataclasses import field as dc_field

from .protocol import STATS_FIELDS


@dataclass(eq=False)
class _Worker:
    """What the trunk knows of one worker."""

    identity: bytes
    host: str
    pid: int
    threads: int
    index: int
    keys: list = dc_field(default_factory=list)
    stats: dict = dc_field(default_factory=lambda: dict.fromkeys(STATS_FIELDS, 0))
    proc: subprocess.Popen | None = None
    #: its count of clipped values when the run was last rolled back (not the run's any more)
    saturated_base: int = 0
    #: when the trunk sent it its setup (time.monotonic())
    setup_at: float = 0.0

    @property
    def name(self) -> str:
        """host:pid, as errors name the worker."""
        return f"{self.host}:{self.pid}"


def _reap(procs, grace: float | None = None):
    """Wait up to `grace` seconds for spawned workers, then terminate (and kill) the rest; no
    grace: kill at once (workers given up on, or the interpreter exiting)."""
    if grace is None:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()  # a stopped (SIGSTOP) process ignores SIGTERM until continued
            proc.wait()
        return
    deadline = time.monotonic() + grace
    for proc in procs:
        try:
            proc.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.terminate()
    for proc in procs:
        try:
            proc.wait(2.0)
        except subprocess.TimeoutExpired:
            _reap([proc])


def _say(text: str) -> None:
    print(f"zmq: {text}", file=sys.stderr, flush=True)
