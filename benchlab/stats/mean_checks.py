"""When the mean misleads: cheap checks beside the mean-based verdict.

The headline of `compare` is the ratio of means. On skewed data the mean can say
"no difference proven" while the bulk of the distribution has clearly moved. Three
signals, each cheap enough to run on every comparison (no scipy.stats import):

* the two-sided Wilcoxon–Mann–Whitney test, exact for small untied samples (the
  null distribution of classic_tests.rank_sum_cdf), else the normal approximation
  with tie and continuity corrections — the settings of R's wilcox.test and
  scipy.stats.mannwhitneyu, which the tests check it against;
* the ratio of medians' bootstrap CI, where one was computed;
* the sample skewness G1 (adjusted Fisher–Pearson; Joanes & Gill 1998, with the
  standard error sqrt(6n(n−1)/((n−2)(n+1)(n+3)))): "strong" when |G1| > 1 and more
  than 3 standard errors from 0.

The rank test and skewness need O(n log n) and O(n); the rank test is skipped for
samples over RANK_TEST_LIMIT values (there every test is decisive anyway).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from benchlab.notation import fmt_p
from benchlab.stats.distributions import normal_cdf

RANK_TEST_LIMIT = 200_000  # values per sample up to which the rank test runs
STRONG_SKEW = 1.0  # |G1| beyond this is strong skew (Bulmer 1979: "highly skewed")
SKEW_Z = 3.0  # ... when also this many standard errors from 0
FEW_FOR_MEDIAN = 5  # fewer values per sample: a median's bootstrap CI shows little


@dataclass(frozen=True)
class Skewness:
    """Adjusted sample skewness G1, its standard error under normality, and the verdict."""

    g1: float
    se: float
    strong: bool


def skewness(x: np.ndarray) -> Skewness | None:
    """G1 = sqrt(n(n−1))/(n−2) · m3 / m2^1.5 with its SE; None for n < 3 or no spread."""
    n = x.size
    if n < 3:
        return None
    d = x - x.mean()
    peak = float(np.max(np.abs(d)))
    if not 0 < peak < math.inf:
        return None
    d = d / peak  # G1 is scale-free: no overflow or underflow at 1e±300
    m2 = float(np.mean(d * d))
    if not m2 > 0:
        return None
    m3 = float(np.mean(d * d * d))
    g1 = math.sqrt(n * (n - 1)) / (n - 2) * m3 / m2**1.5
    se = math.sqrt(6.0 * n * (n - 1) / ((n - 2) * (n + 1) * (n + 3)))
    return Skewness(g1, se, abs(g1) > STRONG_SKEW and abs(g1) > SKEW_Z * se)


def rank_sum_pvalue(base: np.ndarray, cand: np.ndarray) -> float | None:
    """Two-sided Wilcoxon–Mann–Whitney p-value (R's wilcox.test defaults), numpy only.

    Exact when both samples have fewer than 50 values and no ties; otherwise
    z = (|U − mn/2| − 1/2) / σ with σ² = mn/12 · (N + 1 − Σ(t³ − t)/(N(N − 1))).
    None when a sample is over RANK_TEST_LIMIT values.
    """
    from benchlab.stats.classic_tests import rank_sum_cdf
    from benchlab.stats.diagnostics import average_ranks

    m, n = cand.size, base.size
    if max(m, n) > RANK_TEST_LIMIT:
        return None
    joined = np.concatenate([cand, base])
    ranks = average_ranks(joined)
    u = float(ranks[:m].sum()) - m * (m + 1) / 2.0
    _, counts = np.unique(joined, return_counts=True)
    ties = counts.size < joined.size
    if m < 50 and n < 50 and not ties:
        cdf = rank_sum_cdf(m, n)
        k = int(round(u))
        lower = float(cdf[k])
        upper = 1.0 - float(cdf[k - 1]) if k > 0 else 1.0
        return min(1.0, 2.0 * min(lower, upper))
    total = m + n
    tie_term = float(np.sum(counts.astype(float) ** 3 - counts)) / (total * (total - 1))
    var = m * n / 12.0 * (total + 1 - tie_term)
    if not var > 0:
        return 1.0
    z = max(abs(u - m * n / 2.0) - 0.5, 0.0) / math.sqrt(var)
    return min(1.0, 2.0 * (1.0 - normal_cdf(z)))


def rank_test_can_reject(m: int, n: int, alpha: float, paired: bool = False) -> bool:
    """Whether the rank test's smallest two-sided p (no ties) is below alpha.

    Mann–Whitney: 2 / C(m + n, m); signed-rank on n pairs: 2 / 2^n. Two forks
    against two (p ≥ 1/3) cannot disagree with anything. Compared on the log
    scale: C(m + n, m) and 2^n overflow a float from about 520 values per sample
    and 1,024 pairs.
    """
    if not alpha > 0:
        return False
    if paired:
        log_count = n * math.log(2.0)
    else:
        log_count = math.lgamma(m + n + 1) - math.lgamma(m + 1) - math.lgamma(n + 1)
    if log_count < 690.0:  # 2 / count is a normal float here: the correctly rounded quotient
        return 2 / (2**n if paired else math.comb(m + n, m)) < alpha
    return math.log(2.0) - log_count < math.log(alpha)


def _excludes_one(low: float | None, high: float | None) -> bool:
    return low is not None and high is not None and (low > 1.0 or high < 1.0)


def _ci(low: float, high: float) -> str:
    return f"{low:.4f} .. {high:.4f}"


def mean_warning(*, mean_low: float | None, mean_high: float | None, rank_p: float | None,
                 rank_name: str, median: tuple[float, float] | None,
                 skews: list[tuple[str, Skewness | None]], confidence: float,
                 what: str = "", rank_can_reject: bool = True) -> str | None:
    """One line when the mean-based verdict may mislead, else None.

    Disagreement: the ratio of means' CI excludes 1 while the rank test does not
    reject at 1 − confidence (or the other way round), or while the ratio of
    medians' bootstrap CI `median` (low, high) does not exclude 1 (or the other
    way round); a rank test that cannot reject at that level with so few values
    (`rank_can_reject` False) is not held against the mean. Strong skew (see
    `skewness`) of either sample is reported too.
    `what` names the values checked (e.g. "build means") where they are not the
    measurements.
    """
    alpha = 1.0 - confidence
    mean_finds = _excludes_one(mean_low, mean_high)
    mean_text = (f"the ratio of means finds {'a change' if mean_finds else 'no difference'}"
                 + (f" (CI {_ci(mean_low, mean_high)})"
                    if mean_low is not None and mean_high is not None else ""))
    against = []
    if rank_p is not None and rank_can_reject and (rank_p < alpha) != mean_finds:
        shown = fmt_p(rank_p)
        against.append(f"{rank_name} {shown}")
    if median is not None and _excludes_one(*median) != mean_finds:
        word = "excludes" if _excludes_one(*median) else "includes"
        against.append(f"the ratio of medians' CI {_ci(*median)} {word} 1")
    skewed = [f"{name} {s.g1:.2f}" for name, s in skews if s is not None and s.strong]
    if not against and not skewed:
        return None
    parts = []
    if against:
        parts.append(f"{mean_text} but {' and '.join(against)}")
    if skewed:
        parts.append(f"strong skew (skewness {', '.join(skewed)})")
    on = f" ({what})" if what else ""
    return (f"the mean may mislead here{on}: {'; '.join(parts)}; --statistic median makes "
            "the ratio of medians the headline")
