"""The ``solverkit`` command line: plugins, solve, exploit, export, info, study, and the commands
plugins add through ``register_commands(cli)`` (plot preflop, worker).

Its parts live beside it: :mod:`.cli_group` (the group: one-line errors and warnings, plugin
commands), :mod:`.cli_solve` (solve, study), :mod:`.cli_runs` (exploit, export, strategy, report);
this module keeps the commands that describe what is installed (plugins, info) and loads the rest."""

from __future__ import annotations

import sys

from .cli_gc import pause

pause()  # the collector off while the command line loads, when a process starts as it (see cli_gc)

try:  # Ctrl-C while the command line loads ends as one after it does (130), not an importlib traceback
    import json
    import time  # noqa: F401 (tests patch time.strftime through this module)
    from pathlib import Path

    import click

    from .cli_group import (_Group, _OneLineUsageError, _one_line, _show_warning,  # noqa: F401 (re-exported)
                            _single_line, cli)
    from .cli_compile import compile_kernels  # noqa: F401 (registers the command)
    from .cli_runs import (_check_not_a_run_file, _check_page_output, export, exploit,  # noqa: F401 (re-exported)
                           report, run_config, strategy)
    from .cli_solve import (SOLVE_USAGE, _fresh_dir, _peak_rss_mb, solve, store_line,  # noqa: F401 (re-exported)
                            store_line_sized, study)
except KeyboardInterrupt:
    print("Aborted!", file=sys.stderr)
    sys.exit(130)


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def plugins(as_json):
    """List every installed plugin (kind, name, source distribution, version, parameters) and
    every preset (what it combines, and from where)."""
    from .core.registry import get_registry

    reg = get_registry()
    rows = [
        {
            "kind": i.kind,
            "name": i.name,
            "plugin": i.plugin,
            "distribution": i.distribution,
            "version": i.version,
            "description": getattr(i.cls, "description", ""),
            "params": _param_rows(i.cls),
        }
        for i in reg.all()
    ]
    presets = [p.as_dict() for _, p in sorted(reg.presets.items())]
    if as_json:
        errors = [{"plugin": p, "error": e} for p, e in reg.load_errors]
        click.echo(json.dumps({"plugins": rows, "presets": presets, "errors": errors}, indent=2))
        return
    keys = ("kind", "name", "distribution", "version")
    widths = {k: max(len(k), *(len(str(r[k])) for r in rows)) for k in keys}
    click.echo("  ".join(k.upper().ljust(widths[k]) for k in keys) + "  DESCRIPTION")
    for r in rows:
        click.echo("  ".join(str(r[k]).ljust(widths[k]) for k in keys) + "  " + r["description"])
        for p in r["params"]:
            default = "required" if p["required"] else f"default {json.dumps(p['default'])}"
            click.echo(f"    {p['name']}: {p['type']}, {default}  {p['doc']}".rstrip())
    if presets:
        click.echo()
        _preset_table([reg.presets[p["name"]] for p in presets])
    for plugin, err in reg.load_errors:
        click.echo(f"warning: plugin {plugin} failed to load: {err}", err=True)


def _param_rows(cls) -> list[dict]:
    """A plugin class's declared parameters as ``solverkit plugins`` shows them."""
    from .core.params import spec_of

    return [{"name": key, "type": p.type, "default": p.default, "required": p.required, "doc": p.doc}
            for key, p in spec_of(cls).params.items()]


def _preset_table(presets) -> None:
    """The presets as a table: name, source, then what each combines and its description."""
    head = {"preset": [p.name for p in presets], "distribution": [p.distribution for p in presets],
            "version": [p.version for p in presets]}
    widths = {k: max(len(k), *(len(v) for v in col)) for k, col in head.items()}
    click.echo("  ".join(k.upper().ljust(widths[k]) for k in head) + "  COMBINES")
    for p in presets:
        cells = [getattr(p, "name" if k == "preset" else k).ljust(widths[k]) for k in head]
        click.echo("  ".join(cells) + f"  {p.combines()}" + (f"  ({p.description})" if p.description else ""))


@cli.command()
@click.argument("game")
@click.option("--set", "overrides", multiple=True, metavar="PARAM=VALUE", help="A game parameter, e.g. ranks=5.")
def info(game, overrides):
    """Sizes of GAME (a game name, or a config file's [game]): information sets (raw and up to suit
    symmetry), subgames, memory, counted before anything is built."""
    import inspect

    from .core.config_text import parse_value

    from .core.params import spec_of
    from .core.registry import get_registry
    from .errors import ConfigError

    given = {}
    abstraction = None
    base_dir = Path.cwd()
    if game.endswith(".toml") and Path(game).is_file():  # a config file: its [game] table (paths resolved)
        from .core.config import absolutize_game_files
        from .core.config_text import read_toml

        path = Path(game)
        base_dir = path.resolve().parent
        raw = read_toml(path)
        table = dict(raw.get("game") or {})
        abstraction = raw.get("abstraction")
        if "name" not in table:
            raise ConfigError(f"{game}: no [game] table with a name")
        game = table.pop("name")
        cls = get_registry().get("game", game, where="game")
        absolutize_game_files(table, cls, base_dir)
        given.update(table)
    cls = get_registry().get("game", game, where="game")
    for item in overrides:
        if "=" not in item:
            raise ConfigError(f"--set {item!r} is not PARAM=VALUE (e.g. --set ranks=5)")
        key, text = item.split("=", 1)
        key = key.strip()
        section, dot, rest = key.partition(".")
        if dot and section == "game":  # solve's spelling of a game parameter
            key = rest
        elif dot:
            raise ConfigError(f"--set {key}: info sizes the game and takes [game] parameters only (PARAM or "
                              f"game.PARAM); [{section}] settings do not change its size (the memory rows cover "
                              "each store precision)")
        given[key] = parse_value(text.strip())
    spec = spec_of(cls)
    params = spec.resolve(given, f"[game] ({game})")
    if isinstance(abstraction, dict) and "abstraction" in inspect.signature(cls.size_report).parameters:
        # a game sized by its buckets (the blueprint): the config's [abstraction], its table not built
        from .core.config import _resolve_abstraction

        plugin = _resolve_abstraction({"abstraction": abstraction}, get_registry(), cls(**params), base_dir)
        rows = cls.size_report(params, abstraction=plugin)
    else:
        rows = cls.size_report(params)  # large games count from their definition, allocating nothing
    if isinstance(abstraction, dict):  # the config's card abstraction: the store holds (betting node, bucket)
        buckets = abstraction.get("buckets") or []
        rows = [*rows, ("card abstraction ([abstraction])",
                        f"{abstraction.get('name')}, buckets per round {list(buckets)} (0: lossless): information "
                        "sets (betting node, bucket), imperfect recall; strategies and exploitability in the real game")]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        click.echo(f"{k.ljust(width)}  {v}")
    if spec.params:
        click.echo("parameters (--set NAME=VALUE; * = given here, otherwise the default):")
        names = getattr(cls, "info_params", lambda _: spec.params)(params)  # those that apply (players: engine)
        shown_params = {n: p for n, p in spec.params.items() if n in names}
        pwidth = max((len(n) for n in shown_params), default=0)
        for name, p in shown_params.items():
            mark = "*" if name in given else " "
            value = params.get(name)
            shown = "(required)" if value is None else _toml_value(value)
            click.echo(f"  {mark} {name.ljust(pwidth)}  {shown:<12}  {p.type}: {p.doc}")


def _toml_value(value) -> str:
    """A value as TOML writes it, on one line (lists too: [3, 4, 4, 4])."""
    import tomli_w

    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in value) + "]"
    if isinstance(value, dict):  # an inline table (a spot's sizes: {flop = {bet = "52%"}})
        return "{" + ", ".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items()) + "}"
    return tomli_w.dumps({"v": value})[4:].strip()


def _toml_key(key) -> str:
    """A table key as TOML writes it: bare when it can be, quoted otherwise."""
    import re

    key = str(key)
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else _toml_value(key)


def main():  # pragma: no cover - console entry
    sys.exit(cli())
