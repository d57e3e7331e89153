"""Issue 30's automatic ahead-of-time build (:mod:`solverkit.core.aot_auto`), measured: per game,
with a fresh build root (``SOLVERKIT_AOT_DIR``, numba's own cache as it is), a first
``solverkit solve --game G --preset cfr_plus --iterations N --out D --force`` (numba's JIT; it
starts the background build), a wait for that build (its lock free, its manifest there), and the
same command again (the build): peak RSS and wall seconds of each (``/usr/bin/time -f "%M KB %e
s"``), whether the first said it started a build and how long the build took (its log).

    python bench/aot_auto.py [--games kuhn leduc] [--iterations 100]

Writes bench/results/aot_auto.md (replaced).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULT = ROOT / "bench" / "results" / "aot_auto.md"


def timed(cmd: list[str], env: dict) -> tuple[float, float, str]:
    """(peak RSS MB, wall s, stderr) of `cmd` under /usr/bin/time."""
    out = subprocess.run(["/usr/bin/time", "-f", "%M KB %e s", *cmd], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        raise SystemExit(f"{shlex.join(cmd)} failed:\n{out.stderr}")
    kb, wall = re.findall(r"(\d+) KB ([\d.]+) s", out.stderr)[-1]
    return int(kb) / 1024, float(wall), out.stderr


def wait_for_build(root: Path, timeout: float = 900.0) -> Path:
    """The build directory once its background build is done (lock free, manifest written)."""
    from solverkit.core.aot_build import lock_free

    deadline = time.time() + timeout
    while time.time() < deadline:
        dirs = [d for d in root.iterdir() if d.is_dir()] if root.exists() else []
        if dirs and (dirs[0] / "manifest.json").exists() and lock_free(dirs[0]):
            return dirs[0]
        time.sleep(0.5)
    raise SystemExit(f"no build in {root} after {timeout:.0f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="+", default=["kuhn", "leduc"])
    ap.add_argument("--iterations", type=int, default=100)
    args = ap.parse_args()
    rows, load = [], os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="aot-auto-") as tmp:
        for game in args.games:
            root = Path(tmp) / game / "aot"
            env = {**os.environ, "SOLVERKIT_AOT_DIR": str(root), "SOLVERKIT_AOT_BUILD": "1"}
            env.pop("SOLVERKIT_AOT", None)
            cmd = ["solverkit", "solve", "--game", game, "--preset", "cfr_plus", "--iterations",
                   str(args.iterations), "--out", str(Path(tmp) / game / "D"), "--force"]
            mb1, s1, err1 = timed(cmd, env)
            t0 = time.time()
            directory = wait_for_build(root)
            waited = time.time() - t0
            log = (directory / "auto-build.log").read_text()
            built = re.findall(r"built (\d+) kernel signatures in ([\d.]+) s", log)
            mb2, s2, err2 = timed(cmd, env)
            rows.append((game, mb1, s1, "in the background" in err1, waited, built, mb2, s2,
                         "in the background" in err2, shlex.join(cmd).replace(tmp, "$TMP")))
    lines = ["# Automatic ahead-of-time builds after a solve that needed numba (issue 30)", "",
             f"`python bench/aot_auto.py --games {' '.join(args.games)} --iterations {args.iterations}`, "
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average at start "
             f"{load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f} (2 shared cores: other sessions' work ran too).", "",
             "Per game, a fresh `SOLVERKIT_AOT_DIR` (numba's own cache warm), `SOLVERKIT_AOT_BUILD=1`; the command "
             "runs under `/usr/bin/time -f \"%M KB %e s\"` twice, the second once the background build that the "
             "first started is done.", "",
             "| game | 1st run (JIT) peak RSS | 1st wall | build started | waited for it | build | "
             "2nd run (build) peak RSS | 2nd wall | 2nd started one |", "|---|---|---|---|---|---|---|---|---|"]
    for game, mb1, s1, said1, waited, built, mb2, s2, said2, _ in rows:
        b = f"{built[-1][0]} signatures, {built[-1][1]} s" if built else "?"
        lines.append(f"| {game} | {mb1:.0f} MB | {s1:.2f} s | {'yes' if said1 else 'no'} | {waited:.1f} s | {b} | "
                     f"{mb2:.0f} MB | {s2:.2f} s | {'yes' if said2 else 'no'} |")
    lines += ["", "Commands:", ""] + [f"    SOLVERKIT_AOT_DIR=$TMP/{r[0]}/aot /usr/bin/time -f \"%M KB %e s\" {r[-1]}"
                                       for r in rows]
    RESULT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
