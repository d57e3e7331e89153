"""Rhode Island hold'em with CFR+ to 1 mbb/g: seconds, iterations and peak memory.

Two games, each solved by `solverkit solve` in a child process (so that its peak resident
memory is its own, from wait4): the true game (three-card straights and flushes; goal: under
5 minutes on 2 cores) and the ACPC-ranked variant (the "rhode.game" file ranked by the 5-card
evaluator). The peer for the ACPC variant is the original CFR+ C implementation, which
needs about 520 s single-threaded on this 2-core machine (../shared/REFERENCE.md and the
issue; it cannot be run here): goal at most 260 s. Both use configs/rhode_island.toml (CFR+,
cut after round 1, 2 subgame threads), exploitability evaluated about 20 times per decade.

    python bench/rhode_island.py [--games rhode_island rhode_island_acpc] [--stores float compressed]
                                [--threads 2] [--iterations N]

`--iterations N` runs N iterations (evaluated at the end only) instead of solving to 1 mbb/g: a
quicker same-run comparison of the stores' time per iteration.

`--stores`: `float` is the default store (float64 arrays in memory); `compressed` is the
fixed-point store of the original implementation (16 per chip, the previous hand in strength
order as predictor, blosc2 zstd level 1; subgames cut into 13 chunks of boards);
`compressed_lz4` and `compressed_huffman` swap the entropy stage; `compressed_held` is
`compressed` with ``[store] hold = "decoded"`` (the same numbers and stored bytes, values held
as float64 between updates). Rows of the same game are compared in the same run
(time and peak memory relative to the float store).

Results: bench/results/rhode_island.json and .md (float store only), or
bench/results/rhode_island_float_compressed.json and .md (the store comparison).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import md_table, write_results

os.environ.setdefault("SOLVERKIT_AOT_BUILD", "0")  # timed solves start no background kernel build (core.aot_auto)

ROOT = Path(__file__).resolve().parent.parent
C_CFR_PLUS_ACPC_SECONDS = 520.0  # original CFR+ C code, 1 thread, this machine (issue 3)
GOALS = {"rhode_island": 300.0, "rhode_island_acpc": 260.0}
STORES = {
    "float": [],
    "compressed": ["store.regret_scale=16", "store.avg_scale=16", "store.predictor=west", "compressor.name=blosc2",
                   "compressor.codec=zstd", "compressor.level=1", "compressor.filter=shuffle", "game.chunks=13"],
    # the same with lz4 as the entropy stage: faster, larger
    "compressed_lz4": ["store.regret_scale=16", "store.avg_scale=16", "store.predictor=west", "compressor.name=blosc2",
                       "compressor.codec=lz4", "compressor.level=1", "compressor.filter=shuffle", "game.chunks=13"],
    # the same with solverkit's own entropy coder (numba Huffman of the residuals' bit lengths)
    "compressed_huffman": ["store.regret_scale=16", "store.avg_scale=16", "store.predictor=west",
                           "compressor.name=huffman", "game.chunks=13"],
    # the compressed store's numbers held decoded (rounded after every update, encoded only
    # to report the stored size): float-store memory, for precision studies such as Figure 1c/1d
    "compressed_held": ["store.regret_scale=16", "store.avg_scale=16", "store.predictor=west", "compressor.name=blosc2",
                        "compressor.codec=zstd", "compressor.level=1", "compressor.filter=shuffle", "game.chunks=13",
                        "store.hold=decoded"],
}


def solve(game: str, threads: int, out: Path, store: str = "float", iterations: int = 0) -> dict:
    cmd = [
        sys.executable, "-c", "from solverkit.cli import cli; cli()", "solve", str(ROOT / "configs" / "rhode_island.toml"),
        "--out", str(out), "--set", f"game.name={game}", "--set", f"transport.threads={threads}", "--quiet",
    ]
    for item in STORES[store]:
        cmd += ["--set", item]
    if iterations:  # a fixed number of iterations, evaluated at the end only (a quick time comparison)
        cmd += ["--set", f"solver.iterations={iterations}", "--set", "solver.target_mbb=0",
                "--set", f"solver.eval_every={iterations}"]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    stdout = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if status != 0:
        raise SystemExit(f"{' '.join(cmd)} failed with status {status}:\n{stdout}")
    result = json.loads((out / "result.json").read_text())
    return {
        "game": game,
        "store": store,
        "iterations": result["iterations"],
        "solve_seconds": round(result["seconds"], 1),
        "wall_seconds": round(wall, 1),
        "exploitability_mbb": result.get("exploitability_mbb"),
        "reached_1_mbb": result["reached_target"],
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
        "stored_mb": round(result["stored_bytes"] / 1e6, 1),
        "compression_ratio": round(result["compression_ratio"], 2),
        "goal_seconds": GOALS.get(game),
        "last_line": stdout.strip().splitlines()[-1] if stdout.strip() else "",
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="+", default=["rhode_island", "rhode_island_acpc"])
    ap.add_argument("--stores", nargs="+", default=["float"], choices=sorted(STORES))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=0, help="run this many iterations instead of to 1 mbb/g")
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for game in args.games:
            base = None
            for store in args.stores:
                row = solve(game, args.threads, Path(tmp) / f"{game}-{store}", store, args.iterations)
                if game == "rhode_island_acpc":
                    row["c_cfr_plus_seconds"] = C_CFR_PLUS_ACPC_SECONDS
                    row["speedup_vs_c"] = round(C_CFR_PLUS_ACPC_SECONDS / row["solve_seconds"], 2)
                base = base or row
                row["time_vs_float"] = round(row["solve_seconds"] / base["solve_seconds"], 2) if base["store"] == "float" else None
                row["rss_vs_float"] = round(row["peak_rss_mb"] / base["peak_rss_mb"], 2) if base["store"] == "float" else None
                rows.append(row)
                print(json.dumps(row), flush=True)
    result = {
        "command": " ".join(["python bench/rhode_island.py", *(argv if argv is not None else sys.argv[1:])]),
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
        "date": time.strftime("%Y-%m-%d"),
        "rows": rows,
    }
    # the store comparison gets files of its own, so both results can stand side by side
    stem = "rhode_island" if args.stores == ["float"] else "rhode_island_" + "_".join(args.stores)
    if args.iterations:
        stem += f"_{args.iterations}it"
    lines = [
        "# Rhode Island hold'em, CFR+ to 1 mbb/g",
        "",
        f"`{result['command']}` on {result['machine']}, {result['date']}.",
        "",
        *md_table(["game", "store", "iterations", "solve s", "wall s", "mbb/g", "peak RSS MB", "stored MB", "ratio",
                   "time vs float", "RSS vs float", "goal s", "C CFR+ s / ours"],
                  ([r["game"], r["store"], r["iterations"], r["solve_seconds"], r["wall_seconds"],
                    f"{r['exploitability_mbb']:.3f}", r["peak_rss_mb"], r["stored_mb"], r["compression_ratio"],
                    r["time_vs_float"] or "", r["rss_vs_float"] or "", r["goal_seconds"], r.get("speedup_vs_c", "")]
                   for r in rows)),
    ]
    text = "\n".join(lines) + "\n"
    write_results(stem, result, text)
    print(text, end="")


if __name__ == "__main__":
    main()
