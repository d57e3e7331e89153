"""What the benches share: interleaved block timing of several solvers, markdown tables, and the
result files (bench/results/<stem>.json and .md), so each bench script holds only its own measurement."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable, Iterable
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
CONFIGS = Path(__file__).resolve().parent.parent / "configs"


def repeated(step: Callable[[], object]) -> Callable[[int], None]:
    """A block runner of a one-iteration call (e.g. OpenSpiel's ``evaluate_and_update_policy``)."""

    def run(n: int) -> None:
        for _ in range(n):
            step()

    return run


def interleave(runs: dict[str, Callable[[int], object]], iterations: int, block: int,
               done: int = 0) -> dict[str, list[tuple[float, int]]]:
    """Blocks of iterations of each run in turn, from `done` to `iterations`, so that background load
    falls on all alike: each run's (wall seconds, iterations) per block."""
    blocks: dict[str, list[tuple[float, int]]] = {k: [] for k in runs}
    while done < iterations:
        n = min(block, iterations - done)
        for key, run in runs.items():
            t0 = time.perf_counter()
            run(n)
            blocks[key].append((time.perf_counter() - t0, n))
        done += n
    return blocks


def step_ab_parser(doc: str, results: str, iterations: int) -> argparse.ArgumentParser:
    """The options of a same-process A/B of solvers stepped one iteration each in turn (a spot
    config, its overrides, untimed and timed iterations, the results stem): :func:`step_ab`."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--config", default=str(CONFIGS / "spot_preset.toml"))
    ap.add_argument("--set", dest="overrides", action="append", default=[], help="SECTION.PARAM=VALUE")
    ap.add_argument("--warm", type=int, default=3, help="untimed iterations first (kernels loaded, regrets filled)")
    ap.add_argument("--iterations", type=int, default=iterations, help="timed iterations of each solver")
    ap.add_argument("--results", default=results)
    return ap


def step_ab(solvers: dict, warm: int, iterations: int) -> tuple[dict[str, dict[str, float]], tuple, tuple]:
    """`warm` untimed iterations of each solver, then `iterations` of one iteration each in turn (the
    order alternating, so background load falls on all alike): per solver the min and median wall
    and CPU seconds of an iteration, and the load averages before and after."""
    for s in solvers.values():
        s.step(warm)
    wall: dict[str, list[float]] = {k: [] for k in solvers}
    cpu: dict[str, list[float]] = {k: [] for k in solvers}
    load0 = os.getloadavg()
    for i in range(iterations):
        for k in (list(solvers) if i % 2 == 0 else list(reversed(solvers))):
            t, c = time.perf_counter(), time.process_time()
            solvers[k].step(1)
            wall[k].append(time.perf_counter() - t)
            cpu[k].append(time.process_time() - c)
    times = {k: {"wall_min": min(wall[k]), "wall_median": statistics.median(wall[k]), "cpu_min": min(cpu[k]),
                 "cpu_median": statistics.median(cpu[k])} for k in solvers}
    return times, load0, os.getloadavg()


def medians(blocks: dict[str, list[tuple[float, int]]]) -> dict[str, float]:
    """Each run's median seconds per iteration over its blocks."""
    return {k: statistics.median(s / n for s, n in v) for k, v in blocks.items()}


def openspiel_policy(pyspiel, table: dict):
    """A pyspiel.TabularPolicy of a strategy table {information state: {action: probability}}."""
    return pyspiel.TabularPolicy({k: list(v.items()) for k, v in table.items()})


def md_row(cells: Iterable[object]) -> str:
    """One markdown table line, each cell as str() writes it between single spaces; None, a cell left
    blank, is written ``| |``."""
    return "|" + "".join(" |" if c is None else f" {c} |" for c in cells)


def md_table(columns: list[str], rows: Iterable[Iterable[object]]) -> list[str]:
    """The lines of a markdown table: the header, its rule, then a line a row."""
    return [md_row(columns), "|" + "---|" * len(columns), *(md_row(row) for row in rows)]


def write_results(stem: str, result: dict, text: str) -> Path:
    """bench/results/<stem>.json (the result) and <stem>.md (its markdown); the .md's path."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{stem}.json").write_text(json.dumps(result, indent=2) + "\n")
    md = RESULTS / f"{stem}.md"
    md.write_text(text)
    return md
