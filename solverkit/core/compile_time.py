"""Kernel compilation kept out of solve time: the notice of a slow first compile, numba's compiler-lock clock."""

from __future__ import annotations


def warm_up_kernels():
    """Load the array-level arithmetic (compiled or from numba's cache) before any time is
    measured (a worker, a benchmark). A solve does not: most games never call these functions
    (Kuhn: one of five), and a kernel loaded in a pass counts as compile time, not solving."""
    from .arith import warm_up

    warm_up()


#: the line shown (on stderr, not with --quiet) when loading the kernels takes longer than
#: COMPILE_NOTICE_AFTER seconds: numba is compiling them, which only the first run does
COMPILE_NOTICE = "compiling kernels (first run only; cached afterwards)..."
COMPILE_NOTICE_AFTER = 1.0


class slow_notice:
    """``with slow_notice(emit):`` calls ``emit(message)`` once if the block is still running
    after `after` seconds (from a timer thread, so the line appears while the work goes on);
    a block that ends sooner says nothing. ``emit=None`` says nothing at all. `after` defaults
    to COMPILE_NOTICE_AFTER (read when the notice is made; the Solver passes solver.py's, so a
    test can set that to 0)."""

    def __init__(self, emit, message: str = COMPILE_NOTICE, after: float | None = None):
        self.emit, self.message = emit, message
        self.after = COMPILE_NOTICE_AFTER if after is None else after
        self._timer = None

    def __enter__(self):
        if self.emit is not None:
            import threading

            self._timer = threading.Timer(self.after, self.emit, args=(self.message,))
            self._timer.daemon = True
            self._timer.start()
        return self

    def __exit__(self, *exc):
        if self._timer is not None:
            self._timer.cancel()
            self._timer.join()  # a notice already under way is finished before the block's output
        return False


class CompileClock:
    """Seconds numba spends in its compiler lock (compiling a kernel, or loading one from its
    cache) while this clock is open, plus the seconds kernels took to start (numba's import, an
    ahead-of-time build's load: :data:`.jit.START_SECONDS`): the solver takes them out of solve
    time, so that a kernel compiled at its first call never counts as solving (studies compare
    these seconds). numba is not imported for it: its listener is added if numba starts."""

    def __init__(self):
        from . import jit

        self._jit = jit
        self._start0 = jit.START_SECONDS[0]
        self._event = self._listener = None
        self._closed = False
        jit.on_start(self._attach)

    def _attach(self) -> None:
        if self._closed:
            return
        from numba.core import event

        self._event = event
        self._listener = event.TimingListener()
        event.register("numba:compiler_lock", self._listener)

    @property
    def seconds(self) -> float:
        lock = self._listener.duration if self._listener is not None and self._listener.done else 0.0
        return lock + self._jit.START_SECONDS[0] - self._start0

    def close(self) -> None:
        self._closed = True
        if self._event is None:
            return
        try:
            self._event.unregister("numba:compiler_lock", self._listener)
        except ValueError:  # closed before
            pass
