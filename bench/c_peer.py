"""solverkit against the original CFR+ C code, side by side in one run: time, memory, start-up.

Builds the original CFR+ code twice (`../shared/peers/build-cfr-plus.sh`: the default int32
build and the `--float` build of doubles) and runs, at equal iterations and with player 1
updated first on both sides (`[solver] first_update = 1`, the C code's order):

| case | C code | solverkit (`solverkit solve`, its own process) |
|---|---|---|
| leduc_float | float build, `leduc.game` | `leduc`, float64 store |
| rhode_float | float build, `rhode.game` | `rhode_island_acpc`, float64 store |
| rhode_int32 | int32 build (16 per chip) | `rhode_island_acpc`, fixed point 16 per chip |
| rhode_int32_held | int32 build (16 per chip) | the same held decoded (`[store] hold = "decoded"`: the same numbers, float64 in memory) |
| rhode_compressed | int32 build, `split=1` (subgames compressed) | `split_round = 1`, fixed point + blosc2 |

For each: seconds per iteration (the C code's own clock over iterations 2..N-1, the ones without
its best-response pass; solverkit's `result.json` `seconds`: evaluation excluded on both), peak RSS of the process (wait4), start-up to the first iteration
(C: when its first "itertime" line arrives, less that iteration's time; solverkit: `result.json`
`startup_seconds`) and the exploitability at the end (mbb/g = the C code's mSBet/h). Both sides
run one thread. Results: bench/results/c_peer.{json,md}; the figures are solverkit / C.

    python bench/c_peer.py [--cases leduc_float rhode_float ...] [--leduc-iterations 2000]
                           [--rhode-iterations 10] [--repeat 1]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("SOLVERKIT_AOT_BUILD", "0")  # timed solves start no background kernel build (core.aot_auto)

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
PEERS = ROOT.parent / "shared" / "peers"
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "solverkit-peers"

FIXED = ["store.regret_scale=16", "store.avg_scale=16"]
COMPRESSED = [*FIXED, "store.predictor=west", "compressor.name=blosc2", "compressor.codec=zstd",
              "compressor.level=1", "compressor.filter=shuffle", "game.split_round=1", "game.chunks=13",
              "transport.threads=1"]
#: case -> (C build, C game file, C extra arguments, solverkit game, solverkit --set items, leduc?)
CASES = {
    "leduc_float": ("float", "leduc.game", [], "leduc", [], True),
    "rhode_float": ("float", "rhode.game", [], "rhode_island_acpc", [], False),
    "rhode_int32": ("int32", "rhode.game", [], "rhode_island_acpc", FIXED, False),
    "rhode_int32_held": ("int32", "rhode.game", [], "rhode_island_acpc", [*FIXED, "store.hold=decoded"], False),
    "rhode_compressed": ("int32", "rhode.game", ["split=1"], "rhode_island_acpc", COMPRESSED, False),
}
GOALS = {  # the goals, solverkit against C (ratios) or absolute
    "leduc_float": "s/iteration <= 1x C; peak RSS <= 100 MB; start-up <= 1 s",
    "rhode_float": "peak RSS <= the C float build's",
    "rhode_int32": "",
    "rhode_int32_held": "",
    "rhode_compressed": "peak RSS <= 128 MB",
}


def build(kind: str) -> str:
    """Path of the C binary of `kind` ("float" or "int32"), built once into the cache."""
    args = ["--float"] if kind == "float" else []
    # an explicit destination: the script's default path for the int32 build trips `set -e`
    dest = CACHE / ("cfr_plus-float" if kind == "float" else "cfr_plus-int32")
    out = subprocess.run(["bash", str(PEERS / "build-cfr-plus.sh"), *args, str(dest)], capture_output=True,
                         text=True)
    binary = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else ""
    if out.returncode != 0 or not Path(binary).is_file():
        raise SystemExit(f"building the C code ({kind}) failed:\n{out.stdout}{out.stderr}")
    return binary


def run_c(binary: str, game_file: str, extra: list[str], iterations: int) -> dict:
    """One run of the C code: seconds per iteration, start-up, peak RSS, final exploitability."""
    cmd = [binary, f"game={PEERS / 'cfr_plus' / game_file}", f"iters={iterations}", "target=0",
           f"brfreq={iterations}", *extra]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            cwd=Path(binary).parent)
    lines: list[tuple[float, str]] = []

    def read():
        for line in proc.stdout:
            lines.append((time.perf_counter() - t0, line))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    _, status, usage = os.wait4(proc.pid, 0)
    reader.join()
    text = "".join(line for _, line in lines)
    if status != 0:
        raise SystemExit(f"{' '.join(cmd)} failed with status {status}:\n{text[-2000:]}")
    iters = [(at, m) for at, line in lines if (m := re.match(r"^(\d+) itertime ([\d.]+) total ([\d.]+)", line))]
    if not iters:
        raise SystemExit(f"no timing in the C code's output:\n{text[-2000:]}")
    first_at, first = iters[0]
    n, total = int(iters[-1][1].group(1)), float(iters[-1][1].group(3))
    if n < 3:
        raise SystemExit(f"the C code needs at least 3 iterations here (its first and last include an evaluation); got {n}")
    # its clock ("itertime", "total") includes the best responses at iterations 1 and N: leave those two out
    per_iteration = (total - float(first.group(2)) - float(iters[-1][1].group(2))) / (n - 2)
    avg = re.findall(r"average [-\d.e]+,[-\d.e]+ \(([\d.]+) mSBet/h\)", text)
    return {"iterations": n, "seconds_per_iteration": per_iteration, "startup_seconds": first_at - float(first.group(2)),
            "peak_rss_mb": usage.ru_maxrss / 1024, "exploitability_mbb": float(avg[-1]) if avg else None,
            "command": " ".join(cmd)}


def run_solverkit(game: str, items: list[str], iterations: int, out: Path) -> dict:
    """One `solverkit solve` in its own process, evaluated at the last iteration only."""
    cmd = [sys.executable, "-m", "solverkit", "solve", "--game", game, "--preset", "cfr_plus",
           "--iterations", str(iterations), "--out", str(out), "--quiet", "--set", "solver.first_update=1",
           "--set", f"solver.eval_every={iterations}"]
    for item in items:
        cmd += ["--set", item]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    text = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise SystemExit(f"{' '.join(cmd)} failed with status {status}:\n{text[-2000:]}")
    result = json.loads((out / "result.json").read_text())
    return {"iterations": result["iterations"], "seconds_per_iteration": result["seconds"] / result["iterations"],
            "startup_seconds": result.get("startup_seconds"), "peak_rss_mb": usage.ru_maxrss / 1024,
            "exploitability_mbb": result.get("exploitability_mbb"), "stored_mb": result["stored_bytes"] / 1e6,
            "command": " ".join(["solverkit", *cmd[3:]])}


def best(runs: list[dict]) -> dict:
    """Of repeated runs: the fastest iterations and start-up, the smallest peak (the least loaded)."""
    row = dict(runs[0])
    for key in ("seconds_per_iteration", "startup_seconds", "peak_rss_mb"):
        values = [r[key] for r in runs if r[key] is not None]
        row[key] = min(values) if values else None
    return row


def ratio(a, b):
    return round(a / b, 2) if a is not None and b else None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    ap.add_argument("--leduc-iterations", type=int, default=2000)
    ap.add_argument("--rhode-iterations", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=1, help="runs of each side, alternating; the best is kept")
    args = ap.parse_args(argv)
    binaries = {kind: build(kind) for kind in {CASES[c][0] for c in args.cases}}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in args.cases:
            kind, game_file, extra, game, items, leduc = CASES[case]
            n = args.leduc_iterations if leduc else args.rhode_iterations
            c_runs, our_runs = [], []
            for k in range(args.repeat):  # alternate, so both see the same background load
                c_runs.append(run_c(binaries[kind], game_file, extra, n))
                our_runs.append(run_solverkit(game, items, n, Path(tmp) / f"{case}-{k}"))
            c, ours = best(c_runs), best(our_runs)
            row = {"case": case, "iterations": n, "c": c, "solverkit": ours, "goal": GOALS[case],
                   "ratio_time": ratio(ours["seconds_per_iteration"], c["seconds_per_iteration"]),
                   "ratio_rss": ratio(ours["peak_rss_mb"], c["peak_rss_mb"]),
                   "ratio_startup": ratio(ours["startup_seconds"], c["startup_seconds"])}
            rows.append(row)
            print(json.dumps(row), flush=True)
    by_case = {r["case"]: r for r in rows}
    if "rhode_float" in by_case and "rhode_compressed" in by_case:
        f, z = by_case["rhode_float"]["solverkit"], by_case["rhode_compressed"]["solverkit"]
        by_case["rhode_compressed"]["solverkit_compressed_over_float"] = ratio(z["seconds_per_iteration"],
                                                                               f["seconds_per_iteration"])
    result = {"command": " ".join(["python bench/c_peer.py", *(argv if argv is not None else sys.argv[1:])]),
              "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
              "date": time.strftime("%Y-%m-%d %H:%M"), "rows": rows}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "c_peer.json").write_text(json.dumps(result, indent=2) + "\n")
    md = ["# solverkit against the original CFR+ C code, same run", "",
          f"`{result['command']}` on {result['machine']}, {result['date']}. Player 1 first on both sides, "
          "one thread each, equal iterations; s/iteration excludes evaluation (the C code's own clock, "
          "solverkit's `seconds`); peak RSS from wait4; start-up = process start to the first iteration.", "",
          "| case | iterations | C s/iter | ours s/iter | ratio | C RSS MB | ours RSS MB | ratio | C start s | "
          "ours start s | C mbb/g | ours mbb/g | goal |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        c, o = r["c"], r["solverkit"]
        md.append(f"| {r['case']} | {r['iterations']} | {c['seconds_per_iteration']:.3g} | "
                  f"{o['seconds_per_iteration']:.3g} | {r['ratio_time']} | {c['peak_rss_mb']:.1f} | "
                  f"{o['peak_rss_mb']:.1f} | {r['ratio_rss']} | {c['startup_seconds']:.2f} | "
                  f"{o['startup_seconds'] if o['startup_seconds'] is None else round(o['startup_seconds'], 2)} | "
                  f"{c['exploitability_mbb']:.6g} | {o['exploitability_mbb']:.6g} | {r['goal']} |")
    if "rhode_compressed" in by_case and "solverkit_compressed_over_float" in by_case["rhode_compressed"]:
        md += ["", f"solverkit s per iteration, compressed (cut after round 1, 1 thread) / float (uncut): "
                   f"{by_case['rhode_compressed']['solverkit_compressed_over_float']}; the C code's own: "
                   f"{ratio(by_case['rhode_compressed']['c']['seconds_per_iteration'], by_case['rhode_float']['c']['seconds_per_iteration'])}"
                   " (issue 16's goal, <= 1.5 for solverkit, is measured on the true game by "
                   "`bench/rhode_island.py --stores float compressed`)."]
    md += ["", "Commands: " + "; ".join(f"`{r['c']['command']}` / `{r['solverkit']['command']}`" for r in rows[:1]),
           "(the others in c_peer.json).", ""]
    (RESULTS / "c_peer.md").write_text("\n".join(md))
    print("\n".join(md))


if __name__ == "__main__":
    main()
