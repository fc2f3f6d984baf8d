"""Family-wise decisions over a suite's benchmarks, shared by the mean and the median
paths (stats/suite.py, stats/suite_median.py): Holm's step-down (Holm 1979), the level
each benchmark's interval is read at (Strassburger & Bretz 2008), and the one claim
each benchmark's interval can make (STATS.md §4). stats/suite.py's text says why.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

from benchlab.stats.compare import CompareResult, Comparison
from benchlab.stats.spec import ADJUSTMENTS


@dataclass(frozen=True)
class Decision:
    """The decision behind one benchmark's verdict (one candidate against the baseline).

    test: the null hypothesis the verdict's claim rejects — "ratio = 1" (a change,
    threshold 0), "ratio within threshold" (a change beyond ±threshold), "ratio
    outside threshold" (equivalence within ±threshold), or "difference = 0" when the
    benchmark has no ratio; pvalue: its two-sided p-value (Fieller's pivot at the
    point the claim must exclude, or the t-test of the difference); adjusted_pvalue:
    Holm-adjusted over the candidate's benchmarks; level: the confidence level of
    the interval the verdict used; estimate/low/high: that interval, of the ratio of
    means (scale "ratio") or of the difference of means (scale "difference"); low and
    high None when it is unbounded; outcome: the verdict; per_benchmark: the outcome
    of the same benchmark's own CI at the suite's confidence (what adjust="none" gives).
    statistic "median": the ratio is of medians, the p-value the bootstrap test's and the
    interval the percentile interval at `level` (stats/suite_median.py).
    """

    benchmark: str
    candidate: str
    test: str
    pvalue: float
    adjusted_pvalue: float
    level: float
    scale: str
    estimate: float
    low: float | None
    high: float | None
    outcome: str
    per_benchmark: str
    statistic: str = "mean"  # the ratio's statistic: "mean" (Fieller) or "median" (bootstrap)


def holm_adjust(pvalues: list[float]) -> list[float]:
    """Holm's step-down adjusted p-values (monotone, capped at 1)."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def holm_levels(pvalues: list[float], alpha: float) -> list[float]:
    """The α at which Holm's step-down decides each of m tests (Holm 1979).

    Sorted p_(1) ≤ … ≤ p_(m), the k-th is decided at α/(m − k + 1) while every step
    so far rejected; from the first step s that does not reject (p_(s) > α/(m − s + 1),
    or a NaN), every later one at α/(m − s + 1), which its p-value cannot beat. A test
    rejects exactly when its Holm-adjusted p-value is ≤ α; the non-rejected tests'
    intervals at that common level hold simultaneously (Strassburger & Bretz 2008).
    """
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: (math.isnan(pvalues[i]), pvalues[i]))
    levels = [0.0] * m
    stopped: float | None = None
    for k, i in enumerate(order):
        step = alpha / (m - k)
        if stopped is None and not pvalues[i] <= step:
            stopped = step
        levels[i] = step if stopped is None else stopped
    return levels


def claim_test(estimate: float, threshold: float, p_at) -> tuple[str, float]:
    """The one claim a benchmark's interval can make, and the p-value of its test.

    Threshold 0: a change, testing ratio = 1. Otherwise the estimate decides: beyond
    1 ± threshold only "change beyond the threshold" is possible (the interval must
    exclude the nearer edge), within it only equivalence (it must exclude both edges,
    the larger of the two p-values) — as classify() reads the interval (STATS.md §4).
    """
    if threshold == 0.0:
        return "ratio = 1", p_at(1.0)
    low, high = 1.0 - threshold, 1.0 + threshold
    if estimate > high:
        return "ratio within threshold", p_at(high)
    if estimate < low:
        return "ratio within threshold", p_at(low)
    return "ratio outside threshold", max(p_at(low), p_at(high))


def decide_families(results: list[tuple[str, CompareResult]], pending: list,
                    decide: Callable, *, confidence: float, adjust: str
                    ) -> tuple[list[tuple[str, CompareResult]], list[Decision]]:
    """Holm per candidate over its benchmarks' pending tests (items with `benchmark`,
    `comparison` and `pvalue`), each decided by `decide(item, level, adjusted_p, m)` →
    (Comparison, Decision): at its Holm level over m benchmarks, or (adjust="none") at
    `confidence` with m None. Returns the results with those comparisons and the
    Decisions, in the order of `results` (the mean and the median paths share this)."""
    if adjust not in ADJUSTMENTS:
        raise ValueError(f"adjust must be one of {ADJUSTMENTS}")
    alpha = 1.0 - confidence
    decided: dict[tuple[str, str], tuple[Comparison, Decision]] = {}
    for name in dict.fromkeys(p.comparison.candidate for p in pending):
        family = [p for p in pending if p.comparison.candidate == name]
        pvalues = [p.pvalue for p in family]
        adjusted = holm_adjust(pvalues)
        levels = holm_levels(pvalues, alpha)
        for item, q, a in zip(family, adjusted, levels, strict=True):
            key = (item.benchmark, name)
            if adjust == "none":
                decided[key] = decide(item, confidence, q, None)
            else:
                decided[key] = decide(item, 1.0 - a, q, len(family))
    out = [(bench, replace(res, comparisons=tuple(decided[(bench, c.candidate)][0]
                                                  for c in res.comparisons)))
           for bench, res in results]
    decisions = [decided[(bench, c.candidate)][1] for bench, res in results
                 for c in res.comparisons]
    return out, decisions
