"""Every analysis at every size real tools produce (issue 19, item 1).

Samples of 2, 3, 5, 10, 519, 520, 1,023, 1,024, 5,000 and 10^5 values — either
side of where exact methods overflowed a float (C(m + n, m) from ~520 values per
sample, 2^n from 1,024 pairs) and at the sizes of pytest-benchmark, hyperfine
--runs 1000 and long iteration logs — flat, paired, with levels and as suites:
the analysis finishes, its numbers are finite, and where an independent
reference exists (scipy.stats, the quadratic Fieller's interval solves) it agrees.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

import benchlab

SIZES = [2, 3, 5, 10, 519, 520, 1023, 1024, 5000, 100_000]
MANY = [519, 520, 1023, 1024, 5000, 100_000]


def samples(n: int, seed: int = 19) -> tuple[np.ndarray, np.ndarray]:
    """Two skewed timing-like samples, the second 1% slower, with no ties."""
    rng = np.random.default_rng([seed, n])
    return rng.lognormal(0.0, 0.1, n) * 100.0, rng.lognormal(0.01, 0.1, n) * 100.0


def fieller_by_quadratic(a: np.ndarray, b: np.ndarray, df: float, confidence: float,
                         paired: bool) -> tuple[float, float]:
    """The interval {ρ : (ā − ρ b̄)² ≤ t² (v_a − 2ρ v_ab + ρ² v_b)} from numpy.roots
    (STATS.md §3), independent of benchlab's closed form."""
    n_a, n_b = a.size, b.size
    v_a, v_b = a.var(ddof=1) / n_a, b.var(ddof=1) / n_b
    v_ab = float(np.cov(a, b)[0, 1]) / n_a if paired else 0.0
    t2 = stats.t.ppf(0.5 + confidence / 2, df) ** 2
    ma, mb = a.mean(), b.mean()
    roots = np.sort(np.roots([mb**2 - t2 * v_b, -2 * (ma * mb - t2 * v_ab), ma**2 - t2 * v_a]))
    return float(roots[0]), float(roots[1])


def test_names():
    assert SIZES == sorted(SIZES)


@pytest.mark.parametrize("n", SIZES)
def test_flat_every_test_at_every_size(n):
    base, cand = samples(n)
    c = benchlab.compare(base, cand, tests=True).comparisons[0]
    r, d = c.ratio, c.difference
    assert all(math.isfinite(v) for v in (r.estimate, r.low, r.high, d.low, d.high, d.pvalue))
    assert r.low < r.estimate < r.high
    # Fieller against the quadratic it solves, at the degrees of freedom reported
    low, high = fieller_by_quadratic(cand, base, r.df, 0.95, paired=False)
    assert r.low == pytest.approx(low, rel=1e-9) and r.high == pytest.approx(high, rel=1e-9)
    tests = {getattr(t, "name", t.method): t for t in c.tests}
    welch = stats.ttest_ind(cand, base, equal_var=False)
    assert d.pvalue == pytest.approx(welch.pvalue, rel=1e-7, abs=1e-300)
    ci = welch.confidence_interval(0.95)
    assert (d.low, d.high) == pytest.approx((ci.low, ci.high), rel=1e-9)
    mw = tests["Mann-Whitney U"]
    method = "exact" if n < 50 else "asymptotic"
    ref = stats.mannwhitneyu(cand, base, alternative="two-sided", method=method,
                             use_continuity=True)
    assert mw.pvalue == pytest.approx(ref.pvalue, rel=1e-7, abs=1e-300)
    assert all(math.isfinite(t.pvalue) for t in c.tests)


@pytest.mark.parametrize("n", SIZES)
def test_paired_at_every_size(n):
    base, cand = samples(n, seed=7)
    cand = cand + 0.5 * (base - base.mean())  # pairs that share a cause
    c = benchlab.compare(base, cand, paired=True, tests=True).comparisons[0]
    r, d = c.ratio, c.difference
    assert all(math.isfinite(v) for v in (r.estimate, r.low, r.high, d.low, d.high))
    low, high = fieller_by_quadratic(cand, base, r.df, 0.95, paired=True)
    assert r.low == pytest.approx(low, rel=1e-9) and r.high == pytest.approx(high, rel=1e-9)
    ref = stats.ttest_rel(cand, base)
    assert d.pvalue == pytest.approx(ref.pvalue, rel=1e-7, abs=1e-300)
    ci = ref.confidence_interval(0.95)
    assert (d.low, d.high) == pytest.approx((ci.low, ci.high), rel=1e-9)
    w = {getattr(t, "name", t.method): t for t in c.tests}["Wilcoxon signed-rank"]
    exact = n < 50
    ref_w = stats.wilcoxon(cand - base, method="exact" if exact else "approx",
                           correction=not exact)
    assert w.pvalue == pytest.approx(ref_w.pvalue, rel=1e-7, abs=1e-300)
    assert math.isfinite(w.estimate) and w.low <= w.estimate <= w.high
    if n <= 1500:  # the pseudomedian against all Walsh averages, materialized
        diff = np.sort(cand - base)
        i, j = np.triu_indices(n)
        assert w.estimate == pytest.approx(float(np.median((diff[i] + diff[j]) / 2)),
                                           rel=1e-12)


@pytest.mark.parametrize("n", MANY)
def test_bootstrap_ratio_intervals_at_large_sizes(n):
    base, cand = samples(n, seed=3)
    for paired in (False, True):
        c = benchlab.compare(base, cand, paired=paired, bootstrap=200,
                             seed=1).comparisons[0]
        assert c.bootstrap, "a bootstrap was asked for"
        for interval in c.bootstrap:
            assert math.isfinite(interval.low) and math.isfinite(interval.high)
            assert interval.low <= interval.high


def table(values: np.ndarray, builds: int, runs: int) -> dict[str, np.ndarray]:
    """values split over builds × runs (round robin: unequal counts where n does not divide)."""
    i = np.arange(values.size)
    return {"value": values, "build": (i % builds).astype(str),
            "run": ((i // builds) % runs).astype(str)}


def means_of_run_means(values: np.ndarray, builds: int, runs: int) -> np.ndarray:
    """Per build, the mean of its runs' means (the layout of `table`), by bincount."""
    i = np.arange(values.size)
    cell = (i % builds) * runs + (i // builds) % runs
    count = np.bincount(cell, minlength=builds * runs).reshape(builds, runs)
    total = np.bincount(cell, values, minlength=builds * runs).reshape(builds, runs)
    present = count > 0
    return np.where(present, total / np.maximum(count, 1), 0).sum(1) / present.sum(1)


# (values per system, builds, runs): the smallest valid hierarchies (two measurements per
# run, two runs per build, two builds) and the large sizes, unbalanced where n does not divide
HIERARCHIES = [(8, 2, 2), (12, 3, 2), (20, 5, 2), (519, 5, 4), (520, 5, 4), (1023, 5, 4),
               (1024, 4, 8), (5000, 10, 10), (100_000, 10, 10)]


@pytest.mark.parametrize(("n", "builds", "runs"), HIERARCHIES)
def test_levels_summary_plan_and_compare(n, builds, runs):
    base, cand = samples(n, seed=5)
    tb, tc = table(base, builds, runs), table(cand, builds, runs)
    s = benchlab.summary(tb, ["build", "run"])
    assert all(math.isfinite(v) for v in (s.grand_mean, s.low, s.high))
    plan = benchlab.plan(tb, ["build", "run"], {"build": 60, "run": 5, "measurement": 0.1},
                         budget=3600)
    assert all(r >= 1 for r in plan.optimal.repetitions)
    result = benchlab.compare(tb, tc, levels=["build", "run"], bootstrap=200, seed=1)
    c = result.comparisons[0]
    assert all(math.isfinite(v) for v in (c.ratio.estimate, c.ratio.low, c.ratio.high))
    # the ratio CI rests on the build means (means of run means): Fieller on them (§5)
    run_means = [means_of_run_means(v, builds, runs) for v in (base, cand)]
    assert run_means[0].size == builds
    low, high = fieller_by_quadratic(run_means[1], run_means[0], c.ratio.df, 0.95, False)
    assert c.ratio.low == pytest.approx(low, rel=1e-9)
    assert c.ratio.high == pytest.approx(high, rel=1e-9)


def suite_table(n: int, builds: int = 0, runs: int = 0) -> dict[str, np.ndarray]:
    base, cand = samples(n, seed=11)
    values = np.concatenate([base, 2 * base, 3 * base, cand, 2 * cand, 3 * cand])
    out = {"sys": np.repeat(["A", "B"], 3 * n), "bench": np.tile(np.repeat(["x", "y", "z"], n), 2),
           "value": values}
    if builds:
        i = np.tile(np.arange(n), 6)
        out |= {"build": (i % builds).astype(str), "run": ((i // builds) % runs).astype(str)}
    return out


@pytest.mark.parametrize("statistic", ["mean", "median"])
@pytest.mark.parametrize("n", [2, 3, 10, 520, 1024, 5000])
def test_flat_suites(n, statistic):
    result = benchlab.compare_suite(suite_table(n), by="sys", benchmark="bench",
                                    statistic=statistic, replicates=300, seed=1)
    assert len(result.decisions) == 3
    for d in result.decisions:
        assert d.benchmark in {"x", "y", "z"}  # plain names, not numpy scalars
        assert all(math.isfinite(v) for v in (d.estimate, d.low, d.high))
        assert 0.0 <= d.pvalue <= 1.0 and 0.0 <= d.adjusted_pvalue <= 1.0


@pytest.mark.parametrize("statistic", ["mean", "median"])
@pytest.mark.parametrize(("n", "builds", "runs"), [(20, 5, 2), (519, 5, 4), (1024, 4, 8)])
def test_suites_with_levels(n, builds, runs, statistic):
    result = benchlab.compare_suite(suite_table(n, builds, runs), by="sys", benchmark="bench",
                                    levels=["build", "run"], statistic=statistic,
                                    replicates=300, bootstrap=300, seed=1)
    for d in result.decisions:
        assert math.isfinite(d.estimate) and 0.0 <= d.adjusted_pvalue <= 1.0
        if d.low is None or d.high is None:
            # medians with levels: the permutation test over the splits of the builds cannot
            # reach p below 2 / C(2n, n), so no ratio is excluded at a stricter level
            assert statistic == "median" and 2 / math.comb(2 * builds, builds) > 1 - d.level
        else:
            assert math.isfinite(d.low) and math.isfinite(d.high)


@pytest.mark.parametrize("n", SIZES)
def test_speedup_and_kruskal_at_every_size(n):
    base, cand = samples(n, seed=13)
    for protocol in ("speedup-mean", "speedup-median"):
        result = benchlab.speedup_test(base, cand, protocol=protocol)
        assert result.decision in {"significant", "not significant", "refused"}
    k = benchlab.kruskal_test({"a": base, "b": cand, "c": base * 1.02})
    ref = stats.kruskal(base, cand, base * 1.02)
    assert k.pvalue == pytest.approx(ref.pvalue, rel=1e-7, abs=1e-300)


def write(path, values) -> str:
    path.write_text("\n".join(repr(float(v)) for v in values) + "\n")
    return str(path)


@pytest.mark.parametrize("n", [600, 2000, 100_000])
def test_compare_command_on_large_files(run_cli, tmp_path, n):
    """The issue's reproduction: `benchlab compare a b` with 600+ values per file."""
    base, cand = samples(n, seed=17)
    a, b = write(tmp_path / "a.txt", base), write(tmp_path / "b.txt", cand)
    code, out, err = run_cli("compare", a, b)
    assert code == 0, err
    assert "internal error" not in err.lower() and "b vs a" in out
    code, out, err = run_cli("compare", a, b, "--format", "json", "--statistic", "median",
                             "--seed", "1")
    assert code == 0, err
    doc = json.loads(out)
    assert [s["n"] for s in doc["samples"]] == [n, n]


def test_compare_command_paired_1100_pairs(run_cli, tmp_path):
    base, cand = samples(1100, seed=23)
    rows = ["system,pair,value"] + [f"A,{i},{float(v)!r}" for i, v in enumerate(base)] + \
           [f"B,{i},{float(v)!r}" for i, v in enumerate(cand)]
    path = tmp_path / "paired.csv"
    path.write_text("\n".join(rows) + "\n")
    code, out, err = run_cli("compare", path, "--by", "system", "--value", "value", "--paired",
                             "--pair-by", "pair", "--tests", "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    comparison = doc["comparisons"][0]
    assert comparison["paired"] is True
    assert all(math.isfinite(comparison["ratio"][k]) for k in ("estimate", "low", "high"))
