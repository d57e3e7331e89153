"""``@njit`` without importing numba: a kernel runs ahead-of-time compiled code when a build
matches it, and numba's JIT otherwise (issue 30: a Kuhn solve's peak RSS is 115 MB with numba
and LLVM loaded, 44 MB without).

``njit(**options)`` registers the Python function as a :class:`Kernel`. A call from Python tries
the ahead-of-time build (:mod:`.aot_load`: an extension module made by ``solverkit compile``,
keyed by the argument types); a call it does not cover starts numba (:func:`start_numba`): every
registered kernel gets its numba dispatcher, made with the same options (``cache=True`` included),
and from then on calls go to numba (but for a build's function already handed out by
:meth:`Kernel.entry`: it gives the same results). Compiled callers see a kernel as its dispatcher: numba types
it through ``_numba_type_`` and inlines it through ``targetoptions`` and ``py_func``, the
attributes numba reads of a dispatcher. ``SOLVERKIT_AOT=0`` never uses a build.
"""

from __future__ import annotations

import importlib
import os
import threading
import time
import weakref

#: every kernel decorated so far and still alive (a kernel made by a function may go)
KERNELS: weakref.WeakSet[Kernel] = weakref.WeakSet()
_started = False
_light = False
_lock = threading.RLock()
_on_start: list = []
#: seconds spent starting kernels in this process (numba's start, a build's load): compile time
START_SECONDS = [0.0]


def njit(*args, **options):
    """numba's ``njit`` (keyword options only), registering a lazily compiled :class:`Kernel`."""
    if args:
        if len(args) == 1 and callable(args[0]) and not options:
            return Kernel(args[0], {})
        raise TypeError("solverkit's njit takes keyword options only (no signatures)")
    return lambda fn: Kernel(fn, options)


#: the values an on/off environment switch takes (SOLVERKIT_AOT, SOLVERKIT_AOT_BUILD); unset: on
SWITCH_VALUES = {"1": True, "on": True, "true": True, "yes": True, "0": False, "off": False, "false": False,
                 "no": False}


def env_switch(name: str) -> bool:
    """The on/off environment variable `name` (unset or empty: on); SolverkitError naming the
    value and the valid ones otherwise (a misspelt "of" must not leave a switch silently on)."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return True
    value = SWITCH_VALUES.get(raw.lower())
    if value is None:
        from ..errors import SolverkitError

        raise SolverkitError(f"{name}={raw!r} is not an on/off value; valid: {', '.join(SWITCH_VALUES)}")
    return value


def aot_enabled() -> bool:
    """Whether ahead-of-time builds are used (``SOLVERKIT_AOT`` unset or on; "0"/"off": never)."""
    return env_switch("SOLVERKIT_AOT")


def numba_started() -> bool:
    """Whether numba has been started (some kernel needed the JIT)."""
    return _started


def on_start(callback) -> None:
    """Call `callback()` once numba starts (now, if it has)."""
    with _lock:
        if not _started:
            _on_start.append(callback)
            return
    callback()


def light_loads() -> None:
    """Ask for :func:`.numba_load.light_cache_loads` (and no BLAS check at load) when numba
    starts, or now if it has (what a solve's config does before its game loads a kernel)."""
    global _light
    _light = True
    if _started:
        _apply_light_loads()


def _apply_light_loads() -> None:
    from .numba_blas import skip_blas_check
    from .numba_load import light_cache_loads

    if not light_cache_loads():  # before a game loads its first kernel: only what loading needs,
        skip_blas_check()  # and numba need not import scipy.linalg


def start_numba() -> None:
    """Import numba without SciPy (:func:`.numba_load.import_numba`), with light cache loads if
    asked (:func:`light_loads`), and give every registered kernel its dispatcher; idempotent."""
    global _started
    if _started:
        return
    with _lock:
        if _started:
            return
        t0 = time.perf_counter()
        from .numba_load import import_numba, probe_cache_dirs_once

        import_numba()
        if _light:
            _apply_light_loads()
        probe_cache_dirs_once()
        for kernel in list(KERNELS):
            kernel._make_dispatcher()
        _started = True
        START_SECONDS[0] += time.perf_counter() - t0
        callbacks, _on_start[:] = list(_on_start), []
    for callback in callbacks:
        callback()


def _aot_table(key: str) -> dict:
    """A kernel's table in this environment's ahead-of-time build ({}: none, or disabled; a
    kernel made inside a function has none: its name does not tell one made there from another)."""
    if not aot_enabled() or "<locals>" in key:
        return {}
    from . import aot_load

    if aot_load.loaded():
        return aot_load.table_for(key)
    t0 = time.perf_counter()
    table = aot_load.table_for(key)
    START_SECONDS[0] += time.perf_counter() - t0
    return table


def reset_aot() -> None:
    """Forget the ahead-of-time build and what each kernel took of it (tests, ``solverkit compile``)."""
    from . import aot_load

    aot_load.reset()
    for kernel in list(KERNELS):
        kernel._aot, kernel._hits, kernel._fast = None, set(), {}


def _numba_dtype(sig, at: tuple):
    """The numpy dtype of the array at path `at` of a numba argument signature (None: not one)."""
    from numba.np.numpy_support import as_dtype

    ty = sig[at[0]]
    for i in at[1:]:
        ty = ty.types[i]
    return as_dtype(ty.dtype) if hasattr(ty, "ndim") else None


def _key_dtype(key, at: tuple):
    """The dtype string of the array at path `at` of an argument key (:mod:`.aot_key`), or None."""
    for i in at:
        key = key[1 + i] if key[0] == "t" else key[3 + i]  # a tuple's items, a named tuple's after its class
    return key[1] if isinstance(key, tuple) and key[0] == "a" else None


#: private attributes of numba's dispatcher that code here or in tests reads through a kernel
_DISPATCHER_PRIVATE = frozenset({"_cache", "_compiler", "_cache_hits", "_cache_misses"})


def _by_name(module: str, qualname: str):
    """A kernel found by its module and name (how a pickled kernel comes back)."""
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


class Kernel:
    """A numba kernel compiled when needed: ahead of time where a build covers the call, by
    numba's JIT otherwise (see the module). Reads as a numba dispatcher where code asks."""

    def __init__(self, fn, options: dict):
        self.py_func = fn
        self.options = dict(options)
        #: what numba's inlining pass reads of a dispatcher (``inline``)
        self.targetoptions = {k: v for k, v in options.items() if k != "cache"}
        self.__name__, self.__qualname__ = fn.__name__, fn.__qualname__
        self.__module__, self.__doc__ = fn.__module__, fn.__doc__
        self.__wrapped__ = fn
        self.key = f"{fn.__module__}:{fn.__qualname__}"
        self._dispatcher = None
        self._aot: dict | None = None  # argument key -> compiled function (empty: none)
        self._hits: set = set()  # argument keys met ahead of time in this process
        self._fast: dict = {}  # (dtype, path) -> the entry point :meth:`entry` found
        #: called from Python in this process (what ``solverkit compile`` builds)
        self.called = False
        with _lock:
            KERNELS.add(self)
            if _started:
                self._make_dispatcher()

    def _make_dispatcher(self) -> None:
        if self._dispatcher is None:
            import numba

            self._dispatcher = numba.njit(**self.options)(self.py_func)

    @property
    def dispatcher(self):
        """numba's dispatcher (numba started if it was not)."""
        if self._dispatcher is None:
            start_numba()
            self._make_dispatcher()
        return self._dispatcher

    def __call__(self, *args, **kwargs):
        self.called = True
        d = self._dispatcher
        if d is None:
            fn = None if kwargs else self.aot_function(args)  # a build's functions take positions only
            if fn is not None:
                return fn(*args)
            d = self.dispatcher
        return d(*args, **kwargs)

    def aot_function(self, args):
        """The ahead-of-time compiled function for these arguments, or None."""
        table = self._aot
        if table is None:
            table = self._aot = _aot_table(self.key)
        if not table:
            return None
        from .aot_key import value_key

        key = value_key(args)
        fn = table.get(key)
        if fn is not None:
            self._hits.add(key)
        return fn

    def prepare(self, args) -> None:
        """Load or compile the kernel for these arguments without running it."""
        self.called = True
        if self._dispatcher is None and self.aot_function(args) is not None:
            return
        from numba import typeof

        self.dispatcher.compile(tuple(typeof(a) for a in args))

    @property
    def signatures(self) -> list:
        """The argument signatures loaded in this process: numba's, or the builds' keys met."""
        if self._dispatcher is not None:
            return self._dispatcher.signatures
        return sorted(self._hits, key=repr)

    def entry(self, dtype=None, at: tuple = ()):
        """The kernel, or once it has been loaded for exactly one argument signature (one whose
        argument at path `at` (an argument's index, then items of tuples) is an array of `dtype`,
        when given), that signature's compiled function: numba's entry point, or the build's.
        Skips the type dispatch per call (about 40 us for dfs_pass's ~75 arrays)."""
        import numpy as np

        want = None if dtype is None else np.dtype(dtype)
        fast = self._fast.get((want, at))
        if fast is not None:
            return fast
        d = self._dispatcher
        if d is not None:
            sigs = [s for s in d.signatures if want is None or _numba_dtype(s, at) == want]
            if len(sigs) != 1:
                return self
            fast = d.overloads[sigs[0]].entry_point
        else:
            hits = [k for k in self._hits if want is None or _key_dtype(k, at) == want.str]
            if len(hits) != 1:
                return self
            fast = self._aot[hits[0]]  # type: ignore[index]
        self._fast[(want, at)] = fast
        return fast

    @property
    def _numba_type_(self):
        from numba.core import types

        return types.Dispatcher(self.dispatcher)

    def __getattr__(self, name):
        # the rest of numba's dispatcher (overloads, stats, inspect_types...), which starts numba;
        # never a private or special name, which other libraries probe (asyncio's _is_coroutine)
        if name.startswith("_") and name not in _DISPATCHER_PRIVATE:
            raise AttributeError(name)
        return getattr(self.dispatcher, name)

    def __reduce__(self):
        return _by_name, (self.__module__, self.__qualname__)

    def __repr__(self):
        return f"<solverkit kernel {self.key}>"
