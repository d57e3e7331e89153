"""The commands that read a solve's output directory (exploit, export, strategy, report) and their checks."""

from __future__ import annotations

import json
from pathlib import Path

import click

from .cli_group import cli
from .core.params import UserPath, option_type
from .errors import SolverkitError


@cli.command()
@click.argument("run_dir", type=UserPath(file_okay=False))
@click.option("--real", is_flag=True,
              help="In the real, unabstracted game: a run with [abstraction] plays each hand its bucket's policy "
                   "there (docs/abstraction.md); without an abstraction the game is the real one.")
@click.option("--search", "search", is_flag=True,
              help="Also with search: the exact exploitability of this strategy as a blueprint with the run's "
                   "[search] re-solving (default: resolve) at every public state, the strategy `play` would follow "
                   "(docs/search.md; two-player poker engine games).")
def exploit(run_dir, real, search):
    """Recompute the exploitability of the strategy saved in RUN_DIR."""
    from .core.config import load_config
    from .core.solver import exploitability
    from .core.strategy_file import load_strategy
    from .core.units import describe

    run_dir = Path(run_dir)
    assembly = load_config(run_config(run_dir))
    strategy, layouts, meta = load_strategy(run_dir / "strategy.npz", assembly.game, str(run_config(run_dir)))
    game = assembly.game
    click.echo(f"strategy {game.strategy_kind_text(meta['kind'])} after iteration {meta['iteration']}")
    abstraction = getattr(game, "abstraction_definition", None)
    if real:
        game, strategy = game.real_policy(strategy)
    if abstraction is not None or real:
        shown = ", ".join(f"{k} {v}" for k, v in (abstraction or {}).items())
        click.echo(f"in the real game {game.name!r}" + (f" (abstraction: {shown})" if shown else " (no abstraction)"))
    if game.num_players != 2:  # NashConv and each player's gain (docs/players.md)
        from .core.solver import nash_row

        row = nash_row(game, strategy)
        for p in range(game.num_players):
            click.echo(f"player {p}: br {row[f'br_{p}']:.12g}  gain {row[f'gain_{p}']:.12g}")
        click.echo(f"nash_conv {row['nash_conv']:.12g}  (exploitability = nash_conv / {game.num_players}: "
                   f"{describe(game, row['exploitability'], digits=12, unit_digits=6)})")
        return
    expl, br0, br1 = exploitability(game, strategy)
    click.echo(f"br_0 {br0:.12g}  br_1 {br1:.12g}  (player 0's game value in [{-br1:.12g}, {br0:.12g}])")
    click.echo(f"exploitability {describe(game, expl, digits=12, unit_digits=6)}")
    if search:
        from .search.exploit import searched_exploitability

        for line in searched_exploitability(assembly, strategy, before=expl):
            click.echo(line)


@cli.command()
@click.argument("run_dir", type=UserPath(file_okay=False))
@click.option("--format", "fmt", type=click.Choice(["json", "openspiel", "tree"]), default="json", show_default=True,
              help="json: {players, actions}; openspiel: OpenSpiel information-state string -> {action id: probability} "
                   "(kuhn, leduc, openspiel games); tree: a spot's nodes with every combo's strategy, EV, equity and "
                   "EQR and where each action leads (holdem_spot; docs/spots.md).")
@click.option("--streets", type=option_type("int", 1, 3), default=None,
              help="--format tree: streets exported (default 1: the spot's first; 2: also the next, after every card).")
@click.option("--output", "-o", type=UserPath(dir_okay=False), help="Write here instead of stdout.")
def export(run_dir, fmt, streets, output):
    """Export the strategy saved in RUN_DIR (small games only)."""
    from .core.capabilities import ExportsOpenSpiel
    from .core.config import load_config
    from .core.game import openspiel_exports
    from .core.export import export_json
    from .core.strategy_file import load_strategy

    if output is not None:
        _check_not_a_run_file(output, "stdout")
    run_dir = Path(run_dir)
    assembly = load_config(run_config(run_dir))
    strategy, layouts, _ = load_strategy(run_dir / "strategy.npz", assembly.game, str(run_config(run_dir)))
    if streets is not None and fmt != "tree":
        raise SolverkitError(f"--streets {streets} applies to --format tree, not --format {fmt}")
    if fmt == "tree":
        from .poker.tree_export import tree_json

        text = json.dumps(tree_json(assembly.game, strategy, streets or 1), indent=1)
    elif fmt == "openspiel":
        if not isinstance(assembly.game, ExportsOpenSpiel):
            raise SolverkitError(f"game {assembly.game.name!r} has no OpenSpiel counterpart; {openspiel_exports()}")
        table = assembly.game.openspiel_table(strategy)
        text = json.dumps({key: {str(a): p for a, p in probs.items()} for key, probs in table.items()}, indent=1)
    else:
        text = json.dumps(export_json(assembly.game, strategy), indent=1)
    if output is not None:
        from .core.atomic import write_text

        write_text(output, text + "\n")
    else:
        click.echo(text)


@cli.command()
@click.argument("run_dir", type=UserPath(file_okay=False))
@click.option("--infoset", "keys", multiple=True, metavar="KEY",
              help="An information set as the game names it (poker '<hand>|<board>|<betting>', e.g. Leduc's 'Kh|Qh|cc/r'); "
                   "repeat for more.")
@click.option("--player", type=option_type("int", 0, 5), default=None,
              help="The player (0 .. players - 1), when more than one has a set KEY.")
@click.option("--node", "node_path", default=None, metavar="PATH",
              help="A node by the line to it, in games that have node views (postflop spots: e.g. 'check,bet "
                   "94,call,Kd' or 'x,bet 52%'): every hand's strategy, weight and EV there (docs/spots.md).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per information set (full precision).")
def strategy(run_dir, keys, player, node_path, as_json):
    """Action probabilities at information sets (--infoset) or at a node of a spot (--node) of the
    strategy saved in RUN_DIR, reading only the part that holds each (a distributed strategy) or
    its slice of strategy.npz."""
    from .core.config import load_config
    from .core.strategy_query import read_infoset

    run_dir = Path(run_dir)
    if not keys and node_path is None:
        raise click.UsageError("give --infoset KEY (repeatable) or --node PATH")
    game = load_config(run_config(run_dir)).game
    if player is not None and player >= game.num_players:
        raise click.BadParameter(f"{player} is invalid for game {game.name!r} of {game.num_players} players: "
                                 f"expected 0 .. {game.num_players - 1}", param_hint="'--player'")
    if node_path is not None:
        from .core.strategy_file import load_strategy

        if not hasattr(game, "node_view"):
            raise click.UsageError(f"--node: game {game.name!r} has no node view (postflop spots have); use --infoset KEY")
        strat, _, meta = load_strategy(run_dir / "strategy.npz", game, str(run_config(run_dir)))
        view = game.node_view(strat, node_path)
        click.echo(json.dumps(view.to_json()) if as_json else view.text())
    for key in keys:
        found = read_infoset(run_dir, key, player, game=game)
        if as_json:
            click.echo(json.dumps({"infoset": key, "stored_as": found.stored_key, "player": found.player,
                                   "kind": found.kind, "iteration": found.iteration, "policy": found.probabilities}))
            continue
        stored = f", stored as {found.stored_key}" if found.stored_key != key else ""
        click.echo(f"{key}  (player {found.player}{stored}, {game.strategy_kind_text(found.kind)} strategy after "
                   f"iteration {found.iteration})")
        for label, prob in found.probabilities.items():
            click.echo(f"  {label}  {prob:.6f}")


@cli.command()
@click.argument("run_dir", type=UserPath(file_okay=False))
@click.option("--output", "-o", type=UserPath(dir_okay=False), help="HTML file to write (default RUN_DIR/report.html).")
def report(run_dir, output):
    """One self-contained HTML page about the solve in RUN_DIR: assembly, convergence, strategy,
    store and memory (plots inline; open it in any browser, no server)."""
    from .report.build import write_report

    if output is not None:
        _check_page_output(output)
    path = write_report(run_dir, output)
    click.echo(f"wrote {path}")


def _check_not_a_run_file(output: str, default: str) -> None:
    """Refuse an --output that is empty text (`default`: where the output goes without one) or
    would overwrite one of a run's own files (its metrics.csv, config.toml, strategy,
    checkpoint ...) in a run directory."""
    from .core.run_dir import RUN_FILES

    if not output.strip():
        raise SolverkitError(f"--output {output!r} is empty: give the file to write (or leave --output out for "
                             f"{default})")
    path = Path(output)
    if path.name in RUN_FILES and path.name != "report.html" and (path.parent / "config.toml").is_file():
        raise SolverkitError(f"--output {output} is the run's own {path.name} in {path.parent}: writing there would "
                             "destroy it; give another file name")


def _check_page_output(output: str) -> None:
    """Refuse a report --output that is empty text or an existing file that is not an HTML page
    (a run's metrics.csv, say): writing the page there would destroy it."""
    _check_not_a_run_file(output, "RUN_DIR/report.html")
    path = Path(output)
    if path.is_file() and path.stat().st_size:
        with open(path, "rb") as fh:
            head = fh.read(64).lstrip().lower()
        if not head.startswith((b"<!doctype html", b"<html")):
            raise SolverkitError(f"--output {output} exists and is not an HTML page: writing the report there would "
                                 "replace it; give another file name")


def run_config(run_dir: Path) -> Path:
    """RUN_DIR/config.toml of a solve's output directory, or an error saying it is not one."""
    path = run_dir / "config.toml"
    if not path.is_file():
        from .core.run_dir import not_a_run

        raise not_a_run(run_dir, path)
    return path
