"""Hierarchical bootstrap of a ratio of means or medians (STATS.md §5).

Resampling with replacement at every level (RRR…, the default), only at some
levels (R/N per level, highest first, e.g. RNN resamples builds only), or FLAT
(ignore the hierarchy — offered to show how much too narrow that is).

Written by hand (no library resamples nested units): each replicate block is
a padded array of slots, one axis per level, so a chunk of replicates is drawn
with a few vectorized calls; padding and a mask handle unbalanced data, where
each unit resamples its own children and means weight units equally.

Besides the percentile interval, the ratio of means gets the studentized
(bootstrap-t) interval (Davison & Hinkley 1997, §5.2.1): each replicate also
yields the standard error of its grand mean from its top-level unit means
(Kalibera & Jones: the top level carries the variance of the grand mean), and
the pivot (log r* − log r̂) / se*(log r) replaces the percentile's assumption
that the replicate spread is the sampling spread, which fails with few
top-level units (validation/hierarchy_coverage.py).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from benchlab import limits, progress
from benchlab.stats.bootstrap import (
    STATISTICS,
    BootstrapInterval,
    RankMedian,
    SortedReplicates,
    interval_from_replicates,
)
from benchlab.stats.hierarchy import nested_codes
from benchlab.stats.spec import DEFAULT_REPLICATES
from benchlab.stats.spec import statistic as statistic_of_name

# Replicates are drawn in chunks of about _CHUNK_ELEMENTS slots (the chunk size fixes
# which numbers of the stream go to which replicate: keep it, or every seeded interval
# changes); balanced trees draw and use the deepest level in sub-blocks of about
# _SUB_ELEMENTS slots, in buffers reused across sub-blocks. Measured (10 x 10 x 100,
# B = 10,000, both systems in two threads): 50,000 slots 1.82 s CPU, 100,000 1.52 s,
# 200,000 1.38 s: smaller blocks pay per numpy call (GIL hand-offs between the threads)
# more than they gain in cache.
_CHUNK_ELEMENTS = 200_000
_SUB_ELEMENTS = 200_000


@dataclass(frozen=True)
class Tree:
    """Units of every depth with contiguous children: start/count per unit, values sorted."""

    values: np.ndarray
    starts: tuple[np.ndarray, ...]  # per depth d < k+1: first child (depth d+1) of each unit
    counts: tuple[np.ndarray, ...]
    top_units: int

    @property
    def balanced(self) -> bool:
        return all(np.all(c == c[0]) for c in self.counts)

    def unit_means(self, depth: int) -> np.ndarray:
        """Means of the units at `depth` (0 = top; the last depth is the measurements)."""
        means = self.values
        for d in range(len(self.counts) - 1, depth - 1, -1):
            start, count = self.starts[d], self.counts[d]
            sums = np.add.reduceat(means, start) if means.size else means
            means = sums / count
        return means

    @property
    def slots(self) -> int:
        """Measurements in one (padded) replicate."""
        total = self.top_units
        for c in self.counts:
            total *= int(c.max())
        return total


def build_tree(values: np.ndarray, levels: list[np.ndarray]) -> Tree:
    """Sort measurements by their nested units and index each unit's children."""
    codes = nested_codes(levels)
    order = np.lexsort(tuple(reversed(codes)))
    x = np.asarray(values, dtype=float)[order]
    codes = [c[order] for c in codes]
    starts, counts = [], []
    # children of depth-d units are the depth-(d+1) units; measurements are the last depth.
    for d in range(len(codes)):
        child_codes = codes[d + 1] if d + 1 < len(codes) else np.arange(x.size)
        # first row of each child unit, in sorted order
        _, first_rows = np.unique(child_codes, return_index=True)
        first_rows = np.sort(first_rows)
        parent_of_child = codes[d][first_rows]
        n_parent = int(codes[d].max()) + 1
        count = np.bincount(parent_of_child, minlength=n_parent)
        start = np.concatenate([[0], np.cumsum(count)[:-1]])
        starts.append(start)
        counts.append(count)
    return Tree(x, tuple(starts), tuple(counts), int(codes[0].max()) + 1)


def _draw(counts: np.ndarray, shape: tuple[int, ...], resample: bool,
          rng: np.random.Generator, balanced: bool) -> np.ndarray:
    """Child positions per slot: uniform within each parent's own count, or 0..count−1."""
    width = shape[-1]
    if not resample:
        return np.broadcast_to(np.arange(width), shape)
    if balanced:
        return rng.integers(0, width, size=shape, dtype=np.int32)
    return (rng.random(shape) * counts[..., None]).astype(np.int64)


def _balanced_block(tree: Tree, spec: str, b: int, rng: np.random.Generator,
                    statistics: tuple[str, ...], median_of: _Median | None
                    ) -> dict[str, tuple[np.ndarray, np.ndarray | None]]:
    """Balanced trees: a unit's id at depth d is parent·width_d + position, so no gathers.

    For the mean, levels below the last resampled one are replaced by their unit
    means (resampling nothing below a unit leaves its mean as it is). Levels kept
    as they are ("N") draw no random numbers, so the ids of the mean's last level
    are a prefix of the median's: both statistics come from one set of draws, the
    same draws each would get alone from the same stream.

    The deepest level (every slot: the bulk of the draws) is drawn and used in
    sub-blocks of about _SUB_ELEMENTS slots, its ids, gathered values and ranks in
    buffers reused from one sub-block to the next (a new 1.6 MB array each time
    costs page faults); the levels above it are drawn for the whole chunk. Positions below the
    top level are drawn as int16 where the width allows (half the random bits of
    int32: numpy's bounded int16 draws take two from each 32-bit word, measured
    1.6x faster); the top level keeps int32 draws, the same as the flat bootstrap
    of the top-level means (RN…N resamples exactly those).
    Which draws go to which replicate depends only on the tree's shape, the spec
    and B, never on the statistics asked for.
    """
    widths = [tree.top_units] + [int(c[0]) for c in tree.counts]
    full = len(widths) - 1
    stop_mean = full
    while stop_mean > 0 and spec[stop_mean] == "N":
        stop_mean -= 1
    stop = full if "median" in statistics else stop_mean
    dtype = np.int32 if tree.values.size < 2**31 else np.int64
    if spec[0] == "R":
        ids = rng.integers(0, widths[0], size=(b, widths[0]), dtype=dtype)
    else:
        ids = np.broadcast_to(np.arange(widths[0], dtype=dtype), (b, widths[0]))
    means = np.empty(b) if "mean" in statistics else None
    se2 = np.empty(b) if widths[0] > 1 else None
    for d in range(0, min(stop, full - 1) + 1):
        if d > 0:
            ids = _descend(ids, widths[d], spec[d] == "R", rng, dtype)
        if d == stop_mean and means is not None:
            _top_means(tree, d, ids, means, se2, 0)
    medians = np.empty(b) if "median" in statistics else None
    if stop == full and full > 0:
        rows = max(1, _SUB_ELEMENTS // tree.slots)
        for begin in range(0, b, rows):
            end = min(b, begin + rows)
            sub = _descend(ids[begin:end], widths[full], spec[full] == "R", rng, dtype,
                           reuse=True)
            if stop_mean == full and means is not None:
                _top_means(tree, full, sub, means, se2, begin)
            if medians is not None:
                medians[begin:end] = (median_of or _Median(tree.values))(
                    sub.reshape(end - begin, -1))
    elif medians is not None:  # one level: the top-level units are the measurements
        medians[:] = (median_of or _Median(tree.values))(ids.reshape(b, -1))
    out: dict[str, tuple[np.ndarray, np.ndarray | None]] = {}
    if means is not None:
        out["mean"] = (means, se2)
    if medians is not None:
        out["median"] = (medians, None)
    return out


def _draw_positions(rng: np.random.Generator, width: int, shape: tuple[int, ...],
                    dtype: type) -> np.ndarray:
    """Uniform positions 0..width−1, drawn as int16 when width allows (fewer random bits)."""
    return rng.integers(0, width, size=shape, dtype=np.int16 if width <= 2**15 else dtype)


def _descend(ids: np.ndarray, width: int, resample: bool, rng: np.random.Generator,
             dtype: type, reuse: bool = False) -> np.ndarray:
    """Ids one level down (parent·width + position): each unit's `width` children,
    drawn with replacement or all of them. reuse: written to this thread's reused
    buffer (valid until the next reuse), not to a new array."""
    base = ids[..., None] * dtype(width)
    shape = base.shape[:-1] + (width,)
    out = _scratch("ids", shape, dtype) if reuse else None
    if resample:
        return np.add(_draw_positions(rng, width, shape, dtype), base, dtype=dtype, out=out)
    return np.add(base, np.arange(width, dtype=dtype), out=out)


_SCRATCH = threading.local()


def _scratch(name: str, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    """A reused buffer of this thread (grown as needed): the sub-blocks' large arrays
    without an allocation each (in worker threads glibc maps and unmaps them: measured
    about 0.1 s of system time per call)."""
    size = math.prod(shape)
    held = getattr(_SCRATCH, name, None)
    if held is None or held.dtype != dtype or held.size < size:
        held = np.empty(size, dtype=dtype)
        setattr(_SCRATCH, name, held)
    return held[:size].reshape(shape)


def _top_means(tree: Tree, depth: int, ids: np.ndarray, means: np.ndarray,
               se2: np.ndarray | None, begin: int) -> None:
    """Fill means[begin:…] with these replicates' grand means from their depth-`depth`
    units (all units of a balanced level weigh the same) and se2[begin:…] with the SE²
    of each grand mean from its top-level unit means; in sub-blocks of about
    _SUB_ELEMENTS units, so that the gathered values stay in cache."""
    b, top = ids.shape[0], ids.shape[1]
    unit_means = tree.unit_means(depth)
    rows = max(1, _SUB_ELEMENTS // max(ids[0].size, 1))
    for lo in range(0, b, rows):
        hi = min(b, lo + rows)
        part = ids[lo:hi].reshape(hi - lo, -1)
        values = np.take(unit_means, part, mode="clip",
                         out=_scratch("values", part.shape, np.float64))
        per_top = values.reshape(hi - lo, top, -1).sum(axis=2)
        per_top /= values.shape[1] // top
        means[begin + lo:begin + hi] = per_top.sum(axis=1) / top
        if se2 is not None:
            se2[begin + lo:begin + hi] = _squared_se(per_top)


class _Median(RankMedian):
    """Row medians from index rows via small-integer ranks, gathered into a reused buffer.

    The same medians as RankMedian (the k-th smallest rank and, for an even count,
    the next), faster: np.take with mode="clip" writes straight to the buffer
    (mode="raise" buffers `out`), and with fewer than 2^16 values the uint16 ranks
    are sorted in place by numpy's radix sort (kind="stable" on 16-bit integers:
    two counting passes), measured 1.5x faster than partitioning them; more values
    keep the in-place partition of int32 ranks.
    """

    def __init__(self, x: np.ndarray) -> None:
        super().__init__(x)
        self.radix = x.size <= 2**16
        if self.radix:
            self.rank = self.rank.astype(np.uint16)
        self.sorted = x[self.order]
        self._buffer = np.empty(0, dtype=self.rank.dtype)

    def __call__(self, idx: np.ndarray) -> np.ndarray:
        rows, n = idx.shape
        if self._buffer.size < idx.size:
            self._buffer = np.empty(idx.size, dtype=self.rank.dtype)
        ranks = self._buffer[:idx.size].reshape(rows, n)
        np.take(self.rank, idx, out=ranks, mode="clip")
        k = (n - 1) // 2
        if self.radix:
            ranks.sort(axis=1, kind="stable")
            high_rank = ranks[:, min(k + 1, n - 1)]
        else:
            ranks.partition(k, axis=1)
            high_rank = ranks[:, k + 1:].min(axis=1) if n % 2 == 0 else ranks[:, k]
        low = self.sorted[ranks[:, k]]
        if n % 2:
            return low
        return 0.5 * (low + self.sorted[high_rank])

    def masked(self, idx: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Row medians of the entries of idx where mask is True (rows of unequal counts).

        The unbalanced tree's rows: masked-out entries get a rank above every value, the
        rows' ranks are sorted, and each row's middle ranks sit at (k − 1) // 2 and k // 2
        of its own count k. The same values as np.nanmedian on the masked floats, which
        was 10-20x slower (it sorts floats with NaN per row).
        """
        rows = idx.shape[0]
        big = self.rank.size  # above every rank: sorts after the row's own entries
        fits = big <= np.iinfo(self.rank.dtype).max
        ranks = self.rank[idx].astype(self.rank.dtype if fits else np.int64).reshape(rows, -1)
        ranks[~mask.reshape(rows, -1)] = big
        kind = "stable" if ranks.dtype.itemsize <= 2 else None  # radix sort for 16 bits
        ranks.sort(axis=1, kind=kind)
        count = mask.reshape(rows, -1).sum(axis=1)
        at = np.arange(rows)
        low = self.sorted[ranks[at, (count - 1) // 2]]
        high = self.sorted[ranks[at, count // 2]]
        return 0.5 * (low + high)


def _squared_se(top: np.ndarray) -> np.ndarray | None:
    """Per replicate, var(top-level unit means) / their number: the grand mean's SE²."""
    n = top.shape[-1]
    return top.var(axis=-1, ddof=1) / n if n > 1 else None


def _replicate_block(tree: Tree, spec: str, b: int, rng: np.random.Generator,
                     statistics: tuple[str, ...], median_of: Callable | None = None
                     ) -> dict[str, tuple[np.ndarray, np.ndarray | None]]:
    """Per statistic, B replicate values and, for the mean, each replicate's SE² of the
    grand mean; every statistic from the same draws."""
    balanced = tree.balanced
    if balanced:
        return _balanced_block(tree, spec, b, rng, statistics, median_of)
    n_top = tree.top_units
    if spec[0] == "R":
        slots = rng.integers(0, n_top, size=(b, n_top), dtype=np.int32).astype(np.int64)
    else:
        slots = np.broadcast_to(np.arange(n_top), (b, n_top))
    mask = np.ones(slots.shape, dtype=bool)
    for d, (start, count) in enumerate(zip(tree.starts, tree.counts, strict=True)):
        width = int(count.max())
        c = count[slots]
        pos = _draw(c, (*slots.shape, width), spec[d + 1] == "R", rng, balanced)
        mask = mask[..., None] & (np.arange(width) < c[..., None])
        slots = np.where(mask, start[slots][..., None] + pos, 0)
    out: dict[str, tuple[np.ndarray, np.ndarray | None]] = {}
    if "median" in statistics:
        out["median"] = ((median_of or _Median(tree.values)).masked(slots, mask), None)
    if "mean" in statistics:
        x = tree.values[slots]
        # Means of means, bottom up, each unit weighted equally.
        x = np.where(mask, x, 0.0)
        m = mask.astype(float)
        for _ in range(len(tree.counts)):
            n = m.sum(axis=-1)
            x = np.divide(x.sum(axis=-1), n, out=np.zeros_like(n), where=n > 0)
            m = (n > 0).astype(float)
        out["mean"] = (x.mean(axis=-1), _squared_se(x))
    return out


def hierarchical_replicates(tree: Tree, spec: str, replicates: int, rng: np.random.Generator,
                            statistic: str = "mean", *, with_se: bool = False,
                            advance: Callable[[int], None] = progress.nothing
                            ) -> np.ndarray | tuple[np.ndarray, np.ndarray | None]:
    """B replicate statistics, drawn in chunks that bound memory.

    with_se: also each replicate's SE² of the grand mean from its top-level
    unit means (None for the median or a single top-level unit). Only the
    statistics are kept (two arrays of B floats); a chunk's slots are
    bounded by _CHUNK_ELEMENTS (or one replicate's slots, if larger).
    advance(k) is called after each chunk of k replicates (progress).
    """
    reps, se2 = joint_replicates(tree, spec, replicates, rng, (statistic,), advance)[statistic]
    return (reps, se2) if with_se else reps


def joint_replicates(tree: Tree, spec: str, replicates: int, rng: np.random.Generator,
                     statistics: tuple[str, ...] = STATISTICS,
                     advance: Callable[[int], None] = progress.nothing
                     ) -> dict[str, tuple[np.ndarray, np.ndarray | None]]:
    """Per statistic, B replicate values and (mean) SE²s, every statistic from one set of
    draws: the values each statistic would get alone from the same `rng` state (levels
    kept as they are draw no random numbers), at the cost of one set of draws."""
    if len(spec) != len(tree.counts) + 1 or set(spec) - {"R", "N"}:
        raise ValueError(f"resampling spec {spec!r} needs one R or N per level "
                         f"({len(tree.counts) + 1} levels)")
    if set(statistics) - set(STATISTICS):
        raise ValueError(f"statistic must be one of {STATISTICS}")
    rows = max(1, _CHUNK_ELEMENTS // max(tree.slots, 1))
    # One rank table per call, not per chunk (an argsort of the data each time).
    median_of = _Median(tree.values) if "median" in statistics else None
    out = {s: np.empty(replicates) for s in statistics}
    se2: dict[str, np.ndarray | None] = {s: np.empty(replicates) for s in statistics}
    for begin in range(0, replicates, rows):
        end = min(replicates, begin + rows)
        block = _replicate_block(tree, spec, end - begin, rng, statistics, median_of)
        for s in statistics:
            out[s][begin:end], block_se2 = block[s]
            held = se2[s]
            if block_se2 is None:
                se2[s] = None
            elif held is not None:
                held[begin:end] = block_se2
        advance(end - begin)
    return {s: (out[s], se2[s]) for s in statistics}


def studentized_ratio_interval(estimate: float, se_log: float, cand_reps: np.ndarray,
                               base_reps: np.ndarray, cand_se2: np.ndarray,
                               base_se2: np.ndarray, confidence: float
                               ) -> tuple[float | None, float | None]:
    """Bootstrap-t interval of a ratio of means, on the log scale (Davison & Hinkley §5.2.1).

    T* = (log r* − log r̂) / se*, se² = se²_c/ȳ_c² + se²_b/ȳ_b² (delta method);
    the bounds are r̂ · exp(−T*_(hi) se) and r̂ · exp(−T*_(lo) se) with the
    order statistics of STATS.md §5. An infinite T* at a bound (a replicate
    without spread) leaves that bound None (unbounded).
    """
    from benchlab.stats.bootstrap import percentile_indices

    with np.errstate(divide="ignore", invalid="ignore"):
        log_r = np.log(cand_reps / base_reps)
        se = np.sqrt(cand_se2 / cand_reps**2 + base_se2 / base_reps**2)
        t = (log_r - math.log(estimate)) / se
    t = np.where(np.isnan(t) & (log_r == math.log(estimate)), 0.0, t)
    if np.isnan(t).any():
        return None, None
    ordered = np.sort(t)
    alpha = 1.0 - confidence
    lo, hi = percentile_indices(ordered.size, alpha / 2, 1 - alpha / 2)
    t_lo, t_hi = ordered[lo], ordered[hi]
    low = estimate * math.exp(-t_hi * se_log) if np.isfinite(t_hi) else None
    high = estimate * math.exp(-t_lo * se_log) if np.isfinite(t_lo) else None
    return low, high


def flat_tree(values: np.ndarray) -> Tree:
    """A one-level tree: every measurement a top-level unit (the FLAT bootstrap)."""
    x = np.asarray(values, dtype=float)
    return Tree(x, (np.arange(x.size),), (np.ones(x.size, dtype=np.int64),), x.size)


def hierarchical_bootstrap_ratio(base: Tree, cand: Tree, statistic: str = "mean", *,
                                 spec: str | None = None, replicates: int = DEFAULT_REPLICATES,
                                 confidence: float = 0.95,
                                 seed: int | None = None) -> BootstrapInterval:
    """Percentile (and for means studentized) CI of statistic(candidate)/statistic(baseline).

    spec: "R"/"N" per level, highest first (default all "R"); "flat" pools the
    measurements and resamples them as if independent. BCa is not offered for
    nested data (its jackknife is undefined across levels), so bca_* are None;
    the studentized interval needs the top level resampled, two or more
    top-level units per system and positive means. The two systems draw from
    two streams spawned from `seed` and run in two threads (numpy releases the
    GIL in its draws and gathers). ValueError when the baseline's statistic is
    not positive.
    """
    found = hierarchical_bootstrap_ratios(base, cand, (statistic,), spec=spec,
                                          replicates=replicates, confidence=confidence,
                                          seed=seed)[statistic]
    if found is None:
        raise ValueError(f"the baseline {statistic} must be positive for a ratio")
    return found


def hierarchical_bootstrap_ratios(base: Tree, cand: Tree,
                                  statistics: tuple[str, ...] = STATISTICS, *,
                                  spec: str | None = None, replicates: int = DEFAULT_REPLICATES,
                                  confidence: float = 0.95, seed: int | None = None
                                  ) -> dict[str, BootstrapInterval | None]:
    """hierarchical_bootstrap_ratio for several statistics from one set of draws.

    Each interval is the one hierarchical_bootstrap_ratio gives for its statistic
    with the same seed (the draws do not depend on the statistic), at the cost of
    one set of draws instead of one per statistic (the means and medians of
    `compare --levels ... --bootstrap`). None for a statistic whose baseline
    value is not positive (no ratio to resample).
    """
    from concurrent.futures import ThreadPoolExecutor

    base_rng, cand_rng = (np.random.default_rng(s)
                          for s in np.random.SeedSequence(seed).spawn(2))
    if spec == "flat":
        base, cand, spec_b = flat_tree(base.values), flat_tree(cand.values), "RN"
        spec_c = spec_b
    else:
        spec_b = spec or "R" * (len(base.counts) + 1)
        spec_c = spec or "R" * (len(cand.counts) + 1)
    observed_b = _observed(base, statistics)
    wanted = tuple(s for s in statistics if observed_b[s][0] > 0)
    found: dict[str, BootstrapInterval | None] = dict.fromkeys(statistics)
    if not wanted:
        return found
    # Per system and statistic B values and B SE²s; then ratios, their sort, the t's.
    limits.check_memory(8 * 8 * replicates * len(wanted),
                        f"{replicates:,} bootstrap replicates", "lower {param} ",
                        "bootstrap")
    label = " and ".join(f"{s}s" for s in wanted)
    with (progress.task(f"hierarchical bootstrap, ratio of {label}", 2 * replicates)
          as advance, ThreadPoolExecutor(max_workers=2) as pool):
        base_job = pool.submit(joint_replicates, base, spec_b, replicates, base_rng, wanted,
                               advance)
        cand_job = pool.submit(joint_replicates, cand, spec_c, replicates, cand_rng, wanted,
                               advance)
        base_reps, cand_reps = base_job.result(), cand_job.result()
    observed_c = _observed(cand, wanted)
    for s in wanted:
        found[s] = _interval(s, observed_b[s], observed_c[s], base_reps[s], cand_reps[s],
                             spec, spec_b, spec_c, base, cand, replicates, confidence, seed)
    return found


def _interval(statistic: str, observed_b: tuple[float, float], observed_c: tuple[float, float],
              base: tuple[np.ndarray, np.ndarray | None],
              cand: tuple[np.ndarray, np.ndarray | None], spec: str | None, spec_b: str,
              spec_c: str, base_tree: Tree, cand_tree: Tree, replicates: int,
              confidence: float, seed: int | None) -> BootstrapInterval:
    """One statistic's percentile (and, for the mean, studentized) interval and note."""
    (base_reps, base_se2), (cand_reps, cand_se2) = base, cand
    (stat_b, se2_b), (stat_c, se2_c) = observed_b, observed_c
    studentize = (statistic_of_name(statistic).studentized and spec != "flat"
                  and spec_b[0] == spec_c[0] == "R"
                  and min(base_tree.top_units, cand_tree.top_units) > 1)
    estimate = stat_c / stat_b
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = np.sort(cand_reps / base_reps)
    low, high = interval_from_replicates(ratios, confidence)  # sorting sorted ratios: the same
    student: tuple[float | None, float | None] = (None, None)
    if (studentize and stat_c > 0 and base_se2 is not None and cand_se2 is not None
            and np.all(base_reps > 0) and np.all(cand_reps > 0)):
        se_log = math.sqrt(se2_b / stat_b**2 + se2_c / stat_c**2)
        student = studentized_ratio_interval(estimate, se_log, cand_reps, base_reps,
                                             cand_se2, base_se2, confidence)
    note = f"hierarchical bootstrap, resampling {spec or 'R' * (len(base_tree.counts) + 1)}"
    if spec == "flat":
        note = "flat bootstrap: ignores the hierarchy, so its interval is too narrow"
    elif min(base_tree.top_units, cand_tree.top_units) < 10:
        # validation/hierarchy_coverage.py: 89-94% coverage with 3-5 top-level units.
        better = "the studentized interval or Fieller's" if studentize else "Fieller's"
        note += (f"; fewer than 10 top-level units: the percentile interval runs too narrow "
                 f"(prefer {better})")
    return BootstrapInterval(statistic, estimate, low, high, None, None, confidence,
                             replicates, seed, note, studentized_low=student[0],
                             studentized_high=student[1], hierarchical=spec != "flat",
                             ordered=SortedReplicates(ratios))


def _observed(tree: Tree, statistics: tuple[str, ...]) -> dict[str, tuple[float, float]]:
    """The data's statistics and, for the mean, its SE² from the top-level unit means."""
    spec = "N" * (len(tree.counts) + 1)
    block = _replicate_block(tree, spec, 1, np.random.default_rng(0), statistics)
    return {s: (float(stat[0]), float(se2[0]) if se2 is not None else math.nan)
            for s, (stat, se2) in block.items()}
