"""history/publish.py: each commit's units and their means, and the findings of `history
check` per series."""

from __future__ import annotations

import numpy as np
import pytest

from benchlab.history.check import check
from benchlab.history.publish import site_data, unit_means
from benchlab.history.show import commit_intervals
from benchlab.history.store import Commit, Series


def _series(levels: bool) -> Series:
    rng = np.random.default_rng(4)
    commit = np.repeat([0, 0, 2, 2, 2, 5], 3)  # three iterations per unit
    run = np.repeat(["b", "a", "a", "c", "b", "a"], 3)  # labels out of order on purpose
    values = rng.normal(10, 1, commit.size)
    order = rng.permutation(commit.size)  # the store may return rows in any order
    return Series("x", "time", "m", "s", False, ("run",) if levels else (), commit[order],
                  values[order], (run[order],) if levels else ())


@pytest.mark.parametrize("levels", [True, False])
def test_unit_means_give_show_s_commit_means(levels):
    s = _series(levels)
    commit, means = unit_means(s)
    at, mean, _, _, n = commit_intervals(s, 0.95)
    assert commit.tolist() == sorted(commit.tolist())
    for i, c in enumerate(at.tolist()):
        mine = means[commit == c]
        assert mine.size == n[i]
        assert mine.mean() == pytest.approx(mean[i], rel=1e-12)
    if levels:  # a unit is the mean of its own iterations
        unit = (s.commit_index == 2) & (s.levels[0] == "c")
        assert np.isclose(means[commit == 2], s.values[unit].mean(), rtol=1e-12).sum() == 1


def test_site_data_holds_check_s_changes():
    rng = np.random.default_rng(9)
    history = [Commit(f"c{i:02d}", None, None) for i in range(30)]
    at = np.repeat(np.arange(30), 3)
    level = np.where(at >= 15, 1.2, 1.0)
    series = [Series(name, "time", "m", "s", False, (), at, level * rng.normal(1, 0.01, at.size),
                     ()) for name in ("a", "b")]
    data = site_data(series, history)
    expected = check(series, history)
    assert expected.changes
    assert [c for s in data.series for c in s.findings.changes] == list(expected.changes)
    assert all(len(s.runs) == s.mean.size == 30 for s in data.series)
