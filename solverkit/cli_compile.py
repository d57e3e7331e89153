"""``solverkit compile``: build the kernels a solve calls ahead of time (:mod:`.core.aot_build`), so
that later solves of those games run without importing numba (issue 30: ~55 MB less RSS, no
compiler start); ``--status`` says whether this environment's build is there and current."""

from __future__ import annotations

import tempfile
from pathlib import Path

import click

from .cli_group import cli
from .core.params import UserPath, option_type
from .errors import SolverkitError

#: what ``solverkit compile`` builds when given no CONFIG and no --game
DEFAULT_GAMES = ("kuhn", "leduc")
DEFAULT_PRESET = "cfr_plus"


@cli.command("compile")
@click.argument("configs", nargs=-1, type=UserPath(dir_okay=False))
@click.option("--game", "games", multiple=True, metavar="NAME",
              help=f"A game to build for (repeatable; default {', '.join(DEFAULT_GAMES)} unless CONFIG is given).")
@click.option("--preset", "presets", multiple=True, metavar="NAME",
              help=f"A preset to build for with each --game (repeatable; default {DEFAULT_PRESET}).")
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE", help="Override a config value of every run.")
@click.option("--iterations", type=option_type("int", 1), default=10, show_default=True,
              help="Iterations of each run that loads the kernels (blocks of passes start at the fourth).")
@click.option("--fresh", is_flag=True, help="Drop the signatures of the build already there (default: kept).")
@click.option("--status", is_flag=True, help="Only say where the build is, whether it is current, and what it holds.")
@click.option("--if-idle", is_flag=True, hidden=True,
              help="Skip (exit 0) when another build holds the lock instead of waiting (automatic builds).")
def compile_kernels(configs, games, presets, overrides, iterations, fresh, status, if_idle):
    """Compile the kernels that solving CONFIG (or --game NAME --preset NAME; default Kuhn and Leduc
    with cfr_plus) calls, for the argument types it calls them with, into an extension module a
    later solve loads instead of starting numba. Solves the build does not cover use numba's JIT.
    Runs each solve for a few iterations first (numba compiles or loads its kernels)."""
    from .core import aot_load

    if status:
        _status(aot_load)
        return
    from .core.aot_build import LOCK, build, build_lock, compiler_available
    from .core.config import load_config
    from .core.solver import run_solve

    if not compiler_available():
        raise SolverkitError("no C compiler found: numba.pycc needs one to build kernels ahead of time "
                             "(solves still run, on numba's JIT)")
    directory = aot_load.build_dir()
    if directory is None:
        raise SolverkitError("SOLVERKIT_CACHE_DIR=off turns builds off: set SOLVERKIT_AOT_DIR=DIR to build into DIR")
    runs = [(str(c), lambda c=c: load_config(c, [*overrides, f"solver.iterations={iterations}"]))
            for c in configs]
    if games or not configs:
        # no --preset but --set preset=... or rule.name=...: those overrides choose the variant (as in solve)
        chosen = any(o.split("=", 1)[0].strip() in ("preset", "rule.name") for o in overrides)
        for game in games or DEFAULT_GAMES:
            for preset in presets or ((None,) if chosen else (DEFAULT_PRESET,)):
                where = f"--game {game}" + (f" --preset {preset}" if preset else "")
                runs.append((where, lambda g=game, p=preset, w=where: load_config(
                    {"game": {"name": g}, **({"preset": p} if p else {})},
                    [*overrides, f"solver.iterations={iterations}"], where=w)))

    def say(line: str) -> None:
        click.echo(line, err=True)

    with build_lock(directory, wait=not if_idle,
                    on_wait=lambda: say(f"waiting for the build in progress ({directory / LOCK})...")) as taken:
        if not taken:
            say(f"skipped: another build holds {directory / LOCK}")
            return
        with tempfile.TemporaryDirectory(prefix="solverkit-compile-") as tmp:
            for i, (label, make) in enumerate(runs):
                say(f"loading the kernels of {label}...")
                run_solve(make(), out=Path(tmp) / f"run{i}", progress=False)
        summary = build(keep_previous=not fresh, log=say)
    click.echo(f"built {len(summary['entries'])} kernel signatures in {summary['seconds']:.1f} s: "
               f"{Path(summary['directory']) / summary['file']}")
    for skipped in summary["skipped"]:
        click.echo(f"not built (argument types without an ahead-of-time key, left to the JIT): {skipped}", err=True)


def _status(aot_load) -> None:
    directory = aot_load.build_dir()
    if directory is None:
        click.echo("no builds: caches are off (SOLVERKIT_CACHE_DIR=off; SOLVERKIT_AOT_DIR sets a folder)")
        return
    manifest = aot_load.read_manifest(directory)
    if manifest is None:
        click.echo(f"no build in {directory} (solverkit compile makes one)")
        return
    changed = aot_load.stale_sources(manifest["sources"])
    state = f"stale ({len(changed)} source files changed, e.g. {changed[0]})" if changed else "current"
    kernels = sorted({e[0] for e in manifest["entries"]})
    click.echo(f"build {directory / manifest['file']}: {state}; made {manifest['built']}; "
               f"{len(manifest['entries'])} signatures of {len(kernels)} kernels: {', '.join(kernels)}")
