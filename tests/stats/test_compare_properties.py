"""Invariants of the whole comparison (hypothesis): units do not change conclusions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchlab.stats.compare import compare_samples

samples = st.lists(st.floats(min_value=1.0, max_value=1000.0), min_size=3, max_size=25)


@settings(max_examples=60, deadline=None)
@given(a=samples, b=samples, scale=st.sampled_from([1e-9, 1e-3, 1.0, 60.0, 1e6]),
       paired=st.booleans())
def test_scale_invariance_of_ratio_ci_bootstrap_and_verdict(a, b, scale, paired):
    if paired:
        n = min(len(a), len(b))
        a, b = a[:n], b[:n]
    x, y = np.array(a), np.array(b)
    one = compare_samples([("a", x), ("b", y)], paired=paired, bootstrap=200, seed=1,
                          threshold=0.01, diagnostics=False).comparisons[0]
    other = compare_samples([("a", x * scale), ("b", y * scale)], paired=paired, bootstrap=200,
                            seed=1, threshold=0.01, diagnostics=False).comparisons[0]
    assert other.ratio.estimate == pytest.approx(one.ratio.estimate, rel=1e-9)
    assert other.ratio.bounded == one.ratio.bounded
    if one.ratio.bounded:
        assert other.ratio.low == pytest.approx(one.ratio.low, rel=1e-7)
        assert other.ratio.high == pytest.approx(one.ratio.high, rel=1e-7)
    for b1, b2 in zip(one.bootstrap, other.bootstrap, strict=True):
        assert b2.low == pytest.approx(b1.low, rel=1e-9)
        assert b2.high == pytest.approx(b1.high, rel=1e-9)
    # A CI limit within rounding of a threshold boundary may tip either way.
    edges = [1.0 - 0.01, 1.0 + 0.01]
    limits = [v for v in (one.ratio.low, one.ratio.high) if v is not None]
    if not any(abs(v - e) < 1e-9 for v in limits for e in edges):
        assert other.verdict.outcome == one.verdict.outcome
    assert other.difference.pvalue == pytest.approx(one.difference.pvalue, rel=1e-6, abs=1e-12)


def test_identical_paired_samples_give_exactly_one_at_any_scale():
    """Regression (found by hypothesis): v_a − 2ρv_ab + ρ²v_b cancels; computed from the data."""
    x = np.array([918.0, 1.0, 309.0, 445.0, 1.0, 511.0])
    for scale in (1e-9, 1.0, 1e6):
        ratio = compare_samples([("a", x * scale), ("b", x * scale)], paired=True,
                                diagnostics=False).comparisons[0].ratio
        assert ratio.low == pytest.approx(1.0, abs=1e-12)
        assert ratio.high == pytest.approx(1.0, abs=1e-12)
