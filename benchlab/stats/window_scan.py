"""Short segments of a series: windows of a few values that differ from the rest of their
segment, and a change in the newest values, each judged by a ratio CI (docs/history.md).

E-Divisive (changepoint.py) finds persistent changes but not a level that lasts a few
commits in a long series (a split's second segment runs to the series' end, so ten
shifted values among hundreds barely move its mean), nor a change with fewer than
`min_size` values after it. This module scans for both. For a window w = z[i:i+L] of
a segment whose other (not excluded) values c are its context, under the model of
iid normal values within a segment (the commit-to-commit variance; each value is a
commit's mean, so its runs are in it):

    mean(w) - rho mean(c)                           (pivot of the ratio rho, Fieller
    ----------------------------------  ~  t_{n_c-1}  1954; STATS.md §3, with both
    s_c sqrt(1/L + rho^2/n_c)                         variances from s_c^2)

with s_c the context's SD (n_c - 1 df), exact under that model because the one s_c
scales both means' variances; the CI of mean(w)/mean(c) is Fieller's at that df, and
the window is a change when the CI clears the threshold (STATS.md §4), as a change
between two segments is. Many windows are tested, so the level of each is
family-wise by Bonferroni: 1 - alpha/m for the m windows of the scan (all lengths,
all positions, fixed before the scan starts), so the chance that any window of a
series without a change is reported stays at most alpha (less: the threshold must be
cleared as well). Windows are ranked by the pivot at the threshold's edge (rho =
1 ± threshold: how far the CI is from clearing it), the best one is judged; a change
is excluded from every context and the scan goes on, and it stops at the first best
window that is not a change.

The newest values are a family of their own (head_change): the windows of the last
1 .. `longest` values against the rest of their segment, at 1 - alpha/longest each,
accepted only when the newest value is nearer the window's mean than the context's
(a change is still there at the head; a spike a few values back is not one).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from benchlab.stats.fieller import RatioInterval, fieller_interval
from benchlab.stats.verdict import classify

MAX_LENGTH = 32  # the longest window scanned: longer segments are E-Divisive's to find
HEAD_LENGTH = 5  # the newest windows tested as a change at the head: 1 .. 5 values
MIN_CONTEXT = 5  # fewest values a window is compared with


@dataclass(frozen=True)
class Window:
    """A window z[start:start+length] that differs from its context (the `context` other
    values of its segment): the ratio of their means with its CI at the family-wise level
    and its outcome against the threshold; `family`, the windows tested together."""

    start: int
    length: int
    context: int
    ratio: RatioInterval
    outcome: str
    family: int

    @property
    def end(self) -> int:
        return self.start + self.length


@dataclass(frozen=True)
class Candidates:
    """Every window of a scan that may be judged: its start, length, mean, its context's
    mean, variance and size, and the pivot at the threshold's edge (`score`)."""

    start: np.ndarray
    length: np.ndarray
    mean: np.ndarray
    context_mean: np.ndarray
    context_var: np.ndarray
    context_n: np.ndarray
    score: np.ndarray


def _edge_pivot(mean: np.ndarray, base: np.ndarray, var: np.ndarray, length: np.ndarray,
                n_c: np.ndarray, threshold: float) -> np.ndarray:
    """The larger of Fieller's pivots at 1 + threshold (a rise) and 1 - threshold (a fall):
    the CI clears the threshold on that side when it exceeds the critical t."""
    out = np.full(mean.shape, -np.inf)
    for rho, sign in ((1.0 + threshold, 1.0), (1.0 - threshold, -1.0)):
        num = sign * (mean - rho * base)
        se = np.sqrt(var * (1.0 / length + rho * rho / n_c))
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(se > 0, num / np.where(se > 0, se, 1.0),
                         np.where(num > 0, np.inf, -np.inf))
        out = np.maximum(out, t)
    return out


def windows(z: np.ndarray, excluded: np.ndarray, a: int, b: int, lengths: Iterable[int],
            threshold: float, first: int = 0) -> Candidates:
    """Every window [i, i+L) within [a, b), L in `lengths`, holding no excluded value, with
    its context: the values of [a, b) outside it and not excluded. O((b - a) · len(lengths))
    from cumulative sums (all lengths at once), centred on the segment's median to keep
    them exact. `first`: the first position a window may start at."""
    v, ok = z[a:b], ~excluded[a:b]
    size = b - a
    centre = float(np.median(v[ok])) if ok.any() else 0.0
    w = np.where(ok, v - centre, 0.0)
    c1 = np.concatenate([[0], np.cumsum(ok)])
    s1 = np.concatenate([[0.0], np.cumsum(w)])
    s2 = np.concatenate([[0.0], np.cumsum(w * w)])
    L = np.fromiter(lengths, dtype=int)
    L = L[(L <= size) & (c1[-1] - L >= MIN_CONTEXT)]
    i = np.arange(min(max(first - a, 0), size), size)
    end = i[None, :] + L[:, None]
    keep = end <= size
    end = np.minimum(end, size)
    keep &= (c1[end] - c1[i][None, :]) == L[:, None]
    rows, cols = np.nonzero(keep)
    length, start, stop = L[rows], i[cols], end[rows, cols]
    n_c = c1[-1] - length
    sw, qw = s1[stop] - s1[start], s2[stop] - s2[start]
    sc, qc = s1[-1] - sw, s2[-1] - qw
    mc = sc / np.maximum(n_c, 1)
    var = np.maximum((qc - sc * mc) / np.maximum(n_c - 1, 1), 0.0)
    mean, base = sw / np.maximum(length, 1) + centre, mc + centre
    return Candidates(start + a, length, mean, base, var, n_c,
                      _edge_pivot(mean, base, var, length, n_c, threshold))


def _judge(c: Candidates, k: int, level: float, threshold: float, family: int) -> Window:
    """Fieller's CI of window k's mean over its context's at `level`, and its outcome."""
    L, n_c, var = int(c.length[k]), int(c.context_n[k]), float(c.context_var[k])
    ratio = fieller_interval(float(c.mean[k]), float(c.context_mean[k]), var / L, var / n_c,
                             0.0, float(n_c - 1), level, "fieller (window)")
    return Window(int(c.start[k]), L, n_c, ratio, classify(ratio.low, ratio.high, threshold),
                  family)


def _best(c: Candidates, allowed: np.ndarray) -> int | None:
    """The window whose CI is nearest clearing the threshold (the largest edge pivot, at
    nearly one df for all: the contexts of a segment differ by a few values at most)."""
    usable = allowed & (c.context_mean > 0)
    if not usable.any():
        return None
    score = np.where(usable, c.score, -np.inf)
    return int(np.argmax(score))


def family_size(bounds: list[tuple[int, int]], n: int, lengths: Iterable[int]) -> int:
    """How many windows a scan of the segments `bounds` tests: every window of every
    length that starts after the series' first value and ends before its last."""
    m = 0
    for a, b in bounds:
        for L in lengths:
            lo, hi = max(a, 1), min(b, n - 1) - L  # start in [lo, hi]
            if b - a - L >= MIN_CONTEXT and hi >= lo:
                m += hi - lo + 1
    return m


def scan(z, bounds: list[tuple[int, int]], *, threshold: float, confidence: float,
         lengths: Sequence[int] = tuple(range(1, MAX_LENGTH + 1)), excluded=None,
         stop_before: int | None = None, family: int | None = None,
         only: list[tuple[int, int]] | None = None, first: int = 0
         ) -> tuple[list[Window], np.ndarray]:
    """The windows of `lengths` values (default 1 .. MAX_LENGTH) within the segments
    `bounds` that differ from the rest of their segment by more than `threshold`, each at
    the family-wise level 1 - (1 - confidence)/family (Bonferroni over every window of the
    scan, family_size's count unless given); see the module docstring. A window starts
    after the series' first value and ends before its last (the head is head_change's),
    and, with `stop_before`, ends at or before that position; `only`: the segments
    searched (all of `bounds` when None; the family is still counted over `bounds`), and
    `first`, the first position a window may start at.
    Returns the changes found (in the order found) and the exclusion mask with them added
    to `excluded`."""
    z = np.asarray(z, dtype=float)
    n = z.size
    mask = np.zeros(n, dtype=bool) if excluded is None else np.array(excluded, dtype=bool)
    m = family if family is not None else family_size(bounds, n, lengths)
    found: list[Window] = []
    if m == 0:
        return found, mask
    level = 1.0 - (1.0 - confidence) / m
    last = n - 1 if stop_before is None else min(n - 1, stop_before)
    best_of: dict[tuple[int, int], tuple[Candidates, int | None]] = {}
    while True:  # a segment's windows change only when a change is found in it
        best: tuple[float, Candidates, int, tuple[int, int]] | None = None
        for seg in bounds if only is None else only:
            if seg not in best_of:
                c = windows(z, mask, seg[0], seg[1], lengths, threshold, first)
                best_of[seg] = (c, _best(c, (c.start >= 1) & (c.start + c.length <= last)))
            c, k = best_of[seg]
            if k is not None and (best is None or c.score[k] > best[0]):
                best = (float(c.score[k]), c, k, seg)
        if best is None:
            break
        w = _judge(best[1], best[2], level, threshold, m)
        if w.outcome != "change":
            break
        found.append(w)
        mask[w.start:w.end] = True
        del best_of[best[3]]
    return found, mask


def head_change(z, start: int, *, threshold: float, confidence: float,
                longest: int = HEAD_LENGTH, excluded=None) -> Window | None:
    """A change in the newest values: the windows of the last 1 .. `longest` values of
    z[start:] against the rest of it (less `excluded`), each at 1 - (1 - confidence)/longest
    (Bonferroni over the `longest` windows), the one nearest clearing the threshold judged;
    kept only when the newest value lies nearer the window's mean than the context's. None
    when no window is a change (or the context is too small)."""
    z = np.asarray(z, dtype=float)
    n = z.size
    mask = np.zeros(n, dtype=bool) if excluded is None else np.array(excluded, dtype=bool)
    c = windows(z, mask, start, n, range(1, longest + 1), threshold)
    head = z[-1]
    at_head = (c.start + c.length == n) & (c.start >= 1)
    nearer = np.abs(head - c.mean) <= np.abs(head - c.context_mean)
    k = _best(c, at_head & nearer)
    if k is None:
        return None
    w = _judge(c, k, 1.0 - (1.0 - confidence) / longest, threshold, longest)
    return w if w.outcome == "change" else None


def detectable(var: float, base: float, n_c: int, commits: int, *, threshold: float,
               level: float, power: float = 0.8) -> float:
    """The smallest relative change (a ratio minus 1) that `commits` values at a new level
    show beyond `threshold` at `level` with probability `power`, against a context of n_c
    values with mean `base` and variance `var`: threshold + (t_level + t_power)·SE, SE the
    pivot's s·sqrt(1/commits + 1/n_c)/base (the normal-theory power of STATS.md §6)."""
    from benchlab.stats.distributions import critical_t, t_quantile

    df = float(n_c - 1)
    se = math.sqrt(var * (1.0 / commits + 1.0 / n_c)) / base
    return threshold + (critical_t(level, df) + t_quantile(power, df)) * se
