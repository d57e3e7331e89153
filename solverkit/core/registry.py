"""Plugin registry: one pluggy manager, built-ins and entry points registered alike.

Entry points of the ``solverkit`` group are loaded at start-up. The environment variable
``SOLVERKIT_LOAD_PLUGINS`` limits that: unset loads every entry point; an empty value loads
none; otherwise a comma-separated list of entry-point names or distribution names to load.
A plugin that fails to import is reported (``solverkit plugins``) and skipped, never fatal.
"""

from __future__ import annotations

import importlib
import importlib.metadata as md
import os
from dataclasses import dataclass

import pluggy

from ..errors import PluginError, choices
from . import hookspecs
from .averaging import Averaging
from .compressor import Compressor
from .game import Game
from .rule import RegretRule
from .transport import Transport

ENV_LOAD = "SOLVERKIT_LOAD_PLUGINS"

#: Built-in plugin modules of the solverkit package itself, registered through the same hooks.
DEFAULT_PLUGINS = ("solverkit.rules", "solverkit.averaging")

#: kind -> (hook name, base class, label used in messages and config tables)
KINDS = {
    "game": ("register_games", Game, "game"),
    "rule": ("register_regret_rules", RegretRule, "regret rule"),
    "averaging": ("register_averaging", Averaging, "averaging scheme"),
    "compressor": ("register_compressors", Compressor, "compressor"),
    "transport": ("register_transports", Transport, "transport"),
}


@dataclass(frozen=True)
class PluginInfo:
    """One registered class: its kind, name, the plugin that registered it and where from."""

    kind: str
    name: str
    cls: type
    plugin: str
    distribution: str
    version: str


def _selected(ep, wanted: set[str] | None) -> bool:
    if wanted is None:
        return True
    dist = ep.dist.name if ep.dist is not None else ""
    return ep.name in wanted or dist in wanted


class Registry:
    """Everything the installed plugins provide, by kind and name."""

    def __init__(self, load_entrypoints: bool | None = None, extra_plugins=()):
        self.pm = pluggy.PluginManager("solverkit")
        self.pm.add_hookspecs(hookspecs)
        self.load_errors: list[tuple[str, str]] = []
        self._origin: dict[object, tuple[str, str, str]] = {}
        own = _own_distribution()
        for modname in DEFAULT_PLUGINS:
            mod = importlib.import_module(modname)
            self.pm.register(mod, name=modname)
            self._origin[mod] = (modname, *own)
        if load_entrypoints is None:
            load_entrypoints = True
        if load_entrypoints:
            self._load_entrypoints()
        for plugin in extra_plugins:
            self.add(plugin)
        self._build()

    def _load_entrypoints(self):
        env = os.environ.get(ENV_LOAD)
        wanted = None if env is None else {s.strip() for s in env.split(",") if s.strip()}
        if wanted is not None and not wanted:
            return
        for ep in md.entry_points(group="solverkit"):
            if not _selected(ep, wanted) or self.pm.get_plugin(ep.name) is not None:
                continue
            dist = ep.dist.name if ep.dist is not None else "?"
            version = ep.dist.version if ep.dist is not None else "?"
            try:
                plugin = ep.load()
                self.pm.register(plugin, name=ep.name)
            except Exception as exc:  # one broken plugin must not break start-up
                self.load_errors.append((f"{ep.name} ({dist})", f"{type(exc).__name__}: {exc}"))
                continue
            self._origin[plugin] = (ep.name, dist, version)

    def add(self, plugin, name: str | None = None):
        """Register an extra plugin object (a module or an object with hookimpls)."""
        name = name or getattr(plugin, "__name__", None) or type(plugin).__name__
        self.pm.register(plugin, name=name)
        self._origin[plugin] = (name, "(inline)", "")
        self._build()

    def remove(self, plugin):
        """Unregister a plugin added with :meth:`add`."""
        self.pm.unregister(plugin)
        self._origin.pop(plugin, None)
        self._build()

    def _build(self):
        try:
            self.pm.check_pending()
        except pluggy.PluginValidationError as exc:
            raise PluginError(f"plugin hook error: {exc}") from None
        self.by_kind: dict[str, dict[str, PluginInfo]] = {k: {} for k in KINDS}
        for kind, (hook, base, label) in KINDS.items():
            caller = getattr(self.pm.hook, hook)
            for impl in caller.get_hookimpls():
                origin = self._origin.get(impl.plugin, (impl.plugin_name, "?", "?"))

                def register(cls, _kind=kind, _origin=origin, _base=base, _label=label):
                    self._register(_kind, cls, _origin, _base, _label)

                try:
                    impl.function(register=register)
                except PluginError:
                    raise
                except Exception as exc:
                    raise PluginError(
                        f"plugin {origin[0]!r} ({origin[1]}) failed in {hook}: "
                        f"{type(exc).__name__}: {exc}"
                    ) from exc

    def _register(self, kind, cls, origin, base, label):
        if not (isinstance(cls, type) and issubclass(cls, base)):
            raise PluginError(
                f"plugin {origin[0]!r} registered {cls!r} as a {label}; expected a subclass of "
                f"{base.__module__}.{base.__name__}"
            )
        name = getattr(cls, "name", "")
        if not name or not isinstance(name, str):
            raise PluginError(f"plugin {origin[0]!r} registered {label} {cls.__name__} without a name")
        table = self.by_kind[kind]
        if name in table:
            other = table[name]
            raise PluginError(
                f"duplicate {label} name {name!r}: registered by plugin {other.plugin!r} "
                f"({other.distribution}) and by plugin {origin[0]!r} ({origin[1]})"
            )
        table[name] = PluginInfo(kind, name, cls, *origin)

    # --- look-ups ----------------------------------------------------------------------------

    def get(self, kind: str, name: str, where: str | None = None) -> type:
        """The class registered as `name` of `kind`, or a PluginError listing the valid names."""
        if kind not in KINDS:
            raise PluginError(f"unknown plugin kind {kind!r}; kinds: {choices(KINDS)}")
        table = self.by_kind[kind]
        if name not in table:
            label = KINDS[kind][2]
            at = f" in {where}" if where else ""
            raise PluginError(f"unknown {label} {name!r}{at}; available: {choices(table)}")
        return table[name].cls

    def names(self, kind: str) -> list[str]:
        return sorted(self.by_kind[kind])

    def all(self) -> list[PluginInfo]:
        return [info for kind in KINDS for _, info in sorted(self.by_kind[kind].items())]


def _own_distribution() -> tuple[str, str]:
    try:
        return "solverkit", md.version("solverkit")
    except md.PackageNotFoundError:
        return "solverkit", "unknown"


_REGISTRY: Registry | None = None


def get_registry() -> Registry:
    """The process-wide registry, built on first use."""
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = Registry()
    return _REGISTRY


def reset_registry(registry: Registry | None = None) -> None:
    """Replace (or drop, with None) the process-wide registry; used by tests and the CLI."""
    global _REGISTRY
    _REGISTRY = registry
