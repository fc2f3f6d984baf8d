"""Descriptive statistics, including the exact constant-sample case."""

from __future__ import annotations

import math
import warnings

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


@pytest.mark.parametrize("magnitude", [1e-300, 1e-200, 1.0, 1e200, 1e299])
def test_stddev_at_the_edges_of_the_range(magnitude):
    """The stddev of values near 1e-300 (squares underflow to 0) and near 1e300 (squares
    overflow) is the stddev at magnitude 1, scaled: summary once gave 0 and n/a there
    (found by the fuzz corpus's extreme-valid cases, issue 19)."""
    x = np.random.default_rng(19).lognormal(0.0, 0.1, 600)
    d = describe(x * magnitude)
    assert d.stddev == pytest.approx(np.std(x, ddof=1) * magnitude, rel=1e-12)
    assert math.isfinite(d.sem) and d.sem > 0


def test_stddev_bits_unchanged_in_the_normal_range():
    """Scaling by a power of two is exact: ordinary data give numpy's stddev bit for bit."""
    x = np.random.default_rng(3).normal(100.0, 5.0, 1001)
    assert describe(x).stddev == float(np.std(x, ddof=1))


def test_quartiles_are_numpys_percentile_bit_for_bit():
    """describe's quartiles (computed without np.percentile, which imports numpy.ma) equal
    np.percentile(x, [25, 50, 75]) exactly: sizes 1 to 400, ties, scales 1e-300 to 1e300."""
    import numpy as np

    from benchlab.stats.descriptive import quartiles

    rng = np.random.default_rng(7)
    for k in range(600):
        n = 1 + k % 400
        x = [rng.normal(size=n) * 10.0 ** rng.integers(-300, 300),
             rng.integers(0, 4, n).astype(float), rng.lognormal(size=n)][k % 3]
        assert np.array_equal(quartiles(x), np.percentile(x, [25.0, 50.0, 75.0])), (n, x)


def test_median_is_numpys_bit_for_bit():
    """The Hodges-Lehmann estimates' median (computed without np.median, which imports
    numpy.ma) equals np.median exactly: sizes 0 to 300, odd and even, ties, scales 1e-300
    to 1e300, values near the largest float (their sum overflows in both), NaN."""
    import numpy as np

    from benchlab.stats.descriptive import median

    rng = np.random.default_rng(11)
    cases = [np.array([]), np.array([np.nan, 1.0]), np.array([1.7e308, 1.7e308]),
             np.array([-0.0, 0.0])]
    for k in range(500):
        n = 1 + k % 300
        cases.append([rng.normal(size=n) * 10.0 ** rng.integers(-300, 300),
                      rng.integers(0, 4, n).astype(float), rng.lognormal(size=n)][k % 3])
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the empty array's mean
        for x in cases:
            assert np.array_equal(median(x), np.median(x), equal_nan=True), x


def test_ties_are_found_as_np_unique_finds_them():
    """The signed-rank and rank-sum tests' check for ties (without np.unique, which imports
    numpy.ma) agrees with np.unique: repeated values, two NaNs (equal for np.unique), one."""
    import numpy as np

    from benchlab.stats.classic_tests import _has_ties

    rng = np.random.default_rng(5)
    for x in [np.array([1.0, 2.0]), np.array([1.0, 1.0]), np.array([np.nan, np.nan]),
              np.array([np.nan, 1.0]), *(rng.integers(0, 50, 20).astype(float)
                                         for _ in range(50))]:
        for split in (0, 1):
            a, b = x[:split], x[split:]
            assert _has_ties(a, b) == (np.unique(x).size < x.size), x
