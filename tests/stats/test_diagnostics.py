"""Diagnostics warn about drift, dependence, outliers, warm-up and multimodality."""

from __future__ import annotations

import numpy as np

from benchlab.stats.diagnostics import average_ranks, diagnose


def kinds(x):
    return {d.kind for d in diagnose(np.asarray(x, dtype=float), "s")}


def test_clean_sample_gives_no_warning():
    x = np.random.default_rng(0).normal(10, 1, 200)
    assert kinds(x) == set()


def test_drift():
    rng = np.random.default_rng(1)
    x = 10 + np.linspace(0, 2, 60) + rng.normal(0, 0.3, 60)
    assert "drift" in kinds(x)


def test_autocorrelation():
    rng = np.random.default_rng(2)
    e = rng.normal(size=300)
    x = np.empty(300)
    x[0] = e[0]
    for i in range(1, 300):
        x[i] = 0.7 * x[i - 1] + e[i]
    assert "autocorrelation" in kinds(10 + x)


def test_outliers_counted_not_removed():
    x = np.r_[np.linspace(9.9, 10.1, 30), 20.0]
    found = [d for d in diagnose(x, "s") if d.kind == "outliers"]
    assert found and found[0].statistic == 1 and "kept in the analysis" in found[0].message


def test_warmup_first_measurement():
    x = np.r_[25.0, np.random.default_rng(4).normal(10, 0.2, 20)]
    assert "warmup" in kinds(x)


def test_multimodality():
    rng = np.random.default_rng(5)
    x = np.r_[rng.normal(10, 0.2, 100), rng.normal(12, 0.2, 100)]
    rng.shuffle(x)
    assert "multimodal" in kinds(x)


def test_constant_sample_is_quiet():
    assert kinds(np.full(50, 3.0)) == set()


def test_average_ranks_match_scipy():
    from scipy.stats import rankdata

    x = np.random.default_rng(6).integers(0, 10, 100).astype(float)
    assert np.array_equal(average_ranks(x), rankdata(x))


def test_dip_test_beyond_its_tables_is_asymptotic_and_says_so(recwarn):
    """n > 72,000: √n·dip against the largest table's quantiles, no library warning."""
    from benchlab.stats.diagnostics import multimodality

    rng = np.random.default_rng(1)
    two = np.concatenate([rng.normal(0, 1, 40_000), rng.normal(6, 1, 40_000)])
    found = multimodality(two, "a")
    assert len(found) == 1 and "asymptotic" in found[0].message
    assert "p < 0.0001, asymptotic" in found[0].message
    assert multimodality(rng.normal(size=80_000), "b") == []
    assert not [w for w in recwarn if "maximum limit" in str(w.message)]
    small = multimodality(np.concatenate([rng.normal(0, 1, 500), rng.normal(6, 1, 500)]), "c")
    assert small and "asymptotic" not in small[0].message
