"""The ``solverkit`` command line: plugins, solve, exploit, export, info, plot, study, worker."""

from __future__ import annotations

import errno
import json
import sys
import time
from pathlib import Path

import click

from . import __version__
from .errors import SolverkitError


class _OneLineUsageError(click.ClickException):
    """A usage error shown as the single line ``Error: ...`` (exit status 2), no usage block."""

    exit_code = 2


def _one_line(exc: click.UsageError) -> _OneLineUsageError:
    hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
    return _OneLineUsageError(exc.format_message() + hint)


class _Group(click.Group):
    """Turns every bad input (SolverkitError, a file the OS refuses, a click usage error) into
    one line ``Error: ...`` on stderr and exit status 2, without a traceback."""

    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as exc:
            raise _one_line(exc) from None

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as exc:
            raise _one_line(exc) from None
        except SolverkitError as exc:
            click.echo(f"Error: {exc}", err=True)
            ctx.exit(2)
        except OSError as exc:
            if exc.errno == errno.EPIPE:
                raise
            click.echo(f"Error: {exc}", err=True)
            ctx.exit(2)


@click.group(cls=_Group)
@click.version_option(__version__, prog_name="solverkit")
def cli():
    """Solve imperfect-information games with counterfactual regret minimization."""


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def plugins(as_json):
    """List every installed plugin with its kind, name, source distribution and version."""
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
        }
        for i in reg.all()
    ]
    if as_json:
        click.echo(json.dumps({"plugins": rows, "errors": [{"plugin": p, "error": e} for p, e in reg.load_errors]}, indent=2))
        return
    widths = {k: max(len(k), *(len(str(r[k])) for r in rows)) for k in ("kind", "name", "distribution", "version")}
    head = "  ".join(k.upper().ljust(widths[k]) for k in widths) + "  DESCRIPTION"
    click.echo(head)
    for r in rows:
        click.echo("  ".join(str(r[k]).ljust(widths[k]) for k in widths) + "  " + r["description"])
    for plugin, err in reg.load_errors:
        click.echo(f"warning: plugin {plugin} failed to load: {err}", err=True)


@cli.command()
@click.argument("config", type=click.Path(dir_okay=False), required=False)
@click.option("--iterations", type=click.IntRange(min=1), help="Iterations to run at most.")
@click.option("--target", type=click.FloatRange(min=0), help="Stop once exploitability <= TARGET.")
@click.option("--out", type=click.Path(file_okay=False), help="Output directory (default runs/<config>-<time>).")
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE", help="Override a config value, e.g. rule.alpha=2.")
@click.option("--checkpoint-every", metavar="N|TIME",
              help="Write OUT/checkpoint.skc every N iterations (100) or every so long (90s, 10m, 1h).")
@click.option("--resume", "resume_dir", type=click.Path(file_okay=False),
              help="Continue the run in this directory from its checkpoint (its config.toml is the config).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def solve(config, iterations, target, out, overrides, checkpoint_every, resume_dir, quiet):
    """Solve the assembly described by CONFIG (a TOML file), or resume a run with --resume DIR."""
    from .core.config import load_config
    from .core.solver import run_solve

    if resume_dir is not None:
        if config is not None or out is not None or overrides:
            raise SolverkitError("--resume DIR takes its config and output directory from DIR: "
                                 "drop CONFIG, --out and --set (--iterations, --target and --checkpoint-every may change)")
        out = Path(resume_dir)
        config = _run_config(out)
    elif config is None:
        raise SolverkitError("missing CONFIG (a TOML file), or --resume DIR to continue a run")
    assembly = load_config(config, overrides)
    if out is None:
        out = Path("runs") / f"{Path(config).stem}-{time.strftime('%Y%m%d-%H%M%S')}"
    result = run_solve(assembly, iterations=iterations, target=target, out=out, progress=not quiet,
                       checkpoint_every=checkpoint_every, resume=resume_dir is not None)
    unit = assembly.game.unit_name
    click.echo(
        f"iterations {result.iterations}  seconds {result.seconds:.3f}  "
        f"br_0 {result.br[0]:.6g}  br_1 {result.br[1]:.6g}  "
        f"(player 0's game value in [{-result.br[1]:.6g}, {result.br[0]:.6g}])"
    )
    click.echo(
        f"store {result.stored_bytes / 1e6:.3f} MB  ratio {result.compression_ratio:.2f}:1 against 4-byte floats  "
        f"peak RSS {_peak_rss_mb():.0f} MB"
    )
    if unit == "mbb/g":
        mbb = result.exploitability * assembly.game.unit_scale
        click.echo(f"exploitability {result.exploitability:.6g} chips = {mbb:.4g} mbb/g  (outputs in {out})")
    else:
        click.echo(f"exploitability {result.exploitability:.6g}{' ' + unit if unit else ''}  (outputs in {out})")
    if result.interrupted:
        click.echo(f"interrupted after iteration {result.iterations}; outputs saved", err=True)
        sys.exit(130)


def _peak_rss_mb():
    from .core.memory import peak_rss_mb

    return peak_rss_mb()


@cli.command()
@click.argument("run_dir", type=click.Path(file_okay=False))
def exploit(run_dir):
    """Recompute the exploitability of the strategy saved in RUN_DIR."""
    from .core.config import load_config
    from .core.solver import exploitability
    from .core.strategy_file import check_layout, load_strategy

    run_dir = Path(run_dir)
    assembly = load_config(_run_config(run_dir))
    strategy, layouts, meta = load_strategy(run_dir / "strategy.npz")
    check_layout(run_dir / "strategy.npz", layouts, assembly.game)
    expl, br0, br1 = exploitability(assembly.game, strategy)
    click.echo(f"strategy {meta['kind']} after iteration {meta['iteration']}")
    click.echo(f"br_0 {br0:.12g}  br_1 {br1:.12g}  (player 0's game value in [{-br1:.12g}, {br0:.12g}])")
    if assembly.game.unit_name == "mbb/g":
        click.echo(f"exploitability {expl:.12g} chips = {expl * assembly.game.unit_scale:.6g} mbb/g")
    else:
        click.echo(f"exploitability {expl:.12g}")


@cli.command()
@click.argument("run_dir", type=click.Path(file_okay=False))
@click.option("--format", "fmt", type=click.Choice(["json", "openspiel"]), default="json", show_default=True,
              help="json: {players, actions}; openspiel: OpenSpiel information-state string -> {action id: probability} (kuhn, leduc, openspiel games).")
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write here instead of stdout.")
def export(run_dir, fmt, output):
    """Export the strategy saved in RUN_DIR (small games only)."""
    from .core.config import load_config
    from .core.export import export_json
    from .core.strategy_file import check_layout, load_strategy

    run_dir = Path(run_dir)
    assembly = load_config(_run_config(run_dir))
    strategy, layouts, _ = load_strategy(run_dir / "strategy.npz")
    check_layout(run_dir / "strategy.npz", layouts, assembly.game)
    if fmt == "openspiel":
        table = assembly.game.openspiel_table(strategy)
        text = json.dumps({key: {str(a): p for a, p in probs.items()} for key, probs in table.items()}, indent=1)
    else:
        text = json.dumps(export_json(assembly.game, strategy), indent=1)
    if output:
        Path(output).write_text(text + "\n")
    else:
        click.echo(text)


@cli.command()
@click.argument("game")
@click.option("--set", "overrides", multiple=True, metavar="PARAM=VALUE", help="A game parameter, e.g. ranks=5.")
def info(game, overrides):
    """Sizes of GAME: information sets (raw and up to suit symmetry), subgames, memory."""
    from .core.config import parse_value
    from .core.params import spec_of
    from .core.registry import get_registry
    from .errors import ConfigError

    cls = get_registry().get("game", game, where="game")
    given = {}
    for item in overrides:
        if "=" not in item:
            raise ConfigError(f"--set {item!r} is not PARAM=VALUE (e.g. --set ranks=5)")
        key, text = item.split("=", 1)
        given[key.strip()] = parse_value(text.strip())
    params = spec_of(cls).resolve(given, f"[game] ({game})")
    from .poker.game import PokerGame

    if issubclass(cls, PokerGame):
        rows = cls.size_report(params)  # counts from the game definition: nothing is allocated
    else:
        g = cls(**params)
        rows = [("game", game)] + [
            (f"player {p} information sets / values", f"{g.layout(p).num_infosets:,} / {g.layout(p).size:,}")
            for p in (0, 1)
        ]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        click.echo(f"{k.ljust(width)}  {v}")


@cli.group()
def plot():
    """Figures from a solve's output directory."""


@plot.command("preflop")
@click.argument("run_dir", type=click.Path(file_okay=False))
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="PNG to write (default RUN_DIR/preflop.png).")
def plot_preflop_cmd(run_dir, output):
    """The 13x13 preflop chart of a hold'em strategy (fold red, call blue, raise green)."""
    from .core.config import load_config
    from .core.strategy_file import check_layout, load_strategy
    from .poker.preflop import plot_preflop

    run_dir = Path(run_dir)
    assembly = load_config(_run_config(run_dir))
    if not hasattr(assembly.game, "tree"):
        raise SolverkitError(f"game {assembly.game.name!r} is not a poker game; a preflop chart needs hold'em")
    strategy, layouts, meta = load_strategy(run_dir / "strategy.npz")
    check_layout(run_dir / "strategy.npz", layouts, assembly.game)
    path = Path(output) if output else run_dir / "preflop.png"
    plot_preflop(assembly.game, strategy, path,
                 title=f"{assembly.game.name}: {meta['kind']} strategy after {meta['iteration']} iterations "
                       "(fold red, call blue, raise green)")
    click.echo(f"wrote {path}")


@cli.command()
@click.argument("study_file", type=click.Path(dir_okay=False))
@click.option("--out", required=True, type=click.Path(file_okay=False), help="Output directory.")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True, help="Runs in parallel.")
@click.option("--iterations", type=click.IntRange(min=1), help="Cap every run at N iterations (a shortened study).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def study(study_file, out, jobs, iterations, quiet):
    """Run a grid of assemblies x games x seeds; write results.csv and plots to OUT."""
    from .core.study import load_study, run_study

    spec = load_study(study_file, iterations_cap=iterations)
    summary = run_study(spec, out, jobs=jobs, progress=not quiet)
    click.echo(summary)


@cli.command()
@click.option("--connect", required=True, metavar="ADDRESS",
              help="The trunk's address, e.g. tcp://trunk.example.org:5555 ([transport] bind of the solve).")
@click.option("--threads", type=click.IntRange(min=1, max=1024), default=None,
              help="Compute threads for subgames (default: this machine's CPU count).")
@click.option("--store-dir", type=click.Path(file_okay=False),
              help="Directory of this worker's segment files when the run stores on disk ([store] backend = "
                   "\"disk\"; default: a temporary directory, removed at exit).")
@click.option("--wait", type=click.FloatRange(min=0), default=0.0, show_default=True,
              help="Seconds to wait for the trunk to set this worker up (0: as long as it takes).")
def worker(connect, threads, store_dir, wait):
    """Serve a `solverkit solve` whose config says [transport] name = "zmq": own a share of its
    subgames and run their part of every pass until the trunk stops. Start one per worker
    machine (or core group) with the trunk's address; the trunk sends the config."""
    import os

    from solverkit_transports.worker import run_worker

    if not connect.startswith(("tcp://", "ipc://")):
        raise SolverkitError(f"--connect {connect!r} is invalid: expected tcp://HOST:PORT or ipc://PATH")
    sys.exit(run_worker(connect, threads or os.cpu_count() or 1, store_dir, wait))


def _run_config(run_dir: Path) -> Path:
    path = run_dir / "config.toml"
    if not path.is_file():
        raise SolverkitError(f"{run_dir} is not a solve output directory: {path} not found")
    return path


def main():  # pragma: no cover - console entry
    sys.exit(cli())
