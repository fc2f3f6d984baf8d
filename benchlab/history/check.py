"""`history check`: the changes along every series, each judged by a ratio CI.

Per series (benchmark, metric, machine) the per-commit means go to E-Divisive
(stats/changepoint.py; each split kept while Welch's t-test of the segments
around it is significant at 0.001, Apache Otava's approximate significance,
which keeps 100 series of 1,000 commits within seconds), which proposes change
points. Each candidate is then
judged as `compare` judges two samples: the commits of the segment before it
against those of the segment after it, each commit one top-level unit (its
mean; STATS.md §5: only the top-level means carry the uncertainty of a mean),
Fieller's CI of the ratio of means and the verdict against the threshold
(STATS.md §3-4). A candidate whose CI does not clear the threshold is dropped,
the weakest first, and its neighbours' segments merge before the others are
judged again, so a spurious split does not halve the data of a real change.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from benchlab.history.store import Commit, Series
from benchlab.result import Result
from benchlab.stats.changepoint import e_divisive, minimum_length, segments
from benchlab.stats.compare import Comparison, compare_samples
from benchlab.stats.fieller import RatioInterval
from benchlab.stats.verdict import Verdict
from benchlab.units import make_unit

MIN_SIZE = 3  # commits on each side of a change, at least


@dataclass(frozen=True)
class Change:
    """One reported change: where it starts (`commit`, the first commit of the new level)
    and the ratio after/before of the segments' means, with its CI and verdict."""

    benchmark: str
    metric: str
    machine: str
    unit: str
    commit: str
    previous_commit: str
    ratio: RatioInterval
    verdict: Verdict
    commits_before: int
    commits_after: int


@dataclass(frozen=True)
class HistoryCheck(Result):
    """Every change whose CI clears the threshold, oldest first per series."""

    changes: tuple[Change, ...]
    threshold: float
    confidence: float
    series: int
    commits: int
    notes: tuple[str, ...] = ()
    seed: int | None = None


def commit_means(s: Series) -> tuple[np.ndarray, np.ndarray]:
    """The series' commits (positions in the history, in order) and each one's mean."""
    commits, inverse = np.unique(s.commit_index, return_inverse=True)
    sums = np.bincount(inverse.ravel(), weights=s.values)
    counts = np.bincount(inverse.ravel())
    return commits, sums / counts


def _judge(means: np.ndarray, cuts: list[int], at: int, unit, threshold: float,
           confidence: float) -> Comparison:
    """The comparison of the segment before cut `at` with the segment after it."""
    edges = [0, *cuts, means.size]
    i = edges.index(at)
    before, after = means[edges[i - 1]:at], means[at:edges[i + 1]]
    res = compare_samples([("before", before), ("after", after)], confidence=confidence,
                          threshold=threshold, unit=unit, diagnostics=False, advise=False,
                          noun="commits")
    return res.comparisons[0]


def _strength(c: Comparison) -> float:
    return abs(math.log(c.ratio.estimate)) if c.ratio is not None and c.ratio.estimate > 0 \
        else 0.0


def series_changes(s: Series, history: list[Commit], *, threshold: float, confidence: float,
                   seed=0, significance: float | None = None, test: str = "ttest",
                   permutations: int = 199) -> tuple[list[Change], str | None]:
    """The confirmed changes of one series, or a note saying why it has none to offer."""
    at, means = commit_means(s)
    name = f"{s.benchmark} ({s.metric}, {s.machine})"
    need = minimum_length(MIN_SIZE)
    if means.size < need:
        return [], (f"{name}: {means.size} commit{'s' if means.size != 1 else ''}; finding a "
                    f"change needs at least {need} ({MIN_SIZE} on each side), so none is "
                    "reported")
    cuts = list(e_divisive(means, min_size=MIN_SIZE, significance=significance, test=test,
                           permutations=permutations, seed=seed).indices)
    unit = make_unit(s.unit or None, s.higher_is_better)
    while True:
        judged = [(cut, _judge(means, cuts, cut, unit, threshold, confidence)) for cut in cuts]
        weak = [(cut, c) for cut, c in judged if c.verdict.outcome != "change"]
        if not weak:
            break
        cuts.remove(min(weak, key=lambda item: _strength(item[1]))[0])
    edges = segments(means.size, tuple(cuts))
    out = []
    for (cut, c), (a, _), (_, b) in zip(judged, edges[:-1], edges[1:], strict=True):
        out.append(Change(s.benchmark, s.metric, s.machine, s.unit,
                          history[at[cut]].sha, history[at[cut - 1]].sha, c.ratio, c.verdict,
                          cut - a, b - cut))
    return out, None


def confirmed_changes(series: list[Series], history: list[Commit], *, threshold: float,
                      confidence: float, seed: int | None = 0, permutations: int = 199,
                      only: set[tuple[str, str, str]] | None = None
                      ) -> list[tuple[Series, list[Change], str | None]]:
    """Every series' confirmed changes and its note: the one answer `history check` and
    `history show` give. Each series draws from its own stream of `seed`, spawned over the
    whole history's series in order, so a series gets the same changes whether it is judged
    with the others or alone (`only`: the keys of the series to judge, all when None)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError("confidence must be between 0 and 1")
    if threshold < 0 or not math.isfinite(threshold):
        raise ValueError("threshold must be a finite number >= 0")
    seeds = np.random.SeedSequence(seed).spawn(len(series)) if series else []
    out = []
    for s, stream in zip(series, seeds, strict=True):
        if only is not None and s.key not in only:
            continue
        found, note = series_changes(s, history, threshold=threshold, confidence=confidence,
                                     seed=np.random.default_rng(stream),
                                     permutations=permutations)
        out.append((s, found, note))
    return out


def check(series: list[Series], history: list[Commit], *, threshold: float = 0.02,
          confidence: float = 0.95, since: int = 0, seed: int | None = 0,
          permutations: int = 199) -> HistoryCheck:
    """The changes of every series whose CI clears `threshold`; only those starting at
    position `since` of the history or later are reported (all the data is used)."""
    position = {c.sha: i for i, c in enumerate(history)}
    changes: list[Change] = []
    notes: list[str] = []
    for _, found, note in confirmed_changes(series, history, threshold=threshold,
                                            confidence=confidence, seed=seed,
                                            permutations=permutations):
        if note:
            notes.append(note)
        changes.extend(c for c in found if position[c.commit] >= since)
    return HistoryCheck(tuple(changes), threshold, confidence, len(series), len(history),
                        tuple(notes), seed)
