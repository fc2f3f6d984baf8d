"""Invariants of the whole comparison (hypothesis): units do not change conclusions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from benchlab.errors import InputError
from benchlab.stats.compare import LARGEST, compare_samples

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
    # A difference of means within a few ulps of the means is rounding, not data: scaling
    # moves it (a = [1, 1, 1] against b = [1, 1 + ulp, 1 + ulp]: 0 at scale 1, not at 1e-9)
    mx, my = float(np.mean(x)), float(np.mean(y))
    if abs(mx - my) > 16 * np.finfo(float).eps * max(abs(mx), abs(my)):
        assert other.difference.pvalue == pytest.approx(one.difference.pvalue, rel=1e-6,
                                                        abs=1e-12)


def test_identical_paired_samples_give_exactly_one_at_any_scale():
    """Regression (found by hypothesis): v_a − 2ρv_ab + ρ²v_b cancels; computed from the data."""
    x = np.array([918.0, 1.0, 309.0, 445.0, 1.0, 511.0])
    for scale in (1e-9, 1.0, 1e6):
        ratio = compare_samples([("a", x * scale), ("b", x * scale)], paired=True,
                                diagnostics=False).comparisons[0].ratio
        assert ratio.low == pytest.approx(1.0, abs=1e-12)
        assert ratio.high == pytest.approx(1.0, abs=1e-12)


# Issue 15: magnitudes from 1e-300 to 1e300 give the relative answers of magnitude 1.
extreme_scales = st.integers(min_value=-300, max_value=300).map(lambda e: 10.0 ** e)


@settings(max_examples=80, deadline=None)
@given(a=samples, b=samples, scale=extreme_scales, paired=st.booleans(), tests=st.booleans())
def test_extreme_magnitudes_give_the_same_relative_answers(a, b, scale, paired, tests):
    if paired:
        n = min(len(a), len(b))
        a, b = a[:n], b[:n]
    x, y = np.array(a), np.array(b)
    one = compare_samples([("a", x), ("b", y)], paired=paired, threshold=0.01, tests=tests)
    if max(a + b) * scale > LARGEST:  # the one exception allowed: a clear InputError
        with pytest.raises(InputError, match="magnitude"):
            compare_samples([("a", x * scale), ("b", y * scale)], paired=paired)
        return
    other = compare_samples([("a", x * scale), ("b", y * scale)], paired=paired,
                            threshold=0.01, tests=tests)
    c1, c2 = one.comparisons[0], other.comparisons[0]
    assert c2.ratio.estimate == pytest.approx(c1.ratio.estimate, rel=1e-9)
    assert c2.ratio.bounded == c1.ratio.bounded
    if c2.ratio.bounded:
        assert c2.ratio.low <= c2.ratio.estimate <= c2.ratio.high
        assert c2.ratio.low == pytest.approx(c1.ratio.low, rel=1e-7)
        assert c2.ratio.high == pytest.approx(c1.ratio.high, rel=1e-7)
    assert c2.difference.estimate == pytest.approx(c1.difference.estimate * scale, rel=1e-7,
                                                   abs=1e-12 * scale * max(a + b))
    assert c2.difference.low <= c2.difference.estimate <= c2.difference.high
    assert other.samples[0].stddev == pytest.approx(one.samples[0].stddev * scale, rel=1e-9)
    assert c2.difference.pvalue == pytest.approx(c1.difference.pvalue, rel=1e-6, abs=1e-12)
    assert [d.kind for d in other.diagnostics] == [d.kind for d in one.diagnostics]


@settings(max_examples=40, deadline=None)
@given(x=samples, factor=st.floats(min_value=0.2, max_value=5.0), scale=extreme_scales)
def test_proportional_pairs_give_a_ci_that_holds_its_estimate(x, factor, scale):
    """Exactly (or within rounding) proportional pairs: a point CI, never beside its estimate."""
    base = np.array(x) * scale
    assume(max(x) * factor * scale <= LARGEST)
    ratio = compare_samples([("a", base), ("b", base * factor)], paired=True,
                            diagnostics=False).comparisons[0].ratio
    # Unbounded only when rounding leaves a pivot variance and the baseline mean is not
    # significantly above zero (Fieller's g >= 1): then every ratio is in the set.
    assume(ratio.bounded)
    assert ratio.low <= ratio.estimate <= ratio.high
    assert ratio.estimate == pytest.approx(factor, rel=1e-9)
    assert ratio.high - ratio.low <= 1e-9 * factor


@pytest.mark.parametrize("paired", [True, False])
@pytest.mark.parametrize("scale", [1e-300, 5e-324 * 2**60, 1.0, 8e299])
def test_identical_samples_are_no_difference_never_change(paired, scale):
    x = np.array([0.5, 0.7, 1.2, 1.0]) * scale
    c = compare_samples([("p1", x), ("p2", x.copy())], paired=paired).comparisons[0]
    assert c.verdict.outcome != "change"
    assert c.ratio.low <= 1.0 <= c.ratio.high
    if paired:
        assert c.verdict.outcome == "equivalent"
        assert c.ratio.low == c.ratio.high == 1.0
        assert c.verdict.text.startswith("no difference")
        assert "zero-width" in c.verdict.text


def test_constant_identical_samples_are_exactly_no_difference():
    x = np.full(5, 3.25)
    c = compare_samples([("a", x), ("b", x)]).comparisons[0]
    assert c.verdict.outcome == "equivalent" and c.ratio.low == c.ratio.high == 1.0
    assert "exact" in (c.ratio.note or "")


def test_values_beyond_1e300_are_an_input_error():
    with pytest.raises(InputError, match="magnitude"):
        compare_samples([("a", np.array([1.7e308, 1.6e308])), ("b", np.array([1.0, 2.0]))])


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), scale=extreme_scales)
def test_hierarchical_results_at_extreme_magnitudes(seed, scale):
    """compare --levels and summary: relative answers equal those at magnitude 1."""
    from benchlab.stats.compare import compare_hierarchical
    from benchlab.stats.hierarchy import plan_experiment, summarize

    rng = np.random.default_rng(seed)
    builds, runs = np.repeat(np.arange(4), 12), np.tile(np.repeat(np.arange(3), 4), 4)
    systems = []
    for name, mean in (("a", 1.0), ("b", 1.1)):
        x = (mean + rng.normal(0, 0.03, 4)[builds] + rng.normal(0, 0.02, 12)[builds * 3 + runs]
             + rng.normal(0, 0.01, 48))
        systems.append((name, x, [builds, runs]))
    if 1.3 * scale > LARGEST:
        return
    one = compare_hierarchical(systems, ["build", "run"], bootstrap=100, seed=3)
    other = compare_hierarchical([(n, x * scale, lv) for n, x, lv in systems],
                                 ["build", "run"], bootstrap=100, seed=3)
    c1, c2 = one.comparisons[0], other.comparisons[0]
    assert c2.ratio.low == pytest.approx(c1.ratio.low, rel=1e-7)
    assert c2.ratio.high == pytest.approx(c1.ratio.high, rel=1e-7)
    for b1, b2 in zip(c1.bootstrap, c2.bootstrap, strict=True):
        assert b2.low == pytest.approx(b1.low, rel=1e-9)
        assert b2.high == pytest.approx(b1.high, rel=1e-9)
    assert c2.verdict.outcome == c1.verdict.outcome
    for h1, h2 in zip(one.hierarchies, other.hierarchies, strict=True):
        assert h2.grand_mean == pytest.approx(h1.grand_mean * scale, rel=1e-9)
        assert h2.low <= h2.grand_mean <= h2.high
        for k1, k2 in zip(h1.components, h2.components, strict=True):
            assert k2.relative_sd == pytest.approx(k1.relative_sd, rel=1e-7, abs=1e-12)
            assert k2.share == pytest.approx(k1.share, rel=1e-7, abs=1e-12)
    s1 = summarize(systems[0][1], systems[0][2], ["build", "run"])
    s2 = summarize(systems[0][1] * scale, systems[0][2], ["build", "run"])
    p1 = plan_experiment(s1, [60.0, 1.0, 0.1], budget=3600.0)
    p2 = plan_experiment(s2, [60.0, 1.0, 0.1], budget=3600.0)
    assert p2.optimal.repetitions == p1.optimal.repetitions
    if p1.optimal.relative_halfwidth is not None:
        assert p2.optimal.relative_halfwidth == pytest.approx(p1.optimal.relative_halfwidth,
                                                              rel=1e-7)
