"""Intervals at any level (issue 21, item 2): RatioInterval.at and BootstrapInterval.at give
what a fresh computation at that level gives — Fieller's closed form written here from the
quadratic with scipy's t, the percentile interval of the same replicates by numpy — and
a suite's trimmed intervals still answer for levels from its confidence up."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from benchlab.stats.bootstrap import bootstrap_ratio
from benchlab.stats.compare import compare_samples
from benchlab.stats.hierarchical_bootstrap import build_tree, hierarchical_bootstrap_ratio

LEVELS = (0.5, 0.8, 0.9, 0.95, 0.99, 0.999, 1 - 0.05 / 40)


def _fieller(a: np.ndarray, b: np.ndarray, level: float, paired: bool) -> tuple[float, float]:
    """Fieller's interval for mean(a)/mean(b) from the quadratic (Fieller 1954): the ρ with
    (ā − ρb̄)² ≤ t² var(ā − ρb̄); Welch df of the pivot at the estimate, or n − 1 paired."""
    ma, mb = a.mean(), b.mean()
    rho = ma / mb
    if paired:
        n = a.size
        va, vb, vab = a.var(ddof=1) / n, b.var(ddof=1) / n, np.cov(a, b, ddof=1)[0, 1] / n
        df = n - 1
    else:
        va, vb, vab = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size, 0.0
        df = (va + rho**2 * vb) ** 2 / (va**2 / (a.size - 1) + rho**4 * vb**2 / (b.size - 1))
    t2 = sps.t.ppf(0.5 + level / 2, df) ** 2
    qa, qb, qc = mb**2 - t2 * vb, -2 * (ma * mb - t2 * vab), ma**2 - t2 * va
    disc = math.sqrt(qb * qb - 4 * qa * qc)
    return (-qb - disc) / (2 * qa), (-qb + disc) / (2 * qa)


@pytest.mark.parametrize("paired", [False, True])
def test_fieller_at_a_level_is_a_fresh_computation_and_the_closed_form(paired):
    rng = np.random.default_rng(11)
    base = rng.normal(100, 4, 12)
    cand = base * 1.03 + rng.normal(0, 2, 12) if paired else rng.normal(103, 6, 9)
    ratio = compare_samples([("a", base), ("b", cand)], paired=paired).comparisons[0].ratio
    for level in LEVELS:
        at = ratio.at(level)
        fresh = compare_samples([("a", base), ("b", cand)], paired=paired,
                                confidence=level).comparisons[0].ratio
        assert at == fresh  # the same function of the same inputs
        assert (at.low, at.high) == pytest.approx(_fieller(cand, base, level, paired),
                                                  rel=1e-9)
    assert ratio.at(ratio.confidence) is ratio


def test_fieller_at_an_unbounded_level_says_so():
    base, cand = np.array([0.5, 3.5, 1.0, 2.5]), np.array([1.0, 3.0, 2.0, 2.5])
    ratio = compare_samples([("a", base), ("b", cand)]).comparisons[0].ratio
    wide = ratio.at(0.9999)
    assert wide.low is None and wide.high is None and "unbounded" in wide.note
    with pytest.raises(ValueError, match="between 0 and 1"):
        ratio.at(1.0)


def _percentile(ordered: np.ndarray, level: float) -> tuple[float, float]:
    """STATS.md §5: the floor(Bα/2)-th and ceil(B(1 − α/2))-th order statistics (1-based:
    index floor(Bα/2) and ceil(B(1 − α/2)) − 1), computed here with numpy's quantile rule
    'inverted_cdf' on the same replicates."""
    alpha = 1 - level
    b = ordered.size
    low = np.quantile(ordered, (math.floor(round(b * alpha / 2, 9)) + 1) / b,
                      method="inverted_cdf")
    high = np.quantile(ordered, math.ceil(round(b * (1 - alpha / 2), 9)) / b,
                       method="inverted_cdf")
    return float(low), float(high)


@pytest.mark.parametrize("statistic", ["mean", "median"])
@pytest.mark.parametrize("paired", [False, True])
def test_bootstrap_at_a_level_is_the_percentile_interval_of_the_same_replicates(statistic,
                                                                                paired):
    rng = np.random.default_rng(4)
    base = rng.lognormal(0, 0.1, 40)
    cand = base * rng.lognormal(0.02, 0.05, 40) if paired else rng.lognormal(0.02, 0.1, 35)
    found = bootstrap_ratio(base, cand, statistic, replicates=4_000, seed=9, paired=paired)
    ordered = found.ordered.values
    assert np.all(np.diff(ordered) >= 0) and ordered.size == 4_000
    for level in LEVELS[:-1]:
        at = found.at(level)
        fresh = bootstrap_ratio(base, cand, statistic, replicates=4_000, seed=9,
                                paired=paired, confidence=level)
        assert (at.low, at.high) == (fresh.low, fresh.high) == _percentile(ordered, level)
        assert (at.bca_low, at.bca_high) == (fresh.bca_low, fresh.bca_high)
        assert at.confidence == level and at.estimate == found.estimate


def test_hierarchical_bootstrap_at_a_level():
    rng = np.random.default_rng(6)
    builds = np.repeat(np.arange(6), 10)

    def tree(shift):
        return build_tree(np.exp(shift + rng.normal(0, .03, 6)[builds]
                                 + rng.normal(0, .05, builds.size)), [builds])

    base, cand = tree(0.0), tree(0.02)
    found = hierarchical_bootstrap_ratio(base, cand, replicates=3_000, seed=3)
    for level in (0.8, 0.99):
        fresh = hierarchical_bootstrap_ratio(base, cand, replicates=3_000, seed=3,
                                             confidence=level)
        at = found.at(level)
        assert (at.low, at.high) == (fresh.low, fresh.high)
        assert at.studentized_low is None  # the studentized interval only at its own level


def test_trimmed_replicates_answer_from_their_level_up():
    rng = np.random.default_rng(8)
    found = bootstrap_ratio(rng.lognormal(0, .1, 30), rng.lognormal(0, .1, 30), "median",
                            replicates=10_000, seed=1)
    kept = found.trimmed(0.95)
    assert not kept.ordered.whole and kept == found  # the same interval, fewer replicates
    for level in (0.95, 0.99, 0.999, 0.99999):
        assert (kept.at(level).low, kept.at(level).high) == (found.at(level).low,
                                                             found.at(level).high)
    with pytest.raises(ValueError, match="not kept"):
        kept.at(0.9)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(3, 30),
       levels=st.lists(st.floats(0.5, 0.999), min_size=2, max_size=4, unique=True),
       scale=st.sampled_from([2.0**-30, 1e-3, 7.0, 2.0**40]))
def test_fieller_wider_at_higher_levels_and_scale_invariant(seed, n, levels, scale):
    rng = np.random.default_rng(seed)
    base, cand = rng.normal(100, 5, n), rng.normal(100, 5, n)
    ratio = compare_samples([("a", base), ("b", cand)]).comparisons[0].ratio
    scaled = compare_samples([("a", base * scale), ("b", cand * scale)]).comparisons[0].ratio
    previous = None
    for level in sorted(levels):
        at, same = ratio.at(level), scaled.at(level)
        assert (at.low is None) == (same.low is None)
        if at.low is None:
            previous = (-math.inf, math.inf)
            continue
        assert at.low <= at.estimate <= at.high
        assert (same.low, same.high) == pytest.approx((at.low, at.high), rel=1e-9)
        if previous is not None:
            assert at.low <= previous[0] and at.high >= previous[1]
        previous = (at.low, at.high)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1),
       levels=st.lists(st.floats(0.5, 0.999), min_size=2, max_size=4, unique=True))
def test_bootstrap_wider_at_higher_levels(seed, levels):
    rng = np.random.default_rng(seed)
    found = bootstrap_ratio(rng.lognormal(0, .1, 15), rng.lognormal(0, .1, 15),
                            replicates=999, seed=seed)
    bounds = [(found.at(level).low, found.at(level).high) for level in sorted(levels)]
    for (low, high), (wider_low, wider_high) in zip(bounds, bounds[1:], strict=False):
        assert wider_low <= low <= high <= wider_high


def test_kept_replicates_of_every_comparison_are_counted_before_drawing(monkeypatch):
    from benchlab.errors import UsageError

    monkeypatch.setenv("BENCHLAB_MAX_MEMORY_MB", "1")
    rng = np.random.default_rng(1)
    samples = [(name, rng.lognormal(0, .1, 20)) for name in "abcd"]
    # 3 candidates × 2 intervals (means, medians) + one call's 4 arrays, of B doubles:
    # 8 · 10 · 10,000 = 0.8 MB fits; 8 · 10 · 20,000 = 1.6 MB does not.
    found = compare_samples(samples, bootstrap=10_000, seed=1)
    assert all(b.ordered.whole for c in found.comparisons for b in c.bootstrap)
    with pytest.raises(UsageError, match="20,000 bootstrap replicates for 3 comparisons"):
        compare_samples(samples, bootstrap=20_000, seed=1)
