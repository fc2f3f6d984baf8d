"""Compare each candidate sample with a baseline: the whole analysis of `benchlab compare`.

Headline: the ratio of means with Fieller's CI and the verdict against a
threshold (STATS.md §3–4); beside it the Welch difference of means, optional
bootstrap CIs, classical tests, paired analyses and per-sample diagnostics.
With statistic="median" the verdict rests on the ratio of medians and its
bootstrap percentile CI instead; with the mean, a warning
says when the rank test, the medians or strong skew disagree (stats/mean_checks).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from benchlab.errors import InputError, ParameterError
from benchlab.notation import fmt_level
from benchlab.result import Result
from benchlab.stats.bootstrap import BootstrapInterval, bootstrap_ratio, check_kept
from benchlab.stats.descriptive import Descriptives, describe
from benchlab.stats.diagnostics import Diagnostic, diagnose
from benchlab.stats.difference import MeanDifference, paired_difference, welch_difference
from benchlab.stats.fieller import RatioInterval, fieller_interval, ratio_df
from benchlab.stats.mean_checks import (
    FEW_FOR_MEDIAN,
    mean_warning,
    rank_sum_pvalue,
    rank_test_can_reject,
    skewness,
)
from benchlab.stats.scaling import power_of_two_scale
from benchlab.stats.spec import MEDIAN, AnalysisSpec, statistic_of
from benchlab.stats.verdict import Verdict, advice, classify, verdict_sentence
from benchlab.units import Unit, make_unit


@dataclass(frozen=True)
class Comparison:
    """One candidate against the baseline.

    ratio is None when the baseline mean is not positive (`ratio_note` says why);
    the difference of means is always there.
    """

    baseline: str
    candidate: str
    paired: bool
    ratio: RatioInterval | None
    difference: MeanDifference
    verdict: Verdict
    bootstrap: tuple[BootstrapInterval, ...] = ()
    tests: tuple = ()
    ratio_note: str | None = None
    headline: BootstrapInterval | None = None  # the verdict's interval (ratio of medians)


@dataclass(frozen=True)
class CompareResult(Result):
    """Everything `benchlab compare` found; fields mirror its JSON document."""

    confidence: float
    threshold: float
    df_method: str
    seed: int | None
    unit: Unit
    samples: tuple[Descriptives, ...]
    diagnostics: tuple[Diagnostic, ...]
    comparisons: tuple[Comparison, ...]
    hierarchies: tuple = ()  # HierarchySummary per sample when compared on --levels
    resample: str | None = None
    statistic: str = "mean"  # the headline: ratio of means (Fieller) or of medians (bootstrap)
    analysis: AnalysisSpec | None = None  # every choice the analysis made (stats/spec.py)


def _ratio(base: Descriptives, cand: Descriptives, confidence: float, df_method: str,
           paired_cov: float | None, pairs: tuple[np.ndarray, np.ndarray] | None = None
           ) -> RatioInterval:
    """Fieller's CI of cand.mean / base.mean at `confidence` (df rule `df_method`; with
    `pairs`, the paired form with the covariance and n − 1 df)."""
    v_a, v_b = cand.variance / cand.n, base.variance / base.n
    rho = cand.mean / base.mean
    if paired_cov is not None and pairs is not None:
        base_x, cand_x = pairs
        n = base.n
        df = float(n - 1)
        # The formula's two combinations straight from the data: no cancellation when the
        # pairs are (nearly) proportional.
        pivot = float(np.var(cand_x - rho * base_x, ddof=1)) / n
        conditional = pivot
        if v_b > 0:
            slope = paired_cov / base.variance
            conditional = float(np.var(cand_x - slope * base_x, ddof=1)) / n
        return fieller_interval(cand.mean, base.mean, v_a, v_b, paired_cov / n, df,
                                confidence, "Fieller (paired, with covariance)",
                                pivot_variance=pivot, conditional_variance=conditional)
    df = ratio_df(df_method, rho, v_a, v_b, cand.n, base.n)
    return fieller_interval(cand.mean, base.mean, v_a, v_b, 0.0, df, confidence,
                            f"Fieller ({df_method} df)")


def verdict_from_difference(diff: MeanDifference, base: str, cand: str, threshold: float,
                             unit: Unit, why: str = "the baseline mean is not positive"
                             ) -> Verdict:
    """Without a ratio (baseline mean ≤ 0) only "is there a difference" can be answered;
    a difference known to be exactly 0 (no spread: both samples one constant, or every
    pair equal) is "no difference", exactly, as a zero-width ratio CI at 1 is."""
    level = f"{fmt_level(diff.confidence)} CI"
    if diff.low == diff.high == diff.estimate == 0.0:
        text = (f"no difference: {cand} and {base} have the same mean, exactly (a zero-width "
                f"{level} of the difference at 0: the data have no spread that could move "
                f"it; no ratio: {why})")
        return Verdict("equivalent", text, threshold, None, False)
    if diff.low > 0 or diff.high < 0:
        above = diff.estimate > 0
        text = (f"{cand} is {unit.direction_word(above)} than {base} by "
                f"{unit.format(abs(diff.estimate))} ({level} {unit.format(diff.low)} .. "
                f"{unit.format(diff.high)}, "
                f"difference of means; no ratio: {why})")
        if threshold > 0:
            text += "; the relative threshold cannot be applied"
            return Verdict("inconclusive", text, threshold, None, False)
        return Verdict("change", text, threshold, "increase" if above else "decrease",
                       unit.is_regression(above))
    text = (f"no difference proven between {cand} and {base} ({level} of the difference "
            f"{unit.format(diff.low)} .. {unit.format(diff.high)}; no ratio: {why})")
    return Verdict("inconclusive", text, threshold, None, False)


def compare_pair(base_x: np.ndarray, cand_x: np.ndarray, base: Descriptives,
                 cand: Descriptives, spec: AnalysisSpec, *, unit: Unit,
                 noun: str = "measurements", scale: float = 1.0) -> Comparison:
    """The analysis of one candidate against the baseline, as `spec` says.

    The data and descriptives may be multiplied by `scale` (a power of two, see
    stats/scaling.py); results in data units are divided by it, exactly.
    With the median (spec.statistic), the verdict rests on the ratio of medians'
    bootstrap percentile CI (B = spec.headline_replicates)."""
    confidence, threshold, paired = spec.confidence, spec.threshold, spec.paired
    if paired and base.n != cand.n:
        raise ParameterError(f"{{param}} needs samples of equal length: {base.name} has "
                             f"{base.n} values, {cand.name} has {cand.n}", "paired")
    cov = None
    diff_desc = None
    if paired:
        cov = float(np.cov(cand_x, base_x, ddof=1)[0, 1]) if base.n > 1 else 0.0
        diff_desc = describe(cand_x - base_x, f"{cand.name} - {base.name}")
        difference = paired_difference(diff_desc, confidence)
    else:
        difference = welch_difference(base, cand, confidence)
    difference = _in_data_units(difference, scale)

    ratio = None
    ratio_note = None
    if base.mean > 0 and not math.isfinite(cand.mean / base.mean):
        ratio_note = (f"the ratio of means ({cand.mean / scale:.6g} / {base.mean / scale:.6g}) is "
                      "beyond what a float can hold, so only the difference is reported")
    elif base.mean > 0:
        ratio = _ratio(base, cand, confidence, spec.df_rule, cov,
                       (base_x, cand_x) if paired else None)
    else:
        ratio_note = (f"the baseline mean of {base.name} is {base.mean / scale:.6g}: a ratio "
                      "needs a positive baseline mean, so only the difference is reported")

    if ratio is None:
        why = ("the baseline mean is not positive" if base.mean <= 0
               else "the ratio is beyond a float's range")
        verdict = verdict_from_difference(difference, base.name, cand.name, threshold, unit,
                                           why)
    else:
        outcome = classify(ratio.low, ratio.high, threshold)
        more = None
        if outcome == "inconclusive":
            # from the variance under no change (d = c - b), never the observed effect
            paired_var = float(np.var(cand_x - base_x, ddof=1)) if paired else None
            more = advice(base.mean, base.variance, base.n, cand.variance, cand.n,
                          confidence, threshold, paired_var)
        above = ratio.estimate > 1.0
        direction = ("increase" if above else "decrease") if outcome == "change" else None
        text = verdict_sentence(outcome, base.name, cand.name, ratio.estimate, ratio.low,
                                ratio.high, threshold, confidence, unit, more, noun)
        verdict = Verdict(outcome, text, threshold, direction,
                          outcome == "change" and unit.is_regression(above), more)

    boot: list[BootstrapInterval] = []
    rng = np.random.default_rng(spec.seed)
    for name in spec.statistic.bootstraps(spec.bootstrap):
        denominator = getattr(base, name)  # Descriptives keeps .mean and .median
        if denominator > 0:
            boot.append(bootstrap_ratio(base_x, cand_x, name,
                                        replicates=spec.headline_replicates,
                                        confidence=confidence, seed=spec.seed, paired=paired,
                                        rng=rng))
    headline = None
    if spec.statistic.resamples:
        headline = _median_headline(boot, base, scale)
        verdict = median_verdict(headline, base.name, cand.name, threshold, confidence, unit,
                                 noun)

    found = []
    if paired:
        from benchlab.stats import classic_tests as ct

        found.append(ct.wilcoxon_signed_rank(cand_x - base_x, confidence))
        if spec.tests:  # independent-sample tests do not apply; normality of the differences does
            shapiro = ct.shapiro_wilk(cand_x - base_x, f"{cand.name} - {base.name}")
            if shapiro is not None:
                found.append(shapiro)
    elif spec.tests:
        from benchlab.stats import classic_tests as ct
        from benchlab.stats.difference import student_difference

        found.append(student_difference(base, cand, confidence))
        found.append(ct.mann_whitney(base_x, cand_x, confidence))
        found.append(ct.kolmogorov_smirnov(base_x, cand_x))
        found.append(ct.f_test(base, cand, confidence))
    return Comparison(base.name, cand.name, paired, ratio, difference, verdict, tuple(boot),
                      tuple(_in_data_units(t, scale) for t in found), ratio_note, headline)




def _median_headline(boot: list[BootstrapInterval], base: Descriptives,
                     scale: float) -> BootstrapInterval:
    found = next((b for b in boot if statistic_of(b) is MEDIAN), None)
    if found is None:
        raise InputError(f"the baseline median of {base.name} is {base.median / scale:.6g}: "
                         "a ratio of medians needs a positive baseline median")
    return found


def median_verdict(b: BootstrapInterval, base: str, cand: str, threshold: float,
                   confidence: float, unit: Unit, noun: str = "measurements") -> Verdict:
    """The verdict on the ratio of medians and its bootstrap percentile CI (STATS.md §4 table).

    Percentile, not BCa: BCa's acceleration comes from the jackknife, which is not
    consistent for the median (Efron & Tibshirani 1993, §11.6), and the hierarchical
    bootstrap has no BCa. No advice: the detectable change is a statement about means.
    """
    outcome = classify(b.low, b.high, threshold)
    above = b.estimate > 1.0
    direction = ("increase" if above else "decrease") if outcome == "change" else None
    text = verdict_sentence(outcome, base, cand, b.estimate, b.low, b.high, threshold,
                            confidence, unit, None, noun)
    kind = "hierarchical bootstrap" if b.hierarchical else "bootstrap"
    text += f" [ratio of medians, {kind} percentile CI, B = {b.replicates}]"
    return Verdict(outcome, text, threshold, direction,
                   outcome == "change" and unit.is_regression(above))


def _few_for_median(counts: list[tuple[str, int]], noun: str) -> list[Diagnostic]:
    """The warning for a median headline on fewer than 5 values (or top-level units)."""
    few = [(name, n) for name, n in counts if n < FEW_FOR_MEDIAN]
    if not few:
        return []
    named = ", ".join(f"{name} has {n}" for name, n in few)
    return [Diagnostic("statistic", f"the ratio of medians rests on fewer than "
                       f"{FEW_FOR_MEDIAN} {noun} per sample ({named}): its bootstrap CI can "
                       "show a large change but cannot show that there is none, and may "
                       "be narrower than it should (prefer the ratio of means)")]


def _mean_check(c: Comparison, base_x: np.ndarray, cand_x: np.ndarray, confidence: float,
                what: str = "") -> list[Diagnostic]:
    """The one warning line when the mean-based verdict may mislead (stats/mean_checks)."""
    if c.ratio is None:
        return []
    median = next(((b.low, b.high) for b in c.bootstrap if statistic_of(b) is MEDIAN),
                  None)
    if c.paired:
        rank_name = "Wilcoxon signed-rank"
        rank_p = next((t.pvalue for t in c.tests if getattr(t, "name", "") == rank_name), None)
        skews = [(f"{c.candidate} - {c.baseline}", skewness(cand_x - base_x))]
    else:
        rank_name = "Mann-Whitney"
        rank_p = rank_sum_pvalue(base_x, cand_x)
        skews = [(c.baseline, skewness(base_x)), (c.candidate, skewness(cand_x))]
    able = rank_test_can_reject(cand_x.size, base_x.size, 1.0 - confidence, c.paired)
    text = mean_warning(mean_low=c.ratio.low, mean_high=c.ratio.high, rank_p=rank_p,
                        rank_name=rank_name, median=median, skews=skews,
                        confidence=confidence, what=what, rank_can_reject=able)
    return [Diagnostic("statistic", text)] if text else []


# Tests whose estimate and CI are in the data's unit (a location shift); the others'
# statistics are invariant under rescaling the data.
_SHIFT_ESTIMATES = ("Mann-Whitney U", "Wilcoxon signed-rank")


def _in_data_units(result, scale: float):
    """A difference of means or a shift estimate computed on data × `scale`, unscaled."""
    if scale == 1.0:
        return result
    if isinstance(result, MeanDifference):
        return replace(result, estimate=result.estimate / scale, low=result.low / scale,
                       high=result.high / scale)
    if getattr(result, "name", None) in _SHIFT_ESTIMATES:
        return replace(result, **{k: getattr(result, k) / scale for k in ("estimate", "low", "high")
                                  if getattr(result, k) is not None})
    return result


def _unscaled(d: Descriptives, scale: float) -> Descriptives:
    if scale == 1.0:
        return d
    return replace(d, mean=d.mean / scale, median=d.median / scale, stddev=d.stddev / scale,
                   min=d.min / scale, max=d.max / scale, q1=d.q1 / scale, q3=d.q3 / scale)


LARGEST = 1e300  # beyond this a spread or a sum of squares cannot be represented

# Said once per output when a verdict is inconclusive: honest advice on what to do next.
OPTIONAL_STOPPING = ("an inconclusive result: adding measurements to this experiment until a "
                     "result appears inflates false alarms; plan a new experiment of the size "
                     "given instead (benchlab plan)")


def advice_note(comparisons) -> list[Diagnostic]:
    """The one note against optional stopping, when any verdict is inconclusive."""
    if any(c.verdict.outcome == "inconclusive" and c.verdict.advice is not None
           for c in comparisons):
        return [Diagnostic("advice", OPTIONAL_STOPPING)]
    return []


def compare_samples(samples: list[tuple[str, np.ndarray]], spec: AnalysisSpec | None = None,
                    *, baseline: int = 0, unit: Unit | None = None,
                    noun: str = "measurements", advise: bool = True,
                    **options: Any) -> CompareResult:
    """Compare every sample with samples[baseline] as `spec` says — or the defaults with
    `options`, AnalysisSpec's fields as keywords (confidence=0.99, paired=True, ...).

    `advise` adds the note against adding data to an inconclusive experiment (suites
    say it once for all benchmarks). The headline is the spec's statistic: the ratio
    of means (Fieller) or of medians (bootstrap percentile CI, B =
    spec.headline_replicates). With the mean and diagnostics, one warning per
    comparison where the rank test, the medians or strong skew disagree with it
    (stats/mean_checks.py)."""
    spec = AnalysisSpec.of(spec, **options)
    if len(samples) < 2:
        raise InputError("compare needs at least two samples")
    unit = unit or make_unit(None)
    if spec.resamples:
        spec = spec.with_seed()  # drawn now and reported: even an unseeded run reproduces
    paired = spec.paired
    arrays = []
    for name, values in samples:
        x = np.asarray(values, dtype=float)
        if x.ndim != 1:
            raise InputError(f"sample {name} is not one-dimensional")
        if not np.all(np.isfinite(x)):
            raise InputError(f"sample {name} has a NaN or infinite value")
        if x.size < 2:
            raise InputError(f"sample {name} has {x.size} value{'s' if x.size != 1 else ''}; "
                             "at least 2 are needed for a spread")
        peak = float(np.max(np.abs(x)))
        if peak > LARGEST:
            raise InputError(f"sample {name} has a value of magnitude {peak:.3g}; benchlab "
                             f"computes with magnitudes up to {LARGEST:g} (change the unit)")
        arrays.append(x)
    # One exact power-of-two scale for every sample: ratios are unchanged, and variances of
    # values near 1e-300 or 1e300 neither underflow nor overflow.
    scale = power_of_two_scale(*arrays)
    scaled = [x * scale for x in arrays] if scale != 1.0 else arrays
    described_scaled = tuple(describe(x, name)
                             for (name, _), x in zip(samples, scaled, strict=True))
    described = tuple(_unscaled(d, scale) for d in described_scaled)
    found: list[Diagnostic] = []
    if spec.diagnostics:
        for d, x in zip(described, arrays, strict=True):
            found.extend(diagnose(x, d.name, unit))
    if spec.resamples:  # every interval keeps its sorted replicates
        check_kept(len(samples) - 1, len(spec.statistic.bootstraps(spec.bootstrap)),
                   spec.headline_replicates, 4)
    comparisons = tuple(
        compare_pair(scaled[baseline], scaled[i], described_scaled[baseline],
                     described_scaled[i], spec, unit=unit, noun=noun, scale=scale)
        for i in range(len(samples)) if i != baseline)
    if spec.tests and not paired:
        from benchlab.stats.classic_tests import shapiro_wilk

        extra = [shapiro_wilk(x, d.name) for d, x in zip(described, scaled, strict=True)]
        comparisons = tuple(
            replace(c, tests=c.tests + tuple(t for t in extra if t is not None))
            for c in comparisons)
    if spec.statistic.resamples:
        found.extend(_few_for_median([(d.name, d.n) for d in described], "values"))
    elif spec.diagnostics:
        others = [i for i in range(len(samples)) if i != baseline]
        for i, c in zip(others, comparisons, strict=True):
            found.extend(_mean_check(c, scaled[baseline], scaled[i], spec.confidence))
    if advise:
        found.extend(advice_note(comparisons))
    return CompareResult(spec.confidence, spec.threshold, spec.df_rule, spec.seed, unit,
                         described, tuple(found), comparisons,
                         statistic=spec.statistic.name, analysis=spec)


def compare_hierarchical(samples: list[tuple[str, np.ndarray, list[np.ndarray]]],
                         level_names: list[str], spec: AnalysisSpec | None = None, *,
                         baseline: int = 0, unit: Unit | None = None,
                         ordered: Sequence[bool] | None = None, advise: bool = True,
                         **options: Any) -> CompareResult:
    """Compare systems measured as a hierarchy (STATS.md §5), as `spec` (or the defaults
    with `options`, AnalysisSpec's fields) says; its levels are `level_names`.

    Only the top-level unit means carry the uncertainty of a system's mean, so
    the ratio CI is Fieller's on those means; the bootstrap resamples every
    level (or as spec.resample says: R/N per level, or "flat"). `resample` in the
    result is the spec the bootstrap used, None when no bootstrap ran.
    Without spec.diagnostics, skips the per-execution data checks (warm-up,
    autocorrelation, drift); warnings about the method (structures differ, few
    top-level units, unbalanced data) stay. ordered[i] False: sample i's
    measurements within their lowest unit keep no time order (see
    diagnose_hierarchy). With the median, the verdict rests on the hierarchical
    bootstrap of the ratio of medians (percentile; B = spec.headline_replicates).
    """
    from benchlab.stats.hierarchical_bootstrap import build_tree, hierarchical_bootstrap_ratios
    from benchlab.stats.hierarchy import summarize
    from benchlab.stats.hierarchy_diagnostics import diagnose_hierarchy

    spec = AnalysisSpec.of(spec, **options, levels=tuple(level_names))
    confidence, threshold = spec.confidence, spec.threshold
    summaries = [summarize(x, levels, level_names, name=name, confidence=confidence)
                 for name, x, levels in samples]
    if spec.resamples:
        spec = spec.with_seed()
    # Fieller on the top-level means: no bootstrap there (the hierarchy's is below)
    top = compare_samples([(h.name, h.top_means) for h in summaries],
                          replace(spec, statistic="mean", bootstrap=None, diagnostics=False,
                                  levels=None, resample=None),
                          baseline=baseline, unit=unit, noun=f"{level_names[0]} units")
    top_name = level_names[0]
    comparisons = []
    # Bootstrap ratios do not change when every value is multiplied by one power of two,
    # and their variances then neither overflow nor underflow (stats/scaling.py).
    scale = power_of_two_scale(*[x for _, x, _ in samples])
    resampled = spec.resamples
    wanted = spec.statistic.bootstraps(spec.bootstrap)
    trees = [build_tree(x * scale, levels) for _, x, levels in samples] if resampled else []
    if resampled:  # every interval keeps its sorted replicates
        check_kept(len(samples) - 1, len(wanted), spec.headline_replicates, 8 * len(wanted))
    for c in top.comparisons:
        i = next(j for j, h in enumerate(summaries) if h.name == c.candidate)
        ratio = c.ratio
        if ratio is not None:
            ratio = replace(ratio, method=ratio.method.replace("Fieller (",
                                                               f"Fieller on {top_name} means ("))
        boot = []
        if resampled:  # means and medians from one set of draws (None: baseline not > 0)
            found_boot = hierarchical_bootstrap_ratios(
                trees[baseline], trees[i], wanted, spec=spec.resample,
                replicates=spec.headline_replicates, confidence=confidence, seed=spec.seed)
            boot = [b for b in found_boot.values() if b is not None]
        difference = replace(c.difference, method=f"{c.difference.method} on {top_name} means")
        c = replace(c, ratio=ratio, difference=difference, bootstrap=tuple(boot))
        if spec.statistic.resamples:
            base_desc = describe(samples[baseline][1] * scale, summaries[baseline].name)
            headline = _median_headline(boot, base_desc, scale)
            c = replace(c, headline=headline, verdict=median_verdict(
                headline, c.baseline, c.candidate, threshold, confidence, top.unit,
                "measurements"))
        comparisons.append(c)
    described = tuple(_unscaled(describe(x * scale, name), scale) for name, x, _ in samples)
    found: list[Diagnostic] = []
    in_order = list(ordered) if ordered is not None else [True] * len(samples)
    # Unordered measurements are sampled operations (JMH sample mode), whose count per unit
    # varies by design: only the levels above them make a structure.
    depth = None if all(in_order) else -1
    shapes = {h.name: tuple(round(c.repetitions, 3) for c in h.components[:depth])
              for h in summaries}
    if len(set(shapes.values())) > 1:
        text = "; ".join(f"{n}: {' x '.join(f'{r:g}' for r in shape)}"
                         for n, shape in shapes.items())
        found.append(Diagnostic("structure", f"the systems' level structures differ ({text}); "
                                "each is analysed as it is (Fieller on its own top-level "
                                "means, the bootstrap resamples its own units)"))
    for (name, x, levels), h, keeps_order in zip(samples, summaries, in_order, strict=True):
        if spec.diagnostics:
            found.extend(diagnose_hierarchy(x * scale, levels, name, ordered=keeps_order))
        found.extend(Diagnostic("hierarchy", w) for w in h.warnings)
    if spec.statistic.resamples:
        found.extend(_few_for_median([(h.name, h.top_units) for h in summaries],
                                     f"{top_name} units"))
    elif spec.diagnostics:  # on the top-level means, which the mean's verdict rests on
        base_top = summaries[baseline].top_means
        for c in comparisons:
            cand_top = next(h.top_means for h in summaries if h.name == c.candidate)
            found.extend(_mean_check(c, base_top, cand_top, confidence, f"{top_name} means"))
    if advise:
        found.extend(advice_note(comparisons))
    used = spec.resampling(len(level_names)) if resampled else None
    return CompareResult(confidence, threshold, spec.df_rule, spec.seed, top.unit, described,
                         tuple(found), tuple(comparisons), tuple(summaries), used,
                         spec.statistic.name, spec)
