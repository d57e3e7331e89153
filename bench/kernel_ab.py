"""The poker kernels of a git revision against the working tree's, in one process (issue 25): whole
iterations (dfs_block, both passes, one thread) interleaved on the same spot and values, minimum
times and their ratio, and whether both give the same doubles (regrets, averages, root values).

    python bench/kernel_ab.py --base HEAD~1                 # the preset, 156M values
    python bench/kernel_ab.py --base HEAD~1 --set game.board=QsJh2h8d --repeats 9

The revision's solverkit/poker/{kernels,sweep_kernels,terminal_kernels}.py and core/arith.py are
copied under other module names into a temporary folder (their relative imports made absolute), so
both versions compile side by side; each keeps its own numba cache there. Two shared cores: the
minimum over interleaved repeats is the figure to read, with the load printed beside it.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

#: module -> its file in the repository; the copies are named base_<module>
_MODULES = {"arith": "solverkit/core/arith.py", "sweep_kernels": "solverkit/poker/sweep_kernels.py",
            "terminal_kernels": "solverkit/poker/terminal_kernels.py", "kernels": "solverkit/poker/kernels.py"}


def export_base(rev: str, folder: Path, tag: str) -> str:
    """Copy revision `rev`'s kernel modules into `folder` as base<tag>_<name>; the kernels module's name."""
    for name, path in _MODULES.items():
        text = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout
        for other in _MODULES:
            text = re.sub(rf"from \.+(core\.)?{other} import", f"from base{tag}_{other} import", text)
        text = re.sub(r"from \.\.core\.", "from solverkit.core.", text)
        text = re.sub(r"from \.\.(\w+) import", r"from solverkit.\1 import", text)
        package = os.path.dirname(path).replace("/", ".")
        text = re.sub(r"from \.(\w+) import", rf"from {package}.\1 import", text)
        (folder / f"base{tag}_{name}.py").write_text(text)
    return f"base{tag}_kernels"


def state(bench):
    """Copies of the arrays a pass changes (regrets, averages) and the root values."""
    return [a.copy() for a in bench.reg + bench.avg] + [bench.B.out_cfv.copy()]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="git revision whose kernels are the baseline")
    ap.add_argument("--config", default="configs/spot_preset.toml")
    ap.add_argument("--set", dest="overrides", action="append", default=[], help="SECTION.PARAM=VALUE")
    ap.add_argument("--warm", type=int, default=3, help="iterations before timing (regrets fill in)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--folder", type=Path, help="where the copies go (default: a folder under the temp dir)")
    args = ap.parse_args(argv)
    import importlib

    from kernel_profile import Bench

    from solverkit.poker import kernels

    folder = args.folder or Path(tempfile.gettempdir()) / "solverkit_kernel_ab"
    folder.mkdir(parents=True, exist_ok=True)
    tag = re.sub(r"\W", "_", subprocess.run(["git", "rev-parse", "--short", args.base], cwd=ROOT, capture_output=True,
                                            text=True, check=True).stdout.strip())
    sys.path.insert(0, str(folder))
    base = importlib.import_module(export_base(args.base, folder, tag))
    bench = Bench(str(ROOT / args.config) if not os.path.isabs(args.config) else args.config, args.overrides,
                  args.warm)
    try:
        # the same doubles: one iteration of each from the same arrays
        start = state(bench)
        outs = {}
        for name, kern in (("base", base.dfs_block), ("new", kernels.dfs_block)):
            for a, s in zip(bench.reg + bench.avg + [bench.B.out_cfv], start):
                a[...] = s
            bench.block(kern)
            outs[name] = state(bench)
        same = all(np.array_equal(x.view(np.uint64), y.view(np.uint64)) for x, y in zip(outs["base"], outs["new"]))
        fns = {"base": lambda: bench.block(base.dfs_block), "new": lambda: bench.block(kernels.dfs_block)}
        wall = dict.fromkeys(fns, float("inf"))
        cpu = dict.fromkeys(fns, float("inf"))
        for _ in range(args.repeats):
            for k, f in fns.items():
                t, c = time.perf_counter(), time.process_time()
                f()
                wall[k] = min(wall[k], time.perf_counter() - t)
                cpu[k] = min(cpu[k], time.process_time() - c)
        load = os.getloadavg()[0]
        print(f"{bench.values:,} values, base {args.base} ({tag}); load {load:.2f}; bit-identical: {same}")
        for k in fns:
            print(f"  {k:5s} {wall[k]:.3f} s wall, {cpu[k]:.3f} CPU-s an iteration (min of {args.repeats})")
        print(f"  ratio new / base: wall {wall['new'] / wall['base']:.3f}, CPU {cpu['new'] / cpu['base']:.3f}")
    finally:
        bench.close()


if __name__ == "__main__":
    main()
