"""`history publish`: what a static site of the history shows, computed once per series.

Per series (benchmark, metric, machine): each commit's top-level unit means (its
runs when the input recorded levels, else its measurements), the commit's mean
with its t interval (history/show.py `commit_intervals`, STATS.md §2 and §5), and
the findings of `history check` (history/check.py `confirmed_changes`, the same
random stream per series), so every number on the site is the one `history check
--json` and `history show --json` give. Laying the pages out and writing them is
report/history_site/; this module computes and writes nothing.

The PR checks `history compare --store` kept (history/checks.py) are shown as stored:
their numbers are those `history compare --json` printed when they were recorded.

A republish reuses the findings of every series whose inputs are unchanged
(history/analysis_cache.py: kept in the site's directory under a hash of what they are
computed from), so only the series with new results are analysed again.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from benchlab.history.check import MIN_SEGMENT, Findings, confirmed_changes
from benchlab.history.checks import StoredCheck
from benchlab.history.show import commit_intervals
from benchlab.history.store import Commit, Series
from benchlab.result import Result


@dataclass(frozen=True)
class SeriesHistory:
    """One series as the site shows it: per commit of the series (`at`, positions in the
    history, oldest first) its mean, the CI of the mean (NaN below 2 units), its number
    of units `n` and the units' means (`runs`, one array per commit); and its findings."""

    benchmark: str
    metric: str
    machine: str
    unit: str
    higher_is_better: bool | None
    at: np.ndarray
    mean: np.ndarray
    low: np.ndarray
    high: np.ndarray
    n: np.ndarray
    runs: tuple[np.ndarray, ...]
    findings: Findings

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.benchmark, self.metric, self.machine)


@dataclass(frozen=True)
class SiteData:
    """Every series of a history with the commits they index, the analysis' settings, and
    the stored PR checks."""

    commits: tuple[Commit, ...]
    series: tuple[SeriesHistory, ...]
    threshold: float
    confidence: float
    seed: int | None
    min_segment: int
    checks: tuple[StoredCheck, ...] = ()
    keys: tuple[str | None, ...] = ()  # per series, the hash its findings are kept under
    analysed: int = 0  # the series analysed now (the others' findings were kept)
    stamp: str = ""  # the code that computed them (analysis_cache.code_stamp)
    notes: tuple[str, ...] = ()  # about the kept analysis (a file that could not be used)


@dataclass(frozen=True)
class Published(Result):
    """What one `history publish` did: the site's directory, what it shows, and how many of
    its files were written (new or changed), kept (the same bytes) and removed (pages of
    series the history no longer holds); the analysis' settings and its notes (a series
    too short to judge)."""

    directory: str
    series: int
    commits: int
    written: tuple[str, ...]
    kept: int
    removed: tuple[str, ...]
    threshold: float = 0.02
    confidence: float = 0.95
    seed: int | None = 0
    notes: tuple[str, ...] = ()
    checks: int = 0
    analysed: int = 0


def unit_means(s: Series) -> tuple[np.ndarray, np.ndarray]:
    """The series' top-level units: each one's commit (a position in the history) and mean,
    ordered by commit, then as the units first appear within it. Without levels each
    measurement is a unit."""
    if not s.level_names:
        order = np.argsort(s.commit_index, kind="stable")
        return s.commit_index[order], s.values[order]
    # a unit is one (commit, top-level label) pair: codes for the labels, then pairs
    _, label = np.unique(s.levels[0], return_inverse=True)
    pair = s.commit_index.astype(np.int64) * (int(label.max()) + 1) + label.ravel()
    codes, first, inverse = np.unique(pair, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    means = np.bincount(inverse, weights=s.values) / np.bincount(inverse)
    commit = s.commit_index[first]
    order = np.lexsort((first, commit))  # by commit, then by first appearance
    return commit[order], means[order]


def series_history(s: Series, findings: Findings, confidence: float) -> SeriesHistory:
    """One series' commits, their means, CIs and units, with its findings."""
    at, mean, low, high, n = commit_intervals(s, confidence)
    unit_commit, means = unit_means(s)
    bounds = np.searchsorted(unit_commit, at, side="left").tolist() + [unit_commit.size]
    runs = tuple(means[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True))
    return SeriesHistory(s.benchmark, s.metric, s.machine, s.unit, s.higher_is_better,
                         at, mean, low, high, n, runs, findings)


def site_data(series: list[Series], history: list[Commit], *, threshold: float = 0.02,
              confidence: float = 0.95, seed: int | None = 0,
              min_segment: int = MIN_SEGMENT, checks: tuple[StoredCheck, ...] = (),
              kept: str | None = None) -> SiteData:
    """Every series with its findings, as `history check` finds them with the same
    settings (its defaults are check's), and the stored checks. `kept`: the analysis
    file of the last publish (analysis_cache.FILE in the site's directory, may be
    missing): the findings of a series whose inputs are unchanged are taken from it,
    the others computed (each from its own random stream, as check does: the same
    findings either way)."""
    from benchlab.history import analysis_cache

    stamp = analysis_cache.code_stamp() if kept is not None and seed is not None else ""
    cached, note = analysis_cache.read(kept, stamp) if stamp else ({}, None)
    settings = (threshold, confidence, seed, min_segment)
    keys = [analysis_cache.key(s, history, i, settings) if stamp else None
            for i, s in enumerate(series)]
    reused, notes = {}, [note] if note else []
    for i, k in enumerate(keys):
        if k is None:
            continue
        reused[i], damaged = analysis_cache.findings(cached, k)
        if damaged is not None:
            name = "{} ({}, {})".format(*series[i].key)
            notes.append(f"{kept}: the kept analysis of {name} cannot be used "
                         f"({damaged}): that series analysed again")
    missing = {s.key for i, s in enumerate(series) if reused.get(i) is None}
    found = dict((s.key, f) for s, f in confirmed_changes(
        series, history, threshold=threshold, confidence=confidence, seed=seed,
        min_segment=min_segment, only=missing)) if missing else {}
    shown = tuple(series_history(s, reused.get(i) or found[s.key], confidence)
                  for i, s in enumerate(series))
    return SiteData(tuple(history), shown, threshold, confidence, seed, min_segment,
                    tuple(checks), tuple(keys), len(missing), stamp, tuple(notes))
