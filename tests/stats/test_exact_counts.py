"""Identical counts (no spread) get the exact answer in every analysis, not a degenerate
interval or a refusal: compare without a ratio, the Speedup-Test, Kruskal-Wallis, the
hierarchy's summary and plan, and the factorial ANOVA. Closed forms: the data are
constants, so every answer is known without statistics."""

from __future__ import annotations

import numpy as np
import pytest

from benchlab.units import make_unit


def test_zero_against_zero_is_no_difference_exactly():
    from benchlab.stats.compare import compare_samples

    result = compare_samples([("old", np.zeros(5)), ("new", np.zeros(5))],
                             unit=make_unit("allocs/op"))
    c = result.comparisons[0]
    assert c.ratio is None  # 0/0: no ratio
    assert c.verdict.outcome == "equivalent" and "exactly" in c.verdict.text
    one = compare_samples([("old", np.zeros(5)), ("new", np.ones(5))],
                          unit=make_unit("allocs/op")).comparisons[0]
    assert one.verdict.outcome == "change" and one.verdict.regression  # 0 → 1 alloc: worse


@pytest.mark.parametrize("protocol", ["speedup-mean", "speedup-median"])
def test_speedup_test_is_exact_without_spread(protocol):
    from benchlab.stats.protocols import speedup_test

    base, fewer = np.full(5, 2_377_153.0), np.full(5, 2_353_381.0)  # 1% fewer instructions
    r = speedup_test(base, fewer, protocol=protocol, unit=make_unit("instructions"))
    assert r.decision == "significant" and "exactly" in r.message and r.test is None
    assert r.speedups.mean == pytest.approx(2_377_153 / 2_353_381, rel=1e-15)
    same = speedup_test(base, base.copy(), protocol=protocol)
    assert same.decision == "not significant" and "the same value" in same.message
    worse = speedup_test(fewer, base, protocol=protocol)
    assert worse.decision == "not significant" and "exactly" in worse.message


def test_kruskal_pairs_differ_exactly_when_their_constants_differ():
    from benchlab.stats.protocols import kruskal_test

    r = kruskal_test([("a", np.full(3, 5.0)), ("b", np.full(3, 6.0)), ("c", np.full(3, 5.0))])
    assert r.exact
    assert {(p.first, p.second): p.significant for p in r.pairs} == {
        ("a", "b"): True, ("a", "c"): False, ("b", "c"): True}
    noisy = kruskal_test([("a", np.array([5.0, 5.1, 4.9])), ("b", np.full(3, 6.0))])
    assert not noisy.exact


def _constant_hierarchy():
    from benchlab.stats.hierarchy import summarize

    build = np.repeat(np.arange(3), 12).astype(str)
    run = np.tile(np.repeat(np.arange(3), 4), 3).astype(str)
    return summarize(np.full(36, 2_377_153.0), [build, run], ["build", "run"])


def test_summary_of_identical_counts_is_exact_without_a_wide_ci_warning():
    s = _constant_hierarchy()
    assert s.low == s.high == s.grand_mean == 2_377_153.0
    assert not any("is wide" in w for w in s.warnings)


@pytest.mark.parametrize("goal", [{"target": 0.01}, {"budget": 3600.0}])
def test_plan_for_identical_counts_is_one_of_each_level(goal):
    from benchlab.stats.hierarchy import plan_experiment

    plan = plan_experiment(_constant_hierarchy(), [10.0, 1.0, 1.0], **goal)
    assert plan.optimal.repetitions == (1, 1, 1)
    assert plan.optimal.total_cost == 12.0 and plan.optimal.relative_halfwidth == 0.0
    assert any("no spread" in n for n in plan.notes)


def test_anova_of_constant_cells_is_exact():
    from benchlab.stats.anova import anova

    codes = np.array([[0, 0], [0, 0], [1, 0], [1, 0], [0, 1], [0, 1], [1, 1], [1, 1]])
    y = np.array([5.0, 5, 6, 6, 7, 7, 8, 8])
    r = anova(y, codes, ("a", "b"), (("0", "1"), ("0", "1")))
    assert any("residuals are all zero" in a for a in r.diagnostics.advice)
    assert r.diagnostics.normality.pvalue is None and r.diagnostics.constant_variance.pvalue is None
