"""Suites decided on medians (stats/suite_median.py): bootstrap test inversion, the
(B + 1)-rule interval, Holm on the bootstrap p-values, the geometric mean of medians."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchlab.notation import fmt_level
from benchlab.stats.bootstrap import interval_from_replicates
from benchlab.stats.compare import compare_hierarchical, compare_samples
from benchlab.stats.suite import compare_suite
from benchlab.stats.suite_median import (
    flat_median_ratios,
    hierarchical_median_ratios,
    interval_at,
    inversion_pvalue,
)
from benchlab.stats.verdict import classify


def _brute_interval(ratios: list[float], level: float) -> tuple[float | None, float | None]:
    """{ρ among the replicates : p(ρ) > 1 − level}, p counted one replicate at a time."""
    b, alpha = len(ratios), 1.0 - level
    kept = []
    for rho in [min(ratios) - 1, *ratios, max(ratios) + 1]:
        below = sum(1 for r in ratios if r <= rho)
        above = sum(1 for r in ratios if r >= rho)
        if min(1.0, 2.0 * (min(below, above) + 1) / (b + 1)) > alpha:
            kept.append(rho)
    if min(ratios) - 1 in kept:  # a point beyond every replicate is kept: no bound
        return None, None
    return (min(kept), max(kept)) if kept else (None, None)


def _excludes(bounds: tuple[float | None, float | None], rho: float) -> bool:
    low, high = bounds
    return low is not None and high is not None and not low <= rho <= high


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_pvalue_is_the_smallest_alpha_whose_interval_excludes_the_point(seed):
    rng = np.random.default_rng(seed)
    b = 199
    ratios = np.sort(np.round(rng.lognormal(0.01, 0.02, b), 3))  # ties on purpose
    grid = np.unique(np.concatenate([np.linspace(1e-4, 1.0, 4001),
                                     2.0 * np.arange(1, b + 2) / (b + 1)]))
    grid = grid[grid < 1.0]
    for rho in (0.95, 0.99, 1.0, float(ratios[3]), float(ratios[b // 2]), 1.02, 1.08):
        found = next((a for a in grid if _excludes(interval_at(ratios, 1 - a), rho)), 1.0)
        assert inversion_pvalue(ratios, rho) == pytest.approx(found, abs=1e-12)


@pytest.mark.parametrize("level", [0.8, 0.9, 0.95, 0.99, 0.995])
def test_interval_is_the_set_the_test_does_not_reject(level):
    rng = np.random.default_rng(7)
    ratios = np.sort(np.round(rng.normal(1.0, 0.05, 299), 2))
    assert interval_at(ratios, level) == _brute_interval(list(ratios), level)


def test_interval_is_unbounded_beyond_what_b_can_reach():
    ratios = np.sort(np.random.default_rng(1).normal(1, 0.1, 99))
    assert interval_at(ratios, 1 - 0.05 / 100) == (None, None)  # q = floor(0.025) = 0
    assert interval_at(ratios, 0.95)[0] == ratios[1]  # q = floor(0.05 · 100 / 2) = 2


def test_flat_replicates_are_the_headlines():
    rng = np.random.default_rng(3)
    base, cand = 100 + rng.exponential(5, 17), 101 + rng.exponential(5, 12)
    for boot in (None, 300):
        res = compare_samples([("a", base), ("b", cand)], statistic="median", seed=11,
                              bootstrap=boot)
        head = res.comparisons[0].headline
        r = flat_median_ratios(base, cand, replicates=boot or 10_000, seed=11,
                               means_first=bool(boot))
        assert interval_from_replicates(r, 0.95) == (head.low, head.high)


def test_hierarchical_replicates_are_the_headlines():
    rng = np.random.default_rng(4)
    builds = np.repeat(np.arange(5), 6)
    base = 100 + rng.normal(0, 2, 5)[builds] + rng.exponential(3, 30)
    cand = 98 + rng.normal(0, 2, 5)[builds] + rng.exponential(3, 30)
    for spec, boot in ((None, None), ("RN", 500), ("flat", 400)):
        res = compare_hierarchical([("a", base, [builds]), ("b", cand, [builds])], ["build"],
                                   statistic="median", seed=2, bootstrap=boot, resample=spec)
        head = res.comparisons[0].headline
        r = hierarchical_median_ratios((base, [builds]), (cand, [builds]),
                                       replicates=boot or 10_000, seed=2, spec=spec)
        assert interval_from_replicates(r, 0.95) == (head.low, head.high)


def _suite(rng, shifts: dict[str, float], n: int = 20, log: bool = True) -> dict:
    draw = ((lambda size: 100 * rng.lognormal(0, 0.05, size)) if log
            else (lambda size: rng.normal(100, 3, size)))
    return {b: [("old", draw(n), []), ("new", f * draw(n), [])] for b, f in shifts.items()}


@pytest.mark.parametrize("threshold", [0.0, 0.02])
def test_every_verdict_agrees_with_its_interval_and_holm(threshold):
    rng = np.random.default_rng(21)
    shifts = {f"b{i}": f for i, f in enumerate((1.0, 1.0, 1.03, 1.06, 0.97, 1.0, 1.01))}
    for adjust in ("holm", "none"):
        res = compare_suite(_suite(rng, shifts), [], baseline="old", seed=5, threshold=threshold,
                            statistic="median", bootstrap=2000, adjust=adjust)
        assert res.statistic == "median"
        by_bench = dict(res.benchmarks)
        for d in res.decisions:
            c = by_bench[d.benchmark].comparisons[0]
            assert d.statistic == "median" and c.verdict.outcome == d.outcome
            assert classify(d.low, d.high, threshold) == d.outcome
            assert d.estimate == c.headline.estimate
            if adjust == "holm":
                assert (d.adjusted_pvalue <= 0.05) == (d.outcome != "inconclusive")
                assert f"{fmt_level(d.level)} CI" in c.verdict.text
            else:
                assert d.level == 0.95 and d.outcome == d.per_benchmark


def test_holm_turns_a_per_benchmark_change_inconclusive():
    """Two benchmarks: one with p between α/2 and α, one unchanged (p large)."""
    rng = np.random.default_rng(0)
    base, cand = 100 + rng.exponential(4, 30), 100 + rng.exponential(4, 30)
    for shift in np.linspace(1.005, 1.04, 36):  # the shift whose p falls in (0.025, 0.05]
        data = {"x": [("old", base, []), ("new", cand * shift, [])],
                "y": [("old", base[::-1].copy(), []), ("new", base[::-1] * 1.0, [])]}
        res = compare_suite(data, [], baseline="old", seed=3, statistic="median")
        x = res.decisions[0]
        if 0.025 < x.pvalue <= 0.05:
            break
    else:
        pytest.fail("no shift gave a p-value between 0.025 and 0.05")
    assert x.per_benchmark == "change" and x.outcome == "inconclusive"
    assert x.level == pytest.approx(0.975) and x.low <= 1.0 <= x.high
    assert x.adjusted_pvalue == pytest.approx(min(1.0, 2 * x.pvalue))
    alone = compare_suite(data, [], baseline="old", seed=3, statistic="median", adjust="none")
    assert alone.decisions[0].outcome == "change" and not alone.decisions[0].low <= 1.0


def test_geometric_mean_of_medians():
    rng = np.random.default_rng(8)
    data = _suite(rng, {"a": 1.04, "b": 1.0, "c": 0.98}, n=25)
    res = compare_suite(data, [], baseline="old", seed=1, statistic="median", replicates=4000)
    (g,) = res.geometric_means
    logs = [math.log(np.median(s[1][1]) / np.median(s[0][1])) for s in data.values()]
    assert g.statistic == "median" and g.benchmarks == 3 and g.replicates == 4000
    assert g.estimate == pytest.approx(math.exp(np.mean(logs)), rel=1e-12)
    # An independent bootstrap of the same statistic (plain resampling and np.median):
    # its interval agrees with the order-statistic draws up to Monte Carlo error.
    other = np.random.default_rng(99)
    reps = np.zeros(4000)
    for old, new in ((s[0][1], s[1][1]) for s in data.values()):
        i = other.integers(0, old.size, (4000, old.size))
        j = other.integers(0, new.size, (4000, new.size))
        reps += np.log(np.median(new[j], axis=1) / np.median(old[i], axis=1))
    low, high = np.exp(np.quantile(reps / 3, [0.025, 0.975]))
    assert g.low == pytest.approx(low, abs=0.004) and g.high == pytest.approx(high, abs=0.004)


def test_mean_suite_is_unchanged_by_the_statistic_field():
    rng = np.random.default_rng(2)
    data = _suite(rng, {"a": 1.0, "b": 1.05}, log=False)
    res = compare_suite(data, [], baseline="old", seed=1)
    assert res.statistic == "mean" and {d.statistic for d in res.decisions} == {"mean"}
    assert res.geometric_means[0].statistic == "mean"
    assert all(c.headline is None for _, r in res.benchmarks for c in r.comparisons)


def test_too_few_replicates_for_holm_leave_the_interval_unbounded_and_say_so():
    rng = np.random.default_rng(6)
    data = _suite(rng, {f"b{i}": 1.0 for i in range(45)}, n=8)
    res = compare_suite(data, [], baseline="old", seed=1, statistic="median", bootstrap=100,
                        replicates=100)
    assert all(d.low is None and d.outcome == "inconclusive" for d in res.decisions)
    assert any("cannot reach the level" in n and "raise B" in n for n in res.notes)


def test_paired_and_unknown_statistic_refused():
    data = {"a": [("old", np.arange(1.0, 9), []), ("new", np.arange(2.0, 10), [])]}
    with pytest.raises(ValueError, match="paired"):
        compare_suite(data, [], baseline="old", statistic="median", paired=True)
    with pytest.raises(ValueError, match="statistic must be one of"):
        compare_suite(data, [], baseline="old", statistic="mode")
