"""``solverkit solve`` and ``solverkit study``: the commands that run solves, and the lines a solve prints."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click

from .cli_group import cli
from .cli_runs import run_config
from .core.params import UserPath, number_from_text, option_type
from .errors import SolverkitError


SOLVE_USAGE = ("solverkit solve CONFIG.toml, solverkit solve --game NAME --preset NAME "
               "(a built-in game, e.g. --game leduc --preset cfr_plus), or solverkit solve --resume DIR")


@cli.command()
@click.argument("config", type=UserPath(dir_okay=False), required=False)
@click.option("--game", "game_name", metavar="NAME", help="Solve this game without a CONFIG file (its default parameters; --set game.PARAM=VALUE changes one).")
@click.option("--preset", metavar="NAME", help="The variant to run, e.g. cfr_plus (see solverkit plugins); with CONFIG, replaces its preset.")
@click.option("--iterations", metavar="N", help="Iterations to run at most ([solver] iterations).")
@click.option("--target", metavar="X", help="Stop once exploitability <= X ([solver] target).")
@click.option("--out", type=UserPath(file_okay=False), help="Output directory (default runs/<config or game>-<time>).")
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE", help="Override a config value, e.g. rule.alpha=2.")
@click.option("--checkpoint-every", metavar="N|TIME",
              help="Write OUT/checkpoint.skc every N iterations (100) or every so long (90s, 10m, 1h).")
@click.option("--resume", "resume_dir", type=UserPath(file_okay=False),
              help="Continue the run in this directory from its checkpoint (its config.toml is the config).")
@click.option("--quiet", is_flag=True, help="No progress bar and no compile notice.")
@click.option("--force", is_flag=True, help="Replace the run that --out holds (its outputs and checkpoint are "
              "deleted once the new run has written its first metrics row); without it such an --out is refused.")
def solve(config, game_name, preset, iterations, target, out, overrides, checkpoint_every, resume_dir, quiet, force):
    """Solve the assembly described by CONFIG (a TOML file) or by --game NAME --preset NAME, or
    resume a run with --resume DIR."""
    from .core.config import load_config
    from .core.solver import run_solve
    from .core.units import describe
    from .errors import ConfigError

    if resume_dir is not None:
        if config is not None or out is not None or overrides or game_name or preset or force:
            raise SolverkitError("--resume DIR takes its config and output directory from DIR: "
                                 "drop CONFIG, --game, --preset, --out, --set and --force "
                                 "(--iterations, --target and --checkpoint-every may change)")
        if not resume_dir.strip():
            raise SolverkitError("--resume '' is empty: give the run's output directory")
        out = Path(resume_dir)
        config = run_config(out)
    elif config is not None and game_name is not None:
        raise SolverkitError(f"give CONFIG ({config}) or --game {game_name}, not both: "
                             f"--set game.name=... changes a config's game; usage: {SOLVE_USAGE}")
    elif config is None and game_name is None:
        raise SolverkitError(f"missing CONFIG (a TOML file) or --game NAME; usage: {SOLVE_USAGE}")
    elif game_name is not None and preset is None and not any(
            o.split("=", 1)[0].strip() in ("preset", "rule.name") for o in overrides):
        from .core.registry import get_registry
        from .errors import choices

        raise SolverkitError(f"--game {game_name} needs --preset NAME (the variant to run); available: "
                             f"{choices(get_registry().presets)} (or --set rule.name=... --set averaging.name=...)")
    # the options are [solver] overrides, checked with the config on one path before anything runs
    # plain decimals only (TOML would also take 1_000); anything else goes on as a string, which the check names
    options = [f"solver.{key}={text if number_from_text(text) is not None else json.dumps(text)}"
               for key, text in (("iterations", iterations), ("target", target)) if text is not None]
    if checkpoint_every is not None:
        options.append(f"solver.checkpoint_every={json.dumps(checkpoint_every)}")  # always a string
    if preset is not None:
        options.insert(0, f"preset={json.dumps(preset)}")
    try:
        if config is not None:
            assembly = load_config(config, [*overrides, *options])
        else:  # a built-in game with its default parameters: the config is these options
            where = f"--game {game_name}" + (f" --preset {preset}" if preset else "")
            assembly = load_config({"game": {"name": game_name}}, [*overrides, *options], where=where)
    except ConfigError as exc:  # name the option when the bad value came from one
        given = {"iterations": iterations, "target": target, "checkpoint_every": checkpoint_every}
        for key, text in given.items():
            if text is not None and str(exc).startswith(f"[solver] {key} ="):
                raise ConfigError(f"Invalid value for '--{key.replace('_', '-')}': {exc}") from None
        raise
    if out is None:
        stem = Path(config).stem if config is not None else "-".join(filter(None, (game_name, preset)))
        out = _fresh_dir(Path("runs") / f"{stem}-{time.strftime('%Y%m%d-%H%M%S')}")
    notice = None if quiet else (lambda line: click.echo(line, err=True))
    result = run_solve(assembly, out=out, progress=not quiet, resume=resume_dir is not None, notice=notice,
                       force=force)
    if result.stop_reason:
        click.echo(result.stop_reason)
    players = assembly.game.num_players
    if players == 2:
        click.echo(
            f"iterations {result.iterations}  seconds {result.seconds:.3f}  "
            f"br_0 {result.br[0]:.6g}  br_1 {result.br[1]:.6g}  "
            f"(player 0's game value in [{-result.br[1]:.6g}, {result.br[0]:.6g}])"
        )
    else:  # NashConv and each player's gain (docs/players.md)
        row = result.metrics[-1]
        gains = "  ".join(f"gain_{p} {row[f'gain_{p}']:.6g}" for p in range(players))
        click.echo(f"iterations {result.iterations}  seconds {result.seconds:.3f}  {gains}")
    line = store_line(result)
    click.echo((line + "  " if line else "") + f"peak RSS {_peak_rss_mb():.0f} MB")
    if players != 2:
        click.echo(f"nash_conv {describe(assembly.game, result.metrics[-1]['nash_conv'])}  (exploitability = "
                   f"nash_conv / {players}: {describe(assembly.game, result.exploitability)}; outputs in {out})")
    else:
        click.echo(f"exploitability {describe(assembly.game, result.exploitability)}  (outputs in {out})")
    if not result.interrupted:  # kernels this run took from numba's JIT: built for the next run, in the background
        from .core.aot_auto import after_solve

        after_solve(config, overrides, game_name, preset, notice=notice)
    else:
        click.echo(f"interrupted after iteration {result.iterations}; outputs and a checkpoint saved in {out}; "
                   f"go on with: solverkit solve --resume {out}", err=True)
        sys.exit(130)


def _fresh_dir(path: Path) -> Path:
    """`path`, or `path`-2, -3 ... when it exists: two runs started in the same second with the
    default output directory each get their own."""
    candidate, n = path, 1
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.name}-{n}")
    return candidate


def store_line(result) -> str:
    """How the values were stored, for a store worth a line: ``store: float64 on disk, 0.006 MB``,
    or the size and compression ratio of an encoded store; "" for plain doubles in memory."""
    mb = result.stored_bytes / 1e6
    clipped = getattr(result, "saturated_values", 0)
    if clipped:  # said again at the end, beside the size: the warning may have scrolled away
        return (store_line_sized(result, mb) + f"  WARNING: {clipped:,} fixed-point values clipped (the results are "
                "wrong; result.json store_warnings names the fix)").lstrip()
    warned = len(getattr(result, "store_warnings", None) or ())
    if warned:
        return (store_line_sized(result, mb) + f"  WARNING: the fixed point is too coarse or too narrow for this run "
                f"({warned} warning{'s' if warned > 1 else ''} above; result.json store_warnings)").lstrip()
    return store_line_sized(result, mb)


def store_line_sized(result, mb: float) -> str:
    """The size part of :func:`store_line`."""
    from .core.solver import HELD_DECODED

    if result.store_kind == "float64 in memory":
        return ""
    if result.store_kind == HELD_DECODED:  # [store] hold = "decoded"
        return (f"store {mb:.3f} MB when encoded  ratio {result.compression_ratio:.2f}:1 against 4-byte floats  "
                "(held decoded: float64 in memory)")
    if result.store_kind:
        return f"store: {result.store_kind}, {mb:.3f} MB"
    return f"store {mb:.3f} MB  ratio {result.compression_ratio:.2f}:1 against 4-byte floats"


def _peak_rss_mb():
    from .core.memory import peak_rss_mb

    return peak_rss_mb()


@cli.command()
@click.argument("study_file", type=UserPath(dir_okay=False))
@click.option("--out", required=True, type=UserPath(file_okay=False), help="Output directory.")
@click.option("--jobs", type=option_type("int", 1, 1024), default=1, show_default=True, help="Runs in parallel.")
@click.option("--iterations", type=option_type("int", 1), help="Cap every run at N iterations (a shortened study).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option("--resume", is_flag=True, help="Go on with a study stopped part way in OUT: runs finished there with "
              "the same settings are kept, stopped runs go on from their checkpoints, the rest run.")
@click.option("--force", is_flag=True, help="Solve again the runs OUT already holds (without it or --resume, such "
              "an OUT is refused).")
def study(study_file, out, jobs, iterations, quiet, resume, force):
    """Run a grid of assemblies x games x seeds; write results.csv and plots to OUT.

    Ctrl-C (or SIGTERM) stops it: the runs under way save a checkpoint ([study]
    checkpoint_every, default every 10 minutes, and at the stop) and --resume goes on."""
    from .study.file import load_study
    from .study.runner import StudyStopped, run_study

    if resume and force:
        raise SolverkitError("--resume keeps the runs OUT holds and --force solves them again: give one of them")
    spec = load_study(study_file, iterations_cap=iterations)
    for note in spec.notes:
        click.echo(f"note: {note}", err=True)
    results: dict = {}
    try:
        summary = run_study(spec, out, jobs=jobs, progress=not quiet, resume=resume, force=force, results=results)
    except StudyStopped as exc:
        click.echo(str(exc), err=True)
        raise SystemExit(130) from None
    click.echo(summary)
    from .core.aot_auto import after_study  # kernels the runs took from numba's JIT: built in the background

    after_study(results, out, notice=None if quiet else (lambda line: click.echo(line, err=True)))
