"""``solverkit abstraction build CONFIG_OR_GAME`` (build and save a bucket table, with a
progress line per step) and ``solverkit abstraction info TABLE.npz``."""

from __future__ import annotations

from pathlib import Path

import click

from solverkit.core.params import UserPath
from solverkit.errors import ConfigError


def _game_and_abstraction(config_or_game: str, overrides):
    """The game and the [abstraction] plugin of a config file, or of a game name, with --set
    values. The game is resolved without its abstraction, so that the table is built once, here."""
    from solverkit.core.config import _resolve_abstraction, resolve
    from solverkit.core.config_text import apply_overrides, read_toml
    from solverkit.core.params import expand_path
    from solverkit.core.registry import get_registry

    if Path(config_or_game).suffix == ".toml" or Path(config_or_game).is_file():
        raw, base = read_toml(config_or_game), expand_path(config_or_game, "config file").resolve().parent
    else:
        raw, base = {"game": config_or_game, "preset": "cfr_plus"}, Path.cwd()
    raw = apply_overrides(raw, overrides)
    plain = {k: v for k, v in raw.items() if k not in ("abstraction", "search")}
    if "rule" not in plain and "preset" not in plain:
        plain["preset"] = "cfr_plus"
    game = resolve(plain, base_dir=base, source=str(config_or_game)).game
    if "abstraction" not in raw:
        return game, None
    return game, _resolve_abstraction(raw, get_registry(), game, base)


def add_commands(cli: click.Group) -> None:
    @cli.group("abstraction")
    def abstraction():
        """Card abstraction tables: build one, or describe a saved one."""

    @abstraction.command("build")
    @click.argument("config_or_game")
    @click.option("--set", "overrides", multiple=True, metavar="SECTION.KEY=VALUE",
                  help="Override a config value, e.g. --set abstraction.buckets=[0,50,50].")
    @click.option("--method", type=str, default=None, help="Abstraction name (default: the config's, or emd).")
    @click.option("--buckets", type=str, default=None, help="Buckets per round, e.g. 0,50,50 (0: lossless).")
    @click.option("--output", "-o", type=UserPath(dir_okay=False), default=None,
                  help="Table file to write (default: the config's [abstraction] table).")
    def build_cmd(config_or_game, overrides, method, buckets, output):
        """Build the bucket table of CONFIG_OR_GAME (a config file with an [abstraction] table, or a
        game name) and save it."""
        from solverkit.abstraction.plugin import print_progress
        from solverkit.abstraction.spec import CardSpec

        extra = list(overrides)
        if method:
            extra.append(f"abstraction.name={method}")
        if buckets:
            extra.append(f"abstraction.buckets=[{buckets}]")
        if output:
            extra.append(f"abstraction.table={output}")
        game, abstraction = _game_and_abstraction(config_or_game, extra)
        if abstraction is None:
            raise ConfigError(f"{config_or_game} has no [abstraction] table: give one in the config, or --method "
                              "and --buckets")
        if not abstraction.config.get("table"):
            raise ConfigError("no table file to write: give --output or [abstraction] table")
        path = Path(abstraction.config["table"])
        if path.exists():
            path.unlink()  # build means rebuild
        table = abstraction.table(CardSpec.of_game(game), print_progress)
        click.echo(table.describe())

    @abstraction.command("info")
    @click.argument("table", type=UserPath(dir_okay=False, exists=True))
    def info_cmd(table):
        """Describe a saved bucket table: method, parameters, cards, buckets per round."""
        import json

        from solverkit.abstraction.table import BucketTable

        meta = BucketTable.read_meta(table)
        for key in ("name", "params", "spec", "buckets", "format", "solverkit"):
            click.echo(f"{key}: {json.dumps(meta.get(key))}")
