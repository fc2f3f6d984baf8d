"""The classical tests behind `--tests` and `--paired` (STATS.md §3), via scipy.stats.

Settings follow R's defaults so results can be checked against R: the rank
tests are exact when both samples are under 50 values and free of ties (and of
zero differences, for the signed-rank test), else the normal approximation with
continuity correction. scipy.stats is imported inside each function: it costs
half a second and the default comparison does not need it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from benchlab.stats.descriptive import Descriptives
from benchlab.stats.pairwise import median_of_differences, median_of_walsh_averages


@dataclass(frozen=True)
class TestResult:
    """One test: its statistic and p-value, an estimate with CI where the test has one."""

    name: str
    statistic: float
    pvalue: float
    method: str
    estimate: float | None = None
    low: float | None = None
    high: float | None = None
    note: str | None = None


def _has_ties(*arrays: np.ndarray) -> bool:
    joined = np.concatenate(arrays)
    return np.unique(joined).size < joined.size


def mann_whitney(base: np.ndarray, cand: np.ndarray) -> TestResult:
    """Wilcoxon–Mann–Whitney (R's W for the candidate) with the Hodges–Lehmann shift."""
    from scipy import stats

    exact = base.size < 50 and cand.size < 50 and not _has_ties(base, cand)
    res = stats.mannwhitneyu(cand, base, alternative="two-sided",
                             method="exact" if exact else "asymptotic", use_continuity=True)
    method = "exact" if exact else "normal approximation with continuity correction"
    return TestResult("Mann-Whitney U", float(res.statistic), float(res.pvalue), method,
                      estimate=median_of_differences(base, cand),
                      note="estimate: Hodges-Lehmann shift, median of candidate - baseline "
                           "over all pairs")


def kolmogorov_smirnov(base: np.ndarray, cand: np.ndarray) -> TestResult:
    """Two-sample Kolmogorov–Smirnov test of equal distributions."""
    from scipy import stats

    res = stats.ks_2samp(cand, base, alternative="two-sided", method="auto")
    return TestResult("Kolmogorov-Smirnov", float(res.statistic), float(res.pvalue),
                      "scipy ks_2samp (exact for small samples)")


def shapiro_wilk(x: np.ndarray, name: str) -> TestResult | None:
    """Shapiro–Wilk normality test of one sample; None below 3 values or with no spread."""
    if x.size < 3 or np.ptp(x) == 0:
        return None
    from scipy import stats

    res = stats.shapiro(x)
    note = "p-value approximate above 5000 values" if x.size > 5000 else None
    return TestResult(f"Shapiro-Wilk ({name})", float(res.statistic), float(res.pvalue),
                      "Royston", note=note)


def f_test(base: Descriptives, cand: Descriptives, confidence: float = 0.95) -> TestResult:
    """F-test of equal variances, var(candidate)/var(baseline) with its CI (R: var.test)."""
    from scipy import stats

    df1, df2 = cand.n - 1, base.n - 1
    if base.variance == 0:
        return TestResult("F-test (variances)", math.nan, math.nan, "F",
                          note="the baseline has no spread: the variance ratio is undefined")
    ratio = cand.variance / base.variance
    dist = stats.f(df1, df2)
    p = float(min(1.0, 2.0 * min(dist.cdf(ratio), dist.sf(ratio))))
    alpha = 1.0 - confidence
    low = ratio / float(dist.ppf(1 - alpha / 2))
    high = ratio / float(dist.ppf(alpha / 2))
    return TestResult("F-test (variances)", ratio, p, "F", estimate=ratio, low=low, high=high,
                      note="estimate: var(candidate) / var(baseline)")


def wilcoxon_signed_rank(differences: np.ndarray) -> TestResult:
    """Wilcoxon signed-rank test on paired differences with the Hodges–Lehmann pseudomedian."""
    from scipy import stats

    d = differences[differences != 0]
    if d.size == 0:
        return TestResult("Wilcoxon signed-rank", math.nan, 1.0, "all differences are zero",
                          estimate=0.0)
    exact = d.size < 50 and not _has_ties(np.abs(d)) and d.size == differences.size
    res = stats.wilcoxon(d, alternative="two-sided", zero_method="wilcox",
                         correction=not exact, method="exact" if exact else "approx")
    v = float(np.sum(np.where(d > 0, _abs_ranks(d), 0.0)))
    method = "exact" if exact else "normal approximation with continuity correction"
    return TestResult("Wilcoxon signed-rank", v, float(res.pvalue), method,
                      estimate=median_of_walsh_averages(differences),
                      note="statistic: V, the rank sum of positive differences; estimate: "
                           "Hodges-Lehmann pseudomedian of the differences")


def _abs_ranks(d: np.ndarray) -> np.ndarray:
    from benchlab.stats.diagnostics import average_ranks

    return average_ranks(np.abs(d))
