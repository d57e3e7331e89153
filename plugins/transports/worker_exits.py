"""How a zmq worker leaves its serve loop: its exit statuses, and the exceptions that stop or restart it."""

from __future__ import annotations






#: exit statuses of `solverkit worker`: stopped by its trunk; no trunk (none set it up within
#: --wait, or with --once its trunk was lost); refused (another version, or it cannot build the
#: assembly)
EXIT_STOPPED, EXIT_LOST, EXIT_REFUSED = 0, 1, 2


class _Stop(Exception):
    """Leave the serve loop with an exit status."""

    def __init__(self, status: int, message: str = ""):
        super().__init__(message)
        self.status = status


class _Rejoin(Exception):
    """The trunk is lost (silent, or it no longer knows this worker): start over with HELLO."""
