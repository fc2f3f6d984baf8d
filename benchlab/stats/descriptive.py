"""Descriptive statistics of one sample (STATS.md §1)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from benchlab.stats.scaling import power_of_two_scale


@dataclass(frozen=True)
class Descriptives:
    """n, mean, median, sample standard deviation (n-1), extremes, CV and quartiles."""

    name: str
    n: int
    mean: float
    median: float
    stddev: float
    min: float
    max: float
    q1: float
    q3: float

    @property
    def sem(self) -> float:
        """Standard error of the mean."""
        return self.stddev / math.sqrt(self.n) if self.n > 0 else math.nan

    @property
    def cv(self) -> float:
        """Coefficient of variation, stddev / |mean|; nan for a zero mean."""
        return self.stddev / abs(self.mean) if self.mean != 0 else math.nan

    @property
    def variance(self) -> float:
        """stddev squared; inf, not an OverflowError, beyond a float's range."""
        return self.stddev * self.stddev


def mean_interval(d: Descriptives, confidence: float = 0.95) -> tuple[float, float]:
    """Student's t CI of the mean, mean ± t·s/√n; NaNs below 2 values (no spread)."""
    from benchlab.stats.distributions import critical_t

    if d.n < 2 or not math.isfinite(d.stddev):
        return math.nan, math.nan
    half = critical_t(confidence, d.n - 1) * d.sem
    return d.mean - half, d.mean + half


def describe(values: np.ndarray, name: str = "sample") -> Descriptives:
    """Describe a sample of at least one finite value."""
    x = np.asarray(values, dtype=float)
    n = x.size
    if n == 0:
        raise ValueError("empty sample")
    lo, hi = float(x.min()), float(x.max())
    if lo == hi:  # constant sample: exact, not the rounding residue of a float sum
        return Descriptives(name, int(n), lo, lo, 0.0 if n > 1 else math.nan, lo, hi, lo, lo)
    q1, median, q3 = quartiles(x)
    # On data scaled by a power of two (exact): squares of values near 1e-300 underflow
    # to 0 and near 1e300 overflow to inf (stats/scaling.py); in between, the same bits.
    scale = power_of_two_scale(x)
    stddev = float(np.std(x * scale, ddof=1)) / scale if n > 1 else math.nan
    return Descriptives(
        name=name, n=int(n), mean=float(np.mean(x)), median=float(median), stddev=stddev,
        min=lo, max=hi, q1=float(q1), q3=float(q3),
    )


def median(x: np.ndarray) -> float:
    """np.median(x) of a 1-D float array, bit for bit (the middle value, or the mean of
    the two middle ones, (a + b) / 2, as numpy's mean of two computes it), without calling
    it: np.median imports numpy.ma on first use, about 10 ms of an analysing command's
    start (np.median itself for an empty array or one holding NaN).
    tests/stats/test_descriptive.py checks it against np.median."""
    n = x.size
    if n == 0 or x.ndim != 1 or x.dtype.kind != "f" or np.isnan(x).any():
        return float(np.median(x))
    k = n // 2
    if n % 2:
        return float(np.partition(x, k)[k])
    part = np.partition(x, (k - 1, k))
    return float((part[k - 1] + part[k]) / 2)


_QUARTERS = np.array([0.25, 0.5, 0.75])  # np.percentile's q / 100 for 25, 50, 75: exact


def quartiles(x: np.ndarray) -> np.ndarray:
    """np.percentile(x, [25, 50, 75]) of a 1-D array, computed as numpy 2 computes it, bit
    for bit (its default "linear" method, Hyndman & Fan's 7th: the virtual index (n - 1) q,
    the values at its floor and the next, numpy's two-sided lerp), without calling it:
    np.percentile's np.unique imports numpy.ma, about 10 ms of every analysing command's
    start (np.percentile itself where a value is not finite). tests/stats/test_descriptive.py
    checks it against np.percentile."""
    s = np.sort(x)
    n = s.size
    if n == 0 or not (np.isfinite(s[0]) and np.isfinite(s[-1])):  # NaN sorts last
        return np.percentile(x, [25.0, 50.0, 75.0])
    virtual = (n - 1) * _QUARTERS
    previous = np.floor(virtual)
    following = previous + 1
    last = virtual >= n - 1  # numpy takes the last value there
    previous[last] = -1
    following[last] = -1
    previous, following = previous.astype(np.intp), following.astype(np.intp)
    gamma = virtual - previous
    a, b = s[previous], s[following]
    step = b - a
    out = np.add(a, step * gamma)
    np.subtract(b, step * (1 - gamma), out=out, where=gamma >= 0.5)  # numpy's _lerp
    return out
