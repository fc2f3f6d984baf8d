"""Student's t computed without scipy (stats/distributions.py), against scipy.special's stdtr
and stdtrit (the routines of scipy.stats.t) and the closed forms for 1 and 2 degrees of
freedom; and a t interval that imports no scipy."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

from benchlab.stats import distributions as d

DFS = [0.5, 1, 1.5, 2, 3, 4.5, 9, 29, 99, 300, 1999, 19999]
PS = [1e-12, 1e-6, 1e-3, 0.025, 0.05, 0.2, 0.49, 0.51, 0.8, 0.95, 0.975, 0.999, 1 - 1e-9]


@pytest.mark.parametrize("df", DFS)
def test_quantiles_match_scipy(df):
    from scipy.special import stdtrit

    ours = np.array([d.t_quantile(p, df) for p in PS])
    np.testing.assert_allclose(ours, stdtrit(df, np.array(PS)), rtol=1e-11)


@pytest.mark.parametrize("df", DFS)
def test_two_sided_p_matches_scipy(df):
    from scipy.special import stdtr

    ts = np.array([1e-3, 0.1, 0.7, 1.0, 1.96, 2.5, 4.0, 9.0, 40.0])
    ours = np.array([d.t_two_sided_p(t, df) for t in ts])
    np.testing.assert_allclose(ours, np.minimum(1.0, 2.0 * stdtr(df, -ts)), rtol=1e-10)


def test_closed_forms():
    for q in (1e-10, 0.01, 0.3):
        assert d.t_upper(math.tan(math.pi * (0.5 - q)), 1.0) == pytest.approx(q, rel=1e-12)
        p = 1 - q
        q = 1 - p  # the tail 1 - q keeps, exactly
        t2 = (1 - 2 * q) / math.sqrt(2 * q * (1 - q))  # df 2
        assert d.t_quantile(p, 2.0) == pytest.approx(t2, rel=1e-13)
        assert d.t_quantile(p, 2.000001) == pytest.approx(t2, rel=1e-5)
    # df 1 near 0: 1 - p = 2 atan(t) / π, where scipy's stdtr keeps fewer digits
    assert 1 - d.t_two_sided_p(1e-6, 1.0) == pytest.approx(2 * math.atan(1e-6) / math.pi,
                                                           rel=1e-9)


def test_edges():
    assert d.t_quantile(0.5, 7.0) == 0.0
    assert d.t_quantile(1.0, 7.0) == math.inf and d.t_quantile(0.0, 7.0) == -math.inf
    assert math.isnan(d.t_quantile(0.9, 0.0)) and math.isnan(d.t_quantile(1.5, 3.0))
    assert d.t_quantile(0.975, math.inf) == pytest.approx(1.959963984540054, rel=1e-12)
    assert d.t_two_sided_p(0.0, 5.0) == 1.0 and d.t_two_sided_p(math.inf, 5.0) == 0.0
    assert d.critical_t(0.95, 1e6) == pytest.approx(1.9599663, rel=1e-7)  # scipy's side


def test_a_t_interval_imports_no_scipy():
    code = ("import sys\nfrom benchlab.stats.distributions import critical_t, t_two_sided_p\n"
            "critical_t(0.95, 9.0); t_two_sided_p(2.0, 9.0)\n"
            "print(any(m.startswith('scipy') for m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_signed_rank_p_matches_scipy():
    """The signed-rank p computed without scipy (exact, and normal with ties and continuity
    correction) against scipy.stats.wilcoxon with the same settings."""
    from scipy import stats

    from benchlab.stats.classic_tests import wilcoxon_signed_rank

    rng = np.random.default_rng(3)
    for case in range(60):
        x = rng.normal(0.3 * rng.normal(), 1.0, int(rng.integers(2, 70)))
        if case % 3 == 0:
            x = np.round(x * 3) / 3  # ties and zeros: the normal approximation
        d = x[x != 0]
        exact = d.size < 50 and np.unique(np.abs(d)).size == d.size == x.size
        ref = stats.wilcoxon(d, zero_method="wilcox", correction=not exact,
                             method="exact" if exact else "approx").pvalue
        assert wilcoxon_signed_rank(x).pvalue == pytest.approx(ref, rel=1e-10, abs=1e-300)
