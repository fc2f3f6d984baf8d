"""A suite of benchmarks: per-benchmark comparisons, the geometric mean of the ratios with a
bootstrap CI, and Holm-adjusted decisions across benchmarks (issue: hierarchy, item 3).

The geometric mean of per-benchmark ratios summarizes a suite without letting
long benchmarks dominate; its CI comes from resampling each benchmark's data
within itself (hierarchically when the data have levels), and Holm's step-down
procedure controls the family-wise error of calling benchmarks changed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from benchlab.errors import InputError
from benchlab.result import Result
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
class SuiteResult(Result):
    """One CompareResult per benchmark, the geometric means, and Holm-adjusted p-values.

    holm: for each (benchmark, candidate) the difference's p-value adjusted by
    Holm across benchmarks (per candidate), and whether it stays below α.
    resample: how the geometric mean's bootstrap resampled each benchmark's
    data (R/N per level, or "flat"); None without levels (measurements resampled).
    skipped: the benchmarks (and systems) left out, with the reason, as warnings.
    notes: what the caller says about the data (e.g. units converted), shown with them.
    """

    benchmarks: tuple[tuple[str, CompareResult], ...]
    geometric_means: tuple[GeometricMean, ...]
    holm: tuple[tuple[str, str, float, float, bool], ...]
    confidence: float
    resample: str | None = None
    seed: int | None = None
    skipped: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


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
                  level_names: list[str], *, baseline: str, confidence: float = 0.95,
                  threshold: float = 0.0, df_method: str = "welch", unit=None,
                  replicates: int = 10_000, resample: str | None = None,
                  seed: int | None = None, tests: bool = False, bootstrap: int | None = None,
                  diagnostics: bool = True,
                  ordered: Mapping[str, bool] | None = None,
                  paired: bool = False) -> SuiteResult:
    """Compare the systems of every benchmark; data maps benchmark → [(system, values, levels)].

    replicates: B of the geometric mean's bootstrap (always run); bootstrap: B
    of each benchmark's own bootstrap CIs (None: none); resample: R/N per level
    or "flat", for both. Benchmarks a system lacks are skipped for it (see
    SuiteResult.skipped); an InputError when no benchmark is left. paired (without
    levels): the systems' values of a benchmark are paired by position (blocks of a
    run, stats/blocks.py), compared as compare_samples(paired=True) compares them.
    """
    from benchlab.stats.hierarchical_bootstrap import build_tree, hierarchical_replicates

    if seed is None:
        seed = int(np.random.SeedSequence().entropy % 2**32)
    ordered = ordered or {}
    all_systems = list(dict.fromkeys(s[0] for systems in data.values() for s in systems))
    results: list[tuple[str, CompareResult]] = []
    log_reps: dict[str, list[np.ndarray]] = {}
    log_est: dict[str, list[float]] = {}
    skipped: list[str] = []
    spec = None
    if level_names:
        spec = resample.upper() if resample and resample.lower() != "flat" else (
            "flat" if resample else "R" * (len(level_names) + 1))
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
                    systems, level_names, baseline=b, confidence=confidence,
                    threshold=threshold, df_method=df_method, unit=unit, bootstrap=bootstrap,
                    resample=spec if resample else None, seed=seed, tests=tests,
                    diagnostics=diagnostics,
                    ordered=[ordered.get(n, True) for n in names], advise=False)
            else:
                res = compare_samples([(n, x) for n, x, _ in systems], baseline=b,
                                      confidence=confidence, threshold=threshold,
                                      df_method=df_method, unit=unit, bootstrap=bootstrap,
                                      seed=seed, tests=tests, diagnostics=diagnostics,
                                      advise=False, paired=paired)
        except InputError as exc:  # keep the kind and its details; say which benchmark
            exc.message = f"benchmark {bench!r}: {exc.message}"
            raise
        results.append((bench, res))
        # Bootstrap each system's mean within this benchmark, one stream per system.
        rngs = [np.random.default_rng(s) for s in stream.spawn(len(systems))]
        if paired:  # one stream for all: the same indices, so pairs are resampled whole
            rngs = [np.random.default_rng(stream) for _ in systems]
        reps = []
        for (_, x, levels), rng in zip(systems, rngs, strict=True):
            if spec is not None and spec != "flat":
                reps.append(hierarchical_replicates(build_tree(x, levels), spec, replicates,
                                                    rng))
            else:  # no levels, or flat: the measurements pooled, as if independent
                reps.append(_mean_replicates(np.asarray(x, dtype=float), replicates, rng))
        for i, (name, _, _) in enumerate(systems):
            if i == b:
                continue
            c = next(c for c in res.comparisons if c.candidate == name)
            if c.ratio is None or np.any(reps[b] <= 0):
                continue
            log_reps.setdefault(name, []).append(np.log(reps[i] / reps[b]))
            log_est.setdefault(name, []).append(math.log(c.ratio.estimate))
    if not results:
        raise InputError("no benchmark can be compared: " + "; ".join(skipped))
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
    from benchlab.stats.compare import advice_note

    said = advice_note([c for _, r in results for c in r.comparisons])
    return SuiteResult(tuple(results), tuple(geo), tuple(holm), confidence, spec, seed,
                       tuple(skipped), tuple(d.message for d in said))
