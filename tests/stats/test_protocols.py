"""Speedup-Test protocols and Kruskal–Wallis against R (fixtures/r/factorial/protocols.json)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchlab.stats.protocols import kruskal_test, speedup_test

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "r" / "factorial" / "protocols.json"
R = json.loads(FIXTURE.read_text())
TWO = R["two_sample"]


def _by_name(result, prefix):
    return next(c for c in result.checks if c.name.startswith(prefix))


@pytest.mark.parametrize("case", sorted(TWO))
def test_mean_protocol_matches_r(case):
    ref = TWO[case]
    x, y = np.array(ref["baseline"]), np.array(ref["candidate"])
    res = speedup_test(x, y, protocol="speedup-mean")
    sw = [c for c in res.checks if c.name.startswith("Shapiro")]
    assert sw[0].pvalue == pytest.approx(ref["shapiro_baseline"], rel=1e-6)
    assert sw[0].statistic == pytest.approx(ref["shapiro_w_baseline"], rel=1e-9)
    assert sw[1].pvalue == pytest.approx(ref["shapiro_candidate"], rel=1e-6)
    normal = min(ref["shapiro_baseline"], ref["shapiro_candidate"]) >= 0.05
    if not normal and min(x.size, y.size) <= 30:
        assert res.decision == "refused" and res.test is None
        assert "do more than 30 observations" in res.message
        return
    f = _by_name(res, "F-test")
    assert f.statistic == pytest.approx(ref["f_ratio"], rel=1e-12)
    assert f.pvalue == pytest.approx(ref["f_p"], rel=1e-9)
    kind = "student" if ref["f_p"] >= 0.05 else "welch"
    assert res.test.name == ("Student's t" if kind == "student" else "Welch's t")
    assert res.test.statistic == pytest.approx(ref[f"{kind}_t"], rel=1e-12)
    assert res.test.pvalue == pytest.approx(ref[f"{kind}_p"], rel=1e-9)
    assert res.decision == ("significant" if ref[f"{kind}_p"] < 0.05 else "not significant")
    assert bool(res.warnings) == (not normal)


@pytest.mark.parametrize("case", sorted(TWO))
def test_median_protocol_matches_r(case):
    ref = TWO[case]
    x, y = np.array(ref["baseline"]), np.array(ref["candidate"])
    res = speedup_test(x, y, protocol="speedup-median")
    ks = res.checks[0]
    assert ks.statistic == pytest.approx(ref["ks_centred_d"], rel=1e-12)
    assert ks.pvalue == pytest.approx(ref["ks_centred_p"], rel=1e-9, abs=1e-12)
    if ref["ks_centred_p"] < 0.05 and min(x.size, y.size) <= 30:
        assert res.decision == "refused"
        return
    assert res.test.statistic == pytest.approx(ref["wilcox_w"], rel=1e-12)
    assert res.test.pvalue == pytest.approx(ref["wilcox_p"], rel=1e-9)
    flipped = speedup_test(x, y, protocol="speedup-median", higher_is_better=True)
    assert flipped.test.pvalue == pytest.approx(ref["wilcox_less_p"], rel=1e-9)


def test_speedups_and_small_refusal():
    x = np.array([10.0, 12.0, 11.0, 30.0])
    y = np.array([5.0, 6.0, 5.5, 15.0])
    res = speedup_test(x, y)
    assert res.speedups.min == 2.0 and res.speedups.mean == 2.0 and res.speedups.median == 2.0
    assert res.decision == "refused"  # Shapiro rejects 10, 11, 12, 30 at 4 observations
    two = speedup_test(x[:2], y[:2])
    assert two.decision == "refused" and "fewer than 3" in two.message


def test_large_nonnormal_warns_and_continues():
    rng = np.random.default_rng(3)
    x, y = 10 + rng.exponential(1, 200), 9 + rng.exponential(1, 200)
    res = speedup_test(x, y)
    assert res.decision == "significant" and res.test is not None
    assert any("continues" in w for w in res.warnings)


@pytest.mark.parametrize("case", sorted(R["k_sample"]))
def test_kruskal_matches_r(case):
    ref = R["k_sample"][case]
    samples = [(name, np.array(v)) for name, v in ref["groups"].items()]
    res = kruskal_test(samples)
    assert res.statistic == pytest.approx(ref["statistic"], rel=1e-10)
    assert res.df == ref["df"]
    assert res.pvalue == pytest.approx(ref["p"], rel=1e-8)
    assert res.anova_f == pytest.approx(ref["anova_f"], rel=1e-10)
    assert res.anova_pvalue == pytest.approx(ref["anova_p"], rel=1e-8)
    assert len(res.pairs) == len(ref["pairs"])
    for got, want in zip(res.pairs, ref["pairs"], strict=True):
        assert (got.first, got.second) == (want["first"], want["second"])
        assert got.pvalue == pytest.approx(want["p"], rel=1e-8)
        assert got.pvalue_holm == pytest.approx(want["p_holm"], rel=1e-8)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(st.integers(0, 20), min_size=3, max_size=12), min_size=2, max_size=5))
def test_holm_never_below_raw_and_ranks_average(groups):
    values = [np.array(g, dtype=float) for g in groups]
    if np.ptp(np.concatenate(values)) == 0:
        return
    res = kruskal_test([(f"g{i}", v) for i, v in enumerate(values)])
    n = sum(v.size for v in values)
    assert sum(g.mean_rank * g.n for g in res.groups) == pytest.approx(n * (n + 1) / 2)
    for pair in res.pairs:
        assert pair.pvalue - 1e-15 <= pair.pvalue_holm <= 1.0


def test_python_api_matches_cli_document():
    import benchlab

    ref = TWO["normal_unequal"]
    res = benchlab.speedup_test(ref["baseline"], ref["candidate"], names=("old", "new"))
    doc = res.to_dict()
    assert doc["protocol"] == "speedup-mean" and doc["comparisons"][0]["candidate"] == "new"
    assert doc["comparisons"][0]["test"]["pvalue"] == pytest.approx(res.test.pvalue)
    k = benchlab.kruskal_test(R["k_sample"]["distinct"]["groups"], confidence=0.99)
    assert k.alpha == pytest.approx(0.01)
    assert k.to_dict()["kruskal"]["pvalue"] == pytest.approx(R["k_sample"]["distinct"]["p"])
    json.dumps(doc, allow_nan=False)


@pytest.mark.parametrize("case", R["binom"])
def test_suite_proportion_ci_matches_r_binom_test(case):
    from benchlab.stats.protocols import speedup_suite

    rng = np.random.default_rng(int(case["n"] * 10 + case["x"]))
    data = []
    for i in range(int(case["n"])):  # x clearly faster benchmarks, the rest identical
        base = rng.normal(100, 1, 40)
        cand = base - 10 if i < case["x"] else base.copy()
        data.append((f"b{i}", base, cand))
    res = speedup_suite(data, alpha=1 - case["conf"])
    assert (res.improved, res.total) == (case["x"], case["n"])
    assert res.proportion_low == pytest.approx(case["low"], rel=1e-9, abs=1e-12)
    assert res.proportion_high == pytest.approx(case["high"], rel=1e-9)


def test_suite_gain_is_time_weighted():
    from benchlab.stats.protocols import speedup_suite

    rng = np.random.default_rng(9)
    long_b, short_b = rng.normal(1000, 5, 40), rng.normal(10, 0.05, 40)
    res = speedup_suite([("long", long_b, long_b / 2), ("short", short_b, short_b * 2)])
    assert res.gain == pytest.approx((long_b.mean() + short_b.mean())
                                     / (long_b.mean() / 2 + short_b.mean() * 2))
    assert res.improved == 1 and res.benchmarks[1][1].decision == "not significant"


DUNN = Path(__file__).resolve().parents[1] / "fixtures" / "r" / "dunn"


@pytest.mark.parametrize("case", ["jitter", "airquality", "ties"])
def test_dunn_matches_r_rstatix(case):
    """z, p and Holm p of every pair as rstatix::dunn_test (make_dunn.R), ties included."""
    import csv

    ref = json.loads((DUNN / "dunn.json").read_text())["datasets"][case]
    groups: dict[str, list[float]] = {}
    with (DUNN / f"{case}.csv").open() as f:
        for row in csv.DictReader(f):
            groups.setdefault(row["group"], []).append(float(row["value"]))
    res = kruskal_test([(g, np.array(v)) for g, v in groups.items()], posthoc="dunn")
    assert res.posthoc == "dunn" and "Dunn" in res.method
    assert res.statistic == pytest.approx(ref["kruskal"]["statistic"], rel=1e-10)
    assert len(res.pairs) == len(ref["pairs"])
    for got, want in zip(res.pairs, ref["pairs"], strict=True):
        assert (got.first, got.second) == (want["group1"], want["group2"])
        assert got.statistic == pytest.approx(want["statistic"], rel=1e-10)
        assert got.pvalue == pytest.approx(want["p"], rel=1e-9)
        assert got.pvalue_holm == pytest.approx(want["p_holm"], rel=1e-9)


def test_dunn_z_closed_form_without_ties():
    """Two groups, no ties: Dunn's z² equals the Kruskal-Wallis H (both on the same ranks)."""
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=9), rng.normal(0.8, size=14)
    res = kruskal_test([("a", a), ("b", b)], posthoc="dunn")
    assert res.pairs[0].statistic ** 2 == pytest.approx(res.statistic, rel=1e-12)
    with pytest.raises(ValueError, match="posthoc"):
        kruskal_test([("a", a), ("b", b)], posthoc="tukey")


@pytest.mark.parametrize("magnitude", [1e-300, 1e299])
def test_speedup_test_at_the_edges_of_the_range(magnitude):
    """Values near 1e-300 or 1e300 give the statistics of the same data at magnitude 1 (the
    F-test once overflowed squaring a stddev of 1e299: exit 3, issue 19's fuzz corpus)."""
    rng = np.random.default_rng(19)
    base, cand = rng.lognormal(0.0, 0.1, 600), rng.lognormal(0.05, 0.1, 600)
    ref = speedup_test(base, cand, protocol="speedup-mean")
    got = speedup_test(base * magnitude, cand * magnitude, protocol="speedup-mean")
    assert got.decision == ref.decision
    for r, g in zip((*ref.checks, ref.test), (*got.checks, got.test), strict=True):
        assert g.statistic == pytest.approx(r.statistic, rel=1e-9)
        assert g.pvalue == pytest.approx(r.pvalue, rel=1e-9, abs=1e-300)
    assert got.test.estimate == pytest.approx(ref.test.estimate * magnitude, rel=1e-9)
