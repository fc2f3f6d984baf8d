"""The head commit's variance in `history compare` (stats/commit_variance.py, issue 14 item 1)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from benchlab.history.compare import HistoryCompare, compare_head
from benchlab.history.store import Commit, Series
from benchlab.stats.commit_variance import (
    NOISIER_P,
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
    hv = head_variance(base.ravel(), np.repeat(np.arange(k), r), head, head_spread=False)
    assert hv.within == pytest.approx(msw, rel=1e-12)
    assert hv.commit == pytest.approx((msb - msw) / r, rel=1e-12)
    assert hv.variance == pytest.approx((msb - msw) / r + msw / head.size, rel=1e-12)
    assert hv.variance == pytest.approx(msb / r, rel=1e-12)  # h = r: one more commit's mean
    assert (hv.k, hv.df_within, hv.truncated) == (k, k * (r - 1) + head.size - 1, False)


def test_a_negative_estimate_is_truncated_at_zero():
    base = np.array([[1.0, 1.2], [1.1, 1.1], [1.05, 1.15]])  # commit means all 1.1
    hv = head_variance(base.ravel(), np.repeat(np.arange(3), 2), np.array([1.0, 1.3]))
    assert hv.truncated and hv.commit == 0.0
    assert hv.own and hv.variance == pytest.approx(0.045 / 2)  # the head's own s^2 = 0.045
    pooled = head_variance(base.ravel(), np.repeat(np.arange(3), 2), np.array([1.0, 1.3]),
                           head_spread=False)
    assert pooled.truncated and pooled.variance == pytest.approx(pooled.within / 2)


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


# -- a head noisier than its baseline (the F test and the order-restricted choice) ------
def test_the_f_test_against_scipy_and_the_order_restricted_variance():
    """F = s_h^2 / s_b^2 (the head left out of s_b^2) on (n_h - 1, sum(n_i - 1)) df, p
    from scipy's F distribution, and the head's own variance with its df when it is the
    larger: V_h = max(0, S_B^2 - s_b^2 / r) + s_h^2 / n_h."""
    rng = np.random.default_rng(21)
    base, _ = balanced(rng, k=10, r=3, sd_commit=0.02)
    head = 1.0 + rng.normal(0.0, 0.04, 4)
    k, r = base.shape
    s2_b = sum(((g - g.mean()) ** 2).sum() for g in base) / (k * (r - 1))
    s2_h = head.var(ddof=1)
    hv = head_variance(base.ravel(), np.repeat(np.arange(k), r), head)
    noise = hv.noise
    assert noise.f == pytest.approx(s2_h / s2_b, rel=1e-12)
    assert (noise.df_head, noise.df_baseline) == (3, k * (r - 1))
    assert noise.p == pytest.approx(stats.f.sf(s2_h / s2_b, 3, k * (r - 1)), rel=1e-12)
    assert noise.sd_ratio == pytest.approx(np.sqrt(s2_h / s2_b))
    assert s2_h > s2_b and hv.own and hv.head_within == (pytest.approx(s2_h), 3)
    assert (hv.within, hv.df_within) == (pytest.approx(s2_b), k * (r - 1))
    sb2 = base.mean(axis=1).var(ddof=1)
    assert hv.variance == pytest.approx(max(0.0, sb2 - s2_b / r) + s2_h / head.size)
    # the pivot's df: Satterthwaite over S_B^2, s_b^2 and s_h^2 (three mean squares)
    assert sb2 - s2_b / r > 0 and not hv.truncated
    parts = [((1 + 1 / k) * sb2, k - 1), (-s2_b / r, k * (r - 1)), (s2_h / 4, 3)]
    expect = sum(p for p, _ in parts) ** 2 / sum(p * p / d for p, d in parts)
    assert hv.pivot_df(1.0) == pytest.approx(expect, rel=1e-12)
    # a quieter head: its within part is s_p^2, pooled with the baseline's; sigma2_c^
    # still from the baseline alone; the df over the independent S_B^2, s_b^2, s_h^2
    q_head = 1.0 + rng.normal(0.0, 1e-3, 4)
    quiet = head_variance(base.ravel(), np.repeat(np.arange(k), r), q_head)
    s2_q, df_b = q_head.var(ddof=1), k * (r - 1)
    s2_p = (df_b * s2_b + 3 * s2_q) / (df_b + 3)
    assert not quiet.own and quiet.noise.f < 1 and quiet.df_within == df_b
    assert quiet.head_within == (pytest.approx(s2_p), df_b + 3)
    assert quiet.variance == pytest.approx(max(0.0, sb2 - s2_b / r) + s2_p / 4)
    parts = [((1 + 1 / k) * sb2, k - 1), ((df_b / (df_b + 3) / 4 - 1 / r) * s2_b, df_b),
             (3 / (df_b + 3) / 4 * s2_q, 3)]
    expect = sum(p for p, _ in parts) ** 2 / sum(p * p / d for p, d in parts)
    assert quiet.pivot_df(1.0) == pytest.approx(expect, rel=1e-12)


def test_the_f_test_in_closed_form_for_two_degrees_of_freedom():
    """With n_h - 1 = 2 and df_b = 2m the F survival function has a closed form:
    P(F_{2, d} >= x) = (1 + 2x/d)^(-d/2) (the F(2, d) distribution)."""
    base = np.array([[1.0, 1.02, 0.99], [1.01, 0.98, 1.0], [1.03, 1.0, 1.02]])
    head = np.array([1.0, 1.08, 0.95])
    hv = head_variance(base.ravel(), np.repeat(np.arange(3), 3), head)
    d, x = 6, hv.noise.f
    assert hv.noise.p == pytest.approx((1 + 2 * x / d) ** (-d / 2), rel=1e-10)


def test_a_one_run_head_and_a_baseline_without_within_df_are_unchanged():
    """No F test without 2 head units or baseline df: the head's variance is that of the
    pooled method, with and without head_spread."""
    base, _ = balanced(np.random.default_rng(4))
    k, r = base.shape
    labels = np.repeat(np.arange(k), r)
    one = np.array([1.01])
    a = head_variance(base.ravel(), labels, one)
    b = head_variance(base.ravel(), labels, one, head_spread=False)
    assert a.noise is None and not a.own and a == b
    assert a.variance == pytest.approx(a.commit + a.within)
    y = np.array([1.0, 1.1, 0.9, 1.05])
    c = head_variance(y, np.arange(4), np.array([1.2, 1.0, 1.4]))
    assert c.noise is None and c.df_within == 2


def _noisy_cover(reps: int, head_sd: float, method: str) -> float:
    """Coverage of compare_head's CI (no change) with a head `head_sd` times as noisy
    as its 20 x 3 baseline (commit noise = run noise = 1%), H = 5."""
    rng = np.random.default_rng(17)
    k, r, h = 20, 3, 5
    effect = rng.normal(0.0, 0.01, (reps, k + 1))
    base = 1.0 + effect[:, :k, None] + rng.normal(0.0, 0.01, (reps, k, r))
    head = 1.0 + effect[:, k, None] + rng.normal(0.0, 0.01 * head_sd, (reps, h))
    covered = 0
    for i in range(reps):
        s, commits = _history(base[i], head[i])
        c = compare_head([s], commits, f"c{k}", threshold=0.02, replicates=50,
                         head_spread=method == "now").benchmarks[0][1].comparisons[0]
        covered += c.ratio.low <= 1.0 <= c.ratio.high
    return covered / reps


def test_a_four_times_noisier_head_is_covered_now_and_was_not_before():
    """4x the run SD: the pooled method (before) covers about 70%, far below 95%; the
    head's own variance brings it back near 95% (validation/history_head_variance.py
    has the full table). 300 histories: Monte Carlo SE 1.3 points."""
    assert _noisy_cover(300, 4.0, "before") < 0.85
    assert 0.91 <= _noisy_cover(300, 4.0, "now") <= 0.99


def _notes(base: np.ndarray, head: np.ndarray) -> tuple[HistoryCompare, list[str]]:
    s, commits = _history(base, head)
    res = compare_head([s], commits, f"c{base.shape[0]}", threshold=0.02, replicates=50)
    return res, [n for n in res.notes if "runs vary" in n]


def test_the_note_and_the_json_keys_of_a_noisier_head():
    rng = np.random.default_rng(8)
    base, _ = balanced(rng, k=15, r=3, sd_commit=0.005)
    head = 1.0 + rng.normal(0.0, 0.05, 6)
    res, [note] = _notes(base, head)
    noise = res.spreads[0].variance.noise
    assert noise.p < NOISIER_P
    assert note == (f"b: the head's runs vary {np.sqrt(noise.f):.2g}× more (SD) than the "
                    f"baseline's (F test p = {noise.p:.2g}): its CI uses the head's own "
                    "spread")
    [sp] = res.to_dict()["spreads"]
    assert sp["head_within_used"] == "head" and sp["head_noisier"] is True
    assert sp["head_f"] == pytest.approx(noise.f) and sp["head_f_p"] == pytest.approx(noise.p)
    assert sp["head_f_df"] == [5, 30] and sp["head_within_df"] == 5
    assert sp["head_within_variance"] == pytest.approx(head.var(ddof=1))
    assert sp["within_df"] == 30
    # a head as noisy as its baseline: no note, and the keys say so
    quiet = 1.0 + rng.normal(0.0, 0.01, 3)
    res, notes = _notes(base, quiet)
    [sp] = res.to_dict()["spreads"]
    assert notes == [] and sp["head_noisier"] is False and sp["head_f_df"] == [2, 30]
    assert sp["head_within_used"] == ("head" if quiet.var(ddof=1) > sp["within_variance"]
                                      else "pooled")
    # one head run: no F test
    res, notes = _notes(base, quiet[:1])
    [sp] = res.to_dict()["spreads"]
    assert notes == [] and sp["head_f"] is None and sp["head_f_p"] is None
    assert sp["head_within_used"] == "pooled" and sp["head_noisier"] is None
