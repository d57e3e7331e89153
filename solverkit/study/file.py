"""A study file read and checked into its runs, every run's config resolved first (so every error shows first)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..core.config import absolutize_game_files, load_config
from ..core.config_text import read_toml
from ..core.params import Param, spec_of
from ..core.registry import get_registry
from ..core.units import EXPLOITABILITY, plot_unit, units_of
from ..errors import ConfigError, choices, shown
from .stats import MEANS

STUDY_KEYS = ("name", "iterations", "targets", "seeds", "eval_every", "stop_at_target", "mean", "time_limit",
              "checkpoint_every")


GAME_KEYS = ("game", "seeds", "targets", "iterations", "eval_every", "time_limit", "assemblies")


#: how often a study's runs write a checkpoint by default (what ``solverkit study --resume`` goes on from)
STUDY_CHECKPOINT_EVERY = "10m"


#: study and game tables also take ``targets_<unit key>`` (e.g. ``targets_mbb``), in a display unit of the game
TARGETS_PREFIX = "targets_"


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
    #: the game's players, its display units' keys, and whether ``--iterations`` shortened the run
    players: int = 2
    units: tuple[str, ...] = ()
    capped: bool = False

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
    #: published values to compare with ([reference]; study.reference.Reference), or None
    reference: object = None


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
    from ..core.config_text import parse_schedule

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
    from ..core.config_text import parse_every

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


def _is_random(assembly) -> bool:
    """Whether the assembly's runs differ by seed: it samples (Monte-Carlo CFR: any sampler but
    ``full``) or jitters its regrets (``[solver] jitter``)."""
    return bool(getattr(assembly.sampler, "sampled", False)) or bool(assembly.solver.get("jitter"))


def load_study(path, iterations_cap: int | None = None) -> Study:
    """Read and fully validate a study file (every run's assembly resolves before any runs).

    `iterations_cap` (``solverkit study --iterations N``) caps every run's iterations: a
    shortened version of a long study with the same assemblies and games."""
    raw = read_toml(path)
    base = Path(path).resolve().parent
    for key in raw:
        if key not in ("study", "assemblies", "games", "reference"):
            raise ConfigError(f"unknown top-level key {shown(key)} in {path}; valid: assemblies, games, reference, "
                              "study")
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
                # eval_every 0 is the log schedule here even with a target (a solve's 0 with a target
                # evaluates where the curve predicts the target: sparser curves, coarser iterations to it)
                solver = {"eval_every": geval if geval not in (0, "0") else "log", "iterations": giters,
                          "time_limit": glimit, "checkpoint_every": checkpoint_every}
                solver.update(cfg.get("solver", {}) if isinstance(cfg.get("solver"), dict) else {})
                solver["seed"] = seed
                capped = cap is not None and isinstance(solver.get("iterations"), int) and solver["iterations"] > cap
                if capped:
                    solver["iterations"] = cap
                cfg["solver"] = solver
                # resolve now so that every error shows before anything runs
                assembly = load_config(cfg, registry=registry, where=f"{path}: {awhere} on [games.{gname}]")
                targets = _targets_for(graw_targets, assembly.game, where)
                if stop_at_target and not any(k.startswith("target") for k in _solver_keys(atable)):
                    _stop_at(cfg["solver"], targets, where)  # a target of the game's own units: no new check needed
                runs.append(Run(aname, gname, seed, targets, cfg, int(assembly.solver["iterations"]),
                                plot_unit(assembly.game), int(getattr(assembly.game, "num_players", 2)),
                                tuple(u.key for u in units_of(assembly.game)), capped))
                made.append(runs[-1])
                if not seeded_game and not _is_random(assembly):
                    break  # nothing random: more seeds would repeat this run
            if len(made) < len(gseeds):
                once.append(aname)
        if once:
            notes.append(f"{gname}: {', '.join(once)} {'has' if len(once) == 1 else 'have'} nothing random here (the "
                         f"game has no seed or fixes it, the assembly neither samples nor jitters): each runs once, not once "
                         f"per seed {gseeds}")
    _check_slugs(runs)
    reference = None
    if "reference" in raw:
        from .reference import load_reference

        reference, more = load_reference(raw["reference"], base, runs)
        notes += more
    return Study(_study_name(study.get("name", Path(path).stem)), runs, str(path), notes, how, reference)


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
