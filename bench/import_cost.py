"""What a solve process imports and what each import costs (issue 30's memory goal).

Runs ``python -m solverkit <args>`` in a child whose import system is wrapped: every RSS and time
increment is attributed to the top-level package whose module was executing when it happened
(exclusive: numba's import of llvmlite counts for llvmlite), and what runs outside any import to
``<run>``. Prints the packages by RSS, the process's peak RSS (VmHWM) and module count.

    python bench/import_cost.py [--json] -- solve --game kuhn --preset cfr_plus --iterations 100 \
        --quiet --set transport.threads=1
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

HOOK = r"""
import sys, time, atexit, importlib.abc, importlib.machinery
def _rss():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
_stack, _cost, _last = [], {}, [_rss(), time.perf_counter()]
def _tick():
    r, t = _rss(), time.perf_counter()
    key = _stack[-1] if _stack else "<run>"
    c = _cost.setdefault(key, [0.0, 0.0])
    c[0] += r - _last[0]; c[1] += t - _last[1]
    _last[0], _last[1] = r, t
class _Wrap(importlib.abc.Loader):
    def __init__(self, loader, name):
        self.loader, self.name = loader, name
    def create_module(self, spec):
        return self.loader.create_module(spec)
    def exec_module(self, module):
        _tick(); _stack.append(self.name.split(".")[0])
        try:
            self.loader.exec_module(module)
        finally:
            _tick(); _stack.pop()
    def __getattr__(self, name):
        return getattr(self.loader, name)
class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _Wrap(spec.loader, name)
                return spec
        return None
sys.meta_path.insert(0, _Finder())
def _report():
    _tick()
    hwm = [int(l.split()[1]) / 1024 for l in open("/proc/self/status") if l.startswith("VmHWM")][0]
    mods = {}
    for m in list(sys.modules):
        mods[m.split(".")[0]] = mods.get(m.split(".")[0], 0) + 1
    sys.stderr.write("\n@@COST@@" + __import__("json").dumps({"cost": _cost, "hwm": hwm, "modules": mods}) + "\n")
atexit.register(_report)
import runpy
sys.argv = ["solverkit"] + sys.argv[1:]
runpy.run_module("solverkit", run_name="__main__", alter_sys=True)
"""


def measure(args: list[str], env: dict | None = None, cwd=None) -> dict:
    """Run the command in a child process and return its costs (see the module)."""
    out = subprocess.run([sys.executable, "-c", HOOK, *args], capture_output=True, text=True, env=env, cwd=cwd)
    line = [x for x in out.stderr.splitlines() if x.startswith("@@COST@@")]
    if not line:
        raise SystemExit(out.stderr[-2000:])
    return json.loads(line[-1][len("@@COST@@"):])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--json", action="store_true")
    p.add_argument("rest", nargs=argparse.REMAINDER)
    a = p.parse_args()
    args = [x for x in a.rest if x != "--"] or "solve --game kuhn --preset cfr_plus --iterations 100 --quiet --set transport.threads=1".split()
    res = measure(args)
    if a.json:
        print(json.dumps(res))
        return
    rows = sorted(res["cost"].items(), key=lambda kv: -kv[1][0])
    print(f"peak RSS (VmHWM) {res['hwm']:.1f} MB, {sum(res['modules'].values())} modules")
    print("| package | modules | RSS MB | import ms |\n|---|---|---|---|")
    for name, (mb, s) in rows:
        if abs(mb) >= 0.1 or s >= 0.005:
            print(f"| {name} | {res['modules'].get(name, '')} | {mb:.1f} | {s * 1000:.0f} |")


if __name__ == "__main__":
    main()
