"""Benchmark suites: Holm's adjustment, the geometric mean of ratios and its bootstrap CI."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from benchlab.stats.suite import compare_suite, holm_adjust

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
