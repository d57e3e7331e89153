"""The command line starts without Python's cyclic garbage collector, then freezes what it loaded.

Loading the command line, its plugins and numba makes ~65,000 objects that live as long as the
process; the collector, run every 700 allocations meanwhile, walks them again and again (40-80 ms
of a 0.5 s warm Kuhn solve, issue 30) and finds ~800 garbage objects. In a process that the
``solverkit`` command or ``python -m solverkit`` started, :func:`pause` turns the collector off
until the command is found; :func:`resume` then moves everything loaded so far out of its reach
(``gc.freeze``) and turns it back on, so the command (a game build, a solve) runs with it as
usual and its collections no longer walk the start-up objects. A program or a test that imports
the command line keeps its collector as it was.
"""

from __future__ import annotations

import gc
import os
import sys

#: names of the console script that starts the command line (pip writes one of these)
SCRIPT_NAMES = ("solverkit", "solverkit.exe", "solverkit-script.py")

_paused = False


def started_as_command() -> bool:
    """True in a process started as ``solverkit ...`` or ``python -m solverkit ...``."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None and spec.name == "solverkit.__main__":
        return True
    return os.path.basename(getattr(main, "__file__", None) or "") in SCRIPT_NAMES


def pause() -> None:
    """Turn the collector off while the command line loads (only in a process it started, and
    only when the collector was on)."""
    global _paused
    if not _paused and gc.isenabled() and started_as_command():
        gc.disable()
        _paused = True


def resume() -> None:
    """After :func:`pause`: freeze the objects loaded so far and turn the collector on again."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()
