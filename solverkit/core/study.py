"""Comparative studies: a grid of assemblies x games x seeds, with curves and tables out.

The file format is documented key by key in docs/studies.md. In short: ``[study]`` holds the
defaults (``iterations``, ``targets`` and ``targets_<unit>``, ``seeds``, ``eval_every``,
``stop_at_target``), ``[assemblies.NAME]`` one config each without its game (its ``[solver]``
keys override the study's and the game's), ``[games.NAME]`` one game each (``game = {name =
..., params...}`` plus optional ``seeds``, ``targets``, ``targets_<unit>``, ``iterations``,
``eval_every``). Seeds vary only what is random: a game's ``seed`` parameter unless the game
table fixes it, and the assembly's sampler; a run with nothing random runs once.
"""

from __future__ import annotations

import csv
import os
import re
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ConfigError, SolverkitError, choices, shown
from .config import absolutize_game_files, load_config, read_toml
from .params import Param, spec_of
from .registry import get_registry
from .study_stats import MEANS, combine, first_reach, mean, plain, points
from .units import EXPLOITABILITY, plot_unit, units_of

STUDY_KEYS = ("name", "iterations", "targets", "seeds", "eval_every", "stop_at_target", "mean", "time_limit",
              "checkpoint_every")
GAME_KEYS = ("game", "seeds", "targets", "iterations", "eval_every", "time_limit", "assemblies")
#: how often a study's runs write a checkpoint by default (what ``solverkit study --resume`` goes on from)
STUDY_CHECKPOINT_EVERY = "10m"
#: study and game tables also take ``targets_<unit key>`` (e.g. ``targets_mbb``), in a display unit of the game
TARGETS_PREFIX = "targets_"
RESULT_COLUMNS = (
    "assembly", "game", "seed", "target", "unit", "iterations_to_target", "seconds_to_target",
    "nodes_to_target", "iterations_run", "final_exploitability", "seconds", "run_dir",
)


@dataclass(frozen=True)
class Target:
    """An exploitability target in the game's native unit (``unit`` = "") or a display unit."""

    value: float
    unit: str = ""  # a display unit's key, or "" for the game's own unit
    label: str = ""  # the unit's name, e.g. "chips"

    @property
    def column(self) -> str:
        """The metrics column the target is read from."""
        return f"{EXPLOITABILITY}_{self.unit}" if self.unit else EXPLOITABILITY

    def text(self) -> str:
        return f"{self.value:g} {self.label}".strip()


@dataclass
class Run:
    """One solve of the grid."""

    assembly: str
    game: str
    seed: int
    targets: list[Target]
    raw: dict  # raw config for load_config
    iterations: int
    #: the y axis of the study's plots: (metrics column, label, native -> axis factor), in the
    #: game's first display unit (mbb/g for poker) or its own
    axis: tuple[str, str, float] = (EXPLOITABILITY, "", 1.0)

    @property
    def slug(self) -> str:
        return slug_of(self.assembly, self.game, self.seed)


def slug_of(assembly: str, game: str, seed: int) -> str:
    """The name of a run's directory in OUT/runs (and of its store folder under a [store] path)."""
    return f"{assembly}__{game}__seed{seed}"


@dataclass
class Study:
    name: str
    runs: list[Run]
    source: str
    #: what the loader decided and the user should know (a deterministic game run once, ...)
    notes: list[str] = field(default_factory=list)
    #: how seeds' curves are averaged: "geometric" (default) or "arithmetic" (study_stats.MEANS)
    mean: str = "geometric"


#: assembly and game names become parts of run directory names (OUT/runs/A__G__seedS): letters,
#: digits, "_", "-" and "." after the first character, so that no name leaves OUT/runs
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


def _check_name(name, kind: str) -> None:
    """Refuse an assembly or game name that would not make a plain directory name."""
    if not isinstance(name, str) or not NAME_RE.fullmatch(name) or len(name) > 100:
        raise ConfigError(f"[{kind}.{shown(name)}]: {dict(assemblies='assembly', games='game').get(kind, kind)} names name the runs' directories (OUT/runs/ASSEMBLY__GAME"
                          f"__seedN): use up to 100 letters, digits, '_', '-' or '.', starting with a letter or digit")


def _check_slugs(runs) -> None:
    """Refuse two runs that would share a directory (names that differ only in case, or whose
    '__' make the same ASSEMBLY__GAME__seedN)."""
    seen = {}
    for run in runs:
        other = seen.setdefault(run.slug.lower(), run)
        if other is not run:
            raise ConfigError(f"runs {other.assembly!r} x {other.game!r} (seed {other.seed}) and {run.assembly!r} x "
                              f"{run.game!r} (seed {run.seed}) would share the directory runs/{run.slug}: rename an "
                              "assembly or a game")


def _check_keys(table, valid, where):
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table, got {shown(table)}")
    for key in table:
        if key not in valid and not key.startswith(TARGETS_PREFIX):
            raise ConfigError(f"unknown key {shown(key)} in {where}; valid: {choices(valid)}, targets_<unit>")


# study values are checked by the same Param checks as every config value (finite, in int64, ...)
_TARGETS = Param("float_list", None, min=0.0, min_exclusive=True)
_SEEDS = Param("int_list", None, min=0)
_POSITIVE = Param("int", None, min=1)
_EVAL_EVERY = Param("int", None, min=0)


def _eval_every(value, where):
    """An eval_every as ``[solver] eval_every`` takes it: iterations, "30s", "1e6 nodes"."""
    from .config import parse_schedule

    if not isinstance(value, str):
        return _EVAL_EVERY.check(value, where)
    try:
        parse_schedule(value)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}".replace("[solver] eval_every = ", "")) from None
    return value


_BOOL = Param("bool", None)
_MEAN = Param("str", None, choices=MEANS)
_TIME_LIMIT = Param("float", None, min=0.0)


def _checkpoint_every(value) -> str:
    """``[study] checkpoint_every``: "" (none), N iterations or a duration ("10m"), as the
    ``[solver]`` key takes it."""
    from .config import parse_every

    text = str(value) if isinstance(value, (int, str)) and not isinstance(value, bool) else None
    if text is None:
        raise ConfigError(f"[study] checkpoint_every = {value!r} is invalid: expected a number of iterations or a "
                          "duration such as \"10m\", or \"\" for none")
    try:
        parse_every(text)
    except ConfigError as exc:
        raise ConfigError(f"[study] {exc}") from None
    return text


def _float_list(value, where):
    value = _TARGETS.check(value, where)
    if not value:
        raise ConfigError(f"{where} = [] is invalid: expected a non-empty list of positive numbers")
    return sorted(value, reverse=True)


def _int_list(value, where):
    value = _SEEDS.check(value, where)
    if not value:
        raise ConfigError(f"{where} = [] is invalid: expected a non-empty list of integers >= 0")
    if len(set(value)) != len(value):
        raise ConfigError(f"{where} = {value!r} repeats a seed: each seed runs once")
    return value


def _positive_int(value, where):
    return _POSITIVE.check(value, where)


def _raw_targets(table, where) -> dict[str, list[float]] | None:
    """{unit key ("" native): values} of a table's ``targets`` / ``targets_<unit>``; None: none given."""
    out = {}
    for key, value in table.items():
        if key == "targets":
            out[""] = _float_list(value, f"{where} targets")
        elif key.startswith(TARGETS_PREFIX):
            out[key[len(TARGETS_PREFIX):]] = _float_list(value, f"{where} {key}")
    return out or None


def _targets_for(raw: dict[str, list[float]], game, where) -> list[Target]:
    """The targets of `raw` for `game`, each unit checked against the game's display units."""
    units = {u.key: u for u in units_of(game)}
    out = []
    for key, values in raw.items():
        if key and key not in units:
            valid = ", ".join(f"targets_{k}" for k in units) or "none"
            raise ConfigError(f"{where} targets_{key}: game {game.name!r} has no display unit {key!r}; its unit "
                              f"targets: {valid} (or use targets, in {getattr(game, 'unit_name', '') or 'its own unit'})")
        label = units[key].name if key else getattr(game, "unit_name", "")
        out += [Target(v, key, label) for v in values]
    return out


def _sampler_is_random(assembly) -> bool:
    """Whether the assembly samples (Monte-Carlo CFR: any sampler but ``full``)."""
    return bool(getattr(assembly.sampler, "sampled", False))


def load_study(path, iterations_cap: int | None = None) -> Study:
    """Read and fully validate a study file (every run's assembly resolves before any runs).

    `iterations_cap` (``solverkit study --iterations N``) caps every run's iterations: a
    shortened version of a long study with the same assemblies and games."""
    raw = read_toml(path)
    base = Path(path).resolve().parent
    for key in raw:
        if key not in ("study", "assemblies", "games"):
            raise ConfigError(f"unknown top-level key {shown(key)} in {path}; valid: assemblies, games, study")
    study = raw.get("study", {})
    _check_keys(study, STUDY_KEYS, "[study]")
    iterations = _positive_int(study.get("iterations", 1000), "[study] iterations")
    study_targets = _raw_targets(study, "[study]") or {"": [1e-3]}
    seeds = _int_list(study.get("seeds", [0]), "[study] seeds")
    eval_every = _eval_every(study.get("eval_every", 1), "[study] eval_every")
    stop_at_target = _BOOL.check(study.get("stop_at_target", True), "[study] stop_at_target")
    how = _MEAN.check(study.get("mean", "geometric"), "[study] mean")
    time_limit = _TIME_LIMIT.check(study.get("time_limit", 0.0), "[study] time_limit")
    checkpoint_every = _checkpoint_every(study.get("checkpoint_every", STUDY_CHECKPOINT_EVERY))
    cap = None if iterations_cap is None else _positive_int(iterations_cap, "--iterations")
    assemblies = raw.get("assemblies")
    games = raw.get("games")
    if not isinstance(assemblies, dict) or not assemblies:
        raise ConfigError(f"{path}: no [assemblies.NAME] tables; a study needs at least one assembly")
    if not isinstance(games, dict) or not games:
        raise ConfigError(f"{path}: no [games.NAME] tables; a study needs at least one game")
    for name in assemblies:
        _check_name(name, "assemblies")
    for name in games:
        _check_name(name, "games")
    registry = get_registry()
    runs, notes = [], []
    for gname, gtable in games.items():
        where = f"[games.{gname}]"
        _check_keys(gtable, GAME_KEYS, where)
        if "game" not in gtable:
            raise ConfigError(f"{where} has no 'game' table (e.g. game = {{ name = \"skewed_pennies\" }})")
        game = gtable["game"]
        if not isinstance(game, (str, dict)):
            raise ConfigError(f"{where} game = {game!r:.60} is invalid: expected a game name or a table "
                              "(e.g. game = \"kuhn\" or game = { name = \"skewed_pennies\" })")
        game = {"name": game} if isinstance(game, str) else dict(game)
        gseeds = _int_list(gtable["seeds"], f"{where} seeds") if "seeds" in gtable else seeds
        graw_targets = _raw_targets(gtable, where) or study_targets
        giters = _positive_int(gtable.get("iterations", iterations), f"{where} iterations")
        geval = _eval_every(gtable.get("eval_every", eval_every), f"{where} eval_every")
        glimit = _TIME_LIMIT.check(gtable.get("time_limit", time_limit), f"{where} time_limit")
        try:
            cls = registry.get("game", game.get("name", ""), where=f"{where} game.name")
        except Exception as exc:
            raise ConfigError(str(exc)) from None
        absolutize_game_files(game, cls, base)  # files the game reads are relative to the study file
        # a game's seed varies with the study's seeds unless the game table fixes it
        seeded_game = "seed" in spec_of(cls).params and "seed" not in game
        only = gtable.get("assemblies")
        if only is not None:
            if not isinstance(only, list) or not only or any(a not in assemblies for a in only):
                raise ConfigError(f"{where} assemblies = {only!r} is invalid: expected a non-empty list of "
                                  f"assembly names; valid: {choices(assemblies)}")
        once = []  # assemblies that run once on this game
        for aname, atable in assemblies.items():
            if only is not None and aname not in only:
                continue
            awhere = f"[assemblies.{aname}]"
            if not isinstance(atable, dict):
                raise ConfigError(f"{awhere} must be a table, got {atable!r}")
            if "game" in atable:
                raise ConfigError(f"{awhere} must not name a game; games come from [games.*]")
            asolver = atable.get("solver", {})
            if not isinstance(asolver, dict):  # would be replaced by the study's [solver] values, unseen
                raise ConfigError(f"{awhere} solver = {asolver!r:.60} is invalid: expected a table of [solver] "
                                  "values (e.g. solver = { update = \"simultaneous\" })")
            if "seed" in asolver:
                raise ConfigError(f"{awhere} solver.seed: seeds come from [study] seeds and [games.*] seeds")
            made = []
            for seed in gseeds:
                cfg = {k: (dict(v) if isinstance(v, dict) else v) for k, v in atable.items()}
                _absolutize_store(cfg, base, slug_of(aname, gname, seed))
                g = dict(game)
                if seeded_game:
                    g["seed"] = seed
                cfg["game"] = g
                solver = {"eval_every": geval, "iterations": giters, "time_limit": glimit,
                          "checkpoint_every": checkpoint_every}
                solver.update(cfg.get("solver", {}) if isinstance(cfg.get("solver"), dict) else {})
                solver["seed"] = seed
                if cap is not None and isinstance(solver.get("iterations"), int):
                    solver["iterations"] = min(solver["iterations"], cap)
                cfg["solver"] = solver
                # resolve now so that every error shows before anything runs
                assembly = load_config(cfg, registry=registry, where=f"{path}: {awhere} on [games.{gname}]")
                targets = _targets_for(graw_targets, assembly.game, where)
                if stop_at_target and not any(k.startswith("target") for k in _solver_keys(atable)):
                    _stop_at(cfg["solver"], targets, where)  # a target of the game's own units: no new check needed
                runs.append(Run(aname, gname, seed, targets, cfg, int(assembly.solver["iterations"]),
                                plot_unit(assembly.game)))
                made.append(runs[-1])
                if not seeded_game and not _sampler_is_random(assembly):
                    break  # nothing random: more seeds would repeat this run
            if len(made) < len(gseeds):
                once.append(aname)
        if once:
            notes.append(f"{gname}: {', '.join(once)} {'has' if len(once) == 1 else 'have'} nothing random here (the "
                         f"game has no seed or fixes it, the assembly does not sample): each runs once, not once "
                         f"per seed {gseeds}")
    _check_slugs(runs)
    return Study(_study_name(study.get("name", Path(path).stem)), runs, str(path), notes, how)


def _study_name(value) -> str:
    """``[study] name``, the title of the plots: a string of printable characters (a NUL or other
    control character would be written into the SVG and PNG files and break them)."""
    name = _NAME.check(value, "[study] name")
    bad = next((c for c in name if not c.isprintable()), None)
    if bad is not None or len(name) > 200:
        why = f"contains the control character {bad!r}" if bad is not None else "is longer than 200 characters"
        raise ConfigError(f"[study] name = {name!r:.60} is invalid: it {why}; expected a plot title of printable text")
    return name


_NAME = Param("str", None)


def _solver_keys(atable) -> list[str]:
    """The keys an assembly table sets in its [solver] table."""
    solver = atable.get("solver", {})
    return list(solver) if isinstance(solver, dict) else []


def _stop_at(solver: dict, targets: list[Target], where: str) -> None:
    """Stop the run at its smallest target (one unit only: the solver stops at the first target met)."""
    units = {t.unit for t in targets}
    if len(units) > 1:
        raise ConfigError(f"{where}: targets in several units ({', '.join(sorted(u or 'native' for u in units))}) "
                          "with stop_at_target = true: the run would stop at whichever is met first; give one "
                          "unit or set [study] stop_at_target = false")
    smallest = min(targets, key=lambda t: t.value)
    solver["target_" + smallest.unit if smallest.unit else "target"] = smallest.value


def _absolutize_store(cfg: dict, base: Path, slug: str) -> None:
    """An assembly's ``[store] path`` (relative to the study file's folder) made the run's own
    folder in it, PATH/SLUG: runs of one assembly never share (or lock each other out of) a store."""
    store = cfg.get("store")
    if isinstance(store, dict) and isinstance(store.get("path"), str) and store["path"]:
        path = os.path.expanduser(store["path"])
        cfg["store"] = dict(store, path=str((base / path).resolve() / slug))


#: how a run of a study starts (:func:`plan_runs`): solved in an empty directory, read back (it
#: finished there with the same settings), resumed from its checkpoint, or solved again over
#: what is there (--force, or a run of the same settings stopped without a checkpoint)
NEW, DONE, RESUME, REPLACE = "new", "done", "resume", "replace"


def _run_one(run: Run, out_dir: str, mode: str = NEW):
    """Solve one run into OUT/runs/SLUG as `mode` (:func:`plan_runs`) says: read back a run
    finished there, go on from its checkpoint, or solve it (replacing what is there)."""
    from .solver import run_solve

    assembly = load_config(run.raw)
    run_dir = Path(out_dir) / "runs" / run.slug
    if mode == DONE:
        done = finished_run(run_dir, assembly)
        if done is not None:
            return done
        mode = REPLACE  # changed since it was planned: solved again, as planned for a stopped run
    result = run_solve(assembly, out=run_dir, resume=mode == RESUME, force=mode == REPLACE)
    return RunResult(list(result.metrics), result.iterations, result.exploitability, result.seconds,
                     result.interrupted)


def _holds_run(run_dir: Path) -> bool:
    from .run_dir import RUN_FILES

    return any((run_dir / name).exists() for name in RUN_FILES)


def plan_runs(study: "Study", out: Path, resume: bool = False, force: bool = False) -> dict[str, str]:
    """How each run of `study` starts in `out` (slug -> NEW, DONE, RESUME or REPLACE), decided
    before any run starts, so that nothing already computed is overwritten: without `resume`
    or `force`, runs already in `out` are refused; with `resume`, a run finished with other
    settings, or stopped with a checkpoint those settings cannot resume, is refused (naming
    the run and the setting); `force` solves every run again."""
    plan = {}
    for run in study.runs:
        run_dir = out / "runs" / run.slug
        if not _holds_run(run_dir):
            plan[run.slug] = NEW
        elif force:
            plan[run.slug] = REPLACE
        elif not resume:
            raise ConfigError(f"{out} already holds this study's runs (runs/{run.slug}): go on with --resume, give "
                              "another --out, or add --force to solve them again")
        else:
            plan[run.slug] = _resume_mode(run, run_dir)
    return plan


def _resume_mode(run: Run, run_dir: Path) -> str:
    """DONE, RESUME or REPLACE for a run found in `run_dir` by ``--resume``, or a ConfigError
    when its settings differ from the study's in a way it cannot go on from."""
    from .checkpoint import FILENAME, CheckpointError, check_game, check_resume, read_footer
    from .solver import run_config

    assembly = load_config(run.raw)
    fix = "restore the study's settings, give another --out, or add --force to solve it again"
    _check_result_game(run, run_dir, assembly.game, fix)
    if finished_run(run_dir, assembly) is not None:
        return DONE
    resolved = run_config(assembly)
    if (run_dir / FILENAME).is_file():
        try:
            footer = read_footer(run_dir / FILENAME)
            check_game(run_dir / FILENAME, footer, assembly.resolved["game"], assembly.game)
            check_resume(run_dir / FILENAME, footer, resolved, "the study file")
        except CheckpointError as exc:
            raise ConfigError(f"study run {run.slug}: {exc}; or give another --out, or --force") from None
        if footer["iteration"] > run.iterations:
            raise ConfigError(f"study run {run.slug} has a checkpoint at iteration {footer['iteration']}, past this "
                              f"study's {run.iterations} iterations: {fix}")
        return RESUME
    change = _first_change(run_dir / "config.toml", resolved)
    if change:
        raise ConfigError(f"study run {run.slug} in {run_dir.parent} ran with other settings ({change}) and has no "
                          f"checkpoint to go on from: {fix}")
    return REPLACE  # the same settings, stopped before any checkpoint: nothing to keep


def _check_result_game(run: Run, run_dir: Path, game, fix: str) -> None:
    """ConfigError when a run's result.json records another game than the study's (a game file
    edited since): its results are not this game's, and are neither kept nor silently replaced."""
    import json

    from .identity import ID_FIELD, game_identity

    from .run_dir import RESULT_LIMIT

    try:
        if (run_dir / "result.json").stat().st_size > RESULT_LIMIT:
            return  # damaged: finished_run decides
        summary = json.loads((run_dir / "result.json").read_text())
    except (OSError, ValueError, RecursionError):  # missing or damaged: finished_run decides
        return
    theirs = summary.get(ID_FIELD) if isinstance(summary, dict) else None
    if theirs is not None and theirs != game_identity(game):
        raise ConfigError(f"study run {run.slug} in {run_dir.parent} was solved for another game than this study's "
                          f"game {game.name!r} (result.json game_id {str(theirs)[:12]!r}..., the game's "
                          f"{game_identity(game)[:12]!r}...: its game file changed?): {fix}")


def _first_change(config_file: Path, resolved: dict) -> str:
    """The first setting whose value in a run's config.toml differs from `resolved`, as text
    (``[rule] alpha 1.5 there, 2.0 here``); "" when they agree."""
    try:
        saved = read_toml(config_file)
    except ConfigError:
        return f"{config_file} unreadable"
    flat = {}
    for side, tables in (("there", saved), ("here", resolved)):
        for table, values in tables.items():
            for key, value in (values.items() if isinstance(values, dict) else [("", values)]):
                flat.setdefault((table, key), {})[side] = value
    for (table, key), values in sorted(flat.items()):
        if values.get("there") != values.get("here"):
            there, here = values.get("there", "(not set)"), values.get("here", "(not set)")
            return f"[{table}] {key} {there!r} there, {here!r} here"
    return ""


def finished_run(run_dir: Path, assembly) -> "RunResult | None":
    """The result of a run that finished in `run_dir` with exactly the settings `assembly` has
    (its config.toml is what this run would write, its result.json says it was not stopped),
    read from its metrics.csv; None otherwise."""
    import json

    from .solver import run_config_text

    from .run_dir import RESULT_LIMIT, bounded_lines

    try:
        if (run_dir / "result.json").stat().st_size > RESULT_LIMIT:
            return None
        summary = json.loads((run_dir / "result.json").read_text())
        config = (run_dir / "config.toml").read_text()
        with open(run_dir / "metrics.csv", newline="") as fh:
            rows = list(csv.DictReader(bounded_lines(fh)))
    except (OSError, ValueError, RecursionError, csv.Error):  # damaged or missing: the run is solved again
        return None  # (ValueError: also a line too long, LongLine)
    if not isinstance(summary, dict) or summary.get("interrupted", True) or config != run_config_text(assembly):
        return None
    metrics = []
    for row in rows:
        if None in row or None in row.values():  # a row with more or fewer fields than the header (torn)
            return None  # a damaged file: the run is solved again
        try:
            metrics.append({k: (int(v) if k == "iteration" else float(v)) for k, v in row.items() if v != ""})
        except (ValueError, TypeError):
            return None
    try:
        result = RunResult(metrics, int(summary["iterations"]), float(summary["exploitability"]),
                           float(summary["seconds"]))
    except (KeyError, TypeError, ValueError):
        return None
    its = [m.get("iteration") for m in metrics]
    if not its or None in its or its != sorted(set(its)) or its[-1] != result.iterations:
        # rows lost (a metrics.csv cut short) or out of order: its curves and last value would be
        # silently another run's than result.json's, so it is not read back
        return None
    return result


@dataclass
class RunResult:
    """What a study keeps of a run: its metrics rows and how it ended."""

    metrics: list[dict]
    iterations: int
    exploitability: float
    seconds: float
    interrupted: bool = False

    def curve(self, x: str, y: str):
        return points(self.metrics, x, y)

    def last(self, column: str) -> float:
        """The last measured value of a column (the final exploitability in a target's unit)."""
        pts = points(self.metrics, "iteration", column)
        return pts[-1][1] if pts else float("nan")


#: the x axes of a study's curves: iterations and seconds always, nodes touched where runs record it
X_AXES = (("iteration", "iterations"), ("seconds", "seconds"), ("nodes_touched", "nodes touched"))


class StudyStopped(SolverkitError):
    """A study stopped part way (SIGINT / SIGTERM): its runs' checkpoints and outputs stay in
    OUT, and ``solverkit study FILE --out OUT --resume`` goes on from them."""


def run_study(study: Study, out, jobs: int = 1, progress: bool = True, resume: bool = False,
              force: bool = False) -> str:
    """Run every run of the study; write results.csv, summary.csv and per game its plot (PNG
    and SVG) and the plotted numbers (GAME_curves.csv).

    `resume` keeps the runs already finished in `out` with the same settings and lets runs that
    were stopped go on from their checkpoints; `force` solves runs found in `out` again (without
    either, such an `out` is refused: :func:`plan_runs`). SIGINT or SIGTERM stops the study: the
    runs under way save a checkpoint and their outputs, and StudyStopped says how to go on."""
    if not str(out).strip():  # Path("") is the working directory
        raise ConfigError(f"--out {str(out)!r} is empty: give a directory for the study's outputs")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} is a file, not a directory: give a directory for the study's outputs")
    plan = plan_runs(study, out, resume, force)
    (out / "runs").mkdir(parents=True, exist_ok=True)
    results: dict[str, RunResult] = {}
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(study.runs), unit="run", dynamic_ncols=True)
    try:
        with _signals_stop_the_study():
            return _run_and_write(study, out, jobs, plan, results, bar)
    except KeyboardInterrupt:  # a signal between runs or while the outputs are written
        pass
    finally:
        if bar:
            bar.close()
    raise _stopped(study, out, results)


@contextmanager
def _signals_stop_the_study():
    """SIGTERM, like SIGINT, raises KeyboardInterrupt in this process while the study runs
    (a solve under way turns either into a stop request of its own), instead of ending it
    without a word."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def _stopped(study, out: Path, results: dict) -> StudyStopped:
    done = sum(1 for r in results.values() if not r.interrupted)
    part = sum(1 for r in results.values() if r.interrupted)
    return StudyStopped(
        f"study stopped: {done} of {len(study.runs)} runs finished, {part} stopped part way (their checkpoints "
        f"are in {out / 'runs'}); go on with: solverkit study {study.source} --out {out} --resume")


def _run_and_write(study, out: Path, jobs: int, plan: dict, results: dict, bar) -> str:
    stopped = False
    try:
        if jobs == 1:
            for run in study.runs:  # the solve in this process turns a signal into a stop request
                results[run.slug] = r = _run_one(run, str(out), plan[run.slug])
                if bar:
                    bar.update(1)
                if r.interrupted:
                    stopped = True
                    break
        else:
            stopped = _run_pool(study, str(out), jobs, plan, results, bar)
    finally:
        if bar:
            bar.close()
    if stopped:
        raise _stopped(study, out, results)
    _write_csv(out / "results.csv", RESULT_COLUMNS, _result_rows(study, results))
    summary = _summarise(study, results)
    _write_csv(out / "summary.csv", SUMMARY_COLUMNS, summary)
    from .study_plot import plot_study

    plot_study(study, results, out)
    lines = [f"{'assembly':<16} {'game':<14} {'target':>14} {'reached':>8} {'mean iters':>11} "
                 f"{'mean secs':>10} {'mean-curve iters':>17}"]
    for s in summary:
        target = f"{float(s['target']):.3g} {s['unit']}".strip()
        lines.append(f"{s['assembly']:<16} {s['game']:<14} {target:>14} {s['reached']:>8} "
                     f"{s['mean_iterations']!s:>11} {s['mean_seconds']!s:>10} {s['mean_curve_iterations']!s:>17}")
    lines.append(f"results in {out}")
    return "\n".join(lines)


def _run_pool(study, out: str, jobs: int, plan: dict, results: dict, bar) -> bool:
    """Runs on `jobs` processes; True when a signal stopped the study. A signal to this process
    is passed on to the runs under way (each saves a checkpoint and stops), and runs not started
    are cancelled."""
    import multiprocessing
    import signal
    import threading
    from concurrent.futures import as_completed

    stop = threading.Event()

    def on_signal(signum, frame):
        stop.set()
        for child in multiprocessing.active_children():
            try:
                os.kill(child.pid, signal.SIGTERM)
            except OSError:
                pass

    main = threading.current_thread() is threading.main_thread()
    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)} if main else {}
    pool = ProcessPoolExecutor(jobs, initializer=_ignore_sigint)
    try:
        futures = {pool.submit(_run_one, run, out, plan[run.slug]): run.slug for run in study.runs}
        for fut in as_completed(futures):
            if fut.cancelled():
                continue
            results[futures[fut]] = r = fut.result()
            if bar:
                bar.update(1)
            if r.interrupted or stop.is_set():
                stop.set()
                for f in futures:
                    f.cancel()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        for s, handler in old.items():
            signal.signal(s, handler)
    return stop.is_set()


def _ignore_sigint():
    """A study's worker process between runs: Ctrl-C reaches the whole process group, and an
    idle worker must not die of it (the study cancels what has not started; a run under way
    has its own handler, which saves and stops)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _fmt(value) -> str:
    """A CSV cell: "" for none, else the number written plainly (no 1.01703e+07 for an integer)."""
    return plain(value, 6)


def _result_rows(study, results):
    rows = []
    for run in study.runs:
        res = results[run.slug]
        for target in run.targets:
            hits = {x: first_reach(res.curve(x, target.column), target.value) for x, _ in X_AXES}
            rows.append({
                "assembly": run.assembly, "game": run.game, "seed": run.seed, "target": target.value,
                "unit": target.label, "iterations_to_target": _fmt(hits["iteration"]),
                "seconds_to_target": _fmt(hits["seconds"]), "nodes_to_target": _fmt(hits["nodes_touched"]),
                "iterations_run": res.iterations, "final_exploitability": repr(res.last(target.column)),
                "seconds": _fmt(res.seconds), "run_dir": f"runs/{run.slug}",
            })
    return rows


SUMMARY_COLUMNS = ("assembly", "game", "target", "unit", "seeds", "reached", "mean_iterations", "mean_seconds",
                   "mean_curve_iterations", "mean_curve_seconds")


def groups(study: Study) -> dict[tuple[str, str], list[Run]]:
    """The runs of each (assembly, game), in study order."""
    out: dict[tuple[str, str], list[Run]] = {}
    for run in study.runs:
        out.setdefault((run.assembly, run.game), []).append(run)
    return out


def _summarise(study, results):
    """Per (assembly, game, target): how many seeds reached it, their mean iterations and seconds
    to it (when every seed did), and where the mean over all seeds (``[study] mean``) crosses it."""
    out = []
    for (aname, gname), runs in groups(study).items():
        for target in runs[0].targets:
            row = {"assembly": aname, "game": gname, "target": target.value, "unit": target.label,
                   "seeds": len(runs)}
            reached = 0
            for x, name in (("iteration", "iterations"), ("seconds", "seconds")):
                curves = [results[r.slug].curve(x, target.column) for r in runs]
                hits = [first_reach(c, target.value) for c in curves]
                got = [h for h in hits if h is not None]
                reached = len(got)
                row[f"mean_{name}"] = _fmt(mean(got)) if len(got) == len(runs) else ""
                crossing = next((at for at, gm, _, _ in combine(curves, study.mean) if gm <= target.value), None)
                row[f"mean_curve_{name}"] = _fmt(crossing)
            row["reached"] = f"{reached}/{len(runs)}"
            out.append(row)
    return out


def _write_csv(path, columns, rows):
    import io

    from .atomic import write_text

    buf = io.StringIO(newline="")
    w = csv.DictWriter(buf, fieldnames=columns)
    w.writeheader()
    w.writerows(rows)
    write_text(path, buf.getvalue())
