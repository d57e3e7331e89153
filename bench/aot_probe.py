"""Issue 30's memory question, measured: what of numba's import is LLVM, and what a kernel compiled
ahead of time (numba.pycc) costs to import and run without numba. An investigation, not an engine.

1. RSS after each step of ``import numba`` (python, numpy, llvmlite's LLVM library, numba), and the
   LLVM library's own mapping (shared clean pages: its code and read-only data; private dirty).
2. ``numba.pycc`` builds solverkit.core.arith.regret_matching into an extension module; a child
   process imports numpy and that module only: import time, peak RSS, whether numba or llvmlite
   got imported, the same doubles as the JIT kernel, time per call beside it.
3. With ``--pass``: the same for a real pass kernel (solverkit.poker.kernels.dfs_pass, nine
   namedtuple/array arguments, the signature a warm Kuhn solve loads), run inside a Kuhn and a
   Leduc solve in place of numba's: the outputs compared byte for byte.

Results: bench/results/aot_probe.{json,md} (bench/aot_memory.py measures the solves without numba).

    python bench/aot_probe.py [--pass] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"

STEPS = """
import json, re, collections
def rss():
    return [int(l.split()[1]) / 1024 for l in open("/proc/self/status") if l.startswith("VmRSS")][0]
rows = [("python", rss())]
import numpy
rows.append(("+ numpy", rss()))
import llvmlite.binding as ll
rows.append(("+ llvmlite.binding (the LLVM library loaded)", rss()))
ll.initialize_native_target(); ll.initialize_native_asmprinter()
rows.append(("+ LLVM's native target initialised", rss()))
import numba
rows.append(("+ numba", rss()))
from numba.core.registry import cpu_target
cpu_target.target_context.codegen()
rows.append(("+ numba's CPU target and code generator", rss()))
llvm = collections.Counter(); cur = None
for line in open("/proc/self/smaps"):
    if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
        parts = line.split(); cur = parts[5] if len(parts) > 5 else ""
    elif "libllvmlite" in (cur or "") and ":" in line:
        key, value = line.split(":", 1)
        if key in ("Rss", "Shared_Clean", "Private_Dirty", "Size"):
            llvm[key] += int(value.split()[0]) / 1024
print(json.dumps({"steps": rows, "libllvmlite": dict(llvm)}))
"""

BUILD = """
import sys, time, warnings
warnings.simplefilter("ignore")
from numba.pycc import CC
from solverkit.core.arith import regret_matching
t = time.perf_counter()
cc = CC("sk_aot_rm"); cc.output_dir = sys.argv[1]; cc.target_cpu = "host"
cc.export("regret_matching", "void(f8[::1], i8[::1], i8[::1], i8[::1], f8[::1])")(regret_matching.py_func)
cc.compile()
print(time.perf_counter() - t)
"""

USE = """
import sys, time
t0 = time.perf_counter()
import numpy as np
t1 = time.perf_counter()
import sk_aot_rm
t2 = time.perf_counter()
v = np.sin(np.arange(3000) * 0.7); bs = np.array([0, 1200]); bc = np.array([400, 450]); ba = np.array([3, 4])
out = np.empty(3000)
t3 = time.perf_counter()
sk_aot_rm.regret_matching(v, bs, bc, ba, out)
t4 = time.perf_counter()
peak = [int(l.split()[1]) / 1024 for l in open("/proc/self/status") if l.startswith("VmHWM")][0]
import json
print(json.dumps({"numpy_s": t1 - t0, "import_s": t2 - t1, "first_call_s": t4 - t3, "peak_rss_mb": peak,
                  "numba_imported": "numba" in sys.modules, "llvmlite_imported": "llvmlite" in sys.modules,
                  "out": out.tobytes().hex()}))
"""

JIT = """
import sys, time, json, timeit
import numpy as np
from solverkit.core.config import load_config  # noqa: F401 (the cache loads a solve makes)
from solverkit.core.numba_load import light_cache_loads
light_cache_loads()
from solverkit.core.arith import regret_matching
sys.path.insert(0, sys.argv[1])
import sk_aot_rm
v = np.sin(np.arange(3000) * 0.7); bs = np.array([0, 1200]); bc = np.array([400, 450]); ba = np.array([3, 4])
a = np.empty(3000); b = np.empty(3000)
regret_matching(v, bs, bc, ba, a); sk_aot_rm.regret_matching(v, bs, bc, ba, b)
jit = min(timeit.repeat(lambda: regret_matching(v, bs, bc, ba, a), number=2000, repeat=5)) / 2000
aot = min(timeit.repeat(lambda: sk_aot_rm.regret_matching(v, bs, bc, ba, b), number=2000, repeat=5)) / 2000
peak = [int(l.split()[1]) / 1024 for l in open("/proc/self/status") if l.startswith("VmHWM")][0]
print(json.dumps({"jit_call_s": jit, "aot_call_s": aot, "out": a.tobytes().hex(), "peak_rss_mb": peak}))
"""

PASS_BUILD = """
import sys, time, warnings
warnings.simplefilter("ignore")
from solverkit.core.config import load_config
from solverkit.core.solver import run_solve
run_solve(load_config({"preset": "cfr_plus", "game": "kuhn", "solver": {"iterations": 1}}))
from solverkit.poker.kernels import dfs_pass
from numba.core import types
from numba.pycc import CC
t = time.perf_counter()
cc = CC("sk_aot_pass"); cc.output_dir = sys.argv[1]; cc.target_cpu = "host"
cc.export("dfs_pass", types.none(*dfs_pass.signatures[0]))(dfs_pass.py_func)
cc.compile()
print(time.perf_counter() - t)
"""

PASS_RUN = """
import sys, json, pathlib
sys.path.insert(0, sys.argv[1])
game, out, aot = sys.argv[2], pathlib.Path(sys.argv[3]), sys.argv[4] == "aot"
import solverkit.poker.walks as walks
from solverkit.poker.kernels import dfs_pass
calls = [0]
if aot:
    import sk_aot_pass
    def kernel(*args):
        calls[0] += 1
        return sk_aot_pass.dfs_pass(*args)
    import numpy as np
    dfs_pass._fast[(np.dtype(np.float64), (2, 0))] = kernel  # what walks._entry hands the engine for dfs_pass
from solverkit.core.config import load_config
from solverkit.core.solver import run_solve
run_solve(load_config({"preset": "cfr_plus", "game": game, "solver": {"iterations": 200}}), out=out)
result = json.loads((out / "result.json").read_text())
print(json.dumps({"calls": calls[0], "exploitability": result["exploitability"]}))
"""


def child(code: str, *args, env=None, cwd=None) -> str:
    env = {**(env or os.environ), "SOLVERKIT_AOT": "0"}  # numba's JIT: the probe builds its own modules
    out = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True, env=env,
                         cwd=cwd, timeout=900)
    if out.returncode != 0:
        raise SystemExit(f"child failed:\n{out.stderr[-3000:]}")
    return out.stdout.strip().splitlines()[-1]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pass", dest="with_pass", action="store_true", help="also build and run dfs_pass ahead of time")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    load_before = os.getloadavg()
    steps = json.loads(child(STEPS))
    result: dict = {"command": "python bench/aot_probe.py" + (" --pass" if args.with_pass else "")
                    + f" --rounds {args.rounds}", "date": time.strftime("%Y-%m-%d %H:%M"),
                    "numba_import": steps}
    with tempfile.TemporaryDirectory() as tmp:
        result["build_s"] = float(child(BUILD, tmp))
        env = {**os.environ, "PYTHONPATH": tmp}
        uses = [json.loads(child(USE, env=env, cwd=tmp)) for _ in range(args.rounds)]
        jit = json.loads(child(JIT, tmp))
        result["aot"] = {"import_s_min": min(u["import_s"] for u in uses),
                         "numpy_s_median": statistics.median(u["numpy_s"] for u in uses),
                         "first_call_s_min": min(u["first_call_s"] for u in uses),
                         "peak_rss_mb": statistics.median(u["peak_rss_mb"] for u in uses),
                         "numba_imported": any(u["numba_imported"] for u in uses),
                         "llvmlite_imported": any(u["llvmlite_imported"] for u in uses),
                         "same_doubles_as_jit": all(u["out"] == jit["out"] for u in uses),
                         "aot_call_us": jit["aot_call_s"] * 1e6, "jit_call_us": jit["jit_call_s"] * 1e6,
                         "jit_process_peak_rss_mb": jit["peak_rss_mb"]}
        if args.with_pass:
            result["pass_build_s"] = float(child(PASS_BUILD, tmp))
            runs = {}
            for game in ("kuhn", "leduc"):
                outs = {}
                for kind in ("jit", "aot"):
                    out = Path(tmp) / f"{game}-{kind}"
                    outs[kind] = (json.loads(child(PASS_RUN, tmp, game, out, kind)), out)
                same = (outs["jit"][1] / "strategy.npz").read_bytes() == (outs["aot"][1] / "strategy.npz").read_bytes()
                runs[game] = {"aot_calls": outs["aot"][0]["calls"], "same_strategy_file": same,
                              "same_exploitability": outs["jit"][0]["exploitability"] == outs["aot"][0]["exploitability"]}
            result["pass"] = runs
    result["load_before"], result["load_after"] = [round(x, 2) for x in load_before], [round(x, 2) for x in os.getloadavg()]
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "aot_probe.json").write_text(json.dumps(result, indent=2) + "\n")
    a = result["aot"]
    md = ["# numba's memory, and a kernel compiled ahead of time (issue 30, an investigation)", "",
          f"`{result['command']}`, {result['date']}; load average before {'/'.join(map(str, result['load_before']))}, "
          f"after {'/'.join(map(str, result['load_after']))}.", "",
          "## RSS through `import numba`", "", "| step | RSS MB |", "|---|---|"]
    md += [f"| {name} | {mb:.1f} |" for name, mb in steps["steps"]]
    lib = steps["libllvmlite"]
    md += ["", f"libllvmlite.so (LLVM, {lib.get('Size', 0):.0f} MB mapped): {lib.get('Rss', 0):.1f} MB resident, of which "
           f"{lib.get('Shared_Clean', 0):.1f} MB shared clean (code and read-only data its start touches, shared by "
           f"processes) and {lib.get('Private_Dirty', 0):.1f} MB private dirty.", "",
           "## regret_matching compiled ahead of time (numba.pycc, target CPU = host)", "",
           f"Build {result['build_s']:.1f} s. A process importing numpy and the module only ({args.rounds} runs): "
           f"import {a['import_s_min'] * 1e3:.2f} ms (numpy itself {a['numpy_s_median'] * 1e3:.0f} ms), first call "
           f"{a['first_call_s_min'] * 1e3:.3f} ms, peak RSS {a['peak_rss_mb']:.1f} MB; numba imported: "
           f"{a['numba_imported']}, llvmlite imported: {a['llvmlite_imported']}; the same doubles as the JIT kernel: "
           f"{a['same_doubles_as_jit']}; per call (3,000 values) {a['aot_call_us']:.2f} us ahead of time, "
           f"{a['jit_call_us']:.2f} us JIT. The JIT route's process (numba imported, the kernel loaded from its "
           f"cache): peak RSS {a['jit_process_peak_rss_mb']:.1f} MB."]
    if args.with_pass:
        md += ["", "## dfs_pass (the poker engine's pass kernel) compiled ahead of time", "",
               f"Build {result['pass_build_s']:.1f} s (one signature: the one a Kuhn solve loads). Run in place of "
               "numba's inside 200-iteration CFR+ solves:", "",
               "| game | calls to the AOT kernel | strategy file byte-identical | exploitability identical |",
               "|---|---|---|---|"]
        md += [f"| {g} | {r['aot_calls']} | {r['same_strategy_file']} | {r['same_exploitability']} |"
               for g, r in result["pass"].items()]
    import numba

    md += ["", "## Notes", "",
           f"- numba {numba.__version__} still ships `numba.pycc`, pending deprecation since 0.57 (\"replacement "
           "technology is being developed\"); it needs a C compiler when the module is built.",
           "- An AOT module holds one compiled body per exported signature: every signature a solve meets (each "
           "store precision, each record layout, every kernel a rule or game selects) must be listed when it is "
           "built, and any kernel left to the JIT brings numba's import (and its RSS) back.",
           "- The saving is the import: numba and llvmlite never load, so a process starts from numpy's floor "
           "instead of numba's (the first table)."]
    (RESULTS / "aot_probe.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
