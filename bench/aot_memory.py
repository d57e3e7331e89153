"""Issue 30's memory goal with the ahead-of-time build: peak RSS and start-up of real solve
processes, numba's JIT against a build made by ``solverkit compile`` (:mod:`solverkit.core.jit`).

1. Floors: peak RSS of ``python -c pass``, with numpy imported, with numpy and numba imported.
2. ``solverkit compile --game kuhn --game leduc`` into a fresh directory (timed).
3. Per game, ``solverkit solve --game G --preset cfr_plus --iterations N --quiet --set
   transport.threads=1`` in child processes, JIT (``SOLVERKIT_AOT=0``) and with the build (the
   same command): peak RSS (VmHWM), wall seconds of the process, result.json's startup_seconds
   (process start to the first iteration), whether numba or llvmlite got imported; medians of
   --rounds runs. The two modes' strategy files compared byte for byte, their exploitabilities
   digit for digit.
4. What the build's process holds at exit: its largest mappings (resident MB).
5. With ``--coverage GAME ...``: one more build for those games with the presets of --presets,
   and the same JIT/build comparison of one run each (other engines: the tree engine, matrix
   games, Rhode Island...).

6. With ``--five`` instead: only issue 30's five games of bench/liteefg.py (Kuhn, Leduc, Leduc
   with 13 ranks, liar's dice, Goofspiel(4); their [game] tables, ``cfr_plus``), each a config
   file: one build covering them, a private tree cache filled by a first solve (the OpenSpiel
   games enumerated: pyspiel imported), then --rounds solves each way against 2x OpenSpiel's
   CFRPlusSolver process; also whether the default build (Kuhn, Leduc) already covers each.

Results: bench/results/aot_memory.md (a dated section on top) and aot_memory_slice.json
(aot_memory_five.json with --five).

    python bench/aot_memory.py [--rounds 5] [--iterations 100] [--coverage kuhn_tree random_matrix ...]
    python bench/aot_memory.py --five [--rounds 3] [--iterations 100]
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

os.environ.setdefault("SOLVERKIT_AOT_BUILD", "0")  # timed solves start no background kernel build (core.aot_auto)

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
#: OpenSpiel's CFRPlusSolver process (bench/results/liteefg.md)
OPENSPIEL_MB = {"kuhn": 33, "leduc": 34, "leduc13": 41, "liars_dice": 41, "goofspiel4": 33}

HWM = "[int(l.split()[1]) / 1024 for l in open('/proc/self/status') if l.startswith('VmHWM')][0]"

RUN = r"""
import atexit, json, re, runpy, sys
def report():
    hwm = %s
    maps, cur = {}, None
    for line in open("/proc/self/smaps"):
        if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
            parts = line.split()
            cur = parts[5] if len(parts) > 5 else "[anonymous]"
        elif line.startswith("Rss:"):
            maps[cur] = maps.get(cur, 0) + int(line.split()[1]) / 1024
    sys.stderr.write("\n@@AOT@@" + json.dumps({"hwm": hwm, "numba": "numba" in sys.modules, "pyspiel": "pyspiel" in sys.modules,
                     "llvmlite": "llvmlite" in sys.modules, "modules": len(sys.modules), "maps": maps}) + "\n")
atexit.register(report)
sys.argv = ["solverkit"] + sys.argv[1:]
runpy.run_module("solverkit", run_name="__main__", alter_sys=True)
""" % HWM


def floor(code: str) -> float:
    out = subprocess.run([sys.executable, "-c", f"{code}\nprint({HWM})"], capture_output=True, text=True, check=True)
    return float(out.stdout.split()[-1])


def solve(game: str, iterations: int, out: Path, env: dict, preset: str = "cfr_plus") -> dict:
    """One solve of `game` (a game name, or a config file: then as it says) in a child process."""
    what = [game] if game.endswith(".toml") else ["--game", game, "--preset", preset]
    args = ["solve", *what, "--iterations", str(iterations), "--quiet", "--set", "transport.threads=1", "--out", str(out)]
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", RUN, *args], capture_output=True, text=True, env=env, cwd=ROOT)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed ({proc.returncode}):\n{proc.stderr.split('@@AOT@@')[0][-3000:]}")
    info = json.loads(proc.stderr.split("@@AOT@@")[-1])
    result = json.loads((out / "result.json").read_text())
    info.update(wall=wall, startup=result.get("startup_seconds"), exploitability=result["exploitability"],
                strategy=(out / "strategy.npz").read_bytes())
    return info


def _imports(tmp: Path, env: dict) -> dict:
    """bench/import_cost.py's measure of a Kuhn solve, JIT and with the build."""
    sys.path.insert(0, str(ROOT / "bench"))
    from import_cost import measure

    args = ["solve", "--game", "kuhn", "--preset", "cfr_plus", "--iterations", "100", "--quiet", "--set",
            "transport.threads=1", "--force", "--out"]
    return {mode: measure([*args, str(tmp / f"imports-{mode}")], env={**env, "SOLVERKIT_AOT": flag}, cwd=ROOT)
            for mode, flag in (("jit", "0"), ("aot", "1"))}


def _coverage(args, tmp: Path, env: dict) -> list[dict]:
    """Section 5 of the module: a build for --coverage's games, and one solve each way."""
    env = {**env, "SOLVERKIT_AOT_DIR": str(tmp / "aot-coverage")}
    games = [g for g in args.coverage if not g.endswith(".toml")]
    configs = [g for g in args.coverage if g.endswith(".toml")]
    cmds = []
    if games:
        cmds.append(["--set", "transport.threads=1", *sum((["--game", g] for g in games), []),
                     *sum((["--preset", p] for p in args.presets), [])])
    if configs:
        cmds.append(["--set", "transport.threads=1", *configs])
    t0 = time.perf_counter()
    for cmd in cmds:
        built = subprocess.run([sys.executable, "-m", "solverkit", "compile", *cmd], capture_output=True, text=True,
                               env=env, cwd=ROOT)
        if built.returncode != 0:
            raise SystemExit(built.stderr[-3000:])
    build_s = time.perf_counter() - t0
    rows = []
    for game in args.coverage:
        for preset in ([""] if game.endswith(".toml") else args.presets):
            tag = Path(game).stem
            jit = solve(game, args.iterations, tmp / f"cov-{tag}-{preset}-jit", {**env, "SOLVERKIT_AOT": "0"}, preset)
            aot = solve(game, args.iterations, tmp / f"cov-{tag}-{preset}-aot", env, preset)
            rows.append({"game": game, "preset": preset, "jit_mb": jit["hwm"], "aot_mb": aot["hwm"],
                         "numba": aot["numba"] or aot["llvmlite"], "same_strategy": jit["strategy"] == aot["strategy"],
                         "same_exploitability": jit["exploitability"] == aot["exploitability"], "build_s": build_s})
    for r in rows:
        r.pop("strategy", None)
    return rows


PHASES = r"""
import json, sys
def rss():
    return {l.split(":")[0]: int(l.split()[1]) / 1024 for l in open("/proc/self/status") if l.startswith(("VmRSS", "VmHWM"))}
out = {"start": rss()}
from solverkit.core.config import load_config
from solverkit.core.solver import Solver
out["imports"] = rss()
cfg = load_config(sys.argv[1], overrides=["transport.threads=1"])
out["game (tree)"] = rss()
solver = Solver(cfg)
out["solver (warm-up)"] = rss()
solver.step(int(sys.argv[2]))
out["iterations"] = rss()
solver.evaluate(exact=True)
out["exact evaluation"] = rss()
g = solver.game
tree = getattr(g, "tree", None)
out["nodes"] = int(getattr(tree, "num_nodes", 0)) or None
out["pyspiel"] = "pyspiel" in sys.modules
print(json.dumps(out))
"""


def phases(config: Path, iterations: int, env: dict) -> dict:
    """VmRSS after each phase of a solve (imports, game, solver, iterations, evaluation), in a child."""
    proc = subprocess.run([sys.executable, "-c", PHASES, str(config), str(iterations)], capture_output=True,
                          text=True, env=env, cwd=ROOT)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr[-3000:])
    return json.loads(proc.stdout.splitlines()[-1])


def _write_section(md: list[str]) -> None:
    """`md` as the newest section of bench/results/aot_memory.md (the title kept on top)."""
    path = RESULTS / "aot_memory.md"
    old = path.read_text() if path.exists() else ""
    title, _, rest = old.partition("\n")
    head = "# numba's memory, and kernels compiled ahead of time (issue 30)"
    body = rest.lstrip("\n") if title.startswith("# ") else old
    if body and not body.startswith("## "):  # the investigation's page (bench/aot_probe.py), kept below
        body = "## Earlier: the investigation (`bench/aot_probe.py`)\n\n" + body.replace("\n## ", "\n### ")
    path.write_text("\n".join([head, "", *md, body]).rstrip("\n") + "\n")


def _save_result(name: str, command: str, load_before, **fields) -> dict:
    """The run's result (its command, date and load averages besides `fields`), written to
    bench/results/`name`.json."""
    result = {"command": command, "date": time.strftime("%Y-%m-%d %H:%M"), "load_before": load_before,
              "load_after": [round(x, 2) for x in os.getloadavg()], **fields}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps(result, indent=2) + "\n")
    return result


def five(args) -> None:
    """Section 6 of the module: issue 30's five games, the build against the JIT and OpenSpiel."""
    sys.path.insert(0, str(ROOT / "bench"))
    from liteefg import GAMES

    load_before = [round(x, 2) for x in os.getloadavg()]
    with tempfile.TemporaryDirectory(prefix="aot-five-") as tmp:
        t = Path(tmp)
        env = {**os.environ, "SOLVERKIT_AOT_DIR": str(t / "aot"), "SOLVERKIT_CACHE_DIR": str(t / "cache")}
        env.pop("SOLVERKIT_AOT", None)
        configs = {}
        for key, (_label, table, *_rest) in GAMES.items():
            lines = ['preset = "cfr_plus"', "[game]", *(f"{k} = {json.dumps(v)}" for k, v in table.items())]
            configs[key] = t / f"{key}.toml"
            configs[key].write_text("\n".join(lines) + "\n")
        default_env = {**env, "SOLVERKIT_AOT_DIR": str(t / "aot-default")}
        builds = {}
        for name, e, cmd in (("default", default_env, []),
                             ("five", env, ["--set", "transport.threads=1", *map(str, configs.values())])):
            t0 = time.perf_counter()
            built = subprocess.run([sys.executable, "-m", "solverkit", "compile", *cmd], capture_output=True,
                                   text=True, env=e, cwd=ROOT)
            if built.returncode != 0:
                raise SystemExit(built.stderr[-3000:])
            builds[name] = {"seconds": time.perf_counter() - t0, "line": built.stdout.strip().splitlines()[-1]}
        rows = []
        for key, cfg in configs.items():
            first = solve(str(cfg), args.iterations, t / f"{key}-first", {**env, "SOLVERKIT_CACHE_DIR": "off"})
            default = solve(str(cfg), args.iterations, t / f"{key}-default", default_env)
            runs: dict = {"jit": [], "aot": []}
            for r in range(args.rounds):
                for mode in ("jit", "aot"):
                    e = {**env, "SOLVERKIT_AOT": "0"} if mode == "jit" else env
                    runs[mode].append(solve(str(cfg), args.iterations, t / f"{key}-{mode}-{r}", e))
            jit, aot = runs["jit"], runs["aot"]
            rows.append({
                "game": key, "label": GAMES[key][0], "table": GAMES[key][1], "openspiel_mb": OPENSPIEL_MB[key],
                "first_mb": first["hwm"], "first_pyspiel": first["pyspiel"],
                "jit_mb": statistics.median(x["hwm"] for x in jit), "aot_mb": statistics.median(x["hwm"] for x in aot),
                "jit_wall_s": statistics.median(x["wall"] for x in jit),
                "aot_wall_s": statistics.median(x["wall"] for x in aot),
                "numba": any(x["numba"] or x["llvmlite"] for x in aot), "pyspiel": any(x["pyspiel"] for x in aot + jit),
                "default_covers": not (default["numba"] or default["llvmlite"]),
                "same_strategy": all(x["strategy"] == jit[0]["strategy"] for x in jit + aot + [first, default]),
                "same_exploitability": all(x["exploitability"] == jit[0]["exploitability"]
                                           for x in jit + aot + [first, default]),
                "exploitability": repr(aot[0]["exploitability"]),
                "phases": phases(cfg, args.iterations, env)})
            print(f"{key}: build {rows[-1]['aot_mb']:.1f} MB, JIT {rows[-1]['jit_mb']:.1f} MB", flush=True)
    result = _save_result("aot_memory_five",
                          f"python bench/aot_memory.py --five --rounds {args.rounds} --iterations {args.iterations}",
                          load_before, builds=builds, rows=rows)
    md = [f"## {result['date']}: issue 30's five games, the build against 2x OpenSpiel's CFR+ process", "",
          f"`{result['command']}`; load average before {'/'.join(map(str, load_before))}, after "
          f"{'/'.join(map(str, result['load_after']))} (peak RSS does not depend on it; wall seconds do). "
          f"Each game is bench/liteefg.py's [game] table with `preset = \"cfr_plus\"`, solved by `solverkit solve "
          f"CONFIG --iterations {args.iterations} --quiet --set transport.threads=1` in a child process (peak RSS: "
          f"VmHWM; medians of {args.rounds} runs each way). One build covers the five: `solverkit compile --set "
          f"transport.threads=1 CONFIG...` ({builds['five']['seconds']:.1f} s: {builds['five']['line']}). "
          "The trees come from a private tree cache (filled by the build); the 'tree enumerated' column is one "
          "solve with the build and `SOLVERKIT_CACHE_DIR=off` (the OpenSpiel games walked through pyspiel). "
          "OpenSpiel: its CFRPlusSolver process (bench/results/liteefg.md).", "",
          "| game | OpenSpiel MB | goal (2x) | build: peak MB | met | JIT (SOLVERKIT_AOT=0): peak MB | build, tree "
          "enumerated (no cache): peak MB | numba imported with the build | pyspiel imported (tree cached) | "
          "default build (kuhn, leduc) covers it | strategy file and exploitability identical (JIT, build, no cache, "
          "default build) | wall s build / JIT |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        met = r["aot_mb"] <= 2 * r["openspiel_mb"]
        md.append(f"| {r['label']} | {r['openspiel_mb']} | <= {2 * r['openspiel_mb']} | {r['aot_mb']:.1f} | "
                  f"{'yes' if met else '**no**'} ({r['aot_mb'] / r['openspiel_mb']:.2f}x) | {r['jit_mb']:.1f} | "
                  f"{r['first_mb']:.1f}{' (pyspiel)' if r['first_pyspiel'] else ''} | {r['numba']} | {r['pyspiel']} | "
                  f"{r['default_covers']} | {r['same_strategy'] and r['same_exploitability']} | "
                  f"{r['aot_wall_s']:.2f} / {r['jit_wall_s']:.2f} |")
    names = ["imports", "game (tree)", "solver (warm-up)", "iterations", "exact evaluation"]
    md += ["", "Where the build's peak goes: VmRSS added by each phase of the same solve through the API "
           "(`load_config`, `Solver`, `step`, `evaluate(exact=True)`) in a child process, MB:", "",
           "| game | tree nodes | python | " + " | ".join(f"+ {n}" for n in names) + " | peak (VmHWM) | pyspiel |",
           "|---|---|---|" + "---|" * len(names) + "---|---|"]
    for r in rows:
        ph = r["phases"]
        steps = [ph[n]["VmRSS"] - ph[prev]["VmRSS"] for prev, n in zip(["start", *names], names)]
        md.append(f"| {r['label']} | {ph['nodes'] if ph['nodes'] is not None else '(poker engine)'} | "
                  f"{ph['start']['VmRSS']:.1f} | " + " | ".join(f"{x:.1f}" for x in steps) +
                  f" | {ph['exact evaluation']['VmHWM']:.1f} | {ph['pyspiel']} |")
    md.append("")
    _write_section(md)
    print("\n".join(md))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--coverage", nargs="*", default=[], metavar="GAME")
    ap.add_argument("--presets", nargs="+", default=["cfr_plus", "dcfr"])
    ap.add_argument("--five", action="store_true", help="only issue 30's five games of bench/liteefg.py")
    args = ap.parse_args()
    if args.five:
        return five(args)
    load_before = [round(x, 2) for x in os.getloadavg()]
    floors = {"python": floor("pass"), "+ numpy": floor("import numpy"),
              "+ numpy + numba": floor("import numpy, numba")}
    games = ("kuhn", "leduc")
    with tempfile.TemporaryDirectory(prefix="aot-bench-") as tmp:
        env = {**os.environ, "SOLVERKIT_AOT_DIR": str(Path(tmp) / "aot")}
        env.pop("SOLVERKIT_AOT", None)
        t0 = time.perf_counter()
        built = subprocess.run([sys.executable, "-m", "solverkit", "compile", *sum((["--game", g] for g in games), [])],
                               capture_output=True, text=True, env=env, cwd=ROOT)
        if built.returncode != 0:
            raise SystemExit(built.stderr[-3000:])
        build_s = time.perf_counter() - t0
        rows, checks, maps = [], {}, {}
        for game in games:
            runs: dict = {"jit": [], "aot": []}
            for r in range(args.rounds):
                for mode in ("jit", "aot"):
                    e = {**env, "SOLVERKIT_AOT": "0"} if mode == "jit" else env
                    runs[mode].append(solve(game, args.iterations, Path(tmp) / f"{game}-{mode}-{r}", e))
            for mode, rs in runs.items():
                rows.append({"game": game, "mode": mode, "peak_mb": statistics.median(x["hwm"] for x in rs),
                             "wall_s": statistics.median(x["wall"] for x in rs),
                             "startup_s": statistics.median(x["startup"] for x in rs),
                             "numba": any(x["numba"] for x in rs), "llvmlite": any(x["llvmlite"] for x in rs),
                             "modules": rs[0]["modules"]})
            checks[game] = {"same_strategy_file": all(a["strategy"] == b["strategy"] for a, b in zip(runs["jit"], runs["aot"])),
                            "same_exploitability": all(a["exploitability"] == b["exploitability"]
                                                       for a, b in zip(runs["jit"], runs["aot"])),
                            "exploitability": repr(runs["aot"][0]["exploitability"])}
            maps[game] = sorted(runs["aot"][0]["maps"].items(), key=lambda kv: -kv[1])[:8]
        imports = _imports(Path(tmp), env)
        coverage = _coverage(args, Path(tmp), env) if args.coverage else []
    cov = f" --coverage {' '.join(args.coverage)} --presets {' '.join(args.presets)}" if args.coverage else ""
    result = _save_result("aot_memory_slice",
                          f"python bench/aot_memory.py --rounds {args.rounds} --iterations {args.iterations}{cov}",
                          load_before, floors=floors, build_s=build_s,
                          build_line=built.stdout.strip().splitlines()[-1], rows=rows, checks=checks, maps=maps,
                          imports=imports, coverage=coverage)
    md = [f"## {result['date']}: solves without numba, from `solverkit compile`'s build", "",
          f"`{result['command']}`; load average before {'/'.join(map(str, load_before))}, after "
          f"{'/'.join(map(str, result['load_after']))}. Medians of {args.rounds} runs of `solverkit solve --game G "
          f"--preset cfr_plus --iterations {args.iterations} --quiet --set transport.threads=1` (warm: numba's cache "
          "filled, the build made first).", "",
          "Floors (peak RSS): " + ", ".join(f"{k} {v:.1f} MB" for k, v in floors.items()) + ". "
          f"`solverkit compile --game kuhn --game leduc` (cold build directory): {build_s:.1f} s in all.", "",
          "| game | kernels | peak RSS MB | goal (2x OpenSpiel) | process wall s | start-up s (to iteration 1) | numba imported | modules |",
          "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        md.append(f"| {r['game']} | {'JIT (SOLVERKIT_AOT=0)' if r['mode'] == 'jit' else 'ahead of time'} | "
                  f"{r['peak_mb']:.1f} | <= {2 * OPENSPIEL_MB[r['game']]} | {r['wall_s']:.2f} | {r['startup_s']:.3f} | "
                  f"{r['numba'] or r['llvmlite']} | {r['modules']} |")
    md += ["", "| game | strategy file byte-identical (JIT vs build) | exploitability identical | exploitability |",
           "|---|---|---|---|"]
    md += [f"| {g} | {c['same_strategy_file']} | {c['same_exploitability']} | {c['exploitability']} |"
           for g, c in checks.items()]
    md += ["", "Largest resident mappings of the ahead-of-time Kuhn process at exit (MB): " + ", ".join(
        f"{Path(name).name or name} {mb:.1f}" for name, mb in maps["kuhn"]) + ".", ""]
    md += ["What each import costs in a 100-iteration Kuhn solve (`python bench/import_cost.py`: RSS and time "
           "attributed to the top-level package whose module was executing; `<run>` is everything outside "
           "imports; packages of 0.3 MB or more):", "",
           "| package | JIT: modules | JIT: RSS MB | JIT: import ms | build: modules | build: RSS MB | build: import ms |",
           "|---|---|---|---|---|---|---|"]
    names = sorted({n for m in imports.values() for n, (mb, _) in m["cost"].items() if mb >= 0.3},
                   key=lambda n: -max(m["cost"].get(n, [0, 0])[0] for m in imports.values()))
    for n in names:
        cells = []
        for mode in ("jit", "aot"):
            mb, sec = imports[mode]["cost"].get(n, [0.0, 0.0])
            cells += [str(imports[mode]["modules"].get(n, "")), f"{mb:.1f}", f"{sec * 1000:.0f}"]
        md.append(f"| {n} | " + " | ".join(cells) + " |")
    md += ["| (all: modules, peak RSS MB) | " + " | ".join(
        f"{sum(imports[m]['modules'].values())} | {imports[m]['hwm']:.1f} | " for m in ("jit", "aot")) + " |", ""]
    if coverage:
        md += [f"Other engines: `solverkit compile --game G ... --preset P ... [CONFIG ...] --set transport.threads=1` "
               f"({coverage[0]['build_s']:.1f} s), then one {args.iterations}-iteration solve each way:", "",
               "| game | preset | peak RSS MB JIT | peak RSS MB build | numba imported with the build | "
               "strategy byte-identical | exploitability identical |", "|---|---|---|---|---|---|---|"]
        md += [f"| {c['game']} | {c['preset']} | {c['jit_mb']:.1f} | {c['aot_mb']:.1f} | {c['numba']} | "
               f"{c['same_strategy']} | {c['same_exploitability']} |" for c in coverage]
        md.append("")
    _write_section(md)
    print("\n".join(md))


if __name__ == "__main__":
    main()
