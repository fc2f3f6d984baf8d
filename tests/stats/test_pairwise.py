"""Order statistics of pairwise differences and Walsh averages against all pairs sorted,
on every path: materialized, bisection then gathered, and bisection to the float
resolution (ties), with the size limits forced small so every path runs on small data."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchlab.stats import pairwise

values = st.lists(st.integers(-40, 40), min_size=2, max_size=60)  # many ties


def close(got: float, want: float) -> bool:
    """Equal up to the rounding of one sum (the module's promise: one ulp)."""
    return abs(got - want) <= 4e-16 * max(1.0, abs(want))


@settings(max_examples=150, deadline=None)
@given(values, values, st.sampled_from([0, 7, 10**9]), st.data())
def test_kth_difference_equals_all_pairs_sorted(a, b, gather, data):
    a_s = np.sort(np.array(a, dtype=float) / 8.0)
    b_s = np.sort(np.array(b, dtype=float) / 8.0 + 0.1)
    every = np.sort(np.subtract.outer(b_s, a_s).ravel())
    k = data.draw(st.integers(1, every.size))
    old = pairwise._MATERIALIZE, pairwise._GATHER
    pairwise._MATERIALIZE, pairwise._GATHER = 0, gather
    try:
        assert close(pairwise.kth_difference(a_s, b_s, k), float(every[k - 1]))
    finally:
        pairwise._MATERIALIZE, pairwise._GATHER = old


@settings(max_examples=150, deadline=None)
@given(values, st.sampled_from([0, 7, 10**9]), st.data())
def test_kth_walsh_sum_equals_all_walsh_sums_sorted(d, gather, data):
    s = np.sort(np.array(d, dtype=float) / 8.0 + 0.05)
    i, j = np.triu_indices(s.size)
    every = np.sort(s[i] + s[j])
    k = data.draw(st.integers(1, every.size))
    old = pairwise._GATHER
    pairwise._GATHER = gather
    try:
        assert close(pairwise.kth_walsh_sum(s, k), float(every[k - 1]))
    finally:
        pairwise._GATHER = old


def test_pseudomedian_of_many_pairs_without_materializing():
    """10^4 differences: 5·10^7 Walsh averages, beyond _MATERIALIZE; the median of a
    random subset of them brackets it, and the bisection gives one of the Walsh sums."""
    d = np.random.default_rng(4).normal(0.3, 1.0, 10_000)
    got = pairwise.median_of_walsh_averages(d)
    s = np.sort(d)
    below = np.sum(np.maximum(np.searchsorted(s, 2 * got - s, side="right")
                              - np.arange(s.size), 0))
    total = s.size * (s.size + 1) // 2
    assert below == pytest.approx(total / 2, abs=2)  # half the Walsh averages at or below it
