"""A suite of benchmarks: per-benchmark comparisons, the geometric mean of the ratios with a
bootstrap CI, and Holm-adjusted decisions across benchmarks (issue: hierarchy, item 3).

The geometric mean of per-benchmark ratios summarizes a suite without letting
long benchmarks dominate; its CI comes from resampling each benchmark's data
within itself (hierarchically when the data have levels), and Holm's step-down
procedure controls the family-wise error of calling benchmarks changed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from benchlab.stats.bootstrap import _mean_replicates, interval_from_replicates
from benchlab.stats.compare import CompareResult, compare_hierarchical, compare_samples


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


@dataclass(frozen=True)
class SuiteResult:
    """One CompareResult per benchmark, the geometric means, and Holm-adjusted p-values.

    holm: for each (benchmark, candidate) the difference's p-value adjusted by
    Holm across benchmarks (per candidate), and whether it stays below α.
    """

    benchmarks: tuple[tuple[str, CompareResult], ...]
    geometric_means: tuple[GeometricMean, ...]
    holm: tuple[tuple[str, str, float, float, bool], ...]
    confidence: float


def holm_adjust(pvalues: list[float]) -> list[float]:
    """Holm's step-down adjusted p-values (monotone, capped at 1)."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def compare_suite(data: dict[str, list[tuple[str, np.ndarray, list[np.ndarray]]]],
                  level_names: list[str], *, baseline: str, confidence: float = 0.95,
                  threshold: float = 0.0, df_method: str = "welch", unit=None,
                  replicates: int = 10_000, resample: str | None = None,
                  seed: int | None = None, tests: bool = False) -> SuiteResult:
    """Compare the systems of every benchmark; data maps benchmark → [(system, values, levels)]."""
    from benchlab.stats.hierarchical_bootstrap import build_tree, hierarchical_replicates

    if seed is None:
        seed = int(np.random.SeedSequence().entropy % 2**32)
    results: list[tuple[str, CompareResult]] = []
    log_reps: dict[str, list[np.ndarray]] = {}
    log_est: dict[str, list[float]] = {}
    streams = np.random.SeedSequence(seed).spawn(len(data))
    for (bench, systems), stream in zip(data.items(), streams, strict=True):
        names = [s[0] for s in systems]
        if baseline not in names:
            from benchlab.errors import InputError

            raise InputError(f"benchmark {bench!r} has no {baseline!r} (it has "
                             f"{', '.join(names)}); every benchmark needs the baseline")
        b = names.index(baseline)
        if level_names:
            res = compare_hierarchical(systems, level_names, baseline=b, confidence=confidence,
                                       threshold=threshold, df_method=df_method, unit=unit,
                                       seed=seed, tests=tests)
        else:
            res = compare_samples([(n, x) for n, x, _ in systems], baseline=b,
                                  confidence=confidence, threshold=threshold,
                                  df_method=df_method, unit=unit, seed=seed, tests=tests)
        results.append((bench, res))
        # Bootstrap each system's mean within this benchmark, one stream per system.
        rngs = [np.random.default_rng(s) for s in stream.spawn(len(systems))]
        reps = []
        for (_, x, levels), rng in zip(systems, rngs, strict=True):
            if level_names:
                spec = resample if resample not in (None, "flat") else None
                tree = build_tree(x, levels)
                reps.append(hierarchical_replicates(tree, spec or "R" * (len(levels) + 1),
                                                    replicates, rng))
            else:
                reps.append(_mean_replicates(np.asarray(x, dtype=float), replicates, rng))
        for i, (name, _, _) in enumerate(systems):
            if i == b:
                continue
            c = next(c for c in res.comparisons if c.candidate == name)
            if c.ratio is None or np.any(reps[b] <= 0):
                continue
            log_reps.setdefault(name, []).append(np.log(reps[i] / reps[b]))
            log_est.setdefault(name, []).append(math.log(c.ratio.estimate))
    geo = []
    for name, logs in log_reps.items():
        mean_log = np.mean(np.vstack(logs), axis=0)
        low, high = interval_from_replicates(np.exp(mean_log), confidence)
        geo.append(GeometricMean(name, math.exp(float(np.mean(log_est[name]))), low, high,
                                 len(logs), replicates, seed, confidence))
    holm = []
    alpha = 1.0 - confidence
    candidates = {c.candidate for _, r in results for c in r.comparisons}
    for name in sorted(candidates):
        rows = [(bench, c.difference.pvalue) for bench, r in results for c in r.comparisons
                if c.candidate == name]
        adjusted = holm_adjust([p for _, p in rows])
        holm += [(bench, name, p, q, q < alpha)
                 for (bench, p), q in zip(rows, adjusted, strict=True)]
    return SuiteResult(tuple(results), tuple(geo), tuple(holm), confidence)
