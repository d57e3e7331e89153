"""Layout bookkeeping and the regret-matching kernel against a slow pure-Python reference."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solverkit.core.layout import Layout, policy, regret_matching

# (count, num_actions) blocks; count 0 (an empty block) is legal
blocks_st = st.lists(st.tuples(st.integers(0, 4), st.integers(1, 6)), min_size=0, max_size=5)
finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)


def ref_slices(blocks):
    """(start, num_actions) per information set, by walking the blocks one value at a time."""
    out, pos = [], 0
    for count, na in blocks:
        for _ in range(count):
            out.append((pos, na))
            pos += na
    return out, pos


def ref_regret_matching(values, blocks):
    """sigma(a) = R+(a) / sum_b R+(b) per information set; uniform when every R+ is zero."""
    out = [0.0] * len(values)
    slices, _ = ref_slices(blocks)
    for start, na in slices:
        pos = [max(values[start + a], 0.0) for a in range(na)]
        total = 0.0
        for v in pos:
            total += v
        for a in range(na):
            out[start + a] = pos[a] / total if total > 0.0 else 1.0 / na
    return out


@st.composite
def layout_and_values(draw, elements=finite):
    blocks = draw(blocks_st)
    _, size = ref_slices(blocks)
    values = draw(st.lists(elements, min_size=size, max_size=size))
    return blocks, values


@given(blocks_st)
def test_layout_bookkeeping_matches_reference(blocks):
    layout = Layout.from_blocks(blocks)
    slices, size = ref_slices(blocks)
    assert layout.size == size
    assert layout.num_infosets == sum(c for c, _ in blocks)
    assert list(layout.infoset_slices()) == slices
    assert layout.block_start.dtype == layout.block_count.dtype == layout.block_actions.dtype == np.int64


def test_single_is_one_block_of_one_infoset():
    layout = Layout.single(5)
    assert layout.size == 5 and layout.num_infosets == 1
    assert list(layout.infoset_slices()) == [(0, 5)]


@settings(max_examples=100, deadline=None)
@given(layout_and_values())
def test_policy_matches_reference_and_is_a_distribution_per_infoset(case):
    blocks, values = case
    layout = Layout.from_blocks(blocks)
    got = policy(np.array(values, dtype=np.float64), layout)
    np.testing.assert_allclose(got, ref_regret_matching(values, blocks), rtol=1e-14, atol=0)
    assert np.all(got >= 0.0)
    for start, na in layout.infoset_slices():
        assert sum(got[start : start + na]) == pytest.approx(1.0, abs=1e-12)


@settings(max_examples=50, deadline=None)
@given(layout_and_values(st.sampled_from([-3.0, -1.0, 0.0, -0.0, 1e-300, 2.0, 5e-324])))
def test_policy_ties_zeros_and_tiny_values(case):
    """Sparse values (zeros, negatives, subnormals) exercise the uniform fallback."""
    blocks, values = case
    got = policy(np.array(values, dtype=np.float64), Layout.from_blocks(blocks))
    np.testing.assert_allclose(got, ref_regret_matching(values, blocks), rtol=1e-14, atol=0)


def test_kernel_writes_into_out_and_leaves_values_alone():
    layout = Layout.from_blocks([(2, 3), (1, 2)])
    values = np.array([1.0, -1.0, 3.0, -1.0, -2.0, 0.0, 0.0, 4.0])
    before = values.copy()
    out = np.full_like(values, np.nan)
    regret_matching(values, layout.block_start, layout.block_count, layout.block_actions, out)
    np.testing.assert_array_equal(values, before)
    np.testing.assert_allclose(out, [0.25, 0.0, 0.75, 1 / 3, 1 / 3, 1 / 3, 0.0, 1.0], rtol=1e-15)
    again = policy(values, layout, out=out)
    assert again is out


def test_normalising_a_cumulative_strategy():
    """On non-negative cumulative strategies the kernel is plain normalisation (the average)."""
    layout = Layout.from_blocks([(1, 4)])
    cum = np.array([2.0, 0.0, 6.0, 8.0])
    np.testing.assert_allclose(policy(cum, layout), cum / cum.sum(), rtol=1e-15)


@settings(max_examples=40, deadline=None)
@given(blocks=st.lists(st.tuples(st.integers(0, 4), st.integers(1, 6)), min_size=1, max_size=8),
       part=st.integers(1, 30), seed=st.integers(0, 1000))
def test_policy_in_parts_equals_policy(blocks, part, seed):
    """Part by part (parts of whole blocks, release() after each) gives policy()'s numbers."""
    from solverkit.core.layout import policy_in_parts

    lay = Layout.from_blocks(blocks)
    values = np.random.default_rng(seed).normal(size=lay.size)
    calls = []
    out = policy_in_parts(values, lay, np.full(lay.size, np.nan), release=lambda: calls.append(1), part_values=part)
    np.testing.assert_array_equal(out, policy(values, lay))
    assert 1 <= len(calls) <= len(blocks)
    # the parts on two threads (a transport's map_local), and from a decoder function: the same numbers
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        def parallel(fn, items):
            return list(pool.map(fn, items))

        seen = []
        out2 = policy_in_parts(lambda a, b: seen.append((a, b)) or values[a:b].copy(), lay, np.full(lay.size, np.nan),
                               release=lambda: None, part_values=part, parallel=parallel)
    np.testing.assert_array_equal(out2, policy(values, lay))
    assert sorted(seen) == sorted(set(seen)) and len(seen) == len(calls)
