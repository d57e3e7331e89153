"""The summary lines of ``solverkit report``: the game and its given parameters, the preset the
run matches, its targets, why it stopped, seconds and bytes as a reader wants them."""

from __future__ import annotations

import math

from ..core.units import units_of
from ..errors import SolverkitError


def run_targets(game, solver: dict) -> list[tuple[float, str]]:
    """The run's exploitability targets as (native value, text in the unit it was given), from
    its resolved ``[solver]`` table (``target`` and every ``target_<unit key>``; 0 means none)."""
    out = []
    native = float(solver.get("target", 0.0) or 0.0)
    if native > 0:
        out.append((native, f"{native:g} {getattr(game, 'unit_name', '')}".strip()))
    for u in units_of(game):
        value = float(solver.get(u.target_key, 0.0) or 0.0)
        if value > 0:
            out.append((value / u.factor, f"{value:g} {u.name}"))
    return out


def matching_presets(assembly) -> list[str]:
    """The registered presets whose rule, averaging (parameters included) and update order are
    the run's: its config.toml holds what a preset resolved to, not the preset's name."""
    from ..core.params import spec_of
    from ..core.presets import SECTIONS
    from ..core.registry import get_registry

    reg = get_registry()
    out = []
    for name, preset in reg.presets.items():
        if preset.update != assembly.solver.get("update"):
            continue
        same = True
        for section in SECTIONS:
            table, ran = preset.table(section), assembly.resolved.get(section, {})
            if table["name"] != ran.get("name"):
                same = False
                break
            try:
                params = spec_of(reg.get(section, table["name"])).resolve(table, f"[{section}]")
            except SolverkitError:
                same = False
                break
            if {k: v for k, v in params.items() if v is not None} != {k: v for k, v in ran.items() if k != "name"}:
                same = False
                break
        if same:
            out.append(name)
    return out


def game_text(assembly) -> str:
    """``openspiel (game='kuhn_poker')``: the game's name and the parameters it was given other
    than their defaults (the resolved config.toml lists every parameter)."""
    from ..core.params import spec_of

    table = assembly.resolved.get("game", {})
    params = spec_of(type(assembly.game)).params
    given = [f"{k}={v!r}" for k, v in table.items()
             if k != "name" and (k not in params or params[k].default != v)]
    return assembly.game.name + (f" ({', '.join(given)})" if given else "")


def preset_text(assembly) -> str:
    """``cfr_plus (rule rm_plus, averaging linear, alternating updates)``, or what the run
    combines when no registered preset is exactly it; a sampled run names its sampler too (a
    preset's passes are full ones)."""
    ran = (f"rule {assembly.resolved['rule']['name']}, averaging {assembly.resolved['averaging']['name']}, "
           f"{assembly.solver.get('update', '?')} updates")
    sampler = (assembly.resolved.get("sampler") or {}).get("name", "full")
    if sampler != "full":
        ran += f", sampler {sampler}"
    names = matching_presets(assembly)
    return f"{' = '.join(names)} ({ran})" if names else f"none: a custom assembly ({ran})"


def stop_text(result: dict, targets, solver: dict) -> str:
    """Why the run stopped: its target reached, an interruption, the time limit, or the
    iteration cap (before the target, or of a run with no target)."""
    done, cap = result.get("iterations", "?"), solver.get("iterations", "?")
    limit = float(solver.get("time_limit", 0.0) or 0.0)
    if result.get("interrupted"):
        return f"interrupted at iteration {done}"
    if targets and result.get("reached_target"):
        return f"target reached at iteration {done}"
    if limit and isinstance(done, int) and done < cap and result.get("seconds", 0.0) >= limit:
        return f"time limit ({limit:g} s) reached at iteration {done}" + (" before the target" if targets else "")
    if targets:
        return f"iteration cap ({cap}) reached before the target"
    return f"ran {done} of {cap} iterations (no target)"


def plain_seconds(value) -> str:
    """Seconds as a reader wants them: 1,047 or 0.00473, never 1.05e+03; "?" when unknown."""
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        return "?"
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def byte_text(n) -> str:
    """A byte count as a reader wants it: 512 B, 3.4 MB."""
    n = float(n)
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if n < 1024 or unit == "TB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{int(n)} B"
        n /= 1024
    return f"{n:.1f} TB"
