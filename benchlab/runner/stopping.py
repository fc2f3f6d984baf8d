"""Adaptive stopping: is every ratio CI narrow enough yet? (STATS.md §3 and §5)

After each complete round the runner asks, for every factor combination and
every alternative against the baseline, Fieller's interval for the ratio of
means computed on the top-level unit means (build means, or execution means
when there is one build — Kalibera & Jones 2012: only the top level's means
carry the whole uncertainty of the mean), with Welch's degrees of freedom. The
experiment may stop when every interval is bounded and its half-width,
(high − low) / 2 in units of the ratio (so 0.01 is "±1% of the baseline"),
is at most the target. With a single alternative the t interval of its mean,
relative to the mean, is used instead.

Stopping on an estimated width favours runs whose spread happens to look small,
and their final CI is then too narrow (simulated: 92% coverage when the stop
comes near 9 units). Two guards keep the coverage of the final 95% CI within
95% ± 1.5% (validation/stopping_coverage.py): at least MIN_UNITS top-level
units per alternative, and the half-width judged at the 80% upper confidence
bound of the spread, half · sqrt(ν / χ²_{0.2, ν}), not at its estimate. The
rule never looks at significance (that would be optional stopping).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from benchlab.stats.distributions import critical_t
from benchlab.stats.fieller import fieller_interval, welch_ratio_df

MIN_UNITS = 5  # top-level units per alternative before the experiment may stop
SPREAD_BOUND = 0.2  # the half-width is judged at the (1 - this) upper bound of the spread


def spread_upper_factor(df: float) -> float:
    """sqrt(ν / χ²_{SPREAD_BOUND, ν}): an upper confidence bound of σ is s times this."""
    from scipy.special import chdtri

    return math.sqrt(df / chdtri(df, 1.0 - SPREAD_BOUND))


@dataclass(frozen=True)
class StopCheck:
    """The widest relative half-width among the comparisons (None: not estimable yet)."""

    narrow: bool
    widest: float | None
    worst: str | None


def unit_means(values: np.ndarray, top: np.ndarray, lower: list[np.ndarray]) -> np.ndarray:
    """Means of the top-level units, each the mean of its children's means (a hierarchy of
    label arrays, top first; `lower` may be empty)."""
    keys = [top, *lower]
    # mean per lowest unit, then up one level at a time
    labels = [tuple(k[i] for k in keys) for i in range(len(values))]
    sums: dict[tuple, list[float]] = {}
    for label, v in zip(labels, values, strict=True):
        sums.setdefault(label, []).append(float(v))
    means = {k: float(np.mean(v)) for k, v in sums.items()}
    for depth in range(len(keys) - 1, 0, -1):
        parents: dict[tuple, list[float]] = {}
        for k, m in means.items():
            parents.setdefault(k[:depth], []).append(m)
        means = {k: float(np.mean(v)) for k, v in parents.items()}
    return np.array([means[k] for k in sorted(means)])


def relative_halfwidth(base: np.ndarray, cand: np.ndarray, confidence: float,
                       guarded: bool = False) -> float | None:
    """Half the width of Fieller's interval for mean(cand)/mean(base) (None if unbounded or
    fewer than two units on a side); `guarded`: times spread_upper_factor of its Welch df,
    as the stop rule judges it."""
    if base.size < 2 or cand.size < 2:
        return None
    a, b = float(np.mean(cand)), float(np.mean(base))
    if not b > 0:
        return None
    v_a = float(np.var(cand, ddof=1)) / cand.size
    v_b = float(np.var(base, ddof=1)) / base.size
    df = welch_ratio_df(a / b, v_a, v_b, cand.size, base.size)
    ci = fieller_interval(a, b, v_a, v_b, 0.0, df, confidence)
    if not ci.bounded:
        return None
    half = (ci.high - ci.low) / 2.0  # type: ignore[operator]
    return half * spread_upper_factor(df) if guarded else half


def mean_halfwidth(x: np.ndarray, confidence: float, guarded: bool = False) -> float | None:
    """Half the width of the t interval of the mean, relative to the mean (`guarded`: at the
    upper bound of the spread, as the stop rule judges it)."""
    if x.size < 2 or np.mean(x) == 0:
        return None
    half = critical_t(confidence, x.size - 1) * float(np.std(x, ddof=1)) / math.sqrt(x.size)
    factor = spread_upper_factor(x.size - 1) if guarded else 1.0
    return half / abs(float(np.mean(x))) * factor


def check(groups: dict[tuple[str, tuple], np.ndarray], baseline: str, target: float,
          confidence: float = 0.95) -> StopCheck:
    """`groups`: top-level means per (alternative, factor levels)."""
    widest: float | None = 0.0
    worst: str | None = None
    alternatives = {a for a, _ in groups}
    for (alternative, factors), means in sorted(groups.items()):
        label = " ".join([alternative, *(f"{k}={v}" for k, v in factors)])
        if len(alternatives) == 1:
            half = mean_halfwidth(means, confidence, guarded=True)
            if means.size < MIN_UNITS:
                half = None
        elif alternative == baseline:
            continue
        else:
            base = groups.get((baseline, factors))
            half = (None if base is None or min(base.size, means.size) < MIN_UNITS
                    else relative_halfwidth(base, means, confidence, guarded=True))
        if half is None:
            return StopCheck(False, None, label)
        if widest is not None and half > widest:
            widest, worst = half, label
    return StopCheck(widest is not None and widest <= target, widest, worst)
