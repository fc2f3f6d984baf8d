"""`history compare`: a head commit against its branch's baseline segment, as `compare` does.

The baseline of a series is its commits on the head's branch before the head,
since the last change that `history check` confirms on them (history/check.py):
the commits that measure the current level. Each baseline commit is one unit
(the mean of its top-level units: its runs when the input recorded levels, else
its measurements). The benchmarks are then compared as a suite
(stats/suite.py compare_suite): one ratio CI per benchmark, the geometric mean,
and family-wise (Holm) decisions over the benchmarks.

The head is one commit. Its runs show only their own spread, never how far this
build of the commit sits from the commit's level: commits (builds, layouts)
differ by more than their runs say (Kalibera & Jones 2013), which the baseline's
commit means carry and a head judged on its runs alone would not. So the head's
mean gets the variance sigma2_commit + sigma2_within / n_head, both estimated from
the baseline segment by the method of moments (stats/commit_variance.py), and
enters the suite as pseudo-units with that variance and the matching degrees
of freedom. The table still shows the head's own runs (n, mean, their CI); the
notes give each baseline and its commit-to-commit spread.

A head whose runs vary more than the baseline's (a change that adds run-to-run
noise) keeps its own within-commit variance, with its degrees of freedom, and
the commit-to-commit spread comes from the baseline alone (stats/commit_variance.py:
the F test of the two and the order-restricted choice); when the F test says so
at 1% a note names the benchmark, how many times the head's run SD is the
baseline's and the test's p: a head that became noisier is worth knowing of by
itself.

With one earlier commit on the branch (the everyday check of a change against
its parent) there is no commit-to-commit variance to estimate: the method of
moments needs 2 baseline commits (COMMITS_FOR_SPREAD). The head's top-level
units are then compared with the parent's as `compare` compares two samples
(Fieller's CI of the ratio with Welch's df: within-commit variance only), and a
note says that the commit-to-commit variance is unknown, so that the CI is too
narrow when commits differ by more than their runs, and how many more commits
estimating it needs. Each such benchmark is listed in `parent_only`.

A benchmark of the head that its baseline lacks (a new benchmark, or a parent
or head with fewer than 2 units to give a within-commit variance) is not
compared: it is listed as a row of its own ("new benchmark, no baseline"), and
a head with nothing to compare gives only those rows.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from benchlab.errors import InputError
from benchlab.history.check import MIN_SIZE, commit_means, series_changes
from benchlab.history.store import Commit, Series
from benchlab.notation import plural
from benchlab.result import Result
from benchlab.stats.commit_variance import (
    HeadVariance,
    head_variance,
    pseudo_size,
    pseudo_units,
)
from benchlab.stats.compare import OPTIONAL_STOPPING
from benchlab.stats.descriptive import describe
from benchlab.stats.spec import DEFAULT_REPLICATES
from benchlab.stats.suite import SuiteResult, compare_suite
from benchlab.units import make_unit

NEW = "new benchmark, no baseline"
COMMITS_FOR_SPREAD = 2  # earlier commits the commit-to-commit variance needs (moments)
MIN_UNITS = 2  # top-level units per side of a parent-only comparison (a within variance)
HEAD_STOPPING = ("an inconclusive result: more runs of the head narrow its CI only down to the "
                 "commit-to-commit spread, and rerunning until a result appears inflates false "
                 "alarms; judge the next commits together (history check) instead")


@dataclass(frozen=True)
class Unbaselined:
    """A benchmark of the head without a baseline to compare with: `baseline_commits`
    earlier commits on its branch (0: a new benchmark), and the head's own units."""

    benchmark: str
    metric: str
    machine: str
    unit: str
    head_mean: float
    head_n: int
    baseline_commits: int

    parent_n: int = 0

    @property
    def text(self) -> str:
        if self.baseline_commits == 0:
            return NEW
        return (f"no baseline: 1 earlier commit on its branch with {self.parent_n} unit"
                f"{'s' if self.parent_n != 1 else ''}, the head {self.head_n}; comparing with "
                f"the parent needs {MIN_UNITS} on each side")


@dataclass(frozen=True)
class ParentOnly:
    """A benchmark compared with its parent alone (one earlier commit on its branch): the
    parent, both sides' top-level units, and the earlier commits that estimating the
    commit-to-commit variance needs (`commits_needed`, of which there is 1)."""

    benchmark: str
    parent: str
    parent_n: int
    head_n: int
    commits_needed: int = COMMITS_FOR_SPREAD

    @property
    def note(self) -> str:
        return (f"{self.benchmark}: compared with its parent {self.parent} alone (1 earlier "
                f"commit on its branch): the head's {plural(self.head_n, 'unit')} against the "
                f"parent's "
                f"{self.parent_n}, within-commit variance only")


def unknown_spread_note(count: int) -> str:
    """The note of a head compared with its parent: what the CI lacks, and what would fix it."""
    these = "this CI is" if count == 1 else "these CIs are"
    return ("with one earlier commit the commit-to-commit variance is unknown: "
            f"{these} too narrow when commits differ by more than their runs; estimating it "
            f"needs {COMMITS_FOR_SPREAD} earlier commits on the branch "
            f"({COMMITS_FOR_SPREAD - 1} more)")


@dataclass(frozen=True)
class Spread:
    """Per compared benchmark: its baseline (commits, first commit) and the head's
    variance (stats.commit_variance.HeadVariance) with the number of pseudo-units and
    the degrees of freedom the comparison used."""

    benchmark: str
    baseline_start: str
    variance: HeadVariance
    pseudo_n: int
    df: float


@dataclass(frozen=True)
class HistoryCompare(SuiteResult):  # the renderers: report/history.py
    """The suite comparison of the head with its baselines (SuiteResult), plus the
    benchmarks without a baseline, each compared benchmark's spread, and those compared
    with their parent alone."""

    head: str = ""
    unbaselined: tuple[Unbaselined, ...] = ()
    spreads: tuple[Spread, ...] = ()
    parent_only: tuple[ParentOnly, ...] = ()


@dataclass(frozen=True)
class HeadWithoutBaseline(Result):
    """A head none of whose benchmarks has a baseline: one row per benchmark."""

    head: str
    unbaselined: tuple[Unbaselined, ...]
    confidence: float
    threshold: float
    notes: tuple[str, ...] = ()
    seed: int | None = None


def shown_name(s: Series, several: bool) -> str:
    """A benchmark's name in the comparison: with its metric and machine when the compared
    series are of several (metric, machine) pairs."""
    return f"{s.benchmark} ({s.metric}, {s.machine})" if several else s.benchmark


def series_names(series: list[Series]) -> dict[str, tuple[str, str, str]]:
    """Each series' (benchmark, metric, machine) by its name in a comparison of `series`."""
    several = len({(s.metric, s.machine) for s in series}) > 1
    return {shown_name(s, several): s.key for s in series}


def top_units(s: Series, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The top-level units of the rows in `mask`: each one's commit position and mean
    (its runs with levels, else the measurements themselves)."""
    at, values = s.commit_index[mask], s.values[mask]
    if not s.level_names:
        return at, values
    top = s.levels[0][mask]
    keys = np.stack([at.astype(str), top])
    _, first, inverse = np.unique(keys, axis=1, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    means = np.bincount(inverse, weights=values) / np.bincount(inverse)
    return at[first], means


def _branch_mask(s: Series, history: list[Commit], head: int) -> np.ndarray:
    """The rows of commits before the head on its branch (or without a branch)."""
    branch = history[head].branch
    before = np.flatnonzero([i < head and (branch is None or history[i].branch in
                                           (branch, None)) for i in range(len(history))])
    return np.isin(s.commit_index, before)


def baseline_commits(s: Series, history: list[Commit], head: int, *, threshold: float,
                     confidence: float, seed=0) -> np.ndarray:
    """The positions of the baseline segment's commits: those before the head on its
    branch since the last change `history check` confirms on them (oldest first)."""
    keep = _branch_mask(s, history, head)
    before = replace(s, commit_index=s.commit_index[keep], values=s.values[keep],
                     levels=tuple(lv[keep] for lv in s.levels))
    at, means = commit_means(before)
    start = 0
    if means.size >= 2 * MIN_SIZE:
        changes, _ = series_changes(before, history, threshold=threshold,
                                    confidence=confidence, seed=seed)
        if changes:
            sha = changes[-1].commit
            start = int(np.flatnonzero([history[i].sha == sha for i in at])[0])
    return at[start:]


def _compared(s: Series, base_at: np.ndarray, head: int, history: list[Commit],
              head_spread: bool = True) -> tuple[np.ndarray, np.ndarray, Spread, np.ndarray]:
    """The baseline's commit means, the head's pseudo-units, the Spread, and the head's
    own units (for the table); `head_spread` as in stats.commit_variance.head_variance."""
    b_at, b_units = top_units(s, np.isin(s.commit_index, base_at))
    _, h_units = top_units(s, s.commit_index == head)
    hv = head_variance(b_units, b_at, h_units, head_spread=head_spread)
    _, code = np.unique(b_at, return_inverse=True)
    code = code.ravel()
    base = np.bincount(code, weights=b_units) / np.bincount(code)
    ratio = hv.head_mean / hv.baseline_mean if hv.baseline_mean > 0 else 1.0
    m = pseudo_size(hv, ratio)
    spread = Spread(s.benchmark, history[int(base_at[0])].sha, hv, m, hv.pivot_df(ratio))
    return base, pseudo_units(hv.head_mean, hv.variance, m), spread, h_units


def _spread_note(name: str, sp: Spread) -> str:
    hv = sp.variance
    mean = hv.baseline_mean
    rel = (lambda v: f"{100 * np.sqrt(v) / abs(mean):.2g}%") if mean else (
        lambda v: f"{np.sqrt(v):.3g}")
    said = (f"{name}: baseline {plural(hv.k, 'commit')} from {sp.baseline_start}; "
            "commit-to-commit "
            f"spread {rel(hv.commit)}, within a commit {rel(hv.within)} per unit")
    if hv.truncated:
        said += " (estimated at or below 0, taken as 0)"
    return said + f"; the head's mean ±{rel(hv.variance)} (1 s.e., {plural(hv.head_n, 'unit')})"


def _noise_note(name: str, sp: Spread) -> str | None:
    """The note of a head whose runs vary significantly more than its baseline's."""
    noise = sp.variance.noise
    if noise is None or not noise.noisier:
        return None
    return (f"{name}: the head's runs vary {noise.sd_ratio:.2g}× more (SD) than the "
            f"baseline's (F test p = {noise.p:.2g}): its CI uses the head's own spread")


def _shown(result: SuiteResult, heads: dict[str, np.ndarray]) -> SuiteResult:
    """The suite with each head's own units in its descriptives (not the pseudo-units),
    and no new-experiment advice (more runs of one commit cannot shrink the commit
    spread; the advice counted pseudo-units)."""
    out = []
    for bench, r in result.benchmarks:
        samples = tuple(describe(heads[bench], d.name) if d.name == "head" else d
                        for d in r.samples)
        comparisons = []
        for c in r.comparisons:
            v = c.verdict
            if v.advice is not None and v.advice.new_experiment is not None:
                text = v.text.split("; a new experiment needs about")[0]
                v = replace(v, text=text, advice=replace(v.advice, new_experiment=None))
            comparisons.append(replace(c, verdict=v))
        out.append((bench, replace(r, samples=samples, comparisons=tuple(comparisons))))
    return replace(result, benchmarks=tuple(out))


def compare_head(series: list[Series], history: list[Commit], head_sha: str, *,
                 threshold: float = 0.02, confidence: float = 0.95,
                 seed: int | None = 0, replicates: int = DEFAULT_REPLICATES,
                 head_spread: bool = True) -> HistoryCompare | HeadWithoutBaseline:
    """The suite comparison of the head with each series' baseline; the head's
    benchmarks without a baseline as rows of their own (see the module docstring).
    `head_spread=False` pools the head's within-commit spread with the baseline's
    whatever the F test says (the former method, for validation)."""
    position = {c.sha: i for i, c in enumerate(history)}
    if head_sha not in position:
        raise InputError(f"no commit {head_sha!r} in the history")
    head = position[head_sha]
    several = len({(s.metric, s.machine) for s in series}) > 1
    data: dict = {}
    notes: list[str] = []
    spreads: list[Spread] = []
    heads: dict[str, np.ndarray] = {}
    lacking: list[Unbaselined] = []
    parents: list[ParentOnly] = []
    units = set()
    for s in series:
        name = shown_name(s, several)
        if not np.any(s.commit_index == head):
            continue
        base_at = baseline_commits(s, history, head, threshold=threshold,
                                   confidence=confidence, seed=seed)
        if base_at.size < COMMITS_FOR_SPREAD:
            _, own = top_units(s, s.commit_index == head)
            parent = (top_units(s, s.commit_index == base_at[0])[1] if base_at.size
                      else np.empty(0))
            if base_at.size == 0 or min(own.size, parent.size) < MIN_UNITS:
                lacking.append(Unbaselined(name, s.metric, s.machine, s.unit,
                                           float(own.mean()), int(own.size),
                                           int(base_at.size), int(parent.size)))
                continue
            only = ParentOnly(name, history[int(base_at[0])].sha, int(parent.size),
                              int(own.size))
            parents.append(only)
            notes.append(only.note)
            data[name] = [("baseline", parent, []), ("head", own, [])]
            heads[name] = own
            units.add((s.unit, s.higher_is_better))
            continue
        base, pseudo, spread, own = _compared(s, base_at, head, history, head_spread)
        spreads.append(replace(spread, benchmark=name))
        notes.append(_spread_note(name, spread))
        noisier = _noise_note(name, spread)
        if noisier is not None:
            notes.append(noisier)
        data[name] = [("baseline", base, []), ("head", pseudo, [])]
        heads[name] = own
        units.add((s.unit, s.higher_is_better))
    if parents:
        notes.append(unknown_spread_note(len(parents)))
    notes += [f"{u.benchmark}: {u.text}" for u in lacking]
    if not data and not lacking:
        raise InputError(f"commit {head_sha!r} has no results")
    if not data:
        return HeadWithoutBaseline(head_sha, tuple(lacking), confidence, threshold,
                                   tuple(notes), seed)
    unit = make_unit(*units.pop()) if len(units) == 1 else None
    result = compare_suite(data, [], baseline="baseline", confidence=confidence,
                           threshold=threshold, unit=unit, seed=seed, diagnostics=False,
                           replicates=replicates)
    result = _shown(result, heads)
    fields = {f: getattr(result, f) for f in SuiteResult.__dataclass_fields__}
    fields["notes"] = (*notes, *(HEAD_STOPPING if n == OPTIONAL_STOPPING else n
                                 for n in result.notes))
    return HistoryCompare(**fields, head=head_sha, unbaselined=tuple(lacking),
                          spreads=tuple(spreads), parent_only=tuple(parents))
