"""Descriptive statistics, including the exact constant-sample case."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchlab.stats.descriptive import describe


def test_values():
    d = describe(np.array([50, 200, 150, 400, 750, 400, 150.0]), "iguana")
    assert (d.n, d.min, d.max, d.median, d.mean) == (7, 50, 750, 200, 300)
    assert d.stddev == pytest.approx(238.04761428, rel=1e-9)  # ministat's man page
    assert d.cv == pytest.approx(d.stddev / 300)
    assert describe(np.array([1.0, 2.0, 3.0, 4.0])).median == 2.5


def test_constant_sample_is_exact():
    d = describe(np.full(3, 0.1))
    assert d.stddev == 0.0 and d.mean == 0.1 and d.median == 0.1


def test_single_value():
    d = describe(np.array([5.0]))
    assert d.n == 1 and math.isnan(d.stddev)
