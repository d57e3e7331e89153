"""Comparative studies: a grid of assemblies x games x seeds, with curves and tables out.

A study file has a ``[study]`` table (``iterations``, ``targets``, ``seeds``, ``eval_every``,
``stop_at_target``),
one ``[assemblies.NAME]`` table per assembly (a config without its game: preset, rule,
averaging, compressor, transport, solver) and one ``[games.NAME]`` table per game
(``game = {name = ..., params...}`` plus optional ``seeds``, ``targets``, ``iterations``).
Each run is an ordinary solve; a run stops once its smallest target is reached, unless
``stop_at_target = false`` (needed for the seed-averaged curve to cross the smallest target).
"""

from __future__ import annotations

import csv
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError, choices
from .config import load_config, read_toml
from .params import Param, spec_of
from .registry import get_registry

STUDY_KEYS = ("name", "iterations", "targets", "seeds", "eval_every", "stop_at_target")
GAME_KEYS = ("game", "seeds", "targets", "iterations")
RESULT_COLUMNS = (
    "assembly", "game", "seed", "target", "iterations_to_target",
    "seconds_to_target", "iterations_run", "final_exploitability", "seconds", "run_dir",
)


@dataclass
class Run:
    """One solve of the grid."""

    assembly: str
    game: str
    seed: int
    targets: list[float]
    raw: dict  # raw config for load_config
    iterations: int

    @property
    def slug(self) -> str:
        return f"{self.assembly}__{self.game}__seed{self.seed}"


@dataclass
class Study:
    name: str
    runs: list[Run]
    source: str


def _check_keys(table, valid, where):
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table, got {table!r}")
    for key in table:
        if key not in valid:
            raise ConfigError(f"unknown key {key!r} in {where}; valid: {choices(valid)}")


# study values are checked by the same Param checks as every config value (finite, in int64, ...)
_TARGETS = Param("float_list", None, min=0.0, min_exclusive=True)
_SEEDS = Param("int_list", None, min=0)
_POSITIVE = Param("int", None, min=1)
_EVAL_EVERY = Param("int", None, min=0)
_BOOL = Param("bool", None)


def _float_list(value, where):
    value = _TARGETS.check(value, where)
    if not value:
        raise ConfigError(f"{where} = [] is invalid: expected a non-empty list of positive numbers")
    return sorted(value, reverse=True)


def _int_list(value, where):
    value = _SEEDS.check(value, where)
    if not value:
        raise ConfigError(f"{where} = [] is invalid: expected a non-empty list of integers >= 0")
    return value


def _positive_int(value, where):
    return _POSITIVE.check(value, where)


def load_study(path, iterations_cap: int | None = None) -> Study:
    """Read and fully validate a study file (every run's assembly resolves before any runs).

    `iterations_cap` (``solverkit study --iterations N``) caps every run's iterations: a
    shortened version of a long study with the same assemblies and games."""
    raw = read_toml(path)
    base = Path(path).resolve().parent
    for key in raw:
        if key not in ("study", "assemblies", "games"):
            raise ConfigError(f"unknown top-level key {key!r} in {path}; valid: assemblies, games, study")
    study = raw.get("study", {})
    _check_keys(study, STUDY_KEYS, "[study]")
    iterations = _positive_int(study.get("iterations", 1000), "[study] iterations")
    targets = _float_list(study.get("targets", [1e-3]), "[study] targets")
    seeds = _int_list(study.get("seeds", [0]), "[study] seeds")
    eval_every = _EVAL_EVERY.check(study.get("eval_every", 1), "[study] eval_every")
    stop_at_target = _BOOL.check(study.get("stop_at_target", True), "[study] stop_at_target")
    assemblies = raw.get("assemblies")
    games = raw.get("games")
    if not isinstance(assemblies, dict) or not assemblies:
        raise ConfigError(f"{path}: no [assemblies.NAME] tables; a study needs at least one assembly")
    if not isinstance(games, dict) or not games:
        raise ConfigError(f"{path}: no [games.NAME] tables; a study needs at least one game")
    registry = get_registry()
    runs = []
    for gname, gtable in games.items():
        where = f"[games.{gname}]"
        _check_keys(gtable, GAME_KEYS, where)
        if "game" not in gtable:
            raise ConfigError(f"{where} has no 'game' table (e.g. game = {{ name = \"skewed_pennies\" }})")
        game = gtable["game"]
        game = {"name": game} if isinstance(game, str) else dict(game)
        gseeds = _int_list(gtable["seeds"], f"{where} seeds") if "seeds" in gtable else seeds
        gtargets = _float_list(gtable["targets"], f"{where} targets") if "targets" in gtable else targets
        giters = _positive_int(gtable.get("iterations", iterations), f"{where} iterations")
        if iterations_cap is not None:
            giters = min(giters, _positive_int(iterations_cap, "--iterations"))
        for aname, atable in assemblies.items():
            if not isinstance(atable, dict):
                raise ConfigError(f"[assemblies.{aname}] must be a table, got {atable!r}")
            if "game" in atable:
                raise ConfigError(f"[assemblies.{aname}] must not name a game; games come from [games.*]")
            for seed in gseeds:
                cfg = {k: (dict(v) if isinstance(v, dict) else v) for k, v in atable.items()}
                g = dict(game)
                try:
                    cls = registry.get("game", g.get("name", ""), where=f"{where} game.name")
                except Exception as exc:
                    raise ConfigError(str(exc)) from None
                if "seed" in spec_of(cls).params:
                    g["seed"] = seed
                cfg["game"] = g
                solver = dict(cfg.get("solver", {}))
                solver.setdefault("eval_every", eval_every)
                solver["seed"] = seed
                solver["iterations"] = giters
                solver["target"] = min(gtargets) if stop_at_target else 0.0
                cfg["solver"] = solver
                # resolve now so that every error shows before anything runs
                load_config(cfg, registry=registry)
                runs.append(Run(aname, gname, seed, gtargets, cfg, giters))
    for run in runs:  # relative paths of [games.*] are relative to the study file
        _absolutize(run.raw["game"], base)
    return Study(study.get("name", Path(path).stem), runs, str(path))


def _absolutize(game_table, base):
    for key, value in game_table.items():
        if key == "path" and isinstance(value, str) and not os.path.isabs(value):
            game_table[key] = str((base / value).resolve())


def _run_one(run: Run, out_dir: str):
    from .solver import run_solve

    assembly = load_config(run.raw)
    result = run_solve(assembly, out=Path(out_dir) / "runs" / run.slug)
    curve = [(m["iteration"], m["exploitability"], m["seconds"]) for m in result.metrics]
    return curve, result.iterations, result.exploitability, result.seconds


def run_study(study: Study, out, jobs: int = 1, progress: bool = True) -> str:
    """Run every run of the study; write results.csv, summary.csv and one PNG per game."""
    out = Path(out)
    (out / "runs").mkdir(parents=True, exist_ok=True)
    results = {}
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(study.runs), unit="run", dynamic_ncols=True)
    try:
        if jobs == 1:
            for run in study.runs:
                results[run.slug] = _run_one(run, str(out))
                if bar:
                    bar.update(1)
        else:
            with ProcessPoolExecutor(jobs) as pool:
                futures = {run.slug: pool.submit(_run_one, run, str(out)) for run in study.runs}
                for slug, fut in futures.items():
                    results[slug] = fut.result()
                    if bar:
                        bar.update(1)
    finally:
        if bar:
            bar.close()
    rows = []
    for run in study.runs:
        curve, iters, final, secs = results[run.slug]
        for target in run.targets:
            hit = next(((it, s) for it, e, s in curve if e <= target), None)
            rows.append(
                {
                    "assembly": run.assembly,
                    "game": run.game,
                    "seed": run.seed,
                    "target": target,
                    "iterations_to_target": "" if hit is None else hit[0],
                    "seconds_to_target": "" if hit is None else f"{hit[1]:.6g}",
                    "iterations_run": iters,
                    "final_exploitability": repr(final),
                    "seconds": f"{secs:.6g}",
                    "run_dir": f"runs/{run.slug}",
                }
            )
    _write_csv(out / "results.csv", RESULT_COLUMNS, rows)
    summary = _summarise(study, results)
    _write_csv(out / "summary.csv", SUMMARY_COLUMNS, summary)
    _plot(study, results, out)
    lines = [f"{'assembly':<16} {'game':<14} {'target':>8} {'reached':>8} {'mean iters':>11} {'mean-curve iters':>17}"]
    for s in summary:
        lines.append(
            f"{s['assembly']:<16} {s['game']:<14} {s['target']:>8.0e} {s['reached']:>8} "
            f"{s['mean_iterations']!s:>11} {s['mean_curve_iterations']!s:>17}"
        )
    lines.append(f"results in {out}")
    return "\n".join(lines)


SUMMARY_COLUMNS = ("assembly", "game", "target", "seeds", "reached", "mean_iterations", "mean_curve_iterations")


def _mean_curve(curves):
    """Exploitability averaged over seeds at the iterations every seed evaluated."""
    common = set.intersection(*(set(it for it, _, _ in c) for c in curves))
    by_seed = [{it: e for it, e, _ in c} for c in curves]
    return [(it, sum(d[it] for d in by_seed) / len(by_seed)) for it in sorted(common)]


def _summarise(study, results):
    groups = {}
    for run in study.runs:
        groups.setdefault((run.assembly, run.game), []).append(run)
    out = []
    for (aname, gname), runs in groups.items():
        curves = [results[r.slug][0] for r in runs]
        mean = _mean_curve(curves)
        for target in runs[0].targets:
            hits = [next((it for it, e, _ in c if e <= target), None) for c in curves]
            reached = [h for h in hits if h is not None]
            mean_hit = next((it for it, e in mean if e <= target), None)
            out.append(
                {
                    "assembly": aname,
                    "game": gname,
                    "target": target,
                    "seeds": len(runs),
                    "reached": f"{len(reached)}/{len(runs)}",
                    "mean_iterations": round(sum(reached) / len(reached), 1) if len(reached) == len(runs) else "",
                    "mean_curve_iterations": "" if mean_hit is None else mean_hit,
                }
            )
    return out


def _write_csv(path, columns, rows):
    tmp = Path(str(path) + ".tmp")
    with open(tmp, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=columns)
        w.writeheader()
        w.writerows(rows)
    os.replace(tmp, path)


def _plot(study, results, out):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    games = list(dict.fromkeys(r.game for r in study.runs))
    assemblies = list(dict.fromkeys(r.assembly for r in study.runs))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for gname in games:
        fig, ax = plt.subplots(figsize=(6.4, 4.4))
        targets = []
        for i, aname in enumerate(assemblies):
            runs = [r for r in study.runs if r.game == gname and r.assembly == aname]
            if not runs:
                continue
            targets = runs[0].targets
            curves = [results[r.slug][0] for r in runs]
            color = colors[i % len(colors)]
            if len(curves) > 1:
                for c in curves:
                    ax.plot([p[0] for p in c], [max(p[1], 1e-300) for p in c], color=color, alpha=0.2, lw=0.7)
            mean = _mean_curve(curves)
            label = aname + (f" (mean of {len(curves)})" if len(curves) > 1 else "")
            ax.plot([p[0] for p in mean], [max(p[1], 1e-300) for p in mean], color=color, lw=1.6, label=label)
        for t in targets:
            ax.axhline(t, color="grey", ls=":", lw=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("iterations")
        ax.set_ylabel("exploitability")
        ax.set_title(f"{study.name}: {gname}")
        ax.legend()
        ax.grid(True, which="major", alpha=0.3)
        fig.tight_layout()
        fig.savefig(out / f"{gname}.png", dpi=120)
        plt.close(fig)
