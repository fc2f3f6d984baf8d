"""Warm-up and steady state of each execution: change points by PELT, Barrett et al.'s classes.

Barrett, Bolz-Tereick, Killick, Mount and Tratt, "Virtual machine warmup blows
hot and cold" (OOPSLA 2017), §4, and Traini et al. (EMSE 2022) classify each
execution (one process: its in-process iterations in measurement order) by a
change-point segmentation of its iteration times:

- outliers are set aside first (`outlier_mask`): a value more than
  `OUTLIER_MADS` scaled MADs from the running medians of the `OUTLIER_WINDOW`
  values before it and after it (Barrett et al. also set outliers aside before
  segmenting, with a window of 200 iterations);
- change points in mean and variance by PELT (`pelt`; Killick, Fearnhead and
  Eckley 2012) with the normal likelihood cost, m·log(σ̂²) for a segment of m
  values with maximum-likelihood variance σ̂² (plus a floor, below), and the
  penalty `PENALTY_FACTOR`·log n per change point (Barrett et al.'s 15·log n);
- the steady state is the last segment, extended backwards over the
  contiguous segments equivalent to it (`equivalent`); it must cover at least
  the last `steady_fraction` of the execution (default 1/6: Barrett and Traini
  ask for the last 500 of 3,000 iterations; the fraction keeps that share at
  any length, 333 of 2,000, 50 of 300), else the class is `no steady state`;
- `flat` when every segment is equivalent to the steady one (steady_start 0),
  else `warm-up` when the segment before the steady state is worse (slower, or
  lower throughput for higher-is-better metrics) and `slowdown` when it is
  better.

Two segments are equivalent unless the Fieller interval (STATS.md §3) of the
ratio of their means, at `confidence`, lies wholly outside the band
[1/(1+threshold), 1+threshold]: a difference must be both clear and larger than
the threshold (Kalibera & Jones's practical-significance idea, with the
segments as the samples) to end a steady state.

Speed: PELT's pruning removes candidates only before a change, so a long flat
stretch costs O(n²) segment evaluations; change points are therefore searched
on a grid of `jump` iterations (ruptures' `jump`), jump = ceil(n / GRID), which
keeps 3,000 iterations to 600 grid points (a resolution of 0.17% of the
length). Segment costs come from cumulative sums in O(1) each, vectorized over
the candidates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from benchlab.result import Result
from benchlab.stats.warmup_defaults import (
    MIN_ITERATIONS,
    PENALTY_FACTOR,
    STEADY_FRACTION,
    THRESHOLD,
)

GRID = 600  # at most this many candidate change points per execution
OUTLIER_WINDOW = 101  # each side, the value itself included: Barrett et al.'s 200
OUTLIER_EDGE = 10
OUTLIER_MADS = 8.0
CLASSES = ("flat", "warm-up", "slowdown", "no steady state")
BENCHMARK_CLASSES = ("consistent", "inconsistent", "no steady state")


def pelt(values, penalty: float, *, min_size: int = 2, jump: int = 1,
         floor: float | None = None) -> tuple[int, ...]:
    """The change points (0-based starts of every segment but the first) that minimise the
    summed normal costs m·log(σ̂² + floor) plus `penalty` per segment, over breakpoints on
    the grid of multiples of `jump` (and n), each segment at least `min_size` long.

    The same optimum as ruptures' Pelt(model="normal", min_size, jump) when `floor` is
    1e-6 (its add_small_diag); by default the floor is 1e-6 of the series' variance, or
    the variance of rounding, q²/12 for the smallest step q between distinct values,
    whichever is larger, so runs of equal (quantized) values do not cost -inf."""
    y = np.asarray(values, dtype=float)
    n = y.size
    if n < 2 * min_size:
        return ()
    if floor is None:
        floor = default_floor(y)
    s1 = np.concatenate(([0.0], np.cumsum(y)))
    s2 = np.concatenate(([0.0], np.cumsum(y * y)))
    best = np.full(n + 1, np.nan)
    best[0] = 0.0
    last = np.zeros(n + 1, dtype=np.int64)
    grid = [k for k in range(0, n, jump) if k >= min_size] + [n]
    buffer = np.zeros(len(grid) + 1, dtype=np.int64)  # the live candidates, buffer[:live]
    live = 0
    for end in grid:
        newest = ((end - min_size) // jump) * jump
        if not math.isnan(best[newest]):
            buffer[live] = newest
            live += 1
        candidates = buffer[:live]
        m = end - candidates
        mean = (s1[end] - s1[candidates]) / m
        var = (s2[end] - s2[candidates]) / m - mean * mean
        total = best[candidates] + m * np.log(np.maximum(var, 0.0) + floor)
        j = int(total.argmin())
        best[end] = total[j] + penalty
        last[end] = candidates[j]
        kept = candidates[total <= best[end]]  # PELT's pruning (K = 0)
        live = kept.size
        buffer[:live] = kept
    points = []
    t = n
    while t > 0:
        t = int(last[t])
        if t > 0:
            points.append(t)
    return tuple(reversed(points))


def default_floor(y: np.ndarray) -> float:
    """The variance floor of a segment's cost: 1e-6 of the series' variance, or the
    variance of rounding to the data's resolution (q²/12), whichever is larger."""
    distinct = np.unique(y)
    steps = np.diff(distinct)
    q = float(steps.min()) if steps.size else 0.0
    floor = max(1e-6 * float(np.var(y)), q * q / 12.0)
    return floor if floor > 0 else 1e-300


def outlier_mask(values) -> np.ndarray:
    """True for the values kept. A value is an outlier when it lies more than OUTLIER_MADS
    scaled MADs (of the residuals from the running medians, over the whole execution) from
    the median of the OUTLIER_WINDOW values before it and from that of the values after it
    (each including itself): a spike is far from both, while the first values after a
    step are near those after them. A window at an end of the execution is widened to its
    first (or last) OUTLIER_EDGE values, so a step in the last iterations stays a step."""
    from scipy.ndimage import median_filter

    y = np.asarray(values, dtype=float)
    w = min(OUTLIER_WINDOW, y.size if y.size % 2 else y.size - 1)  # odd: one middle value
    full = median_filter(y, size=w, mode="nearest")[w // 2:y.size - w // 2]  # y[i:i + w]
    edge = min(OUTLIER_EDGE, w)  # a window at an end holds at least this many values
    left = np.concatenate((prefix_medians(y, w - 1, edge), full))  # y[i - w + 1:i + 1]
    right = np.concatenate((full, prefix_medians(y[::-1], w - 1, edge)[::-1]))  # y[i:i + w]
    resid_left, resid_right = y - left, y - right
    both = np.concatenate((resid_left, resid_right))
    mad = 1.4826 * float(np.median(np.abs(both - np.median(both))))
    far_left = np.abs(resid_left) > OUTLIER_MADS * mad
    far_right = np.abs(resid_right) > OUTLIER_MADS * mad
    if mad == 0.0:  # more than half the residuals are 0: keep the values on the medians
        far_left, far_right = left != y, right != y
    return ~(far_left & far_right)


def prefix_medians(y: np.ndarray, count: int, edge: int) -> np.ndarray:
    """The medians of y[:max(k, edge)] for k = 1..count, from one growing sorted list."""
    from bisect import insort

    ordered: list[float] = []
    out = np.empty(count)
    for k in range(1, count + 1):
        while len(ordered) < max(k, edge):
            insort(ordered, float(y[len(ordered)]))
        h = len(ordered) // 2
        out[k - 1] = ordered[h] if len(ordered) % 2 else 0.5 * (ordered[h - 1] + ordered[h])
    return out


def differs(a: np.ndarray, b: np.ndarray, threshold: float, confidence: float) -> bool:
    """True when the Fieller interval of mean(a)/mean(b) lies wholly outside the band
    [1/(1+threshold), 1+threshold] (the segments' values taken as independent)."""
    from benchlab.stats.fieller import fieller_interval

    ma, mb = float(np.mean(a)), float(np.mean(b))
    if mb == 0.0:
        return ma != 0.0
    va = float(np.var(a, ddof=1)) / a.size if a.size > 1 else 0.0
    vb = float(np.var(b, ddof=1)) / b.size if b.size > 1 else 0.0
    df = max(min(a.size, b.size) - 1, 1)
    ci = fieller_interval(ma, mb, va, vb, 0.0, df, confidence)
    if not ci.bounded:
        return False  # an unbounded interval: nothing is clear
    return ci.low > 1.0 + threshold or ci.high < 1.0 / (1.0 + threshold)


@dataclass(frozen=True)
class ExecutionWarmup:
    """One execution's class and where its steady state starts (0-based iteration index,
    None without one); change points and outliers as iteration indices."""

    benchmark: str
    levels: tuple[tuple[str, str], ...]
    n: int
    kind: str
    steady_start: int | None
    change_points: tuple[int, ...]
    segment_means: tuple[float, ...]
    outliers: tuple[int, ...]
    steady_mean: float | None
    values: np.ndarray = field(repr=False, compare=False)

    @property
    def label(self) -> str:
        return ", ".join(f"{k} {v}" for k, v in self.levels)


@dataclass(frozen=True)
class BenchmarkWarmup:
    """A benchmark's executions together: consistent, inconsistent or no steady state."""

    benchmark: str
    kind: str
    counts: tuple[tuple[str, int], ...]
    reason: str
    steady_spread: float | None  # max/min - 1 of the executions' steady means


@dataclass(frozen=True)
class WarmupResult(Result):
    """Every execution's and every benchmark's class, with the settings that decided them."""

    executions: tuple[ExecutionWarmup, ...]
    benchmarks: tuple[BenchmarkWarmup, ...]
    level_names: tuple[str, ...]
    unit: str | None
    higher_is_better: bool
    penalty_factor: float
    steady_fraction: float
    threshold: float
    confidence: float
    notes: tuple[str, ...] = ()


def classify_execution(values, *, higher_is_better: bool = False,
                       penalty_factor: float = PENALTY_FACTOR,
                       steady_fraction: float = STEADY_FRACTION,
                       threshold: float = THRESHOLD, confidence: float = 0.95,
                       benchmark: str = "", levels: tuple[tuple[str, str], ...] = ()
                       ) -> ExecutionWarmup:
    """Classify one execution's iteration values (in measurement order); module docstring."""
    y = np.asarray(values, dtype=float)
    n = y.size
    if n < MIN_ITERATIONS:
        raise ValueError(f"an execution needs at least {MIN_ITERATIONS} iterations, "
                         f"this one has {n}")
    keep = outlier_mask(y)
    index = np.flatnonzero(keep)
    z = y[index]
    jump = max(1, math.ceil(z.size / GRID))
    cuts = pelt(z, penalty_factor * math.log(z.size), jump=jump)
    bounds = [0, *cuts, z.size]
    segs = [z[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    steady = segs[-1]
    first = len(segs) - 1  # the first segment of the steady state
    while first > 0 and not differs(segs[first - 1], steady, threshold, confidence):
        first -= 1
    start = int(index[bounds[first]]) if first > 0 else 0
    need = math.ceil(steady_fraction * n)
    points = tuple(int(index[c]) for c in cuts)
    means = tuple(float(np.mean(s)) for s in segs)
    outliers = tuple(int(i) for i in np.flatnonzero(~keep))
    last_start = int(index[bounds[-2]]) if len(bounds) > 2 else 0
    if n - last_start < need:  # Barrett et al.: the last segment must cover the last part
        return ExecutionWarmup(benchmark, levels, n, "no steady state", None, points, means,
                               outliers, None, y)
    steady_values = np.concatenate(segs[first:])
    steady_mean = float(np.mean(steady_values))
    if first == 0:
        kind = "flat"
    else:
        before = float(np.mean(segs[first - 1]))
        worse = before < steady_mean if higher_is_better else before > steady_mean
        kind = "warm-up" if worse else "slowdown"
    return ExecutionWarmup(benchmark, levels, n, kind, start, points, means, outliers,
                           steady_mean, y)


def classify_benchmark(benchmark: str, executions: list[ExecutionWarmup],
                       threshold: float = THRESHOLD) -> BenchmarkWarmup:
    """No steady state when an execution has none; consistent when every execution has the
    same class and their steady means are within the threshold of each other (max/min ≤
    1 + threshold); inconsistent otherwise."""
    counts = tuple((k, sum(e.kind == k for e in executions)) for k in CLASSES)
    counted = tuple((k, c) for k, c in counts if c)
    none = dict(counts)["no steady state"]
    if none:
        return BenchmarkWarmup(benchmark, "no steady state", counted,
                               f"{none} of {len(executions)} executions reach no steady state",
                               None)
    means = np.array([e.steady_mean for e in executions], dtype=float)
    low, high = float(means.min()), float(means.max())
    spread = high / low - 1.0 if low > 0 else math.inf
    if len(counted) > 1:
        return BenchmarkWarmup(benchmark, "inconsistent", counted,
                               "the executions' classes differ", spread)
    if spread > threshold:
        return BenchmarkWarmup(benchmark, "inconsistent", counted,
                               "the steady means differ by more than the threshold", spread)
    return BenchmarkWarmup(benchmark, "consistent", counted,
                           f"every execution is {counted[0][0]}, steady means within the "
                           "threshold", spread)


def analyse(executions: list[tuple[str, tuple[tuple[str, str], ...], np.ndarray]], *,
            level_names: tuple[str, ...], unit: str | None = None,
            higher_is_better: bool = False, penalty_factor: float = PENALTY_FACTOR,
            steady_fraction: float = STEADY_FRACTION, threshold: float = THRESHOLD,
            confidence: float = 0.95, notes: tuple[str, ...] = ()) -> WarmupResult:
    """Classify every (benchmark, levels, values) execution and each benchmark's set."""
    if not penalty_factor > 0:
        raise ValueError(f"penalty_factor must be positive: {penalty_factor}")
    if not 0 < steady_fraction < 1:
        raise ValueError(f"steady_fraction must be between 0 and 1: {steady_fraction}")
    if not 0 <= threshold < 1:
        raise ValueError(f"threshold must be between 0 and 1: {threshold}")
    done = [classify_execution(v, higher_is_better=higher_is_better,
                               penalty_factor=penalty_factor, steady_fraction=steady_fraction,
                               threshold=threshold, confidence=confidence, benchmark=b,
                               levels=lv)
            for b, lv, v in executions]
    order: dict[str, list[ExecutionWarmup]] = {}
    for e in done:
        order.setdefault(e.benchmark, []).append(e)
    benches = tuple(classify_benchmark(b, es, threshold) for b, es in order.items())
    return WarmupResult(tuple(done), benches, level_names, unit, higher_is_better,
                        penalty_factor, steady_fraction, threshold, confidence, notes)
