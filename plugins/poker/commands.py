"""``solverkit plot preflop``: the 13x13 preflop chart of a hold'em strategy, added through
register_commands."""

from __future__ import annotations

from pathlib import Path

import click

from solverkit.errors import SolverkitError


def add_commands(cli: click.Group) -> None:
    """Add ``preflop`` to the ``plot`` group of the ``solverkit`` command line `cli`."""

    @cli.commands["plot"].command("preflop")
    @click.argument("run_dir", type=click.Path(file_okay=False))
    @click.option("--output", "-o", type=click.Path(dir_okay=False), help="PNG to write (default RUN_DIR/preflop.png).")
    def plot_preflop_cmd(run_dir, output):
        """The 13x13 preflop chart of a hold'em strategy (fold red, call blue, raise green)."""
        from solverkit.cli import run_config
        from solverkit.core.config import load_config
        from solverkit.core.strategy_file import load_strategy
        from solverkit.poker.preflop import plot_preflop

        run_dir = Path(run_dir)
        assembly = load_config(run_config(run_dir))
        if not hasattr(assembly.game, "tree"):
            raise SolverkitError(f"game {assembly.game.name!r} is not a poker game; a preflop chart needs hold'em")
        strategy, layouts, meta = load_strategy(run_dir / "strategy.npz", assembly.game)
        path = Path(output) if output else run_dir / "preflop.png"
        plot_preflop(assembly.game, strategy, path,
                     title=f"{assembly.game.name}: {meta['kind']} strategy after {meta['iteration']} iterations "
                           "(fold red, call blue, raise green)")
        click.echo(f"wrote {path}")
