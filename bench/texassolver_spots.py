"""solverkit's holdem_spot against TexasSolver on a river, a turn and a flop spot, same run, same machine.

TexasSolver (C++/OpenMP, AGPL: run only as a separate process, nothing of it copied) is built by
``../shared/peers/texassolver/build.sh`` into a directory outside the repository; this bench finds
its binary through ``--texassolver PATH`` or ``$TEXASSOLVER_BIN``, or builds-or-finds it in
``--texassolver-cache`` / ``$TEXASSOLVER_CACHE`` (default /work/scratch/texassolver-build), and
skips with a message when none is there (``--build`` builds it).

Per spot: the TexasSolver spot file (its command format) is translated into a solverkit config
(``configs/texassolver_<spot>.toml``, written by ``--write-configs``); the betting trees are
compared action by action (TexasSolver's dump_result JSON against solverkit's action tree); then
both tools solve the spot to the same accuracy in % of the pot on the same number of threads,
back to back, each under ``/usr/bin/time -v``: wall time, iterations, final exploitability, peak
RSS. Writes bench/results/texassolver_spots.{json,md} and prints the ratios solverkit/TexasSolver.

    python bench/texassolver_spots.py [--spots river,turn,flop] [--threads 2] [--variants both]

The translation (REFERENCE.md, "No-limit"; TexasSolver's GameTree::get_possible_bets):
``bet 50`` = 50% of the pot (solverkit "50%"); ``raise 60`` = call, then 60% of the pot after
the call (solverkit's "60%" in a raise list); ``allin`` adds "a" to the bet, raise and donk lists
of that street; no raise sizes = no raises (besides all-in); no donk sizes = no donk bets
(solverkit ``donk = ""``, or ``"a"`` with allin; solverkit's default, donk = the bet sizes, is
postflop-solver's); ``set_allin_threshold T`` = ``allin_commit_threshold = T``; TexasSolver caps a
street at 4 bets counting the opening bet = solverkit ``raise_limit = 3``.

Over 500 lines on purpose: one script (build or find the peer, translate the spots, check
the trees agree, run both tools, write the tables), each step needed for one comparable row.
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
import time

import numpy as np
from pathlib import Path

os.environ.setdefault("SOLVERKIT_AOT_BUILD", "0")  # timed solves start no background kernel build (core.aot_auto)

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
RESULTS = HERE / "results"
CONFIGS = REPO / "configs"
PEER = REPO.parent / "shared" / "peers" / "texassolver"
DEFAULT_CACHE = Path(os.environ.get("TEXASSOLVER_CACHE", "/work/scratch/texassolver-build"))

# --- the spots ----------------------------------------------------------------------------------
# river: the peer's own spots/river.txt. turn and flop: the peer's flop benchmark (board QsJh2h,
# pot 10, stack 95, its ranges and 100% bet / 50% raise / all-in sizes) made small enough to solve
# in a few minutes on 2 shared cores: the turn spot deals 8d and keeps the ranges and sizes; the flop
# spot keeps the board and pot, with a 40-chip stack, ranges of ~50 combos, one size per street
# (flop 50%, turn and river 75%) and all-in, and TexasSolver's default all-in threshold 0.67.

TURN_SPOT = """\
set_pot 10
set_effective_stack 95
set_board Qs,Jh,2h,8d
set_range_oop AA,KK,QQ,JJ,TT,99:0.75,88:0.75,77:0.5,66:0.25,55:0.25,AK,AQs,AQo:0.75,AJs,AJo:0.5,ATs:0.75,A6s:0.25,A5s:0.75,A4s:0.75,A3s:0.5,A2s:0.5,KQs,KQo:0.5,KJs,KTs:0.75,K5s:0.25,K4s:0.25,QJs:0.75,QTs:0.75,Q9s:0.5,JTs:0.75,J9s:0.75,J8s:0.75,T9s:0.75,T8s:0.75,T7s:0.75,98s:0.75,97s:0.75,96s:0.5,87s:0.75,86s:0.5,85s:0.5,76s:0.75,75s:0.5,65s:0.75,64s:0.5,54s:0.75,53s:0.5,43s:0.5
set_range_ip QQ:0.5,JJ:0.75,TT,99,88,77,66,55,44,33,22,AKo:0.25,AQs,AQo:0.75,AJs,AJo:0.75,ATs,ATo:0.75,A9s,A8s,A7s,A6s,A5s,A4s,A3s,A2s,KQ,KJ,KTs,KTo:0.5,K9s,K8s,K7s,K6s,K5s,K4s:0.5,K3s:0.5,K2s:0.5,QJ,QTs,Q9s,Q8s,Q7s,JTs,JTo:0.5,J9s,J8s,T9s,T8s,T7s,98s,97s,96s,87s,86s,76s,75s,65s,64s,54s,53s,43s
set_bet_sizes oop,turn,bet,100
set_bet_sizes oop,turn,donk,100
set_bet_sizes oop,turn,raise,50
set_bet_sizes oop,turn,allin
set_bet_sizes ip,turn,bet,100
set_bet_sizes ip,turn,raise,50
set_bet_sizes oop,river,bet,100
set_bet_sizes oop,river,donk,100
set_bet_sizes oop,river,raise,50
set_bet_sizes oop,river,allin
set_bet_sizes ip,river,bet,100
set_bet_sizes ip,river,raise,50
set_bet_sizes ip,river,allin
set_allin_threshold 1.0
build_tree
set_thread_num 2
set_accuracy 0.3
set_max_iteration 1000
set_print_interval 10
set_use_isomorphism 1
start_solve
"""

FLOP_SPOT = """\
set_pot 10
set_effective_stack 40
set_board Qs,Jh,2h
set_range_oop AA,KK,QQ,JJ,AK,AQs,KQs,QJs,JTs,T9s
set_range_ip TT,99,88,AQs,AJs,KQs,KJs,QTs,JTs,T9s,98s,87s
set_bet_sizes oop,flop,bet,50
set_bet_sizes oop,flop,allin
set_bet_sizes ip,flop,bet,50
set_bet_sizes ip,flop,allin
set_bet_sizes oop,turn,bet,75
set_bet_sizes oop,turn,allin
set_bet_sizes ip,turn,bet,75
set_bet_sizes ip,turn,allin
set_bet_sizes oop,river,bet,75
set_bet_sizes oop,river,allin
set_bet_sizes ip,river,bet,75
set_bet_sizes ip,river,allin
set_allin_threshold 0.67
build_tree
set_thread_num 2
set_accuracy 0.5
set_max_iteration 1000
set_print_interval 10
set_use_isomorphism 1
start_solve
"""


# the PioSOLVER-verified preset's board, pot, stack, ranges and sizes (configs/spot_preset.toml), with
# TexasSolver's raise cap and all-in rule, to 1% of the pot: a flop spot whose values, not the
# interpreter, take the memory (issue 25's memory goal)
FLOP_BIG_SPOT = """\
set_pot 180
set_effective_stack 910
set_board Qs,Jh,2h
set_range_oop 88+,A8s+,A5s-A2s:0.5,AJo+,ATo:0.75,K9s+,KQo,KJo:0.75,KTo:0.25,Q9s+,QJo:0.5,J8s+,JTo:0.25,T8s+,T7s:0.45,97s+,96s:0.45,87s,86s:0.75,85s:0.45,75s+:0.75,74s:0.45,65s:0.75,64s:0.5,63s:0.45,54s:0.75,53s:0.5,52s:0.45,43s:0.5,42s:0.45,32s:0.45
set_range_ip AA:0.25,99-22,AJs-A2s,AQo-A8o,K2s+,K9o+,Q2s+,Q9o+,J6s+,J9o+,T6s+,T9o,96s+,95s:0.5,98o,86s+,85s:0.5,75s+,74s:0.5,64s+,63s:0.5,54s,53s:0.5,43s
set_bet_sizes oop,flop,bet,52
set_bet_sizes oop,flop,raise,45
set_bet_sizes ip,flop,bet,52
set_bet_sizes ip,flop,raise,45
set_bet_sizes oop,turn,bet,55
set_bet_sizes oop,turn,raise,45
set_bet_sizes ip,turn,bet,55
set_bet_sizes ip,turn,raise,45
set_bet_sizes oop,river,bet,70
set_bet_sizes oop,river,raise,45
set_bet_sizes ip,river,bet,70
set_bet_sizes ip,river,raise,45
set_allin_threshold 0.67
build_tree
set_thread_num 2
set_accuracy 1.0
set_max_iteration 1000
set_print_interval 10
set_use_isomorphism 1
start_solve
"""


#: flop_big with two bet sizes on every street (a tree about twice as large): the flop spot where
#: the values, not the interpreter, dominate both tools' memory (issue 25's memory goal)
FLOP_WIDE_SPOT = (FLOP_BIG_SPOT.replace("flop,bet,52", "flop,bet,33,75").replace("turn,bet,55", "turn,bet,55,100")
                  .replace("river,bet,70", "river,bet,70,125"))


def classes_text(text: str) -> str:
    """A range as TexasSolver reads it: hand classes with weights ("99:1,98s:0.5"), from the
    standard syntax ("99-22", "A8s+") that TexasSolver's parser refuses; every class must hold
    one weight for all its combos."""
    from solverkit.poker.ranges import combo_name, parse_range

    w = parse_range(text)
    ranks = "23456789TJQKA"
    by_class: dict[str, set] = {}
    for i in np.flatnonzero(w):
        name = combo_name(int(i))  # e.g. "AhKh", higher rank first
        a, b = name[0], name[2]
        if ranks.index(a) < ranks.index(b):
            a, b = b, a
        cls = a + b if a == b else a + b + ("s" if name[1] == name[3] else "o")
        by_class.setdefault(cls, set()).add(float(w[i]))
    if any(len(v) != 1 for v in by_class.values()):
        raise SystemExit(f"range {text!r}: a class holds combos of different weights")
    return ",".join(f"{c}:{v.pop():g}" for c, v in by_class.items())


def spot_texts() -> dict[str, str]:
    """name -> TexasSolver spot file text."""
    river = (PEER / "spots" / "river.txt").read_text()
    def with_classes(spot: str) -> str:
        for line in spot.splitlines():
            if line.startswith("set_range_"):
                key, rng = line.split(" ", 1)
                spot = spot.replace(line, f"{key} {classes_text(rng)}")
        return spot

    return {"river": river, "turn": TURN_SPOT, "flop": FLOP_SPOT, "flop_big": with_classes(FLOP_BIG_SPOT),
            "flop_wide": with_classes(FLOP_WIDE_SPOT)}


# --- TexasSolver spot files -> solverkit configs ---------------------------------------------------

STREET_OF_BOARD = {3: "flop", 4: "turn", 5: "river"}


def parse_spot(text: str) -> dict:
    """The settings of a TexasSolver spot file: pot, stack, board (list), ranges, sizes
    {(player, street): {"bet": [...], "raise": [...], "donk": [...], "allin": bool}}, threshold,
    accuracy, max_iteration, print_interval."""
    spot = {"sizes": {}, "allin_threshold": 0.67, "print_interval": 10, "max_iteration": 100}
    for line in text.splitlines():
        parts = line.strip().split(" ")
        if not parts[0]:
            continue
        cmd, arg = parts[0], (parts[1] if len(parts) > 1 else "")
        if cmd == "set_pot":
            spot["pot"] = float(arg)
        elif cmd == "set_effective_stack":
            spot["stack"] = float(arg)
        elif cmd == "set_board":
            spot["board"] = arg.split(",")
        elif cmd == "set_range_oop":
            spot["oop_range"] = arg
        elif cmd == "set_range_ip":
            spot["ip_range"] = arg
        elif cmd == "set_bet_sizes":
            fields = arg.split(",")
            player, street, kind = fields[0], fields[1], fields[2]
            entry = spot["sizes"].setdefault((player, street), {"bet": [], "raise": [], "donk": [], "allin": False})
            if kind == "allin":
                entry["allin"] = True
            else:
                entry[kind] = [float(x) for x in fields[3:]]
        elif cmd == "set_allin_threshold":
            spot["allin_threshold"] = float(arg)
        elif cmd == "set_accuracy":
            spot["accuracy"] = float(arg)
        elif cmd == "set_max_iteration":
            spot["max_iteration"] = int(arg)
        elif cmd == "set_print_interval":
            spot["print_interval"] = int(arg)
    for key in ("pot", "stack", "board", "oop_range", "ip_range", "accuracy"):
        if key not in spot:
            raise SystemExit(f"spot file without {key}")
    return spot


def _size_list(values: list[float], allin: bool) -> str:
    """TexasSolver percentages (+ its allin flag) as a solverkit size list: "50%, 100%, a"."""
    out = [f"{v:g}%" for v in values]
    if allin:
        out.append("a")
    return ", ".join(out)


def solverkit_config(spot: dict, threads: int, split_round: int | None, eval_every: int,
                     precision: str = "float64") -> dict:
    """The solverkit config (a dict for TOML) of a parsed TexasSolver spot."""
    if spot["pot"] != int(spot["pot"]) or spot["stack"] != int(spot["stack"]):
        raise SystemExit("solverkit spots need whole chips: pot and stack")
    first = STREET_OF_BOARD[len(spot["board"])]
    streets = ("flop", "turn", "river")[("flop", "turn", "river").index(first):]
    sizes: dict = {}
    for who in ("oop", "ip"):
        per = {}
        for street in streets:
            e = spot["sizes"].get((who, street), {"bet": [], "raise": [], "donk": [], "allin": False})
            per[street] = {"bet": _size_list(e["bet"], e["allin"]), "raise": _size_list(e["raise"], e["allin"]),
                           "donk": _size_list(e["donk"], e["allin"])}
        sizes[who] = per
    game = {"name": "holdem_spot", "board": "".join(spot["board"]), "pot": int(spot["pot"]),
            "stack": int(spot["stack"]), "oop_range": spot["oop_range"], "ip_range": spot["ip_range"],
            "raise_limit": 3, "allin_commit_threshold": spot["allin_threshold"], "sizes": sizes}
    config = {"preset": "dcfr", "game": game,
              "solver": {"target": spot["accuracy"], "iterations": spot["max_iteration"], "eval_every": eval_every}}
    if split_round is not None:
        game["split_round"] = split_round
        config["transport"] = {"name": "local", "threads": threads}
    if precision != "float64":
        config["store"] = {"precision": precision}
    return config


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    return json.dumps(v)  # a TOML basic string is a JSON string for these texts


def to_toml(config: dict, header: str = "") -> str:
    """A config dict (tables nested at most as [game.sizes.<who>.<street>]) as TOML text."""
    lines = [header.rstrip()] if header else []

    def table(name: str, d: dict):
        scalars = {k: v for k, v in d.items() if not isinstance(v, dict)}
        subs = {k: v for k, v in d.items() if isinstance(v, dict)}
        if name and scalars:
            lines.append(f"\n[{name}]")
        for k, v in scalars.items():
            lines.append(f"{k} = {_toml_value(v)}")
        for k, v in subs.items():
            table(f"{name}.{k}" if name else k, v)

    top = {k: v for k, v in config.items() if not isinstance(v, dict)}
    for k, v in top.items():
        lines.append(f"{k} = {_toml_value(v)}")
    table("", {k: v for k, v in config.items() if isinstance(v, dict)})
    return "\n".join(lines) + "\n"


# --- running TexasSolver ------------------------------------------------------------------------------


def find_texassolver(args) -> tuple[Path, Path] | None:
    """(console_solver binary, resources dir), or None when not built (``--build`` builds it)."""
    explicit = args.texassolver or os.environ.get("TEXASSOLVER_BIN")
    if explicit:
        binary = Path(explicit)
        res = binary.parent.parent / "resources"
        if binary.is_file() and (res / "compairer" / "card5_dic_sorted.txt").is_file():
            return binary, res
        print(f"TexasSolver binary {binary} or its resources {res} missing")
        return None
    cache = Path(args.texassolver_cache)
    binary, res = cache / "build" / "console_solver", cache / "resources"
    if not (binary.is_file() and (res / "compairer" / "card5_dic_sorted.txt").is_file()):
        if not args.build:
            return None
        subprocess.run(["bash", str(PEER / "build.sh"), str(cache)], check=True)
    return binary, res


def _time_v(path: Path) -> dict:
    """wall seconds, peak RSS MB, user and system seconds from a /usr/bin/time -v report."""
    text = path.read_text()
    out = {}
    m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", text)
    secs = 0.0
    for part in m.group(1).split(":"):
        secs = secs * 60 + float(part)
    out["wall_s"] = secs
    out["rss_mb"] = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1)) / 1024
    out["user_s"] = float(re.search(r"User time \(seconds\): ([\d.]+)", text).group(1))
    out["sys_s"] = float(re.search(r"System time \(seconds\): ([\d.]+)", text).group(1))
    out["exit"] = int(re.search(r"Exit status: (\d+)", text).group(1)) if "Exit status" in text else None
    return out


def _timed(cmd: list[str], cwd: Path, log: Path, timeout: float | None) -> dict:
    tfile = cwd / "time.txt"
    with open(log, "w") as fh:
        proc = subprocess.run(["/usr/bin/time", "-v", "-o", str(tfile)] + cmd, cwd=cwd, stdout=fh,
                              stderr=subprocess.STDOUT, timeout=timeout)
    out = _time_v(tfile)
    out["returncode"] = proc.returncode
    out["loadavg_end"] = os.getloadavg()
    return out


def run_texassolver(ts, text: str, threads: int, work: Path, timeout: float | None,
                    dump_rounds: int | None = None, max_iteration: int | None = None) -> dict:
    """Run one spot file (its thread count replaced; optionally a dump_result of the first
    ``dump_rounds`` streets, or an iteration cap) and parse what it printed."""
    binary, res = ts
    lines = [ln for ln in text.splitlines() if not ln.startswith(("set_thread_num", "dump_result", "set_dump_rounds"))]
    body = []
    for ln in lines:
        if ln.startswith("set_max_iteration") and max_iteration is not None:
            ln = f"set_max_iteration {max_iteration}"
        if ln.startswith("start_solve"):
            body.append(f"set_thread_num {threads}")
        body.append(ln)
    if dump_rounds is not None:
        body += [f"set_dump_rounds {dump_rounds}", "dump_result dump.json"]
    work.mkdir(parents=True, exist_ok=True)
    (work / "input.txt").write_text("\n".join(body) + "\n")
    load = os.getloadavg()
    out = _timed([str(binary), "-i", "input.txt", "-r", str(res), "-m", "holdem"], work, work / "solver.log", timeout)
    log = (work / "solver.log").read_text(errors="replace")
    iters = re.findall(r"^Iter: (\d+)", log, re.M)
    expl = re.findall(r"^Total exploitability ([-\d.e+]+)", log, re.M)
    used = re.findall(r"^time used: ([\d.]+)", log, re.M)
    out.update(loadavg_start=load, iterations=int(iters[-1]) if iters else None,
               exploitability=float(expl[-1]) if expl else None, solve_s=float(used[-1]) if used else None,
               curve=[(int(i), float(e)) for i, e in zip(iters, expl)])
    return out


# --- running solverkit ------------------------------------------------------------------------------------


def run_solverkit(config: dict, work: Path, timeout: float | None, header: str = "") -> dict:
    """``solverkit solve`` of ``config`` under /usr/bin/time -v; iterations, exploitability and
    solve seconds from result.json."""
    work.mkdir(parents=True, exist_ok=True)
    cfg = work / "config.toml"
    cfg.write_text(to_toml(config, header))
    load = os.getloadavg()
    cmd = [sys.executable, "-m", "solverkit"]  # the solverkit this interpreter imports ($PYTHONPATH too)
    out = _timed(cmd + ["solve", str(cfg), "--out", str(work / "run"), "--quiet", "--force"], work,
                 work / "solve.log", timeout)
    out["loadavg_start"] = load
    result = work / "run" / "result.json"
    if out["returncode"] != 0 or not result.is_file():
        out["error"] = (work / "solve.log").read_text(errors="replace")[-3000:]
        return out
    r = json.loads(result.read_text())
    out.update(iterations=r.get("iterations"), exploitability=r.get("exploitability"), solve_s=r.get("seconds"),
               result=r)
    metrics = work / "run" / "metrics.csv"
    if metrics.is_file():
        rows = metrics.read_text().splitlines()
        head = rows[0].split(",")
        i_it, i_ex = head.index("iteration"), head.index("exploitability")
        out["curve"] = [(int(float(r.split(",")[i_it])), float(r.split(",")[i_ex])) for r in rows[1:]]
    return out


def build_kernels(config: dict, work: Path, timeout: float | None) -> None:
    """``solverkit compile`` of ``config`` (untimed): the kernels its solve calls, built ahead of
    time into this environment's build, which the timed run then loads instead of numba."""
    work.mkdir(parents=True, exist_ok=True)
    cfg = work / "config.toml"
    cfg.write_text(to_toml(config))
    with open(work / "compile.log", "w") as fh:
        proc = subprocess.run([sys.executable, "-m", "solverkit", "compile", str(cfg)], cwd=work, stdout=fh,
                              stderr=subprocess.STDOUT, timeout=timeout)
    if proc.returncode != 0:
        raise SystemExit(f"solverkit compile failed (exit {proc.returncode}): see {work / 'compile.log'}")


# --- comparing the trees -------------------------------------------------------------------------


def solverkit_tree(config: dict):
    """solverkit's ActionTree of the config's game: the game's own rules(), without building its
    card tree (Game.__init__ only stores the parameters; HoldemSpot's would build everything)."""
    from solverkit.core.game import Game
    from solverkit.poker.action_tree import build_action_tree
    from solverkit.poker.spot import HoldemSpot

    game = HoldemSpot.__new__(HoldemSpot)
    Game.__init__(game, **{k: v for k, v in config["game"].items() if k != "name"})
    game.gd = game.gamedef()
    return build_action_tree(game.rules())


def _sk_labels(tree, n: int) -> dict[str, int]:
    """TexasSolver-style labels of node n's actions -> child: CHECK, CALL, FOLD, BET x, RAISE x
    (x the chips the mover adds)."""
    from solverkit.poker.action_tree import CALL_K, FOLD_K

    p = int(tree.player[n])
    own, top = int(tree.spent[n, p]), int(tree.spent[n].max())
    facing = own < top
    out = {}
    for e in range(int(tree.act_start[n]), int(tree.act_end[n])):
        k, child = int(tree.act_kind[e]), int(tree.act_child[e])
        if k == FOLD_K:
            out["FOLD"] = child
        elif k == CALL_K:
            out["CALL" if facing else "CHECK"] = child
        else:
            out[f"{'RAISE' if facing else 'BET'} {int(tree.act_amount[e]) - own}"] = child
    return out


def _ts_label(action: str) -> str:
    """'BET 10.000000' -> 'BET 10'."""
    parts = action.split(" ")
    return parts[0] if len(parts) == 1 else f"{parts[0]} {float(parts[1]):g}"


def compare_trees(ts_json: dict, tree) -> dict:
    """Walk TexasSolver's dumped tree and solverkit's together: every action node's actions must
    agree (labels with chip amounts), its player too (TexasSolver 1 = OOP = solverkit 0). Returns
    counts and the first mismatches."""
    import numpy as np

    from solverkit.poker.betting import DECISION, ROUND_END

    stats = {"action_nodes": 0, "actions": 0, "mismatches": [], "streets": set()}
    seen = set()
    stack = [(ts_json, 0, "")]
    while stack:
        node, n, path = stack.pop()
        while node.get("node_type") == "chance_node":
            if int(tree.kind[n]) != ROUND_END:
                stats["mismatches"].append(f"{path}: TexasSolver deals, solverkit node kind {int(tree.kind[n])}")
                node = None
                break
            n = int(tree.act_child[tree.act_start[n]])
            deal = node.get("dealcards") or {}
            if not deal:
                node = None  # not dumped (beyond dump_rounds)
                break
            card = sorted(deal)[0]
            node = deal[card]
            path += f" /{card}/"
        if node is None:
            continue
        if int(tree.kind[n]) != DECISION:
            stats["mismatches"].append(f"{path}: TexasSolver action node, solverkit node kind {int(tree.kind[n])}")
            continue
        stats["action_nodes"] += 1
        seen.add(n)
        stats["streets"].add(int(tree.round[n]))
        ts_actions = [_ts_label(a) for a in node["actions"]]
        sk = _sk_labels(tree, n)
        stats["actions"] += len(ts_actions)
        if 1 - int(node["player"]) != int(tree.player[n]):
            stats["mismatches"].append(f"{path}: player TexasSolver {node['player']}, solverkit {int(tree.player[n])}")
        if sorted(ts_actions) != sorted(sk):
            stats["mismatches"].append(f"{path or 'root'}: TexasSolver {sorted(ts_actions)} solverkit {sorted(sk)}")
            continue
        children = node.get("childrens") or {}
        for raw in node["actions"]:
            label = _ts_label(raw)
            child = sk[label]
            if raw in children:
                stack.append((children[raw], child, f"{path} {label}".strip()))
            elif int(tree.kind[child]) == DECISION:
                stats["mismatches"].append(f"{path} {label}: TexasSolver ends here (fold/showdown), solverkit has a "
                                           "decision")
    stats["streets"] = sorted(stats["streets"])
    # every solverkit decision of the compared streets was met (one board per street: the
    # betting tree is the same for every card)
    compared = np.flatnonzero((tree.kind == DECISION) & np.isin(tree.round, stats["streets"]))
    missed = [int(n) for n in compared if int(n) not in seen]
    stats["solverkit_decisions"] = int(compared.size)
    if missed:
        stats["mismatches"].append(f"{len(missed)} solverkit decisions not in TexasSolver's tree, e.g. "
                                   f"{tree.history[missed[0]]!r}")
    stats["mismatches"] = stats["mismatches"][:10]
    return stats


# --- the bench ----------------------------------------------------------------------------------


def _ms(seconds) -> str:
    """Seconds as milliseconds to about 3 digits, without an exponent ('failed' for None)."""
    if seconds is None:
        return "failed"
    ms = 1000 * seconds
    return f"{ms:.0f}" if ms >= 100 else f"{ms:.3g}"


def _fmt(x, spec=".1f"):
    return "n/a" if x is None else format(x, spec)


def bench_spot(name: str, text: str, ts, args, work: Path) -> dict:
    spot = parse_spot(text)
    rounds = 6 - len(spot["board"])
    variants = [("local", None)]
    if rounds > 1 and args.variants in ("both", "split"):
        variants = ([("local", None)] if args.variants == "both" else []) + [("split1", 1)]
    # each variant once per store precision ("-b16": [store] precision = "block16", "-f32": "float32")
    variants = [(label + {"float64": "", "block16": "-b16", "float32": "-f32"}[prec], split, prec)
                for prec in args.precision.split(",") for label, split in variants]
    entry = {"spot": name, "texassolver_spot": text, "board": spot["board"], "pot": spot["pot"],
             "stack": spot["stack"], "accuracy": spot["accuracy"]}
    base_cfg = solverkit_config(spot, args.threads, None, spot["print_interval"])
    if args.write_configs:
        path = CONFIGS / f"texassolver_{name}.toml"
        path.write_text(to_toml(base_cfg, f"# TexasSolver's {name} spot (bench/texassolver_spots.py), translated: "
                                         f"[solver] target = its set_accuracy in % of the pot, eval_every = its "
                                         f"print interval"))
        print(f"wrote {path.relative_to(REPO)}")
    # 1. the trees
    tree = solverkit_tree(base_cfg)
    entry["solverkit_nodes"] = int(tree.num_nodes)
    if ts is not None and not args.skip_tree_check:
        dump_rounds = min(rounds, args.dump_rounds)
        chk = run_texassolver(ts, text, args.threads, work / name / "tree_check", args.timeout, dump_rounds, 1)
        dump = work / name / "tree_check" / "dump.json"
        if dump.is_file():
            cmp = compare_trees(json.loads(dump.read_text()), tree)
            entry["tree_check"] = cmp
            print(f"[{name}] tree check over {dump_rounds} street(s): {cmp['action_nodes']} action nodes, "
                  f"{cmp['actions']} actions, streets {cmp['streets']} (solverkit: {cmp['solverkit_decisions']} decisions "
                  f"there), mismatches: {len(cmp['mismatches'])}")
            for m in cmp["mismatches"]:
                print(f"    {m}")
        else:
            entry["tree_check"] = {"error": f"no dump.json (TexasSolver exit status {chk['returncode']})"}
            print(f"[{name}] tree check: TexasSolver wrote no dump (see {dump.parent}/solver.log)")
    if args.trees_only:
        return entry
    # 2. the solves, back to back (--repeat N: N rounds of both tools in turn)
    ts_runs: list[dict] = []
    sk_runs: dict[str, list[dict]] = {label: [] for label, _, _ in variants}
    for k in range(args.repeat):
        suffix, nth = ("", "") if args.repeat == 1 else (f"_{k + 1}", f" (run {k + 1}/{args.repeat})")
        if ts is not None:
            print(f"[{name}] TexasSolver, {args.threads} threads, to {spot['accuracy']}% of the pot{nth} ...", flush=True)
            t = run_texassolver(ts, text, args.threads, work / name / f"texassolver{suffix}", args.timeout)
            ts_runs.append(t)
            print(f"[{name}] TexasSolver: {_fmt(t['wall_s'])} s wall ({_fmt(t['solve_s'], '.3f')} s solving), "
                  f"{t['iterations']} iterations, {t['exploitability']}% pot, {_fmt(t['rss_mb'], '.0f')} MB")
        for label, split, prec in variants:
            cfg = solverkit_config(spot, args.threads, split, spot["print_interval"], prec)
            if k == 0 and not args.no_warmup:  # numba's cache: compile (or load) the kernels outside the timed runs
                warm = json.loads(json.dumps(cfg))
                warm["solver"].update(iterations=1, target=0.0)
                run_solverkit(warm, work / name / f"warmup_{label}", args.timeout)
            if k == 0 and args.compile:  # the kernels built ahead of time: the timed run never starts numba
                build_kernels(cfg, work / name / f"compile_{label}", args.timeout)
            print(f"[{name}] solverkit ({label}), {args.threads} threads{nth} ...", flush=True)
            r = run_solverkit(cfg, work / name / f"solverkit_{label}{suffix}", args.timeout)
            sk_runs[label].append(r)
            if "error" in r:
                print(f"[{name}] solverkit ({label}) FAILED (exit {r['returncode']}):\n{r['error']}")
                continue
            print(f"[{name}] solverkit ({label}): {_fmt(r['wall_s'])} s wall ({_fmt(r['solve_s'], '.4f')} s solving), "
                  f"{r['iterations']} iterations, {r['exploitability']:.4f}% pot, {_fmt(r['rss_mb'], '.0f')} MB")
            r.pop("result", None)
    if ts_runs:
        entry["texassolver"] = median_run(ts_runs)
    entry["solverkit"] = {label: median_run(runs) for label, runs in sk_runs.items()}
    return entry


def median_run(runs: list[dict]) -> dict:
    """The run of median solve time among `runs` (the lower middle one of an even count; the
    first failed run when none succeeded), with every run's solve time in `solve_s_runs` (in the
    order they ran) when there were several."""
    ok = sorted((r for r in runs if "error" not in r and r.get("solve_s") is not None), key=lambda r: r["solve_s"])
    if not ok:
        return runs[0]
    out = dict(ok[(len(ok) - 1) // 2])
    if len(runs) > 1:
        out["solve_s_runs"] = [r.get("solve_s") if "error" not in r else None for r in runs]
    return out


GOALS = {"river": ("time",), "turn": ("time",), "flop": ("time", "rss"), "flop_big": ("time", "rss"),
         "flop_wide": ("time", "rss")}  # issue 25: <= 0.5x TexasSolver's


def markdown(entries: list[dict], args, machine: dict) -> str:
    """The results page: per spot the trees' check, a table of both tools and the ratios, then
    how it was run and what to keep in mind."""
    out = ["# solverkit holdem_spot vs TexasSolver (bench/texassolver_spots.py)", ""]
    out.append(f"Machine: {machine['cpu']}, {machine['nproc']} cores shared with other work, Python "
               f"{machine['python']}; both tools on {args.threads} threads, one spot after the other and the two "
               f"tools back to back; {machine['date']}. solverkit: `{machine.get('solverkit', '?')}`. "
               "Issue 25's goals: solverkit <= 0.5x TexasSolver's time on river, turn and flop spots, and <= 0.5x "
               "its peak memory on flop spots.")
    out.append("")
    for e in entries:
        out.append(f"## {e['spot']}: board {''.join(e['board'])}, pot {e['pot']:g}, stack {e['stack']:g}, "
                   f"target {e['accuracy']}% of the pot")
        out.append("")
        tc = e.get("tree_check")
        if tc and "action_nodes" in tc:
            out.append(f"Trees: TexasSolver's dump_result tree over streets {[s + 1 for s in tc['streets']]} of "
                       f"the spot ({tc['action_nodes']} action nodes, {tc['actions']} actions; one card per later "
                       f"street) against solverkit's ({tc.get('solverkit_decisions')} decisions there, "
                       f"{e['solverkit_nodes']:,} betting nodes in all): "
                       f"{'the same actions and amounts at every node' if not tc['mismatches'] else 'MISMATCHES: ' + '; '.join(tc['mismatches'])}.")
            out.append("")
        t = e.get("texassolver")
        rows = []
        if t:
            rows.append(("TexasSolver", t))
        for label, r in e.get("solverkit", {}).items():
            rows.append((f"solverkit ({label})", r))
        out.append("| tool | wall s | solve s | CPU s | iterations | solve ms / iteration | exploitability % pot | "
                   "peak RSS MB | wall / TS | solve / TS | RSS / TS |")
        out.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for label, r in rows:
            if "error" in r:
                out.append(f"| {label} | failed (exit {r['returncode']}) | | | | | | | | | |")
                continue
            ratios = ["", "", ""]
            if t and r is not t:
                ratios = [f"{r['wall_s'] / t['wall_s']:.2f}x",
                          f"{r['solve_s'] / t['solve_s']:.2f}x" if t.get("solve_s") and r.get("solve_s") else "n/a",
                          f"{r['rss_mb'] / t['rss_mb']:.2f}x"]
            per_it = 1000 * r["solve_s"] / r["iterations"] if r.get("solve_s") and r.get("iterations") else None
            out.append(f"| {label} | {_fmt(r['wall_s'])} | {_fmt(r.get('solve_s'), '.3g')} | "
                       f"{_fmt(r['user_s'] + r['sys_s'])} | {r.get('iterations')} | {_fmt(per_it, '.3g')} | "
                       f"{_fmt(r.get('exploitability'), '.4f')} | {_fmt(r['rss_mb'], '.0f')} | {' | '.join(ratios)} |")
        out.append("")
        several = [(label, r["solve_s_runs"]) for label, r in rows if len(r.get("solve_s_runs") or []) > 1]
        if several:
            out.append(f"Each tool ran {len(several[0][1])} times in turn; each row is its run of median solve time. "
                       "Solve ms of every run, in order: " + "; ".join(
                           f"{label}: {', '.join(_ms(x) for x in xs)}"
                           for label, xs in several) + ".")
            out.append("")
        if t:
            loads = [f"{lbl}: {r['loadavg_start'][0]:.1f} -> {r['loadavg_end'][0]:.1f}" for lbl, r in rows
                     if "loadavg_start" in r]
            out.append("1-minute load average at start -> end of each run: " + "; ".join(loads) + ".")
            out.append("")
            verdicts = []
            for label, r in e.get("solverkit", {}).items():
                if "error" in r:
                    continue
                reached = r.get("exploitability") is not None and r["exploitability"] <= e["accuracy"]
                ts_reached = t.get("exploitability") is not None and t["exploitability"] <= e["accuracy"]
                v = [f"solverkit ({label}) {'reached' if reached else 'did NOT reach'} the target"
                     f"{'' if ts_reached else ' (TexasSolver did not)'}"]
                for goal in GOALS[e["spot"]]:
                    if goal == "time":
                        w, so = r["wall_s"] / t["wall_s"], (r["solve_s"] or 0) / (t["solve_s"] or 1)
                        v.append(f"time goal (<= 0.5x) {'met' if w <= 0.5 else 'not met'} on wall time ({w:.2f}x), "
                                 f"{'met' if so <= 0.5 else 'not met'} on solve time ({so:.2f}x)")
                    else:
                        m = r["rss_mb"] / t["rss_mb"]
                        v.append(f"memory goal (<= 0.5x) {'met' if m <= 0.5 else 'not met'} ({m:.2f}x)")
                verdicts.append("; ".join(v) + ".")
            out += [f"- {v}" for v in verdicts]
            out.append("")
    out += NOTES.format(command=machine["command"], threads=args.threads).splitlines()
    return "\n".join(out) + "\n"


NOTES = """## How it was run

    {command}

For each spot, in this order: TexasSolver once with `set_max_iteration 1` and `dump_result` (the
tree check, untimed); TexasSolver under `/usr/bin/time -v` (`console_solver -i SPOT -r RESOURCES
-m holdem`, `set_thread_num {threads}`); then solverkit, once for 1 iteration (untimed: loads or
compiles numba's cached kernels) and once timed, `solverkit solve configs/texassolver_<spot>.toml`
under `/usr/bin/time -v` (`[game] split_round = 1`, `[transport] name = "local", threads =
{threads}` for the `split1` rows; the `local` rows solve the whole tree in one piece). Both check
the exploitability every 10 iterations (TexasSolver's `set_print_interval 10`, solverkit's
`[solver] eval_every = 10`) and stop at the first check at or below the target, so iterations
are comparable to within 10. With `--compile`, `solverkit compile` builds each config's kernels
ahead of time (untimed) after that warm-up, so the timed run loads them without numba or LLVM
(~55-90 MB less resident memory; the README's `solverkit compile`). With `--repeat N` this runs N times in turn (TexasSolver, then
solverkit; the untimed warm-up only before the first), and each row is the tool's run of median
solve time, every run's solve time listed below the table.

Columns: **wall s** the whole process (TexasSolver: loading its 52 MB hand-rank table, ~10 s,
building the tree, solving; solverkit: Python start, imports, building the game, solving,
writing result.json and the strategy); **solve s** each tool's own clock of the iterations and
their exploitability checks (TexasSolver's last `time used`, which leaves out its final check;
solverkit's `seconds` in result.json, which leaves out evaluations); **CPU s** user + system;
**iterations** at the check that stopped the run (TexasSolver prints `Iter: i+1`); the
exploitability each prints, in % of the starting pot: (BR gain of OOP + BR gain of IP) / 2 / pot
x 100 in both; **peak RSS** from `/usr/bin/time -v`.

Caveats:
- The machine has 2 cores shared with other sessions' tests and builds (load averages above 2
  during the runs, listed per spot): threads wait, and wall times vary by tens of percent from
  run to run. The two tools ran back to back on each spot so that they saw similar load; the
  ratios are more stable than the times, but repeat a run before reading a difference of 20%.
- TexasSolver prints `time used` in whole milliseconds: a river spot's ~9 ms is known to about
  +-1 ms (+-11%), and so is the solve-time ratio on it.
- The games differ slightly: TexasSolver weights a dealt card 1/(52 - board - 2) instead of
  1/(52 - board - 4) (its issue #95), its DCFR variant is not the paper's, and it computes in
  float32; the exploitabilities are each tool's own measure of its own game. Both reach the
  target as each measures it. TexasSolver prints no EVs, so root values are not compared.
- The spots are small so that the whole bench stays within ~25 minutes on 2 shared cores: the
  turn spot is TexasSolver's flop benchmark with the turn 8d dealt; the flop spot is cut down
  (40-chip stack, ~50-combo ranges, one size per street and all-in). TexasSolver's own flop
  benchmark (pot 10, stack 95, its ranges, 100% bets, 50% raises) takes ~10 s per iteration
  here and was not run.
- Sizes translate one to one (module docstring): `bet 50` = "50%", `raise 60` = "60%" of
  solverkit's raise list (call, then 60% of the pot after the call), `allin` = "a" in the bet,
  raise and donk lists, no donk sizes = `donk = ""`, `set_allin_threshold T` =
  `allin_commit_threshold = T`, TexasSolver's 4 bets per street = `raise_limit = 3`. The tree
  check compares every action node of the dumped streets, amounts in chips included.
"""


FINDINGS = "## Findings (by hand"


def _findings(md: Path) -> str:
    """The hand-written section of an earlier results page (from its FINDINGS heading on), kept
    when the tables are written again."""
    if not md.is_file():
        return ""
    text = md.read_text()
    at = text.find(FINDINGS)
    return "" if at < 0 else "\n" + text[at:]


def render(path: Path, threads: int) -> None:
    """Write the markdown page again from a results JSON (after editing the page's code)."""
    data = json.loads(path.read_text())
    md = path.with_suffix(".md")
    md.write_text(markdown(data["spots"], argparse.Namespace(threads=threads), data["machine"]) + _findings(md))
    print(f"wrote {md}")


def _solverkit_version() -> str:
    """Where the solverkit the runs use lives, and its git commit when it is a checkout."""
    import solverkit

    where = Path(solverkit.__file__).resolve().parent.parent
    try:
        rev = subprocess.run(["git", "-C", str(where), "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(where), "status", "--porcelain", "--", "solverkit"],
                               capture_output=True, text=True).stdout.strip()
        return f"{where} at {rev}{' with uncommitted changes' if dirty else ''}"
    except (subprocess.CalledProcessError, FileNotFoundError):
        return f"{where} ({os.environ.get('SOLVERKIT_REV', 'not a git checkout')})"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spots", default="river,turn,flop", help="comma-separated: river, turn, flop, flop_big, flop_wide")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--variants", choices=("both", "local", "split"), default="both",
                    help="multi-street spots: solverkit whole-tree (local), split_round = 1 with local threads "
                         "(split), or both")
    ap.add_argument("--precision", default="float64",
                    help="solverkit's [store] precision, comma-separated: float64, float32, block16 (rows marked -f32, "
                         "-b16)")
    ap.add_argument("--texassolver", help="console_solver binary (or $TEXASSOLVER_BIN)")
    ap.add_argument("--texassolver-cache", default=str(DEFAULT_CACHE), help="build.sh's cache directory")
    ap.add_argument("--build", action="store_true", help="build TexasSolver when it is missing (~3 min)")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per solver run")
    ap.add_argument("--dump-rounds", type=int, default=2, help="streets of TexasSolver's tree to compare")
    ap.add_argument("--skip-tree-check", action="store_true")
    ap.add_argument("--trees-only", action="store_true", help="only compare the trees")
    ap.add_argument("--no-warmup", action="store_true", help="time solverkit's first run (numba compile included)")
    ap.add_argument("--compile", action="store_true", help="build each solverkit config's kernels ahead of time "
                    "(`solverkit compile`, untimed) before its timed runs: they run without numba and LLVM")
    ap.add_argument("--write-configs", action="store_true", help="write configs/texassolver_<spot>.toml")
    ap.add_argument("--work", help="keep the runs here (default: a temporary directory)")
    ap.add_argument("--out", default=str(RESULTS / "texassolver_spots"), help="results path without extension")
    ap.add_argument("--repeat", type=int, default=1,
                    help="run both tools this many times in turn and report each one's run of median solve time "
                         "(a river spot solves in milliseconds on shared cores: one run says little)")
    ap.add_argument("--render", metavar="JSON", help="only write the markdown page again from this results JSON")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        raise SystemExit(f"--repeat {args.repeat}: valid: 1 or more runs")
    if args.render:
        render(Path(args.render), args.threads)
        return 0

    texts = spot_texts()
    names = [s.strip() for s in args.spots.split(",") if s.strip()]
    bad = [s for s in names if s not in texts]
    if bad:
        raise SystemExit(f"--spots {bad[0]!r}: valid: {', '.join(texts)}")
    ts = find_texassolver(args)
    if ts is None:
        where = args.texassolver or os.environ.get("TEXASSOLVER_BIN") or args.texassolver_cache
        print(f"TexasSolver is not built (looked in {where}; set $TEXASSOLVER_BIN or --texassolver, or pass "
              f"--build): skipping the comparison")
        if not (args.write_configs or args.trees_only):
            return 0
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="texassolver_spots."))
    cpu = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                if ln.startswith("model name")), platform.processor())
    machine = {"cpu": cpu, "nproc": os.cpu_count(), "python": platform.python_version(),
               "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
               "command": "python3 " + " ".join([str(Path(sys.argv[0]).resolve().relative_to(REPO))] + sys.argv[1:]),
               "solverkit": _solverkit_version()}
    entries = [bench_spot(name, texts[name], ts, args, work) for name in names]
    if ts is None or args.trees_only:
        return 0
    for e in entries:
        t = e.get("texassolver")
        for label, r in e.get("solverkit", {}).items():
            if t and "error" not in r:
                print(f"{e['spot']:>5} {label:>7}: time {r['wall_s'] / t['wall_s']:.2f}x (solve "
                      f"{(r['solve_s'] or 0) / (t['solve_s'] or 1):.2f}x), RSS {r['rss_mb'] / t['rss_mb']:.2f}x of "
                      "TexasSolver's")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps({"machine": machine, "spots": entries}, indent=1, default=str))
    md = out.with_suffix(".md")
    md.write_text(markdown(entries, args, machine) + _findings(md))
    print(f"wrote {out.with_suffix('.md')} and .json (work dir {work})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
