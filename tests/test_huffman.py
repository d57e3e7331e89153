"""The huffman compressor: exact round trips of any bytes, limited code lengths, refused damage,
and a fixed-point solve identical to blosc2's (the compressor is lossless, so only sizes move)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solverkit.core.config import load_config
from solverkit.core.solver import run_solve
from solverkit_compressors.huffman import HuffmanCompressor
from solverkit_compressors.huffman_kernels import LIMIT, canonical_codes, code_lengths

H = HuffmanCompressor()


def trip(data: bytes) -> bytes:
    payload = bytes(H.compress(memoryview(data), 4))
    out = bytearray(len(data))
    H.decompress_into(payload, memoryview(out))
    assert H.decompress(payload) == data
    return bytes(out)


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_round_trip(data):
    assert trip(data) == data


@pytest.mark.parametrize("kind", ["zeros", "ones", "top", "geometric", "sparse", "wide", "one_big"])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 1000, 100_003])
def test_word_distributions_round_trip(kind, n):
    rng = np.random.default_rng(n)
    v = {"zeros": np.zeros(n, np.uint32),
         "ones": np.ones(n, np.uint32),
         "top": np.full(n, 2**32 - 1, np.uint32),
         "geometric": rng.geometric(0.3, n).astype(np.uint32) - 1,
         "sparse": (rng.random(n) < 0.02) * rng.integers(0, 2**20, n),
         "wide": rng.integers(0, 2**32, n, dtype=np.uint64),
         "one_big": np.where(np.arange(n) == n // 2, 2**31 + 7, 0)}[kind].astype("<u4")
    data = v.tobytes() + b"\x01\x02"[: n % 3]
    assert trip(data) == data


def test_a_one_class_array_costs_no_code_bits():
    zeros = bytes(4 * 100_000)
    assert len(H.compress(memoryview(zeros), 4)) < 64
    ones = np.ones(100_000, "<u4").tobytes()
    assert len(H.compress(memoryview(ones), 4)) < 64


def test_small_residuals_compress_well():
    rng = np.random.default_rng(1)
    v = (rng.geometric(0.5, 1_000_000) - 1).astype("<u4")  # entropy 2 bits per word
    assert 4 * v.size / len(H.compress(memoryview(v.tobytes()), 4)) > 15


@pytest.mark.parametrize("limit", [6, 8, LIMIT])
def test_skewed_counts_get_codes_no_longer_than_the_limit(limit):
    fib = [1, 1]
    while len(fib) < 33:
        fib.append(fib[-1] + fib[-2])  # Fibonacci counts make the deepest Huffman trees
    with pytest.raises(ValueError, match="33 classes need codes longer than 5 bits"):
        code_lengths(np.array(fib), 5)
    lengths = code_lengths(np.array(fib), limit)
    assert 1 <= lengths.max() <= limit and np.all(lengths > 0)
    assert sum(2.0 ** -int(x) for x in lengths) <= 1.0  # a prefix code
    codes = canonical_codes(lengths)
    words = {format(int(c), f"0{int(n)}b")[::-1] for c, n in zip(codes, lengths)}
    assert not any(a != b and b.startswith(a) for a in words for b in words)
    # a stream using every class decodes, with the longest codes
    v = np.concatenate([np.full(c, (1 << b) >> 1, "<u4") for b, c in enumerate(fib) if c < 10_000])
    assert trip(v.tobytes()) == v.tobytes()


def test_damaged_payloads_are_refused_not_misread():
    rng = np.random.default_rng(7)
    v = (rng.geometric(0.2, 20_000) - 1).astype("<u4").tobytes()
    payload = bytes(H.compress(memoryview(v), 4))
    with pytest.raises(ValueError, match="not a huffman payload"):
        H.decompress(b"XYZ" + payload[3:])
    with pytest.raises(ValueError, match="shorter than its header"):
        H.decompress(payload[:10])
    with pytest.raises(ValueError, match="its header says"):
        H.decompress(payload[:-4])
    bad = bytearray(payload)
    bad[6] = 200  # a code length over the limit
    with pytest.raises(ValueError, match="header is corrupt"):
        H.decompress(bytes(bad))
    bad = bytearray(payload)
    bad[6:6 + 33] = bytes([1] * 33)  # 33 one-bit codes: not a prefix code
    with pytest.raises(ValueError, match="not a prefix code"):
        H.decompress(bytes(bad))
    with pytest.raises(ValueError, match="decodes to"):
        H.decompress_into(payload, memoryview(bytearray(len(v) + 4)))
    # flipped bits in the body: refused, or decoded to other words of the right size (the
    # store's frame checksum catches those); never a crash or a read past the payload
    for _ in range(200):
        bad = bytearray(payload)
        bad[int(rng.integers(64, len(bad)))] ^= 1 << int(rng.integers(0, 8))
        try:
            assert len(H.decompress(bytes(bad))) == len(v)
        except ValueError as exc:
            assert "does not decode" in str(exc)


def test_a_stream_cut_short_is_refused():
    v = np.full(1000, 2**31 - 1, "<u4").tobytes() + np.arange(1000, dtype="<u4").tobytes()
    payload = bytearray(H.compress(memoryview(v), 4))
    count_at = 6 + 33  # the count field follows magic, version, class, tail length and 33 lengths
    head = payload[:count_at]
    count = int.from_bytes(payload[count_at:count_at + 8], "little")
    longer = bytes(head) + (count + 500).to_bytes(8, "little") + bytes(payload[count_at + 8:])
    with pytest.raises(ValueError, match="does not decode"):
        H.decompress_into(longer, memoryview(bytearray(len(v) + 4 * 500)))


def test_a_fixed_point_solve_is_the_same_as_with_blosc2():
    base = {"preset": "cfr_plus", "game": {"name": "leduc", "split_round": 1, "chunks": 2},
            "solver": {"iterations": 20, "eval_every": 5}, "store": {"regret_scale": 16, "avg_scale": 16}}
    a = run_solve(load_config({**base, "compressor": {"name": "huffman"}}))
    b = run_solve(load_config({**base, "compressor": {"name": "blosc2", "codec": "zstd", "level": 1}}))
    assert [r["exploitability"] for r in a.metrics] == [r["exploitability"] for r in b.metrics]
    for p in (0, 1):
        np.testing.assert_array_equal(a.strategy[p], b.strategy[p])
    assert a.stored_bytes != b.stored_bytes
