"""CFR+ side by side with LiteEFG: microseconds per iteration, NashConv after the same iterations,
peak memory (and OpenSpiel's C++ CFR+ memory, the issue's yardstick) and warm start-up, on Kuhn,
Leduc, Leduc with 13 ranks, liar's dice and Goofspiel(4).

Each program runs in its own child process on one thread: LiteEFG under its own interpreter
(``--liteefg-python``, a venv with LiteEFG and its own open_spiel) and solverkit under this one.
The parent interleaves them: it asks one child for a block of iterations, then the other, so
background load falls on both alike; per-iteration times are medians of the blocks. Peak RSS is
each child's ``wait4`` maximum. A LiteEFG iteration is what its ``baselines.utils.train`` runs:
``graph.update_graph(env)`` (CFR+: regret-matching+ of player 1, then of player 2) and
``env.update_strategy(...)`` (the linear average, kept by the environment in sequence form);
solverkit's is ``Solver.step`` with the ``cfr_plus`` preset (RM+, linear average, alternating),
``[transport] threads = 1``. Both sides read their enumerated OpenSpiel games from their own disk
caches (``~/game_instances``, ``~/.cache/solverkit/trees``), filled by an untimed first run.

Same game on both sides: each program's best-response NashConv of the uniform strategy must
agree (to 1e-9; pyspiel.nash_conv of the uniform policy is the third, independent opinion).

    python bench/liteefg.py                 # about 4 minutes on the shared 2-core machine
    python bench/liteefg.py --quick         # under 1.5 minutes: fewer iterations, no start-up rounds
    python bench/liteefg.py --games kuhn leduc --startup-rounds 0

Over 500 lines on purpose: one script, since both children, the interleaving parent and the
report must agree on one protocol.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from common import md_table, write_results

ROOT = Path(__file__).resolve().parent.parent
LITEEFG_PYTHON = "/tmp/lvenv/bin/python"
ONE_THREAD = {k: "1" for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")}


def _universal_leduc(ranks: int) -> str:
    """OpenSpiel's universal_poker string of solverkit's bundled Leduc file with `ranks` ranks."""
    return ("universal_poker(betting=limit,numPlayers=2,numRounds=2,blind=1 1,raiseSize=2 4,firstPlayer=1 1,"
            f"maxRaises=2 2,numSuits=2,numRanks={ranks},numHoleCards=1,numBoardCards=0 1)")


GOOFSPIEL4 = "goofspiel(num_cards=4,imp_info=True,points_order=descending)"
#: key -> (label, solverkit [game] table, OpenSpiel string, iterations, block, quick iterations, quick block)
GAMES = {
    "kuhn": ("Kuhn", {"name": "kuhn"}, "kuhn_poker", 10000, 1000, 2000, 500),
    "leduc": ("Leduc", {"name": "leduc"}, "leduc_poker", 400, 40, 100, 25),
    "leduc13": ("Leduc, 13 ranks", {"name": "acpc", "gamedef": "leduc13"}, _universal_leduc(13), 12, 2, 4, 2),
    "liars_dice": ("Liar's dice (1 die, 6 sides)", {"name": "openspiel", "game": "liars_dice"}, "liars_dice",
                   20, 2, 6, 2),
    "goofspiel4": ("Goofspiel(4), imperfect info", {"name": "openspiel", "game": GOOFSPIEL4}, GOOFSPIEL4,
                   2000, 200, 400, 100),
}
#: games whose poker engine folds suits together by default: also run without it
ISOMORPHIC = ("leduc", "leduc13")


# ---------------------------------------------------------------------------------------------
# children: one program each, answering the parent's lines on a private copy of stdout


class _Program:
    """One solver in a child process: build(), run(n) iterations, nash_conv() of its output."""

    def parts(self) -> dict:
        return {}


class _LiteEFG(_Program):
    def __init__(self, spec: str):
        import contextlib
        import io

        import LiteEFG as leg
        import pyspiel
        from LiteEFG.baselines.CFRplus import graph

        leg.set_threads(1)  # the default already; LiteEFG's own pool is its only source of threads
        self.threads = leg.get_threads()
        with contextlib.redirect_stdout(io.StringIO()):  # the graph prints a banner
            self.graph = graph()
        self.env = leg.OpenSpielEnv(pyspiel.load_game(spec), traverse_type="Enumerate", regenerate=False)
        self.env.set_graph(self.graph)
        self._t = [0.0, 0.0]

    def run(self, n: int) -> None:
        g, env, clock = self.graph, self.env, time.perf_counter
        ta = tb = 0.0
        for _ in range(n):
            t0 = clock()
            g.update_graph(env)
            t1 = clock()
            env.update_strategy(g.current_strategy(), update_best=False)
            t2 = clock()
            ta += t1 - t0
            tb += t2 - t1
        self._t = [ta, tb]

    def parts(self) -> dict:
        return {"update_graph": self._t[0], "update_strategy": self._t[1]}

    def nash_conv(self) -> float:
        return float(sum(self.env.exploitability(self.graph.current_strategy(), "linear-avg-iterate")))

    def current_nash_conv(self) -> float:
        """The last iterate's (update_strategy recorded it after the last update_graph)."""
        return float(sum(self.env.exploitability(self.graph.current_strategy(), "last-iterate")))

    def uniform_nash_conv(self) -> float:
        self.env.update_strategy(self.graph.current_strategy(), update_best=False)
        return float(sum(self.env.exploitability(self.graph.current_strategy(), "last-iterate")))


class _Solverkit(_Program):
    def __init__(self, table: dict):
        sys.path.insert(0, str(ROOT))
        from solverkit.core.config import load_config
        from solverkit.core.solver import Solver

        self.solver = Solver(load_config({"preset": "cfr_plus", "game": table,
                                          "transport": {"name": "local", "threads": 1}}))
        self.threads = 1

    def run(self, n: int) -> None:
        self.solver.step(n)

    def nash_conv(self) -> float:
        row = self.solver.evaluate(exact=True)
        return float(row["br_0"] + row["br_1"])

    def current_nash_conv(self) -> float:
        s = self.solver
        return float(sum(s.game.best_response(s.strategy("current"))))

    def uniform_nash_conv(self) -> float:
        s = self.solver
        return float(sum(s.game.best_response(s.strategy("current"))))


class _OpenSpiel(_Program):
    """OpenSpiel's C++ CFR+ (pyspiel.CFRPlusSolver): only its memory and uniform NashConv are used."""

    def __init__(self, spec: str):
        import pyspiel

        self.pyspiel = pyspiel
        self.game = pyspiel.load_game(spec)
        if self.game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
            self.game = pyspiel.convert_to_turn_based(self.game)
        self.solver = None
        self.threads = 1

    def run(self, n: int) -> None:
        if self.solver is None:
            self.solver = self.pyspiel.CFRPlusSolver(self.game)
        for _ in range(n):
            self.solver.evaluate_and_update_policy()

    def nash_conv(self) -> float:
        return float(self.pyspiel.nash_conv(self.game, self.solver.average_policy()))

    def uniform_nash_conv(self) -> float:
        return float(self.pyspiel.nash_conv(self.game, self.pyspiel.UniformRandomPolicy(self.game)))


def _os_threads() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    return -1


def worker(program: str, key: str, mode: str) -> None:
    """A child: builds `program` on game `key`, then answers lines on stdin ("run N", "nash_conv",
    "quit") with one JSON line each. Everything else the libraries print goes to stderr."""
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    _label, table, spec = GAMES[key][:3]
    t0 = time.perf_counter()
    prog = {"liteefg": lambda: _LiteEFG(spec), "solverkit": lambda: _Solverkit(table),
            "openspiel": lambda: _OpenSpiel(spec)}[program]()
    built = time.perf_counter() - t0

    def say(obj):
        out.write(json.dumps(obj) + "\n")
        out.flush()

    if mode == "oneshot":  # a 1-iteration solve; the parent times the whole process
        prog.run(1)
        return
    if mode == "uniform":
        say({"uniform_nash_conv": prog.uniform_nash_conv()})
        return
    say({"ready": True, "build_seconds": built, "threads_setting": prog.threads})
    for line in sys.stdin:
        cmd = line.split()
        if cmd[0] == "run":
            n = int(cmd[1])
            c0, t0 = time.process_time(), time.perf_counter()
            prog.run(n)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            say({"seconds": wall, "cpu_seconds": cpu, "parts": prog.parts()})
        elif cmd[0] == "nash_conv":
            t0 = time.perf_counter()
            value = prog.nash_conv()
            say({"nash_conv": value, "seconds": time.perf_counter() - t0, "current": prog.current_nash_conv()})
        elif cmd[0] == "quit":
            say({"os_threads": _os_threads()})
            return


# ---------------------------------------------------------------------------------------------
# the parent


class Child:
    """A worker process and its pipes; peak RSS from wait4 when it ends."""

    def __init__(self, python: str, program: str, key: str, mode: str = "serve"):
        env = {**os.environ, **ONE_THREAD}
        cmd = [python, str(Path(__file__).resolve()), "--worker", program, "--game", key, "--mode", mode]
        self.t0 = time.perf_counter()
        self.err = tempfile.TemporaryFile(mode="w+")  # a file, not a pipe: a chatty child never blocks
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err,
                                     text=True, env=env, cwd=tempfile.gettempdir())
        self.name = f"{program} {key}"
        self.peak_rss_mb = None

    def ask(self, line: str | None = None) -> dict:
        if line is not None:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        reply = self.proc.stdout.readline()
        if not reply:
            self.finish()
        return json.loads(reply)

    def finish(self) -> float:
        """Wait for the child; its wall seconds since start (peak RSS kept)."""
        for f in (self.proc.stdin, self.proc.stdout):
            f.close()
        _, status, usage = os.wait4(self.proc.pid, 0)
        wall = time.perf_counter() - self.t0
        self.proc.returncode = status
        self.err.seek(0)
        err = self.err.read()
        self.err.close()
        if status != 0:
            raise SystemExit(f"{self.name} failed (status {status}):\n{err[-3000:]}")
        self.peak_rss_mb = usage.ru_maxrss / 1024
        return wall


def measure_game(key: str, args) -> dict:
    label, table, spec, iters, block, q_iters, q_block = GAMES[key]
    if args.quick:
        iters, block = q_iters, q_block
    programs = {"liteefg": (args.liteefg_python, "liteefg"), "solverkit": (sys.executable, "solverkit")}
    if key in ISOMORPHIC:
        programs["solverkit_noiso"] = (sys.executable, "solverkit_noiso")
    # untimed: fills LiteEFG's and solverkit's game caches and numba's, and checks the game is the same
    uniform = {}
    for name, (python, prog) in programs.items():
        c = Child(python, prog, key, "uniform")
        uniform[name] = c.ask()["uniform_nash_conv"]
        c.finish()
    if not args.quick:
        c = Child(sys.executable, "openspiel", key, "uniform")
        uniform["openspiel"] = c.ask()["uniform_nash_conv"]
        c.finish()
    ref = uniform["solverkit"]
    same = all(abs(v - ref) <= 1e-9 * max(1.0, abs(ref)) for v in uniform.values())
    # the interleaved run
    children = {name: Child(python, prog, key) for name, (python, prog) in programs.items()}
    ready = {name: c.ask() for name, c in children.items()}
    for c in children.values():
        c.ask("run 1")  # the first iteration: one-time set-up (LiteEFG's Initialize, numba's cache load)
    nc1 = {name: c.ask("nash_conv")["nash_conv"] for name, c in children.items()}
    warm = max(block, 4)  # untimed: solverkit steps iterations 2-3 one by one, then loads its block kernel
    for c in children.values():
        c.ask(f"run {warm}")
    blocks = {name: [] for name in children}
    cpu = {name: 0.0 for name in children}
    wall = {name: 0.0 for name in children}
    parts = {name: {} for name in children}
    done = 1 + warm
    while done < 1 + warm + iters:
        n = min(block, 1 + warm + iters - done)
        for name, c in children.items():
            r = c.ask(f"run {n}")
            blocks[name].append(r["seconds"] / n)
            cpu[name] += r["cpu_seconds"]
            wall[name] += r["seconds"]
            for k, v in r["parts"].items():
                parts[name][k] = parts[name].get(k, 0.0) + v
        done += n
    ncN, current, eval_s, threads = {}, {}, {}, {}
    for name, c in children.items():
        r = c.ask("nash_conv")
        ncN[name], current[name], eval_s[name] = r["nash_conv"], r["current"], r["seconds"]
        threads[name] = c.ask("quit")["os_threads"]
        c.finish()
    rss = {name: c.peak_rss_mb for name, c in children.items()}
    # OpenSpiel's C++ CFR+: peak memory of a process that builds its solver and runs 2 iterations
    c = Child(sys.executable, "openspiel", key)
    c.ask()
    t0 = time.perf_counter()
    c.ask("run 2")
    os_iter = (time.perf_counter() - t0) / 2
    c.ask("quit")
    c.finish()
    rss["openspiel"] = c.peak_rss_mb
    # warm start-up: a whole process that builds the game and solver and runs one iteration
    startup = {name: [] for name in programs}
    for _ in range(args.startup_rounds):
        for name, (python, prog) in programs.items():
            if name == "solverkit_noiso":
                continue
            startup[name].append(Child(python, prog, key, "oneshot").finish())
    per_it = {name: statistics.median(v) for name, v in blocks.items()}
    return {
        "key": key, "game": label, "solverkit_game": table, "openspiel_game": spec, "iterations": done, "timed_iterations": iters,
        "block": block, "blocks": len(blocks["liteefg"]), "uniform_nash_conv": uniform, "same_game": same,
        "build_seconds": {k: v["build_seconds"] for k, v in ready.items()},
        "seconds_per_iteration": per_it, "block_seconds_per_iteration": blocks,
        "ratio_vs_liteefg": {k: per_it[k] / per_it["liteefg"] for k in per_it if k != "liteefg"},
        "cpu_over_wall": {k: cpu[k] / wall[k] for k in wall if wall[k] > 0},
        "liteefg_parts_per_iteration": {k: v / iters for k, v in parts["liteefg"].items()},
        "nash_conv_iteration_1": nc1, "nash_conv": ncN, "current_nash_conv": current, "eval_seconds": eval_s, "os_threads": threads,
        "peak_rss_mb": rss, "openspiel_seconds_per_iteration": os_iter,
        "startup_seconds": {k: v for k, v in startup.items() if v},
    }


def floors(liteefg_python: str) -> dict:
    """Peak RSS (MB) and wall seconds of processes that only import: what any program built on
    these libraries pays before it holds a game."""
    cases = {
        "python -c pass": (sys.executable, "pass"),
        "import numpy": (sys.executable, "import numpy"),
        "import numba": (sys.executable, "import numba"),
        "import pyspiel": (sys.executable, "import pyspiel"),
        "solverkit: load_config(kuhn, cfr_plus), no iteration": (
            sys.executable, "from solverkit.core.config import load_config; from solverkit.core.solver import Solver; "
            "load_config({'preset': 'cfr_plus', 'game': {'name': 'kuhn'}})"),
        "import LiteEFG (its venv)": (liteefg_python, "import LiteEFG"),
    }
    out = {}
    for name, (python, code) in cases.items():
        t0 = time.perf_counter()
        proc = subprocess.Popen([python, "-c", code], cwd=tempfile.gettempdir(), env={**os.environ, **ONE_THREAD},
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        out[name] = {"peak_rss_mb": usage.ru_maxrss / 1024, "seconds": time.perf_counter() - t0, "ok": status == 0}
    return out


def _commit() -> str:
    git = ["git", "-C", str(ROOT)]
    head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run([*git, "diff", "--quiet", "HEAD", "--", "solverkit", "plugins"]).returncode != 0
    return head + (" + uncommitted edits in solverkit/ or plugins/" if dirty else "")


def _loadavg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="+", choices=list(GAMES), default=list(GAMES))
    ap.add_argument("--quick", action="store_true", help="fewer iterations, no start-up rounds, no pyspiel oracle")
    ap.add_argument("--startup-rounds", type=int, default=None, help="1-iteration solves per program (default 3; "
                                                                      "--quick: 0)")
    ap.add_argument("--liteefg-python", default=LITEEFG_PYTHON, help="an interpreter with LiteEFG installed")
    ap.add_argument("--render", metavar="JSON", help="write the markdown of an earlier result again and stop")
    ap.add_argument("--note", help="a paragraph for the results (kept in the JSON; with --render: replaces it)")
    ap.add_argument("--worker", choices=["liteefg", "solverkit", "solverkit_noiso", "openspiel"], help=argparse.SUPPRESS)
    ap.add_argument("--game", help=argparse.SUPPRESS)
    ap.add_argument("--mode", default="serve", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        if args.worker == "solverkit_noiso":
            GAMES[args.game] = (GAMES[args.game][0], {**GAMES[args.game][1], "isomorphism": False},
                                *GAMES[args.game][2:])
            args.worker = "solverkit"
        worker(args.worker, args.game, args.mode)
        return
    if args.render:
        path = Path(args.render)
        result = json.loads(path.read_text())
        if args.note is not None:
            result["note"] = args.note
            path.write_text(json.dumps(result, indent=2) + "\n")
        text = render(result)
        path.with_suffix(".md").write_text(text)
        print(text)
        return
    if args.startup_rounds is None:
        args.startup_rounds = 0 if args.quick else 3
    versions = subprocess.run([args.liteefg_python, "-c", "import importlib.metadata as m; print(m.version('liteefg'),"
                               " m.version('open_spiel'), m.version('numpy'))"], capture_output=True, text=True,
                              cwd="/tmp").stdout.split()
    import importlib.metadata as md

    t_start = time.perf_counter()
    load = [_loadavg()]
    floor = floors(args.liteefg_python)
    rows = []
    for key in args.games:
        rows.append(measure_game(key, args))
        load.append(_loadavg())
        r = rows[-1]
        print(f"{r['game']}: LiteEFG {r['seconds_per_iteration']['liteefg'] * 1e6:,.1f} us/it, solverkit "
              f"{r['seconds_per_iteration']['solverkit'] * 1e6:,.1f} us/it, ratio "
              f"{r['ratio_vs_liteefg']['solverkit']:.3f}, same game {r['same_game']}", flush=True)
    result = {
        "command": " ".join(["python", "bench/" + Path(sys.argv[0]).name, *(argv if argv is not None else sys.argv[1:])]),
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": _commit(),
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores (shared)",
        "load_average_1_5_15": load,
        "wall_seconds": time.perf_counter() - t_start,
        "liteefg": {"version": versions[0] if versions else "?", "python": args.liteefg_python,
                    "open_spiel": versions[1] if len(versions) > 1 else "?"},
        "open_spiel": md.version("open_spiel"),
        "quick": args.quick,
        "note": args.note or "",
        "import_floors": floor,
        "rows": rows,
    }
    text = render(result)
    write_results("liteefg" + ("_quick" if args.quick else ""), result, text)
    print(text)


def render(result: dict) -> str:
    """The markdown of a result (``--render FILE.json`` writes it again)."""
    rows = result["rows"]
    lines = [
        "# CFR+ side by side with LiteEFG: per-iteration time, NashConv, memory, start-up",
        "",
        f"`{result['command']}` on {result['machine']}, {result['date']}, solverkit {result['commit']}, "
        f"LiteEFG {result['liteefg']['version']} (its own venv, open_spiel {result['liteefg']['open_spiel']}), "
        f"OpenSpiel {result['open_spiel']} here. One thread each, each program in its own process, interleaved "
        f"blocks in one run; load average (1/5/15 min) before and after each game: "
        f"{', '.join('/'.join(str(x) for x in la) for la in result['load_average_1_5_15'])}. "
        f"Whole run {result['wall_seconds']:.0f} s.",
        "",
        "## Per iteration (goal: solverkit <= 0.5x LiteEFG)",
        "",
        *md_table(["game", "iterations", "LiteEFG us/it", "solverkit us/it", "ratio solverkit / LiteEFG", "goal met",
                   "solverkit without suit isomorphism"], map(_speed_row, rows)),
        "",
        "## NashConv (chips; best-response gains of both players summed) and the same-game check",
        "",
        *md_table(["game", "uniform strategy: LiteEFG / solverkit / pyspiel", "same game",
                   "average after 1 iteration: LiteEFG / solverkit", "average after N: LiteEFG",
                   "average after N: solverkit", "solverkit / LiteEFG", "current strategy after N: LiteEFG / solverkit"],
                  map(_nash_conv_row, rows)),
        "",
        "## Peak memory (goal: solverkit <= 2x OpenSpiel's C++ CFR+) and warm start-up",
        "",
        *md_table(["game", "LiteEFG MB", "solverkit MB", "OpenSpiel CFRPlusSolver MB", "solverkit / OpenSpiel",
                   "goal met", "start-up LiteEFG s (min / median)", "start-up solverkit s (min / median)"],
                  map(_memory_row, rows)),
    ]
    floor = result.get("import_floors", {})
    if floor:
        lines += ["", "What a process pays before it holds a game (peak MB, wall s): " + "; ".join(
            f"{k} {v['peak_rss_mb']:.0f} MB, {v['seconds']:.2f} s" for k, v in floor.items()) + "."]
    lines += [
        "",
        "## One thread, and where LiteEFG's time goes",
        "",
        *md_table(["game", "CPU / wall in the timed blocks: LiteEFG / solverkit",
                   "OS threads at the end: LiteEFG / solverkit", "LiteEFG update_graph us/it",
                   "LiteEFG update_strategy (average) us/it"], map(_threads_row, rows)),
        "",
        "## Notes",
        "",
        *NOTES,
    ]
    if result.get("note"):
        lines += ["", result["note"]]
    return "\n".join(lines) + "\n"


def _speed_row(r: dict) -> list:
    t, q = r["seconds_per_iteration"], r["ratio_vs_liteefg"]
    noiso = f"{t['solverkit_noiso'] * 1e6:,.1f} us ({q['solverkit_noiso']:.3f}x)" if "solverkit_noiso" in t else "—"
    return [r["game"], f"{r['iterations']:,}", f"{t['liteefg'] * 1e6:,.1f}", f"{t['solverkit'] * 1e6:,.1f}",
            f"{q['solverkit']:.3f}", "yes" if q["solverkit"] <= 0.5 else "**no**", noiso]


def _nash_conv_row(r: dict) -> list:
    u, n1, n, cur = r["uniform_nash_conv"], r["nash_conv_iteration_1"], r["nash_conv"], r["current_nash_conv"]
    os_u = f"{u['openspiel']:.10g}" if "openspiel" in u else "not run"
    return [r["game"], f"{u['liteefg']:.10g} / {u['solverkit']:.10g} / {os_u}", "yes" if r["same_game"] else "**no**",
            f"{n1['liteefg']:.4g} / {n1['solverkit']:.4g}", f"{n['liteefg']:.4g}", f"{n['solverkit']:.4g}",
            f"{n['solverkit'] / n['liteefg']:.2f}", f"{cur['liteefg']:.6g} / {cur['solverkit']:.6g}"]


def _memory_row(r: dict) -> list:
    m, s = r["peak_rss_mb"], r["startup_seconds"]

    def su(k):
        return f"{min(s[k]):.2f} / {statistics.median(s[k]):.2f}" if k in s else "not run"

    q = m["solverkit"] / m["openspiel"]
    return [r["game"], f"{m['liteefg']:,.0f}", f"{m['solverkit']:,.0f}", f"{m['openspiel']:,.0f}", f"{q:.2f}",
            "yes" if q <= 2 else "**no**", su("liteefg"), su("solverkit")]


def _threads_row(r: dict) -> list:
    c, th, p = r["cpu_over_wall"], r["os_threads"], r["liteefg_parts_per_iteration"]
    return [r["game"], f"{c['liteefg']:.2f} / {c['solverkit']:.2f}", f"{th['liteefg']} / {th['solverkit']}",
            f"{p['update_graph'] * 1e6:,.1f}", f"{p['update_strategy'] * 1e6:,.1f}"]


#: what the tables mean; each statement is checked by a column above or by reading LiteEFG's source
NOTES = [
    "- One thread: LiteEFG 1.0.0 runs its native work on a process-wide pool (`src/Basic/Parallel.cpp`) "
    "whose size is `LiteEFG.set_threads(n)`, default 1 (the calling thread only); at 1 thread "
    "`Environment::UpdateParallel` declines and the pass runs serially. The bench calls `set_threads(1)` "
    "anyway; the OS thread count of each child at the end and CPU / wall over the timed blocks (above) "
    "confirm one busy thread on both sides. OMP/OpenBLAS/MKL/numba thread counts are 1 in both children; "
    "solverkit runs with `[transport] threads = 1`.",
    "- An iteration: LiteEFG's `update_graph` (RM+ for player 1, then player 2) plus `update_strategy` "
    "(the linear average in sequence form, which its `train` loop calls every iteration); solverkit's "
    "`Solver.step(n)` per block (the poker engine runs a block of passes in one kernel call; the tree "
    "engine, which serves the OpenSpiel games, one Python call per pass). Building the game is not "
    "timed; the first iteration and one block of at least 4 iterations before the timed blocks are "
    "untimed (set-up, numba cache loads: solverkit steps iterations 2 and 3 one by one, then loads its block "
    "kernel).",
    "- Same game: both programs' best responses to the uniform strategy give the same NashConv as "
    "`pyspiel.nash_conv` of OpenSpiel's uniform policy (to 1e-9; pyspiel is not run under --quick). "
    "Leduc with 13 ranks is solverkit's bundled `leduc13` ACPC file on its poker engine and, for LiteEFG "
    "and OpenSpiel, `universal_poker` with the same parameters.",
    "- Same regret dynamics, different averages: the current strategies (last column of the NashConv "
    "table) follow the same RM+ trajectory, player 1 first (checked by hand on Leduc: equal to about "
    "1e-11 at iterations 1 to 50), after which float rounding, amplified by RM+'s clipping, moves the oscillating current "
    "iterate apart (on Leduc solverkit's poker and tree engines also part from each other after ~100 "
    "iterations). The averages differ by which iterate enters them: OpenSpiel's CFRPlusSolver averages "
    "sigma^t with weight t (uniform after 1 iteration, NashConv 0.9167 on Kuhn); LiteEFG averages the "
    "strategy after each iteration's update, sigma^(t+1), with weight t (Kuhn: 0.5); solverkit "
    "accumulates each player's average during the other player's pass, so player 1's (OpenSpiel's "
    "player 0) is sigma^(t+1) and player 2's sigma^t (Kuhn: 0.8333 = player 1 updated, player 2 uniform; "
    "on Leduc its 4.3897 equals the best responses to player 1's updated and player 2's uniform strategy). "
    "After N iterations the averages' NashConv differ by a few percent either way.",
    "- Memory: each child's peak RSS (`wait4`), which includes the interpreter and its imports; the "
    "import floors above show how much of it any process on those libraries pays. OpenSpiel's column is "
    "a process that builds `pyspiel.CFRPlusSolver` and runs 2 iterations. Start-up: a whole child "
    "process (imports, game from the program's cache, solver, 1 iteration), min and median over the "
    "rounds, after the untimed runs that filled the caches.",
]


if __name__ == "__main__":
    main()
