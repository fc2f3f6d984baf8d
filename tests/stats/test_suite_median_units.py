"""Median suites with levels (stats/suite_median_units.py): Welch's t on the log medians of
the top-level units, checked against scipy.stats and closed forms; its refusal below 2
units; its monotonicity; and compare_suite's verdicts read from it."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from benchlab.errors import InputError
from benchlab.stats.suite import compare_suite
from benchlab.stats.suite_median_units import (
    MIN_UNITS,
    unit_log_medians,
    unit_median_test,
)
from benchlab.stats.verdict import classify


def _hier(rng, builds: int, shift: float = 1.0, per: int = 6):
    labels = np.repeat(np.arange(builds), per)
    x = 100 * shift * np.exp(rng.normal(0, 0.02, builds)[labels] + rng.normal(0, 0.01, labels.size))
    return x, labels


def test_unit_log_medians_are_each_units_median():
    rng = np.random.default_rng(1)
    labels = np.array([3, 1, 3, 2, 1, 1, 2, 3, 3, 2, 1])  # unsorted, unequal sizes
    x = rng.uniform(50, 150, labels.size)
    want = [math.log(float(np.median(x[labels == u]))) for u in (1, 2, 3)]
    np.testing.assert_allclose(unit_log_medians(x, labels), want, rtol=1e-14)
    with pytest.raises(ValueError, match="not positive"):
        unit_log_medians(np.array([1.0, -2.0, -3.0, 4.0]), np.array([0, 0, 0, 1]))


@pytest.mark.parametrize("nb,nc", [(5, 5), (3, 7), (2, 2)])
def test_pvalue_is_the_share_of_splits_as_extreme(nb, nc):
    """The permutation p against brute force over every split with scipy's Welch t; the
    interval's bounds are where that p falls to 1 − level."""
    from itertools import combinations

    rng = np.random.default_rng(nb * 100 + nc)
    base, cand = rng.normal(4.6, 0.03, nb), rng.normal(4.62, 0.05, nc)
    t = unit_median_test(base, cand)
    assert t.exact
    for rho in (1.0, 0.97, 1.05):
        x = np.r_[base, cand - math.log(rho)]
        obs = abs(stats.ttest_ind(x[nb:], x[:nb], equal_var=False).statistic)
        ts = []
        for chosen in combinations(range(nb + nc), nc):
            m = np.zeros(nb + nc, bool)
            m[list(chosen)] = True
            ts.append(abs(stats.ttest_ind(x[m], x[~m], equal_var=False).statistic))
        want = np.mean(np.array(ts) >= obs * (1 - 1e-12))
        assert t.pvalue(rho) == pytest.approx(want, rel=1e-12)
    assert t.smallest_pvalue == pytest.approx((2.0 if nb == nc else 1.0) / math.comb(nb + nc, nc))
    low, high = t.interval(0.9)
    if low is not None:
        assert t.pvalue(low * 0.999) <= 0.1 and t.pvalue(high * 1.001) <= 0.1


def test_eight_builds_per_system_against_a_direct_loop():
    """8 + 8 units (12,870 splits, the most a user reaches with equal counts): the cached
    split matrix is every split once, the observed first, and the p-value and the bounds
    of the interval found by bisection agree with Welch's t computed split by split."""
    from itertools import combinations

    from benchlab.stats.suite_median_units import splits

    nb = nc = 8
    rows = splits(nb, nc)
    assert rows.shape == (math.comb(16, 8), 16) and not rows.flags.writeable
    assert rows[0].tolist() == [0.0] * nb + [1.0] * nc  # the observed split first
    assert len({r.tobytes() for r in rows}) == rows.shape[0] and set(rows.sum(axis=1)) == {8.0}
    assert splits(nb, nc) is rows and splits(9, 9) is None

    def welch(x: list[float], chosen: tuple[int, ...]) -> float:
        c = [x[i] for i in chosen]
        b = [v for i, v in enumerate(x) if i not in set(chosen)]
        mc, mb = sum(c) / nc, sum(b) / nb
        vc = sum((v - mc) ** 2 for v in c) / (nc - 1) / nc
        vb = sum((v - mb) ** 2 for v in b) / (nb - 1) / nb
        return abs(mc - mb) / math.sqrt(vc + vb)

    rng = np.random.default_rng(88)
    base, cand = rng.normal(4.6, 0.03, nb), rng.normal(4.63, 0.03, nc)
    t = unit_median_test(base, cand)
    assert t.exact and t.smallest_pvalue == pytest.approx(2 / 12870)
    for rho in (1.0, 1.02):
        x = [*base, *(cand - math.log(rho))]
        obs = welch(x, tuple(range(nb, nb + nc)))
        ts = [welch(x, chosen) for chosen in combinations(range(nb + nc), nc)]
        want = sum(v >= obs * (1 - 1e-12) for v in ts) / len(ts)
        assert t.pvalue(rho) == pytest.approx(want, rel=1e-12)
    a = 0.01
    for bound in t.interval(1 - a):  # the last ratio not rejected; a hair beyond, rejected
        beyond = bound * (1 + 1e-9) if bound > t.estimate else bound * (1 - 1e-9)
        assert t.pvalue(bound) > a >= t.pvalue(beyond)


def test_units_needed_and_the_floor():
    from benchlab.stats.suite_median_units import units_needed

    assert units_needed(20, 0.05) == 6 and units_needed(4, 0.05) == 5
    t = unit_median_test(np.linspace(4.6, 4.61, 5), np.linspace(4.8, 4.81, 5))
    assert t.pvalue(1.0) == pytest.approx(2 / 252)  # all of one side above: the floor
    assert t.interval(1 - 0.05 / 20) == (None, None)  # 0.25% is below 0.79%: unbounded


@pytest.mark.parametrize("nb,nc", [(12, 12)])
def test_pvalue_and_interval_match_scipy_welch(nb, nc):
    rng = np.random.default_rng(nb * 100 + nc)
    base, cand = rng.normal(4.6, 0.03, nb), rng.normal(4.62, 0.05, nc)
    t = unit_median_test(base, cand)
    ref = stats.ttest_ind(cand, base, equal_var=False)
    assert t.pvalue(1.0) == pytest.approx(ref.pvalue, rel=1e-9)
    # "ratio = rho" is the same test on cand − log(rho)
    for rho in (0.97, 1.01, 1.05):
        shifted = stats.ttest_ind(cand - math.log(rho), base, equal_var=False)
        assert t.pvalue(rho) == pytest.approx(shifted.pvalue, rel=1e-9)
    d = cand.mean() - base.mean()
    se = math.sqrt(cand.var(ddof=1) / nc + base.var(ddof=1) / nb)
    df = se**4 / ((cand.var(ddof=1) / nc) ** 2 / (nc - 1) + (base.var(ddof=1) / nb) ** 2 / (nb - 1))
    assert t.estimate == pytest.approx(math.exp(d), rel=1e-12)
    assert t.df == pytest.approx(df, rel=1e-12)
    for level in (0.95, 0.9975):
        q = stats.t.ppf(0.5 + level / 2, df)
        low, high = t.interval(level)
        assert low == pytest.approx(math.exp(d - q * se), rel=1e-9)
        assert high == pytest.approx(math.exp(d + q * se), rel=1e-9)
        # the interval is the set the test does not reject: p at its bounds is 1 − level
        assert t.pvalue(low) == pytest.approx(1 - level, rel=1e-6)
        assert t.pvalue(high) == pytest.approx(1 - level, rel=1e-6)


def test_refused_below_two_units_per_system():
    assert MIN_UNITS == 2
    t = unit_median_test(np.array([4.6]), np.array([4.5, 4.7, 4.6]))
    assert t.refused and t.pvalue(1.0) == 1.0 and t.interval(0.95) == (None, None)
    assert classify(*t.interval(0.95), 0.0) == "inconclusive"
    assert not unit_median_test(np.array([4.6, 4.61]), np.array([4.5, 4.7])).refused


def test_interval_nests_and_pvalue_falls_away_from_the_estimate():
    rng = np.random.default_rng(7)
    t = unit_median_test(rng.normal(4.6, 0.02, 10), rng.normal(4.63, 0.02, 10))
    levels = [0.8, 0.9, 0.95, 0.99, 0.9975, 0.9999]
    bounds = [t.interval(level) for level in levels]
    for (lo1, hi1), (lo2, hi2) in zip(bounds, bounds[1:], strict=False):
        assert lo2 < lo1 < t.estimate < hi1 < hi2
    above = [t.pvalue(t.estimate * f) for f in (1.0, 1.01, 1.02, 1.04, 1.08)]
    below = [t.pvalue(t.estimate / f) for f in (1.0, 1.01, 1.02, 1.04, 1.08)]
    assert above[0] == pytest.approx(1.0) and below[0] == pytest.approx(1.0)
    assert all(a > b for a, b in zip(above, above[1:], strict=False))
    assert all(a > b for a, b in zip(below, below[1:], strict=False))


def test_zero_spread():
    t = unit_median_test(np.log([100.0, 100.0, 100.0]), np.log([105.0, 105.0, 105.0]))
    assert t.se == 0.0 and t.pvalue(1.0) == 0.0 and t.pvalue(t.estimate) == 1.0
    assert t.interval(0.99) == pytest.approx((1.05, 1.05))


def _suite(rng, shifts, builds=6):
    data = {}
    for name, f in shifts.items():
        bx, bl = _hier(rng, builds)
        cx, cl = _hier(rng, builds, f)
        runs = np.tile(np.repeat(np.arange(2), 3), builds)
        data[name] = [("old", bx, [bl, runs]), ("new", cx, [cl, runs])]
    return data


@pytest.mark.parametrize("adjust", ["holm", "none"])
def test_suite_verdicts_are_read_from_the_unit_test(adjust):
    rng = np.random.default_rng(3)
    data = _suite(rng, {"a": 1.0, "b": 1.15, "c": 1.0, "d": 0.98})
    res = compare_suite(data, ["build", "run"], baseline="old", seed=4, statistic="median",
                        bootstrap=300, replicates=100, adjust=adjust, diagnostics=False)
    by_bench = dict(res.benchmarks)
    for d in res.decisions:
        (_, bx, bl), (_, cx, cl) = data[d.benchmark]
        t = unit_median_test(unit_log_medians(bx, bl[0]), unit_log_medians(cx, cl[0]))
        assert d.estimate == pytest.approx(t.estimate, rel=1e-12)
        assert d.pvalue == pytest.approx(t.pvalue(1.0), rel=1e-9)
        assert (d.low, d.high) == pytest.approx(t.interval(d.level), rel=1e-12)
        c = by_bench[d.benchmark].comparisons[0]
        assert c.verdict.outcome == d.outcome == classify(d.low, d.high, 0.0)
        assert "Welch t on their logs" in c.verdict.text and "permutation" in c.verdict.text
        if adjust == "none":
            assert d.level == 0.95 and d.outcome == d.per_benchmark
    assert dict((d.benchmark, d.outcome) for d in res.decisions)["b"] == "change"


def test_suite_decisions_do_not_depend_on_the_seed():
    data = _suite(np.random.default_rng(9), {"a": 1.0, "b": 1.03, "c": 1.0})
    runs = [compare_suite(data, ["build", "run"], baseline="old", seed=s, statistic="median",
                          bootstrap=200, replicates=100, diagnostics=False) for s in (1, 1, 2)]
    assert runs[0].decisions == runs[1].decisions == runs[2].decisions
    assert runs[0].geometric_means == runs[1].geometric_means  # the bootstrap: seeded


def test_suite_with_a_non_positive_unit_median_names_the_benchmark():
    data = _suite(np.random.default_rng(2), {"a": 1.0})
    (_, bx, bl), cand = data["a"]
    bx = bx.copy()
    bx[bl[0] == 0] *= -1
    data["a"] = [("old", bx, bl), cand]
    with pytest.raises(InputError, match="benchmark 'a'.*not positive"):
        compare_suite(data, ["build", "run"], baseline="old", seed=1, statistic="median",
                      bootstrap=200, replicates=100, diagnostics=False)
