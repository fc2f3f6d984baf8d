"""The cheap checks beside the mean's verdict (stats/mean_checks.py) against scipy.stats."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from benchlab.stats.mean_checks import (
    mean_warning,
    rank_sum_pvalue,
    rank_test_can_reject,
    skewness,
)


@pytest.mark.parametrize("m, n, ties, seed", [(5, 7, False, 1), (12, 9, False, 2),
                                               (30, 49, False, 3), (8, 8, True, 4),
                                               (60, 80, False, 5), (300, 250, True, 6)])
def test_rank_sum_pvalue_matches_scipy(m, n, ties, seed):
    rng = np.random.default_rng(seed)
    base = rng.lognormal(0, 1, n)
    cand = rng.lognormal(0.3, 1, m)
    if ties:
        base, cand = np.round(base, 1), np.round(cand, 1)
    exact = m < 50 and n < 50 and np.unique(np.r_[base, cand]).size == m + n
    want = stats.mannwhitneyu(cand, base, alternative="two-sided",
                              method="exact" if exact else "asymptotic",
                              use_continuity=True).pvalue
    assert rank_sum_pvalue(base, cand) == pytest.approx(want, rel=1e-9, abs=1e-15)


def test_rank_sum_pvalue_skips_huge_samples():
    assert rank_sum_pvalue(np.arange(200_001.0), np.arange(3.0)) is None


@pytest.mark.parametrize("n, seed", [(8, 0), (40, 1), (5000, 2)])
def test_skewness_matches_scipy_unbiased(n, seed):
    x = np.random.default_rng(seed).gamma(0.5, size=n)
    got = skewness(x)
    assert got.g1 == pytest.approx(stats.skew(x, bias=False), rel=1e-10)
    se = math.sqrt(6 * n * (n - 1) / ((n - 2) * (n + 1) * (n + 3)))
    assert got.se == pytest.approx(se)
    assert got.strong == (abs(got.g1) > 1 and abs(got.g1) > 3 * se)


def test_skewness_of_symmetric_or_constant_data():
    assert skewness(np.array([1.0, 2.0])) is None
    assert skewness(np.full(10, 3.0)) is None
    assert not skewness(np.random.default_rng(3).normal(size=2000)).strong


def test_rank_test_can_reject_counts_arrangements():
    assert not rank_test_can_reject(2, 2, 0.05)  # 2 / C(4, 2) = 1/3
    assert rank_test_can_reject(4, 4, 0.05)  # 2 / 70
    assert not rank_test_can_reject(5, 5, 0.05, paired=True)  # 2 / 32
    assert rank_test_can_reject(6, 6, 0.05, paired=True)  # 2 / 64


def _warn(**kw):
    base = dict(mean_low=0.95, mean_high=1.03, rank_p=0.5, rank_name="Mann-Whitney",
                median=None, skews=[], confidence=0.95)
    base.update(kw)
    return mean_warning(**base)


def test_mean_warning_cases():
    assert _warn() is None  # everything agrees: no difference
    assert _warn(mean_low=1.02, mean_high=1.05, rank_p=0.001) is None  # agree: a change
    text = _warn(rank_p=0.012)
    assert "finds no difference (CI 0.9500 .. 1.0300) but Mann-Whitney p = 0.0120" in text
    assert text.endswith("--statistic median makes the ratio of medians the headline")
    assert "excludes 1" in _warn(median=(0.90, 0.98))
    assert "finds a change" in _warn(mean_low=1.01, mean_high=1.05, median=(0.99, 1.02))
    assert _warn(rank_p=0.012, rank_can_reject=False) is None
    strong = skewness(np.random.default_rng(0).lognormal(0, 1.5, 200))
    assert "strong skew (skewness new " in _warn(skews=[("new", strong)])
    assert "\n" not in _warn(rank_p=0.01, median=(0.9, 0.95), skews=[("new", strong)])


@pytest.mark.parametrize(("m", "n"), [(2, 2), (2, 3), (3, 3), (4, 4), (3, 9), (10, 12), (40, 45)])
def test_rank_test_can_reject_matches_the_exact_smallest_p(m, n):
    for alpha in (0.001, 0.01, 0.05, 0.2):
        assert rank_test_can_reject(m, n, alpha) == (2 / math.comb(m + n, m) < alpha)
        assert rank_test_can_reject(m, n, alpha, paired=True) == (2 / 2**n < alpha)


@pytest.mark.parametrize("n", [519, 520, 1023, 1024, 5000, 100_000])
def test_rank_test_can_reject_at_sizes_that_overflowed_a_float(n):
    """C(2n, n) and 2^n overflow a float from about 520 values and 1,024 pairs."""
    assert rank_test_can_reject(n, n, 1e-300)
    assert rank_test_can_reject(n, n, 0.05, paired=True)
    assert not rank_test_can_reject(n, n, 0.0)
