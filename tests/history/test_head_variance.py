"""The head commit's variance in `history compare` (stats/commit_variance.py, issue 14 item 1)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from benchlab.history.compare import HistoryCompare, compare_head
from benchlab.history.store import Commit, Series
from benchlab.stats.commit_variance import (
    head_variance,
    pseudo_size,
    pseudo_units,
    welch_df,
)
from benchlab.stats.fieller import fieller_interval


def balanced(rng, k=12, r=4, h=4, sd_commit=0.02, sd_run=0.01):
    """Run means of k baseline commits (r each) and of a head (h runs), no change."""
    effect = rng.normal(0.0, sd_commit, (k + 1, 1))
    base = 1.0 + effect[:k] + rng.normal(0.0, sd_run, (k, r))
    head = 1.0 + effect[k] + rng.normal(0.0, sd_run, h)
    return base, head


def test_the_components_are_one_way_anova_s_method_of_moments():
    """Balanced: sigma2_c = (MSB - MSW) / r with MSB, MSW of the one-way ANOVA (written here
    from the group table, the head a group of the MSW), V_h = sigma2_c + MSW / h."""
    base, head = balanced(np.random.default_rng(3))
    k, r = base.shape
    groups = [*base, head]
    msw = sum(((g - g.mean()) ** 2).sum() for g in groups) / sum(g.size - 1 for g in groups)
    grand = base.mean()
    msb = r * ((base.mean(axis=1) - grand) ** 2).sum() / (k - 1)
    hv = head_variance(base.ravel(), np.repeat(np.arange(k), r), head)
    assert hv.within == pytest.approx(msw, rel=1e-12)
    assert hv.commit == pytest.approx((msb - msw) / r, rel=1e-12)
    assert hv.variance == pytest.approx((msb - msw) / r + msw / head.size, rel=1e-12)
    assert hv.variance == pytest.approx(msb / r, rel=1e-12)  # h = r: one more commit's mean
    assert (hv.k, hv.df_within, hv.truncated) == (k, k * (r - 1) + head.size - 1, False)


def test_a_negative_estimate_is_truncated_at_zero():
    base = np.array([[1.0, 1.2], [1.1, 1.1], [1.05, 1.15]])  # commit means all 1.1
    hv = head_variance(base.ravel(), np.repeat(np.arange(3), 2), np.array([1.0, 1.3]))
    assert hv.truncated and hv.commit == 0.0
    assert hv.variance == pytest.approx(hv.within / 2)


def test_without_within_degrees_of_freedom_the_head_varies_as_a_commit_mean():
    y = np.array([1.0, 1.1, 0.9, 1.05])
    hv = head_variance(y, np.arange(4), np.array([1.2]))
    assert hv.df_within == 0 and hv.variance == pytest.approx(np.var(y, ddof=1))


@pytest.mark.parametrize("m, v", [(2, 1e-4), (7, 3e-6), (400, 2.5)])
def test_pseudo_units_have_the_mean_and_variance_asked_for(m, v):
    x = pseudo_units(1.5, v, m)
    assert x.size == m and x.mean() == pytest.approx(1.5, rel=1e-14)
    assert np.var(x, ddof=1) / m == pytest.approx(v, rel=1e-12)


def _history(base: np.ndarray, head: np.ndarray) -> tuple[Series, list[Commit]]:
    k, r = base.shape
    at = np.concatenate([np.repeat(np.arange(k), r), np.full(head.size, k)])
    runs = np.concatenate([np.tile(np.arange(r), k), np.arange(head.size)]).astype(str)
    s = Series("b", "value", "default", "s", False, ("run",), at,
               np.concatenate([base.ravel(), head]), (runs,))
    return s, [Commit(f"c{i}", None, None) for i in range(k + 1)]


def test_the_ratio_ci_is_fieller_with_the_head_variance():
    """compare_head's CI = Fieller with v_a = V_h, v_b = S_B^2/k and the Welch df of the
    pseudo-units, which is at most the pivot's Satterthwaite df and close to it."""
    base, head = balanced(np.random.default_rng(5), sd_commit=0.03)
    s, commits = _history(base, head)
    res = compare_head([s], commits, "c12", threshold=0.02, replicates=100)
    assert isinstance(res, HistoryCompare)
    c = res.benchmarks[0][1].comparisons[0]
    hv = res.spreads[0].variance
    rho = head.mean() / base.mean()
    total = hv.variance + rho * rho * hv.baseline_variance
    df = welch_df(hv.variance / total, pseudo_size(hv, rho), hv.k)
    assert df <= hv.pivot_df(rho) and df > 0.9 * hv.pivot_df(rho)
    ref = fieller_interval(head.mean(), base.mean(), hv.variance, hv.baseline_variance, 0.0,
                           df, 0.95)
    assert (c.ratio.low, c.ratio.high) == (pytest.approx(ref.low, rel=1e-9),
                                          pytest.approx(ref.high, rel=1e-9))
    head_row = next(d for d in res.benchmarks[0][1].samples if d.name == "head")
    assert head_row.n == head.size and head_row.mean == pytest.approx(head.mean())


def _runs_only_cover(base: np.ndarray, head: np.ndarray) -> np.ndarray:
    """The former CI (the head's runs as units), vectorized over histories: Fieller with
    v_a = s_h^2/n_h, v_b = var(commit means)/k and Welch's df (STATS.md §3)."""
    means = base.mean(axis=2)
    a, b = head.mean(axis=1), means.mean(axis=1)
    va = head.var(axis=1, ddof=1) / head.shape[1]
    vb = means.var(axis=1, ddof=1) / means.shape[1]
    rho = a / b
    df = (va + rho ** 2 * vb) ** 2 / (va ** 2 / (head.shape[1] - 1)
                                      + rho ** 4 * vb ** 2 / (means.shape[1] - 1))
    t = stats.t.ppf(0.975, df)
    # 1 lies in Fieller's set exactly when (a - b)^2 <= t^2 (va + vb) (the pivot at rho = 1)
    return (a - b) ** 2 <= t ** 2 * (va + vb)


def test_coverage_with_commit_noise_three_times_the_run_noise():
    """No change, sd_commit = 3 sd_run: the CI covers 1 about 95% of the time; the runs-only
    CI (computed independently here) covers far less, so the simulation can tell."""
    rng = np.random.default_rng(11)
    reps, k, r = 300, 12, 3
    effect = rng.normal(0.0, 0.03, (reps, k + 1))
    base = 1.0 + effect[:, :k, None] + rng.normal(0.0, 0.01, (reps, k, r))
    head = 1.0 + effect[:, k, None] + rng.normal(0.0, 0.01, (reps, r))
    assert _runs_only_cover(base, head).mean() < 0.75
    covered = 0
    for i in range(reps):
        s, commits = _history(base[i], head[i])
        c = compare_head([s], commits, f"c{k}", threshold=0.02, replicates=50
                         ).benchmarks[0][1].comparisons[0]
        covered += c.ratio.low <= 1.0 <= c.ratio.high
    assert 0.91 <= covered / reps <= 0.99
