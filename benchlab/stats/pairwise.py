"""Order statistics of pairwise differences and Walsh averages in O(n log n) memory-light time.

The Hodges–Lehmann estimates are medians of n_a·n_b differences (two samples)
or n(n+1)/2 Walsh averages (one sample); materializing them needs gigabytes at
n = 10,000. Up to a million pairs they are materialized; beyond, the k-th
smallest is found by bisection on the value with a counting function (sorted
arrays and searchsorted), then snapped to a pair value, which equals sorting
all pairs up to the rounding of a sum (one ulp).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def _select(k: int, count_le: Callable[[float], int], next_above: Callable[[float], float],
            lo: float, hi: float) -> float:
    """The k-th smallest (1-based) pair value, given count(value ≤ v) and min(value > v)."""
    # Invariant: count_le(lo) < k <= count_le(hi).
    for _ in range(200):
        mid = lo + (hi - lo) / 2.0
        if mid in (lo, hi):
            break
        if count_le(mid) >= k:
            hi = mid
        else:
            lo = mid
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

    lo = float(b[0] - a[-1]) - 1.0 - abs(float(b[0] - a[-1]))
    hi = float(b[-1] - a[0])
    return _select(k, count_le, next_above, lo, hi)


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

    lo = 2.0 * float(d[0]) - 1.0 - abs(2.0 * float(d[0]))
    hi = 2.0 * float(d[-1])
    return _select(k, count_le, next_above, lo, hi)


_MATERIALIZE = 1_000_000  # below this many pairs, sorting them all is cheaper and exact


def median_of_differences(a: np.ndarray, b: np.ndarray) -> float:
    """Hodges–Lehmann two-sample shift: median of b_j − a_i."""
    if a.size * b.size <= _MATERIALIZE:
        return float(np.median(np.subtract.outer(b, a)))
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
        return float(np.median((s[i] + s[j]) / 2.0))
    if total % 2:
        return kth_walsh_sum(s, (total + 1) // 2) / 2.0
    return 0.25 * (kth_walsh_sum(s, total // 2) + kth_walsh_sum(s, total // 2 + 1))
