"""Commands that plugins add to the ``solverkit`` command line through ``register_commands(cli)``.

Each registry gets its own set: the hooks run on a staging group that holds the built-in
command names, so a plugin cannot replace a built-in or another plugin's command, and a plugin
whose hook raises is reported and leaves nothing behind.
"""

from __future__ import annotations

import click

from .core.registry import COMMAND_HOOK


def shared_groups() -> dict[str, click.Group]:
    """Empty command groups that several plugins add to (``solverkit plot NAME``)."""
    return {"plot": click.Group("plot", help="Figures from a solve's output directory.")}


def _snapshot(group: click.Group) -> dict:
    """Every command of `group` and of its subgroups, by path."""
    out = {}
    for name, cmd in group.commands.items():
        out[(name,)] = cmd
        if isinstance(cmd, click.Group):
            out.update({(name, *k): v for k, v in _snapshot(cmd).items()})
    return out


def _restore(group: click.Group, before: dict) -> None:
    """Put `group` back to the `before` snapshot (drop additions, undo replacements)."""
    for path in sorted(set(_snapshot(group)) - set(before), key=len, reverse=True):
        parent = group
        for name in path[:-1]:
            parent = parent.commands[name]
        parent.commands.pop(path[-1], None)
    for path, cmd in before.items():
        parent = group
        for name in path[:-1]:
            parent = parent.commands[name]
        parent.commands[path[-1]] = cmd


def collect(registry, builtins: dict[str, click.Command]) -> tuple[dict[str, click.Command], list[str]]:
    """(name -> command, warnings): the commands every plugin's ``register_commands`` adds on
    top of `builtins`, plus the shared groups; a plugin that raises or takes a name already
    used is skipped with a warning naming it."""
    staging = click.Group("solverkit")
    for name, cmd in {**builtins, **shared_groups()}.items():
        staging.add_command(cmd, name)
    owner = {path: "solverkit (built-in)" for path in _snapshot(staging)}
    warnings = []
    for impl in getattr(registry.pm.hook, COMMAND_HOOK).get_hookimpls():  # in registration order
        plugin, dist, _ = registry.origin(impl.plugin_name)
        who = f"plugin {plugin!r} ({dist.strip('()')})"
        before = _snapshot(staging)
        try:
            impl.function(cli=staging)
        except Exception as exc:  # one broken plugin must not break the command line
            _restore(staging, before)
            warnings.append(f"{who} failed in {COMMAND_HOOK}: {type(exc).__name__}: {exc}; its commands are skipped")
            continue
        after = _snapshot(staging)
        taken = sorted(p for p, cmd in after.items() if p in before and before[p] is not cmd)
        if taken:
            _restore(staging, before)
            path = " ".join(taken[0])
            warnings.append(f"{who} registers command {path!r}, already registered by {owner[taken[0]]}; "
                            "its commands are skipped")
            continue
        owner.update({p: who for p in after if p not in before})
    commands = {name: cmd for name, cmd in staging.commands.items() if name not in builtins}
    return commands, warnings
