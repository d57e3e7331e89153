"""Make the ahead-of-time build (:mod:`.aot_load`): numba.pycc compiles the kernels called from
Python in this process, for the exact argument signatures numba loaded for them, into one
extension module, each compiled as numba's JIT compiles it (the kernel's own options: fastmath,
nogil as a released GIL, error model; this CPU's name and features), so that a build gives the
JIT's results bit for bit. Signatures of an earlier build in the same directory are kept (a
Leduc build after a Kuhn one serves both). Needs numba and a C compiler.
"""

from __future__ import annotations

import ast
import contextlib
import fcntl
import importlib.util
import json
import os
import pickle
import shutil
import sys
import sysconfig
import tempfile
import time
import uuid
import warnings
from collections import Counter
from pathlib import Path

from . import aot_load
from .aot_key import type_key
from ..errors import SolverkitError
from .jit import KERNELS, start_numba

SIGNATURES = "signatures.pkl"


class BuildUnavailable(SolverkitError):
    """No ahead-of-time build can be made here (the reason in one line); solves use the JIT."""

#: the lock file in a build directory: one build at a time (each merges the signatures already built)
LOCK = "build.lock"


def compiler_available() -> bool:
    """Whether a C compiler for extension modules is on PATH (pycc's toolchain needs one)."""
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(cc) is not None or shutil.which("cc") is not None


@contextlib.contextmanager
def build_lock(directory: Path, wait: bool = True, on_wait=None):
    """Hold the build directory's lock (fcntl.flock on :data:`LOCK`; the system drops it when the
    process ends). When another build has it: yields False at once, holding nothing, unless
    `wait`; then calls `on_wait()` and waits for it. ``solverkit compile`` builds under it, so
    manual and automatic builds serialise."""
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / LOCK, "a+b") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not wait:
                yield False
                return
            if on_wait is not None:
                on_wait()
            fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield True
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def lock_free(directory: Path) -> bool:
    """Whether no build holds `directory`'s lock now (taken and released at once)."""
    with build_lock(directory, wait=False) as taken:
        return taken


def called_signatures() -> list[tuple[str, object]]:
    """(kernel key, numba signature) of every kernel called from Python in this process, for
    each argument signature numba loaded for it (inlined kernels have no entry of their own, nor
    kernels made inside functions or sharing their module and name with another)."""
    out: list[tuple[str, object]] = []
    kernels = sorted(KERNELS, key=lambda k: k.key)
    names = Counter(k.key for k in kernels)
    for kernel in kernels:
        if not kernel.called or kernel._dispatcher is None or kernel.options.get("inline") == "always":
            continue
        if "<locals>" in kernel.key or names[kernel.key] > 1:  # its name is not its alone
            continue
        for args in kernel._dispatcher.signatures:
            cres = kernel._dispatcher.overloads[args]
            out.append((kernel.key, cres.signature))
    return out


def _previous(directory: Path) -> list[tuple[str, object]]:
    """The signatures of the build already in `directory` (none if unreadable)."""
    try:
        with open(directory / SIGNATURES, "rb") as f:
            return pickle.load(f)
    except Exception:  # noqa: BLE001 (a build of another numba, a moved class: rebuilt from this run's)
        return []


def _sources(entries) -> dict[str, list]:
    """The source files compiled code can depend on: every module defining a kernel or a named
    tuple of a signature, and what their module-level imports bring, transitively (a kernel sees
    its module's globals only, and they come from the module or its imports), within solverkit
    and its plugins; with each file's :func:`.aot_load.stamp`."""
    names = {k.__module__ for k in list(KERNELS)}
    for _, _, sig in entries:
        names |= _tuple_modules(sig.args)
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in seen or name not in sys.modules:
            continue
        seen.add(name)
        todo += _imports(name)
    paths = {getattr(sys.modules[n], "__file__", None) for n in seen}
    return {p: aot_load.stamp(p) for p in sorted(p for p in paths if p and p.endswith(".py") and os.path.isfile(p))}


def _tuple_modules(types_) -> set[str]:
    out: set[str] = set()
    for t in types_:
        cls = getattr(t, "instance_class", None)
        if cls is not None and hasattr(cls, "_fields"):
            out.add(cls.__module__)
        out |= _tuple_modules(getattr(t, "types", ()))
    return out


def _imports(name: str) -> set[str]:
    """The loaded solverkit modules (and their parent packages) that module `name` imports at
    module level (conditional imports included, imports inside functions not)."""
    module = sys.modules[name]
    path = getattr(module, "__file__", None)
    if not path or not path.endswith(".py"):
        return set()
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    out: set[str] = set()
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.ImportFrom):
            base = importlib.util.resolve_name("." * node.level + (node.module or ""), package) if node.level \
                else node.module or ""
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, (ast.If, ast.Try)):
            todo += node.body + node.orelse + getattr(node, "finalbody", [])
            todo += [s for h in getattr(node, "handlers", []) for s in h.body]
    parents = {".".join(n.split(".")[:i]) for n in out for i in range(1, n.count(".") + 1)}
    return {n for n in out | parents if n.split(".")[0].startswith("solverkit") and n in sys.modules}


class _KernelFlags:
    """While open: pycc compiles each exported kernel with its dispatcher's flags (numba's own
    ``_compile_core``) and for this CPU's features (as the JIT), not pycc's defaults."""

    def __init__(self, kernels: dict):
        self.kernels = kernels  # py_func -> Kernel

    def __enter__(self):
        import numba.pycc.compiler as pycc_compiler
        from numba.core import codegen

        self.module, self.original = pycc_compiler, pycc_compiler.compile_extra
        self.codegen, self.features = codegen.AOTCPUCodegen, codegen.AOTCPUCodegen._customize_tm_features
        original, kernels = self.original, self.kernels

        def compile_extra(typingctx, targetctx, func, args, return_type, flags, locals, **kw):
            kernel = kernels.get(func)
            if kernel is not None:
                d = kernel.dispatcher
                own = type(flags)()
                d.targetdescr.options.parse_as_flags(own, d.targetoptions)
                own = d._compiler._customize_flags(own)
                own.no_compile, own.nrt = flags.no_compile, flags.nrt
                own.no_cpython_wrapper, own.no_cfunc_wrapper = flags.no_cpython_wrapper, flags.no_cfunc_wrapper
                flags = own
            return original(typingctx, targetctx, func, args, return_type, flags, locals, **kw)

        pycc_compiler.compile_extra = compile_extra
        codegen.AOTCPUCodegen._customize_tm_features = lambda self: self._get_host_cpu_features()
        return self

    def __exit__(self, *exc):
        self.module.compile_extra = self.original
        self.codegen._customize_tm_features = self.features
        return False


def build(signatures: list[tuple[str, object]] | None = None, directory: Path | None = None,
          keep_previous: bool = True, log=None) -> dict:
    """Compile `signatures` ((kernel key, numba signature); default: :func:`called_signatures`),
    with the previous build's when `keep_previous`, into `directory` (default: this
    environment's); returns a summary. Raises :class:`BuildUnavailable` (a one-line error: solves
    then run on numba's JIT, as without a build) without a C compiler, without numba.pycc (numba
    announces its removal) or with caches off."""
    if not compiler_available():
        raise BuildUnavailable("no C compiler found (numba.pycc needs one to build kernels ahead of time; solves "
                               "run on numba's JIT)")
    try:
        import numba.pycc  # noqa: F401
    except ImportError as exc:
        import numba

        raise BuildUnavailable(f"numba {numba.__version__} has no numba.pycc ({exc}), which ahead-of-time builds "
                               "use: solves run on numba's JIT (numba releases up to at least 0.68 ship it)") from None
    start_numba()
    directory = directory or aot_load.build_dir()
    if directory is None:
        raise BuildUnavailable("caches are off (SOLVERKIT_CACHE_DIR=off): set SOLVERKIT_AOT_DIR to build")
    wanted = list(signatures if signatures is not None else called_signatures())
    previous = _previous(directory) if keep_previous else []
    if previous:
        try:
            return _build(previous + wanted, directory, log)
        except Exception as exc:  # noqa: BLE001 (an old signature the code no longer takes: this run's only)
            if log is not None:
                log(f"the previous build's signatures failed ({type(exc).__name__}: {exc}); building this run's only")
    return _build(wanted, directory, log)


def _build(wanted: list, directory: Path, log) -> dict:
    by_key = {k.key: k for k in list(KERNELS)}
    entries, seen, skipped = [], set(), []
    for kernel_key, sig in wanted:
        kernel = by_key.get(kernel_key)
        key = type_key(list(sig.args)) if kernel is not None else None
        if kernel is None or key is None:
            skipped.append(f"{kernel_key}{tuple(sig.args) if kernel is not None else ''}")
            continue
        if (kernel_key, key) in seen:
            continue
        seen.add((kernel_key, key))
        entries.append((kernel, key, sig))
    if not entries:
        raise BuildUnavailable("nothing to build: no kernel was called from Python with supported argument types")
    from numba.pycc import CC

    name = f"sk_aot_{uuid.uuid4().hex[:12]}"
    directory.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pycc's pending deprecation
        cc = CC(name)
        cc.output_dir = str(directory)
        cc.target_cpu = "host"
        manifest_entries = []
        for i, (kernel, key, sig) in enumerate(entries):
            export = f"k{i}_{kernel.__name__}"
            cc.export(export, sig)(kernel.py_func)
            manifest_entries.append([kernel.key, key, export])
        with tempfile.TemporaryDirectory() as tmp, _KernelFlags({k.py_func: k for k, _, _ in entries}):
            cc.output_dir = tmp
            cc.compile()
            built = Path(tmp) / cc.output_file
            shutil.move(str(built), directory / cc.output_file)
    seconds = time.perf_counter() - t0
    old = aot_load.read_manifest(directory)
    manifest = {"format": aot_load.FORMAT, "module": name, "file": cc.output_file,
                "environment": aot_load.environment_key(), "built": time.strftime("%Y-%m-%d %H:%M:%S"),
                "seconds": round(seconds, 1), "entries": manifest_entries, "sources": _sources(entries)}
    tmp_manifest = directory / f".{aot_load.MANIFEST}.{os.getpid()}"
    tmp_manifest.write_text(json.dumps(manifest, indent=1))
    with open(directory / f".{SIGNATURES}.{os.getpid()}", "wb") as f:
        pickle.dump([(k.key, sig) for k, _, sig in entries], f)
    os.replace(directory / f".{SIGNATURES}.{os.getpid()}", directory / SIGNATURES)
    os.replace(tmp_manifest, directory / aot_load.MANIFEST)
    if old is not None and old.get("file") != cc.output_file:
        try:
            (directory / old["file"]).unlink()
        except OSError:
            pass
    from .jit import reset_aot

    reset_aot()
    return {"directory": str(directory), "file": cc.output_file, "seconds": seconds,
            "entries": [f"{k.key}{tuple(sig.args)}" for k, _, sig in entries], "skipped": skipped}


