"""Two-sample Kolmogorov–Smirnov (classic_tests.kolmogorov_smirnov) against R 4.2.2's ks.test.

Fixtures: tests/fixtures/r/ks/ks.json, made by make_ks.R beside it (no R needed here).
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchlab.stats.classic_tests import kolmogorov_smirnov, smirnov_exact_sf
from benchlab.stats.protocols import speedup_test

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "r" / "ks" / "ks.json"
KS = json.loads(FIXTURE.read_text())
CASES = KS["cases"]


def _xy(case: dict) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.array(case["x"], dtype=float), np.array(case["y"], dtype=float)
    return x, y


def test_fixture_is_from_r_4_2_2():
    assert KS["r_version"].startswith("R version 4.2.2")
    kinds = {(c["exact"], c["ties"]) for c in CASES.values()}
    assert kinds == {(True, False), (True, True), (False, False), (False, True)}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_r_ks_test(name):
    case = CASES[name]
    x, y = _xy(case)
    if case["centred"]:
        x, y = x - np.median(x), y - np.median(y)
    got = kolmogorov_smirnov(y, x)  # R's ks.test(x, y); the two-sided test is symmetric
    assert got.statistic == pytest.approx(case["statistic"], rel=1e-12, abs=1e-15)
    # R's asymptotic p sums its series to 1e-6 (pKS2); scipy's kolmogorov is exact there
    rel = 1e-9 if case["exact"] else 1e-7
    assert got.pvalue == pytest.approx(case["p_value"], rel=rel, abs=1e-15)
    assert got.method.startswith("exact") == case["exact"]
    assert ("conditional on the ties" in got.method) == (case["exact"] and case["ties"])
    assert (got.note is not None) == (not case["exact"] and bool(case["warnings"]))
    assert kolmogorov_smirnov(x, y).pvalue == pytest.approx(got.pvalue, rel=1e-12)


@pytest.mark.parametrize("name", ["centred_ties", "centred_timer"])
def test_median_protocol_check_is_the_same_test(name):
    """The Speedup-Test's shape check is this KS on centred samples: R's value, one code path."""
    case = CASES[name]
    x, y = _xy(case)
    check = speedup_test(x, y, protocol="speedup-median").checks[0]
    assert check.name == "Kolmogorov-Smirnov (median-centred)"
    assert check.pvalue == pytest.approx(case["p_value"], rel=1e-9)
    assert check.method == "exact, conditional on the ties"


def test_exact_without_ties_is_scipy_exact():
    from scipy import stats

    rng = np.random.default_rng(5)
    for m, n in ((13, 17), (1, 40), (60, 45)):
        x, y = rng.normal(size=m), rng.normal(0.8, size=n)
        res = stats.ks_2samp(x, y, method="exact")
        got = kolmogorov_smirnov(y, x)
        assert got.statistic == pytest.approx(res.statistic, rel=1e-12)
        assert got.pvalue == pytest.approx(res.pvalue, rel=1e-9)


def _brute_force_sf(x: np.ndarray, y: np.ndarray, d: float) -> float:
    """P(D >= d) over every split of the pooled values into sizes m and n (the ties fixed)."""
    pooled = np.concatenate([x, y])
    m, hits, total = x.size, 0, 0
    for first in itertools.combinations(range(pooled.size), m):
        mask = np.zeros(pooled.size, dtype=bool)
        mask[list(first)] = True
        hits += kolmogorov_smirnov(pooled[~mask], pooled[mask]).statistic >= d - 1e-9
        total += 1
    assert total == math.comb(pooled.size, m)
    return hits / total


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=5),
       st.lists(st.integers(0, 4), min_size=1, max_size=5))
def test_exact_given_ties_is_the_permutation_distribution(a, b):
    """Conditional on the ties, the exact p is the share of label permutations with D >= d."""
    x, y = np.array(a, dtype=float), np.array(b, dtype=float)
    got = kolmogorov_smirnov(y, x)
    assert got.pvalue == pytest.approx(_brute_force_sf(x, y, got.statistic), abs=1e-12)


def test_distinct_pooled_values_check_every_step():
    rng = np.random.default_rng(9)
    x, y = rng.normal(size=7), rng.normal(size=11)
    d = kolmogorov_smirnov(y, x).statistic
    pooled = np.sort(np.concatenate([x, y]))
    assert smirnov_exact_sf(d, 7, 11, pooled) == smirnov_exact_sf(d, 7, 11)
    assert smirnov_exact_sf(d, 11, 7) == smirnov_exact_sf(d, 7, 11)
