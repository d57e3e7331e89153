"""The solver loop: iterations, update order, evaluation schedule, metrics and outputs."""

from __future__ import annotations

import csv
import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .game import PassJob
from .store import Store
from .strategy_file import save_strategy

METRIC_COLUMNS = ("iteration", "seconds", "exploitability", "br_0", "br_1")
#: extra column for games measured in milli-big-blinds per game (poker)
MBB_COLUMN = "exploitability_mbb"


#: extra columns of ``[solver] eval_current``: the current strategy's exploitability
CURRENT_COLUMN = "exploitability_current"
CURRENT_MBB_COLUMN = "exploitability_current_mbb"


def metric_columns(game, eval_current: bool = False) -> tuple[str, ...]:
    """metrics.csv columns for `game`: the base columns, plus exploitability_mbb for poker, plus
    the current strategy's exploitability when asked for."""
    mbb = game.unit_name == "mbb/g"
    cols = METRIC_COLUMNS + ((MBB_COLUMN,) if mbb else ())
    if eval_current:
        cols += (CURRENT_COLUMN,) + ((CURRENT_MBB_COLUMN,) if mbb else ())
    return cols
POINTS_PER_DECADE = 20


def log_schedule(t: int) -> bool:
    """True at iterations 1..20 and then at about 20 log-spaced iterations per decade."""
    if t <= POINTS_PER_DECADE:
        return True
    return math.floor(POINTS_PER_DECADE * math.log10(t)) > math.floor(POINTS_PER_DECADE * math.log10(t - 1))


def exploitability(game, strategy) -> tuple[float, float, float]:
    """(exploitability, br_0, br_1) of a profile: exploitability = (br_0 + br_1) / 2."""
    br0, br1 = game.best_response(strategy)
    return (br0 + br1) / 2.0, br0, br1


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


def _warm_up_kernels():
    """Load the core kernels (compiled or from numba's cache) before any time is measured."""
    from .averaging import scaled_accumulate
    from .layout import Layout, policy
    from .rule import discounted_update

    a = np.zeros(2)
    policy(a, Layout.single(2))
    discounted_update(a, a.copy(), 1.0, 1.0, 0.0)
    scaled_accumulate(a, a.copy(), 1.0, 1.0)


class Solver:
    """Runs an assembly's iterations over a value store, one pass per update."""

    def __init__(self, assembly):
        self.assembly = assembly
        self.game = assembly.game
        self.alternating = assembly.solver["update"] == "alternating"
        self.store = Store(self.game.segments(assembly.averaging.keeps_average), assembly.compressor)
        self.transport = assembly.transport
        self.transport.start(self.game, self.store)
        _warm_up_kernels()
        self.game.warmup()
        self.iteration = 0
        self.solve_seconds = 0.0

    @property
    def eval_current(self) -> bool:
        """Whether evaluations also measure the current strategy (it differs from the output)."""
        return bool(self.assembly.solver.get("eval_current")) and self.output_kind == "average"

    @property
    def output_kind(self) -> str:
        return "average" if self.assembly.averaging.keeps_average else "current"

    def step(self) -> None:
        """One iteration: both players' updates, in turn or simultaneously."""
        t0 = time.perf_counter()
        self.iteration += 1
        a = self.assembly
        groups = ((0,), (1,)) if self.alternating else ((0, 1),)
        for players in groups:
            job = PassJob(self.iteration, players, a.rule, a.averaging)
            self.game.cfr_pass(self.store, job, self.transport)
        self.solve_seconds += time.perf_counter() - t0

    def strategy(self, kind: str | None = None):
        return self.game.strategy(self.store, kind or self.output_kind)

    def evaluate(self, exact: bool = False) -> dict:
        """Metrics row of the output strategy; `exact` skips the game's incremental fast path."""
        fast = None if exact else self.game.best_response_from_store(
            self.store, self.output_kind, transport=self.transport
        )
        if fast is None:
            expl, br0, br1 = exploitability(self.game, self.strategy())
        else:
            br0, br1 = fast
            expl = (br0 + br1) / 2.0
        row = {
            "iteration": self.iteration,
            "seconds": self.solve_seconds,
            "exploitability": expl,
            "br_0": br0,
            "br_1": br1,
        }
        if self.game.unit_name == "mbb/g":
            row[MBB_COLUMN] = expl * self.game.unit_scale
        if self.eval_current:
            cur = self.game.best_response_from_store(self.store, "current", transport=self.transport)
            cur_expl = (cur[0] + cur[1]) / 2.0 if cur is not None else exploitability(self.game, self.strategy("current"))[0]
            row[CURRENT_COLUMN] = cur_expl
            if self.game.unit_name == "mbb/g":
                row[CURRENT_MBB_COLUMN] = cur_expl * self.game.unit_scale
        return row

    def close(self):
        self.transport.close()


def run_solve(assembly, iterations=None, target=None, out=None, progress=False, on_metrics=None) -> Result:
    """Solve until `iterations` or `target` exploitability; write outputs to `out` if given."""
    cfg = assembly.solver
    iterations = int(iterations if iterations is not None else cfg["iterations"])
    target = float(target if target is not None else cfg["target"])
    every = cfg["eval_every"]
    target_mbb = float(cfg.get("target_mbb", 0.0))
    if out is not None:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        resolved = dict(assembly.resolved)
        resolved["solver"] = dict(resolved["solver"], iterations=iterations, target=target)
        (out / "config.toml").write_text(_toml(resolved))
    solver = Solver(assembly)
    metrics: list[dict] = []
    eval_current = bool(cfg.get("eval_current")) and assembly.averaging.keeps_average
    writer = _MetricsWriter(out / "metrics.csv", metric_columns(assembly.game, eval_current)) if out is not None else None
    bar = _progress(iterations) if progress else None
    reached = False
    interrupted = False
    row = None
    stop = _StopRequest()
    try:
        while solver.iteration < iterations:
            solver.step()
            if stop.requested:
                interrupted = True
            t = solver.iteration
            due = (t % every == 0) if every else log_schedule(t)
            if due or t == iterations:
                row = solver.evaluate()
                metrics.append(row)
                if writer:
                    writer.write(row)
                if on_metrics:
                    on_metrics(row)
                if bar is not None:
                    bar.set_postfix_str(f"exploitability={row['exploitability']:.3e}", refresh=False)
                if target > 0 and row["exploitability"] <= target:
                    reached = True
                if target_mbb > 0 and row.get(MBB_COLUMN, float("inf")) <= target_mbb:
                    reached = True
            if bar is not None:
                bar.update(1)
            if reached or interrupted:
                break
        if row is None or row["iteration"] != solver.iteration:
            row = solver.evaluate(exact=True)
            metrics.append(row)
            if writer:
                writer.write(row)
        else:
            # the reported result is always recomputed from the strategy itself
            row = dict(row, **{k: v for k, v in solver.evaluate(exact=True).items() if k != "seconds"})
        strategy = solver.strategy()
        if out is not None:
            layouts = [assembly.game.layout(p) for p in (0, 1)]
            save_strategy(out / "strategy.npz", strategy, layouts, solver.output_kind, solver.iteration, assembly.resolved["game"])
            summary = {
                "iterations": solver.iteration,
                "exploitability": row["exploitability"],
                "br_0": row["br_0"],
                "br_1": row["br_1"],
                "value_bounds": [-row["br_1"], row["br_0"]],
                "seconds": solver.solve_seconds,
                "target": target,
                **({"target_mbb": target_mbb} if target_mbb > 0 else {}),
                **({MBB_COLUMN: row[MBB_COLUMN]} if MBB_COLUMN in row else {}),
                "reached_target": reached,
                "strategy": solver.output_kind,
                "interrupted": interrupted,
            }
            (out / "result.json").write_text(json.dumps(summary, indent=2) + "\n")
    finally:
        stop.restore()
        if bar is not None:
            bar.close()
        if writer:
            writer.close()
        solver.close()
    return Result(
        iterations=solver.iteration,
        exploitability=row["exploitability"],
        br=(row["br_0"], row["br_1"]),
        seconds=solver.solve_seconds,
        reached_target=reached,
        metrics=metrics,
        interrupted=interrupted,
        strategy=strategy,
        out=out,
    )


class _StopRequest:
    """SIGINT/SIGTERM ask the loop to stop after the current iteration and save its outputs;
    a second SIGINT interrupts at once."""

    def __init__(self):
        import signal
        import threading

        self.requested = False
        self._old = {}
        if threading.current_thread() is not threading.main_thread():
            return
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._old[sig] = signal.getsignal(sig)
            signal.signal(sig, self._handle)

    def _handle(self, signum, frame):
        import signal

        if self.requested and signum == signal.SIGINT:
            raise KeyboardInterrupt
        self.requested = True

    def restore(self):
        import signal

        for sig, handler in self._old.items():
            signal.signal(sig, handler)
        self._old = {}


def _toml(table):
    import tomli_w

    return tomli_w.dumps(table)


def _progress(total):
    from tqdm import tqdm

    return tqdm(total=total, unit="it", dynamic_ncols=True, mininterval=0.5)


class _MetricsWriter:
    """metrics.csv, flushed after every row so an interrupted run keeps what it measured."""

    def __init__(self, path, columns=METRIC_COLUMNS):
        self.fh = open(path, "w", newline="")
        self.csv = csv.DictWriter(self.fh, fieldnames=columns)
        self.csv.writeheader()

    def write(self, row):
        self.csv.writerow({k: (repr(v) if isinstance(v, float) else v) for k, v in row.items()})
        self.fh.flush()

    def close(self):
        self.fh.close()
