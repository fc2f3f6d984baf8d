"""Adaptive stopping: the half-width is that of compare's Fieller interval on top-level means."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchlab.runner import stopping
from benchlab.stats.compare import compare_samples
from benchlab.stats.hierarchy import unit_means


@settings(max_examples=50, deadline=None)
@given(n_a=st.integers(2, 12), n_b=st.integers(2, 12), seed=st.integers(0, 10**6),
       shift=st.floats(0.5, 2.0))
def test_halfwidth_is_that_of_compare(n_a, n_b, seed, shift):
    rng = np.random.default_rng(seed)
    base = rng.normal(10, 0.5, n_a)
    cand = rng.normal(10 * shift, 0.5, n_b)
    result = compare_samples([("base", base), ("cand", cand)], diagnostics=False)
    ratio = result.comparisons[0].ratio
    half = stopping.relative_halfwidth(base, cand, 0.95)
    if ratio.bounded:
        assert half == pytest.approx((ratio.high - ratio.low) / 2, rel=1e-12)
    else:
        assert half is None


def test_unit_means_match_the_hierarchy_module():
    rng = np.random.default_rng(1)
    builds = np.repeat([1, 2, 3], 12)
    executions = np.tile(np.repeat([1, 2, 3, 4], 3), 3)
    values = rng.normal(5, 1, builds.size)
    mine = stopping.unit_means(values, builds, [executions])
    theirs = unit_means(values, [builds.astype(str), executions.astype(str)])[0]
    np.testing.assert_allclose(mine, theirs)
    # unbalanced: each unit is the mean of its children's means, not of all its values
    keep = ~((builds == 1) & (executions == 1) & (np.arange(builds.size) % 3 != 0))
    mine = stopping.unit_means(values[keep], builds[keep], [executions[keep]])
    first = np.mean([values[keep][(builds[keep] == 1) & (executions[keep] == e)].mean()
                     for e in (1, 2, 3, 4)])
    assert mine[0] == pytest.approx(first)


def test_check_needs_every_comparison_narrow():
    a = np.array([10.0, 10.1, 9.9, 10.0, 10.0])
    narrow = np.array([12.0, 12.1, 11.9, 12.0, 12.0])
    wide = np.array([12.0, 14.0, 10.0, 12.5, 12.0])
    groups = {("a", ()): a, ("b", ()): narrow}
    assert stopping.check(groups, "a", 0.02).narrow
    groups[("c", ())] = wide
    result = stopping.check(groups, "a", 0.02)
    assert not result.narrow and result.worst == "c"
    assert not stopping.check({("a", ()): a, ("b", ()): narrow[:1]}, "a", 0.5).narrow


def test_factor_combinations_are_compared_within():
    n1, n2 = (("n", "1"),), (("n", "2"),)
    groups = {("a", n1): np.full(5, 1.0), ("b", n1): np.full(5, 2.0),
              ("a", n2): np.full(5, 5.0), ("b", n2): np.array([5.0, 7.0, 5.0, 7.0, 6.0])}
    result = stopping.check(groups, "a", 0.01)
    assert not result.narrow and result.worst == "b n=2"


def test_single_alternative_uses_the_ci_of_its_mean():
    x = np.array([100.0, 101.0, 99.0, 100.0, 100.5])
    assert stopping.check({("a", ()): x}, "a", 0.02).narrow
    assert not stopping.check({("a", ()): x}, "a", 0.001).narrow


def test_no_stop_before_five_units_even_when_exact():
    """Constant data give a zero-width CI from 2 units on; the rule still waits for
    MIN_UNITS, since a spread estimated from fewer units misleads (coverage)."""
    for n in range(2, stopping.MIN_UNITS + 1):
        groups = {("a", ()): np.full(n, 10.0), ("b", ()): np.full(n, 12.0)}
        assert stopping.check(groups, "a", 0.01).narrow == (n >= stopping.MIN_UNITS)


def test_the_rule_judges_the_upper_bound_of_the_spread():
    from scipy import stats

    rng = np.random.default_rng(2)
    base, cand = rng.normal(10, 0.3, 8), rng.normal(11, 0.3, 8)
    plain = stopping.relative_halfwidth(base, cand, 0.95)
    guarded = stopping.relative_halfwidth(base, cand, 0.95, guarded=True)
    from benchlab.stats.fieller import welch_ratio_df

    nu = welch_ratio_df(cand.mean() / base.mean(), cand.var(ddof=1) / 8, base.var(ddof=1) / 8,
                        8, 8)
    # exactly the factor sqrt(nu / chi2_0.2(nu)) at the Welch df of the pivot
    assert guarded / plain == pytest.approx(np.sqrt(nu / stats.chi2.ppf(0.2, nu)), rel=1e-9)
    assert guarded / plain > 1.0
