"""Warnings about a sample's measurements (STATS.md §1): never changes to the data.

Outliers by Tukey fences, drift in measurement order (Spearman's ρ against the
index), lag-1 autocorrelation, a warm-up suspicion for the first measurement,
and multimodality (Hartigan's dip test from the `diptest` package). Each check
warns at the 1% level, to keep false alarms rare when many samples are checked.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from benchlab.notation import DEFAULT_SIGNIFICANT, fmt_p
from benchlab.stats.descriptive import quartiles
from benchlab.stats.distributions import normal_cdf, t_two_sided_p
from benchlab.units import Unit, make_unit

ALPHA = 0.01


@dataclass(frozen=True)
class Diagnostic:
    """One finding: a short `kind` key, a plain-language `message`, and its figures."""

    kind: str
    message: str
    statistic: float | None = None
    pvalue: float | None = None


def average_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n with ties given their average rank (as scipy.stats.rankdata)."""
    order = np.argsort(x, kind="mergesort")
    s = x[order]
    starts = np.concatenate([[True], s[1:] != s[:-1]])
    del s  # temporaries freed as soon as done: 10^7 values would otherwise hold ~600 MB
    first = np.flatnonzero(starts)
    group = np.cumsum(starts)
    del starts
    group -= 1
    counts = np.diff(np.append(first, x.size))
    avg = first + (counts + 1) / 2.0
    del first, counts
    sorted_ranks = avg[group]
    del group, avg
    ranks = np.empty(x.size)
    ranks[order] = sorted_ranks
    return ranks


def outliers(x: np.ndarray, name: str) -> list[Diagnostic]:
    q1, _, q3 = quartiles(x)  # np.percentile's, without its import of numpy.ma
    iqr = q3 - q1
    if iqr <= 0:
        return []
    mild = int(np.count_nonzero((x < q1 - 1.5 * iqr) | (x > q3 + 1.5 * iqr)))
    extreme = int(np.count_nonzero((x < q1 - 3 * iqr) | (x > q3 + 3 * iqr)))
    if mild == 0:
        return []
    text = f"{name}: {mild} outlier{'s' if mild > 1 else ''} beyond 1.5 IQR"
    if extreme:
        text += f" ({extreme} beyond 3 IQR)"
    text += "; kept in the analysis, look at why they happened"
    return [Diagnostic("outliers", text, float(mild))]


def trend(x: np.ndarray, name: str) -> list[Diagnostic]:
    """Spearman's ρ between value and measurement order; t approximation for p."""
    n = x.size
    if n < 8 or np.ptp(x) == 0:
        return []
    r = average_ranks(x)
    idx = np.arange(1, n + 1, dtype=float)
    rc, ic = r - r.mean(), idx - idx.mean()
    rho = float(np.sum(rc * ic) / math.sqrt(np.sum(rc * rc) * np.sum(ic * ic)))
    if abs(rho) >= 1.0:
        p = 0.0
    else:
        p = t_two_sided_p(rho * math.sqrt((n - 2) / (1 - rho * rho)), n - 2)
    if p >= ALPHA:
        return []
    way = "upward" if rho > 0 else "downward"
    return [Diagnostic("drift", f"{name}: measurements drift {way} in the order recorded "
                       f"(Spearman ρ = {rho:.2f}, {fmt_p(p)}); the conditions changed "
                       "during the run", rho, p)]


def autocorrelation(x: np.ndarray, name: str) -> list[Diagnostic]:
    """Lag-1 autocorrelation against its null N(−1/n, 1/n)."""
    n = x.size
    if n < 10 or np.ptp(x) == 0:
        return []
    d = x - x.mean()
    r1 = float(np.sum(d[:-1] * d[1:]) / np.sum(d * d))
    z = (r1 + 1.0 / n) * math.sqrt(n)
    p = 2.0 * normal_cdf(-abs(z))
    if p >= ALPHA:
        return []
    return [Diagnostic("autocorrelation", f"{name}: consecutive measurements are correlated "
                       f"(lag-1 r = {r1:.2f}, {fmt_p(p)}); they are not independent, so "
                       "CIs that assume independence are too narrow", r1, p)]


def warmup(x: np.ndarray, name: str, unit: Unit | None = None) -> list[Diagnostic]:
    """The first measurement far outside the spread of the rest suggests a warm-up effect.

    Both values it names are printed in `unit` (scaled like the rest's median, "6.778 ms
    ... median 1.204 ms") to DEFAULT_SIGNIFICANT digits: a single value has no
    uncertainty of its own to set its digits (notation.py)."""
    n = x.size
    if n < 6:
        return []
    rest = x[1:]
    q1, q3 = np.percentile(rest, [25.0, 75.0])
    iqr = q3 - q1
    first = float(x[0])
    if iqr <= 0 or q1 - 3 * iqr <= first <= q3 + 3 * iqr:
        return []
    unit = unit or make_unit(None)
    median = float(np.median(rest))
    return [Diagnostic("warmup", f"{name}: the first measurement "
                       f"({unit.format(first, DEFAULT_SIGNIFICANT, like=median)}) lies far "
                       f"outside the rest (median {unit.format(median, DEFAULT_SIGNIFICANT)}, "
                       "beyond 3 IQR); a warm-up run? consider discarding warm-up runs "
                       "before measuring", first)]


DIP_TABLE_LIMIT = 72_000  # the largest n of diptest's tabulated null quantiles


def multimodality(x: np.ndarray, name: str) -> list[Diagnostic]:
    """Hartigan's dip test (package diptest).

    Beyond the tables' largest n the p-value is the asymptotic one: √n·dip against the
    quantiles of √n·dip at n = 72,000 (what diptest and R's dip.test both do there;
    diptest warns, benchlab says so in the note instead).
    """
    if x.size < 10 or np.ptp(x) == 0:
        return []
    import warnings

    import diptest

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Sample size exceeds the maximum limit")
        dip, p = diptest.diptest(np.asarray(x, dtype=float))
    if p >= ALPHA:
        return []
    how = ", asymptotic" if x.size > DIP_TABLE_LIMIT else ""
    return [Diagnostic("multimodal", f"{name}: the distribution looks multimodal (Hartigan's "
                       f"dip = {dip:.3f}, {fmt_p(p)}{how}); a mean of several modes misleads, "
                       "look at the plot", float(dip), float(p))]


def diagnose(x: np.ndarray, name: str, unit: Unit | None = None) -> tuple[Diagnostic, ...]:
    """Every check on one sample, in measurement order (values it names in `unit`)."""
    from benchlab.stats.scaling import power_of_two_scale

    x = np.asarray(x, dtype=float)
    scaled = x * power_of_two_scale(x)  # exact: no overflow in squares at 1e200
    found: list[Diagnostic] = []
    found.extend(outliers(scaled, name))
    found.extend(trend(scaled, name))
    found.extend(autocorrelation(scaled, name))
    found.extend(warmup(x, name, unit))  # warm-up names a value: in data units
    found.extend(multimodality(scaled, name))
    return tuple(found)
