"""Fieller's confidence interval for a ratio of means (STATS.md §3; Fieller 1954).

Written by hand: no maintained Python library offers Fieller's interval with a
covariance term, the Welch–Satterthwaite df of the pivot a − ρb, and an honest
report of the unbounded case.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from benchlab.stats.distributions import critical_t


@dataclass(frozen=True)
class FiellerInputs:
    """What Fieller's interval is computed from, none of it depending on the level: the two
    means, their variances and covariance, the pivot's df, and for paired data the two
    variance combinations taken from the pairs (fieller_interval's arguments)."""

    a: float
    b: float
    v_a: float
    v_b: float
    v_ab: float
    df: float
    method: str
    pivot_variance: float | None = None
    conditional_variance: float | None = None


@dataclass(frozen=True)
class RatioInterval:
    """A CI for a ratio; `low`/`high` are None when the confidence set is unbounded.

    `inputs` (Fieller's intervals) keeps what the interval is computed from, so that
    .at(level) gives it at another level without the data.
    """

    estimate: float
    low: float | None
    high: float | None
    confidence: float
    method: str
    df: float | None = None
    note: str | None = None
    inputs: FiellerInputs | None = field(default=None, compare=False, repr=False)

    @property
    def bounded(self) -> bool:
        return self.low is not None and self.high is not None

    def at(self, level: float) -> RatioInterval:
        """Fieller's interval at another confidence level: the same closed form with
        t_{1−α/2, df} of the new level (STATS.md §3), from the kept inputs."""
        if level == self.confidence:
            return self
        if not 0.0 < level < 1.0:
            raise ValueError(f"level must lie between 0 and 1, not {level!r}")
        if self.inputs is None:
            raise ValueError("this interval kept no inputs to compute another level from")
        i = self.inputs
        return fieller_interval(i.a, i.b, i.v_a, i.v_b, i.v_ab, i.df, level, i.method,
                                i.pivot_variance, i.conditional_variance)


def welch_ratio_df(ratio: float, v_a: float, v_b: float, n_a: int, n_b: int) -> float:
    """Welch–Satterthwaite df of the pivot a − ρb (STATS.md §3).

    (v_a + ρ²v_b)² / (v_a²/(n_a−1) + ρ⁴v_b²/(n_b−1)), written with the share u of v_a in
    the pivot's variance so that no power of ρ can overflow."""
    part_a, part_b = v_a, (abs(ratio) * math.sqrt(v_b)) ** 2
    total = part_a + part_b
    if total == 0.0 or not math.isfinite(total):
        return float(n_a + n_b - 2)  # both variances zero: df does not matter (t · 0)
    u = part_a / total
    return 1.0 / (u * u / (n_a - 1) + (1.0 - u) ** 2 / (n_b - 1))


def ratio_df(method: str, ratio: float, v_a: float, v_b: float, n_a: int, n_b: int) -> float:
    """Degrees of freedom for two independent samples by `method` (welch, conservative, pooled)."""
    if method == "welch":
        return welch_ratio_df(ratio, v_a, v_b, n_a, n_b)
    if method == "conservative":
        return float(min(n_a, n_b) - 1)
    if method == "pooled":
        return float(n_a + n_b - 2)
    raise ValueError(f"unknown df method {method!r}")


def fieller_interval(a: float, b: float, v_a: float, v_b: float, v_ab: float, df: float,
                     confidence: float = 0.95, method: str = "fieller",
                     pivot_variance: float | None = None,
                     conditional_variance: float | None = None) -> RatioInterval:
    """Fieller's interval (_fieller) keeping its inputs, so RatioInterval.at(level) works."""
    found = _fieller(a, b, v_a, v_b, v_ab, df, confidence, method, pivot_variance,
                     conditional_variance)
    return replace(found, inputs=FiellerInputs(a, b, v_a, v_b, v_ab, df, method,
                                               pivot_variance, conditional_variance))


def _fieller(a: float, b: float, v_a: float, v_b: float, v_ab: float, df: float,
             confidence: float, method: str, pivot_variance: float | None,
             conditional_variance: float | None) -> RatioInterval:
    """Fieller's interval for a/b given the variances of the two estimates and their covariance.

    a, b: the estimates (means) of numerator and denominator; v_a, v_b: their
    variances (s²/n); v_ab: their covariance (0 when independent). Requires b > 0.
    For paired data the caller may pass the two combinations the formula needs,
    computed from the data without cancellation: pivot_variance =
    v_a − 2ρ v_ab + ρ² v_b (var(a_i − ρ b_i)/n) and conditional_variance =
    v_a − v_ab²/v_b (the residual variance of a given b, over n).
    """
    if not b > 0:
        raise ValueError("Fieller's interval needs a positive denominator mean")
    rho = a / b
    if pivot_variance is not None and pivot_variance == 0.0:
        # Paired data with a_i = rho * b_i in every pair: the ratio is known exactly (the
        # pivot a - r b has zero variance only at r = rho), however uncertain b is.
        return RatioInterval(rho, rho, rho, confidence, method, df, EXACT_PROPORTIONAL)
    t = critical_t(confidence, df)
    g = (t * math.sqrt(v_b) / b) ** 2 if v_b > 0 else 0.0  # t²v_b/b², b² may underflow
    if g >= 1.0:
        note = ("the baseline mean is not significantly different from zero at this "
                "confidence, so the confidence set for the ratio is unbounded")
        return RatioInterval(rho, None, None, confidence, method, df, note)
    if v_b == 0.0:
        # No uncertainty in the denominator: the interval is (a ± t·sqrt(v_a)) / b exactly.
        if v_a == 0.0:
            return RatioInterval(rho, rho, rho, confidence, method, df, EXACT_NO_SPREAD)
        half = t * math.sqrt(v_a) / b
        return RatioInterval(rho, rho - half, rho + half, confidence, method, df)
    pivot = v_a - 2.0 * rho * v_ab + rho * rho * v_b if pivot_variance is None else pivot_variance
    conditional = v_a - v_ab * v_ab / v_b if conditional_variance is None else conditional_variance
    disc = pivot - g * conditional
    half = (t / b) * math.sqrt(max(disc, 0.0))
    centre = rho - g * v_ab / v_b
    low = (centre - half) / (1.0 - g)
    high = (centre + half) / (1.0 - g)
    # Rounding in centre / (1 - g) can move a (nearly) zero-width interval a few ulps off
    # the estimate; a confidence set always contains its own point estimate.
    return RatioInterval(rho, min(low, rho), max(high, rho), confidence, method, df)


EXACT_NO_SPREAD = ("exact: neither sample has any spread, so the ratio of means is known "
                   "exactly (the CI has zero width)")
EXACT_PROPORTIONAL = ("exact: every candidate value is the same multiple of its paired "
                      "baseline value, so the ratio is known exactly (the CI has zero width)")
