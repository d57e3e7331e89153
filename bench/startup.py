"""Start-up of `solverkit solve` on Leduc: seconds to the first iteration and peak RSS, same run.

Runs `solverkit solve --game leduc --preset cfr_plus --iterations 1 --quiet` in child processes,
alternating the default start-up with the one before the change (`SOLVERKIT_NUMBA_BLAS=1`:
numba's first kernel load imports scipy.linalg), plus the floors any numba program pays
(`python -c pass`, `import numpy`, `import numba`). Medians over `--rounds`; numba's cache is
warmed by one untimed solve first. Start-up = `result.json` `startup_seconds`; the floors are
their process wall time. Results: bench/results/startup.{json,md}.

    python bench/startup.py [--rounds 7]
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
SOLVE = [sys.executable, "-m", "solverkit", "solve", "--game", "leduc", "--preset", "cfr_plus", "--iterations", "1",
         "--quiet"]
FLOORS = {"python -c pass": "pass", "import numpy": "import numpy", "import numba": "import numba"}


def child(cmd: list[str], env: dict | None = None) -> tuple[float, float]:
    """(wall seconds, peak RSS MB) of one child process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{err.decode()[-2000:]}")
    return time.perf_counter() - t0, usage.ru_maxrss / 1024


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args(argv)
    variants = {"before (scipy.linalg at the first kernel load)": {"SOLVERKIT_NUMBA_BLAS": "1"}, "after": {}}
    samples: dict[str, list[tuple[float, float, float]]] = {k: [] for k in [*variants, *FLOORS]}
    with tempfile.TemporaryDirectory() as tmp:
        child([*SOLVE, "--out", f"{tmp}/warm"])  # numba's cache filled before anything is timed
        for r in range(args.rounds):
            for name, extra in variants.items():
                out = Path(tmp) / f"{len(samples[name])}-{r}-{'a' if not extra else 'b'}"
                wall, rss = child([*SOLVE, "--out", str(out)], env={**os.environ, **extra})
                startup = json.loads((out / "result.json").read_text())["startup_seconds"]
                samples[name].append((startup, wall, rss))
            for name, code in FLOORS.items():
                wall, rss = child([sys.executable, "-c", code])
                samples[name].append((wall, wall, rss))
    rows = [{"what": name, "startup_s": statistics.median(s[0] for s in runs),
             "wall_s": statistics.median(s[1] for s in runs), "peak_rss_mb": statistics.median(s[2] for s in runs)}
            for name, runs in samples.items()]
    result = {"command": " ".join(["python bench/startup.py", *(argv if argv is not None else sys.argv[1:])]),
              "date": time.strftime("%Y-%m-%d %H:%M"), "cores": os.cpu_count(), "rows": rows}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "startup.json").write_text(json.dumps(result, indent=2) + "\n")
    md = ["# Start-up of `solverkit solve --game leduc --preset cfr_plus --iterations 1 --quiet`", "",
          f"`{result['command']}`, {result['date']}, {result['cores']} cores; medians of {args.rounds} rounds, "
          "interleaved. Start-up = process start to the first iteration (`startup_seconds`); for the floors, "
          "the process wall time. Goal (issue 16): <= 1 s and <= 100 MB.", "",
          "| what | start-up s | wall s | peak RSS MB |", "|---|---|---|---|"]
    md += [f"| {r['what']} | {r['startup_s']:.2f} | {r['wall_s']:.2f} | {r['peak_rss_mb']:.0f} |" for r in rows]
    (RESULTS / "startup.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
