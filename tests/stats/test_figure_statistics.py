"""The computations the figures draw (report/figures/ only draws): the CI half-width a
budget buys (plan), the mean's t interval (compare), the OLS reference of qreg."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchlab.stats.descriptive import describe, mean_interval
from benchlab.stats.hierarchy import halfwidth_by_budget, plan_experiment, summarize
from benchlab.stats.qreg import quantile_regression


def _summary():
    rng = np.random.default_rng(5)
    build = np.repeat(np.arange(6), 20)
    run = np.tile(np.repeat(np.arange(4), 5), 6)
    x = (10 + rng.normal(0, 1, 6)[build] + rng.normal(0, 0.5, 24)[build * 4 + run]
         + rng.normal(0, 0.2, 120))
    return summarize(x, [build, run], ["build", "run"])


def test_halfwidth_at_the_plans_budget_is_the_plans_own():
    plan = plan_experiment(_summary(), [60.0, 5.0, 0.1], budget=3600.0)
    optimal, single = halfwidth_by_budget(plan, np.array([3600.0]))
    assert optimal[0] == pytest.approx(plan.optimal.relative_halfwidth, rel=1e-12)
    assert single[0] == pytest.approx(plan.single_level.relative_halfwidth, rel=1e-12)


def test_halfwidth_falls_with_the_budget_and_needs_two_units():
    plan = plan_experiment(_summary(), [60.0, 5.0, 0.1], budget=3600.0)
    per_top = plan.optimal.cost_per_top_unit
    budgets = np.array([1.5 * per_top, 2 * per_top, 10 * per_top, 100 * per_top])
    optimal, _ = halfwidth_by_budget(plan, budgets)
    assert math.isnan(optimal[0])  # one top-level unit: no CI
    assert optimal[1] > optimal[2] > optimal[3] > 0
    # same repetitions below the top: the width goes as t(units - 1) / sqrt(units)
    from scipy import stats

    t9, t99 = stats.t.ppf(0.975, 9), stats.t.ppf(0.975, 99)
    assert optimal[2] / optimal[3] == pytest.approx(math.sqrt(10) * t9 / t99, rel=1e-9)


def test_halfwidth_of_a_target_plan_meets_the_target_at_its_cost():
    plan = plan_experiment(_summary(), [60.0, 5.0, 0.1], target=0.02)
    optimal, _ = halfwidth_by_budget(plan, np.array([plan.optimal.total_cost]))
    assert optimal[0] <= 0.02


def test_mean_interval_is_students():
    from scipy import stats

    x = np.array([3.1, 2.9, 3.4, 3.0, 3.3, 2.8])
    low, high = mean_interval(describe(x), 0.9)
    want = stats.t.interval(0.9, x.size - 1, loc=x.mean(), scale=stats.sem(x))
    assert (low, high) == pytest.approx(want, rel=1e-12)
    assert all(math.isnan(v) for v in mean_interval(describe(np.array([1.0])), 0.95))


def _factorial():
    rng = np.random.default_rng(0)
    codes = np.array([[i % 2, (i // 2) % 2] for i in range(80)])
    y = 10 + 2 * codes[:, 0] + rng.normal(0, 1, 80) + codes[:, 1] * rng.exponential(2, 80)
    return codes, y


def test_ols_reference_matches_statsmodels():
    sm = pytest.importorskip("statsmodels.api")
    codes, y = _factorial()
    r = quantile_regression(y, codes, [2, 2], ["a", "b"], [["lo", "hi"], ["x", "y"]],
                            interactions=1, se="iid", taus=(0.5,))
    fit = sm.OLS(y, sm.add_constant(2.0 * codes - 1)).fit()  # the ±1 coding of qreg's model
    assert r.ols == pytest.approx(fit.params, rel=1e-10)
    assert np.column_stack([r.ols_low, r.ols_high]) == pytest.approx(fit.conf_int(), rel=1e-10)


def test_ols_reference_is_cluster_robust_with_runs():
    sm = pytest.importorskip("statsmodels.api")
    codes, y = _factorial()
    runs = np.arange(80) // 4
    r = quantile_regression(y, codes, [2, 2], ["a", "b"], [["lo", "hi"], ["x", "y"]],
                            interactions=1, se="cluster", cluster=runs, cluster_name="run",
                            replicates=20, seed=1, taus=(0.5,))
    fit = sm.OLS(y, sm.add_constant(2.0 * codes - 1)).fit(
        cov_type="cluster", cov_kwds={"groups": runs}, use_t=True)
    assert np.column_stack([r.ols_low, r.ols_high]) == pytest.approx(fit.conf_int(), rel=1e-10)


def test_ols_reference_of_a_saturated_model_equals_the_explicit_matrix():
    """The per-cell path (nothing n x p built) gives the explicit least squares, iid and
    clustered."""
    from dataclasses import replace

    from benchlab.stats.coding import yates_cells, yates_terms
    from benchlab.stats.qreg import ols_reference
    from benchlab.stats.qreg_design import build_model

    rng = np.random.default_rng(9)
    codes = np.repeat(yates_cells([2, 3]), 40, axis=0)
    y = rng.lognormal(0, 0.4, len(codes)) + codes[:, 0] * 0.3
    model = build_model(y, codes, [2, 3], yates_terms(2), ["a", "b"], [["0", "1"],
                                                                       ["x", "y", "z"]])
    assert model.x is None
    explicit = replace(model, x=model.matrix(), saturated=False)
    cluster = np.tile(np.arange(8), len(y) // 8)
    for runs in (None, cluster):
        got = ols_reference(model, 0.95, runs)
        want = ols_reference(explicit, 0.95, runs)
        for a, b in zip(got, want, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
