"""Monte-Carlo CFR on Leduc hold'em: solverkit's samplers against OpenSpiel's C++ solvers.

External sampling (solverkit ``[sampler] name = "external"``, rule ``rm``, ``uniform`` averaging,
alternating updates) against ``pyspiel.ExternalSamplingMCCFRSolver`` (simple averaging), and
outcome sampling (epsilon 0.6) against ``pyspiel.OutcomeSamplingMCCFRSolver``, in this process,
interleaved in blocks so that background load falls on both alike. Per seed: microseconds per
iteration, exploitability after the same number of iterations, and solverkit's exploitability
after the wall time OpenSpiel took for them. solverkit runs OpenSpiel's own leduc_poker through
its ``openspiel`` game (the same tree); exploitability is each program's own (OpenSpiel's
``pyspiel.exploitability``, solverkit's best response), cross-checked once by handing solverkit's
average strategy to ``pyspiel.exploitability``. solverkit iterations go through ``Solver.step``,
which runs a block of sampled iterations in one kernel call.

    python bench/mccfr_vs_openspiel.py [--iterations 20000] [--seeds 5] [--block 2000]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

from common import interleave, md_table, medians, repeated, write_results



def _solverkit(scheme, seed):
    from solverkit.core.config import load_config
    from solverkit.core.solver import Solver

    sampler = {"name": scheme, "epsilon": 0.6} if scheme == "outcome" else {"name": scheme}
    asm = load_config({"game": {"name": "openspiel", "game": "leduc_poker"}, "rule": "rm", "averaging": "uniform",
                       "sampler": sampler, "solver": {"update": "alternating", "seed": seed}})
    return Solver(asm)


def _openspiel(pyspiel, game, scheme, seed):
    if scheme == "external":
        return pyspiel.ExternalSamplingMCCFRSolver(game, seed=seed, avg_type=pyspiel.MCCFRAverageType.SIMPLE)
    return pyspiel.OutcomeSamplingMCCFRSolver(game, epsilon=0.6, seed=seed)


def run_pair(pyspiel, game, scheme, seed, iterations, block):
    """One seed: both solvers for `iterations`, interleaved; then solverkit alone for the wall
    time OpenSpiel took. Returns a dict of the measurements."""
    ours, theirs = _solverkit(scheme, seed), _openspiel(pyspiel, game, scheme, seed)
    blocks = interleave({"openspiel": repeated(theirs.run_iteration), "solverkit": ours.step}, iterations, block)
    t_os, t_sk = (sum(s for s, _ in blocks[k]) for k in ("openspiel", "solverkit"))
    per_it = medians(blocks)
    os_expl = pyspiel.exploitability(game, theirs.average_policy())
    sk_expl = ours.evaluate(exact=True)["exploitability"]
    at_iterations = ours.iteration
    # equal wall time: solverkit goes on until it has spent what OpenSpiel spent
    while t_sk < t_os:
        n = max(1, min(block, int((t_os - t_sk) / max(per_it["solverkit"], 1e-9))))
        t0 = time.perf_counter()
        ours.step(n)
        t_sk += time.perf_counter() - t0
    row = {
        "seed": seed,
        "openspiel_us_per_iteration": per_it["openspiel"] * 1e6,
        "solverkit_us_per_iteration": per_it["solverkit"] * 1e6,
        "openspiel_exploitability": os_expl,
        "solverkit_exploitability": sk_expl,
        "solverkit_iterations_in_equal_time": ours.iteration,
        "solverkit_exploitability_equal_time": ours.evaluate(exact=True)["exploitability"],
        "nodes_touched_per_iteration": ours.nodes_touched / ours.iteration,
    }
    assert at_iterations == iterations
    return row, ours


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=20000)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--block", type=int, default=2000)
    args = ap.parse_args(argv)

    import pyspiel

    game = pyspiel.load_game("leduc_poker")
    result = {
        "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
        "machine": platform.processor() or platform.machine(),
        "iterations": args.iterations,
        "schemes": {},
    }
    for scheme in ("external", "outcome"):
        rows = []
        for seed in range(1, args.seeds + 1):
            row, solver = run_pair(pyspiel, game, scheme, seed, args.iterations, args.block)
            rows.append(row)
            if seed == 1:  # solverkit's strategy judged by OpenSpiel's own exploitability
                strategy = solver.strategy()
                table = solver.game.openspiel_table(strategy)
                policy = {key: sorted(probs.items()) for key, probs in table.items()}
                cross = (pyspiel.exploitability(game, policy), solver.evaluate(exact=True)["exploitability"])
            solver.close()
        summary = {k: statistics.mean(r[k] for r in rows) for k in rows[0] if k != "seed"}
        summary["speedup"] = summary["openspiel_us_per_iteration"] / summary["solverkit_us_per_iteration"]
        summary["cross_check_seed1"] = {"pyspiel_exploitability_of_solverkit_strategy": cross[0],
                                        "solverkit_exploitability": cross[1]}
        result["schemes"][scheme] = {"seeds": rows, "mean": summary}
    text = _markdown(result, args)
    write_results("mccfr_vs_openspiel", result, text)
    print(text)


def _markdown(result, args) -> str:
    lines = [
        "# Monte-Carlo CFR on Leduc hold'em: solverkit vs OpenSpiel C++",
        "",
        f"`python bench/{result['command']}`: {args.iterations} iterations per seed, seeds 1..{args.seeds} "
        f"(means over seeds), timings medians of blocks of {args.block} iterations, both interleaved in one process "
        f"({result['machine']}). Exploitability in chips, (br_0 + br_1) / 2.",
        "",
    ]
    names = {"external": "ExternalSamplingMCCFRSolver (simple averaging)", "outcome": "OutcomeSamplingMCCFRSolver (eps 0.6)"}
    rows = []
    for scheme, data in result["schemes"].items():
        m = data["mean"]
        rows.append([scheme, f"OpenSpiel {names[scheme]}", f"{m['openspiel_us_per_iteration']:.1f}", 1,
                     f"{m['openspiel_exploitability']:.4f}", args.iterations, f"{m['openspiel_exploitability']:.4f}"])
        rows.append([scheme, f"solverkit `{scheme}` sampler, rm, uniform", f"{m['solverkit_us_per_iteration']:.1f}",
                     f"{m['speedup']:.1f}", f"{m['solverkit_exploitability']:.4f}",
                     f"{m['solverkit_iterations_in_equal_time']:.0f}", f"{m['solverkit_exploitability_equal_time']:.4f}"])
    lines += md_table(["sampler", "program", "us / iteration", "speed-up", f"exploitability after {args.iterations} it.",
                       "iterations in OpenSpiel's time", "exploitability after OpenSpiel's time"], rows)
    lines += ["", "Per seed (exploitability after the same iterations, OpenSpiel / solverkit):", ""]
    for scheme, data in result["schemes"].items():
        per = ", ".join(f"{r['openspiel_exploitability']:.3f} / {r['solverkit_exploitability']:.3f}" for r in data["seeds"])
        cc = data["mean"]["cross_check_seed1"]
        lines.append(f"- {scheme}: {per}; seed 1's solverkit strategy: pyspiel.exploitability "
                     f"{cc['pyspiel_exploitability_of_solverkit_strategy']:.6f}, solverkit {cc['solverkit_exploitability']:.6f}; "
                     f"{data['mean']['nodes_touched_per_iteration']:.1f} nodes touched per iteration")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
