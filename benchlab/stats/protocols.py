"""Hypothesis-test protocols (STATS.md §7): the Speedup-Test and Kruskal–Wallis with post hoc.

Speedup-Test (Touati, Worms & Briais 2013, as used by Nogueira et al. 2014):
one-sided tests that the baseline is slower than the candidate (for
higher-is-better metrics: that the candidate is higher). The mean protocol
checks normality of each sample with Shapiro–Wilk — a sample of 30 or fewer
observations that fails it makes the protocol refuse ("do more than 30
observations"), a larger one only warns (central limit theorem) — then lets
an F-test choose Student's or Welch's t. The median protocol checks with
Kolmogorov–Smirnov that the median-centred samples have the same shape
(same refusal rule), then runs Wilcoxon–Mann–Whitney. The checks reuse
`classic_tests` (matched to R); the one-sided t and rank tests call
scipy.stats with R's defaults (exact rank test below 50 values without ties).

k samples: Kruskal–Wallis (scipy.stats.kruskal = R kruskal.test, tie
corrected), pairwise two-sided tests with Holm-adjusted p-values — Mann–Whitney
on each pair alone (R pairwise.wilcox.test(p.adjust.method = "holm")), or
Dunn's test on the mean ranks of the pooled ranking (Dunn 1964; written here:
scipy has no Dunn test) — and the one-way ANOVA F alongside (scipy.stats.f_oneway).
"""

from __future__ import annotations

import warnings as py_warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchlab.notation import fmt_p
from benchlab.result import Result
from benchlab.stats.classic_tests import (
    TestResult,
    f_test,
    kolmogorov_smirnov,
    mann_whitney,
    shapiro_wilk,
)
from benchlab.stats.descriptive import Descriptives, describe
from benchlab.stats.scaling import power_of_two_scale
from benchlab.stats.suite import holm_adjust
from benchlab.units import Unit

PROTOCOLS = ("speedup-mean", "speedup-median", "kruskal")
POSTHOC = ("mann-whitney", "dunn")
SMALL = 30  # the Speedup-Test's limit: at most this many observations needs the check to pass


@dataclass(frozen=True)
class Speedups:
    """Speedups of the minimum, mean and median: baseline / candidate (>1: candidate better)."""

    min: float
    mean: float
    median: float


@dataclass(frozen=True)
class SpeedupTestResult(Result):
    """One Speedup-Test protocol: the checks, the one-sided test and its decision.

    decision: "significant" (the candidate is better at level alpha), "not significant",
    or "refused" (a check failed on 30 or fewer observations; `message` says why).
    """

    protocol: str
    baseline: str
    candidate: str
    n_baseline: int
    n_candidate: int
    alpha: float
    higher_is_better: bool
    speedups: Speedups
    checks: tuple[TestResult, ...]
    test: TestResult | None
    decision: str
    message: str
    warnings: tuple[str, ...]
    better: str = "faster"  # the word for the candidate's move in H1's direction (as compare)


@dataclass(frozen=True)
class GroupRank:
    """One group of a k-sample test: size, median, mean and mean rank in the pooled data."""

    name: str
    n: int
    median: float
    mean: float
    mean_rank: float


@dataclass(frozen=True)
class PairTest:
    """One pairwise comparison: Mann–Whitney's W (R's, `second` vs `first`) or Dunn's z."""

    first: str
    second: str
    statistic: float
    pvalue: float
    pvalue_holm: float
    shift: float
    significant: bool


@dataclass(frozen=True)
class KruskalResult(Result):
    """Kruskal–Wallis H (df = k - 1), one-way ANOVA F, and Holm-adjusted pairwise tests."""

    groups: tuple[GroupRank, ...]
    statistic: float
    df: int
    pvalue: float
    anova_f: float
    anova_df: tuple[int, int]
    anova_pvalue: float
    pairs: tuple[PairTest, ...]
    alpha: float
    method: str
    posthoc: str = "mann-whitney"
    exact: bool = False  # every group constant: pairs differ exactly when their values do


def _speedups(base: np.ndarray, cand: np.ndarray, higher_is_better: bool) -> Speedups:
    a, b = (cand, base) if higher_is_better else (base, cand)
    with np.errstate(divide="ignore", invalid="ignore"):
        return Speedups(float(np.min(a) / np.min(b)), float(np.mean(a) / np.mean(b)),
                        float(np.median(a) / np.median(b)))


def _check(ok: bool, what: str, n: int, name: str, refusals: list[str],
           warnings: list[str], why: str = "") -> None:
    """The Speedup-Test rule: a failed check refuses at n <= 30, warns above."""
    if ok:
        return
    if n <= SMALL:
        refusals.append(f"{what} for {name} ({n} observations): do more than {SMALL} "
                        "observations")
    else:
        warnings.append(f"{what} for {name}; with {n} > {SMALL} observations the protocol "
                        f"continues{why}")


def _same_shape(base: np.ndarray, cand: np.ndarray) -> TestResult:
    """KS on the median-centred samples (classic_tests.kolmogorov_smirnov: R's ks.test, exact
    and conditional on the ties below m·n = 10000 — centring ties the two medians at 0)."""
    ks = kolmogorov_smirnov(base - np.median(base), cand - np.median(cand))
    note = "same distribution shape after removing the medians"
    return TestResult("Kolmogorov-Smirnov (median-centred)", ks.statistic, ks.pvalue, ks.method,
                      note=f"{note}; {ks.note}" if ks.note else note)


def _better_word(higher_is_better: bool, unit: Unit | None) -> str:
    """The word for a candidate that moved in H1's direction, as compare's verdict says it."""
    if unit is None:
        return "higher" if higher_is_better else "faster"
    return unit.direction_word(higher_is_better)


def speedup_test(baseline: np.ndarray, candidate: np.ndarray, *, protocol: str = "speedup-mean",
                 alpha: float = 0.05, names: tuple[str, str] = ("baseline", "candidate"),
                 higher_is_better: bool = False, unit: Unit | None = None
                 ) -> SpeedupTestResult:
    """Run the Speedup-Test mean or median protocol on two independent samples.

    `unit` names the improvement as `compare` does (unit.direction_word: "faster" for
    times, "lower"/"higher" for data without a direction); without it, "faster", or
    "higher" when higher is better.
    """
    from scipy import stats

    if protocol not in ("speedup-mean", "speedup-median"):
        raise ValueError(f"not a Speedup-Test protocol: {protocol!r}")
    base = np.asarray(baseline, dtype=np.float64)
    cand = np.asarray(candidate, dtype=np.float64)
    # The tests on data scaled by a power of two (exact, stats/scaling.py): their statistics
    # do not depend on the scale, and variances of values near 1e300 would overflow.
    scale = power_of_two_scale(base, cand)
    base, cand = base * scale, cand * scale
    alternative = "less" if higher_is_better else "greater"  # H1 for baseline vs candidate
    if min(base.size, cand.size) >= 2 and np.ptp(base) == 0 and np.ptp(cand) == 0:
        return _exact(base, cand, protocol, alpha, names, higher_is_better, unit)
    refusals: list[str] = []
    warnings: list[str] = []
    checks: list[TestResult] = []
    samples = ((names[0], base), (names[1], cand))
    if min(base.size, cand.size) < 3:
        refusals.append(f"fewer than 3 observations: do more than {SMALL} observations")
    test: TestResult | None = None
    if protocol == "speedup-mean" and not refusals:
        for name, x in samples:
            with py_warnings.catch_warnings():  # above 5000 values the result's note says it
                py_warnings.simplefilter("ignore", UserWarning)
                sw = shapiro_wilk(x, name)
            if sw is None:
                _check(False, "normality cannot be checked (no spread)", x.size, name,
                       refusals, warnings, " (central limit theorem)")
                continue
            checks.append(sw)
            _check(sw.pvalue >= alpha, f"Shapiro-Wilk rejects normality ({fmt_p(sw.pvalue)})",
                   x.size, name, refusals, warnings, " (central limit theorem)")
        if not refusals:
            f = f_test(describe(base, names[0]), describe(cand, names[1]), 1 - alpha)
            checks.append(f)
            equal = bool(np.isfinite(f.pvalue) and f.pvalue >= alpha)
            res = stats.ttest_ind(base, cand, equal_var=equal, alternative=alternative)
            test = TestResult("Student's t" if equal else "Welch's t", float(res.statistic),
                              float(res.pvalue), "one-sided, " + (
                                  "equal variances: F-test not rejected" if equal else
                                  "unequal variances: F-test rejected"),
                              estimate=float(np.mean(base) - np.mean(cand)) / scale,
                              note="estimate: mean(baseline) - mean(candidate)")
    elif not refusals:
        ks = _same_shape(base, cand)
        checks.append(ks)
        _check(ks.pvalue >= alpha, f"Kolmogorov-Smirnov rejects the same shape "
               f"({fmt_p(ks.pvalue)})", min(base.size, cand.size),
               f"{names[0]} and {names[1]}", refusals, warnings)
        if not refusals:
            joined = np.concatenate([base, cand])
            exact = base.size < 50 and cand.size < 50 and np.unique(joined).size == joined.size
            res = stats.mannwhitneyu(base, cand, alternative=alternative,
                                     method="exact" if exact else "asymptotic",
                                     use_continuity=True)
            test = TestResult("Wilcoxon-Mann-Whitney", float(res.statistic), float(res.pvalue),
                              "one-sided, " + ("exact" if exact else
                                               "normal approximation with continuity "
                                               "correction"),
                              estimate=float(np.median(base) - np.median(cand)) / scale,
                              note="statistic: W of the baseline (R); estimate: "
                                   "median(baseline) - median(candidate)")
    speed = _speedups(base, cand, higher_is_better)
    better = _better_word(higher_is_better, unit)
    what = "mean" if protocol == "speedup-mean" else "median"
    if refusals:
        decision, message = "refused", "refused: " + "; ".join(refusals)
    elif test is not None and test.pvalue < alpha:
        decision = "significant"
        message = (f"{names[1]} is {better} than {names[0]}: {what} speedup "
                   f"{getattr(speed, what):.4g} is significant at level {alpha:g} "
                   f"({fmt_p(test.pvalue)})")
    else:
        decision = "not significant"
        p = test.pvalue if test is not None else float("nan")
        message = (f"no significant {what} speedup of {names[1]} over {names[0]} at level "
                   f"{alpha:g} ({fmt_p(p)})")
    return SpeedupTestResult(protocol, names[0], names[1], int(base.size), int(cand.size),
                             float(alpha), bool(higher_is_better), speed, tuple(checks), test,
                             decision, message, tuple(warnings), better)


def _exact(base: np.ndarray, cand: np.ndarray, protocol: str, alpha: float,
           names: tuple[str, str], higher_is_better: bool, unit: Unit | None
           ) -> SpeedupTestResult:
    """Two samples without spread (identical counts): the speedup is known exactly, so the
    answer is exact rather than refused for want of a normality check — the candidate is
    better (significant at any level) when it is strictly better, else it is not."""
    speed = _speedups(base, cand, higher_is_better)
    better = _better_word(higher_is_better, unit)
    what = "mean" if protocol == "speedup-mean" else "median"
    if speed.mean > 1.0:
        decision = "significant"
        message = (f"{names[1]} is {better} than {names[0]}, exactly: {what} speedup "
                   f"{speed.mean:.4g} (neither sample has any spread: no test is needed)")
    else:
        decision = "not significant"
        how = "the same value" if speed.mean == 1.0 else f"speedup {speed.mean:.4g}"
        message = (f"no {what} speedup of {names[1]} over {names[0]}, exactly: {how} "
                   "(neither sample has any spread: no test is needed)")
    return SpeedupTestResult(protocol, names[0], names[1], int(base.size), int(cand.size),
                             float(alpha), bool(higher_is_better), speed, (), None, decision,
                             message, (), better)


@dataclass(frozen=True)
class SpeedupSuite(Result):
    """The Speedup-Test over the benchmarks of a suite: per benchmark, and overall.

    gain: Σ_b statistic(baseline_b) / Σ_b statistic(candidate_b) of the protocol's
    statistic (mean or median; candidate over baseline for higher-is-better), i.e. each
    benchmark weighted by its execution time. improved / total: benchmarks whose
    speedup is significant (refusals count as not improved), with the exact
    (Clopper–Pearson) CI of that proportion at 1 - alpha.
    """

    protocol: str
    alpha: float
    baseline: str
    candidate: str
    benchmarks: tuple[tuple[str, SpeedupTestResult], ...]
    gain: float
    improved: int
    refused: int
    total: int
    proportion_low: float
    proportion_high: float

    @property
    def proportion(self) -> float:
        return self.improved / self.total


def speedup_suite(data: Sequence[tuple[str, np.ndarray, np.ndarray]], *,
                  protocol: str = "speedup-mean", alpha: float = 0.05,
                  names: tuple[str, str] = ("baseline", "candidate"),
                  higher_is_better: bool = False, unit: Unit | None = None) -> SpeedupSuite:
    """Run the protocol on every (benchmark, baseline, candidate) and summarize the suite."""
    from scipy import stats

    if not data:
        raise ValueError("no benchmarks to test")
    results = tuple((bench, speedup_test(b, c, protocol=protocol, alpha=alpha, names=names,
                                         higher_is_better=higher_is_better, unit=unit))
                    for bench, b, c in data)
    stat = np.mean if protocol == "speedup-mean" else np.median
    base = sum(float(stat(b)) for _, b, _ in data)
    cand = sum(float(stat(c)) for _, _, c in data)
    gain = cand / base if higher_is_better else base / cand
    improved = sum(r.decision == "significant" for _, r in results)
    refused = sum(r.decision == "refused" for _, r in results)
    ci = stats.binomtest(improved, len(results)).proportion_ci(1 - alpha, method="exact")
    return SpeedupSuite(protocol, float(alpha), names[0], names[1], results, float(gain),
                        int(improved), int(refused), len(results), float(ci.low),
                        float(ci.high))


def dunn_z(first: GroupRank, second: GroupRank, spread: float) -> float:
    """Dunn's z of `second` against `first` (Dunn 1964) from their mean pooled ranks.

    z = (R̄_2 − R̄_1) / sqrt(spread · (1/n_1 + 1/n_2)), spread from `rank_spread`.
    """
    return float((second.mean_rank - first.mean_rank)
                 / np.sqrt(spread * (1 / first.n + 1 / second.n)))


def rank_spread(ranks: np.ndarray) -> float:
    """N(N+1)/12 − Σ(t³ − t)/(12(N − 1)): the variance of one pooled rank, tie-corrected."""
    n_total = ranks.size
    _, ties = np.unique(ranks, return_counts=True)
    return float(n_total * (n_total + 1) / 12 - np.sum(ties**3 - ties) / (12 * (n_total - 1)))


def kruskal_test(samples: Sequence[tuple[str, np.ndarray]], *,
                 alpha: float = 0.05, posthoc: str = "mann-whitney") -> KruskalResult:
    """Kruskal–Wallis across k >= 2 groups, one-way ANOVA, pairwise tests with Holm.

    posthoc: "mann-whitney" (each pair ranked on its own) or "dunn" (Dunn's z on the
    mean ranks of the pooled ranking, the post hoc that matches the Kruskal–Wallis H).
    """
    from scipy import stats

    from benchlab.stats.diagnostics import average_ranks
    from benchlab.stats.distributions import normal_cdf
    from benchlab.stats.pairwise import median_of_differences

    if posthoc not in POSTHOC:
        raise ValueError(f"posthoc must be one of {', '.join(POSTHOC)}")
    if len(samples) < 2:
        raise ValueError("Kruskal-Wallis needs at least two groups")
    arrays = [np.asarray(x, dtype=np.float64) for _, x in samples]
    pooled = np.concatenate(arrays)
    if np.ptp(pooled) == 0:
        raise ValueError("all values are equal: the ranks carry no information")
    ranks = average_ranks(pooled)
    bounds = np.cumsum([0] + [x.size for x in arrays])
    groups = tuple(GroupRank(name, int(x.size), float(np.median(x)), float(np.mean(x)),
                             float(np.mean(ranks[bounds[i]:bounds[i + 1]])))
                   for i, ((name, _), x) in enumerate(zip(samples, arrays, strict=True)))
    kw = stats.kruskal(*arrays)
    with np.errstate(divide="ignore", invalid="ignore"), py_warnings.catch_warnings():
        py_warnings.simplefilter("ignore")  # constant groups: F is inf or nan, reported so
        ow = stats.f_oneway(*arrays)
    raw = []  # (i, j, statistic, p-value, Hodges-Lehmann shift of j against i)
    spread = rank_spread(ranks) if posthoc == "dunn" else 0.0
    for i in range(len(arrays)):
        for j in range(i + 1, len(arrays)):
            if posthoc == "dunn":
                z = dunn_z(groups[i], groups[j], spread)
                raw.append((i, j, z, 2 * normal_cdf(-abs(z)),
                            median_of_differences(arrays[i], arrays[j])))
            else:
                t = mann_whitney(arrays[i], arrays[j])
                raw.append((i, j, t.statistic, t.pvalue, float(t.estimate)))
    adjusted = holm_adjust([r[3] for r in raw])
    # every group without spread (identical counts): a pair differs exactly when its values
    # do, whatever the tests of few tied values can show
    exact = all(x.size >= 2 and np.ptp(x) == 0 for x in arrays)
    pairs = tuple(PairTest(samples[i][0], samples[j][0], stat, p_raw, p, shift,
                           bool(arrays[i][0] != arrays[j][0]) if exact else bool(p < alpha))
                  for (i, j, stat, p_raw, shift), p in zip(raw, adjusted, strict=True))
    pairwise = ("Dunn's z on the pooled mean ranks (tie-corrected, normal p-values)"
                if posthoc == "dunn" else
                "Wilcoxon-Mann-Whitney (exact below 50 values without ties)")
    method = ("Kruskal-Wallis (tie-corrected chi-squared approximation); pairwise "
              f"{pairwise} with Holm adjustment")
    if exact:
        method += ("; every group is constant, so a pair differs exactly when its values "
                   "differ (the tests are shown, not used)")
    return KruskalResult(groups, float(kw.statistic), len(arrays) - 1, float(kw.pvalue),
                         float(ow.statistic), (len(arrays) - 1, int(pooled.size - len(arrays))),
                         float(ow.pvalue), pairs, float(alpha), method, posthoc, exact)


@dataclass(frozen=True)
class TestReport(Result):
    """Everything `benchlab test` found: the protocol's results and what the caller adds.

    results: a KruskalResult, or one SpeedupTestResult (or SpeedupSuite) per candidate.
    """

    __test__ = False  # not a pytest class, whatever its name

    protocol: str
    alpha: float
    unit: Unit
    results: Any
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    samples: tuple[Descriptives, ...] = ()  # the Speedup-Test table shows each sample
    unit_level: str | None = None  # the units whose means were tested (data/units.py)
