"""Load numba's cached kernels without starting its compiler.

Before every load from its cache, numba refreshes its target context
(``numba.core.caching.Cache.load_overload``), and the first refresh imports and installs every
lowering and typing registry numba has (arrays, typed containers, random, datetime, ...):
0.2-0.3 s that only compiling needs. A cached kernel needs two things of that at load time: the
NRT runtime's symbols (``rtsys.initialize``) and the hash secret's symbols that
``numba.cpython.hashing`` adds on import. Loads are patched to do just those; a kernel that is
not in the cache still compiles as before (numba's compiler refreshes the context in full
itself), and that first full refresh skips the BLAS check (:mod:`.numba_blas`).

Two more costs of a load go the same way (issue 30: a warm Kuhn solve, ~0.1 s of ~0.55 s):

- numba parses each cached library's LLVM bitcode (its copy for linking into later compiles,
  ~1 MB for a poker pass) only to learn the names it defines; those names are read from the
  object code's symbol table instead (:func:`elf_defined`), and the bitcode is parsed when a
  compile links the library or a name outside that table is asked for (:class:`_LazyLinking`).
- ``rtsys.initialize`` compiles NRT's few LLVM functions in every process (~18 ms); their object
  code is kept beside the kernels' cache, keyed as numba keys a kernel (numba and llvmlite
  versions, the CPU and its features) and loaded as a cached kernel is (:func:`_start_nrt`).

- A cached kernel's callees each bring their module's globals (numba's ``Environment``), and a
  callee from numba's own array support imports ``numba.np.arrayobj`` and its imports (~13 ms) for
  a dictionary nothing reads outside object mode. Such a module not yet imported gets an empty
  module object whose dictionary the environment holds; the module, when imported, is executed
  into that very object (:class:`_Premade`), so the environment ends as numba's own would.

``SOLVERKIT_NUMBA_REFRESH=1`` keeps numba's refresh at each load, and its own library loads.

Each ``@njit(cache=True)`` also checks at import that its cache directory is writable by creating
a temporary file there (numba's ``_CacheLocator.ensure_cache_path``): 0.2-0.3 ms per kernel, for
the 120 kernels a solve imports, and the same few directories each time. :func:`probe_cache_dirs_once`
keeps the directory creation and probes each directory once per process.

Numba's own import also imports SciPy (only to check its version) and PyYAML (only to read a
``.numba_config.yaml`` in the working directory): ~30 ms of its ~0.2 s. :func:`import_numba`
imports numba without them (PyYAML then loads if numba finds such a file).
"""

from __future__ import annotations

import hashlib
import os
import pickle
import struct
import sys
import tempfile
import threading

ENV = "SOLVERKIT_NUMBA_REFRESH"
#: the object code of NRT's functions, in the directory of the first kernel loaded from the cache
NRT_FILE = "solverkit-nrt-{key}.nbo"

_installed = False
_probed: set[str] = set()


class _Deferred:
    """An import finder that refuses `names` in one thread, while numba imports (see the module)."""

    def __init__(self, names):
        self.names, self.thread = frozenset(names), threading.get_ident()

    def find_spec(self, name, path=None, target=None):
        if name in self.names and threading.get_ident() == self.thread:
            raise ModuleNotFoundError(f"{name} is imported when used, not with numba", name=name)
        return None


class _YamlOnUse:
    """``numba.core.config.yaml``: PyYAML, imported when numba reads a config file."""

    def __getattr__(self, name):
        import yaml

        return getattr(yaml, name)


def import_numba() -> None:
    """Import numba without SciPy and PyYAML (see the module); a no-op once numba is imported.
    A ``.numba_config.yaml`` in the working directory keeps PyYAML's import, as numba reads it."""
    if "numba" in sys.modules:
        return
    import importlib.util

    names = {"scipy"} - set(sys.modules)
    yaml_deferred = "yaml" not in sys.modules and not os.path.isfile(".numba_config.yaml")
    if yaml_deferred:
        names.add("yaml")
    finder = _Deferred(names)
    sys.meta_path.insert(0, finder)
    try:
        import numba  # noqa: F401
    finally:
        sys.meta_path.remove(finder)
    from numba.core import config

    if yaml_deferred and not getattr(config, "_HAVE_YAML", True):  # what numba saw without the finder
        config._HAVE_YAML = importlib.util.find_spec("yaml") is not None
        if config._HAVE_YAML:
            config.yaml = _YamlOnUse()


def probe_cache_dirs_once() -> None:
    """Patch numba's cache-directory check as the module says (idempotent); call before the
    first ``@njit(cache=True)`` runs (:mod:`solverkit.core.arith`, which every engine imports)."""
    from numba.core import caching

    locator = getattr(caching, "_CacheLocator", None)
    if locator is None or not hasattr(locator, "ensure_cache_path"):  # another numba: its own probes
        return
    if getattr(locator.ensure_cache_path, "_solverkit", False):
        return

    def ensure_cache_path(self):
        path = self.get_cache_path()
        os.makedirs(path, exist_ok=True)
        if path not in _probed:  # writable: numba's own probe, once per directory
            tempfile.TemporaryFile(dir=path).close()
            _probed.add(path)

    ensure_cache_path._solverkit = True
    locator.ensure_cache_path = ensure_cache_path


def elf_defined(obj: bytes) -> set[str] | None:
    """The global and weak symbols that 64-bit little-endian ELF object code `obj` defines
    (numba's cached object code on x86-64 and aarch64 Linux); None for any other format."""
    if obj[:4] != b"\x7fELF" or obj[4:6] != b"\x02\x01":
        return None
    section = struct.Struct("<IIQQQQIIQQ")
    (shoff,) = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", obj, 0x3A)
    names: set[str] = set()
    for i in range(shnum):
        _, kind, _, _, offset, size, link, _, _, _ = section.unpack_from(obj, shoff + i * shentsize)
        if kind != 2:  # SHT_SYMTAB
            continue
        _, _, _, _, str_offset, str_size, _, _, _, _ = section.unpack_from(obj, shoff + link * shentsize)
        strings = obj[str_offset:str_offset + str_size]
        for name, info, _, shndx, _, _ in struct.iter_unpack("<IBBHQQ", obj[offset:offset + size]):
            if shndx != 0 and info >> 4 in (1, 2):  # defined; STB_GLOBAL or STB_WEAK
                names.add(strings[name:strings.index(b"\0", name)].decode())
    return names


class _LazyLinking:
    """The libraries loaded from object code whose bitcode (numba's copy for linking) is not
    parsed yet, per execution engine: parsed when a compile links one, or when the engine is asked
    about a name the object code's symbol table did not give (numba's answer then, exactly)."""

    pending: dict[int, list] = {}  # id(engine) -> [library, ...]

    @classmethod
    def parse(cls, library) -> None:
        """Parse `library`'s bitcode once, and give the engine the names numba would have."""
        import llvmlite.binding as ll

        bitcode = library.__dict__.pop("_solverkit_bitcode", None)
        if bitcode is None:
            return
        library._shared_module = ll.parse_bitcode(bitcode)
        engine = library._codegen._engine
        engine._load_defined_symbols(library._shared_module)
        waiting = cls.pending.get(id(engine), [])
        if library in waiting:
            waiting.remove(library)

    @classmethod
    def parse_all(cls, engine) -> None:
        for library in list(cls.pending.pop(id(engine), [])):
            cls.parse(library)


def _patch_library_loads() -> bool:
    """Load cached libraries from their object code with their bitcode parsed on use (see the
    module); False when this numba's code libraries are built otherwise."""
    from numba.core import codegen

    lib, engine = getattr(codegen, "CPUCodeLibrary", None), getattr(codegen, "JitEngine", None)
    needed = ((lib, "_unserialize"), (lib, "_get_module_for_linking"), (lib, "enable_object_caching"),
              (lib, "_set_compiled_object"), (lib, "_finalize_final_module"), (engine, "is_symbol_defined"),
              (engine, "_load_defined_symbols"))
    if not all(hasattr(owner, name) for owner, name in needed):
        return False
    full_unserialize = lib._unserialize.__func__
    full_linking = lib._get_module_for_linking
    full_defined = engine.is_symbol_defined

    def _unserialize(cls, codegen_, state):
        name, kind, data = state
        symbols = elf_defined(data[0]) if kind == "object" else None
        if symbols is None or not isinstance(getattr(codegen_, "_engine", None), engine):
            return full_unserialize(cls, codegen_, state)
        object_code, shared_bitcode = data
        self = codegen_.create_library(name)
        assert isinstance(self, cls)
        self.enable_object_caching()
        self._set_compiled_object(object_code)
        self._solverkit_bitcode = shared_bitcode  # numba: self._shared_module = ll.parse_bitcode(...)
        self._finalize_final_module()
        codegen_._engine._defined_symbols |= symbols  # numba: the bitcode's defined names
        _LazyLinking.pending.setdefault(id(codegen_._engine), []).append(self)
        return self

    def _get_module_for_linking(self):
        _LazyLinking.parse(self)
        return full_linking(self)

    def is_symbol_defined(self, name):
        if not full_defined(self, name) and _LazyLinking.pending.get(id(self)):
            _LazyLinking.parse_all(self)
        return full_defined(self, name)

    lib._unserialize = classmethod(_unserialize)
    lib._get_module_for_linking = _get_module_for_linking
    engine.is_symbol_defined = is_symbol_defined
    return True


class _Premade:
    """Module objects made before their module is imported (see the module): a finder first on
    ``sys.meta_path`` hands each to the import of its name, which executes the module into it."""

    modules: dict = {}
    _finder = None

    @classmethod
    def module(cls, name: str):
        """The module object the import of `name` will fill."""
        import types

        if name not in cls.modules:
            cls.modules[name] = types.ModuleType(name)
            if cls._finder is None:
                cls._finder = cls()
                sys.meta_path.insert(0, cls._finder)
        return cls.modules[name]

    def find_spec(self, name, path=None, target=None):
        module = self.modules.get(name)
        if module is None:
            return None
        for finder in sys.meta_path:  # the spec the import would have found
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec  # a loader of another kind: the import as usual (the environment keeps its dict)
        del self.modules[name]
        spec.loader = _IntoModule(spec.loader, module)
        return spec


class _IntoModule:
    """A loader that executes its module into a given module object."""

    def __init__(self, loader, module):
        self.loader, self.module = loader, module

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        self.loader.exec_module(module)

    def __getattr__(self, name):  # get_source, is_package, ...: the real loader's
        return getattr(self.loader, name)


def _patch_env_rebuild() -> bool:
    """Rebuild a cached kernel's environments without importing numba's modules (see the
    module); False when this numba's environments are built otherwise."""
    from numba.core import environment

    env_class = getattr(environment, "Environment", None)
    if not (hasattr(environment, "_rebuild_env") and hasattr(environment, "lookup_environment")
            and hasattr(env_class, "_memo")):
        return False
    if getattr(environment._rebuild_env, "_solverkit", False):
        return True
    full_rebuild = environment._rebuild_env

    def _rebuild_env(modname, consts, env_name):
        env = environment.lookup_environment(env_name)
        if env is not None:
            return env
        if not isinstance(modname, str) or not modname.startswith("numba.") or modname in sys.modules:
            return full_rebuild(modname, consts, env_name)
        env = env_class(_Premade.module(modname).__dict__)  # numba: importlib.import_module(modname).__dict__
        env.consts[:] = consts
        env.env_name = env_name
        env_class._memo[env_name] = env
        return env

    _rebuild_env._solverkit = True
    # pickled by reference as numba's (Environment.__reduce__ names the module's _rebuild_env)
    _rebuild_env.__module__, _rebuild_env.__qualname__ = environment.__name__, "_rebuild_env"
    environment._rebuild_env = _rebuild_env
    return True


def _nrt_key(codegen_) -> str:
    """What NRT's object code depends on, hashed: as numba keys a cached kernel, plus its settings."""
    import llvmlite
    import numba

    settings = sorted((k, v) for k, v in os.environ.items() if k.startswith("NUMBA_"))
    text = repr((numba.__version__, llvmlite.__version__, codegen_.magic_tuple(), settings, sys.version))
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _nrt_digest(state) -> str:
    """The SHA-256 of a serialized NRT library (name, "object", (object code, bitcode)), kept
    with it in its file and checked before the object code reaches LLVM."""
    name, kind, (obj, bitcode) = state[:3]
    h = hashlib.sha256(f"{name}\0{kind}\0{len(obj)}\0".encode())
    h.update(obj)
    h.update(bitcode)
    return h.hexdigest()


def _start_nrt(context, cache_dir: str | None) -> None:
    """``rtsys.initialize(context)`` with NRT's functions loaded from their object code in
    `cache_dir` when it holds them, compiled (and kept there) otherwise (numba 0.68's initialize
    otherwise, step for step)."""
    from llvmlite import binding as ll
    from numba.core import config
    from numba.core.compiler_lock import global_compiler_lock
    from numba.core.runtime import _nrt_python as _nrt
    from numba.core.runtime import nrtdynmod
    from numba.core.runtime.nrt import rtsys

    if rtsys._init:
        return
    with global_compiler_lock:
        if rtsys._init:
            return
        if config.NRT_STATS:
            _nrt.memsys_enable_stats()
        for py_name in _nrt.c_helpers:
            ll.add_symbol(py_name if py_name.startswith("_") else "NRT_" + py_name, _nrt.c_helpers[py_name])
        codegen_ = context.codegen()
        key = _nrt_key(codegen_)
        path = os.path.join(cache_dir, NRT_FILE.format(key=key)) if cache_dir else None
        state = None
        if path is not None:
            try:
                with open(path, "rb") as f:
                    stored_key, stored = pickle.load(f)
                # a damaged file's object code would end the process in LLVM (no exception to catch)
                if stored_key == key and stored[3] == _nrt_digest(stored):
                    state = stored[:3]
            except Exception:  # absent, unreadable, damaged or from another version: compiled below
                state = None
        if state is not None:
            library = codegen_.unserialize_library(state)
        else:
            ir_module, library = nrtdynmod.create_nrt_module(context)
            library.enable_object_caching()
            library.add_ir_module(ir_module)
            library.finalize()
            if path is not None:
                state = library.serialize_using_object_code()
                _save(path, (key, (*state, _nrt_digest(state))))
        rtsys._library = library
        rtsys._init = True


def _save(path: str, payload) -> None:
    """Write `payload` to `path` atomically; a directory that refuses it only loses the saving."""
    tmp = f"{path}.tmp.{os.getpid()}.{threading.get_ident()}"
    try:  # the umask's permissions, as numba's cache files
        with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), "wb") as f:
            pickle.dump(payload, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def light_cache_loads() -> bool:
    """Patch numba's cache loads as the module says (once per process); True when loads are
    light, False when ``SOLVERKIT_NUMBA_REFRESH`` is set (not "0") or this numba's cache lacks the
    private methods the patch replaces."""
    global _installed
    if _installed:
        return True
    if os.environ.get(ENV, "0").strip() not in ("", "0"):
        return False
    from numba.core import caching
    from numba.core.cpu import CPUContext
    from numba.core.runtime import nrt, nrtdynmod

    from .numba_blas import skip_blas_check

    if not all(hasattr(caching.Cache, name)
               for name in ("load_overload", "_load_overload", "_guard_against_spurious_io_errors")):
        return False  # a numba whose cache is built otherwise: its loads stay as they are
    nrt_cached = (hasattr(nrtdynmod, "create_nrt_module") and hasattr(nrt.rtsys, "_init")
                  and hasattr(nrt._nrt, "c_helpers") and _patch_library_loads())
    _patch_env_rebuild()
    full_refresh = CPUContext.refresh
    full_load = caching.Cache.load_overload

    def refresh(self):
        skip_blas_check()  # before the first full refresh imports numba.np.arraymath (a no-op after)
        full_refresh(self)

    def load_overload(self, sig, target_context):
        if not isinstance(target_context, CPUContext):  # another target's cache: as numba does
            return full_load(self, sig, target_context)
        if nrt_cached:  # what a compiled kernel links against: NRT's symbols
            _start_nrt(target_context, getattr(self, "cache_path", None))
        else:
            nrt.rtsys.initialize(target_context)
        import numba.cpython.hashing  # noqa: F401  (and the hash secret's, added on import)

        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)

    CPUContext.refresh = refresh
    caching.Cache.load_overload = load_overload
    _installed = True
    return True
