"""Real full-deck HULHE subgames: core-seconds per CFR+ update with the compressed store on disk.

A subgame is what Cepheus's workers updated: one flop betting sequence that reaches the turn, on
one canonical flop, with everything below it (turn and river betting, 49 turns x 48 rivers,
1,326 hands). The game is full heads-up limit hold'em with the deal restricted to the chosen
flops (``[game] flops``), so each subgame is exactly a subgame of the full game; it is cut
into one chunk per turn card. Reach vectors come from the trunk's down walk (uniform trunk
strategy). Each iteration runs both players' CFR+ passes over the chosen subgames on one
thread, with the fixed-point store of the original (16 per chip on preflop and flop, 0.5 on
turn and river), blosc2 zstd-1, segment files on disk behind prefetch and write-behind.

Measured: CPU seconds per subgame update (both passes, one core; process CPU time, so other
load on the machine does not count), peak RSS, compressed bytes per subgame and the ratio
against 4-byte floats, with and without the predictor; projected: one full iteration
(110,565 subgames) and 1,579 iterations on 4,800 cores. Anchors (Bowling et al. 2015): about
159 core-seconds per subgame update (61 minutes on 4,800 cores) and 13:1 on regrets.

    python bench/hulhe_subgame.py [--flops AsKd7c,2c2d9h] [--subgames 2] [--iterations 2]

Results: bench/results/hulhe_subgame.json and .md.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import tempfile
import time
from pathlib import Path

import numpy as np

from solverkit.core.codec import ValueCodec
from solverkit.core.config import load_config
from solverkit.core.diskstore import DiskBackend
from solverkit.core.game import PassJob
from solverkit.core.store import Store, family

from common import md_table, write_results

CEPHEUS_CORE_SECONDS = 61 * 60 * 4800 / 110_565  # about 159
CEPHEUS_RATIO = 13.0
SUBGAMES, CORES, ITERATIONS = 110_565, 4_800, 1_579
#: canonical flops, turns and rivers of full HULHE (solverkit.poker.size; tests check them)
FULL_FLOPS, FULL_TURNS, FULL_RIVERS = 1_755, 63_193, 2_554_656


def rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


#: predictor variants compared on the same stored regrets: (name, predictor mode, board order)
VARIANTS = [("none", "none", False), ("west", "west", False), ("north, layout order", "north", False),
            ("north, board order", "north", True), ("gradient, layout order", "gradient", False),
            ("gradient, board order", "gradient", True)]


def regret_state(game, store, names, scales, before=None, keep=False):
    """(stats, stored integers or None): the share of stored regrets that are nonzero, the median
    magnitude of those in stored units, and how many changed since `before` (the integers of an
    earlier call with keep=True). One array at a time: magnitudes go to a histogram."""
    q_all = [] if keep else None
    hist = np.zeros(1 << 16, dtype=np.int64)  # magnitudes 1 .. 65534, the rest in the last bin
    total = changed = 0
    i = 0
    for n in names:
        seg = store.read(n)
        for arr in ("regret0", "regret1"):
            g = game.segment_grid(n, arr)
            order = np.argsort(g.offset, kind="stable")  # blocks by offset, so per_value lines up
            per_value = np.repeat(scales[g.round[order]], (g.hands * g.actions)[order])
            q = np.rint(seg[arr] * per_value).astype(np.int32)  # stored values: exact integers
            total += q.size
            hist += np.bincount(np.minimum(np.abs(q), hist.size - 1), minlength=hist.size)
            if before is not None:
                changed += int(np.count_nonzero(q != before[i]))
            if keep:
                q_all.append(q)
            i += 1
    nonzero = int(hist[1:].sum())
    cum = np.cumsum(hist[1:])
    median = float(np.searchsorted(cum, (nonzero + 1) // 2) + 1) if nonzero else 0.0
    stats = {"nonzero": round(nonzero / max(total, 1), 4), "median_nonzero_magnitude": median,
             "changed": changed if before is not None else None}
    return stats, q_all


def predictor_ratios(game, store, names, compressor, scales):
    """Regret compression ratio (4-byte floats over coded bytes) of every VARIANTS predictor on
    the regrets the store holds now."""
    sizes = dict.fromkeys((v[0] for v in VARIANTS), 0)
    values = 0
    for n in names:
        seg = store.read(n)
        for arr in ("regret0", "regret1"):
            x = seg[arr]
            values += x.size
            for label, mode, board in VARIANTS:
                codec = ValueCodec(compressor, scales, predictor=mode)
                sizes[label] += len(codec.encode(x, game.segment_grid(n, arr, board_order=board), family(arr)))
    return {label: round(4 * values / b, 2) for label, b in sizes.items()}


def policy_gap(game, names, store, exact):
    """How far the fixed-point store's current strategy is from the same run's in float64: the
    mean L1 distance per information set and the share whose most likely action differs."""
    from solverkit.core.layout import policy

    l1 = 0.0
    differ = count = 0
    for n in names:
        region, _ = game._segment_region(n)
        for p in (0, 1):
            lay = game._layout_of(region, p)
            a = policy(store.read(n)[f"regret{p}"], lay)
            b = policy(exact.read(n)[f"regret{p}"], lay)
            l1 += float(np.abs(a - b).sum())
            for start, hands, acts in zip(lay.block_start, lay.block_count, lay.block_actions):
                end = start + hands * acts
                pa = a[start:end].reshape(hands, acts)
                pb = b[start:end].reshape(hands, acts)
                differ += int(np.count_nonzero(pa.argmax(1) != pb.argmax(1)))
            count += int(lay.block_count.sum())
    return {"mean_l1": round(l1 / count, 5), "argmax_differs": round(differ / count, 5)}


def bench_flop(flop, n_subgames, iterations, tmp, measure_at=(), compare_float=False):
    asm = load_config({
        "preset": "cfr_plus",
        "game": {"name": "hulhe", "flops": flop, "split_round": 2, "chunks": 49},
        "compressor": {"name": "blosc2", "codec": "zstd", "level": 1},
        "store": {"regret_scale": [16, 16, 0.5, 0.5], "avg_scale": 16, "backend": "disk"},
    })
    game = asm.game
    entries = sorted({e for e, _, _ in game.subgame_keys()})
    # spread the chosen betting sequences over the flop's 63
    chosen = [entries[i] for i in np.linspace(0, len(entries) - 1, n_subgames).round().astype(int)]
    keys = [k for k in game.subgame_keys() if k[0] in chosen]
    specs = {s.key: s for s in game.segments(True)}
    names = ["trunk"] + [game._segment_name(k) for k in keys]
    codec = ValueCodec(asm.compressor, {"regret": np.array([16, 16, 0.5, 0.5]) * game.value_units(),
                                         "avg": np.full(4, 16.0)}, predictor="west")
    store = Store([specs[n] for n in names], codec, DiskBackend(Path(tmp) / flop, prefetch=2, write_behind=2),
                  grids=game.segment_grid)
    exact = None
    if compare_float:  # the same passes on a float64 store in memory (not timed)
        from solverkit.core.params import spec_of
        from solverkit_compressors.none import NoCompression

        exact = Store([specs[n] for n in names], NoCompression(**spec_of(NoCompression).resolve({}, "none")))
    first = PassJob(1, (0,), asm.rule, asm.averaging)
    _, inputs = game.trunk_reach(store, game.kernel_job(first))
    gaps = {}
    per_iter = []
    ratios = {}
    state, last_q = {}, None  # stored regrets at the measured iterations (changes: vs the iteration before)
    for t in range(1, iterations + 1):
        c0 = time.process_time()
        for p in (0, 1):
            job = PassJob(t, (p,), asm.rule, asm.averaging)
            kjob = game.kernel_job(job)
            store.expect([game._segment_name(k) for k in keys])
            for k in keys:
                game.subgame_pass(k, (kjob, job), inputs[k], store)
        store.flush()
        per_iter.append((time.process_time() - c0) / len(chosen))
        if exact is not None:
            for p in (0, 1):
                job = PassJob(t, (p,), asm.rule, asm.averaging)
                for k in keys:
                    game.subgame_pass(k, (game.kernel_job(job), job), inputs[k], exact)
        if exact is not None and (t in measure_at or t == iterations):
            gaps[t] = policy_gap(game, names[1:], store, exact)
            print(f"  {flop} iteration {t}: current strategy vs float64 {gaps[t]}", flush=True)
        if t in measure_at or t == iterations:
            ratios[t] = predictor_ratios(game, store, names[1:], asm.compressor, codec.scales)
            # the integers are kept (memory: 4 bytes a regret) only when the next iteration is measured
            state[t], last_q = regret_state(game, store, names[1:], codec.scales["regret"],
                                            last_q if t - 1 in state else None, keep=t + 1 in measure_at)
            print(f"  {flop} iteration {t}: {per_iter[-1]:.1f} core-s; regret ratios {ratios[t]}; "
                  f"stored regrets {state[t]}", flush=True)
    sub_names = names[1:]
    # values per turn board and per river board of one subgame (the same on every flop: limit
    # betting restarts each round), for the projection onto the full game's canonical boards
    per_round = np.zeros(4)
    boards_per_round = np.zeros(4)
    for k in keys:
        n = game._segment_name(k)
        for arr, _size in specs[n].arrays.items():
            g = game.segment_grid(n, arr)
            np.add.at(per_round, g.round, g.hands * g.actions)
        g = game.segment_grid(n, "regret0")
        for r in (2, 3):
            boards_per_round[r] += len(np.unique(g.order[g.round == r]))
    stored = store.stored_bytes()
    values = sum(sum(specs[n].arrays.values()) for n in sub_names)
    sub_bytes = sum(sum(len(b) for b in store.payloads(n).values()) for n in sub_names)
    store.close()
    last = ratios[iterations]
    return {
        "flop": flop,
        "betting_sequences": [game.tree.bet.history[e] for e in chosen],
        "subgames": len(chosen),
        "values_per_subgame": values // len(chosen),
        "core_seconds_per_update": [round(x, 1) for x in per_iter],
        "compressed_mb_per_subgame": round(sub_bytes / len(chosen) / 1e6, 1),
        "ratio_all": round(4 * values / sub_bytes, 2),
        "regret_ratio_west": last["west"],
        "regret_ratio_no_predictor": last["none"],
        "regret_ratios_by_iteration": {str(t): r for t, r in ratios.items()},
        "stored_regrets_by_iteration": {str(t): r for t, r in state.items()},
        **({"policy_gap_vs_float64_by_iteration": {str(t): g for t, g in gaps.items()}} if gaps else {}),
        "values_per_turn_board": int(per_round[2] / boards_per_round[2]),
        "values_per_river_board": int(per_round[3] / boards_per_round[3]),
        "stored_bytes_total": stored,
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flops", default="AsKd7c,2c2d9h")
    ap.add_argument("--subgames", type=int, default=2, help="betting sequences per flop")
    ap.add_argument("--iterations", type=int, default=2)
    ap.add_argument("--name", default="hulhe_subgame", help="results file stem in bench/results")
    ap.add_argument("--compare-float", action="store_true",
                    help="also run the passes on a float64 store and report how far the fixed-point current "
                         "strategy is from it (memory: 8 bytes a value)")
    ap.add_argument("--measure-at", default="1,2,5,10,20,50,100",
                    help="iterations at which every predictor's regret ratio is measured (and the last)")
    args = ap.parse_args(argv)
    measure_at = {int(x) for x in args.measure_at.split(",") if x}
    if args.compare_float:
        args.name = args.name if args.name != "hulhe_subgame" else "hulhe_subgame_vs_float"
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for flop in args.flops.split(","):
            row = bench_flop(flop, args.subgames, args.iterations, tmp, measure_at, args.compare_float)
            rows.append(row)
            print(json.dumps(row), flush=True)
    # per flop the median update (the first iteration's subgames are nearly empty)
    last = [float(np.median(r["core_seconds_per_update"][1:] or r["core_seconds_per_update"])) for r in rows]
    # the full game's average subgame: its flop's canonical turns and rivers (exact counts) times
    # the values per board, at the measured cost per value
    turns, rivers, flops = FULL_TURNS, FULL_RIVERS, FULL_FLOPS
    vt = rows[0]["values_per_turn_board"]
    vr = rows[0]["values_per_river_board"]
    mean_values = (turns * vt + rivers * vr) / flops
    ns_per_value = float(np.sum([m * r["subgames"] for m, r in zip(last, rows)]) /
                         np.sum([r["values_per_subgame"] * r["subgames"] for r in rows]))
    mean_s = ns_per_value * mean_values
    ratio = float(np.mean([r["regret_ratio_west"] for r in rows]))
    doc = {
        "command": f"python bench/hulhe_subgame.py --flops {args.flops} --subgames {args.subgames} "
                   f"--iterations {args.iterations} --measure-at {args.measure_at}"
                   + (f" --name {args.name}" if args.name != "hulhe_subgame" else ""),
        "machine": f"{platform.machine()}, {__import__('os').cpu_count()} cores",
        "date": time.strftime("%Y-%m-%d"),
        "rows": rows,
        "core_seconds_per_subgame_update": round(mean_s, 1),
        "ns_per_value_update": round(ns_per_value * 1e9, 2),
        "mean_values_per_full_game_subgame": int(mean_values),
        "measured_flops_mean_core_seconds": round(float(np.mean(last)), 1),
        "cepheus_core_seconds": round(CEPHEUS_CORE_SECONDS, 1),
        "speedup_vs_cepheus": round(CEPHEUS_CORE_SECONDS / mean_s, 2),
        "regret_ratio": round(ratio, 2),
        "cepheus_regret_ratio": CEPHEUS_RATIO,
        "projected_minutes_per_iteration_on_4800_cores": round(SUBGAMES * mean_s / CORES / 60, 1),
        "projected_days_for_1579_iterations": round(SUBGAMES * mean_s / CORES * ITERATIONS / 86400, 1),
        "peak_rss_mb": round(rss_mb(), 1),
    }
    lines = [
        "# HULHE subgames: CFR+ updates with the compressed store on disk",
        "",
        f"`{doc['command']}` on {doc['machine']}, {doc['date']}.",
        "",
        *md_table(["flop", "betting sequences", "values per subgame", "core-s per update (median; min-max)",
                   "MB per subgame", "ratio (all)", "regret ratio, west", "regret ratio, no predictor"],
                  ([r["flop"], ", ".join(r["betting_sequences"]), f"{r['values_per_subgame']:,}",
                    f"{med:.1f}; {min(r['core_seconds_per_update'])}-{max(r['core_seconds_per_update'])}",
                    r["compressed_mb_per_subgame"], r["ratio_all"], r["regret_ratio_west"],
                    r["regret_ratio_no_predictor"]] for r, med in zip(rows, last))),
    ]
    labels = [v[0] for v in VARIANTS]
    lines += ["", "Regret compression ratio by predictor (same stored regrets, blosc2 zstd-1; board order = "
              "Cepheus's flush-suits-then-rank board sort feeding north):", "",
              "| flop | iteration | " + " | ".join(labels) + " |", "|---|---|" + "---|" * len(labels)]
    for r in rows:
        for t, ratio in r["regret_ratios_by_iteration"].items():
            lines.append(f"| {r['flop']} | {t} | " + " | ".join(str(ratio[lab]) for lab in labels) + " |")
    lines += ["", "Stored regrets (integers: regret x scale) at the measured iterations; changed = how many "
              "differ from the iteration before, where that one was measured too:", "",
              "| flop | iteration | nonzero | median nonzero magnitude | changed |", "|---|---|---|---|---|"]
    for r in rows:
        for t, st in r["stored_regrets_by_iteration"].items():
            ch = "" if st["changed"] is None else f"{st['changed']:,}"
            lines.append(f"| {r['flop']} | {t} | {st['nonzero']:.1%} | {st['median_nonzero_magnitude']:g} | {ch} |")
    gap_rows = [(r["flop"], t, g) for r in rows for t, g in r.get("policy_gap_vs_float64_by_iteration", {}).items()]
    if gap_rows:
        lines += ["", "The fixed-point store's current strategy against the same passes on a float64 store "
                  "(per information set of the subgames):", "",
                  "| flop | iteration | mean L1 distance | most likely action differs |", "|---|---|---|---|"]
        lines += [f"| {f} | {t} | {g['mean_l1']} | {g['argmax_differs']:.2%} |" for f, t, g in gap_rows]
    lines += [
        "",
        f"Cost per stored value and update: {doc['ns_per_value_update']} ns (both passes, all threads' CPU time); "
        f"the full game's average subgame (its flop's canonical turns and rivers: {FULL_TURNS:,} and "
        f"{FULL_RIVERS:,} below {FULL_FLOPS:,} flops, {doc['mean_values_per_full_game_subgame']:,} values) at that cost: "
        f"**{doc['core_seconds_per_subgame_update']} core-seconds per subgame update** (the measured flops' mean: "
        f"{doc['measured_flops_mean_core_seconds']}) against Cepheus's "
        f"{doc['cepheus_core_seconds']} ({doc['speedup_vs_cepheus']}x); regret compression "
        f"{doc['regret_ratio']}:1 against Cepheus's 13:1. Projected: {doc['projected_minutes_per_iteration_on_4800_cores']} "
        f"minutes per iteration and {doc['projected_days_for_1579_iterations']} days for 1,579 iterations on "
        f"4,800 cores; peak RSS {doc['peak_rss_mb']} MB.",
    ]
    text = "\n".join(lines) + "\n"
    write_results(args.name, doc, text)
    print(text, end="")


if __name__ == "__main__":
    main()
