"""A suite of benchmarks: per-benchmark comparisons, the geometric mean of the ratios with a
bootstrap CI, and family-wise decisions across benchmarks.

The geometric mean of per-benchmark ratios summarizes a suite without letting
long benchmarks dominate; its CI comes from resampling each benchmark's data
within itself (hierarchically when the data have levels).

Each benchmark's verdict is a decision at a family-wise level (per candidate):
Holm's step-down procedure (Holm 1979) applied to the interval tests. Every
benchmark's claim (a change, or equivalence within ±threshold) has the p-value
of the Fieller pivot at the point the claim must exclude (ratio 1, the nearer
edge of ±threshold, or both edges for equivalence); sorted p_(1) ≤ … ≤ p_(m),
the k-th is decided on the ratio's CI at level 1 − α/(m − k + 1) while the
steps keep rejecting, and from the first step s that does not, every later one
on the CI at 1 − α/(m − s + 1) — the level at which the undecided benchmarks'
intervals hold simultaneously (Strassburger & Bretz 2008). So the verdict
always rests on the interval shown beside it, and the chance of any false claim
over the suite stays ≤ α as far as each benchmark's test is accurate at its step's
level (down to α/m): exact for normal data, measured on other noise in
validation/suite_familywise.py and validation/suite_noise_models.py (docs/compare.md,
"Family-wise verdicts"). adjust="none" keeps per-benchmark decisions.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from benchlab.errors import InputError
from benchlab.notation import fmt_level
from benchlab.result import Result
from benchlab.stats import suite_median
from benchlab.stats.bootstrap import interval_from_replicates, mean_replicates
from benchlab.stats.compare import (
    CompareResult,
    Comparison,
    compare_hierarchical,
    compare_samples,
)
from benchlab.stats.distributions import critical_t, t_two_sided_p
from benchlab.stats.scaling import power_of_two_scale
from benchlab.stats.spec import AnalysisSpec, SpecError
from benchlab.stats.suite_family import (  # noqa: F401 (Decision, holm_*: used from here too)
    ADJUSTMENTS,
    Decision,
    claim_test,
    decide_families,
    holm_adjust,
    holm_levels,
)
from benchlab.stats.suite_memory import check_suite_memory


@dataclass(frozen=True)
class GeometricMean:
    """Geometric mean over benchmarks of candidate/baseline mean ratios, with a bootstrap CI."""

    candidate: str
    estimate: float
    low: float
    high: float
    benchmarks: int
    replicates: int
    seed: int
    confidence: float
    statistic: str = "mean"  # the per-benchmark ratios: of means, or of medians


@dataclass(frozen=True)
class SuiteResult(Result):
    """One CompareResult per benchmark, the geometric means, and the family-wise decisions.

    holm: for each (benchmark, candidate) the p-value of its decision's test (see
    Decision) adjusted by Holm across benchmarks (per candidate), and whether it
    stays below α. adjust: "holm" (each verdict a family-wise decision) or "none"
    (each benchmark decided alone at `confidence`); decisions: per (benchmark,
    candidate) the interval and level its verdict used.
    resample: how the geometric mean's bootstrap resampled each benchmark's
    data (R/N per level, or "flat"); None without levels (measurements resampled).
    skipped: the benchmarks (and systems) left out, with the reason, as warnings.
    notes: what the caller says about the data (e.g. units converted), shown with them.
    statistic: "mean" (ratios of means, Fieller) or "median" (ratios of medians, their
    bootstrap percentile CIs; the geometric mean of the median ratios).
    """

    benchmarks: tuple[tuple[str, CompareResult], ...]
    geometric_means: tuple[GeometricMean, ...]
    holm: tuple[tuple[str, str, float, float, bool], ...]
    confidence: float
    resample: str | None = None
    seed: int | None = None
    skipped: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    adjust: str = "holm"
    decisions: tuple[Decision, ...] = ()
    statistic: str = "mean"  # every benchmark's headline: ratio of means, or of medians
    analysis: AnalysisSpec | None = None  # every choice the analysis made (stats/spec.py)


def _pivot_pvalue(base_x: np.ndarray, cand_x: np.ndarray, paired: bool, df: float,
                  rho: float) -> float:
    """Two-sided p-value of "ratio = rho" from Fieller's pivot (STATS.md §3; Fieller 1954).

    t = (ā − ρ b̄) / sqrt(var(ā − ρ b̄)) with var = s_a²/n_a + ρ² s_b²/n_b (independent)
    or var(a_i − ρ b_i)/n (paired); Fieller's set at level 1 − α' is {ρ : t(ρ)² ≤
    t²_{1−α'/2, df}}, so ρ lies outside the interval exactly when this p < α'. df is
    the interval's own (it does not depend on ρ or on the level).
    """
    a, b = float(np.mean(cand_x)), float(np.mean(base_x))
    if paired:
        var = float(np.var(cand_x - rho * base_x, ddof=1)) / cand_x.size
    else:
        var = (float(np.var(cand_x, ddof=1)) / cand_x.size
               + rho * rho * float(np.var(base_x, ddof=1)) / base_x.size)
    diff = a - rho * b
    if var == 0.0:
        return 1.0 if diff == 0.0 else 0.0
    return t_two_sided_p(diff / math.sqrt(var), df)


@dataclass(frozen=True)
class _Pending:
    """One comparison of the suite waiting for its family-wise decision."""

    benchmark: str
    result: CompareResult
    comparison: Comparison
    base_x: np.ndarray  # the analysed values (top-level means with levels), scaled
    cand_x: np.ndarray
    test: str
    pvalue: float


def _pending(bench: str, res: CompareResult, arrays: dict[str, np.ndarray],
             threshold: float) -> list[_Pending]:
    """The comparisons of one benchmark with the p-value of each one's claim."""
    out = []
    for c in res.comparisons:
        base_x, cand_x = arrays[c.baseline], arrays[c.candidate]
        scale = power_of_two_scale(base_x, cand_x)
        base_x, cand_x = base_x * scale, cand_x * scale
        if c.ratio is None:  # only the difference: a change, and only without a threshold
            test, p = "difference = 0", (c.difference.pvalue if threshold == 0.0 else 1.0)
        else:
            df = c.ratio.df if c.ratio.df is not None else math.inf
            test, p = claim_test(c.ratio.estimate, threshold,
                                  lambda rho, b=base_x, x=cand_x, d=df, q=c.paired:
                                  _pivot_pvalue(b, x, q, d, rho))
        out.append(_Pending(bench, res, c, base_x, cand_x, test, p))
    return out


def _decide(item: _Pending, level: float, adjusted: float, m: int, noun: str) -> tuple[
        Comparison, Decision]:
    """The comparison with its verdict taken on the interval at `level`, and its Decision."""
    from benchlab.stats.compare import verdict_from_difference
    from benchlab.stats.descriptive import describe
    from benchlab.stats.verdict import Verdict, advice, classify, verdict_sentence

    c, res = item.comparison, item.result
    unit, threshold = res.unit, res.threshold
    family = f"; family-wise {fmt_level(res.confidence)} over {m} benchmarks (Holm)"
    if c.ratio is None:
        diff = c.difference
        half = (diff.high - diff.low) / 2
        if half > 0:
            half *= critical_t(level, diff.df) / critical_t(diff.confidence, diff.df)
        at = replace(diff, low=diff.estimate - half, high=diff.estimate + half, confidence=level)
        why = ("the baseline mean is not positive" if "baseline mean" in (c.ratio_note or "")
               else "the ratio is beyond a float's range")
        verdict = verdict_from_difference(at, c.baseline, c.candidate, threshold, unit, why)
        verdict = replace(verdict, text=verdict.text + family)
        decision = Decision(item.benchmark, c.candidate, item.test, item.pvalue, adjusted, level,
                            "difference", diff.estimate, at.low, at.high, verdict.outcome,
                            c.verdict.outcome)
        return replace(c, verdict=verdict), decision
    ratio = c.ratio.at(level)  # Fieller's closed form at the level, from the kept inputs
    outcome = classify(ratio.low, ratio.high, threshold)
    more = None
    if outcome == "inconclusive":  # what the experiment detects at the level it decides at
        base, cand = describe(item.base_x, c.baseline), describe(item.cand_x, c.candidate)
        paired_var = (float(np.var(item.cand_x - item.base_x, ddof=1)) if c.paired else None)
        more = advice(base.mean, base.variance, base.n, cand.variance, cand.n, level,
                      threshold, paired_var)
    above = ratio.estimate > 1.0
    text = verdict_sentence(outcome, c.baseline, c.candidate, ratio.estimate, ratio.low,
                            ratio.high, threshold, level, unit, more, noun)
    verdict = Verdict(outcome, text + family, threshold,
                      ("increase" if above else "decrease") if outcome == "change" else None,
                      outcome == "change" and unit.is_regression(above), more)
    decision = Decision(item.benchmark, c.candidate, item.test, item.pvalue, adjusted, level,
                        "ratio", ratio.estimate, ratio.low, ratio.high, outcome,
                        c.verdict.outcome)
    return replace(c, verdict=verdict), decision


def _unadjusted(item: _Pending, adjusted: float) -> Decision:
    """The Decision of a benchmark decided alone: its own interval at the suite's level."""
    c = item.comparison
    if c.ratio is None:
        scale, low, high, estimate = ("difference", c.difference.low, c.difference.high,
                                      c.difference.estimate)
    else:
        scale, low, high, estimate = "ratio", c.ratio.low, c.ratio.high, c.ratio.estimate
    return Decision(item.benchmark, c.candidate, item.test, item.pvalue, adjusted,
                    item.result.confidence, scale, estimate, low, high, c.verdict.outcome,
                    c.verdict.outcome)


def family_decisions(results: list[tuple[str, CompareResult]],
                     arrays: dict[str, dict[str, np.ndarray]], *, confidence: float,
                     threshold: float, adjust: str = "holm", noun: str = "measurements"
                     ) -> tuple[list[tuple[str, CompareResult]], list[Decision]]:
    """Every benchmark's verdict decided family-wise per candidate (see the module's text).

    arrays: per benchmark, each system's analysed values (the measurements, or the
    top-level unit means with levels). Returns the results with each comparison's
    verdict replaced by its family-wise one (unchanged with adjust="none") and one
    Decision per (benchmark, candidate), in the order of `results`.
    """
    pending = [p for bench, res in results
               for p in _pending(bench, res, arrays[bench], threshold)]

    def decide(item, level: float, adjusted: float, m: int | None):
        if m is None:  # adjust="none": the benchmark's own verdict and interval
            return item.comparison, _unadjusted(item, adjusted)
        return _decide(item, level, adjusted, m, noun)

    return decide_families(results, pending, decide, confidence=confidence, adjust=adjust)


def _usable(bench: str, systems: list, baseline: str, all_systems: list[str],
            skipped: list[str]) -> list:
    """The systems of one benchmark that can be compared; what is left out goes to `skipped`.

    As benchstat does, a benchmark missing from a system is skipped for that
    system (with a warning) rather than failing the whole suite; so is a system
    with fewer than 2 values of the benchmark (no spread, no CI).
    """
    have = [s[0] for s in systems]
    missing = [n for n in all_systems if n not in have]
    if baseline in missing:
        skipped.append(f"benchmark {bench!r} is missing from the baseline {baseline!r} "
                       f"(only in {', '.join(have)}): skipped")
        return []
    if missing:
        skipped.append(f"benchmark {bench!r} is missing from {', '.join(map(repr, missing))}: "
                       "skipped for " + ("it" if len(missing) == 1 else "them"))
    kept = []
    for system in systems:
        n = len(system[1])
        if n < 2:
            what = f"benchmark {bench!r} has {n} value{'' if n == 1 else 's'} for {system[0]!r}"
            if system[0] == baseline:
                skipped.append(f"{what}: at least 2 repetitions are needed for a CI; skipped")
                return []
            skipped.append(f"{what}: at least 2 repetitions are needed for a CI; skipped for "
                           "it")
            continue
        kept.append(system)
    return kept if len(kept) >= 2 else []


def compare_suite(data: dict[str, list[tuple[str, np.ndarray, list[np.ndarray]]]],
                  level_names: list[str], analysis: AnalysisSpec | None = None, *,
                  baseline: str, unit=None, ordered: Mapping[str, bool] | None = None,
                  **options: Any) -> SuiteResult:
    """Compare the systems of every benchmark; data maps benchmark → [(system, values, levels)].

    `analysis` (or the defaults with `options`, AnalysisSpec's fields as keywords)
    says how; its levels are `level_names`.

    replicates: B of the geometric mean's bootstrap (always run); bootstrap: B
    of each benchmark's own bootstrap CIs (None: none); resample: R/N per level
    or "flat", for both. Benchmarks a system lacks are skipped for it (see
    SuiteResult.skipped); an InputError when no benchmark is left. paired (without
    levels): the systems' values of a benchmark are paired by position (blocks of a
    run, stats/blocks.py), compared as compare_samples(paired=True) compares them.
    adjust: "holm" decides every verdict family-wise over the benchmarks (per
    candidate, family_decisions), "none" each benchmark alone. statistic="median":
    every benchmark's headline is the ratio of medians with its bootstrap percentile CI
    (B = `bootstrap` or 10,000, `seed`, as compare_samples gives it), decided by Holm
    on bootstrap test inversion — with levels on a permutation test of Welch's t on
    the log top-level unit medians instead (stats/suite_median_units.py) — and the
    geometric mean is of the median ratios (stats/suite_median.py); not with `paired`.
    """
    analysis = AnalysisSpec.of(analysis, **options, levels=tuple(level_names)).with_seed()
    confidence, threshold, adjust = analysis.confidence, analysis.threshold, analysis.adjust
    bootstrap, seed = analysis.bootstrap, analysis.seed
    replicates, statistic = analysis.geomean_replicates, analysis.statistic.name
    paired, median = analysis.paired, analysis.statistic.resamples
    if median and paired:
        raise SpecError("statistic='median' does not combine with paired suites", "statistic")
    ordered = ordered or {}
    analysed: dict[str, dict[str, np.ndarray]] = {}
    waiting: list = []  # median suites without levels: each comparison's MedianPending
    units: dict[str, dict] = {}  # with levels: per benchmark, candidate: UnitMedianTest
    all_systems = list(dict.fromkeys(s[0] for systems in data.values() for s in systems))
    results: list[tuple[str, CompareResult]] = []
    log_sums: dict[str, np.ndarray] = {}  # per candidate: Σ over benchmarks of log r*
    log_est: dict[str, list[float]] = {}
    skipped: list[str] = []
    unlogged: dict[str, list[str]] = {}  # per candidate: benchmarks of a ratio <= 0
    spec = analysis.resampling(len(level_names)) if level_names else None
    check_suite_memory(benchmarks=len(data), systems=max(map(len, data.values()), default=0),
                       replicates=replicates, bootstrap=bootstrap, confidence=confidence,
                       statistic=statistic, levels=bool(level_names))
    streams = np.random.SeedSequence(seed).spawn(len(data))
    for (bench, all_of_bench), stream in zip(data.items(), streams, strict=True):
        systems = _usable(bench, all_of_bench, baseline, all_systems, skipped)
        if not systems:
            continue
        names = [s[0] for s in systems]
        b = names.index(baseline)
        try:
            if level_names:
                res = compare_hierarchical(
                    systems, level_names, analysis, baseline=b, unit=unit,
                    ordered=[ordered.get(n, True) for n in names], advise=False)
            else:
                res = compare_samples([(n, x) for n, x, _ in systems],
                                      replace(analysis, levels=None), baseline=b, unit=unit,
                                      advise=False)
        except InputError as exc:  # keep the kind and its details; say which benchmark
            exc.message = f"benchmark {bench!r}: {exc.message}"
            raise
        whole, res = res, _trimmed(res, confidence)  # what .at(level ≥ confidence) reads
        results.append((bench, res))
        if median and level_names:  # decided on the top-level units (suite_median_units)
            units[bench] = _unit_median_tests(systems, b, bench)
            reps = _median_geomean(systems, spec, replicates, stream)
        elif median:
            waiting += _median_pending(bench, whole, res)
            reps = _median_geomean(systems, spec, replicates, stream)
        else:
            analysed[bench] = ({h.name: np.asarray(h.top_means, dtype=float)
                                for h in res.hierarchies} if level_names else
                               {n: np.asarray(x, dtype=float) for n, x, _ in systems})
            reps = _mean_geomean(systems, spec, replicates, stream, paired)
        for i, (name, _, _) in enumerate(systems):
            if i == b:
                continue
            c = next(c for c in res.comparisons if c.candidate == name)
            ratio = c.headline if median else c.ratio
            if ratio is None or np.any(reps[b] <= 0):
                continue
            if not ratio.estimate > 0:  # no logarithm: said in a note, not averaged
                unlogged.setdefault(name, []).append(bench)
                continue
            _add_log_ratio(log_sums, name, reps[i], reps[b])
            log_est.setdefault(name, []).append(math.log(ratio.estimate))
        del reps, whole  # the next benchmark's draws take their place
    if not results:
        raise InputError("no benchmark can be compared: " + "; ".join(skipped))
    geo = []
    for name in list(log_sums):
        mean_log = log_sums.pop(name)
        mean_log /= len(log_est[name])
        low, high = _geomean_interval(mean_log, confidence)
        del mean_log
        geo.append(GeometricMean(name, math.exp(float(np.mean(log_est[name]))), low, high,
                                 len(log_est[name]), replicates, seed, confidence, statistic))
    noun = f"{level_names[0]} units" if level_names else "measurements"
    if median:
        if level_names:
            waiting = [p for bench, res in results
                       for p in suite_median.pending(bench, res, {}, units[bench])]
        results, decisions = suite_median.family_decisions(
            results, waiting, confidence=confidence, adjust=adjust,
            noun=noun if level_names else "values")
    else:
        results, decisions = family_decisions(results, analysed, confidence=confidence,
                                              threshold=threshold, adjust=adjust, noun=noun)
    alpha = 1.0 - confidence
    holm = [(d.benchmark, d.candidate, d.pvalue, d.adjusted_pvalue, d.adjusted_pvalue < alpha)
            for d in sorted(decisions, key=lambda d: d.candidate)]
    from benchlab.stats.compare import advice_note

    said = advice_note([c for _, r in results for c in r.comparisons])
    notes = [d.message for d in said]
    notes += [f"the geometric mean of {name} leaves out {', '.join(map(repr, benches))}: "
              f"{'its ratio is' if len(benches) == 1 else 'their ratios are'} at or below 0 "
              "(a candidate mean at or below 0), which has no logarithm"
              for name, benches in unlogged.items()]
    refused = sorted({(bench, name, min(t.units)) for bench, by in units.items()
                      for name, t in by.items() if t.refused})
    if refused:
        from benchlab.stats.suite_median_units import MIN_UNITS

        named = ", ".join(f"{bench!r} ({name})" for bench, name, _ in refused)
        notes.append(f"the median verdicts of {named} are inconclusive: a system has fewer "
                     f"than {MIN_UNITS} {noun}, and Welch's t on the {noun}' log medians "
                     f"needs at least {MIN_UNITS} per system (5 or more to detect a few "
                     "percent at Holm's levels)")
    floor = sorted({(t.smallest_pvalue, t.units) for by in units.values() for t in by.values()
                    if not t.refused and t.smallest_pvalue > 0})
    family = max((sum(d.candidate == c for d in decisions) for c in
                  {d.candidate for d in decisions}), default=1)
    reach = (1.0 - confidence) / family
    if adjust == "holm" and floor and floor[-1][0] > reach:
        from benchlab.stats.suite_median_units import units_needed

        p_min, (nb, nc) = floor[-1]
        notes.append(f"with {nb} and {nc} {noun} per system the median test's smallest "
                     f"p-value is {100 * p_min:.2g}% (the share of the most extreme of the "
                     f"ways to split them), above Holm's first step {100 * reach:.2g}% over "
                     f"{family} benchmarks: no median verdict can be a change (the gate "
                     f"cannot trip); {units_needed(family, 1.0 - confidence)} {noun} per "
                     "system would reach it, or the mean as the statistic (Fieller on the "
                     "unit means, which assumes them near normal), or fewer benchmarks")
    if median and not level_names and any(d.low is None for d in decisions):
        notes.append(f"B = {analysis.headline_replicates} bootstrap replicates cannot reach "
                     "the level of some of Holm's steps (their intervals are unbounded, their "
                     "verdicts inconclusive): raise B")
    return SuiteResult(tuple(results), tuple(geo), tuple(holm), confidence, spec, seed,
                       tuple(skipped), tuple(notes), adjust, tuple(decisions), statistic,
                       analysis)


def _geomean_interval(mean_log: np.ndarray, confidence: float) -> tuple[float, float]:
    """The percentile CI of the geometric mean from its replicates' mean log ratios (in
    place). A replicate in which some benchmark's resampled ratio is 0 or below (a
    candidate's resampled mean at or below 0: head pseudo-units, signed data) has no
    geometric mean; it lies below every positive one, so it is sorted first, and a bound
    that falls on such a replicate is NaN: the CI is unbounded on that side (at least one
    side is then unbounded below; "(unbounded)" in text, null in JSON)."""
    np.nan_to_num(mean_log, copy=False, nan=-np.inf, posinf=np.inf, neginf=-np.inf)
    low, high = interval_from_replicates(np.exp(mean_log, out=mean_log), confidence)
    return (low if low > 0 else math.nan), (high if high > 0 else math.nan)


def _add_log_ratio(sums: dict[str, np.ndarray], name: str, cand: np.ndarray,
                   base: np.ndarray) -> None:
    """Add log(cand/base) into the candidate's running sum over benchmarks, in place.

    Row after row, as numpy's mean over axis 0 of the stacked rows adds them (for B ≥ 2):
    the geometric mean's replicates are those of the stacked mean, with memory for one
    row per candidate instead of one per benchmark (stats/suite_memory.py).
    """
    logs = np.divide(cand, base)
    with np.errstate(divide="ignore", invalid="ignore"):  # a ratio <= 0: _geomean_interval
        np.log(logs, out=logs)
    held = sums.get(name)
    if held is None:
        sums[name] = logs
    else:
        held += logs


def _mean_geomean(systems: list, spec: str | None, replicates: int,
                  stream: np.random.SeedSequence, paired: bool) -> list[np.ndarray]:
    """Bootstrap each system's mean within one benchmark, one stream per system (paired:
    one stream for all, the same indices, so pairs are resampled whole)."""
    from benchlab.stats.hierarchical_bootstrap import build_tree, hierarchical_replicates

    rngs = [np.random.default_rng(s) for s in stream.spawn(len(systems))]
    if paired:
        rngs = [np.random.default_rng(stream) for _ in systems]
    reps = []
    for (_, x, levels), rng in zip(systems, rngs, strict=True):
        if spec is not None and spec != "flat":
            reps.append(hierarchical_replicates(build_tree(x, levels), spec, replicates, rng))
        else:  # no levels, or flat: the measurements pooled, as if independent
            reps.append(mean_replicates(np.asarray(x, dtype=float), replicates, rng))
    return reps


def _median_geomean(systems: list, spec: str | None, replicates: int,
                    stream: np.random.SeedSequence) -> list[np.ndarray]:
    """Bootstrap each system's median within one benchmark, one stream per system."""
    return suite_median.median_geomean_replicates(systems, spec, replicates, stream)


def _unit_median_tests(systems: list, b: int, bench: str) -> dict:
    """Per candidate, Welch's t on the log top-level-unit medians against the baseline
    (stats/suite_median_units.py); an InputError naming the benchmark when a unit's
    median is not positive."""
    from benchlab.stats.suite_median_units import unit_log_medians, unit_median_test

    try:
        logs = [unit_log_medians(np.asarray(x, dtype=float), levels[0])
                for _, x, levels in systems]
    except ValueError as exc:
        raise InputError(f"benchmark {bench!r}: {exc}") from None
    return {name: unit_median_test(logs[b], logs[i])
            for i, (name, _, _) in enumerate(systems) if i != b}


def _median_pending(bench: str, whole: CompareResult, kept: CompareResult) -> list:
    """The MedianPending of each candidate of one benchmark (no levels): its claim's p-value
    from all the sorted replicate ratios of medians its headline kept (the draws
    compare_samples made, not drawn again), then only the tails `kept` holds (what its
    intervals at the suite's confidence and above read)."""
    ratios = {c.candidate: c.headline.ordered.values for c in whole.comparisons}
    by_candidate = {c.candidate: c for c in kept.comparisons}
    out = []
    for p in suite_median.pending(bench, whole, ratios):
        c = by_candidate[p.comparison.candidate]
        out.append(replace(p, result=kept, comparison=c, ratios=c.headline.ordered))
    return out


def _trimmed(res: CompareResult, level: float) -> CompareResult:
    """The result with each bootstrap interval keeping only the tails of its replicates that
    .at(level) and above read (BootstrapInterval.trimmed): a suite holds a few per cent of
    B per benchmark, not all of it (stats/suite_memory.py)."""
    comparisons = []
    for c in res.comparisons:
        kept = {id(b): b.trimmed(level) for b in c.bootstrap}
        head = c.headline
        if head is not None:
            head = kept.get(id(head)) or head.trimmed(level)
        comparisons.append(replace(c, bootstrap=tuple(kept[id(b)] for b in c.bootstrap),
                                   headline=head))
    return replace(res, comparisons=tuple(comparisons))
