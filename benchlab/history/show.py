"""`history show`: each series' per-commit means with their CIs, and its confirmed changes.

Per commit, the mean and its t interval come from the commit's top-level units
(its runs when the input recorded levels, else its measurements; STATS.md §5:
only the top-level means carry the uncertainty of a mean): mean of the unit
means ± t_{n-1} · s/√n (STATS.md §2). The changes are those `history check`
confirms, from the same function (history/check.py confirmed_changes, with the
same random stream per series), found on the whole series; `last` and
`benchmark` only limit what is shown.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from benchlab.errors import InputError
from benchlab.history.check import Change, confirmed_changes
from benchlab.history.store import Commit, Series
from benchlab.result import Result


@dataclass(frozen=True)
class CommitPoint:
    """One commit of a series: its mean with a CI (None when fewer than 2 units) and the
    number of top-level units `n`."""

    commit: str
    date: str | None
    mean: float
    low: float | None
    high: float | None
    n: int


@dataclass(frozen=True)
class SeriesView:
    benchmark: str
    metric: str
    machine: str
    unit: str
    points: tuple[CommitPoint, ...]
    changes: tuple[Change, ...]


@dataclass(frozen=True)
class HistoryShow(Result):
    """The series shown, oldest commit first, with the changes that start within them."""

    series: tuple[SeriesView, ...]
    threshold: float
    confidence: float
    commits: int
    notes: tuple[str, ...] = ()
    seed: int | None = None


def commit_intervals(s: Series, confidence: float) -> tuple[np.ndarray, ...]:
    """Per commit of the series (positions in the history, in order): mean of the
    top-level unit means, CI low and high (NaN below 2 units) and the unit count."""
    from scipy.special import stdtrit

    if s.level_names:
        _, unit = np.unique(np.stack([s.commit_index.astype(str), s.levels[0]]), axis=1,
                            return_inverse=True)
        unit = unit.ravel()
        sums, counts = np.bincount(unit, weights=s.values), np.bincount(unit)
        first = np.zeros(counts.size, dtype=np.int64)
        first[unit] = s.commit_index
        x, commit = sums / counts, first
    else:
        x, commit = s.values, s.commit_index
    at, inverse = np.unique(commit, return_inverse=True)
    inverse = inverse.ravel()
    n = np.bincount(inverse)
    mean = np.bincount(inverse, weights=x) / n
    ss = np.bincount(inverse, weights=(x - mean[inverse]) ** 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.sqrt(ss / (n - 1) / n)
        half = np.where(n >= 2, stdtrit(np.maximum(n - 1, 1), 0.5 + confidence / 2) * se,
                        np.nan)
    return at, mean, mean - half, mean + half, n


def show(series: list[Series], history: list[Commit], *, benchmark: str | None = None,
         last: int | None = None, threshold: float = 0.02, confidence: float = 0.95,
         seed: int | None = 0) -> HistoryShow:
    """The series (those of `benchmark` only, when given) over the last `last` commits of
    the history (all when None), each with the changes `history check` confirms."""
    only = None
    if benchmark is not None:
        only = {s.key for s in series if s.benchmark == benchmark}
        if not only:
            raise InputError(f"no benchmark {benchmark!r} in the history")
    start = 0 if last is None else max(0, len(history) - last)
    views, notes = [], []
    for s, findings in confirmed_changes(series, history, threshold=threshold,
                                         confidence=confidence, seed=seed, only=only):
        if findings.note:
            notes.append(findings.note)
        at, mean, low, high, n = commit_intervals(s, confidence)
        keep = at >= start
        if not keep.any():
            continue
        points = tuple(
            CommitPoint(history[i].sha, history[i].date, float(m),
                        None if np.isnan(lo) else float(lo), None if np.isnan(hi) else float(hi),
                        int(k))
            for i, m, lo, hi, k in zip(at[keep], mean[keep], low[keep], high[keep], n[keep],
                                       strict=True))
        shown = {p.commit for p in points}
        views.append(SeriesView(s.benchmark, s.metric, s.machine, s.unit, points,
                                tuple(c for c in findings.changes if c.commit in shown)))
    return HistoryShow(tuple(views), threshold, confidence, len(history), tuple(notes), seed)
