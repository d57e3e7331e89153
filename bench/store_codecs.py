"""Compression ratio and speed of the value store's codecs on real Rhode Island regret segments.

Solves true Rhode Island hold'em with CFR+ for `--iterations` (float64 store), then encodes
every segment's regrets and averages with each codec configuration (fixed point at 16 per chip,
predictor, compressor) and decodes them again. Reports the ratio against 4-byte floats and
encode / decode speed in GB/s of 4-byte values, both per array family, in the same run. The
baseline is zlib (DEFLATE) without a predictor, the classic general-purpose choice.

    python bench/store_codecs.py [--iterations 300] [--chunks 13]

Results: bench/results/store_codecs.json and .md.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np

from solverkit.core.codec import ValueCodec
from solverkit.core.config import load_config
from solverkit.core.params import spec_of
from solverkit.core.registry import get_registry
from solverkit.core.solver import Solver
from solverkit.core.store import family

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"

CONFIGS = [
    ("zlib-6 on float32 bits (baseline)", "zlib", {"level": 6}, None, "none"),
    ("zlib-6, fixed point", "zlib", {"level": 6}, 16.0, "none"),
    ("blosc2 lz4 shuffle, fixed point", "blosc2", {"codec": "lz4"}, 16.0, "none"),
    ("blosc2 lz4 shuffle, fixed point, gradient", "blosc2", {"codec": "lz4"}, 16.0, "gradient"),
    ("blosc2 zstd-1 shuffle, fixed point", "blosc2", {"level": 1}, 16.0, "none"),
    ("blosc2 zstd-1 shuffle, fixed point, west", "blosc2", {"level": 1}, 16.0, "west"),
    ("blosc2 zstd-1 shuffle, fixed point, north", "blosc2", {"level": 1}, 16.0, "north"),
    ("blosc2 zstd-1 shuffle, fixed point, gradient", "blosc2", {"level": 1}, 16.0, "gradient"),
    ("blosc2 zstd-1 bytedelta, fixed point", "blosc2", {"level": 1, "filter": "bytedelta"}, 16.0, "none"),
    ("blosc2 zstd-1 bitshuffle, fixed point", "blosc2", {"level": 1, "filter": "bitshuffle"}, 16.0, "none"),
    ("blosc2 zstd-3 shuffle, fixed point", "blosc2", {}, 16.0, "none"),
    ("blosc2 zstd-9 shuffle, fixed point", "blosc2", {"level": 9}, 16.0, "none"),
    ("blosc2 lz4 shuffle, fixed point, west", "blosc2", {"codec": "lz4"}, 16.0, "west"),
    ("huffman, fixed point, west", "huffman", {}, 16.0, "west"),
    ("huffman, fixed point, gradient", "huffman", {}, 16.0, "gradient"),
]


def compressor(name, params):
    cls = get_registry().get("compressor", name)
    return cls(**spec_of(cls).resolve(params, name))


def measure(solver, game, name, params, scale, predictor):
    """Encode and decode every array of every segment; sizes and times per family."""
    store = solver.store
    units = np.asarray(game.value_units(), dtype=np.float64)
    if scale is None:  # the float baseline: float32 bits (the 4-byte floats of the ratio)
        scales = {}
    else:
        scales = {"regret": scale * units, "avg": np.full(units.size, scale)}
    codec = ValueCodec(compressor(name, params), scales, predictor=predictor)
    out = {}
    for key in store.specs:
        seg = store.read(key)
        for arr_name in store.specs[key].arrays:
            fam = family(arr_name)
            x = np.asarray(seg[arr_name])
            grid = store.grid(key, arr_name)
            if scale is None:
                x32 = x.astype(np.float32)
                t0 = time.perf_counter()
                payload = codec.compressor.compress(memoryview(x32).cast("B"), 4)
                t1 = time.perf_counter()
                codec.compressor.decompress(payload)
                t2 = time.perf_counter()
            else:
                t0 = time.perf_counter()
                payload = codec.encode(x, grid, fam)
                t1 = time.perf_counter()
                codec.decode(payload, grid, fam, key)
                t2 = time.perf_counter()
            f = out.setdefault(fam, {"values": 0, "bytes": 0, "enc_s": 0.0, "dec_s": 0.0})
            f["values"] += x.size
            f["bytes"] += len(payload)
            f["enc_s"] += t1 - t0
            f["dec_s"] += t2 - t1
    return {
        fam: {
            "ratio": round(4 * f["values"] / f["bytes"], 2),
            "encode_gb_s": round(4 * f["values"] / f["enc_s"] / 1e9, 3),
            "decode_gb_s": round(4 * f["values"] / f["dec_s"] / 1e9, 3),
            "mb": round(f["bytes"] / 1e6, 2),
        }
        for fam, f in out.items()
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=300)
    ap.add_argument("--chunks", type=int, default=13)
    ap.add_argument("--game", default="rhode_island")
    args = ap.parse_args(argv)
    asm = load_config({"preset": "cfr_plus", "game": {"name": args.game, "split_round": 1, "chunks": args.chunks}})
    solver = Solver(asm)
    t0 = time.perf_counter()
    for _ in range(args.iterations):
        solver.step()
    solve_s = time.perf_counter() - t0
    rows = []
    for label, name, params, scale, predictor in CONFIGS:
        res = measure(solver, asm.game, name, params, scale, predictor)
        rows.append({"codec": label, **{f"{fam}_{k}": v for fam, d in res.items() for k, v in d.items()}})
        print(label, res, flush=True)
    solver.close()
    base = rows[0]
    for r in rows:
        r["regret_ratio_vs_baseline"] = round(r["regret_ratio"] / base["regret_ratio"], 2)
    doc = {
        "command": f"python bench/store_codecs.py --iterations {args.iterations} --chunks {args.chunks} --game {args.game}",
        "machine": f"{platform.machine()}, {__import__('os').cpu_count()} cores",
        "date": time.strftime("%Y-%m-%d"),
        "solve_seconds": round(solve_s, 1),
        "segments": len(solver.store.specs),
        "rows": rows,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "store_codecs.json").write_text(json.dumps(doc, indent=2) + "\n")
    lines = [
        f"# Value-store codecs on real {args.game} segments (CFR+, {args.iterations} iterations)",
        "",
        f"`{doc['command']}` on {doc['machine']}, {doc['date']}; {doc['segments']} segments. Ratio against",
        "4-byte floats; speeds in GB/s of 4-byte values, one thread; fixed point at 16 per chip",
        "(regrets) and 16 (averages). Baseline: zlib on float32 bits without a predictor.",
        "",
        "| codec | regret ratio | regret vs baseline | avg ratio | regret encode GB/s | regret decode GB/s |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r['codec']} | {r['regret_ratio']} | {r['regret_ratio_vs_baseline']} | {r['avg_ratio']} | "
                     f"{r['regret_encode_gb_s']} | {r['regret_decode_gb_s']} |")
    (RESULTS / "store_codecs.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
