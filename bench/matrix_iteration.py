"""Cost of one CFR iteration on a random matrix game, as a multiple of two BLAS products.

A matrix-game iteration cannot do less than one product A y and one product x A (which is what
the alternating CFR+ passes compute), so the peer of an iteration is those two products timed
in the same process, on the same matrix, interleaved round by round with the iterations:

    ratio = median(Solver.step) / median(A @ y; x @ A)

The issue's goal is ratio <= ~1.2 for CFR+ on a 1000 x 1000 game. Also timed: a CFR iteration
(rm + uniform + simultaneous), the two products into preallocated outputs (``np.dot(..., out=)``,
the form the passes use), and an evaluation of the average strategy through the game's fast path
(``Solver.evaluate()``) and exactly (``Solver.evaluate(exact=True)``: two more products).

Each configuration runs with OpenBLAS's default thread count and with one BLAS thread
(threadpoolctl). Results: bench/results/matrix_iteration.json and .md; the table is printed.

    python bench/matrix_iteration.py                  # sizes 1000 and 2000, both thread settings
    python bench/matrix_iteration.py --sizes 1000 --threads 1 --rounds 500
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import sys
import time
from contextlib import nullcontext
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).resolve().parent / "results"
WARMUP_ITERATIONS = 20


def _solver(preset: str, n: int, seed: int):
    from solverkit.core.config import load_config
    from solverkit.core.solver import Solver

    assembly = load_config({"preset": preset, "game": {"name": "random_matrix", "rows": n, "cols": n, "seed": seed}})
    solver = Solver(assembly)
    for _ in range(WARMUP_ITERATIONS):
        solver.step()
    return solver


def _profile(solver):
    """The current profile (x, y) of a solver: realistic vectors for the reference products."""
    x, y = solver.strategy("current")
    return np.ascontiguousarray(x), np.ascontiguousarray(y)


def _interleaved(ops: dict, rounds: int, every: dict | None = None) -> dict[str, list[float]]:
    """Time each op once per round, in turn, so that drift and noise from other processes fall on
    all of them alike. ``every[name] = k`` times that op only every k-th round."""
    every = every or {}
    samples = {name: [] for name in ops}
    clock = time.perf_counter
    gc.collect()
    gc.disable()
    try:
        for r in range(rounds):
            for name, op in ops.items():
                if r % every.get(name, 1):
                    continue
                t0 = clock()
                op()
                samples[name].append(clock() - t0)
    finally:
        gc.enable()
    return samples


def _summary(samples: list[float]) -> dict:
    us = sorted(s * 1e6 for s in samples)
    return {
        "median_us": statistics.median(us),
        "min_us": us[0],
        "p25_us": us[len(us) // 4],
        "p75_us": us[(3 * len(us)) // 4],
        "samples": len(us),
    }


def _paired_ratio(num: list[float], den: list[float]) -> float:
    """Median of per-round ratios: robust to slow drift of the machine's speed."""
    return statistics.median(a / b for a, b in zip(num, den))


def measure(n: int, rounds: int, seed: int = 0) -> dict:
    """All timings of one matrix size under the BLAS thread setting currently in force."""
    out = {"size": n}
    # CFR+ block: the iteration, the reference products, and both evaluations
    solver = _solver("cfr_plus", n, seed)
    A = solver.game.matrix
    x, y = _profile(solver)
    u, v = np.empty(n), np.empty(n)

    def matvecs():
        A @ y
        x @ A

    def matvecs_out():
        np.dot(A, y, out=u)
        np.dot(x, A, out=v)

    s = _interleaved(
        {
            "matvecs": matvecs,
            "cfr_plus": solver.step,
            "matvecs_out": matvecs_out,
            "eval_fast": solver.evaluate,
            "eval_exact": lambda: solver.evaluate(exact=True),
        },
        rounds,
        every={"eval_fast": 4, "eval_exact": 4},
    )
    fast = solver.game.best_response_from_store(solver.store, solver.output_kind)
    exact = solver.evaluate(exact=True)
    out["fast_eval_available"] = fast is not None
    if fast is not None:
        out["fast_eval_max_abs_error"] = max(abs(fast[0] - exact["br_0"]), abs(fast[1] - exact["br_1"]))
    for name, samples in s.items():
        out[name] = _summary(samples)
    out["cfr_plus_paired_ratio"] = _paired_ratio(s["cfr_plus"], s["matvecs"])
    solver.close()
    del solver, A
    # CFR block (rm + uniform + simultaneous), against its own reference products
    solver = _solver("cfr", n, seed)
    A = solver.game.matrix
    x, y = _profile(solver)
    s = _interleaved({"matvecs": matvecs, "cfr": solver.step}, rounds)
    out["cfr"] = _summary(s["cfr"])
    out["cfr_matvecs"] = _summary(s["matvecs"])
    out["cfr_paired_ratio"] = _paired_ratio(s["cfr"], s["matvecs"])
    solver.close()

    ref = out["matvecs"]["median_us"]
    out["ratio"] = {
        "cfr_plus": out["cfr_plus"]["median_us"] / ref,
        "cfr": out["cfr"]["median_us"] / out["cfr_matvecs"]["median_us"],
        "matvecs_out": out["matvecs_out"]["median_us"] / ref,
        "eval_fast": out["eval_fast"]["median_us"] / ref,
        "eval_exact": out["eval_exact"]["median_us"] / ref,
    }
    return out


def _blas_info() -> list[dict]:
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return []
    keep = ("internal_api", "num_threads", "version", "architecture", "filepath")
    return [{k: d.get(k) for k in keep} for d in threadpool_info() if d.get("user_api") == "blas"]


def _thread_limit(setting: str):
    """Context that applies a BLAS thread setting: 'default' leaves OpenBLAS as it is."""
    if setting == "default":
        return nullcontext()
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=int(setting), user_api="blas")


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def markdown(results: dict) -> str:
    lines = [
        "# Matrix-game iteration vs two BLAS products",
        "",
        f"{results['machine']['cpu']}, {results['machine']['cpus']} CPUs; "
        f"numpy {results['machine']['numpy']}; {results['command']}",
        "",
        "Times are medians in microseconds over interleaved rounds; each ratio divides by "
        "`A @ y; x @ A` timed in the same rounds (CFR by its own reference block).",
        "",
        "| n | BLAS threads | A@y + x@A (us) | CFR+ step (us) | CFR+ ratio | CFR+ paired ratio "
        "| CFR step (us) | CFR ratio | eval fast (us) | eval exact (us) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results["runs"]:
        lines.append(
            f"| {r['size']} | {r['blas_threads']} | {r['matvecs']['median_us']:.0f} "
            f"| {r['cfr_plus']['median_us']:.0f} | {r['ratio']['cfr_plus']:.3f} | {r['cfr_plus_paired_ratio']:.3f} "
            f"| {r['cfr']['median_us']:.0f} | {r['ratio']['cfr']:.3f} "
            f"| {r['eval_fast']['median_us']:.0f} | {r['eval_exact']['median_us']:.0f} |"
        )
    lines.append("")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000], help="n of the n x n games")
    ap.add_argument("--threads", nargs="+", default=["default", "1"], help="BLAS thread settings: 'default' or a count")
    ap.add_argument("--rounds", type=int, default=1000, help="rounds at n = 1000 (scaled by (1000/n)^2, at least 60)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the random games")
    ap.add_argument("--out", type=Path, default=RESULTS, help="folder for matrix_iteration.json and .md")
    args = ap.parse_args(argv)

    runs = []
    for setting in args.threads:
        with _thread_limit(setting):
            blas = _blas_info()
            threads = blas[0]["num_threads"] if blas else None
            for n in args.sizes:
                rounds = max(60, int(args.rounds * (1000 / n) ** 2))
                r = measure(n, rounds, args.seed)
                r["blas_threads"] = f"{setting} ({threads})" if setting == "default" else setting
                r["blas"] = blas
                runs.append(r)
                print(
                    f"n={n} threads={r['blas_threads']}: matvecs {r['matvecs']['median_us']:.0f} us, "
                    f"CFR+ {r['cfr_plus']['median_us']:.0f} us (x{r['ratio']['cfr_plus']:.3f}), "
                    f"CFR {r['cfr']['median_us']:.0f} us (x{r['ratio']['cfr']:.3f})",
                    file=sys.stderr,
                )
    results = {
        "bench": "matrix_iteration",
        "command": "python " + " ".join([Path(sys.argv[0]).as_posix(), *(argv if argv is not None else sys.argv[1:])]),
        "machine": {
            "cpu": _cpu_model(),
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "numpy": np.__version__,
            "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        },
        "runs": runs,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "matrix_iteration.json").write_text(json.dumps(results, indent=2) + "\n")
    table = markdown(results)
    (args.out / "matrix_iteration.md").write_text(table)
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
