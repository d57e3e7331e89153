"""What a solve produced: the Result, and the files a finished run writes (strategy, result.json)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .atomic import write_text
from .identity import ID_FIELD, game_identity, identity_fields
from .metrics import nash_columns
from .strategy_file import STRATEGY_MANIFEST, save_strategy


@dataclass
class Result:
    """What a solve produced."""

    iterations: int
    exploitability: float
    br: tuple[float, float]
    seconds: float
    reached_target: bool
    metrics: list[dict] = field(default_factory=list)
    interrupted: bool = False
    strategy: list[np.ndarray] | None = None
    out: Path | None = None
    stored_bytes: int = 0
    compression_ratio: float = 0.0
    #: how the store holds values: "float64 in memory", "float64 on disk", or "" when encoded
    #: (fixed point and/or compressed: compression_ratio says how much)
    store_kind: str = ""
    #: one line saying why the run stopped ("target reached: ...", "iteration cap reached ...");
    #: "" when no target was set or the run was interrupted
    stop_reason: str = ""
    #: fixed-point values clipped to the int32 range during the run (0 for a float64 store)
    saturated_values: int = 0
    #: the game's own result.json fields (a spot's ``ev`` and ``equity``)
    fields: dict = field(default_factory=dict)
    #: warnings about the fixed-point store (values clipped, factors too coarse), as said on stderr
    store_warnings: list[str] = field(default_factory=list)



#: result.store_kind of a store with ``hold = "decoded"``: stored sizes are what encoding gives
HELD_DECODED = "held decoded in memory"


def store_kind(assembly, store) -> str:
    """"float64 in memory" / "float64 on disk" for a store that holds plain doubles; "held decoded
    in memory" for an encoding store that holds its values decoded; "" else."""
    if store.deferred:
        return HELD_DECODED
    if store.compact:
        return "16-bit block-scaled in memory"
    if not store.codec.passthrough:
        return ""
    return "float64 " + ("on disk" if assembly.store["backend"] == "disk" else "in memory")



def write_outputs(run) -> None:
    """The outputs of a finished `run` (a :class:`~solverkit.core.run_loop.Run` whose final row is
    confirmed): the game's own result fields, the strategy (kept in ``run.strategy`` unless the game
    is large) and, with an output directory, strategy.npz or its parts and result.json."""
    solver, assembly, out = run.solver, run.assembly, run.out
    # the game's own result fields (a spot's ev and equity), for result.json and the Result
    run.extra = assembly.game.result_fields(solver.store, solver.output_kind, transport=solver.transport)
    layouts = [assembly.game.layout(p) for p in range(assembly.game.num_players)]
    large = sum(lay.size for lay in layouts) > run.strategy_in_memory
    if out is not None and (large or not solver.distributed):
        # a strategy of the kind this run does not write, left in `out` by an earlier run, goes
        (out / ("strategy.npz" if solver.distributed else STRATEGY_MANIFEST)).unlink(missing_ok=True)
    if out is not None and solver.distributed:
        # every owner writes its segments' policies; strategy.npz besides only for a small game
        solver.save_strategy_parts(out / STRATEGY_MANIFEST)
    if out is not None and large and solver.distributed:
        run.strategy = None
    elif out is not None and large:
        # a large game: one player's policy in memory at a time, straight into the file
        run.strategy = None
        save_strategy(out / "strategy.npz", lambda p, dst, release: solver.strategy_of(p, out=dst, release=release),
                      layouts, solver.output_kind, solver.iteration, assembly.resolved["game"],
                      identity_fields(assembly.game), dtype=solver.store.dtype)
    else:
        run.strategy = solver.strategy()
    if out is not None:
        if run.strategy is not None:
            save_strategy(out / "strategy.npz", run.strategy, layouts, solver.output_kind, solver.iteration,
                          assembly.resolved["game"], identity_fields(assembly.game), dtype=solver.store.dtype)
        write_text(out / "result.json", json.dumps(result_summary(run), indent=2) + "\n")


def result_summary(run) -> dict:
    """result.json of a finished `run`: its final row, targets, store and timings, the transport's
    report, the recoveries from lost workers and the game's own fields."""
    solver, assembly, row = run.solver, run.assembly, run.row
    store_row = solver.store_row()
    summary = {
        "iterations": solver.iteration,
        "exploitability": row["exploitability"],
        "br_0": row["br_0"],
        "br_1": row["br_1"],
        **({"value_bounds": [-row["br_1"], row["br_0"]]} if assembly.game.num_players == 2 else
           {"players": assembly.game.num_players,
            **{c: row[c] for c in nash_columns(assembly.game)}}),
        "seconds": solver.solve_seconds,
        "target": run.target,
        **{key: value for key, value in run.unit_targets.items() if value > 0},
        **{u.column: row[u.column] for u in run.units if u.column in row},
        "reached_target": run.reached if run.goals else None,  # null: there was no target to reach
        "strategy": solver.output_kind,
        ID_FIELD: game_identity(assembly.game),
        "interrupted": run.interrupted,
        **store_row,
        "saturated_values": solver.values.saturated_values(),
        "store_warnings": list(solver.store_warnings),
        "startup_seconds": run.startup,
        "compile_seconds": solver.compile_seconds,
        **solver.transport.report(),
    }
    if run.recoveries:
        summary["recoveries"] = run.recoveries
    summary["unit"] = getattr(assembly.game, "unit_name", "")
    summary.update(run.extra)
    return summary
