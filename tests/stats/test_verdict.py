"""The verdict table of STATS.md §4, its sentences and the extra-measurements estimate."""

from __future__ import annotations

import numpy as np
import pytest

from benchlab.stats.compare import compare_samples
from benchlab.stats.fieller import fieller_interval
from benchlab.stats.verdict import classify, more_measurements, verdict_sentence
from benchlab.units import make_unit


@pytest.mark.parametrize("low,high,threshold,outcome", [
    (0.90, 0.95, 0.0, "change"),
    (1.01, 1.05, 0.0, "change"),
    (0.99, 1.01, 0.0, "inconclusive"),  # δ = 0: "no difference proven"
    (0.99, 1.01, 0.02, "equivalent"),
    (0.97, 0.99, 0.02, "inconclusive"),  # crosses 1 − δ
    (0.90, 0.97, 0.02, "change"),
    (1.00, 1.03, 0.02, "inconclusive"),
    (None, None, 0.0, "inconclusive"),
])
def test_classify(low, high, threshold, outcome):
    assert classify(low, high, threshold) == outcome


def test_sentences():
    s, t = make_unit("s"), make_unit("ops/s")
    assert verdict_sentence("change", "old", "new", 0.945, 0.92, 0.97, 0.0, 0.95, s, None) == (
        "new is 5.5% faster than old (95% CI 3.0% .. 8.0%)")
    assert verdict_sentence("change", "old", "new", 1.10, 1.05, 1.15, 0.02, 0.9, t, None) == (
        "new is 10.0% better than old (90% CI 5.0% .. 15.0%), more than the 2.0% threshold")
    text = verdict_sentence("inconclusive", "old", "new", 0.99, 0.97, 1.01, 0.0, 0.95, s,
                            (12, 12))
    assert text == ("no difference proven between new and old: change -1.0% (95% CI -3.0% .. "
                    "+1.0%); about 12 more measurements per sample would likely decide it")
    near = verdict_sentence("inconclusive", "old", "new", 0.997, 0.994, 1.0005, 0.0, 0.95, s,
                            None)
    assert "95% CI -0.6% .. +0.05%" in near  # not "+0.0%": the CI does include no change
    eq = verdict_sentence("equivalent", "old", "new", 1.001, 0.99, 1.012, 0.02, 0.95, s, None)
    assert eq.startswith("new and old are equivalent within ±2.0%")


def test_more_measurements_is_enough_in_expectation():
    """Simulate the suggested size: the CI then decides about half the time or more."""
    rng = np.random.default_rng(4)
    base = rng.normal(100, 5, 10)
    cand = rng.normal(97, 5, 10)
    res = compare_samples([("b", base), ("c", cand)])
    verdict = res.comparisons[0].verdict
    if verdict.outcome != "inconclusive":
        pytest.skip("the pilot already decided")
    n = 10 + verdict.more_measurements[0]
    decided = 0
    for _ in range(200):
        b, c = rng.normal(100, 5, n), rng.normal(97, 5, n)
        r = fieller_interval(c.mean(), b.mean(), c.var(ddof=1) / n, b.var(ddof=1) / n, 0.0,
                             2 * n - 2)
        decided += r.high < 1.0
    assert decided / 200 > 0.35  # the estimate targets the point estimate: ~50% power


def test_more_measurements_none_on_the_boundary():
    assert more_measurements(1.0, 0.0, 10.0, 1.0, 10, 1.0, 10, 0.95) is None
    assert more_measurements(0.98, 0.02, 10.0, 1.0, 10, 1.0, 10, 0.95) is None



def test_more_measurements_scales_both_samples_to_the_needed_half_width():
    from scipy import stats

    extra_base, extra_cand = more_measurements(0.9, 0.0, 10.0, 4.0, 5, 4.0, 20, 0.95)
    n_b, n_c = 5 + extra_base, 20 + extra_cand
    assert n_c / n_b == pytest.approx(4, rel=0.05)  # both counts scaled by one factor
    half = stats.t.ppf(0.975, n_b - 1) * np.sqrt(4 / n_c + 0.81 * 4 / n_b) / 10
    smaller = np.sqrt(4 / (n_c - 4) + 0.81 * 4 / (n_b - 1)) / 10
    assert half <= 0.1 < stats.t.ppf(0.975, n_b - 2) * smaller  # and not far more than needed
