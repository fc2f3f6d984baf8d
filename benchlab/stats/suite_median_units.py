"""A median suite with levels decided on its top-level units: Welch's t on the logs of
each unit's median.

With levels, only the top-level units (builds) are independent, and there are few of
them. The percentile bootstrap of the ratio of pooled medians, resampling 5 builds per
system, is far too narrow in the tail where Holm's first step decides (α/20 for 20
benchmarks): A/A suites of 20 benchmarks tripped `--fail-on change` in 22–26% of runs
(validation/suite_noise_models.py, before this module). No count of replicates mends
that: the bootstrap distribution of 5 units is itself too narrow, and its tail is
made of a few distinct values. What was tried, and why this one:

- an exact permutation test on the build-level statistics is valid, but with 5 builds
  per system its smallest two-sided p-value is 2/C(10, 5) = 0.79%, above α/20 = 0.25%:
  it could never call a change in a 20-benchmark suite;
- Welch's t on the log of each build's median (the median of all of that build's
  measurements) treats the builds as the sample they are. Measured on 100,000 A/A
  pairs per case (5 builds × 3 runs × 5 iterations; normal, t with 3 df, skewed with
  1% outliers ×3, two modes 5% apart per run, AR(1) iterations), its rate at α/20 was
  0.11–0.19% (nominal 0.25%) and at 5% 3.8–4.4%; with 2, 3 and 10 builds per system
  also at or below nominal. Student's pooled df (n₁ + n₂ − 2) reached 0.27% (two-mode),
  so Welch's df is kept.

The 20-benchmark gate (validation/suite_noise_models.out.txt, 480 A/A suites per case,
5 builds per system): 1.5–4.4% on normal, t3, skewed+outliers, two-mode and AR(1)
noise, where the hierarchical bootstrap tripped in 20–30%; but 7.1% and 8.3% (± 1.3)
when two modes 5% apart dominate the noise (every SD a third): each build's median
then sits on one mode or the other, the log unit medians are nearly two-valued and
the t-test is liberal far in its tail. The ratio of means (Fieller on the build
means) held 3.3% and 4.8% there. Power against +5% in one of 20 benchmarks: 3–38%.

The claim: ratio ρ of the geometric means of the top-level units' medians,
candidate/baseline. With l_i = log(median of unit i), d = mean(l_cand) − mean(l_base),
se² = s²_cand/n_cand + s²_base/n_base, Welch–Satterthwaite df (Welch 1947), the
two-sided p-value of "ratio = ρ0" is 2·P(T_df > |d − log ρ0|/se) and the interval at
level 1 − a is exp(d ± t_{1−a/2, df}·se) — the set of ρ0 that test does not reject, so a
verdict read from the interval at Holm's level agrees with the Holm p-value. It is as
accurate as the t-test is on the log unit medians: near-normal ones (medians of
several measurements each usually are); not when they are nearly two-valued (above).

A system with fewer than 2 top-level units has no spread: the test is refused (p = 1,
unbounded interval) and the suite says how many units it needs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from benchlab.stats.distributions import critical_t, t_two_sided_p

MIN_UNITS = 2  # per system: a variance of the log unit medians needs two


def unit_log_medians(values: np.ndarray, top: np.ndarray) -> np.ndarray:
    """log of the median of each top-level unit's measurements (units in label order).

    A ValueError when a unit's median is not positive (a ratio of medians needs
    positive medians)."""
    x = np.asarray(values, dtype=float)
    _, unit = np.unique(np.asarray(top), return_inverse=True)
    order = np.argsort(unit, kind="stable")
    bounds = np.flatnonzero(np.diff(unit[order])) + 1
    medians = np.array([np.median(part) for part in np.split(x[order], bounds)])
    if np.any(~(medians > 0)):
        raise ValueError("a top-level unit's median is not positive: the ratio of medians "
                         "needs positive medians")
    return np.log(medians)


@dataclass(frozen=True)
class UnitMedianTest:
    """Welch's t on the log top-level-unit medians of two systems (module text).

    estimate: exp(d), the ratio of the geometric means of the unit medians; se: the SE
    of d on the log scale; df: Welch–Satterthwaite's; units: (baseline, candidate) top-
    level unit counts. se and df are NaN when a system has fewer than MIN_UNITS units.
    """

    estimate: float
    se: float
    df: float
    units: tuple[int, int]

    @property
    def refused(self) -> bool:
        """True when a system has too few units for a spread (the test cannot decide)."""
        return min(self.units) < MIN_UNITS

    def pvalue(self, rho: float) -> float:
        """Two-sided p-value of "ratio = rho"; 1 when refused."""
        if self.refused:
            return 1.0
        diff = math.log(self.estimate) - math.log(rho)
        if self.se == 0.0:
            return 1.0 if diff == 0.0 else 0.0
        return t_two_sided_p(diff / self.se, self.df)

    def interval(self, level: float) -> tuple[float | None, float | None]:
        """exp(d ± t_{1−a/2, df}·se), a = 1 − level; (None, None) when refused."""
        if self.refused:
            return None, None
        half = critical_t(level, self.df) * self.se if self.se > 0 else 0.0
        d = math.log(self.estimate)
        return math.exp(d - half), math.exp(d + half)


def unit_median_test(base_logs: np.ndarray, cand_logs: np.ndarray) -> UnitMedianTest:
    """The test from each system's log unit medians (unit_log_medians)."""
    nb, nc = base_logs.size, cand_logs.size
    d = float(np.mean(cand_logs) - np.mean(base_logs))
    if min(nb, nc) < MIN_UNITS:
        return UnitMedianTest(math.exp(d), math.nan, math.nan, (nb, nc))
    vb = float(np.var(base_logs, ddof=1)) / nb
    vc = float(np.var(cand_logs, ddof=1)) / nc
    se2 = vb + vc
    if se2 == 0.0:
        return UnitMedianTest(math.exp(d), 0.0, float(nb + nc - 2), (nb, nc))
    df = se2 * se2 / (vb * vb / (nb - 1) + vc * vc / (nc - 1))
    return UnitMedianTest(math.exp(d), math.sqrt(se2), df, (nb, nc))
