"""`history compare`: a head commit against its branch's baseline segment, as `compare` does.

The baseline of a series is its commits on the head's branch before the head,
since the last change that `history check` confirms on them (history/check.py):
the commits that measure the current level. Each baseline commit is one unit
(its mean); the head's units are its top-level units (its runs, when the input
recorded levels) or its measurements. The benchmarks are then compared as a
suite (stats/suite.py compare_suite): one ratio CI per benchmark, the geometric
mean, and family-wise (Holm) decisions over the benchmarks.

The head's units measure only its within-commit spread; the between-commit
spread of the baseline enters through the baseline's commit means. docs/history.md
says what this means for a single head commit.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from benchlab.errors import InputError
from benchlab.history.check import MIN_SIZE, commit_means, series_changes
from benchlab.history.store import Commit, Series
from benchlab.stats.suite import SuiteResult, compare_suite
from benchlab.units import make_unit


def _head_units(s: Series, head: int) -> np.ndarray:
    """The head's values: the means of its top-level units, or its measurements."""
    mask = s.commit_index == head
    values = s.values[mask]
    if not s.level_names:
        return values
    top = s.levels[0][mask]
    names, inverse = np.unique(top, return_inverse=True)
    if names.size < 2:
        return values
    return np.bincount(inverse, weights=values) / np.bincount(inverse)


def baseline_means(s: Series, history: list[Commit], head: int, *, threshold: float,
                   confidence: float, seed=0) -> tuple[np.ndarray, str]:
    """The baseline segment's commit means and the commit where it starts."""
    branch = history[head].branch
    keep = np.array([i < head and (branch is None or history[i].branch in (branch, None))
                     for i in s.commit_index], dtype=bool)
    before = replace(s, commit_index=s.commit_index[keep], values=s.values[keep],
                     levels=tuple(lv[keep] for lv in s.levels))
    at, means = commit_means(before)
    if means.size == 0:
        return means, ""
    start = 0
    if means.size >= 2 * MIN_SIZE:
        changes, _ = series_changes(before, history, threshold=threshold,
                                    confidence=confidence, seed=seed)
        if changes:
            sha = changes[-1].commit
            start = int(np.flatnonzero([history[i].sha == sha for i in at])[0])
    return means[start:], history[at[start]].sha


def compare_head(series: list[Series], history: list[Commit], head_sha: str, *,
                 threshold: float = 0.02, confidence: float = 0.95,
                 seed: int | None = 0) -> tuple[SuiteResult, list[str]]:
    """The suite comparison of the head with each series' baseline, and notes (series left
    out, where each baseline starts)."""
    position = {c.sha: i for i, c in enumerate(history)}
    if head_sha not in position:
        raise InputError(f"no commit {head_sha!r} in the history")
    head = position[head_sha]
    several = len({(s.metric, s.machine) for s in series}) > 1
    data: dict = {}
    notes: list[str] = []
    units = set()
    for s in series:
        name = f"{s.benchmark} ({s.metric}, {s.machine})" if several else s.benchmark
        head_x = _head_units(s, head)
        if head_x.size == 0:
            continue
        base, start = baseline_means(s, history, head, threshold=threshold,
                                     confidence=confidence, seed=seed)
        if base.size < 2 or head_x.size < 2:
            notes.append(f"{name}: left out: {base.size} baseline commit"
                         f"{'s' if base.size != 1 else ''} and {head_x.size} head value"
                         f"{'s' if head_x.size != 1 else ''}; at least 2 of each are needed")
            continue
        notes.append(f"{name}: baseline {base.size} commits from {start}")
        data[name] = [("baseline", base, []), ("head", head_x, [])]
        units.add((s.unit, s.higher_is_better))
    if not data:
        raise InputError(f"no benchmark of commit {head_sha!r} has a baseline to compare "
                         "with (at least 2 earlier commits on its branch)")
    unit = make_unit(*units.pop()) if len(units) == 1 else None
    result = compare_suite(data, [], baseline="baseline", confidence=confidence,
                           threshold=threshold, unit=unit, seed=seed, diagnostics=False)
    return result, notes
