"""The classical tests behind `--tests` and `--paired` (STATS.md §3), via scipy.stats.

Settings follow R's defaults so results can be checked against R: the rank
tests are exact when both samples are under 50 values and free of ties (and of
zero differences, for the signed-rank test), else the normal approximation with
continuity correction. scipy.stats is imported inside each function that needs it:
it costs half a second, and the default comparison (the signed-rank test of paired
rounds, computed here) does not.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from benchlab.stats.descriptive import Descriptives
from benchlab.stats.distributions import normal_cdf, normal_quantile
from benchlab.stats.pairwise import (
    kth_difference,
    kth_walsh_sum,
    median_of_differences,
    median_of_walsh_averages,
)


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


def _join(note: str, extra: str | None) -> str:
    return f"{note}; {extra}" if extra else note


def _has_ties(*arrays: np.ndarray) -> bool:
    """Whether two values are equal (two NaNs count as equal, as in np.unique): from the
    sorted values, without np.unique, whose first call imports numpy.ma (about 10 ms)."""
    s = np.sort(np.concatenate(arrays))
    return bool(np.any(s[1:] == s[:-1])) or int(np.count_nonzero(np.isnan(s))) > 1


@functools.lru_cache(maxsize=64)
def rank_sum_cdf(m: int, n: int) -> np.ndarray:
    """Exact null CDF of the Mann–Whitney U for sample sizes m, n (no ties).

    The counts are the coefficients of the Gaussian binomial [m+n choose m](q):
    multiply by (1 − q^(n+i)) and divide by (1 − q^i) for i = 1..m.
    """
    size = m * n + 1
    poly = np.zeros(size)
    poly[0] = 1.0
    for i in range(1, m + 1):
        shifted = np.zeros(size)
        shifted[n + i:] = poly[: size - n - i]
        poly = poly - shifted
        # divide by (1 − q^i): a running sum with stride i, one cumsum per residue mod i
        padded = np.concatenate([poly, np.zeros(-size % i)]).reshape(-1, i)
        poly = np.cumsum(padded, axis=0).ravel()[:size]
    cdf = np.cumsum(poly) / poly.sum()
    cdf.flags.writeable = False  # cached: shared by every pair of the same sizes
    return cdf


def _signed_rank_cdf(n: int) -> np.ndarray:
    """Exact null CDF of the Wilcoxon signed-rank V: coefficients of ∏ (1 + q^i)."""
    size = n * (n + 1) // 2 + 1
    poly = np.zeros(size)
    poly[0] = 1.0
    for i in range(1, n + 1):
        poly[i:] = poly[i:] + poly[: size - i].copy()
    return np.cumsum(poly) / poly.sum()


def _lower_rank(cdf: np.ndarray | None, total: int, sd: float,
                confidence: float) -> tuple[int, str | None]:
    """1-based rank of the lower CI limit among the sorted pair values (R's qwilcox rule).

    Also a note when the exact distribution cannot reach the requested level
    (R warns and reports the achieved level, 1 − 2·P(W ≤ rank − 1)).
    """
    alpha = 1.0 - confidence
    if cdf is None:
        q = int(math.floor(total / 2.0 - normal_quantile(1 - alpha / 2) * sd))
        return max(q, 1), None
    q = max(int(np.searchsorted(cdf, alpha / 2 - 1e-12)), 1)  # smallest q: P(W <= q) >= α/2
    achieved = 2.0 * float(cdf[q - 1])
    if achieved - alpha > alpha / 2:
        return q, (f"the requested {100 * confidence:g}% is not achievable with so few "
                   f"values; the CI has {100 * (1 - float(f'{achieved:.2g}')):g}% confidence")
    return q, None


def mann_whitney(base: np.ndarray, cand: np.ndarray, confidence: float = 0.95) -> TestResult:
    """Wilcoxon–Mann–Whitney (R's W for the candidate) with the Hodges–Lehmann shift and CI.

    The CI takes order statistics of the pairwise differences (Moses): ranks from
    the exact null distribution when the test is exact (as R), else from the
    normal approximation.
    """
    from scipy import stats

    exact = base.size < 50 and cand.size < 50 and not _has_ties(base, cand)
    res = stats.mannwhitneyu(cand, base, alternative="two-sided",
                             method="exact" if exact else "asymptotic", use_continuity=True)
    method = "exact" if exact else "normal approximation with continuity correction"
    m, n = cand.size, base.size
    total = m * n
    cdf = rank_sum_cdf(m, n) if exact else None
    k, level_note = _lower_rank(cdf, total, math.sqrt(m * n * (m + n + 1) / 12.0), confidence)
    a_s, b_s = np.sort(base), np.sort(cand)
    low = kth_difference(a_s, b_s, min(k, total))
    high = kth_difference(a_s, b_s, max(total - k + 1, 1))
    return TestResult("Mann-Whitney U", float(res.statistic), float(res.pvalue), method,
                      estimate=median_of_differences(base, cand), low=low, high=high,
                      note=_join("estimate: Hodges-Lehmann shift, median of candidate - "
                                 "baseline over all pairs, with its distribution-free CI",
                                 level_note))


def kolmogorov_smirnov(base: np.ndarray, cand: np.ndarray) -> TestResult:
    """Two-sample two-sided Kolmogorov–Smirnov test of equal distributions, as R's ks.test.

    Matches R 4.2.2's `ks.test(cand, base)` (fixtures: tests/fixtures/r/ks): D is the
    largest gap between the two empirical CDFs; the p-value is exact when m·n < 10000 —
    conditional on the ties when the pooled values have any, because timers' resolution
    makes ties common and ignoring them (scipy's exact p) overstates p, sometimes across
    0.05 — else it is the asymptotic Kolmogorov distribution of √(mn/(m+n))·D, which
    R uses there even where scipy's `method="auto"` would be exact.
    """
    x, y = np.asarray(cand, dtype=float), np.asarray(base, dtype=float)
    m, n = x.size, y.size
    pooled = np.sort(np.concatenate([x, y]))
    d = float(np.max(np.abs(np.searchsorted(np.sort(x), pooled, side="right") / m
                            - np.searchsorted(np.sort(y), pooled, side="right") / n)))
    ties = bool(np.any(pooled[1:] == pooled[:-1]))
    if m * n < 10000:
        pvalue = smirnov_exact_sf(d, m, n, pooled if ties else None)
        return TestResult("Kolmogorov-Smirnov", d, pvalue,
                          "exact, conditional on the ties" if ties else "exact")
    from scipy.special import kolmogorov

    pvalue = 1.0 if d < np.finfo(float).eps else float(kolmogorov(math.sqrt(m * n / (m + n)) * d))
    return TestResult("Kolmogorov-Smirnov", d, pvalue, "asymptotic (Kolmogorov distribution)",
                      note="p-value approximate in the presence of ties" if ties else None)


def smirnov_exact_sf(d: float, m: int, n: int, pooled: np.ndarray | None = None) -> float:
    """P(D >= d) of the two-sided two-sample KS statistic for sizes m, n: exact.

    Counts the lattice paths from (0, 0) to (m, n) — one step per pooled value in
    sorted order — that stay strictly inside |i/m − j/n| < d. With `pooled` (the
    sorted pooled sample) the distribution is conditional on its ties (Schröer &
    Trenkler 1995): the boundary is checked only where the sorted values change,
    as R's psmirnov (R >= 4.2) does; without it every step is checked. R's
    algorithm, one antidiagonal per step, vectorized over the first sample's count
    (the smaller sample, so each step costs min(m, n)). Counts reach C(m+n, m),
    finite in doubles for the sizes R computes exactly (m·n < 10000).
    """
    if m > n:
        m, n = n, m
    q = (0.5 + math.floor(d * m * n - 1e-7)) / (m * n)  # R's guard against rounding in d
    checked = (np.ones(m + n, dtype=bool) if pooled is None
               else np.append(pooled[1:] != pooled[:-1], True))
    i = np.arange(m + 1)
    paths = np.zeros(m + 1)
    paths[0] = 1.0
    for k in range(1, m + n + 1):  # after k values: i from the first sample, k - i the other
        paths[1:] += paths[:-1].copy()
        j = k - i
        paths[j > n] = 0.0
        if checked[k - 1]:
            paths[np.abs(i / m - j / n) >= q] = 0.0
    log_total = math.lgamma(m + n + 1) - math.lgamma(m + 1) - math.lgamma(n + 1)
    return float(min(1.0, max(0.0, 1.0 - paths[m] / math.exp(log_total))))


def shapiro_wilk(x: np.ndarray, name: str) -> TestResult | None:
    """Shapiro–Wilk normality test of one sample; None below 3 values or with no spread."""
    if x.size < 3 or np.ptp(x) == 0:
        return None
    import warnings

    from scipy import stats

    with warnings.catch_warnings():  # scipy's "may not be accurate" above 5000: the note says it
        warnings.filterwarnings("ignore", message="scipy.stats.shapiro: For N > 5000")
        res = stats.shapiro(x)
    note = ("p-value approximate above 5000 values (Royston's approximation is fitted up to "
            "5000; R's shapiro.test refuses more)") if x.size > 5000 else None
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


def wilcoxon_signed_rank(differences: np.ndarray, confidence: float = 0.95) -> TestResult:
    """Wilcoxon signed-rank test on paired differences with the Hodges–Lehmann pseudomedian.

    The CI takes order statistics of the Walsh averages, ranks as in mann_whitney.
    """
    d = differences[differences != 0]
    if d.size == 0:
        return TestResult("Wilcoxon signed-rank", math.nan, 1.0, "all differences are zero",
                          estimate=0.0)
    exact = d.size < 50 and not _has_ties(np.abs(d)) and d.size == differences.size
    ranks = _abs_ranks(d)
    v = float(np.sum(np.where(d > 0, ranks, 0.0)))
    method = "exact" if exact else "normal approximation with continuity correction"
    n = differences.size
    total = n * (n + 1) // 2
    cdf = _signed_rank_cdf(n) if exact else None
    p = _signed_rank_p(v, cdf, ranks)
    k, level_note = _lower_rank(cdf, total, math.sqrt(n * (n + 1) * (2 * n + 1) / 24.0),
                                confidence)
    s = np.sort(differences)
    low = kth_walsh_sum(s, min(k, total)) / 2.0
    high = kth_walsh_sum(s, max(total - k + 1, 1)) / 2.0
    return TestResult("Wilcoxon signed-rank", v, p, method,
                      estimate=median_of_walsh_averages(differences), low=low, high=high,
                      note=_join("statistic: V, the rank sum of positive differences; "
                                 "estimate: Hodges-Lehmann pseudomedian of the differences",
                                 level_note))


def _signed_rank_p(v: float, cdf: np.ndarray | None, ranks: np.ndarray) -> float:
    """Two-sided p of the signed-rank V (the rank sum of the positive differences, zeros
    left out): exact from the null CDF, 2·min(P(V ≤ v), P(V ≥ v)); else the normal
    approximation with continuity correction and the variance corrected for tied ranks,
    n(n+1)(2n+1)/24 − Σ(t³ − t)/48 (Hollander & Wolfe, Nonparametric Statistical Methods,
    §3.1; what R's wilcox.test and scipy.stats.wilcoxon compute; checked against scipy in
    tests/stats/test_classic_tests.py), so a default compare imports no scipy.stats."""
    n = ranks.size
    if cdf is not None:
        total = n * (n + 1) // 2
        k = int(round(v))
        lower = float(cdf[k])  # P(V ≤ v); P(V ≥ v) = P(V ≤ total − v) by symmetry
        upper = float(cdf[total - k])
        return min(1.0, 2.0 * min(lower, upper))
    _, counts = np.unique(ranks, return_counts=True)
    var = (n * (n + 1) * (2 * n + 1) - 0.5 * float(np.sum(counts ** 3 - counts))) / 24.0
    if var <= 0:
        return 1.0
    centre = v - n * (n + 1) / 4.0
    z = (centre - 0.5 * math.copysign(1.0, centre) if centre else 0.0) / math.sqrt(var)
    return min(1.0, 2.0 * normal_cdf(-abs(z)))


def _abs_ranks(d: np.ndarray) -> np.ndarray:
    from benchlab.stats.diagnostics import average_ranks

    return average_ranks(np.abs(d))
