"""history show's sparkline and per-commit intervals without levels."""

from __future__ import annotations

import numpy as np
import pytest

from benchlab.history.show import commit_intervals
from benchlab.history.store import Series
from benchlab.report.history import BLOCKS, sparkline


def test_sparkline_spans_the_blocks_and_bins_long_series():
    spark, marks = sparkline([0.0, 1.0, 2.0, 7.0], [2])
    assert spark == BLOCKS[0] + BLOCKS[1] + BLOCKS[2] + BLOCKS[7] and marks == "  ^"
    spark, marks = sparkline(list(range(640)), [320], width=64)
    assert len(spark) == 64 and spark[0] == BLOCKS[0] and spark[-1] == BLOCKS[-1]
    assert marks.index("^") == 32
    assert sparkline([3.0] * 5, [])[0] == BLOCKS[0] * 5


def test_without_levels_each_measurement_is_a_unit():
    from scipy import stats

    values = np.array([1.0, 1.2, 0.9, 2.0, 2.5, 3.0])
    s = Series("b", "time", "m", "s", False, (), np.array([0, 0, 0, 2, 2, 5]), values, ())
    at, mean, low, high, n = commit_intervals(s, 0.9)
    assert at.tolist() == [0, 2, 5] and n.tolist() == [3, 2, 1]
    lo, hi = stats.t.interval(0.9, 2, loc=values[:3].mean(), scale=stats.sem(values[:3]))
    assert (low[0], high[0]) == (pytest.approx(lo), pytest.approx(hi))
    assert mean[2] == 3.0 and np.isnan(low[2]) and np.isnan(high[2])
