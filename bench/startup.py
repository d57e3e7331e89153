"""Start-up of a warm 1-iteration solve: wall seconds, CPU seconds, seconds to the first iteration and peak RSS.

Runs `python -m solverkit solve --game GAME --preset cfr_plus --iterations 1 --quiet` (each of `--games`) in child
processes, round by round interleaving this checkout, the checkout of an earlier commit given as
`--baseline` (a `git worktree add DIR COMMIT`: numba's cache is per source path, so its first run
may compile), this checkout with numba's own registry refresh at each cache load
(`SOLVERKIT_NUMBA_REFRESH=1`, the load before solverkit.core.numba_load), and the floors any numba
program pays (`python -c pass`, `import numpy`, `import numba`). Each checkout runs from its own
tree (PYTHONPATH: the checkout and its plugins/ as solverkit_* packages), after one untimed run
that fills numba's cache and writes the bytecode (PYTHONDONTWRITEBYTECODE is unset in the children:
a stale .pyc otherwise costs a compile at every start). Min and median over `--rounds`. Start-up =
`result.json` `startup_seconds`; CPU = the child's user + system seconds (what a busy machine
inflates least: compare checkouts by it when the load average is above the core count). The
load average is recorded before and after each game. Results: bench/results/startup.{json,md}.

    python bench/startup.py [--games kuhn leduc] [--rounds 5] [--baseline /tmp/su_base] [--note TEXT]
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
FLOORS = {"python -c pass": "pass", "import numpy": "import numpy", "import numba": "import numba"}


def child(cmd: list[str], env: dict | None = None, cwd=None) -> tuple[float, float, float]:
    """(wall seconds, peak RSS MB, CPU seconds: user + system) of one child process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=cwd)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{err.decode()[-2000:]}")
    return time.perf_counter() - t0, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def checkout_env(root: Path, links: Path, extra: dict | None = None) -> dict:
    """The environment that runs solverkit and its plugins from checkout `root`: plugins/NAME is
    importable as solverkit_NAME through symbolic links in `links` (entry points name those)."""
    links.mkdir(parents=True, exist_ok=True)
    for plugin in (root / "plugins").iterdir():
        if (plugin / "__init__.py").is_file():
            (links / f"solverkit_{plugin.name}").symlink_to(plugin, target_is_directory=True)
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONDONTWRITEBYTECODE", "SOLVERKIT_NUMBA_REFRESH", "SOLVERKIT_NUMBA_BLAS")}
    return {**env, "PYTHONPATH": os.pathsep.join([str(root), str(links)]), **(extra or {})}


def describe(root: Path) -> str:
    """The checkout's commit, short, and "+ edits" when tracked files (results aside) differ from it."""
    git = ["git", "-C", str(root)]
    commit = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True)
    edited = subprocess.run([*git, "diff", "--quiet", "HEAD", "--", ".", ":!bench/results"]).returncode != 0
    return commit.stdout.strip() + (" + edits" if edited else "")


def measure(game: str, variants: dict, this: str, rounds: int, tmp: Path) -> dict:
    """One game's rows, every variant and floor run `rounds` times, interleaved."""
    solve = [sys.executable, "-m", "solverkit", "solve", "--game", game, "--preset", "cfr_plus",
             "--iterations", "1", "--quiet"]
    for i, env in enumerate(variants.values()):  # numba's cache filled, bytecode written, before any timing
        child([*solve, "--out", str(tmp / f"warm-{game}-{i}")], env=env, cwd=tmp)
    load_before = os.getloadavg()
    samples: dict[str, list[tuple[float, float, float, float]]] = {k: [] for k in [*variants, *FLOORS]}
    for r in range(rounds):
        for i, (name, env) in enumerate(variants.items()):
            out = tmp / f"run-{game}-{r}-{i}"
            wall, rss, cpu = child([*solve, "--out", str(out)], env=env, cwd=tmp)
            startup = json.loads((out / "result.json").read_text())["startup_seconds"]
            samples[name].append((startup, wall, rss, cpu))
        for name, code in FLOORS.items():
            wall, rss, cpu = child([sys.executable, "-c", code], env=variants[this], cwd=tmp)
            samples[name].append((wall, wall, rss, cpu))
    rows = [{"what": name, "wall_min_s": min(s[1] for s in runs), "wall_median_s": statistics.median(s[1] for s in runs),
             "cpu_min_s": min(s[3] for s in runs), "cpu_median_s": statistics.median(s[3] for s in runs),
             "startup_min_s": min(s[0] for s in runs), "peak_rss_mb": statistics.median(s[2] for s in runs)}
            for name, runs in samples.items()]
    return {"game": game, "solve": " ".join(["python -m solverkit", *solve[3:]]),
            "load_before": [round(x, 2) for x in load_before], "load_after": [round(x, 2) for x in os.getloadavg()],
            "rows": rows}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="+", default=["kuhn", "leduc"])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--baseline", type=Path, help="a checkout (git worktree) of an earlier commit, run the same way")
    ap.add_argument("--note", default="", help="a sentence for the results (what the checkouts hold)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        this = f"this checkout ({describe(ROOT)})"
        variants = {this: checkout_env(ROOT, tmp / "links-this")}
        if args.baseline is not None:
            variants[f"baseline ({describe(args.baseline)})"] = checkout_env(args.baseline.resolve(), tmp / "links-base")
        variants[f"{this}, SOLVERKIT_NUMBA_REFRESH=1"] = checkout_env(
            ROOT, tmp / "links-refresh", {"SOLVERKIT_NUMBA_REFRESH": "1"})
        games = [measure(game, variants, this, args.rounds, tmp) for game in args.games]
    command = f"python bench/startup.py --games {' '.join(args.games)} --rounds {args.rounds}" + (
        f" --baseline {args.baseline}" if args.baseline is not None else "") + (" --note TEXT" if args.note else "")
    result = {"command": command, "date": time.strftime("%Y-%m-%d %H:%M"), "cores": os.cpu_count(),
              "rounds": args.rounds, "games": games}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "startup.json").write_text(json.dumps(result, indent=2) + "\n")
    md = ["# Start-up of a warm 1-iteration solve", "",
          f"`{command}`, {result['date']}, {result['cores']} cores (shared with other work: compare rows of one "
          f"table only); {args.rounds} rounds, interleaved, after one untimed warm run each (numba's cache filled, "
          "bytecode written). Wall = process start to exit; CPU = user + system seconds of the process (a busy "
          "machine inflates it least); start-up = to the first iteration (`startup_seconds`); for the floors, the "
          "process wall time. Goal (issue 30): wall < 0.5 s warm, on an idle machine.",
          *([f"{args.note}"] if args.note else [])]
    for g in games:
        md += ["", f"## `{g['solve']}`", "",
               f"Load average (1/5/15 min) before {'/'.join(map(str, g['load_before']))}, "
               f"after {'/'.join(map(str, g['load_after']))}.", "",
               "| what | wall min s | wall median s | CPU min s | CPU median s | start-up min s | peak RSS MB |",
               "|---|---|---|---|---|---|---|"]
        md += [f"| {r['what']} | {r['wall_min_s']:.3f} | {r['wall_median_s']:.3f} | {r['cpu_min_s']:.3f} | "
               f"{r['cpu_median_s']:.3f} | {r['startup_min_s']:.3f} | {r['peak_rss_mb']:.0f} |" for r in g["rows"]]
    (RESULTS / "startup.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
