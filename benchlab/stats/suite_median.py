"""A suite decided on medians: per benchmark the ratio of medians with its bootstrap
percentile CI, family-wise by Holm's step-down on bootstrap test inversion.

`compare --statistic median` makes the ratio of medians (candidate/baseline) the
headline of one comparison (stats/compare.py, median_verdict); a suite gives every
benchmark that headline — the same bootstrap, seed and B — and decides its verdicts
family-wise as the mean path does (stats/suite.py), with the bootstrap in the place
of Fieller's pivot:

- Test inversion. With the B replicate ratios r* of one benchmark and a point ρ0 its
  claim must exclude (1, the nearer edge of ±threshold, or both edges for
  equivalence, as stats/suite_family.claim_test says), k = #{r* ≤ ρ0}, j = #{r* ≥ ρ0} and
  p(ρ0) = min(1, 2·(min(k, j) + 1)/(B + 1)): the Monte Carlo p-value of the two-sided
  percentile test, the +1 keeping it above 0 (Davison & Hinkley 1997, §4.2.2 and
  §4.4.1). The +1 does not make the percentile interval accurate: the test is as
  good as the bootstrap distribution is in the tail Holm reads (measured without
  levels at n = 20 values per system in validation/suite_median_familywise.py and
  validation/suite_noise_models.py).
- The interval at level 1 − a is the set of ratios that test does not reject,
  {ρ : p(ρ) > a} = [r*_(q), r*_(B+1−q)] (order statistics, 1-based) with
  q = floor(a·(B + 1)/2): the percentile interval with Davison & Hinkley's (B + 1)
  rule (§5.2.1). So ρ0 lies outside it exactly when p(ρ0) ≤ a, and q = 0 (B too
  small for the level) leaves it unbounded. At the suite's 95% it can differ from
  the single comparison's headline (STATS.md §5's floor(B·α/2) rule) by one order
  statistic; the headline stays in each benchmark's JSON comparison. The replicates
  are the ones compare_samples drew for the headline (kept in its
  BootstrapInterval.ordered), not drawn again; of each benchmark the suite keeps only
  the tails that intervals at its confidence and above read (stats/suite_memory.py).
- Holm's step-down (stats/suite_family.holm_levels) over the benchmarks of each candidate
  gives each benchmark its level; its verdict is classify() of that interval, so the
  verdict and the interval printed beside it always agree. adjust="none" reads every
  benchmark at the suite's confidence.

With levels the bootstrap above is not used for the verdicts: resampling 5 builds per
system is far too narrow at Holm's levels (A/A suites of 20 benchmarks tripped in
20–30% of runs, validation/suite_noise_models.py). Each benchmark's claim is then
Welch's t on the log medians of its top-level units, with the interval
exp(d ± t·se) at its Holm level
(stats/suite_median_units.py says why and what was measured); the bootstrap headline
stays in each benchmark's comparison.

The geometric mean of the median ratios gets its CI as the mean path's does: each
system of each benchmark resampled on its own stream (hierarchically with levels),
the replicate log-ratios averaged over benchmarks, the percentile interval taken.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from benchlab.notation import fmt_level
from benchlab.stats.bootstrap import (
    BootstrapInterval,
    SortedReplicates,
    interval_from_replicates,
    mean_replicates,
    median_replicates,
)
from benchlab.stats.compare import CompareResult, Comparison, median_verdict
from benchlab.stats.scaling import power_of_two_scale
from benchlab.stats.suite_family import Decision, claim_test, decide_families
from benchlab.stats.suite_median_units import UnitMedianTest
from benchlab.stats.verdict import Verdict, classify, verdict_sentence


def inversion_pvalue(ratios: np.ndarray, rho: float) -> float:
    """p(ρ) = min(1, 2·(min(#{r* ≤ ρ}, #{r* ≥ ρ}) + 1)/(B + 1)) from sorted replicates.

    The smallest α at which interval_at(ratios, 1 − α) excludes ρ (module text).
    """
    b = ratios.size
    below = int(np.searchsorted(ratios, rho, side="right"))  # #{r* <= rho}
    above = b - int(np.searchsorted(ratios, rho, side="left"))  # #{r* >= rho}
    return min(1.0, 2.0 * (min(below, above) + 1) / (b + 1))


def interval_at(ratios: np.ndarray | SortedReplicates,
                level: float) -> tuple[float | None, float | None]:
    """The (B + 1)-rule percentile interval at `level`: [r*_(q), r*_(B+1−q)], q =
    floor(a(B + 1)/2), a = 1 − level (Davison & Hinkley §5.2.1); (None, None) when q = 0.

    Sorted ratios; the set of ratios ρ with inversion_pvalue(ρ) > a.
    """
    b = ratios.size
    q = math.floor(round((1.0 - level) * (b + 1) / 2, 9))  # round: 0.05·10001/2 in floats
    if q < 1:
        return None, None
    return float(ratios[q - 1]), float(ratios[b - q])


def claim_pvalue(ratios: np.ndarray, estimate: float, threshold: float) -> tuple[str, float]:
    """The benchmark's one claim and its p-value, as the mean path chooses it
    (stats/suite_family.claim_test), with the bootstrap test in place of Fieller's pivot."""
    return claim_test(estimate, threshold, lambda rho: inversion_pvalue(ratios, rho))


def flat_median_ratios(base_x: np.ndarray, cand_x: np.ndarray, *, replicates: int,
                       seed: int, means_first: bool) -> np.ndarray:
    """The sorted replicate ratios of medians behind compare_pair's median headline.

    compare_pair draws from one default_rng(seed) per comparison: the ratio of means
    first when `bootstrap` was asked for (and the baseline mean is positive), then the
    baseline's medians and the candidate's (stats/bootstrap.bootstrap_ratio). The same
    draws here give the same replicates. compare_suite does not draw them again (it reads
    the headline's kept replicates, BootstrapInterval.ordered); this is the reference the
    tests and validation/ check those against.
    """
    rng = np.random.default_rng(seed)
    if means_first and float(np.mean(base_x)) > 0:
        mean_replicates(base_x, replicates, rng)  # advance the stream as compare_pair did
        mean_replicates(cand_x, replicates, rng)
    base = median_replicates(base_x, replicates, rng)
    cand = median_replicates(cand_x, replicates, rng)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.sort(cand / base)


def hierarchical_median_ratios(base: tuple[np.ndarray, list[np.ndarray]],
                               cand: tuple[np.ndarray, list[np.ndarray]], *,
                               replicates: int, seed: int, spec: str | None) -> np.ndarray:
    """The sorted replicate ratios of medians behind compare_hierarchical's median headline.

    hierarchical_bootstrap_ratios draws each system from one of two streams spawned
    from `seed`; the medians are the same whatever other statistic shares the draws
    (joint_replicates), so drawing the medians alone gives the headline's replicates; the
    two systems are drawn in two threads, as there.
    """
    from concurrent.futures import ThreadPoolExecutor

    from benchlab.stats.hierarchical_bootstrap import build_tree, flat_tree, joint_replicates

    scale = power_of_two_scale(base[0], cand[0])
    trees = [build_tree(np.asarray(x, dtype=float) * scale, levels) for x, levels in (base, cand)]
    rngs = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2)]
    if spec == "flat":
        trees, specs = [flat_tree(t.values) for t in trees], ["RN", "RN"]
    else:
        specs = [spec or "R" * (len(t.counts) + 1) for t in trees]
    with ThreadPoolExecutor(max_workers=2) as pool:  # numpy releases the GIL in its draws
        jobs = [pool.submit(joint_replicates, t, s, replicates, rng, ("median",))
                for t, s, rng in zip(trees, specs, rngs, strict=True)]
        reps = [job.result()["median"][0] for job in jobs]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.sort(reps[1] / reps[0])


@dataclass(frozen=True)
class MedianPending:
    """One comparison of a median suite waiting for its family-wise decision."""

    benchmark: str
    result: CompareResult
    comparison: Comparison
    ratios: np.ndarray | SortedReplicates | None  # sorted replicate ratios of medians (the
    # headline's), or their tails
    test: str
    pvalue: float
    units: UnitMedianTest | None = None  # with levels: the test on the unit medians


def pending(bench: str, res: CompareResult, ratios: dict[str, np.ndarray],
            units: dict[str, UnitMedianTest] | None = None) -> list[MedianPending]:
    """The comparisons of one benchmark, each with its claim's p-value: the bootstrap
    test's (ratios maps each candidate to the sorted replicates of its headline, which
    they must give), or with `units` (levels) the unit-median test's."""
    out = []
    for c in res.comparisons:
        if units is not None:
            u = units[c.candidate]
            test, p = claim_test(u.estimate, res.threshold, u.pvalue)
            out.append(MedianPending(bench, res, c, None, test, p, u))
            continue
        r, head = ratios[c.candidate], c.headline
        if head is None or (head.low, head.high) != interval_from_replicates(r, res.confidence):
            raise RuntimeError(f"benchmark {bench!r}: the replicates of {c.candidate}'s ratio "
                               "of medians do not give its headline interval")
        test, p = claim_pvalue(r, head.estimate, res.threshold)
        out.append(MedianPending(bench, res, c, r, test, p))
    return out


def decide(item: MedianPending, level: float, adjusted: float, m: int | None,
           noun: str) -> tuple[Comparison, Decision]:
    """The comparison with its verdict read from the (B + 1)-rule interval at `level`, and
    its Decision (m None: decided alone, adjust="none")."""
    c, res = item.comparison, item.result
    if item.units is not None:
        return _decide_units(item, item.units, level, adjusted, m, noun)
    head: BootstrapInterval = c.headline
    low, high = interval_at(item.ratios, level)
    at = replace(head, low=low, high=high, confidence=level)
    verdict = median_verdict(at, c.baseline, c.candidate, res.threshold, level, res.unit,
                             noun)
    if m is not None:
        verdict = replace(verdict, text=verdict.text + f"; family-wise {fmt_level(res.confidence)}"
                          f" over {m} benchmarks (Holm)")
    alone = interval_at(item.ratios, res.confidence)
    decision = Decision(item.benchmark, c.candidate, item.test, item.pvalue, adjusted, level,
                        "ratio", head.estimate, low, high, verdict.outcome,
                        classify(alone[0], alone[1], res.threshold), "median")
    return replace(c, verdict=verdict), decision


def _decide_units(item: MedianPending, test: UnitMedianTest, level: float, adjusted: float,
                  m: int | None, noun: str) -> tuple[Comparison, Decision]:
    """decide() with levels: the verdict read from the unit-median test's interval at
    `level` (stats/suite_median_units.py)."""
    c, res = item.comparison, item.result
    low, high = test.interval(level)
    outcome = classify(low, high, res.threshold)
    above = test.estimate > 1.0
    text = verdict_sentence(outcome, c.baseline, c.candidate, test.estimate, low, high,
                            res.threshold, level, res.unit, None, noun)
    if test.refused:
        text += (f" [ratio of the {noun}' medians: refused, a system has "
                 f"{min(test.units)} {noun[:-1] if noun.endswith('s') else noun}; Welch's t "
                 "on their log medians needs at least 2 per system]")
    elif test.exact:
        splits = math.comb(sum(test.units), test.units[1])
        text += (f" [geometric mean of the {noun}' medians, Welch t on their logs, p from "
                 f"all {splits} splits of the {noun} (permutation)]")
    else:
        text += (f" [geometric mean of the {noun}' medians, Welch t on their logs, df = "
                 f"{test.df:.3g}]")
    if m is not None:
        text += f"; family-wise {100 * res.confidence:g}% over {m} benchmarks (Holm)"
    verdict = Verdict(outcome, text, res.threshold,
                      ("increase" if above else "decrease") if outcome == "change" else None,
                      outcome == "change" and res.unit.is_regression(above))
    alone = test.interval(res.confidence)
    decision = Decision(item.benchmark, c.candidate, item.test, item.pvalue, adjusted, level,
                        "ratio", test.estimate, low, high, outcome,
                        classify(alone[0], alone[1], res.threshold), "median")
    return replace(c, verdict=verdict), decision


def family_decisions(results: list[tuple[str, CompareResult]],
                     waiting: list[MedianPending], *, confidence: float,
                     adjust: str = "holm", noun: str = "measurements"
                     ) -> tuple[list[tuple[str, CompareResult]], list[Decision]]:
    """Every benchmark's median verdict decided family-wise per candidate (module text).

    waiting: each comparison's MedianPending (pending()): its claim's p-value and what
    its interval at another level is read from — the sorted replicate ratios of medians
    of its headline (their tails suffice from `confidence` up), or with levels the test
    on the top-level units' medians. Returns the results with each comparison's verdict
    replaced by the one read from the interval at its Holm level (at `confidence` with
    adjust="none") and one Decision per (benchmark, candidate), in the order of
    `results`.
    """
    return decide_families(
        results, waiting, lambda item, level, q, m: decide(item, level, q, m, noun),
        confidence=confidence, adjust=adjust)


def median_geomean_replicates(systems: list, spec: str | None, replicates: int,
                              stream: np.random.SeedSequence) -> list[np.ndarray]:
    """Per system of one benchmark, `replicates` bootstrap medians on its own stream (as
    the mean path's geometric mean draws its means): hierarchical with a spec, else the
    measurements resampled. systems: [(name, values, levels)]."""
    from benchlab.stats.hierarchical_bootstrap import build_tree, hierarchical_replicates

    rngs = [np.random.default_rng(s) for s in stream.spawn(len(systems))]
    out = []
    for (_, x, levels), rng in zip(systems, rngs, strict=True):
        x = np.asarray(x, dtype=float)
        if spec is not None and spec != "flat":
            out.append(hierarchical_replicates(build_tree(x, levels), spec, replicates, rng,
                                               "median"))
        else:
            out.append(median_replicates(x, replicates, rng))
    return out
