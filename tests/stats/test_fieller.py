"""Fieller's interval: closed form, brute-force pivot inversion, unbounded sets, invariances."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from benchlab.stats.fieller import fieller_interval, ratio_df, welch_ratio_df


def _quadratic_roots(a, b, v_a, v_b, v_ab, t):
    """The set {ρ : (a − ρb)² ≤ t²(v_a − 2ρ v_ab + ρ² v_b)} as the roots of a quadratic."""
    qa = b * b - t * t * v_b
    qb = -2 * (a * b - t * t * v_ab)
    qc = a * a - t * t * v_a
    disc = qb * qb - 4 * qa * qc
    r1 = (-qb - math.sqrt(disc)) / (2 * qa)
    r2 = (-qb + math.sqrt(disc)) / (2 * qa)
    return min(r1, r2), max(r1, r2)


def _brute_force(a, b, v_a, v_b, v_ab, t, lo, hi, steps=2_000_001):
    """Invert the pivot on a fine grid: the extreme ρ where the pivot is within ±t."""
    grid = np.linspace(lo, hi, steps)
    pivot = (a - grid * b) / np.sqrt(v_a - 2 * grid * v_ab + grid**2 * v_b)
    inside = grid[np.abs(pivot) <= t]
    return inside.min(), inside.max(), grid[1] - grid[0]


@pytest.mark.parametrize("v_ab", [0.0, 0.3, -0.2])
def test_matches_quadratic_closed_form_and_brute_force(v_ab):
    a, b, v_a, v_b, df = 9.5, 10.0, 0.8, 0.5, 12.0
    got = fieller_interval(a, b, v_a, v_b, v_ab, df, 0.95)
    t = stats.t.ppf(0.975, df)
    lo, hi = _quadratic_roots(a, b, v_a, v_b, v_ab, t)
    assert got.low == pytest.approx(lo, rel=1e-12)
    assert got.high == pytest.approx(hi, rel=1e-12)
    blo, bhi, step = _brute_force(a, b, v_a, v_b, v_ab, t, 0.5, 1.5)
    assert abs(got.low - blo) <= step and abs(got.high - bhi) <= step


def test_unbounded_when_denominator_not_significant():
    # g = t² v_b / b² ≥ 1: the baseline mean is within its own CI of zero.
    got = fieller_interval(1.0, 0.5, 0.1, 0.2, 0.0, 5.0, 0.95)
    assert got.low is None and got.high is None and not got.bounded
    assert "unbounded" in got.note
    assert got.estimate == 2.0


def test_zero_variance_is_exact():
    both = fieller_interval(3.0, 2.0, 0.0, 0.0, 0.0, 4.0)
    assert (both.low, both.high) == (1.5, 1.5)
    base_fixed = fieller_interval(3.0, 2.0, 0.25, 0.0, 0.0, 4.0)
    t = stats.t.ppf(0.975, 4.0)
    assert base_fixed.low == pytest.approx(1.5 - t * 0.5 / 2.0, rel=1e-14)
    assert base_fixed.high == pytest.approx(1.5 + t * 0.5 / 2.0, rel=1e-14)


def test_refuses_non_positive_denominator():
    with pytest.raises(ValueError):
        fieller_interval(1.0, 0.0, 0.1, 0.1, 0.0, 5.0)
    with pytest.raises(ValueError):
        fieller_interval(1.0, -2.0, 0.1, 0.1, 0.0, 5.0)


def test_df_methods():
    assert ratio_df("conservative", 1.0, 1.0, 1.0, 5, 8) == 4
    assert ratio_df("pooled", 1.0, 1.0, 1.0, 5, 8) == 11
    # Welch–Satterthwaite with ρ = 1 equals Welch's t df of the difference.
    v_a, v_b = 2.0 / 5, 3.0 / 8
    welch_t_df = (v_a + v_b) ** 2 / (v_a**2 / 4 + v_b**2 / 7)
    assert welch_ratio_df(1.0, v_a, v_b, 5, 8) == pytest.approx(welch_t_df, rel=1e-14)
    with pytest.raises(ValueError):
        ratio_df("magic", 1.0, 1.0, 1.0, 5, 8)


positive = st.floats(min_value=0.5, max_value=100.0)
spread = st.floats(min_value=1e-3, max_value=2.0)


@settings(max_examples=200, deadline=None)
@given(a=positive, b=positive, sa=spread, sb=spread, n=st.integers(3, 50),
       scale=st.floats(min_value=1e-6, max_value=1e6))
def test_scale_invariance(a, b, sa, sb, n, scale):
    """Measuring in other units (× scale) leaves the ratio CI unchanged."""
    v_a, v_b = (sa * a) ** 2 / n, (sb * b) ** 2 / n
    df = welch_ratio_df(a / b, v_a, v_b, n, n)
    one = fieller_interval(a, b, v_a, v_b, 0.0, df)
    df_s = welch_ratio_df(a / b, v_a * scale**2, v_b * scale**2, n, n)
    other = fieller_interval(a * scale, b * scale, v_a * scale**2, v_b * scale**2, 0.0, df_s)
    assert df_s == pytest.approx(df, rel=1e-9)
    assert one.bounded == other.bounded
    if one.bounded:
        assert other.low == pytest.approx(one.low, rel=1e-9)
        assert other.high == pytest.approx(one.high, rel=1e-9)


@settings(max_examples=200, deadline=None)
@given(a=positive, b=positive, sa=spread, sb=spread, na=st.integers(3, 40),
       nb=st.integers(3, 40))
def test_swapping_samples_gives_reciprocal_interval(a, b, sa, sb, na, nb):
    """The Fieller set of b/a is the reciprocal of that of a/b (same pivot, same Welch df)."""
    v_a, v_b = (sa * a) ** 2 / na, (sb * b) ** 2 / nb
    fwd = fieller_interval(a, b, v_a, v_b, 0.0, welch_ratio_df(a / b, v_a, v_b, na, nb))
    back = fieller_interval(b, a, v_b, v_a, 0.0, welch_ratio_df(b / a, v_b, v_a, nb, na))
    if fwd.bounded and back.bounded and fwd.low > 0:
        assert back.low == pytest.approx(1 / fwd.high, rel=1e-8)
        assert back.high == pytest.approx(1 / fwd.low, rel=1e-8)


@settings(max_examples=200, deadline=None)
@given(a=positive, b=positive, sa=spread, sb=spread, n=st.integers(3, 40))
def test_interval_contains_estimate(a, b, sa, sb, n):
    v_a, v_b = (sa * a) ** 2 / n, (sb * b) ** 2 / n
    got = fieller_interval(a, b, v_a, v_b, 0.0, welch_ratio_df(a / b, v_a, v_b, n, n))
    if got.bounded:
        assert got.low <= got.estimate <= got.high
