"""The PioSOLVER-verified spot of postflop-solver's test suite (configs/spot_preset.toml), solved to
0.1% of the pot: its root equity and EV against the published numbers, and its time and memory
against Desktop Postflop's published best (REFERENCE.md "No-limit": 266 core-seconds, 679 MB in
16-bit mode, 1.27 GB in 32-bit mode).

    python bench/spot_preset.py                      # solve (about 30 minutes on 2 busy cores)
    python bench/spot_preset.py --run DIR            # report a finished run of the same config

Writes bench/results/spot_preset.md and .json. Published: equity OOP 0.55347, IP 0.44653; EV OOP
105.11, IP 74.89 chips. The goal: equity within 1e-4 and EV within 0.5 chips.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("SOLVERKIT_AOT_BUILD", "0")  # timed solves start no background kernel build (core.aot_auto)

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "configs" / "spot_preset.toml"
PUBLISHED = {"equity": (0.55347, 0.44653), "ev": (105.11, 74.89)}
DESKTOP_POSTFLOP = {"core_seconds": 266.0, "rss_mb_16bit": 679.0, "rss_mb_32bit": 1270.0}


def solve(out: Path, threads: int, precision: str | None = None, split_round: int = 0) -> dict:
    """Run the solve under /usr/bin/time -v; (wall s, peak RSS MB) from its report."""
    cmd = ["/usr/bin/time", "-v", sys.executable, "-m", "solverkit", "solve", str(CONFIG), "--out", str(out), "--force",
           "--set", f"game.split_round={split_round}", "--set", "transport.name=local", "--set", f"transport.threads={threads}",
           *(["--set", f"store.precision={precision}"] if precision else [])]
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t
    if proc.returncode:
        sys.exit(f"solve failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    cpu = re.search(r"User time \(seconds\): ([\d.]+)", proc.stderr), re.search(r"System time \(seconds\): ([\d.]+)",
                                                                            proc.stderr)
    return {"wall_s": wall, "rss_mb": int(rss.group(1)) / 1024 if rss else None,
            "cpu_s": sum(float(m.group(1)) for m in cpu if m), "command": " ".join(cmd[2:])}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", type=Path, help="a finished run of configs/spot_preset.toml to report (no solve)")
    ap.add_argument("--out", type=Path, default=Path("runs/spot_preset"))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--split-round", type=int, default=0,
                    help="[game] split_round (0: the whole tree, its turn cards in chunks on the threads)")
    ap.add_argument("--time-log", type=Path, help="with --run: the /usr/bin/time -v output of that run")
    ap.add_argument("--precision", choices=("float64", "float32", "block16"), default=None,
                    help="[store] precision (default: the config's, float32, Desktop Postflop's 32-bit mode's "
                         "counterpart; block16: its 16-bit mode's)")
    ap.add_argument("--results", default="spot_preset", help="results file name under bench/results (no extension)")
    args = ap.parse_args(argv)
    timing = {}
    if args.run is not None and args.time_log is not None:
        log = args.time_log.read_text(errors="replace")
        rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", log)
        wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", log)
        cpu = [re.search(p, log) for p in (r"User time \(seconds\): ([\d.]+)", r"System time \(seconds\): ([\d.]+)")]
        parts = [float(x) for x in wall.group(1).split(":")] if wall else [0.0]
        secs = sum(x * 60 ** i for i, x in enumerate(reversed(parts)))
        cmd = re.search(r'Command being timed: "(.*)"', log)
        timing = {"wall_s": secs, "rss_mb": int(rss.group(1)) / 1024 if rss else None,
                  "cpu_s": sum(float(m.group(1)) for m in cpu if m), "command": cmd.group(1) if cmd else ""}
    run = args.run
    if run is None:
        run = args.out
        timing = solve(run, args.threads, args.precision, args.split_round)
    result = json.loads((run / "result.json").read_text())
    rows = []
    for key, unit in (("equity", ""), ("ev", " chips")):
        for p, who in enumerate(("OOP", "IP")):
            got, want = result[key][p], PUBLISHED[key][p]
            rows.append((f"{key} {who}", f"{got:.5f}{unit}", f"{want}{unit}", f"{got - want:+.5f}"))
    eq_ok = all(abs(result["equity"][p] - PUBLISHED["equity"][p]) <= 1e-4 for p in (0, 1))
    ev_ok = all(abs(result["ev"][p] - PUBLISHED["ev"][p]) <= 0.5 for p in (0, 1))
    lines = ["# The PioSOLVER-verified preset (configs/spot_preset.toml)", "",
             f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.",
             f"Solved to {result['exploitability']:.4f} % pot in {result['iterations']} iterations "
             f"({result['seconds']:.0f} s of solving).", "",
             "| quantity | solverkit | published | difference |", "| --- | --- | --- | --- |",
             *[f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows], "",
             f"- equity within 1e-4 of the published: {'yes' if eq_ok else 'no'}; EV within 0.5 chips: "
             f"{'yes' if ev_ok else 'no'}"]
    if timing:
        lines += [f"- wall {timing['wall_s']:.0f} s, CPU {timing['cpu_s']:.0f} core-seconds (Desktop Postflop's best "
                  f"published: {DESKTOP_POSTFLOP['core_seconds']:.0f}), peak RSS {timing['rss_mb']:.0f} MB "
                  f"(Desktop Postflop: {DESKTOP_POSTFLOP['rss_mb_16bit']:.0f} MB 16-bit, "
                  f"{DESKTOP_POSTFLOP['rss_mb_32bit']:.0f} MB 32-bit)", f"- command: `{timing['command']}`"]
    text = "\n".join(lines) + "\n"
    res = ROOT / "bench" / "results"
    res.mkdir(parents=True, exist_ok=True)
    (res / f"{args.results}.md").write_text(text)
    (res / f"{args.results}.json").write_text(json.dumps({"result": {k: result[k] for k in (
        "iterations", "exploitability", "seconds", "ev", "equity")}, "timing": timing, "published": PUBLISHED},
        indent=2) + "\n")
    print(text)


if __name__ == "__main__":
    main()
