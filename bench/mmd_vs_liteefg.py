"""solverkit's magnetic mirror descent (rule ``mmd``) against LiteEFG's MMD with counterfactual
feedback, the same algorithm written independently: NashConv of the current strategy after the
same iterations on Kuhn and Leduc. LiteEFG runs in its own interpreter (``--liteefg-python``: a
venv with LiteEFG installed, e.g. ``python -m venv /tmp/lvenv && /tmp/lvenv/bin/pip install
LiteEFG``).

    python bench/mmd_vs_liteefg.py [--iterations 1000] [--eta 2 --tau 0.01]
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time

from common import md_table, write_results

LITEEFG_PYTHON = "/tmp/lvenv/bin/python"
GAMES = {"kuhn": "kuhn_poker", "leduc": "leduc_poker"}

#: run in LiteEFG's interpreter: argv game, eta, tau, checkpoints; prints JSON {iteration: NashConv}
LITEEFG_SCRIPT = r"""
import sys, io, json, contextlib
import LiteEFG as leg, pyspiel
from LiteEFG.baselines.MMD import graph
game, eta, tau, checks = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), [int(x) for x in sys.argv[4].split(",")]
quiet = contextlib.redirect_stdout(io.StringIO())
with quiet:
    leg.set_threads(1)
    g = graph(eta=eta, tau=tau, feedback="counterfactual")
    env = leg.OpenSpielEnv(pyspiel.load_game(game), traverse_type="Enumerate", regenerate=False)
    env.set_graph(g)
out = {}
for i in range(1, max(checks) + 1):
    with contextlib.redirect_stdout(io.StringIO()):
        g.update_graph(env)
        env.update_strategy(g.current_strategy(), update_best=False)
        if i in checks:
            out[i] = sum(env.exploitability(g.current_strategy(), "last-iterate"))
print(json.dumps(out))
"""


def solverkit_nash_conv(game: str, eta: float, tau: float, checks: list[int]) -> dict[int, float]:
    """NashConv (twice solverkit's exploitability: two players) of the current strategy at each check."""
    from solverkit.core.config import load_config
    from solverkit.core.solver import Solver
    s = Solver(load_config({"preset": "mmd", "game": game, "rule": {"name": "mmd", "eta": eta, "tau": tau}}))
    out, done = {}, 0
    try:
        for k in checks:
            s.step(k - done)
            done = k
            out[k] = 2.0 * s.evaluate()["exploitability"]
    finally:
        s.close()
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--eta", type=float, default=2.0)
    ap.add_argument("--tau", type=float, default=0.01)
    ap.add_argument("--liteefg-python", default=LITEEFG_PYTHON)
    args = ap.parse_args(argv)
    checks = [k for k in (1, 10, 100, 1000, 10000) if k < args.iterations] + [args.iterations]
    rows, result = [], {"eta": args.eta, "tau": args.tau, "checks": checks, "games": {}}
    t0 = time.perf_counter()
    for key, spec in GAMES.items():
        lite = subprocess.run([args.liteefg_python, "-c", LITEEFG_SCRIPT, spec, str(args.eta), str(args.tau),
                               ",".join(map(str, checks))], capture_output=True, text=True, check=True)
        theirs = {int(k): v for k, v in json.loads(lite.stdout.strip().splitlines()[-1]).items()}
        ours = solverkit_nash_conv(key, args.eta, args.tau, checks)
        result["games"][key] = {"liteefg": theirs, "solverkit": ours}
        for k in checks:
            rel = abs(ours[k] - theirs[k]) / abs(theirs[k])
            rows.append([key, k, f"{theirs[k]:.12g}", f"{ours[k]:.12g}", f"{rel:.1e}"])
    text = "\n".join([
        "# Magnetic mirror descent: solverkit's `mmd` against LiteEFG's MMD (counterfactual feedback)", "",
        f"`python bench/mmd_vs_liteefg.py --iterations {args.iterations} --eta {args.eta} --tau {args.tau}` on "
        f"{platform.machine()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {time.perf_counter() - t0:.0f} s. "
        "Both update both players at once and report the current strategy's NashConv (chips, the two best-response "
        "gains summed); LiteEFG's `MMD(eta, tau, feedback=\"counterfactual\")` runs in its own interpreter.", "",
        *md_table(["game", "iteration", "LiteEFG NashConv", "solverkit NashConv", "relative difference"], rows), "",
    ])
    print(text)
    print("wrote", write_results("mmd_vs_liteefg", result, text))


if __name__ == "__main__":
    sys.exit(main())
