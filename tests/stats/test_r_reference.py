"""Every test statistic against R (fixtures made by tests/fixtures/r/make_reference.R)."""

from __future__ import annotations

import numpy as np
import pytest

from benchlab.stats import classic_tests as ct
from benchlab.stats.bootstrap import bootstrap_ratio
from benchlab.stats.descriptive import describe
from benchlab.stats.difference import paired_difference, student_difference, welch_difference

CASES = ["kamp_real", "kamp_user", "kamp_sys", "iguana_chameleon", "normal_unequal",
         "lognormal_30", "ties", "paired_10"]
REL = 1e-9


def _ab(case):
    return np.array(case["a"], dtype=float), np.array(case["b"], dtype=float)


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("level", ["0.95", "0.9"])
@pytest.mark.parametrize("kind", ["t_welch", "t_student"])
def test_t_tests_match_r(r_reference, name, level, kind):
    case = r_reference[name]
    a, b = _ab(case)
    fn = welch_difference if kind == "t_welch" else student_difference
    got = fn(describe(a, "a"), describe(b, "b"), float(level))
    want = case[kind][level]
    assert got.estimate == pytest.approx(want["estimate"], rel=REL, abs=1e-12)
    assert got.low == pytest.approx(want["ci_low"], rel=REL)
    assert got.high == pytest.approx(want["ci_high"], rel=REL)
    assert got.pvalue == pytest.approx(want["p_value"], rel=1e-8)
    assert got.df == pytest.approx(want["df"], rel=REL)
    assert got.statistic == pytest.approx(want["statistic"], rel=REL)


@pytest.mark.parametrize("name", [n for n in CASES if n not in ("iguana_chameleon",
                                                                 "normal_unequal", "ties")])
@pytest.mark.parametrize("level", ["0.95", "0.9"])
def test_paired_t_matches_r(r_reference, name, level):
    case = r_reference[name]
    a, b = _ab(case)
    want = case["t_paired"][level]
    got = paired_difference(describe(b - a, "d"), float(level))
    assert got.estimate == pytest.approx(want["estimate"], rel=REL)
    assert got.low == pytest.approx(want["ci_low"], rel=REL)
    assert got.high == pytest.approx(want["ci_high"], rel=REL)
    assert got.pvalue == pytest.approx(want["p_value"], rel=1e-8)
    assert got.df == want["df"]


@pytest.mark.parametrize("name", CASES)
def test_mann_whitney_matches_r(r_reference, name):
    case = r_reference[name]
    a, b = _ab(case)
    got = ct.mann_whitney(a, b)
    want = case["wilcox"]["default"]  # R's default: exact without ties and n < 50
    assert got.statistic == want["statistic"]
    assert got.pvalue == pytest.approx(want["p_value"], rel=1e-9)
    assert (got.method == "exact") == want["exact_used"]
    assert got.estimate == pytest.approx(want["estimate_hl"], rel=1e-12, abs=1e-12)
    # R's normal-approximation limits come from a root search (tol 1e-10 in the fixture).
    assert got.low == pytest.approx(want["ci_low_tight"], rel=1e-9, abs=1e-9)
    assert got.high == pytest.approx(want["ci_high_tight"], rel=1e-9, abs=1e-9)
    _check_achieved_level(got, want)


def _check_achieved_level(got, want):
    if want["conf_level_reported"] < want["conf_level_requested"]:
        assert f"{100 * want['conf_level_reported']:g}% confidence" in got.note
    else:
        assert "not achievable" not in got.note


@pytest.mark.parametrize("name", CASES)
def test_kolmogorov_smirnov_matches_r(r_reference, name):
    # With ties too: R conditions its exact p on them (more cases in test_kolmogorov_smirnov).
    case = r_reference[name]
    a, b = _ab(case)
    got = ct.kolmogorov_smirnov(a, b)
    assert got.statistic == pytest.approx(case["ks"]["statistic"], rel=1e-12)
    assert got.pvalue == pytest.approx(case["ks"]["p_value"], rel=1e-9)


@pytest.mark.parametrize("name", CASES)
def test_shapiro_and_f_test_match_r(r_reference, name):
    case = r_reference[name]
    a, b = _ab(case)
    for x, key in ((a, "shapiro_a"), (b, "shapiro_b")):
        got = ct.shapiro_wilk(x, key)
        assert got.statistic == pytest.approx(case[key]["statistic"], rel=1e-6)
        assert got.pvalue == pytest.approx(case[key]["p_value"], rel=1e-5)
    got = ct.f_test(describe(a), describe(b))
    want = case["var_test"]
    assert got.statistic == pytest.approx(want["statistic"], rel=REL)
    assert got.pvalue == pytest.approx(want["p_value"], rel=1e-8)
    assert got.low == pytest.approx(want["ci_low"], rel=1e-8)
    assert got.high == pytest.approx(want["ci_high"], rel=1e-8)


@pytest.mark.parametrize("name", ["kamp_real", "kamp_user", "kamp_sys", "lognormal_30",
                                  "paired_10"])
def test_wilcoxon_signed_rank_matches_r(r_reference, name):
    case = r_reference[name]
    a, b = _ab(case)
    got = ct.wilcoxon_signed_rank(b - a)
    want = case["wilcox_paired"]["default"]
    assert got.statistic == want["statistic"]
    assert got.pvalue == pytest.approx(want["p_value"], rel=1e-9)
    assert got.estimate == pytest.approx(want["estimate_hl"], rel=1e-12, abs=1e-12)
    assert got.low == pytest.approx(want["ci_low_tight"], rel=1e-12, abs=1e-12)
    assert got.high == pytest.approx(want["ci_high_tight"], rel=1e-12, abs=1e-12)
    _check_achieved_level(got, want)


@pytest.mark.parametrize("name", ["normal_unequal", "lognormal_30"])
@pytest.mark.parametrize("statistic", ["mean", "median"])
def test_bootstrap_agrees_with_r_boot(r_reference, name, statistic):
    """R's boot with 200,000 stratified resamples; Monte Carlo error allows ~0.5% here."""
    case = r_reference[name]
    a, b = _ab(case)
    want = case[f"boot_ratio_{statistic}s"]
    got = bootstrap_ratio(a, b, statistic, replicates=100_000, seed=11)
    tol = 0.004 if statistic == "mean" else 0.012
    assert got.estimate == pytest.approx(want["t0"], rel=1e-12)
    assert got.low == pytest.approx(want["perc_low"], abs=tol)
    assert got.high == pytest.approx(want["perc_high"], abs=tol)
    assert got.bca_low == pytest.approx(want["bca_jack_low"], abs=tol)
    assert got.bca_high == pytest.approx(want["bca_jack_high"], abs=tol)
