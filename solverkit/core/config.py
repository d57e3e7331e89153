"""Assemblies from TOML: presets, plugin resolution and parameter checks (the text itself: .config_text).

A config names a game, a regret rule, an averaging scheme, a compressor and a transport, each a
table with ``name`` and the plugin's parameters, plus a ``[solver]`` table. ``preset`` (e.g.
``cfr_plus``, registered by a plugin) supplies rule, averaging and update order; any table given
explicitly overrides it. Each display unit of the game adds ``[solver] target_<key>``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

import tomli_w

from ..errors import ConfigError, PluginError, choices, shown
from .capabilities import TakesAbstraction
from .config_text import PLUGIN_SECTIONS, TOP_KEYS, apply_overrides, parse_every, parse_schedule, read_toml
from .params import Param, ParamSpec, expand_path, spec_of
from .presets import UPDATE_ORDERS
from .registry import KINDS, Registry, get_registry
from .sampler import engine_of
from .store import check_scales
from .units import drop_foreign_targets, target_params

DEFAULT_NAMES = {"compressor": "none", "transport": "local"}

#: [solver] average_pass: whose pass adds a player's strategy to its average under alternating updates
AVERAGE_PASSES = ("opponent", "own")

SOLVER_PARAMS = ParamSpec(
    {
        "iterations": Param("int", 1000, "iterations to run at most", min=1),
        "target": Param("float", 0.0, "stop once exploitability <= target (0: never)", min=0.0),
        "update": Param("str", "alternating", "update order", choices=UPDATE_ORDERS),
        "first_update": Param("int", 0, "alternating updates: the player whose regrets update first in an iteration "
                              "(the original CFR+ code updates player 1 first)", min=0, max=1),
        "average_pass": Param("str", "opponent", "alternating updates: the pass that adds a player's strategy to its "
                              "average: \"opponent\" (the strategy after its update, in the next player's pass: "
                              "Tammelin et al. 2015, the original CFR+ code) or \"own\" (the strategy it played in "
                              "its own pass: OpenSpiel, the DCFR / DDCFR / PDCFR+ code); full passes only",
                              choices=AVERAGE_PASSES),
        "jitter": Param("float", 0.0, "move every regret by a relative size x N(0, 1) (seeded by [solver] seed) "
                        "after the first iteration, e.g. 1e-15: runs of several seeds then show how far float "
                        "rounding alone carries a deterministic sequence (full passes, float stores, local transport; 0: "
                        "none)", min=0.0, max=1e-3),
        "eval_every": Param("int", 0, "evaluate every N iterations (0: ~20 points per decade); also a string: "
                            "\"100\" iterations, \"30s\" / \"10m\" / \"1h\" of solve time, \"1e6 nodes\" touched", min=0),
        "time_limit": Param("float", 0.0, "stop after this many seconds of solve time (evaluations excluded; "
                            "0: never), at the end of the iteration that crosses it", min=0.0),
        "eval_current": Param("bool", False, "also evaluate the current strategy when the output is the average"),
        "seed": Param("int", 0, "seed of the sampler's random stream ([sampler]); recorded with the run and passed "
                      "to studies", min=0),
        "checkpoint_every": Param("str", "", "write a checkpoint every N iterations (\"100\") or every so long "
                                  "(\"90s\", \"10m\", \"1h\"); \"\": never"),
    }
)

STORE_PARAMS = ParamSpec(
    {
        "backend": Param("str", "memory", "where encoded segments live", choices=("memory", "disk")),
        "path": Param("str", "", "directory of the disk backend (default: OUT/store, or a temporary directory)"),
        "regret_scale": Param("float_list", [], "fixed point: stored regret = round(regret per chip x scale), one "
                              "factor per round (the last repeats; [] keeps float64)", min=0.0, min_exclusive=True),
        "avg_scale": Param("float_list", [], "fixed point: stored average = round(cumulative strategy x scale), "
                           "one factor per round ([] keeps float64)", min=0.0, min_exclusive=True),
        "state_scale": Param("float_list", [], "fixed point: scale of a stateful rule's arrays (such as a "
                             "prediction), per chip and round ([]: regret_scale)", min=0.0, min_exclusive=True),
        "precision": Param("str", "float64", "how values are stored: float64 (or int32 fixed point with "
                           "regret_scale / avg_scale), float32 (half float64's memory and memory traffic, as "
                           "postflop-solver's default; poker engine games) or block16 (16-bit integers with one scale "
                           "per public node and board, as postflop-solver's compression: a quarter of float64's "
                           "memory on a split game)",
                           choices=("float64", "float32", "block16")),
        "predictor": Param("str", "west", "fixed point: predict each value from the previous hand in strength "
                           "order (west), the same hand on the previous board (north), or west + north - northwest "
                           "(gradient)",
                           choices=("gradient", "west", "north", "none")),
        "hold": Param("str", "encoded", "how segments are held between updates: encoded (decoded for each update; "
                      "memory = the stored bytes) or decoded (float64 arrays rounded to the fixed point after each "
                      "update, encoded only when payloads or the stored size are asked for: the same numbers at "
                      "the float store's memory and close to its speed)", choices=("encoded", "decoded")),
        "prefetch": Param("int", 2, "disk backend: segments read ahead", min=0, max=1024),
        "write_behind": Param("int", 2, "disk backend: segments waiting to be written before updates wait",
                              min=1, max=1024),
    }
)

def solver_spec(game) -> ParamSpec:
    """The ``[solver]`` parameters for `game`: SOLVER_PARAMS plus a target per display unit."""
    params = {}
    for key, param in SOLVER_PARAMS.params.items():
        params[key] = param
        if key == "target":  # unit targets next to the native one, as config files list them
            params.update(target_params(game))
    return ParamSpec(params)


DEFAULT_SAMPLER = "full"

@dataclass
class Assembly:
    """A fully resolved solver assembly: plugin instances plus the resolved config tables."""

    game: object
    rule: object
    averaging: object
    compressor: object
    transport: object
    solver: dict
    #: the [sampler] plugin instance (full when the config names none)
    sampler: object = None
    resolved: dict = field(default_factory=dict)
    store: dict = field(default_factory=lambda: STORE_PARAMS.resolve({}, "[store]", ignore=()))
    source: str = "<dict>"
    #: the [abstraction] plugin instance (solverkit.abstraction.plugin.Abstraction, checked
    #: against the game's cards: its ``spec`` is the game's CardSpec), or None without the table
    abstraction: object = None
    #: the checked [search] table (solverkit.search.params), or None without one
    search: dict | None = None

    def to_toml(self) -> str:
        return tomli_w.dumps(self.resolved)

    def fresh_transport(self):
        """A new transport of the same kind (transports hold threads or sockets)."""
        cls = type(self.transport)
        return cls(**_params(self.resolved["transport"]))


def _params(table: dict) -> dict:
    return {k: v for k, v in table.items() if k != "name"}


def load_config(source, overrides=(), registry: Registry | None = None, where: str | None = None) -> Assembly:
    """Resolve a TOML path or a raw dict (plus --set overrides) into an Assembly; `where` names a
    dict's origin in errors (default "<dict>")."""
    if isinstance(source, (str, Path)):
        raw = read_toml(source)
        base = expand_path(source, "config file").resolve().parent  # ~/x.toml's folder, not ./~
        where = str(source)
    elif isinstance(source, dict):
        raw, base, where = dict(source), Path.cwd(), where or "<dict>"
    else:
        raise ConfigError(f"a config is a TOML file path or a dict of its tables, got {type(source).__name__} "
                          f"{source!r:.60}")
    raw = apply_overrides(raw, overrides)
    return resolve(raw, base_dir=base, registry=registry, source=where)


def absolutize_game_files(game_table: dict, cls, base: Path, files: dict | None = None) -> dict:
    """The files a [game] table names (``Game.local_files``: paths, a gamedef file, not a bundled
    name; or `files`) made absolute relative to the folder `base`, before anything reads them;
    {key: (given, absolute)} for those changed."""
    if files is None:
        try:
            files = cls.local_files(game_table)
        except Exception:  # a malformed value: the game's own checks name it
            return {}
    changed = {}
    for key, value in files.items():
        if isinstance(value, str) and value and not value.startswith("~") and "\0" not in value \
                and not Path(value).is_absolute():
            game_table[key] = str((base / value).resolve())
            changed[key] = (value, game_table[key])
    return changed


def _files_absolute(params: dict, cls, base_dir: Path) -> None:
    """The files a plugin's parameters name (``local_files``: path parameters, a gamedef file)
    made absolute against the config file's folder, so the run's config.toml reads them from
    anywhere. A file missing there but present in the working directory (configs written when
    game files were read from there) is read from there, with a warning."""
    files = {k: params[k] for k, p in spec_of(cls).params.items() if p.type == "path" and params.get(k)}
    if hasattr(cls, "local_files"):  # a game: its file parameters too (a gamedef, not a bundled name)
        try:
            files = cls.local_files(params)
        except Exception:  # noqa: BLE001 - a game's own check of its values names what is wrong
            pass
    for key, (given, absolute) in absolutize_game_files(params, None, base_dir, files).items():
        if not Path(absolute).exists() and Path(given).exists() and base_dir.resolve() != Path.cwd().resolve():
            params[key] = str(Path(given).resolve())
            print(f"warning: {key} = {given!r} is not in {base_dir} (the config file's folder, which relative "
                  f"paths are relative to); read from the working directory instead: {params[key]}", file=sys.stderr)


def _table(raw, section):
    value = raw.get(section, {})
    if isinstance(value, str):  # shorthand: game = "skewed_pennies"
        value = {"name": value}
    if not isinstance(value, dict):
        raise ConfigError(f"[{section}] must be a table or a plugin name, got {shown(value)}")
    for key in value:  # a dict from the API may hold any key; TOML's are strings
        if not isinstance(key, str):
            raise ConfigError(f"[{section}] key {shown(key)} is invalid: keys are parameter names (strings)")
    return dict(value)


def _engine_for_sampler(raw, registry, instances) -> None:
    """A game whose engine does not run the [sampler]'s scheme (and has no earlier name for it
    there, see ``sampler_instead``) but that another engine runs as the same game
    (:meth:`.game.Game.engine_for_sampler`) becomes that engine's game, said on stderr; the
    resolved config keeps the [game] table as given, so a resumed run makes the same choice."""
    name = _table(raw, "sampler").get("name", DEFAULT_SAMPLER)
    game = instances["game"]
    if not isinstance(name, str) or name not in registry.names("sampler"):
        return  # named in _resolve_sampler's error
    scheme = registry.get("sampler", name, where="[sampler] name").scheme
    if scheme in game.samplers or scheme in dict(getattr(game, "sampler_instead", {})):
        return
    other = game.engine_for_sampler(scheme)
    if other is not None:
        print(f"note: [sampler] name = {name!r}: game {game.name!r} runs on the {engine_of(scheme)} engine as "
              f"{other.name!r} (its engine runs: {', '.join(game.samplers)})", file=sys.stderr)
        instances["game"] = other


def _resolve_sampler(raw, registry, instances, seed):
    """The [sampler] instance (default full), seeded and checked against the game's engine, the
    rule and the averaging scheme."""
    table = _table(raw, "sampler")
    name = table.get("name", DEFAULT_SAMPLER)
    if not isinstance(name, str):
        raise ConfigError(f"[sampler] name = {shown(name)} must be a string; available: {choices(registry.names('sampler'))}")
    try:
        cls = registry.get("sampler", name, where="[sampler] name")
    except PluginError as exc:
        raise ConfigError(str(exc)) from None
    game = instances["game"]
    instead = dict(getattr(game, "sampler_instead", {})).get(cls.scheme)
    if instead and cls.scheme not in tuple(getattr(game, "samplers", ("full",))) and set(table) <= {"name"}:
        # an earlier name of what this engine runs (runs and configs written before the rename
        # still read): said aloud, never silently another algorithm
        print(f"warning: [sampler] name = {name!r} on game {game.name!r} is read as {instead[0]!r}: {instead[1]}; "
              f"write [sampler] name = \"{instead[0]}\" (docs/samplers.md)", file=sys.stderr)
        name = instead[0]
        cls = registry.get("sampler", name, where="[sampler] name")
    sampler = cls(**spec_of(cls).resolve(table | {"name": name}, f"[sampler] ({name})"))
    sampler.seed = int(seed)
    sampler.check(instances["game"], instances["rule"], instances["averaging"])
    return sampler


def _resolve_abstraction(raw, registry, game, base_dir):
    """The optional [abstraction] plugin instance, its parameters checked against the game's
    cards (buckets: one entry per round); None when the config has no such table."""
    if "abstraction" not in raw:
        return None
    from ..abstraction.spec import CardSpec

    table = _table(raw, "abstraction")
    name = table.get("name")
    if not isinstance(name, str):
        raise ConfigError(f"[abstraction] name = {shown(name)} is invalid: expected one of "
                          f"{choices(registry.names('abstraction'))}")
    try:
        cls = registry.get("abstraction", name, where="[abstraction] name")
    except PluginError as exc:
        raise ConfigError(str(exc)) from None
    params = spec_of(cls).resolve(table, f"[abstraction] ({name})")
    _files_absolute(params, cls, base_dir)
    instance = cls(**params)
    instance.check(CardSpec.of_game(game))
    return instance


def _bind_horizons(instances, resolved, iterations: int) -> None:
    """A rule's or averaging's ``horizon = 0`` (a schedule spanning the whole run, as the
    hyperparameter schedules take it) becomes ``[solver] iterations``, recorded in the resolved
    config so that a resumed run or a worker keeps the same schedule."""
    for section in ("rule", "averaging"):
        inst = instances[section]
        if "horizon" in spec_of(type(inst)).params and inst.config.get("horizon") == 0:
            inst.config["horizon"] = resolved[section]["horizon"] = int(iterations)


def resolve(raw: dict, base_dir=None, registry: Registry | None = None, source="<dict>") -> Assembly:
    """Check every key of a raw config and build the plugin instances it names."""
    from .jit import light_loads

    light_loads()  # when numba starts (if it must): cached kernels load without its compiler's set-up
    registry = registry or get_registry()
    base_dir = Path(base_dir or Path.cwd())
    for key in raw:
        if key not in TOP_KEYS:
            raise ConfigError(f"unknown top-level key {shown(key)} in {source}; valid: {choices(TOP_KEYS)}")
    preset = None
    if "preset" in raw:
        try:
            preset = registry.preset(raw["preset"])
        except PluginError as exc:
            raise ConfigError(str(exc)) from None
    resolved, instances = {}, {}
    for section in PLUGIN_SECTIONS:
        table = _table(raw, section)
        ptable = preset.table(section) if preset else {}
        if ptable and table.get("name", ptable["name"]) == ptable["name"]:
            table = {**ptable, **table}  # the preset's parameters, unless the config names another plugin
        name = table.get("name", DEFAULT_NAMES.get(section))
        if name is None:
            hint = f"; available: {choices(registry.names(section))}"
            if section in ("rule", "averaging"):
                hint += f" (or set preset, one of {choices(registry.presets)})"
            raise ConfigError(f"missing [{section}] name in {source}{hint}")
        if not isinstance(name, str):
            raise ConfigError(f"[{section}] name = {shown(name)} must be a string")
        try:
            cls = registry.get(section, name, where=f"[{section}] name")
        except PluginError as exc:
            if ptable and name == ptable["name"]:
                raise ConfigError(f"preset {preset.name!r} of plugin {preset.plugin!r} names unknown "
                                  f"{KINDS[section][2]} {shown(name)}; available: {choices(registry.names(section))}") from None
            raise ConfigError(str(exc)) from None
        try:
            params = spec_of(cls).resolve(table, f"[{section}] ({name})")
        except ConfigError as exc:
            if ptable and name == ptable["name"] and set(ptable) - {"name"}:
                raise ConfigError(f"{exc} (preset {preset.name!r} of plugin {preset.plugin!r} sets "
                                  f"[{section}] {choices(set(ptable) - {'name'})})") from None
            raise
        _files_absolute(params, cls, base_dir)
        instances[section] = cls(**params)
        resolved[section] = {"name": name, **{k: v for k, v in params.items() if v is not None}}
    _engine_for_sampler(raw, registry, instances)
    solver_table = drop_foreign_targets(_table(raw, "solver"), instances["game"])
    if "update" not in solver_table and preset is not None:
        solver_table["update"] = preset.update
    ckpt = solver_table.get("checkpoint_every")
    if isinstance(ckpt, int) and not isinstance(ckpt, bool):  # 100 as "100", as [study] and eval_every take it
        solver_table["checkpoint_every"] = str(ckpt)
    every = solver_table.get("eval_every")
    every = parse_schedule(every) if isinstance(every, str) else None  # numbers: checked as the int parameter
    if every is not None and every[0] != "iterations":
        solver_table["eval_every"] = str(solver_table["eval_every"]).strip()  # a time or nodes schedule, as given
        solver = solver_spec(instances["game"]).resolve({**solver_table, "eval_every": 0}, "[solver]", ignore=())
        solver["eval_every"] = solver_table["eval_every"]
    else:
        if every is not None:
            solver_table["eval_every"] = every[1]
        solver = solver_spec(instances["game"]).resolve(solver_table, "[solver]", ignore=())
    sampler = _resolve_sampler(raw, registry, instances, solver["seed"])
    instances["game"].check_sampler(sampler, solver)
    if solver["average_pass"] == "own":
        if getattr(sampler, "sampled", False):
            raise ConfigError(f"[solver] average_pass = \"own\" applies to full passes; [sampler] {sampler.name!r} "
                              "samples, and its averages follow its own scheme: use average_pass = \"opponent\" "
                              "(the default) with it")
        instances["averaging"].own_pass = True
    if solver["jitter"] and getattr(sampler, "sampled", False):
        raise ConfigError(f"[solver] jitter = {solver['jitter']!r} is for deterministic assemblies; [sampler] "
                          f"{sampler.name!r} samples, and its seeds already vary its runs: leave jitter at 0 with it")
    if "sampler" in raw:
        resolved["sampler"] = {"name": sampler.name, **sampler.config}
    try:
        parse_every(solver["checkpoint_every"])
    except ConfigError as exc:
        raise ConfigError(f"[solver] {exc}") from None
    resolved["solver"] = solver
    _bind_horizons(instances, resolved, solver["iterations"])
    store_table = _table(raw, "store")
    for key in ("regret_scale", "avg_scale", "state_scale"):  # a single number means the same factor for every round
        if isinstance(store_table.get(key), (int, float)) and not isinstance(store_table.get(key), bool):
            store_table[key] = [store_table[key]]
    store = STORE_PARAMS.resolve(store_table, "[store]", ignore=())
    if store["hold"] == "decoded" and store["backend"] == "disk":
        raise ConfigError("[store] hold = \"decoded\" keeps every value in memory; it cannot be combined with "
                          "backend = \"disk\" (valid: hold = \"encoded\" with the disk backend, or backend = "
                          "\"memory\" with either hold)")
    check_scales(store, instances["averaging"], instances["rule"])  # a fixed point too coarse for them: refused
    float_store = store["precision"] in ("float64", "float32") and not store["regret_scale"] and not store["avg_scale"]
    if solver["jitter"] and (instances["transport"].name != "local" or not float_store):
        raise ConfigError(f"[solver] jitter = {solver['jitter']!r} moves the regrets of a float store in this process; "
                          f"it needs [transport] name = \"local\" (got {instances['transport'].name!r}) and a float "
                          "store ([store] precision float64 or float32, no regret_scale / avg_scale)")
    if store["path"]:  # ~ expands as in every path parameter; relative paths are relative to the config file
        path = expand_path(store["path"], "[store] path")
        store["path"] = str(path if path.is_absolute() else (base_dir / path).resolve())
    if "store" in raw:
        resolved["store"] = store
    abstraction = _resolve_abstraction(raw, registry, instances["game"], base_dir)
    if abstraction is not None:
        resolved["abstraction"] = {"name": abstraction.name,
                                   **{k: v for k, v in abstraction.config.items() if v is not None}}
        # the game over the abstraction's buckets (its table built or read here: the game's identity
        # includes the abstraction, so strategies and checkpoints of another one are refused)
        game = instances["game"]
        if not isinstance(game, TakesAbstraction):
            raise ConfigError(
                f"game {game.name!r} takes no [abstraction]: card abstraction buckets the private cards of the poker "
                "engine's games (acpc, kuhn, leduc, hulhe, rhode_island) and of the blueprint engine")
        instances["game"] = game.with_abstraction(abstraction, resolved["abstraction"])
    search = None
    if "search" in raw:
        from ..search.params import resolve_search

        search = resolved["search"] = resolve_search(_table(raw, "search"))
    return Assembly(
        game=instances["game"],
        rule=instances["rule"],
        averaging=instances["averaging"],
        compressor=instances["compressor"],
        transport=instances["transport"],
        solver=solver,
        sampler=sampler,
        store=store,
        resolved=resolved,
        source=source,
        abstraction=abstraction,
        search=search,
    )
