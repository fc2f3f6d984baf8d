"""Bootstrap CIs for the ratio of two samples' means or medians: percentile and BCa.

Written by hand rather than with scipy.stats.bootstrap because (a) the two
samples must be resampled independently, each within itself, (b) B × n index
matrices for B = 10,000 and n = 10,000 do not fit in memory at once, so the
replicates are drawn in chunks, and (c) the jackknife for BCa has closed forms
for means and medians, O(n) instead of O(n²). Percentile indices follow
STATS.md §5; BCa follows Efron & Tibshirani (1993, ch. 14).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from benchlab import limits, progress
from benchlab.stats.distributions import normal_cdf, normal_quantile
from benchlab.stats.spec import DEFAULT_REPLICATES, MEAN
from benchlab.stats.spec import STATISTICS as STRATEGIES
from benchlab.stats.spec import statistic as statistic_of_name

STATISTICS = tuple(STRATEGIES)  # the names, as stats/spec defines them
_CHUNK_ELEMENTS = 200_000  # indices per chunk: ~1.6 MB arrays stay in cache (20% faster than 4M)


@dataclass(frozen=True)
class BootstrapInterval:
    """Percentile and BCa intervals of one statistic's ratio (candidate / baseline).

    `bca_low`/`bca_high` are None when BCa is undefined (every replicate on one
    side of the estimate); `note` then says why. The hierarchical bootstrap has
    no BCa (`hierarchical` True) and gives, for the ratio of means, the
    studentized interval instead (`studentized_low`/`_high`; None where a
    bound is unbounded or the interval is not defined).
    """

    statistic: str
    estimate: float
    low: float
    high: float
    bca_low: float | None
    bca_high: float | None
    confidence: float
    replicates: int
    seed: int | None
    note: str | None = None
    studentized_low: float | None = None
    studentized_high: float | None = None
    hierarchical: bool = False
    # What .at() reads: the sorted replicate ratios (whole, or the tails a suite keeps) and
    # BCa's bias correction z0 and acceleration (None where BCa is undefined).
    ordered: SortedReplicates | None = field(default=None, compare=False, repr=False)
    bca_params: tuple[float, float] | None = field(default=None, compare=False, repr=False)

    def at(self, level: float) -> BootstrapInterval:
        """This interval at another confidence level, from the same replicates.

        The percentile interval by STATS.md §5's index rule and, where BCa is defined,
        BCa with the same z0 and acceleration (Efron & Tibshirani 1993, ch. 14); the
        studentized interval only at its own level (None at others). A ValueError when
        the replicates were not kept, or a suite kept only tails too short for `level`.
        """
        if level == self.confidence:
            return self
        if not 0.0 < level < 1.0:
            raise ValueError(f"level must lie between 0 and 1, not {level!r}")
        if self.ordered is None:
            raise ValueError("this interval kept no replicates to read another level from")
        b, alpha = self.ordered.size, 1.0 - level
        lo, hi = percentile_indices(b, alpha / 2, 1 - alpha / 2)
        bca_low = bca_high = None
        if self.bca_params is not None:
            i, j = _bca_indices(b, *self.bca_params, alpha)
            bca_low, bca_high = self.ordered[i], self.ordered[j]
        return replace(self, low=self.ordered[lo], high=self.ordered[hi], confidence=level,
                       bca_low=bca_low, bca_high=bca_high, studentized_low=None,
                       studentized_high=None)

    def trimmed(self, level: float) -> BootstrapInterval:
        """The same interval keeping only the replicates whose percentile intervals at
        `level` and above read (both index rules: STATS.md §5's and the (B + 1) rule of
        stats/suite_median.py): a few per cent of B instead of all of it."""
        if self.ordered is None:
            return self
        keep = tail_keep(self.ordered.size, level)
        return replace(self, ordered=self.ordered.tails(keep))


def check_kept(comparisons: int, statistics: int, replicates: int, per_call: int) -> None:
    """Refuse, before the first draw, comparisons whose intervals would not fit together:
    each keeps its B sorted replicates (BootstrapInterval.ordered, what .at reads), so
    `comparisons` × `statistics` arrays of B doubles stay, beside the `per_call` arrays
    one bootstrap call holds while it draws (4 flat, 8 per statistic hierarchical)."""
    limits.check_memory(8 * replicates * (comparisons * statistics + per_call),
                        f"{replicates:,} bootstrap replicates for {comparisons:,} "
                        f"comparison{'s' if comparisons != 1 else ''}", "lower {param} ",
                        "bootstrap")


def tail_keep(replicates: int, level: float) -> int:
    """Order statistics at each end that percentile intervals at `level` and above read:
    floor(Bα/2) + 1 covers STATS.md §5's indices and floor(α(B + 1)/2) the (B + 1) rule's."""
    return min(replicates, math.floor(round((1.0 - level) * replicates / 2, 9)) + 1)


def _bca_indices(b: int, z0: float, accel: float, alpha: float) -> tuple[int, int]:
    """Indices into B sorted replicates of BCa's interval at 1 − α (Efron & Tibshirani
    1993, eq. 14.10): the percentile levels Φ(z0 + (z0 + z)/(1 − a(z0 + z)))."""
    z_lo, z_hi = normal_quantile(alpha / 2), normal_quantile(1 - alpha / 2)
    a_lo = normal_cdf(z0 + (z0 + z_lo) / (1 - accel * (z0 + z_lo)))
    a_hi = normal_cdf(z0 + (z0 + z_hi) / (1 - accel * (z0 + z_hi)))
    return percentile_indices(b, a_lo, a_hi)


class SortedReplicates:
    """B sorted replicate values, whole or only their two tails.

    Percentile intervals read two order statistics, and at levels from some level up
    only order statistics within its tails: keeping `tails(k)` (the k smallest and
    the k largest) lets a suite hold what its family-wise intervals need of each
    benchmark's replicates, not all B (stats/suite_memory.py). `size` stays B;
    indexing a value that was not kept is a ValueError, never a wrong number.
    """

    __slots__ = ("_high", "_low", "size")

    def __init__(self, ordered: np.ndarray, keep: int | None = None) -> None:
        self.size = int(ordered.size)
        if keep is None or 2 * keep >= self.size:
            self._low, self._high = ordered, ordered[:0]
        else:
            self._low = ordered[:keep].copy()
            self._high = ordered[self.size - keep:].copy() if keep else ordered[:0].copy()

    @property
    def whole(self) -> bool:
        """Every replicate is kept."""
        return self._low.size == self.size

    def tails(self, keep: int) -> SortedReplicates:
        """The `keep` smallest and largest values only (all of them if that covers B)."""
        if self.whole:
            return SortedReplicates(self._low, keep)
        if keep > self._low.size:
            raise ValueError(f"only {self._low.size:,} values of each tail were kept")
        out = SortedReplicates(self._low[:0])
        out.size, out._low = self.size, self._low[:keep].copy()
        out._high = self._high[self._high.size - keep:].copy()
        return out

    @property
    def values(self) -> np.ndarray:
        """All B sorted values (a ValueError when only the tails were kept)."""
        if not self.whole:
            raise ValueError(f"only the {self._low.size:,} replicates at each end were kept")
        return self._low

    def __eq__(self, other: object) -> bool:
        """The same B and the same kept values (NaN equal to NaN: 0/0 replicates)."""
        if not isinstance(other, SortedReplicates):
            return NotImplemented
        return (self.size == other.size
                and np.array_equal(self._low, other._low, equal_nan=True)
                and np.array_equal(self._high, other._high, equal_nan=True))

    __hash__ = None  # type: ignore[assignment]  (mutable arrays inside)

    def __getitem__(self, i: int) -> float:
        """The (0-based) i-th smallest replicate."""
        i = int(i)
        if i < 0:
            i += self.size
        if 0 <= i < self._low.size:
            return float(self._low[i])
        first_high = self.size - self._high.size
        if first_high <= i < self.size:
            return float(self._high[i - first_high])
        raise ValueError(f"order statistic {i + 1:,} of {self.size:,} replicates was not kept "
                         f"(only the {self._low.size:,} at each end)")


def mean_replicates(x: np.ndarray, b: int, rng: np.random.Generator,
                     advance: Callable[[int], None] = progress.nothing) -> np.ndarray:
    """B bootstrap means of x: index matrices drawn in row chunks from one stream.

    Memory is bounded by the chunk (about max(200,000, n) indices), not by B;
    only the B means are kept, as the percentile interval needs them.
    """
    n = x.size
    out = np.empty(b)
    rows = max(1, _CHUNK_ELEMENTS // n)
    dtype = np.int32 if n < 2**31 else np.int64
    for start in range(0, b, rows):
        stop = min(b, start + rows)
        idx = rng.integers(0, n, size=(stop - start, n), dtype=dtype)
        out[start:stop] = x[idx].mean(axis=1)
        advance(stop - start)
    return out


def median_replicates(x: np.ndarray, b: int, rng: np.random.Generator) -> np.ndarray:
    """B bootstrap medians of x, drawn exactly through uniform order statistics, O(B).

    A resample's indices are floor(n·U_i) for iid uniforms U_i, a monotone map,
    so its k-th smallest index is floor(n·U_(k)) with U_(k) ~ Beta(k, n−k+1), and
    U_(k+1) = U_(k) + (1 − U_(k))·Beta(1, n−k). This has the same distribution as
    sorting a full resample, without the B × n work.
    """
    s = np.sort(x)
    n = s.size
    k = (n + 1) // 2  # 1-based rank of the (lower) middle order statistic
    u_k = rng.beta(k, n - k + 1, size=b)
    i_k = np.minimum((u_k * n).astype(np.int64), n - 1)
    if n % 2 == 1:
        return s[i_k]
    u_next = u_k + (1.0 - u_k) * rng.beta(1, n - k, size=b)
    i_next = np.minimum((u_next * n).astype(np.int64), n - 1)
    return 0.5 * (s[i_k] + s[i_next])


class RankMedian:
    """Row medians of resamples of x given their index matrices, via small-integer ranks.

    Partitioning int16/int32 ranks and mapping the middle ranks back to values
    is several times faster than np.median on the float resamples.
    """

    def __init__(self, x: np.ndarray) -> None:
        n = x.size
        self.order = np.argsort(x, kind="stable")
        self.values = x
        self.rank = np.empty(n, dtype=np.int16 if n < 2**15 else np.int32)
        self.rank[self.order] = np.arange(n)

    def __call__(self, idx: np.ndarray) -> np.ndarray:
        n = idx.shape[1]
        ranks = self.rank[idx]
        k = (n - 1) // 2
        part = np.partition(ranks, k, axis=1)
        low = self.values[self.order[part[:, k]]]
        if n % 2:
            return low
        high = self.values[self.order[part[:, k + 1:].min(axis=1)]]
        return 0.5 * (low + high)


def _paired_replicates(base: np.ndarray, cand: np.ndarray, statistic: str, b: int,
                       rng: np.random.Generator,
                       advance: Callable[[int], None] = progress.nothing) -> np.ndarray:
    """B bootstrap ratios resampling whole pairs (the same indices for both samples)."""
    n = base.size
    out = np.empty(b)
    rows = max(1, _CHUNK_ELEMENTS // n)
    dtype = np.int32 if n < 2**31 else np.int64
    if statistic_of_name(statistic) is MEAN:
        base_stat = cand_stat = None
    else:
        base_stat, cand_stat = RankMedian(base), RankMedian(cand)
    for start in range(0, b, rows):
        stop = min(b, start + rows)
        idx = rng.integers(0, n, size=(stop - start, n), dtype=dtype)
        if base_stat is None:
            num, den = cand[idx].mean(axis=1), base[idx].mean(axis=1)
        else:
            num, den = cand_stat(idx), base_stat(idx)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[start:stop] = num / den
        advance(stop - start)
    return out


def _replicates(x: np.ndarray, statistic: str, b: int, rng: np.random.Generator,
                advance: Callable[[int], None] = progress.nothing) -> np.ndarray:
    if statistic_of_name(statistic) is MEAN:
        return mean_replicates(x, b, rng, advance)
    out = median_replicates(x, b, rng)
    advance(b)
    return out


def _leave_one_out(x: np.ndarray, statistic: str) -> np.ndarray:
    """The statistic of x with each observation left out in turn (closed forms, O(n log n))."""
    n = x.size
    if statistic_of_name(statistic) is MEAN:
        return (x.sum() - x) / (n - 1)
    order = np.argsort(x, kind="stable")
    s = x[order]
    m = n - 1
    pos = np.empty(n, dtype=np.int64)
    pos[order] = np.arange(n)  # sorted position of each observation

    def kth(k: int) -> np.ndarray:  # k-th smallest (0-based) of the remaining n-1 values
        return np.where(k < pos, s[k], s[min(k + 1, n - 1)])

    if m % 2 == 1:
        return kth((m - 1) // 2)
    return 0.5 * (kth(m // 2 - 1) + kth(m // 2))


def _stat(x: np.ndarray, statistic: str) -> float:
    return statistic_of_name(statistic).of(x)


def percentile_indices(b: int, alpha_low: float, alpha_high: float) -> tuple[int, int]:
    """0-based indices into B sorted replicates: floor(B·α_low) and ceil(B·α_high) − 1."""
    # Round first: (1 - 0.9) / 2 · 1000 is 49.999999999999996 in floating point.
    lo = min(max(int(math.floor(round(b * alpha_low, 9))), 0), b - 1)
    hi = min(max(int(math.ceil(round(b * alpha_high, 9))) - 1, 0), b - 1)
    return lo, hi


def interval_from_replicates(replicates: np.ndarray, confidence: float) -> tuple[float, float]:
    """Percentile interval of B replicate values (STATS.md §5 index rule)."""
    ordered = np.sort(replicates)
    alpha = 1.0 - confidence
    lo, hi = percentile_indices(ordered.size, alpha / 2, 1 - alpha / 2)
    return float(ordered[lo]), float(ordered[hi])


def bootstrap_ratio(baseline: np.ndarray, candidate: np.ndarray, statistic: str = "mean", *,
                    replicates: int = DEFAULT_REPLICATES, confidence: float = 0.95,
                    seed: int | None = None, paired: bool = False,
                    rng: np.random.Generator | None = None) -> BootstrapInterval:
    """Bootstrap CI of statistic(candidate) / statistic(baseline).

    Independent samples are resampled with replacement each within itself (the
    baseline's replicates drawn first, then the candidate's, from one seeded
    stream); paired samples are resampled as whole pairs.
    """
    if statistic not in STATISTICS:
        raise ValueError(f"statistic must be one of {STATISTICS}")
    base = np.asarray(baseline, dtype=float)
    cand = np.asarray(candidate, dtype=float)
    denominator = _stat(base, statistic)
    if not denominator > 0:
        raise ValueError(f"the baseline {statistic} must be positive for a ratio")
    estimate = _stat(cand, statistic) / denominator
    rng = rng if rng is not None else np.random.default_rng(seed)
    # B statistics of each sample, their ratios and the sorted ratios: 4 arrays of B floats.
    limits.check_memory(4 * 8 * replicates, f"{replicates:,} bootstrap replicates",
                        "lower {param} ", "bootstrap")
    if paired and base.size != cand.size:
        raise ValueError("paired samples must have equal lengths")
    with progress.task(f"bootstrap, ratio of {statistic}s",
                       replicates * (1 if paired else 2)) as advance:
        if paired:
            ratios = np.sort(_paired_replicates(base, cand, statistic, replicates, rng,
                                                advance))
        else:
            base_reps = _replicates(base, statistic, replicates, rng, advance)
            cand_reps = _replicates(cand, statistic, replicates, rng, advance)
            with np.errstate(divide="ignore", invalid="ignore"):
                ratios = np.sort(cand_reps / base_reps)
    alpha = 1.0 - confidence
    lo_i, hi_i = percentile_indices(replicates, alpha / 2, 1 - alpha / 2)
    low, high = float(ratios[lo_i]), float(ratios[hi_i])

    # BCa: bias correction from the replicates, acceleration from the two-sample jackknife.
    below = np.count_nonzero(ratios < estimate) + 0.5 * np.count_nonzero(ratios == estimate)
    prop = below / replicates
    note = None
    bca_low = bca_high = None
    bca_params = None
    if 0.0 < prop < 1.0:
        z0 = normal_quantile(prop)
        with np.errstate(divide="ignore", invalid="ignore"):
            if paired:  # leave one pair out
                jack = _leave_one_out(cand, statistic) / _leave_one_out(base, statistic)
            else:  # leave one observation of either sample out (two-sample jackknife)
                jack = np.concatenate([
                    _stat(cand, statistic) / _leave_one_out(base, statistic),
                    _leave_one_out(cand, statistic) / denominator,
                ])
        if np.all(np.isfinite(jack)):
            d = jack.mean() - jack
            ss = float(np.sum(d * d))
            accel = float(np.sum(d**3)) / (6.0 * ss**1.5) if ss > 0 else 0.0
            bca_params = (z0, accel)
            i, j = _bca_indices(replicates, z0, accel, alpha)
            bca_low, bca_high = float(ratios[i]), float(ratios[j])
        else:
            note = "BCa undefined: a leave-one-out baseline statistic is zero"
    else:
        note = "BCa undefined: every bootstrap replicate lies on one side of the estimate"
    if min(base.size, cand.size) < 30:
        # validation/ratio_ci_coverage.py: 95% intervals cover ~87% at n = 5, ~91% at n = 10.
        small = ("fewer than 30 values per sample: bootstrap intervals run too narrow "
                 "(prefer Fieller's)")
        note = f"{note}; {small}" if note else small
    return BootstrapInterval(statistic, estimate, low, high, bca_low, bca_high, confidence,
                             replicates, seed, note, ordered=SortedReplicates(ratios),
                             bca_params=bca_params)
