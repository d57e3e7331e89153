"""The ``solverkit`` command line: plugins, solve, exploit, export, info, study, and the commands
plugins add through ``register_commands(cli)`` (plot preflop, worker)."""

from __future__ import annotations

import sys

try:  # Ctrl-C while the command line loads ends as one after it does (130), not an importlib traceback
    import errno
    import json
    import time
    import warnings
    from pathlib import Path

    import click

    from . import __version__
    from .core.params import UserPath, number_from_text, option_type
    from .errors import SolverkitError, SolverkitWarning
except KeyboardInterrupt:
    print("Aborted!", file=sys.stderr)
    sys.exit(130)


class _OneLineUsageError(click.ClickException):
    """A usage error shown as the single line ``Error: ...`` (exit status 2), no usage block."""

    exit_code = 2


def _one_line(exc: click.UsageError) -> _OneLineUsageError:
    hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
    return _OneLineUsageError(exc.format_message() + hint)


def _single_line(exc) -> str:
    """An error's text on one line: a message quoting a library's multi-line text stays one line."""
    return " ".join(line.strip() for line in str(exc).splitlines() if line.strip())


class _Group(click.Group):
    """Turns every bad input (SolverkitError, a file the OS refuses, a click usage error) into
    one line ``Error: ...`` on stderr and exit status 2, without a traceback; and adds the
    commands of the plugins of the current registry."""

    _plugin_cache: tuple = (None, -1, {})  # (registry, its generation, commands)

    def plugin_commands(self) -> dict[str, click.Command]:
        """The current registry's plugin commands, collected once per registry build; warnings
        about plugins whose commands were skipped go to stderr then."""
        from .commands import collect
        from .core.registry import get_registry

        reg = get_registry()
        cached_reg, generation, commands = self._plugin_cache
        if cached_reg is not reg or generation != reg.generation:
            commands, warnings = collect(reg, self.commands)
            for line in warnings:
                click.echo(f"warning: {line}", err=True)
            self._plugin_cache = (reg, reg.generation, commands)
        return commands

    def list_commands(self, ctx):
        return sorted({*self.commands, *self.plugin_commands()})

    def get_command(self, ctx, name):
        plugin = self.plugin_commands()  # built (and its warnings shown) whichever command runs
        return self.commands.get(name) or plugin.get(name)

    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as exc:
            raise _one_line(exc) from None

    def invoke(self, ctx):
        try:
            with warnings.catch_warnings():
                warnings.showwarning = _show_warning
                return super().invoke(ctx)
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as exc:
            raise _one_line(exc) from None
        except SolverkitError as exc:
            click.echo(f"Error: {_single_line(exc)}", err=True)
            ctx.exit(2)
        except OSError as exc:
            if exc.errno == errno.EPIPE:
                raise
            click.echo(f"Error: {_single_line(exc)}", err=True)
            ctx.exit(2)
        except MemoryError as exc:  # an input that asks for more than this machine has
            what = f" ({_single_line(exc)})" if str(exc) else ""
            click.echo(f"Error: out of memory{what}: the game, matrix or store asked for is too large for this "
                       "machine; try a smaller one, or [store] backend = \"disk\"", err=True)
            ctx.exit(2)


#: how Python shows a warning (the CLI shows its own as one line)
_python_showwarning = warnings.showwarning


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """A SolverkitWarning as one line ``warning: ...`` on stderr (others as Python shows them)."""
    if issubclass(category, SolverkitWarning):
        click.echo(f"warning: {_single_line(message)}", err=True)
    else:
        _python_showwarning(message, category, filename, lineno, file, line)


@click.group(cls=_Group)
@click.version_option(__version__, prog_name="solverkit")
def cli():
    """Solve imperfect-information games with counterfactual regret minimization."""


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
    if result.interrupted:
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
    click.echo(f"strategy {meta['kind']} after iteration {meta['iteration']}")
    game = assembly.game
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
@click.option("--format", "fmt", type=click.Choice(["json", "openspiel"]), default="json", show_default=True,
              help="json: {players, actions}; openspiel: OpenSpiel information-state string -> {action id: probability} (kuhn, leduc, openspiel games).")
@click.option("--output", "-o", type=UserPath(dir_okay=False), help="Write here instead of stdout.")
def export(run_dir, fmt, output):
    """Export the strategy saved in RUN_DIR (small games only)."""
    from .core.config import load_config
    from .core.export import export_json
    from .core.strategy_file import load_strategy

    if output is not None:
        _check_not_a_run_file(output, "stdout")
    run_dir = Path(run_dir)
    assembly = load_config(run_config(run_dir))
    strategy, layouts, _ = load_strategy(run_dir / "strategy.npz", assembly.game, str(run_config(run_dir)))
    if fmt == "openspiel":
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
        click.echo(f"{key}  (player {found.player}{stored}, {found.kind} strategy after iteration {found.iteration})")
        for label, prob in found.probabilities.items():
            click.echo(f"  {label}  {prob:.6f}")


@cli.command()
@click.argument("game")
@click.option("--set", "overrides", multiple=True, metavar="PARAM=VALUE", help="A game parameter, e.g. ranks=5.")
def info(game, overrides):
    """Sizes of GAME (a game name, or a config file's [game]): information sets (raw and up to suit
    symmetry), subgames, memory, counted before anything is built."""
    from .core.config import parse_value

    from .core.params import spec_of
    from .core.registry import get_registry
    from .errors import ConfigError

    given = {}
    abstraction = None
    if game.endswith(".toml") and Path(game).is_file():  # a config file: its [game] table (paths resolved)
        from .core.config import absolutize_game_files, read_toml

        path = Path(game)
        raw = read_toml(path)
        table = dict(raw.get("game") or {})
        abstraction = raw.get("abstraction")
        if "name" not in table:
            raise ConfigError(f"{game}: no [game] table with a name")
        game = table.pop("name")
        cls = get_registry().get("game", game, where="game")
        absolutize_game_files(table, cls, path.resolve().parent)
        given.update(table)
    cls = get_registry().get("game", game, where="game")
    for item in overrides:
        if "=" not in item:
            raise ConfigError(f"--set {item!r} is not PARAM=VALUE (e.g. --set ranks=5)")
        key, text = item.split("=", 1)
        given[key.strip()] = parse_value(text.strip())
    spec = spec_of(cls)
    params = spec.resolve(given, f"[game] ({game})")
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
        pwidth = max(len(n) for n in spec.params)
        for name, p in spec.params.items():
            mark = "*" if name in given else " "
            value = params.get(name)
            shown = "(required)" if value is None else _toml_value(value)
            click.echo(f"  {mark} {name.ljust(pwidth)}  {shown:<12}  {p.type}: {p.doc}")


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
    from .core.study import StudyStopped, load_study, run_study

    if resume and force:
        raise SolverkitError("--resume keeps the runs OUT holds and --force solves them again: give one of them")
    spec = load_study(study_file, iterations_cap=iterations)
    for note in spec.notes:
        click.echo(f"note: {note}", err=True)
    try:
        summary = run_study(spec, out, jobs=jobs, progress=not quiet, resume=resume, force=force)
    except StudyStopped as exc:
        click.echo(str(exc), err=True)
        raise SystemExit(130) from None
    click.echo(summary)


@cli.command()
@click.argument("run_dir", type=UserPath(file_okay=False))
@click.option("--output", "-o", type=UserPath(dir_okay=False), help="HTML file to write (default RUN_DIR/report.html).")
def report(run_dir, output):
    """One self-contained HTML page about the solve in RUN_DIR: assembly, convergence, strategy,
    store and memory (plots inline; open it in any browser, no server)."""
    from .core.report import write_report

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


def run_config(run_dir: Path) -> Path:
    """RUN_DIR/config.toml of a solve's output directory, or an error saying it is not one."""
    path = run_dir / "config.toml"
    if not path.is_file():
        from .core.run_dir import not_a_run

        raise not_a_run(run_dir, path)
    return path


def main():  # pragma: no cover - console entry
    sys.exit(cli())
