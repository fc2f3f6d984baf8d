"""Two steps linked as one episode (history/check.py `_linked`): a regression that is fixed
is one report whatever its length, when the level after the fix is equivalent to the level
before it (the ratio's CI within ±threshold); a rise that does not come back stays two
steps. Series like the audit's: 80 commits x 5 runs, run SD 1%, commit SD 0.4%."""

from __future__ import annotations

import numpy as np
import pytest

from benchlab.history.check import check, commit_means
from benchlab.history.store import Commit, Series
from benchlab.stats.compare import compare_samples

N, RUNS = 80, 5
HISTORY = [Commit(f"c{i:04d}", None, None) for i in range(N)]


def series(seed: int, start: int = 30, length: int = 10, size: float = 0.10,
           after: float = 1.0) -> Series:
    """Commit levels 100 x (1 + N(0, 0.4%)), x (1 + size) for `length` commits from
    `start`, x `after` from then on; 5 runs per commit with 1% noise."""
    rng = np.random.default_rng(seed)
    level = 100.0 * (1.0 + rng.normal(0, 0.004, N))
    level[start:start + length] *= 1.0 + size
    level[start + length:] *= after
    values = level[:, None] * (1.0 + rng.normal(0, 0.01, (N, RUNS)))
    return Series("b", "time", "m", "s", False, ("run",), np.repeat(np.arange(N), RUNS),
                  values.ravel(), (np.tile(np.arange(RUNS).astype(str), N),))


@pytest.mark.parametrize("seed", [3, 4, 6, 9])  # seeds where E-Divisive finds both steps
def test_a_ten_commit_fixed_regression_is_one_episode(seed):
    s = series(seed)
    [c] = check([s], HISTORY).changes
    assert (c.kind, c.commit, c.end_commit, c.previous_commit) == \
        ("episode", "c0030", "c0040", "c0029")
    assert (c.commits_after, c.commits_before) == (10, 70)
    assert c.verdict.regression and c.ratio.low > 1.07 and c.ratio.high < 1.13
    assert c.ratio.confidence == 0.95
    # `back` is compare's ratio of the level after the fix over the level before
    _, means = commit_means(s)
    ref = compare_samples([("before", means[:30]), ("after", means[40:])], confidence=0.95,
                          threshold=0.02, diagnostics=False, advise=False).comparisons[0]
    assert c.back is not None and ref.verdict.outcome == "equivalent"
    assert (c.back.estimate, c.back.low, c.back.high) == pytest.approx(
        (ref.ratio.estimate, ref.ratio.low, ref.ratio.high), rel=1e-12)
    assert 0.98 < c.back.low < c.back.high < 1.02


def test_a_long_fixed_regression_is_one_episode_too():
    """40 commits: longer than the window scan's 32, linked all the same."""
    [c] = check([series(1, start=20, length=40, size=0.06)], HISTORY).changes
    assert (c.kind, c.commit, c.end_commit, c.commits_after) == ("episode", "c0020", "c0060",
                                                                 40)
    assert c.ratio.low > 1.05 and c.back is not None


@pytest.mark.parametrize("after", [1.05, 1.03])
def test_a_rise_that_does_not_come_back_stays_two_steps(after):
    """The fall leaves the level 5% or 3% above where it was: not within ±2%, two steps."""
    found = check([series(3, after=after)], HISTORY).changes
    assert [(c.kind, c.commit) for c in found] == [("step", "c0030"), ("step", "c0040")]
    assert all(c.back is None for c in found)
    assert found[0].ratio.low > 1.07 and found[1].ratio.high < 1.0


def test_a_margin_of_zero_or_a_longer_minimum_segment_links_nothing():
    """Equivalence needs a margin: with threshold 0 no CI lies within it; an episode of
    fewer commits than --min-segment is no episode."""
    s = series(3)
    assert [c.kind for c in check([s], HISTORY, threshold=0.0).changes] == ["step", "step"]
    assert [c.kind for c in check([s], HISTORY, min_segment=11).changes] == ["step", "step"]
    assert [c.kind for c in check([s], HISTORY, min_segment=10).changes] == ["episode"]


def test_two_fixed_regressions_are_two_episodes():
    s = series(6)
    values = s.values.reshape(N, RUNS).copy()
    values[55:62] *= 1.08
    two = Series(s.benchmark, s.metric, s.machine, s.unit, False, s.level_names,
                 s.commit_index, values.ravel(), s.levels)
    found = check([two], HISTORY).changes
    assert [(c.kind, c.commit, c.end_commit) for c in found] == \
        [("episode", "c0030", "c0040"), ("episode", "c0055", "c0062")]
