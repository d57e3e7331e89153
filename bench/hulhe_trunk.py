"""The full hold'em trunk on one machine: build time, memory and one CFR pass of a trunk-only game.

A zmq trunk of heads-up limit hold'em cut after the flop (``[game] trunk_only = true``) deals
only the preflop and the 1,755 canonical flops; the 110,565 subgames below them live on the
workers. This builds that trunk with the compressed store of the original (fixed point, 16 per
chip before the turn, west predictor, blosc2 zstd-1), then runs CFR+ passes over it with a
stand-in transport that does what the zmq trunk does with its buffers (stacks the subgames'
reach vectors into one array to send, receives one array of values) and returns zeros for
every subgame. Measured: seconds and peak RSS of each phase (game, rollout hand orders, store,
passes), the trunk's stored bytes, and the bytes a pass and an iteration send and receive
(subgames x [2, 1,326] float64 each way).

    python bench/hulhe_trunk.py [--set ranks=9] [--passes 3] [--name hulhe_trunk]

Results: bench/results/<name>.json and .md (defaults: the full game, hulhe_trunk).
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import sys
import time
from pathlib import Path

import numpy as np

from solverkit.core.config import load_config
from solverkit.core.config_text import parse_value
from solverkit.core.game import PassJob
from solverkit.core.solver import make_store, warm_up_kernels
from solverkit.core.transport import Transport

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
#: the issue's goal for the trunk of full hold'em with the compressed store
GOAL_GB = 8.0


def phase(name: str, t: float, c: float) -> dict:
    """Wall and process CPU seconds since (t, c), peak RSS so far and in this phase alone
    (Linux: VmHWM, reset after each phase); printed as it goes."""
    now = phase_peak_gb()
    _PEAK[0] = max(_PEAK[0], now if now is not None else rss_gb())
    row = {"seconds": time.perf_counter() - t, "cpu_seconds": time.process_time() - c, "peak_rss_gb": _PEAK[0],
           "phase_peak_rss_gb": now}
    print(f"{name}: {row['seconds']:.1f} s ({row['cpu_seconds']:.1f} s CPU), peak RSS {row['phase_peak_rss_gb']:.2f} "
          f"GB ({row['peak_rss_gb']:.2f} GB so far)", flush=True)
    return row


_PEAK = [0.0]  # the run's peak RSS (the kernel's high-water mark is reset after each phase)


def phase_peak_gb() -> float | None:
    """This process's peak RSS since the last call (VmHWM, then reset through clear_refs)."""
    try:
        with open("/proc/self/status") as fh:
            kb = next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:"))
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except (OSError, StopIteration, ValueError):
        return None
    return kb / 1024 ** 2


def rss_gb() -> float:
    """Peak resident memory of this process so far (GB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 ** 2


class StandIn(Transport):
    """What a zmq trunk holds during a pass (one stacked array of reach vectors out, one array
    of values in), with zeros for every subgame's values."""

    name = "stand_in"

    def map_subgames(self, job, inputs):
        keys = list(inputs)
        self.sent = np.stack([inputs.pop(k) for k in keys])  # the PASS frames (as zmq: taken out of inputs)
        received = np.zeros((len(keys), *self.game.subgame_output_shape(job)))  # the RESULT frames
        self.bytes = self.sent.nbytes + received.nbytes
        out = dict(zip(keys, received))
        del self.sent
        return out


def measure(sets: dict, passes: int, strength_file: str | None = None) -> dict:
    config = {
        "preset": "cfr_plus",
        "game": {"name": "hulhe", "trunk_only": True, **sets},
        "compressor": {"name": "blosc2", "codec": "zstd", "level": 1},
        "store": {"regret_scale": [16, 16, 0.5, 0.5], "avg_scale": 16},
    }
    phases = {}
    phase_peak_gb()
    t, c = time.perf_counter(), time.process_time()
    asm = load_config(config)
    game = asm.game
    phases["game"] = phase("game", t, c)
    t, c = time.perf_counter(), time.process_time()
    cached = strength_file is not None and Path(strength_file).exists()
    if cached:  # rollout strengths of an earlier run of the same game (they take minutes)
        game._strength = np.load(strength_file)
    game.hand_orders()
    phases["hand_orders"] = {**phase("hand orders", t, c), "loaded_from_file": cached}
    if strength_file is not None and not cached:
        np.save(strength_file, game.hand_strength())
    t, c = time.perf_counter(), time.process_time()
    store = make_store(asm)
    phases["store"] = phase("store", t, c)
    warm_up_kernels()
    game.warmup()
    transport = StandIn()
    transport.start(game, store)
    rs = game.tree.boards.round_start
    split = game.split
    keys = game.subgame_keys()
    trunk_values = sum(store.specs["trunk"].arrays.values())
    runs = []
    for i in range(passes):
        it, player = 1 + i // 2, i % 2
        t, c = time.perf_counter(), time.process_time()
        game.cfr_pass(store, PassJob(it, (player,), asm.rule, asm.averaging), transport)
        runs.append({"iteration": it, "player": player, **phase(f"pass {i + 1}", t, c),
                     "stored_bytes": store.stored_bytes()})
    # reach [2, H] down, values of the updated player [1, H] up (an alternating CFR pass)
    per_pass = len(keys) * (int(np.prod(game.subgame_shape())) + game.tree.num_hands) * 8
    stored = store.stored_bytes()
    return {
        "game": asm.resolved["game"],
        "dealt_boards_per_round": [int(x) for x in np.diff(rs)],
        "whole_game_boards_per_round": [int(x) for x in np.diff(game.round_start)],
        "split_round": split,
        "subgames": len(keys),
        "shape": list(game.subgame_shape()),
        "trunk_values": int(trunk_values),
        "subgame_values": int(sum(sum(s.arrays.values()) for k, s in store.specs.items() if k != "trunk")),
        "phases": phases,
        "passes": runs,
        "trunk_stored_bytes": int(stored),
        "trunk_ratio_vs_float32": 4.0 * trunk_values / stored if stored else None,
        "bytes_per_pass": per_pass,
        "bytes_per_pass_measured": int(transport.bytes) if runs else None,
        "bytes_per_iteration": 2 * per_pass,
        "peak_rss_gb": _PEAK[0],
        "goal_gb": GOAL_GB,
        "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}",
    }


def markdown(r: dict) -> str:
    gb = 1e9
    ph = r["phases"]
    lines = [
        "# The hold'em trunk alone (`[game] trunk_only = true`)",
        "",
        f"Game: `{json.dumps(r['game'])}`; cut at round {r['split_round']}, {r['subgames']:,} subgames.",
        f"Boards dealt on the trunk per round: {r['dealt_boards_per_round']} (the whole game's: "
        f"{r['whole_game_boards_per_round']}).",
        f"Trunk values (regrets and averages of the preflop and the flop): {r['trunk_values']:,}; the subgames' "
        f"(on the workers, counted, never built here): {r['subgame_values']:,}.",
        "",
        "| phase | seconds (wall) | CPU seconds | peak RSS in the phase (GB) | peak RSS so far (GB) |",
        "|---|---|---|---|---|",
    ]

    def row(text, p):
        peak = p.get("phase_peak_rss_gb")
        lines.append(f"| {text} | {p['seconds']:.1f} | {p['cpu_seconds']:.1f} | "
                     f"{'n/a' if peak is None else f'{peak:.2f}'} | {p['peak_rss_gb']:.2f} |")

    row("game: betting tree, preflop and flop boards, board counts below the cut", ph["game"])
    row("hand orders: rollout strengths of the flops (every turn and river, ACPC ranking)" +
        (" (loaded from a file)" if ph["hand_orders"].get("loaded_from_file") else ""), ph["hand_orders"])
    row(f"store: {r['subgames'] + 1:,} segment specs", ph["store"])
    for p in r["passes"]:
        row(f"CFR+ pass, iteration {p['iteration']}, player {p['player']} (trunk down, subgames: zeros, trunk up)", p)
    ratio = r["trunk_ratio_vs_float32"]
    lines += [
        "",
        f"Peak RSS: {r['peak_rss_gb']:.2f} GB (goal: at most {r['goal_gb']:g} GB). Trunk stored: "
        f"{r['trunk_stored_bytes'] / gb:.3f} GB" + (f" ({ratio:.1f}:1 against 4-byte floats" if ratio else "") +
        "; the subgames' values were zeros, so this says little about a real run's ratio).",
        f"Sent and received per pass: {r['bytes_per_pass'] / gb:.2f} GB ({r['subgames']:,} subgames x {r['shape']} "
        f"float64 reach down, x [1, {r['shape'][-1]}] values of the updated player up); per CFR+ iteration (two "
        f"alternating passes): "
        f"{r['bytes_per_iteration'] / gb:.2f} GB, plus two passes per exploitability evaluation.",
        "",
        f"Machine: {r['machine']}, 2 cores shared with other jobs (wall times vary; CPU seconds are this "
        f"process's). Command: `{r['command']}`.",
    ]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", action="append", default=[], metavar="PARAM=VALUE", help="a [game] parameter")
    ap.add_argument("--passes", type=int, default=3, help="CFR+ passes to time (alternating players)")
    ap.add_argument("--name", default="hulhe_trunk")
    ap.add_argument("--strength-file", help="keep the flops' rollout strengths in this .npy file and load "
                    "them from it when it exists (their time is then not measured)")
    args = ap.parse_args()
    sets = {}
    for item in args.set:
        key, _, value = item.partition("=")
        sets[key] = parse_value(value)
    r = measure(sets, args.passes, args.strength_file)
    r["command"] = "python bench/hulhe_trunk.py " + " ".join(sys.argv[1:])
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{args.name}.json").write_text(json.dumps(r, indent=2) + "\n")
    (RESULTS / f"{args.name}.md").write_text(markdown(r))
    print(markdown(r))


if __name__ == "__main__":
    main()
