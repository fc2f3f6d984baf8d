"""A median suite with levels decided on its top-level units: a permutation test of
Welch's t on the logs of each unit's median.

With levels, only the top-level units (builds) are independent, and there are few of
them. The percentile bootstrap of the ratio of pooled medians, resampling 5 builds per
system, is far too narrow in the tail where Holm's first step decides (α/20 for 20
benchmarks): A/A suites of 20 benchmarks tripped `--fail-on change` in 22–26% of runs
(validation/suite_noise_models.py). What was tried, and why this one:

- Welch's t on the log of each build's median, its p from Student's t, held 1.5–4.4%
  on normal, t3, skewed, two-mode and AR(1) noise, but 7.1% and 8.3% (± 1.3) when two
  modes 5% apart dominate the noise: each build's median then sits on one mode or the
  other, the log unit medians are nearly two-valued, and t's tail is far too thin
  there (all 5 builds of one system on one mode and all 5 of the other on the other
  happens in 2 of 1,024 A/A draws, and t called it p ≈ 10⁻⁴). With 5 units per system
  no test can tell that noise from a change without assuming the units' distribution.
- So the p-value of Welch's t is its **permutation** distribution: the share of the
  C(n_b + n_c, n_c) ways to split the pooled log unit medians into two systems of those
  sizes whose |t| is at least the observed one (all of them, exactly, up to
  EXACT_SPLITS; Welch's t with Student's t beyond, where a split has no such weight).
  On A/A data (exchangeable units) it is exact at every level whatever the noise;
  with unequal spreads the studentized statistic keeps it valid asymptotically
  (Janssen 1997; Chung & Romano 2013). Its smallest p is 2/C (1/C for unequal sizes):
  5 builds per system reach 2/252 = 0.79%, above Holm's first step 0.25% over 20
  benchmarks, so such a suite cannot call a change; `smallest_pvalue` and
  `units_needed` say so and what would (compare_suite's note).

The claim: ratio ρ of the geometric means of the top-level units' medians,
candidate/baseline. With l_i = log(median of unit i), d = mean(l_cand) − mean(l_base),
the p-value of "ratio = ρ0" is the permutation p of Welch's t on (l_cand − log ρ0,
l_base), and the interval at level 1 − a is the set of ρ0 that test does not reject
(found by bisection from the estimate, where p = 1; unbounded when a is below the
smallest p), so a verdict read from the interval at Holm's level agrees with the Holm
p-value.

A system with fewer than 2 top-level units has no spread: the test is refused (p = 1,
unbounded interval) and the suite says how many units it needs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

import numpy as np

from benchlab.stats.distributions import critical_t, t_two_sided_p

MIN_UNITS = 2  # per system: a variance of the log unit medians needs two
EXACT_SPLITS = 20_000  # splits enumerated exactly (≤ 8 units per system); Student's t beyond
_BISECTIONS = 60  # halvings of a bound's bracket on the log scale (2^-60 of its width)


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


def splits(nb: int, nc: int) -> np.ndarray | None:
    """Every way to choose the candidate's nc of the nb + nc pooled units, as a read-only
    0/1 matrix (C(nb + nc, nc) rows, the observed split — the last nc — first); None
    beyond EXACT_SPLITS. Cached: an interval's bisection asks for it a hundred times."""
    if math.comb(nb + nc, nc) > EXACT_SPLITS:
        return None
    return _splits(nb, nc)


@lru_cache(maxsize=32)
def _splits(nb: int, nc: int) -> np.ndarray:
    n = nb + nc
    chosen = np.array(list(combinations(range(n - 1, -1, -1), nc)), dtype=np.intp)
    rows = np.zeros((chosen.shape[0], n))
    rows[np.arange(chosen.shape[0])[:, None], chosen.reshape(chosen.shape[0], nc)] = 1.0
    rows.setflags(write=False)
    return rows


def welch_t(sums: np.ndarray, squares: np.ndarray, total: np.ndarray, total_sq: np.ndarray,
            nb: int, nc: int) -> np.ndarray:
    """Welch's t (candidate − baseline) from the candidate side's sums and sums of squares
    and the pooled ones (broadcast); ±inf where both spreads are 0 and the means differ,
    0 where nothing differs."""
    mc, mb = sums / nc, (total - sums) / nb
    vc = np.maximum(squares - nc * mc * mc, 0.0) / ((nc - 1) * nc)
    vb = np.maximum(total_sq - squares - nb * mb * mb, 0.0) / ((nb - 1) * nb)
    diff = mc - mb
    with np.errstate(divide="ignore", invalid="ignore"):
        t = diff / np.sqrt(vc + vb)
    return np.where(np.isnan(t), 0.0, t)


def permutation_pvalues(base: np.ndarray, cand: np.ndarray) -> np.ndarray:
    """Two-sided permutation p-values of Welch's t, "ratio = 1", over the last axis of
    `base` and `cand` (log unit medians; any leading axes: many tests at once, as the
    validation runs them): the share of all splits of the pooled units whose |t| is at
    least the observed one (module text). Needs C(nb + nc, nc) ≤ EXACT_SPLITS."""
    nb, nc = base.shape[-1], cand.shape[-1]
    rows = splits(nb, nc)
    if rows is None:
        raise ValueError(f"{math.comb(nb + nc, nc)} splits are more than {EXACT_SPLITS}")
    x = np.concatenate([base, cand], axis=-1)
    centre = x.mean(axis=-1, keepdims=True)  # t is shift-free: centring keeps squares exact
    x = x - centre
    sums, squares = x @ rows.T, (x * x) @ rows.T
    total, total_sq = x.sum(axis=-1, keepdims=True), (x * x).sum(axis=-1, keepdims=True)
    t = np.abs(welch_t(sums, squares, total, total_sq, nb, nc))
    observed = t[..., :1]
    return np.mean(t >= observed * (1.0 - 1e-12), axis=-1)


@dataclass(frozen=True)
class UnitMedianTest:
    """The permutation test of Welch's t on the log top-level-unit medians of two systems
    (module text).

    estimate: exp(d), the ratio of the geometric means of the unit medians; se: the SE
    of d on the log scale; df: Welch–Satterthwaite's; units: (baseline, candidate) top-
    level unit counts; base, cand: the log unit medians. se and df are NaN when a system
    has fewer than MIN_UNITS units. exact: the p-value is the permutation one (all
    splits); False: Student's t's (more than EXACT_SPLITS splits).
    """

    estimate: float
    se: float
    df: float
    units: tuple[int, int]
    base: tuple[float, ...] = ()
    cand: tuple[float, ...] = ()

    @property
    def refused(self) -> bool:
        """True when a system has too few units for a spread (the test cannot decide)."""
        return min(self.units) < MIN_UNITS

    @property
    def exact(self) -> bool:
        return not self.refused and math.comb(sum(self.units), self.units[1]) <= EXACT_SPLITS

    @property
    def smallest_pvalue(self) -> float:
        """The smallest p-value the test can give: 2/C(nb + nc, nc) (1/C for unequal
        sizes) with permutations, 0 with Student's t; 1 when refused."""
        if self.refused:
            return 1.0
        if not self.exact:
            return 0.0
        nb, nc = self.units
        return (2.0 if nb == nc else 1.0) / math.comb(nb + nc, nc)

    def pvalue(self, rho: float) -> float:
        """Two-sided p-value of "ratio = rho"; 1 when refused."""
        if self.refused:
            return 1.0
        diff = math.log(self.estimate) - math.log(rho)
        if self.se == 0.0:
            return 1.0 if diff == 0.0 else 0.0
        if not self.exact:
            return t_two_sided_p(diff / self.se, self.df)
        cand = np.asarray(self.cand) - math.log(rho)
        return float(permutation_pvalues(np.asarray(self.base), cand))

    def interval(self, level: float) -> tuple[float | None, float | None]:
        """The ratios the test does not reject at a = 1 − level; (None, None) when refused
        or when a is below the smallest p (no ratio can be rejected)."""
        if self.refused:
            return None, None
        d = math.log(self.estimate)
        if self.se == 0.0:
            return self.estimate, self.estimate
        if not self.exact:
            half = critical_t(level, self.df) * self.se
            return math.exp(d - half), math.exp(d + half)
        a = 1.0 - level
        if a < self.smallest_pvalue * (1.0 - 1e-9):
            return None, None
        return (math.exp(self._bound(d, -1.0, a)), math.exp(self._bound(d, 1.0, a)))

    def _bound(self, d: float, way: float, a: float) -> float:
        """The log ratio where p first falls to `a` going from d (p = 1) `way` (±1):
        bracketed by doubling a step of the t interval's width, then bisected."""
        def rejected(x: float) -> bool:
            return self.pvalue(math.exp(x)) <= a

        step = max(critical_t(1.0 - a, max(self.df, 1.0)) * self.se, 1e-12)
        inside, out = d, d + way * step
        while not rejected(out):
            inside, out = out, d + 2.0 * (out - d)
        for _ in range(_BISECTIONS):
            mid = 0.5 * (inside + out)
            if mid in (inside, out):
                break
            if rejected(mid):
                out = mid
            else:
                inside = mid
        return inside


def unit_median_test(base_logs: np.ndarray, cand_logs: np.ndarray) -> UnitMedianTest:
    """The test from each system's log unit medians (unit_log_medians)."""
    nb, nc = base_logs.size, cand_logs.size
    d = float(np.mean(cand_logs) - np.mean(base_logs))
    kept = (tuple(map(float, base_logs)), tuple(map(float, cand_logs)))
    if min(nb, nc) < MIN_UNITS:
        return UnitMedianTest(math.exp(d), math.nan, math.nan, (nb, nc), *kept)
    vb = float(np.var(base_logs, ddof=1)) / nb
    vc = float(np.var(cand_logs, ddof=1)) / nc
    se2 = vb + vc
    if se2 == 0.0:
        return UnitMedianTest(math.exp(d), 0.0, float(nb + nc - 2), (nb, nc), *kept)
    df = se2 * se2 / (vb * vb / (nb - 1) + vc * vc / (nc - 1))
    return UnitMedianTest(math.exp(d), math.sqrt(se2), df, (nb, nc), *kept)


def units_needed(benchmarks: int, alpha: float) -> int:
    """The fewest top-level units per system (equal counts) whose permutation test can
    reach Holm's first step α/benchmarks: 2/C(2n, n) ≤ α/m."""
    n = MIN_UNITS
    while 2.0 / math.comb(2 * n, n) > alpha / max(benchmarks, 1):
        n += 1
    return n
