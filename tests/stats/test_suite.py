"""Benchmark suites: Holm's adjustment, the geometric mean of ratios and its bootstrap CI,
family-wise decisions checked against Holm's procedure as the paper states it and an
independent Fieller."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

from benchlab.stats.suite import compare_suite, holm_adjust, holm_levels
from benchlab.stats.verdict import classify

SUITE = Path(__file__).resolve().parents[1] / "fixtures" / "hierarchy" / "suite.csv"


def test_holm_matches_r_p_adjust():
    # R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") → 0.03 0.06 0.06 0.02
    assert holm_adjust([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    # R: p.adjust(c(0.5, 0.2, 0.9), "holm") → 1.0 0.6 1.0
    assert holm_adjust([0.5, 0.2, 0.9]) == pytest.approx([1.0, 0.6, 1.0])


def _suite(shift):
    rng = np.random.default_rng(1)
    data = {}
    for bench, mean in (("a", 10.0), ("b", 50.0), ("c", 200.0)):
        data[bench] = [(name, rng.normal(mean * f, mean * 0.02, 30), [])
                       for name, f in (("old", 1.0), ("new", shift))]
    return data


def test_geometric_mean_and_holm_flat():
    result = compare_suite(_suite(0.9), [], baseline="old", replicates=2000, seed=4)
    g = result.geometric_means[0]
    ratios = [r.comparisons[0].ratio.estimate for _, r in result.benchmarks]
    assert g.estimate == pytest.approx(math.exp(np.mean(np.log(ratios))), rel=1e-12)
    assert g.low < g.estimate < g.high and g.high < 0.95
    assert all(sig for *_, sig in result.holm)
    same = compare_suite(_suite(1.0), [], baseline="old", replicates=2000, seed=4)
    assert same.geometric_means[0].low < 1.0 < same.geometric_means[0].high


def test_suite_cli_with_levels(run_cli):
    code, out, _ = run_cli("compare", SUITE, "--by", "system", "--benchmark", "benchmark",
                           "--levels", "build,run", "--seed", "1", "--bootstrap", "2000",
                           "--json")
    doc = json.loads(out)
    assert code == 0
    assert [b["benchmark"] for b in doc["benchmarks"]] == ["fft", "lu", "sor", "mc"]
    assert doc["benchmarks"][0]["comparisons"][0]["ratio"]["method"].startswith(
        "Fieller on build means")
    assert len(doc["holm"]) == 4 and doc["geometric_means"][0]["candidate"] == "new"
    code, out, _ = run_cli("compare", SUITE, "--by", "system", "--benchmark", "benchmark",
                           "--seed", "1", "--bootstrap", "500")
    assert code == 0 and "geometric mean over 4 benchmarks" in out
    code, _, err = run_cli("compare", SUITE, "--by", "system", "--benchmark", "nope")
    assert code == 2 and "no column 'nope'" in err


# -- family-wise decisions (issue 12, item 1) -----------------------------------------------


def _flat_suites(rng, suites: int, m: int, n: int = 10, shift: dict | None = None):
    """`suites` A/A suites of m benchmarks (normal, sd 3%), drawn in one call."""
    x = rng.normal(100.0, 3.0, (suites, m, 2, n))
    for bench, factor in (shift or {}).items():
        x[:, bench, 1] *= factor
    return [{f"b{j}": [("old", x[s, j, 0], []), ("new", x[s, j, 1], [])] for j in range(m)}
            for s in range(suites)], x


def _fieller_reference(old: np.ndarray, new: np.ndarray, level: float) -> tuple[float, float]:
    """Fieller's interval for mean(new)/mean(old), independent samples, Welch df of the pivot
    at the estimate — written from the quadratic (Fieller 1954), with scipy's t."""
    a, b = new.mean(), old.mean()
    va, vb = new.var(ddof=1) / new.size, old.var(ddof=1) / old.size
    r = a / b
    df = (va + r * r * vb) ** 2 / (va ** 2 / (new.size - 1) + r ** 4 * vb ** 2 / (old.size - 1))
    t2 = sps.t.ppf(0.5 + level / 2, df) ** 2
    # (a - ρb)² = t²(va + ρ²vb)  →  (b² − t²vb)ρ² − 2abρ + (a² − t²va) = 0
    qa, qb, qc = b * b - t2 * vb, -2 * a * b, a * a - t2 * va
    disc = math.sqrt(qb * qb - 4 * qa * qc)
    return (-qb - disc) / (2 * qa), (-qb + disc) / (2 * qa)


def _welch_ratio_p(old: np.ndarray, new: np.ndarray, rho: float) -> float:
    """p of ratio = rho: t = (ā − ρb̄)/sqrt(va + ρ²vb), df of the pivot at the estimate."""
    a, b = new.mean(), old.mean()
    va, vb = new.var(ddof=1) / new.size, old.var(ddof=1) / old.size
    r = a / b
    df = (va + r * r * vb) ** 2 / (va ** 2 / (new.size - 1) + r ** 4 * vb ** 2 / (old.size - 1))
    return float(2 * sps.t.sf(abs(a - rho * b) / math.sqrt(va + rho * rho * vb), df))


def _holm_reject(p: list[float], alpha: float = 0.05) -> list[bool]:
    """Holm (1979) as the paper states it: walk the sorted p-values, rejecting while
    p_(k) ≤ α/(m − k + 1); the first that fails stops the walk."""
    m = len(p)
    reject = [False] * m
    for k, i in enumerate(np.argsort(p, kind="stable")):
        if p[i] > alpha / (m - k):
            break
        reject[i] = True
    return reject


def test_holm_levels_reject_exactly_what_holm_rejects():
    rng = np.random.default_rng(3)
    for _ in range(200):
        m = int(rng.integers(1, 12))
        p = list(rng.uniform(0, 0.08, m) ** rng.uniform(0.5, 3))
        levels = holm_levels(p, 0.05)
        reject = _holm_reject(p)
        assert [pi <= a for pi, a in zip(p, levels, strict=True)] == reject
        assert reject == [q <= 0.05 for q in holm_adjust(p)]
        # the undecided share one level: α/(m − r) with r rejections
        rest = {a for a, r in zip(levels, reject, strict=True) if not r}
        assert rest <= {0.05 / max(m - sum(reject), 1)}


def test_decisions_match_holm_on_fieller_p_values_and_their_intervals():
    """Every verdict is (a) the classification of the interval printed with it, (b) that
    interval is Fieller's at the row's level (independent quadratic), and (c) the set of
    "change" verdicts is Holm's on independently computed p-values."""
    rng = np.random.default_rng(11)
    suites, x = _flat_suites(rng, 30, 8, shift={0: 1.04, 1: 1.06, 2: 0.97})
    for s, data in enumerate(suites):
        result = compare_suite(data, [], baseline="old", replicates=100, seed=1,
                               diagnostics=False)
        p = [_welch_ratio_p(x[s, j, 0], x[s, j, 1], 1.0) for j in range(8)]
        reject = _holm_reject(p)
        verdicts = {b: r.comparisons[0].verdict.outcome for b, r in result.benchmarks}
        for j, d in enumerate(result.decisions):
            assert d.pvalue == pytest.approx(p[j], rel=1e-9)
            assert d.outcome == verdicts[d.benchmark] == classify(d.low, d.high, 0.0)
            assert (d.outcome == "change") == reject[j]
            low, high = _fieller_reference(x[s, j, 0], x[s, j, 1], d.level)
            assert (d.low, d.high) == pytest.approx((low, high), rel=1e-9)
            assert d.per_benchmark == classify(*_fieller_reference(x[s, j, 0], x[s, j, 1], 0.95),
                                               0.0)


def test_threshold_decisions_are_family_wise():
    """With ±3%: the claims test the threshold's edges; equivalence at the per-benchmark
    level need not survive the family-wise level, and the verdict follows the interval."""
    rng = np.random.default_rng(5)
    suites, x = _flat_suites(rng, 40, 6, shift={0: 1.10})
    seen_equivalent_lost = False
    for s, data in enumerate(suites):
        result = compare_suite(data, [], baseline="old", threshold=0.03, replicates=100,
                               seed=1, diagnostics=False)
        for j, d in enumerate(result.decisions):
            old, new = x[s, j, 0], x[s, j, 1]
            r = new.mean() / old.mean()
            if 0.97 <= r <= 1.03:
                assert d.test == "ratio outside threshold"
                want = max(_welch_ratio_p(old, new, 0.97), _welch_ratio_p(old, new, 1.03))
            else:
                assert d.test == "ratio within threshold"
                want = _welch_ratio_p(old, new, 1.03 if r > 1 else 0.97)
            assert d.pvalue == pytest.approx(want, rel=1e-9)
            assert d.outcome == classify(d.low, d.high, 0.03)
            assert (d.outcome != "inconclusive") == (d.adjusted_pvalue < 0.05)
            seen_equivalent_lost |= d.per_benchmark == "equivalent" != d.outcome
    assert seen_equivalent_lost


def test_family_wise_false_alarms_stay_at_alpha_where_unadjusted_ones_do_not():
    """200 seeded A/A suites of 10 benchmarks: any "change" verdict is a false alarm. Holm
    keeps the rate ≤ 5% (bound 0.09 = 5% + 2.6 MCSE, MCSE = 1.5%); the per-benchmark
    decisions of the same suites trip about 1 − 0.95¹⁰ = 40% of the time."""
    rng = np.random.default_rng(20260)
    suites, _ = _flat_suites(rng, 200, 10)
    family = unadjusted = 0
    for data in suites:
        result = compare_suite(data, [], baseline="old", replicates=100, seed=1,
                               diagnostics=False)
        family += any(c.verdict.outcome == "change" for _, r in result.benchmarks
                      for c in r.comparisons)
        unadjusted += any(d.per_benchmark == "change" for d in result.decisions)
    assert family / 200 <= 0.09
    assert unadjusted / 200 > 0.25  # the bound above would fail without the adjustment


def test_no_adjust_keeps_the_per_benchmark_verdicts():
    rng = np.random.default_rng(8)
    (data,), _ = _flat_suites(rng, 1, 12, shift={0: 1.03})
    plain = compare_suite(data, [], baseline="old", replicates=100, seed=1, adjust="none")
    family = compare_suite(data, [], baseline="old", replicates=100, seed=1)
    assert plain.adjust == "none" and family.adjust == "holm"
    for (_, a), (_, b), d in zip(plain.benchmarks, family.benchmarks, family.decisions,
                                 strict=True):
        assert a.comparisons[0].verdict.outcome == d.per_benchmark
        assert a.comparisons[0].ratio == b.comparisons[0].ratio  # the 95% CI is kept
    assert all(d.level == 0.95 for d in plain.decisions)
    assert max(d.level for d in family.decisions) == pytest.approx(1 - 0.05 / 12)
    with pytest.raises(ValueError, match="adjust"):
        compare_suite(data, [], baseline="old", adjust="bonferroni")


def test_hierarchical_decisions_use_fieller_on_top_level_means():
    """With levels the decision interval is Fieller's on the build means at the row's level
    (compare_samples on those means at that confidence)."""
    from benchlab.stats.compare import compare_samples

    rng = np.random.default_rng(2)
    builds, runs, reps = 5, 3, 5
    build = np.repeat(np.arange(builds), runs * reps)
    run = np.tile(np.repeat(np.arange(runs), reps), builds)
    data, means = {}, {}
    for j in range(6):
        systems = []
        for name, f in (("old", 1.0), ("new", 1.08 if j == 0 else 1.0)):
            x = f * (100 + rng.normal(0, 2, builds)[build]
                     + rng.normal(0, 1.5, builds * runs)[build * runs + run]
                     + rng.normal(0, 2, build.size))
            systems.append((name, x, [build, run]))
            means[(j, name)] = np.array([x[build == b].mean() for b in range(builds)])
        data[f"b{j}"] = systems
    result = compare_suite(data, ["build", "run"], baseline="old", replicates=100, seed=1,
                           diagnostics=False)
    assert result.decisions[0].outcome == "change"
    for j, d in enumerate(result.decisions):
        ref = compare_samples([("old", means[(j, "old")]), ("new", means[(j, "new")])],
                              confidence=d.level, diagnostics=False)
        assert (d.low, d.high) == pytest.approx((ref.comparisons[0].ratio.low,
                                                 ref.comparisons[0].ratio.high), rel=1e-9)
        assert d.outcome == classify(d.low, d.high, 0.0)


def test_a_geometric_mean_whose_replicates_reach_zero_is_unbounded_below_only():
    """A candidate whose resampled means reach 0 and below (signed data): those replicates
    have no geometric mean and lie below every other, so with one benchmark the CI is
    the percentile interval of the plain ratio replicates (drawn here as compare_suite
    draws them: one stream per benchmark, one per system), its low end, at or below 0,
    unbounded (NaN), its high end that interval's."""
    from benchlab.stats.bootstrap import interval_from_replicates

    rng = np.random.default_rng(3)
    base, cand = rng.normal(10, 1, 8), rng.normal(1.5, 3, 8)
    b = 2000
    r = compare_suite({"x": [("base", base, []), ("cand", cand, [])]}, [], baseline="base",
                      seed=7, replicates=b)
    (g,) = r.geometric_means
    streams = np.random.SeedSequence(7).spawn(1)[0].spawn(2)
    means = [x[np.random.default_rng(s).integers(0, x.size, (b, x.size), dtype=np.int32)]
             .mean(axis=1) for x, s in zip((base, cand), streams, strict=True)]
    ratio = means[1] / means[0]
    low, high = interval_from_replicates(ratio, 0.95)
    assert 0.05 < np.mean(ratio <= 0) < 0.5 and low < 0
    assert math.isnan(g.low) and g.high == pytest.approx(high, rel=1e-12)


def test_a_ratio_at_or_below_zero_is_left_out_of_the_geometric_mean_with_a_note():
    """A candidate whose mean is negative in one benchmark has no log ratio there (it
    raised a math domain error, exit 3): the geometric mean is over the other benchmarks,
    equal to the one of those alone, and a note names the one left out."""
    rng = np.random.default_rng(1)
    data = {"x": [("base", rng.normal(10, 1, 8), []), ("cand", rng.normal(-1, 1, 8), [])],
            "y": [("base", rng.normal(10, 1, 8), []), ("cand", rng.normal(10, 1, 8), [])]}
    r = compare_suite(data, [], baseline="base", seed=1, replicates=500)
    (g,) = r.geometric_means
    (ratio,) = [c.ratio for b, res in r.benchmarks if b == "y" for c in res.comparisons]
    assert g.benchmarks == 1 and g.estimate == pytest.approx(ratio.estimate, rel=1e-12)
    assert ("the geometric mean of cand leaves out 'x': its ratio is at or below 0 (a "
            "candidate mean at or below 0), which has no logarithm") in r.notes
