"""Bootstrap: reproducible by seed, equal to a plain loop, exact median-replicate distribution."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from benchlab.stats import bootstrap as bs
from benchlab.stats.bootstrap import bootstrap_ratio, percentile_indices


def _reference_mean_ratio(base, cand, b, seed, confidence=0.95, paired=False):
    """A plain loop with the documented draw order: all baseline resamples, then candidate."""
    rng = np.random.default_rng(seed)
    if paired:
        ratios = []
        for _ in range(b):
            idx = rng.integers(0, base.size, size=base.size, dtype=np.int32)
            ratios.append(np.mean(cand[idx]) / np.mean(base[idx]))
    else:
        base_means = [np.mean(base[rng.integers(0, base.size, size=base.size, dtype=np.int32)])
                      for _ in range(b)]
        cand_means = [np.mean(cand[rng.integers(0, cand.size, size=cand.size, dtype=np.int32)])
                      for _ in range(b)]
        ratios = [c / m for c, m in zip(cand_means, base_means, strict=True)]
    ratios = sorted(ratios)
    alpha = 1 - confidence
    lo = ratios[math.floor(b * alpha / 2)]
    hi = ratios[math.ceil(b * (1 - alpha / 2)) - 1]
    estimate = np.mean(cand) / np.mean(base)
    # BCa by the textbook formulas, jackknife by explicit deletion.
    below = sum(r < estimate for r in ratios) + 0.5 * sum(r == estimate for r in ratios)
    z0 = stats.norm.ppf(below / b)
    if paired:
        jack = [np.mean(np.delete(cand, i)) / np.mean(np.delete(base, i))
                for i in range(base.size)]
    else:
        jack = ([np.mean(cand) / np.mean(np.delete(base, i)) for i in range(base.size)]
                + [np.mean(np.delete(cand, i)) / np.mean(base) for i in range(cand.size)])
    jack = np.array(jack)
    d = jack.mean() - jack
    accel = np.sum(d**3) / (6 * np.sum(d**2) ** 1.5)
    zl, zh = stats.norm.ppf(alpha / 2), stats.norm.ppf(1 - alpha / 2)
    al = stats.norm.cdf(z0 + (z0 + zl) / (1 - accel * (z0 + zl)))
    ah = stats.norm.cdf(z0 + (z0 + zh) / (1 - accel * (z0 + zh)))
    return lo, hi, ratios[math.floor(b * al)], ratios[math.ceil(b * ah) - 1]


@pytest.mark.parametrize("paired", [False, True])
def test_equals_plain_reference_loop(paired):
    rng = np.random.default_rng(5)
    base = rng.lognormal(0, 0.2, 15)
    cand = base * 0.95 + rng.normal(0, 0.05, 15) if paired else rng.lognormal(0, 0.3, 12)
    got = bootstrap_ratio(base, cand, "mean", replicates=999, seed=42, paired=paired)
    lo, hi, blo, bhi = _reference_mean_ratio(base, cand, 999, 42, paired=paired)
    assert got.low == pytest.approx(lo, rel=1e-12)
    assert got.high == pytest.approx(hi, rel=1e-12)
    assert got.bca_low == pytest.approx(blo, rel=1e-12)
    assert got.bca_high == pytest.approx(bhi, rel=1e-12)


def test_chunking_does_not_change_the_stream(monkeypatch):
    base, cand = np.arange(1.0, 41.0), np.arange(2.0, 52.0)
    whole = bootstrap_ratio(base, cand, "mean", replicates=500, seed=3)
    monkeypatch.setattr(bs, "_CHUNK_ELEMENTS", 97)
    chunked = bootstrap_ratio(base, cand, "mean", replicates=500, seed=3)
    assert whole == chunked


def test_reproducible_by_seed_and_seed_matters():
    rng = np.random.default_rng(0)
    base, cand = rng.normal(10, 1, 30), rng.normal(11, 1, 30)
    for statistic in ("mean", "median"):
        one = bootstrap_ratio(base, cand, statistic, replicates=2000, seed=7)
        two = bootstrap_ratio(base, cand, statistic, replicates=2000, seed=7)
        other = bootstrap_ratio(base, cand, statistic, replicates=2000, seed=8)
        assert one == two
        assert (one.low, one.high) != (other.low, other.high)


@pytest.mark.parametrize("n", [7, 8])
def test_median_replicates_have_the_exact_bootstrap_distribution(n):
    """Order-statistic draws vs the exact law of a resample's median index.

    For odd n, P(median index ≤ j) = P(Binomial(n, (j+1)/n) ≥ k), k = (n+1)/2;
    for even n the lower middle index has that law with k = n/2 and the mean
    of the two middle values is compared with a brute-force resampling loop.
    """
    x = np.arange(n, dtype=float) * 10.0  # value = 10 × sorted index
    reps = bs.median_replicates(x, 200_000, np.random.default_rng(1))
    if n % 2:
        k = (n + 1) // 2
        j = np.arange(n)
        cdf = stats.binom.sf(k - 1, n, (j + 1) / n)
        emp = np.array([(reps <= 10.0 * i).mean() for i in j])
        assert np.max(np.abs(emp - cdf)) < 0.005
    else:
        rng = np.random.default_rng(2)
        brute = np.median(x[rng.integers(0, n, size=(200_000, n))], axis=1)
        values = np.union1d(reps, brute)
        emp = np.array([(reps <= v).mean() for v in values])
        ref = np.array([(brute <= v).mean() for v in values])
        assert np.max(np.abs(emp - ref)) < 0.006


@pytest.mark.parametrize("statistic", ["mean", "median"])
@pytest.mark.parametrize("n", [5, 6, 11])
def test_leave_one_out_closed_forms(statistic, n):
    x = np.random.default_rng(n).normal(size=n).round(1)  # ties included
    fn = np.mean if statistic == "mean" else np.median
    brute = [fn(np.delete(x, i)) for i in range(n)]
    assert np.allclose(bs._leave_one_out(x, statistic), brute, rtol=0, atol=1e-12)


def test_percentile_indices_rule():
    assert percentile_indices(10_000, 0.025, 0.975) == (250, 9749)
    assert percentile_indices(999, 0.025, 0.975) == (24, 974)
    assert percentile_indices(100, 0.0, 1.0) == (0, 99)
    assert percentile_indices(1000, (1 - 0.9) / 2, 1 - (1 - 0.9) / 2) == (50, 949)


@pytest.mark.parametrize("n", [9, 10])
def test_rank_median_equals_numpy_median(n):
    x = np.random.default_rng(n).normal(size=n).round(1)  # with ties
    idx = np.random.default_rng(1).integers(0, n, size=(300, n))
    assert np.array_equal(bs.RankMedian(x)(idx), np.median(x[idx], axis=1))


def test_refuses_non_positive_baseline_and_notes_small_samples():
    with pytest.raises(ValueError):
        bootstrap_ratio(np.array([-1.0, 0.5, 0.2]), np.array([1.0, 2.0, 3.0]))
    small = bootstrap_ratio(np.array([1.0, 1.2, 0.9]), np.array([1.1, 1.3, 1.0]), seed=1,
                            replicates=500)
    assert "fewer than 30" in small.note


def test_bca_undefined_is_reported_not_replaced():
    # Every replicate ratio equals the estimate only when both samples are constant.
    got = bootstrap_ratio(np.full(12, 2.0), np.full(12, 3.0), replicates=200, seed=1)
    assert got.low == got.high == 1.5
    assert got.bca_low == 1.5 or got.note is not None
