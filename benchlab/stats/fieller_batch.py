"""Fieller's interval for many independent-sample ratios at once (STATS.md §3).

The same interval as `benchlab.stats.fieller.fieller_interval` with v_ab = 0 and
the Welch–Satterthwaite df of the pivot a − ρb, computed on arrays: a power
simulation analyses thousands of simulated experiments in one call instead of a
Python loop. tests/stats/test_power.py checks it, element by element, against
the scalar function, including its unbounded and zero-variance branches.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class RatioIntervals:
    """Arrays of one shape: the estimates and the bounds; `bounded` is False where the
    confidence set is unbounded (the scalar function's low/high None), and there `low`
    and `high` are NaN. `df` is the Welch–Satterthwaite df each interval used."""

    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    bounded: np.ndarray
    df: np.ndarray


def welch_ratio_df_batch(ratio: np.ndarray, v_a: np.ndarray, v_b: np.ndarray,
                         n_a: int, n_b: int) -> np.ndarray:
    """Welch–Satterthwaite df of a − ρb (STATS.md §3), as `fieller.welch_ratio_df`:
    1 / (u²/(n_a−1) + (1−u)²/(n_b−1)) with u the share of v_a in the pivot's variance;
    n_a + n_b − 2 where both variances are 0."""
    part_b = (np.abs(ratio) * np.sqrt(v_b)) ** 2
    total = v_a + part_b
    ok = (total > 0) & np.isfinite(total)
    u = np.divide(v_a, total, out=np.zeros_like(total), where=ok)
    df = 1.0 / (u * u / (n_a - 1) + (1.0 - u) ** 2 / (n_b - 1))
    return np.where(ok, df, float(n_a + n_b - 2))


def fieller_batch(a: np.ndarray, b: np.ndarray, v_a: np.ndarray, v_b: np.ndarray,
                  n_a: int, n_b: int, confidence: float = 0.95) -> RatioIntervals:
    """Fieller's intervals for a/b of independent samples (v_ab = 0), Welch df.

    a, b: the means of candidate and baseline (b > 0 everywhere: the caller handles
    a non-positive baseline, as `compare` does, without a ratio); v_a, v_b: the
    variances of the means (s²/n); n_a, n_b: the sample sizes. With g = t²v_b/b²
    (STATS.md §3): unbounded when g ≥ 1; (a ± t·sqrt(v_a))/b when v_b = 0; else
    (ρ ∓ (t/b)·sqrt(v_a + ρ²v_b − g·v_a)) / (1 − g).
    """
    from scipy.special import stdtrit

    a, b, v_a, v_b = (np.asarray(x, dtype=float) for x in (a, b, v_a, v_b))
    if np.any(~(b > 0)):
        raise ValueError("Fieller's interval needs a positive denominator mean")
    rho = a / b
    df = welch_ratio_df_batch(rho, v_a, v_b, n_a, n_b)
    t = stdtrit(df, 0.5 + confidence / 2.0)
    g = np.where(v_b > 0, (t * np.sqrt(v_b) / b) ** 2, 0.0)
    bounded = g < 1.0
    with np.errstate(invalid="ignore", divide="ignore"):
        disc = np.maximum(v_a + rho * rho * v_b - g * v_a, 0.0)
        half = (t / b) * np.sqrt(disc)
        low = (rho - half) / (1.0 - g)
        high = (rho + half) / (1.0 - g)
    # A confidence set always holds its own estimate (rounding near zero width).
    low, high = np.minimum(low, rho), np.maximum(high, rho)
    low = np.where(bounded, low, np.nan)
    high = np.where(bounded, high, np.nan)
    return RatioIntervals(rho, low, high, bounded, df)
