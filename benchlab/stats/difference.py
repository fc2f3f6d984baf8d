"""Difference of means: Welch's and Student's t, and the paired t (STATS.md §3).

Computed from the descriptives with scipy.special quantiles rather than
scipy.stats.ttest_ind so the default comparison avoids scipy.stats' import
cost; the tests check these against R's t.test.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from benchlab.stats.descriptive import Descriptives
from benchlab.stats.distributions import critical_t, t_two_sided_p


@dataclass(frozen=True)
class MeanDifference:
    """candidate mean − baseline mean with its CI and the two-sided p-value of "no difference"."""

    estimate: float
    low: float
    high: float
    pvalue: float
    statistic: float
    df: float
    confidence: float
    method: str


def _t_interval(diff: float, se: float, df: float, confidence: float,
                method: str) -> MeanDifference:
    if se == 0.0:
        # No spread at all: the difference is known exactly.
        statistic = 0.0 if diff == 0 else math.copysign(math.inf, diff)
        return MeanDifference(diff, diff, diff, 1.0 if diff == 0 else 0.0, statistic, df,
                              confidence, method)
    t = critical_t(confidence, df)
    statistic = diff / se
    return MeanDifference(diff, diff - t * se, diff + t * se, t_two_sided_p(statistic, df),
                          statistic, df, confidence, method)


def welch_difference(base: Descriptives, cand: Descriptives,
                     confidence: float = 0.95) -> MeanDifference:
    """Welch's t for unequal variances (R: t.test(candidate, baseline))."""
    v_a, v_b = cand.variance / cand.n, base.variance / base.n
    se2 = v_a + v_b
    den = v_a**2 / (cand.n - 1) + v_b**2 / (base.n - 1)
    df = se2**2 / den if den > 0 else float(cand.n + base.n - 2)
    return _t_interval(cand.mean - base.mean, math.sqrt(se2), df, confidence, "Welch t")


def student_difference(base: Descriptives, cand: Descriptives,
                       confidence: float = 0.95) -> MeanDifference:
    """Student's t with pooled variance (R: t.test(candidate, baseline, var.equal=TRUE))."""
    df = cand.n + base.n - 2
    pooled = ((cand.n - 1) * cand.variance + (base.n - 1) * base.variance) / df
    se = math.sqrt(pooled * (1.0 / cand.n + 1.0 / base.n))
    return _t_interval(cand.mean - base.mean, se, float(df), confidence, "Student t (pooled)")


def paired_difference(differences: Descriptives, confidence: float = 0.95) -> MeanDifference:
    """Paired t on the per-pair differences candidate − baseline (R: t.test(..., paired=TRUE))."""
    se = differences.stddev / math.sqrt(differences.n)
    return _t_interval(differences.mean, se, float(differences.n - 1), confidence, "paired t")
