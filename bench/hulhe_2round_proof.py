"""The mid-scale proof of the distributed solver, summarised from its run directory.

The run: full-deck two-round hold'em (``configs/hulhe_2round.toml``: 90,076,792 information
sets up to suits) solved with CFR+ through the zmq transport, two worker processes, the
compressed fixed-point store on disk with prefetch and write-behind, and checkpoints:

    /usr/bin/time -v solverkit solve configs/hulhe_2round.toml --out RUN --checkpoint-every 10m \\
        --set solver.eval_every=25 2> RUN.time          # (and `solverkit solve --resume RUN` after a stop)
    python bench/hulhe_2round_proof.py RUN [--time-log RUN.time ...]

Reads RUN/config.toml, metrics.csv and result.json (and the `time -v` logs of the trunk
process, when given) and writes bench/results/hulhe_2round_proof.json and .md: iterations and
solve time to the target, exploitability curve, peak memory per process (trunk and each
worker), bytes stored, compression ratio, bytes on the wire.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from pathlib import Path

from common import write_results


def time_log(path: Path) -> dict:
    """Maximum RSS (MB), wall seconds and exit status of one `/usr/bin/time -v` log."""
    text = path.read_text(errors="replace")
    out = {}
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    if m:
        out["max_rss_mb"] = int(m.group(1)) / 1024
    m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", text)
    if m:
        secs = 0.0
        for part in m.group(1).split(":"):
            secs = 60 * secs + float(part)
        out["wall_s"] = secs
    m = re.search(r"Exit status: (\d+)", text)
    if m:
        out["exit_status"] = int(m.group(1))
    return out


def summarise(run: Path, logs: list[Path], history: str = "") -> dict:
    result = json.loads((run / "result.json").read_text())
    with open(run / "metrics.csv") as fh:
        rows = [{k: float(v) for k, v in row.items() if v != ""} for row in csv.DictReader(fh)]
    seen, curve = set(), []
    for row in rows:  # a resumed run repeats the rows before its checkpoint
        it = int(row["iteration"])
        if it not in seen:
            seen.add(it)
            curve.append({"iteration": it, "seconds": row["seconds"], "mbb": row["exploitability_mbb"],
                          "stored_bytes": int(row.get("stored_bytes", 0)), "ratio": row.get("compression_ratio")})
    wire = {k: result[k] for k in ("wire_bytes_sent", "wire_bytes_received") if k in result}
    return {
        "run": str(run),
        "config": (run / "config.toml").read_text(),
        "iterations": result["iterations"],
        "seconds": result["seconds"],
        "exploitability_mbb": result["exploitability_mbb"],
        "reached_target": result.get("reached_target"),
        "target_mbb": result.get("target_mbb"),
        "stored_bytes": result["stored_bytes"],
        "compression_ratio": result["compression_ratio"],
        "trunk_peak_rss_mb": result["peak_rss_mb"],
        "workers": result.get("workers", []),
        "wire": wire,
        "curve": curve,
        "time_logs": {str(p): time_log(p) for p in logs},
        "history": history,
        "command": "python bench/hulhe_2round_proof.py " + " ".join(sys.argv[1:]),
    }


def markdown(r: dict) -> str:
    mb = 1e6
    lines = [
        "# Mid-scale proof: full-deck two-round hold'em through zmq",
        "",
        f"Run `{r['run']}` (assembly `configs/hulhe_2round.toml`: CFR+, 2 spawned zmq workers of 1 thread, fixed "
        "point 16 per chip, blosc2, disk store with prefetch and write-behind, checkpoints every 10 minutes), "
        f"summarised by `{r['command']}`.",
        "",
        f"**{r['iterations']} iterations, {r['seconds']:,.0f} s of solve time, exploitability "
        f"{r['exploitability_mbb']:.3f} mbb/g** (target {r['target_mbb']:g}: "
        f"{'reached, confirmed on the trunk by an exact evaluation' if r['reached_target'] else 'not reached'}).",
        "",
        "| process | peak RSS (MB) | subgames | stored (MB) |",
        "|---|---|---|---|",
        f"| trunk | {r['trunk_peak_rss_mb']:.0f} | - | - |",
    ]
    for w in r["workers"]:
        lines.append(f"| worker {w['worker']} | {w['peak_rss_mb']:.0f} | {w['subgames']} | {w['stored_bytes'] / mb:.0f} |")
    lines += [
        "",
        f"Stored: {r['stored_bytes'] / mb:,.0f} MB ({r['compression_ratio']:.2f}:1 against 4-byte floats).",
    ]
    if r["wire"]:
        lines.append(f"On the wire (the trunk's socket, since the last start of the trunk process): "
                     f"{r['wire'].get('wire_bytes_sent', 0) / 1e9:.2f} GB sent, "
                     f"{r['wire'].get('wire_bytes_received', 0) / 1e9:.2f} GB received (reach vectors down and "
                     "values up for every CFR and best-response pass, and, with `checkpoint = \"file\"`, every "
                     "worker segment fetched for each checkpoint, the final strategy and the trunk's confirmation "
                     "of the target).")
    if r.get("history"):
        lines.append(r["history"])
    for path, t in r["time_logs"].items():
        lines.append(f"`time -v` of the trunk's command ({Path(path).name}): max RSS {t.get('max_rss_mb', 0):.0f} MB "
                     f"(the largest single process), wall {t.get('wall_s', 0):,.0f} s, exit status {t.get('exit_status')}.")
    lines += ["", "| iteration | solve seconds | exploitability (mbb/g) | stored (MB) | ratio |", "|---|---|---|---|---|"]
    for c in r["curve"]:
        lines.append(f"| {c['iteration']} | {c['seconds']:,.0f} | {c['mbb']:.3f} | {c['stored_bytes'] / mb:.0f} | "
                     f"{c['ratio']:.2f} |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", type=Path, help="the run directory")
    ap.add_argument("--time-log", type=Path, action="append", default=[], help="a `/usr/bin/time -v` log of the trunk")
    ap.add_argument("--history", default="", help="a line on how the run went (stops, resumes), printed as given")
    args = ap.parse_args()
    r = summarise(args.run, args.time_log, args.history)
    text = markdown(r)
    write_results("hulhe_2round_proof", r, text)
    print(text)


if __name__ == "__main__":
    main()
