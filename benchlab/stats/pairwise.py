"""Order statistics of pairwise differences and Walsh averages in O(n log n) memory-light time.

The Hodges–Lehmann estimates are medians of n_a·n_b differences (two samples)
or n(n+1)/2 Walsh averages (one sample); materializing them needs gigabytes at
n = 10,000. Up to a million pairs they are materialized; beyond, the k-th
smallest is found by bisection on the value with a counting function (sorted
arrays and searchsorted) until at most _GATHER pairs lie in the bracket, which are
then gathered and partitioned (about 15 counting passes at n = 10^5 instead of 60);
where ties keep more pairs in the bracket, the bisection runs to the float
resolution and snaps to a pair value. Both equal sorting all pairs up to the
rounding of a sum (one ulp).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from benchlab.stats.descriptive import median

_GATHER = 1_000_000  # pairs in the bisection's bracket below which they are gathered


def _select(k: int, count_le: Callable[[float], int], next_above: Callable[[float], float],
            lo: float, hi: float,
            gather: Callable[[float, float], np.ndarray] | None = None) -> float:
    """The k-th smallest (1-based) pair value, given count(value ≤ v), min(value > v) and
    gather(lo, hi): the pair values counted in (lo, hi], as count_le counts them."""
    # Invariant: count_le(lo) < k <= count_le(hi).
    below, upto = count_le(lo), count_le(hi)
    for _ in range(200):
        if gather is not None and 0 < upto - below <= _GATHER:
            inside = gather(lo, hi)
            return float(np.partition(inside, k - below - 1)[k - below - 1])
        mid = lo + (hi - lo) / 2.0
        if mid in (lo, hi):
            break
        at = count_le(mid)
        if at >= k:
            hi, upto = mid, at
        else:
            lo, below = mid, at
    while True:
        candidate = next_above(lo)
        if candidate <= lo:  # a sum rounded onto lo: step one ulp so the search advances
            candidate = float(np.nextafter(lo, np.inf))
        if count_le(candidate) >= k:
            return candidate
        lo = candidate


def kth_difference(a_sorted: np.ndarray, b_sorted: np.ndarray, k: int) -> float:
    """The k-th smallest (1-based) of all differences b_j − a_i.

    Up to _MATERIALIZE pairs the differences are partitioned directly (exact, and
    a hundred times faster for the small samples of a many-group post hoc test).
    """
    a, b = a_sorted, b_sorted
    if a.size * b.size <= _MATERIALIZE:
        return float(np.partition(np.subtract.outer(b, a).ravel(), k - 1)[k - 1])

    def count_le(v: float) -> int:  # pairs with a_i >= b_j - v
        return int(np.sum(a.size - np.searchsorted(a, b - v, side="left")))

    def next_above(v: float) -> float:  # smallest b_j - a_i > v, i.e. largest a_i < b_j - v
        idx = np.searchsorted(a, b - v, side="left") - 1
        ok = idx >= 0
        return float(np.min(b[ok] - a[idx[ok]]))

    def gather(lo: float, hi: float) -> np.ndarray:  # b_j - a_i in (lo, hi], as counted
        first = np.searchsorted(a, b - hi, side="left")
        stop = np.searchsorted(a, b - lo, side="left")
        return np.repeat(b, stop - first) - a[_ranges(first, stop)]

    lo = float(b[0] - a[-1]) - 1.0 - abs(float(b[0] - a[-1]))
    hi = float(b[-1] - a[0])
    hi += 1.0 + abs(hi)  # b[-1] − (b[-1] − a[0]) may round above a[0]: keep every pair ≤ hi
    return _select(k, count_le, next_above, lo, hi, gather)


def _ranges(first: np.ndarray, stop: np.ndarray) -> np.ndarray:
    """The concatenated index ranges first[i]..stop[i]−1 (empty where stop <= first)."""
    lengths = np.maximum(stop - first, 0)
    total = int(lengths.sum())
    if total == 0:
        return np.empty(0, dtype=np.int64)
    ends = np.cumsum(lengths)
    offsets = np.repeat(first - (ends - lengths), lengths)
    return np.arange(total) + offsets


def kth_walsh_sum(d_sorted: np.ndarray, k: int) -> float:
    """The k-th smallest (1-based) of d_i + d_j over i ≤ j (twice the Walsh averages)."""
    d = d_sorted
    n = d.size
    positions = np.arange(n)

    def count_le(v: float) -> int:  # for each i, j >= i with d_j <= v - d_i
        upto = np.searchsorted(d, v - d, side="right")
        return int(np.sum(np.maximum(upto - positions, 0)))

    def next_above(v: float) -> float:  # smallest d_i + d_j > v with j >= i
        j = np.maximum(np.searchsorted(d, v - d, side="right"), positions)
        ok = j < n
        return float(np.min(d[ok] + d[j[ok]]))

    def gather(lo: float, hi: float) -> np.ndarray:  # d_i + d_j in (lo, hi], j >= i
        first = np.maximum(np.searchsorted(d, lo - d, side="right"), positions)
        stop = np.maximum(np.searchsorted(d, hi - d, side="right"), positions)
        lengths = np.maximum(stop - first, 0)
        return np.repeat(d, lengths) + d[_ranges(first, stop)]

    lo = 2.0 * float(d[0]) - 1.0 - abs(2.0 * float(d[0]))
    hi = 2.0 * float(d[-1])
    hi += 1.0 + abs(hi)  # every d_j <= hi − d_i, whatever the rounding
    return _select(k, count_le, next_above, lo, hi, gather)


_MATERIALIZE = 1_000_000  # below this many pairs, sorting them all is cheaper and exact


def median_of_differences(a: np.ndarray, b: np.ndarray) -> float:
    """Hodges–Lehmann two-sample shift: median of b_j − a_i."""
    if a.size * b.size <= _MATERIALIZE:
        return median(np.subtract.outer(b, a).ravel())
    a_s, b_s = np.sort(a), np.sort(b)
    total = a.size * b.size
    if total % 2:
        return kth_difference(a_s, b_s, (total + 1) // 2)
    return 0.5 * (kth_difference(a_s, b_s, total // 2) + kth_difference(a_s, b_s, total // 2 + 1))


def median_of_walsh_averages(d: np.ndarray) -> float:
    """Hodges–Lehmann one-sample location (the pseudomedian): median of (d_i + d_j)/2, i ≤ j."""
    s = np.sort(d)
    total = s.size * (s.size + 1) // 2
    if total <= _MATERIALIZE:
        i, j = np.triu_indices(s.size)
        return median((s[i] + s[j]) / 2.0)
    if total % 2:
        return kth_walsh_sum(s, (total + 1) // 2) / 2.0
    return 0.25 * (kth_walsh_sum(s, total // 2) + kth_walsh_sum(s, total // 2 + 1))
