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

E-Divisive misses a level that lasts a few commits and a change with fewer than 3
commits after it, so the segments it leaves are then scanned (stats/window_scan.py):
windows of 1 .. 32 commits against the rest of their segment, each by Fieller's CI at
a Bonferroni level over every window of the series; a window of `min_segment` commits
or more is an episode (a change and its undoing, one report), a window of one commit
a transient (a spike, reported apart and never a change). The newest 1 .. 5 commits
are a family of their own: a change there is reported as recent, with how large a
change the next commits could show.

Two steps are one episode when the level after the later one is back where it was before
the earlier one: the ratio of those two segments' means has its CI (at the judgement's
confidence) within ±threshold, the verdict "equivalent" — an equivalence test (two
one-sided tests at (1 - confidence)/2 each) whose margin is the threshold — and the
commits between, against those before and after, clear the threshold (_linked). Any
length from `min_segment` commits up, steps between the two kept as they are.
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
from benchlab.stats.verdict import Verdict, verdict_sentence
from benchlab.stats.window_scan import (
    HEAD_LENGTH,
    MAX_LENGTH,
    MIN_CONTEXT,
    Window,
    detectable,
    family_size,
    head_change,
    scan,
)
from benchlab.units import Unit, make_unit

MIN_SIZE = 3  # commits on each side of a change, at least
MIN_SEGMENT = 2  # the fewest commits an episode (a short segment) may have
KINDS = ("step", "episode", "head")


@dataclass(frozen=True)
class Change:
    """One reported change: where it starts (`commit`, the first commit of the new level)
    and the ratio after/before of the segments' means, with its CI and verdict.

    kind: "step" (a persistent change: the segment after against the segment before),
    "episode" (a short segment of `commits_after` commits against the `commits_before`
    other commits of its segment, ending at `end_commit`, the first commit back at that
    level: a regression and its fix, one report) or "head" (the newest `commits_after`
    commits against the `commits_before` before them). `recent`: at most HEAD_LENGTH
    commits have come since, so its size may still move. `back`: for an episode made of
    two steps, the ratio of the level after its end over the level before its start, whose
    CI within ±threshold linked them (None for every other change)."""

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
    kind: str = "step"
    end_commit: str | None = None
    recent: bool = False
    back: RatioInterval | None = None


@dataclass(frozen=True)
class Transient:
    """A one-commit spike: the commit's mean against the `commits_compared` other commits
    of its segment, with the CI at the scan's family-wise level. Never a change."""

    benchmark: str
    metric: str
    machine: str
    unit: str
    commit: str
    ratio: RatioInterval
    verdict: Verdict
    commits_compared: int


@dataclass(frozen=True)
class HeadPower:
    """What the newest commits of a series can show: the `commits` since its last change
    (the head's baseline), their spread (relative SD of a commit's mean), and per k = 1 ..
    HEAD_LENGTH commits at a new level the smallest change the head test reports with 80%
    power (`detectable[k - 1]`, a ratio minus 1)."""

    benchmark: str
    metric: str
    machine: str
    commits: int
    spread: float
    detectable: tuple[float, ...]


@dataclass(frozen=True)
class HistoryCheck(Result):
    """Every change whose CI clears the threshold, oldest first per series; the one-commit
    spikes apart (`transients`); what the head of each series can show (`heads`)."""

    changes: tuple[Change, ...]
    threshold: float
    confidence: float
    series: int
    commits: int
    notes: tuple[str, ...] = ()
    seed: int | None = None
    transients: tuple[Transient, ...] = ()
    heads: tuple[HeadPower, ...] = ()
    min_segment: int = MIN_SEGMENT


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


def _persistent(means: np.ndarray, unit: Unit, *, threshold: float, confidence: float,
                seed, significance: float | None, test: str, permutations: int
                ) -> tuple[list[int], list[Comparison]]:
    """E-Divisive's cuts that survive the judgement, and each one's comparison."""
    cuts = list(e_divisive(means, min_size=MIN_SIZE, significance=significance, test=test,
                           permutations=permutations, seed=seed).indices)
    cuts = _placed(means, cuts)
    while True:
        judged = [(cut, _judge(means, cuts, cut, unit, threshold, confidence)) for cut in cuts]
        weak = [(cut, c) for cut, c in judged if c.verdict.outcome != "change"]
        if not weak:
            return cuts, [c for _, c in judged]
        cuts.remove(min(weak, key=lambda item: _strength(item[1]))[0])


def _placed(means: np.ndarray, cuts: list[int]) -> list[int]:
    """Each cut moved to where, within MIN_SIZE commits of it and between its neighbours,
    the two means of the segments around it fit best (least squares): E-Divisive's
    distance statistic can place a step a few commits off when a short episode lies near
    it, which would then leave those commits to be reported as an episode of their own."""
    cuts = list(cuts)
    for j, cut in enumerate(cuts):
        a = cuts[j - 1] if j else 0
        b = cuts[j + 1] if j + 1 < len(cuts) else means.size
        lo, hi = max(a + MIN_SIZE, cut - MIN_SIZE), min(b - MIN_SIZE, cut + MIN_SIZE)
        if hi <= lo:
            continue
        z = means[a:b] - means[a:b].mean()
        s1 = np.cumsum(z)
        t = np.arange(lo - a, hi - a + 1)
        total = s1[-1]
        # the variance the two means explain: S(t)^2/t + (T - S(t))^2/(n - t), to maximise
        gain = s1[t - 1] ** 2 / t + (total - s1[t - 1]) ** 2 / (z.size - t)
        cuts[j] = int(a + t[int(np.argmax(gain))])
    return cuts


def _too_short(s: Series, size: int) -> str | None:
    need = minimum_length(MIN_SIZE)
    if size >= need:
        return None
    name = f"{s.benchmark} ({s.metric}, {s.machine})"
    return (f"{name}: {size} commit{'s' if size != 1 else ''}; finding a change needs at "
            f"least {need} ({MIN_SIZE} on each side), so none is reported")


def series_changes(s: Series, history: list[Commit], *, threshold: float, confidence: float,
                   seed=0, significance: float | None = None, test: str = "ttest",
                   permutations: int = 199) -> tuple[list[Change], str | None]:
    """The confirmed persistent changes (steps) of one series, or a note saying why it has
    none to offer: what `history compare` starts its baseline after."""
    at, means = commit_means(s)
    note = _too_short(s, means.size)
    if note:
        return [], note
    unit = make_unit(s.unit or None, s.higher_is_better)
    cuts, judged = _persistent(means, unit, threshold=threshold, confidence=confidence,
                               seed=seed, significance=significance, test=test,
                               permutations=permutations)
    return _steps(s, history, at, means.size, cuts, judged), None


def _steps(s: Series, history: list[Commit], at: np.ndarray, n: int, cuts: list[int],
           judged: list[Comparison]) -> list[Change]:
    edges = segments(n, tuple(cuts))
    return [Change(s.benchmark, s.metric, s.machine, s.unit, history[at[cut]].sha,
                   history[at[cut - 1]].sha, c.ratio, c.verdict, cut - a, b - cut,
                   recent=n - cut <= HEAD_LENGTH)
            for cut, c, (a, _), (_, b) in zip(cuts, judged, edges[:-1], edges[1:],
                                             strict=True)]


def _kept(means: np.ndarray, mask: np.ndarray, a: int, b: int) -> np.ndarray:
    return means[a:b][~mask[a:b]]


@dataclass(frozen=True)
class Link:
    """Steps i and j of a series as one episode: its commits (`inside` of them) against
    the `around` ones before i and after j (`episode`), and after j against before i
    (`back`, "equivalent")."""

    i: int
    j: int
    episode: Comparison
    back: Comparison
    around: int
    inside: int


def _linked(means: np.ndarray, cuts: list[int], mask: np.ndarray, unit: Unit, *,
            threshold: float, confidence: float, min_segment: int
            ) -> list[Link]:
    """The pairs of steps (i, j) that are one episode: for each step i, oldest first, the
    first later step j at least `min_segment` commits on, neither linked yet, after which
    the level is back where it was before i (the segment after j against the segment
    before i: "equivalent", its CI within ±threshold, an equivalence test at that margin),
    with the commits between i and j a change against those two segments together. The
    episodes, spikes and change at the head found in those segments (`mask`) are left
    out."""
    edges = [0, *cuts, means.size]
    used: set[int] = set()
    out = []
    for i in range(len(cuts)):
        if i in used:
            continue
        before = _kept(means, mask, edges[i], edges[i + 1])
        for j in range(i + 1, len(cuts)):
            after = _kept(means, mask, edges[j + 1], edges[j + 2])
            inside = _kept(means, mask, cuts[i], cuts[j])
            if min(before.size, after.size, inside.size) < 2:
                continue
            back = compare_samples([("before", before), ("after", after)],
                                   confidence=confidence, threshold=threshold, unit=unit,
                                   diagnostics=False, advise=False, noun="commits")
            if back.comparisons[0].verdict.outcome != "equivalent":
                continue
            # the level is back: linked, or not, here; a later step starts something else
            if j not in used and cuts[j] - cuts[i] >= min_segment:
                episode = compare_samples(
                    [("the commits around it", np.concatenate([before, after])),
                     ("the episode", inside)], confidence=confidence, threshold=threshold,
                    unit=unit, diagnostics=False, advise=False, noun="commits")
                if episode.comparisons[0].verdict.outcome == "change":
                    out.append(Link(i, j, episode.comparisons[0], back.comparisons[0],
                                    before.size + after.size, inside.size))
                    used |= {i, j}
            break
    return out


def _link(changes: list[Change], pairs: list[Link], cuts: list[int], sha: list[str], n: int
          ) -> list[Change]:
    """The steps (the first len(cuts) of `changes`) with each linked pair made one
    episode."""
    steps, rest = changes[:len(cuts)], changes[len(cuts):]
    gone: set[int] = set()
    for p in pairs:
        s = steps[p.i]
        rest.append(Change(
            s.benchmark, s.metric, s.machine, s.unit, sha[cuts[p.i]], sha[cuts[p.i] - 1],
            p.episode.ratio, p.episode.verdict, p.around, p.inside, kind="episode",
            end_commit=sha[cuts[p.j]], recent=n - cuts[p.j] <= HEAD_LENGTH,
            back=p.back.ratio))
        gone |= {p.i, p.j}
    return [c for k, c in enumerate(steps) if k not in gone] + rest


@dataclass(frozen=True)
class Findings:
    """What `history check` finds in one series: its changes (steps, episodes, a change at
    the head; oldest first), its transients, what its head can show, or a note."""

    changes: tuple[Change, ...]
    transients: tuple[Transient, ...]
    head: HeadPower | None
    note: str | None


def _verdict(w: Window, unit: Unit, threshold: float, candidate: str, baseline: str
             ) -> Verdict:
    r = w.ratio
    above = r.estimate > 1.0
    text = verdict_sentence(w.outcome, baseline, candidate, r.estimate, r.low, r.high,
                            threshold, r.confidence, unit, None, noun="commits")
    return Verdict(w.outcome, text, threshold, "increase" if above else "decrease",
                   unit.is_regression(above))


def _lengths(min_segment: int) -> tuple[int, ...]:
    return (1, *range(max(2, min_segment), MAX_LENGTH + 1))


def _head_power(s: Series, means: np.ndarray, start: int, mask: np.ndarray, *,
                threshold: float, confidence: float) -> HeadPower | None:
    """How large a change 1 .. HEAD_LENGTH new commits show, from the last segment's own
    spread (its commits less the changes and spikes found in it)."""
    rest = means[start:][~mask[start:]]
    if rest.size < MIN_CONTEXT or not rest.mean() > 0:
        return None
    base, var = float(rest.mean()), float(rest.var(ddof=1))
    level = 1.0 - (1.0 - confidence) / HEAD_LENGTH
    return HeadPower(s.benchmark, s.metric, s.machine, int(rest.size),
                     float(np.sqrt(var) / base),
                     tuple(detectable(var, base, int(rest.size), k, threshold=threshold,
                                      level=level) for k in range(1, HEAD_LENGTH + 1)))


def series_findings(s: Series, history: list[Commit], *, threshold: float, confidence: float,
                    seed=0, min_segment: int = MIN_SEGMENT, significance: float | None = None,
                    test: str = "ttest", permutations: int = 199) -> Findings:
    """Every change of one series (module docstring): E-Divisive's judged steps; the
    windows of the segments they leave that differ from the rest of their segment
    (episodes of `min_segment` .. 32 commits, transients of one), first those ending
    HEAD_LENGTH commits or more before the head; then the newest 1 .. HEAD_LENGTH commits
    (unless a step is that recent) against the rest of the last segment; then the windows
    left near the head."""
    at, means = commit_means(s)
    note = _too_short(s, means.size)
    if note:
        return Findings((), (), None, note)
    unit = make_unit(s.unit or None, s.higher_is_better)
    cuts, judged = _persistent(means, unit, threshold=threshold, confidence=confidence,
                               seed=seed, significance=significance, test=test,
                               permutations=permutations)
    n = means.size
    bounds = segments(n, tuple(cuts))
    lengths = _lengths(min_segment)
    m = family_size(bounds, n, lengths)
    found, mask = scan(means, bounds, threshold=threshold, confidence=confidence,
                       lengths=lengths, stop_before=n - HEAD_LENGTH, family=m)
    head = None
    last_start = bounds[-1][0]
    if n - last_start > HEAD_LENGTH:
        head = head_change(means, last_start, threshold=threshold, confidence=confidence,
                           excluded=mask)
        if head is not None:
            mask[head.start:] = True
    # only windows that reach into the newest HEAD_LENGTH commits are not judged yet,
    # unless a change at the head has changed the last segment's context
    near = [(a, b) for a, b in bounds if b > n - HEAD_LENGTH]
    first = 0 if head is not None else n - HEAD_LENGTH - MAX_LENGTH
    more, mask = scan(means, bounds, threshold=threshold, confidence=confidence,
                      lengths=lengths, excluded=mask, family=m, only=near, first=first)
    sha = [history[i].sha for i in at.tolist()]
    changes = _steps(s, history, at, n, cuts, judged)
    pairs = _linked(means, cuts, mask, unit, threshold=threshold, confidence=confidence,
                    min_segment=min_segment)
    transients = []
    for w in [*found, *more]:
        if w.length == 1:
            transients.append(Transient(
                s.benchmark, s.metric, s.machine, s.unit, sha[w.start], w.ratio,
                _verdict(w, unit, threshold, f"commit {sha[w.start]}",
                         "the commits around it"), w.context))
            continue
        changes.append(Change(
            s.benchmark, s.metric, s.machine, s.unit, sha[w.start], sha[w.start - 1],
            w.ratio, _verdict(w, unit, threshold, "the episode", "the commits around it"),
            w.context, w.length, kind="episode", end_commit=sha[w.end],
            recent=n - w.end <= HEAD_LENGTH))
    if head is not None:
        changes.append(Change(
            s.benchmark, s.metric, s.machine, s.unit, sha[head.start], sha[head.start - 1],
            head.ratio, _verdict(head, unit, threshold, "the head", "the commits before it"),
            head.context, head.length, kind="head", recent=True))
    changes = _link(changes, pairs, cuts, sha, n)
    position = {c: i for i, c in enumerate(sha)}
    changes.sort(key=lambda c: position[c.commit])
    transients.sort(key=lambda t: position[t.commit])
    power = _head_power(s, means, last_start, mask, threshold=threshold,
                        confidence=confidence)
    return Findings(tuple(changes), tuple(transients), power, None)


def confirmed_changes(series: list[Series], history: list[Commit], *, threshold: float,
                      confidence: float, seed: int | None = 0, permutations: int = 199,
                      only: set[tuple[str, str, str]] | None = None,
                      min_segment: int = MIN_SEGMENT
                      ) -> list[tuple[Series, Findings]]:
    """Every series' findings: the one answer `history check` and `history show` give.
    Each series draws from its own stream of `seed`, spawned over the whole history's
    series in order, so a series gets the same changes whether it is judged with the
    others or alone (`only`: the keys of the series to judge, all when None)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError("confidence must be between 0 and 1")
    if threshold < 0 or not math.isfinite(threshold):
        raise ValueError("threshold must be a finite number >= 0")
    if not 2 <= min_segment <= MAX_LENGTH:
        raise ValueError(f"min_segment must be between 2 and {MAX_LENGTH}")
    seeds = np.random.SeedSequence(seed).spawn(len(series)) if series else []
    out = []
    for s, stream in zip(series, seeds, strict=True):
        if only is not None and s.key not in only:
            continue
        out.append((s, series_findings(s, history, threshold=threshold,
                                       confidence=confidence,
                                       seed=np.random.default_rng(stream),
                                       min_segment=min_segment, permutations=permutations)))
    return out


def check(series: list[Series], history: list[Commit], *, threshold: float = 0.02,
          confidence: float = 0.95, since: int = 0, seed: int | None = 0,
          permutations: int = 199, min_segment: int = MIN_SEGMENT) -> HistoryCheck:
    """The changes of every series whose CI clears `threshold`, and its transients; only
    those starting at position `since` of the history or later are reported (all the data
    is used)."""
    position = {c.sha: i for i, c in enumerate(history)}
    changes: list[Change] = []
    transients: list[Transient] = []
    heads: list[HeadPower] = []
    notes: list[str] = []
    for _, f in confirmed_changes(series, history, threshold=threshold,
                                  confidence=confidence, seed=seed,
                                  permutations=permutations, min_segment=min_segment):
        if f.note:
            notes.append(f.note)
        changes.extend(c for c in f.changes if position[c.commit] >= since)
        transients.extend(t for t in f.transients if position[t.commit] >= since)
        if f.head is not None:
            heads.append(f.head)
    return HistoryCheck(tuple(changes), threshold, confidence, len(series), len(history),
                        tuple(notes), seed, tuple(transients), tuple(heads), min_segment)
