"""Plugin registry: one pluggy manager, built-ins and entry points registered alike.

Entry points of the ``solverkit`` group are loaded at start-up. The environment variable
``SOLVERKIT_LOAD_PLUGINS`` limits that: unset loads every entry point; an empty value loads
none; otherwise a comma-separated list of entry-point names or distribution names to load.
An entry-point plugin that fails to import, names an unknown hook, raises in a hook or registers
something that is not a proper plugin class is reported (``solverkit plugins``) and skipped,
never fatal. Duplicate names are fatal: the error names both plugins.
"""

from __future__ import annotations

import importlib
import importlib.metadata as md
import os
import re
from dataclasses import dataclass

import pluggy

from ..abstraction.plugin import Abstraction
from ..errors import PluginError, choices, shown
from . import hookspecs
from .averaging import Averaging, check_averaging_class
from .compressor import Compressor
from .game import Game
from .presets import Preset, make_preset
from .rule import RegretRule, check_rule_class
from .sampler import Sampler, check_sampler_class
from .transport import Transport

ENV_LOAD = "SOLVERKIT_LOAD_PLUGINS"

#: Built-in plugin modules of the solverkit package itself, registered through the same hooks.
DEFAULT_PLUGINS = ("solverkit.rules", "solverkit.rules_scheduled", "solverkit.rules_asymmetric",
                   "solverkit.rules_adaptive", "solverkit.rules_regularised", "solverkit.averaging", "solverkit.samplers",
                   "solverkit.presets")

#: kind -> (hook name, base class, label used in messages and config tables)
KINDS = {
    "game": ("register_games", Game, "game"),
    "rule": ("register_regret_rules", RegretRule, "regret rule"),
    "averaging": ("register_averaging", Averaging, "averaging scheme"),
    "sampler": ("register_samplers", Sampler, "sampler"),
    "compressor": ("register_compressors", Compressor, "compressor"),
    "transport": ("register_transports", Transport, "transport"),
    "abstraction": ("register_abstractions", Abstraction, "abstraction"),
}
#: the hooks that are not one per kind: presets (collected here) and commands (by the CLI)
PRESET_HOOK = "register_presets"
COMMAND_HOOK = "register_commands"
HOOKS = tuple(hook for hook, _, _ in KINDS.values()) + (PRESET_HOOK, COMMAND_HOOK)


@dataclass(frozen=True)
class PluginInfo:
    """One registered class: its kind, name, the plugin that registered it and where from."""

    kind: str
    name: str
    cls: type
    plugin: str
    distribution: str
    version: str


def _canonical(name: str) -> str:
    """Distribution names compare as PEP 503 normalised names (solverkit_x == SolverKit-X)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _selected(ep, wanted: set[str] | None) -> bool:
    if wanted is None:
        return True
    dist = ep.dist.name if ep.dist is not None else ""
    return ep.name in wanted or (bool(dist) and _canonical(dist) in {_canonical(w) for w in wanted})


def _who(plugin: str, distribution: str) -> str:
    """How messages name a plugin: its name and where it comes from."""
    return f"plugin {plugin!r} ({distribution.strip('()')})"


#: per kind, a check of a registered class's declarations (a PluginError names the problem)
_CLASS_CHECKS = {"rule": check_rule_class, "averaging": check_averaging_class, "sampler": check_sampler_class}


class _Duplicate(Exception):
    """Two plugins registered one name: always fatal, whoever registered them."""

    def __init__(self, error: PluginError):
        super().__init__(str(error))
        self.error = error


class _HookFailure(Exception):
    """A plugin's hook failed while the tables were built; `plugin` is the culprit."""

    def __init__(self, plugin, error: PluginError):
        super().__init__(str(error))
        self.plugin = plugin
        self.error = error


class Registry:
    """Everything the installed plugins provide, by kind and name."""

    def __init__(self, load_entrypoints: bool | None = None, extra_plugins=()):
        self.pm = pluggy.PluginManager("solverkit")
        self.pm.add_hookspecs(hookspecs)
        self.load_errors: list[tuple[str, str]] = []
        self._origin: dict[str, tuple[str, str, str]] = {}  # plugin name -> (name, dist, version)
        self._from_entrypoints: set[str] = set()  # names of plugins skipped, not fatal, if broken
        self.by_kind: dict[str, dict[str, PluginInfo]] = {k: {} for k in KINDS}
        self.presets: dict[str, Preset] = {}
        self.generation = 0  # counts table rebuilds, so derived caches (the CLI's commands) can expire
        own = _own_distribution()
        for modname in DEFAULT_PLUGINS:
            mod = importlib.import_module(modname)
            self._register_plugin(mod, modname)
            self._origin[modname] = (modname, *own)
        if load_entrypoints is None:
            load_entrypoints = True
        if load_entrypoints:
            self._load_entrypoints()
        for plugin in extra_plugins:
            self._add_inline(plugin)
        self._build()

    def _load_entrypoints(self):
        env = os.environ.get(ENV_LOAD)
        wanted = None if env is None else {s.strip() for s in env.split(",") if s.strip()}
        if wanted is not None and not wanted:
            return
        eps = list(md.entry_points(group="solverkit"))
        if wanted is not None:
            self._check_wanted(wanted, eps)
        for ep in eps:
            if not _selected(ep, wanted):
                continue
            dist = ep.dist.name if ep.dist is not None else "?"
            version = ep.dist.version if ep.dist is not None else "?"
            label = f"{ep.name} ({dist})"
            if self.pm.get_plugin(ep.name) is not None:
                _, other, _ = self._origin.get(ep.name, (ep.name, "?", "?"))
                self.load_errors.append(
                    (label, f"entry-point name {ep.name!r} is already used by distribution {other}; skipped")
                )
                continue
            try:
                plugin = ep.load()
                self._register_plugin(plugin, ep.name)
            except Exception as exc:  # one broken plugin must not break start-up
                self.load_errors.append((label, f"{type(exc).__name__}: {exc}"))
                continue
            self._origin[ep.name] = (ep.name, dist, version)
            self._from_entrypoints.add(ep.name)

    def _check_wanted(self, wanted: set[str], eps) -> None:
        """Report each name of SOLVERKIT_LOAD_PLUGINS that is neither an installed entry point
        nor a distribution that has one (a misspelt name would otherwise load nothing, silently)."""
        known = {ep.name for ep in eps} | {_canonical(ep.dist.name) for ep in eps if ep.dist is not None}
        installed = [f"{ep.name} ({ep.dist.name if ep.dist is not None else '?'})" for ep in eps]
        for name in sorted(wanted):
            if name not in known and _canonical(name) not in known:
                self.load_errors.append((f"{name} ({ENV_LOAD})", "no installed entry point or distribution of the "
                                         f"solverkit group has this name; installed: {choices(installed)}"))

    def _register_plugin(self, plugin, name: str) -> None:
        """Register `plugin` with pluggy and check its hook names and arguments, or undo it."""
        try:
            self.pm.register(plugin, name=name)
            self.pm.check_pending()  # earlier plugins passed this check, so a failure is this one's
        except (ValueError, pluggy.PluginValidationError) as exc:
            if self.pm.get_plugin(name) is plugin:  # pluggy keeps half-registered plugins
                self.pm.unregister(name=name)
            hint = ""
            if isinstance(exc, pluggy.PluginValidationError):
                hint = (f"; solverkit hooks: {choices(HOOKS)} (each takes one argument: register, or cli "
                        f"for {COMMAND_HOOK})")
            why = "; ".join(line.strip() for line in str(exc).splitlines() if line.strip())  # one line
            raise PluginError(f"cannot register plugin {name!r}: {why}{hint}") from None

    def _add_inline(self, plugin, name: str | None = None) -> None:
        name = name or getattr(plugin, "__name__", None) or type(plugin).__name__
        self._register_plugin(plugin, name)
        self._origin[name] = (name, "(inline)", "")

    def add(self, plugin, name: str | None = None):
        """Register an extra plugin object (a module or an object with hookimpls).

        Raises PluginError, leaving the registry as it was, if the plugin's hooks are misnamed,
        raise, register a bad class or a name that is already taken.
        """
        self._add_inline(plugin, name)
        try:
            self._build()
        except PluginError:
            self._origin.pop(self.pm.get_name(plugin), None)
            self.pm.unregister(plugin)
            self._build()
            raise

    def remove(self, plugin):
        """Unregister a plugin added with :meth:`add`."""
        if not self.pm.is_registered(plugin):
            raise PluginError(f"cannot remove {plugin!r}: it is not a registered plugin")
        self._origin.pop(self.pm.get_name(plugin), None)
        self.pm.unregister(plugin)
        self._build()

    def _build(self):
        """Call every plugin's hooks and rebuild the tables; a broken entry-point plugin is
        reported in ``load_errors`` and dropped, any other failure raises PluginError."""
        while True:
            try:
                self._collect()
                return
            except _HookFailure as failure:
                name = self.pm.get_name(failure.plugin)
                if name not in self._from_entrypoints:
                    raise failure.error from failure.error.__cause__
                _, dist, _ = self._origin.pop(name)
                self._from_entrypoints.discard(name)
                self.pm.unregister(failure.plugin)
                self.load_errors.append((f"{name} ({dist})", str(failure.error)))

    def _collect(self):
        self.by_kind = {k: {} for k in KINDS}
        self.presets = {}
        self.generation += 1
        for kind, (hook, base, label) in KINDS.items():
            for impl in getattr(self.pm.hook, hook).get_hookimpls():
                origin = self.origin(impl.plugin_name)

                def register(cls, _kind=kind, _origin=origin, _base=base, _label=label):
                    self._register(_kind, cls, _origin, _base, _label)

                self._call(impl, hook, register, origin)
        for impl in getattr(self.pm.hook, PRESET_HOOK).get_hookimpls():
            origin = self.origin(impl.plugin_name)

            def register(name, spec, _origin=origin):
                self._register_preset(name, spec, _origin)

            self._call(impl, PRESET_HOOK, register, origin)

    def origin(self, plugin_name: str) -> tuple[str, str, str]:
        """(plugin name, distribution, version) of a registered plugin."""
        return self._origin.get(plugin_name, (plugin_name, "?", "?"))

    def _call(self, impl, hook, register, origin):
        """Call one plugin's `hook` with `register`; failures become PluginErrors naming it."""
        try:
            impl.function(register=register)
        except _Duplicate as exc:
            raise exc.error from None
        except PluginError as exc:
            raise _HookFailure(impl.plugin, exc) from None
        except Exception as exc:
            error = PluginError(f"{_who(*origin[:2])} failed in {hook}: {type(exc).__name__}: {exc}")
            error.__cause__ = exc
            raise _HookFailure(impl.plugin, error) from exc

    def _register_preset(self, name, spec, origin):
        try:
            preset = make_preset(name, spec, origin)
        except PluginError as exc:
            raise PluginError(f"{_who(*origin[:2])}: {exc}") from None
        if name in self.presets:
            raise self._duplicate("preset", name, self.presets[name], origin)
        self.presets[name] = preset

    def _register(self, kind, cls, origin, base, label):
        if not (isinstance(cls, type) and issubclass(cls, base)):
            raise PluginError(
                f"{_who(*origin[:2])} registered {cls!r} as a {label}; expected a subclass of "
                f"{base.__module__}.{base.__name__}"
            )
        name = getattr(cls, "name", "")
        if not name or not isinstance(name, str):
            raise PluginError(
                f"{_who(*origin[:2])} registered {label} {cls.__name__} without a name; "
                "set its class attribute `name` to the name configs use"
            )
        check = _CLASS_CHECKS.get(kind)
        if check is not None:
            try:
                check(cls)
            except PluginError as exc:
                raise PluginError(f"{_who(*origin[:2])}: {exc}") from None
        table = self.by_kind[kind]
        if name in table:
            raise self._duplicate(label, name, table[name], origin)
        table[name] = PluginInfo(kind, name, cls, *origin)

    def _duplicate(self, label, name, other, origin) -> _Duplicate:
        """The fatal error for `name` registered by `other` (a PluginInfo or Preset) and again."""
        fix = "rename one"
        if {other.plugin, origin[0]} & self._from_entrypoints:
            fix += f", or leave one plugin out with {ENV_LOAD}=<comma-separated plugins to load>"
        return _Duplicate(PluginError(
            f"duplicate {label} name {name!r}: registered by {_who(other.plugin, other.distribution)} "
            f"and by {_who(*origin[:2])}; {fix}"
        ))

    # --- look-ups ----------------------------------------------------------------------------

    def get(self, kind: str, name: str, where: str | None = None) -> type:
        """The class registered as `name` of `kind`, or a PluginError listing the valid names."""
        if kind not in KINDS:
            raise PluginError(f"unknown plugin kind {kind!r}; kinds: {choices(KINDS)}")
        table = self.by_kind[kind]
        if name not in table:
            label = KINDS[kind][2]
            at = f" in {where}" if where else ""
            raise PluginError(f"unknown {label} {shown(name)}{at}; available: {choices(table)}{self.load_error_hint()}")
        return table[name].cls

    def preset(self, name, where: str | None = None) -> Preset:
        """The preset registered as `name`, or a PluginError listing the presets."""
        if not isinstance(name, str) or name not in self.presets:
            at = f" in {where}" if where else ""
            raise PluginError(f"unknown preset {shown(name)}{at}; available: {choices(self.presets)}{self.load_error_hint()}")
        return self.presets[name]

    def load_error_hint(self) -> str:
        """``; plugin x (dist) failed to load: <reason> (see solverkit plugins)`` for each plugin
        that failed to load (the unknown name may be one of theirs), on one line; "" if none."""
        hint = ""
        for plugin, err in self.load_errors:
            reason = " ".join(line.strip() for line in str(err).splitlines() if line.strip())
            hint += f"; plugin {plugin} failed to load: {reason}"
        return hint + " (see solverkit plugins)" if hint else ""

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
