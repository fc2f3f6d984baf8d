"""benchlab.stats.ministat: ministat's t table, vitals and comparison (STATS.md §2).

References: the t table rows as printed in FreeBSD's usr.bin/ministat/ministat.c,
scipy's t and normal quantiles, exact rational arithmetic (fractions) for the
vitals, and STATS.md's percent formula for the comparison.
"""

# %-formatting on purpose: it follows C printf, as ministat prints.
# ruff: noqa: UP031

from __future__ import annotations

import math
import statistics
from fractions import Fraction

import pytest

from benchlab.stats import ministat as m

IGUANA = [50, 200, 150, 400, 750, 400, 150]
CHAMELEON = [150, 400, 720, 500, 930]

# Rows copied from FreeBSD's ministat.c: row 0 ("inf") and some df rows.
FREEBSD_ROWS = {
    0: (1.282, 1.645, 1.960, 2.326, 2.576, 3.090),
    1: (3.078, 6.314, 12.706, 31.821, 63.657, 318.313),
    2: (1.886, 2.920, 4.303, 6.965, 9.925, 22.327),
    10: (1.372, 1.812, 2.228, 2.764, 3.169, 4.143),
    30: (1.310, 1.697, 2.042, 2.457, 2.750, 3.385),
    50: (1.299, 1.676, 2.009, 2.403, 2.678, 3.261),
    99: (1.290, 1.660, 1.984, 2.365, 2.626, 3.175),
    100: (1.290, 1.660, 1.984, 2.364, 2.626, 3.174),
}


# --- the t table ------------------------------------------------------------

def test_table_shape_and_levels():
    assert len(m.STUDENT_T) == 101
    assert all(len(row) == 6 for row in m.STUDENT_T)
    assert m.CONFIDENCE_LEVELS == (80, 90, 95, 98, 99, 99.5)


@pytest.mark.parametrize("row", sorted(FREEBSD_ROWS))
def test_table_rows_as_printed_in_freebsd_source(row):
    assert m.STUDENT_T[row] == FREEBSD_ROWS[row]


def test_table_values_have_three_decimals():
    for row in m.STUDENT_T:
        for value in row:
            assert float(f"{value:.3f}") == value


def test_table_two_sided_columns_are_rounded_t_quantiles():
    st = pytest.importorskip("scipy.stats")
    for df in range(1, 101):
        for col, pct in enumerate(m.CONFIDENCE_LEVELS[:5]):
            exact = st.t.ppf(1 - (1 - pct / 100) / 2, df)
            assert abs(m.STUDENT_T[df][col] - exact) <= 0.0005 + 1e-9, (df, pct)
    for col, pct in enumerate(m.CONFIDENCE_LEVELS[:5]):
        assert abs(m.STUDENT_T[0][col] - st.norm.ppf(1 - (1 - pct / 100) / 2)) <= 0.0005


def test_table_995_column_is_the_one_sided_999_quantile():
    """ministat's quirk: its "99.5" column holds t(0.999), not t(0.9975)."""
    st = pytest.importorskip("scipy.stats")
    for df in range(1, 101):
        value = m.STUDENT_T[df][5]
        assert abs(value - st.t.ppf(0.999, df)) < 0.005, df
        assert value - st.t.ppf(0.9975, df) > 0.09, df
    assert abs(m.STUDENT_T[0][5] - st.norm.ppf(0.999)) < 0.0005


def test_student_t_rows_and_normal_row_above_100():
    assert m.student_t(1, 2) == 12.706
    assert m.student_t(10) == 2.228
    assert m.student_t(100, 0) == 1.290
    assert m.student_t(101, 2) == 1.960
    assert m.student_t(10_000, 5) == 3.090
    with pytest.raises(ValueError):
        m.student_t(0)


@pytest.mark.parametrize(("level", "index"),
                         [(80, 0), (90, 1), (95, 2), (95.0, 2), (98, 3), (99, 4), (99.5, 5)])
def test_confidence_index(level, index):
    assert m.confidence_index(level) == index


@pytest.mark.parametrize("level", [0, 50, 97, 99.9, 100, 0.95])
def test_confidence_index_refuses_other_levels(level):
    with pytest.raises(ValueError):
        m.confidence_index(level)


# --- vitals ------------------------------------------------------------------

def test_describe_man_page_iguana():
    s = m.describe("iguana", IGUANA)
    assert (s.n, s.min, s.max, s.median, s.mean) == (7, 50, 750, 200, 300)
    assert s.points == (50, 150, 150, 200, 400, 400, 750)
    assert "%13.8g" % s.stddev == "    238.04761"
    assert s.variance == pytest.approx(float(statistics.variance(IGUANA)), rel=1e-15)


@pytest.mark.parametrize(("values", "median"), [
    ([1, 2, 3, 4], 2.5),
    ([2.5, 3.5, 1.5, 6.5, 4.5, 5.5], 4.0),
    ([3, 1, 2], 2),
    ([5, 5, 1, 9, 9, 1], 5.0),
])
def test_median_is_the_true_median(values, median):
    assert m.describe("d", values).median == median
    assert m.describe("d", values).median == statistics.median(values)


def test_legacy_median_is_the_upper_middle_value():
    assert m.describe("d", [1, 2, 3, 4], flavor=m.LEGACY_2015).median == 3
    assert m.describe("d", [1, 2, 3], flavor=m.LEGACY_2015).median == 2


def test_mean_is_the_running_sum_in_input_order():
    # ((1e16 + 1) - 1e16) + 1 = 1: 1e16 + 1 rounds to 1e16. The exact sum is 2,
    # which adding in another order (or sorted, or compensated) gives.
    assert m.describe("d", [1e16, 1.0, -1e16, 1.0]).mean == 0.25
    assert m.describe("d", [1.0, 1.0, 1e16, -1e16]).mean == 0.5


def test_variance_is_a_second_pass_over_sorted_points():
    values = [1000000.1, 1000000.2, 1000000.4, 1000000.3]
    s = m.describe("d", values)
    total = 0.0
    for v in values:
        total += v
    mean = total / 4
    squares = 0.0
    for v in sorted(values):
        squares += (v - mean) * (v - mean)
    assert s.variance == squares / 3.0
    exact = statistics.stdev(Fraction(v) for v in values)
    assert "%13.8g" % s.stddev == "%13.8g" % float(exact) == "   0.12909944"


def test_legacy_variance_uses_running_sums_and_loses_digits():
    values = [1000000.1, 1000000.2, 1000000.4, 1000000.3]
    legacy = m.describe("d", values, flavor=m.LEGACY_2015)
    assert "%13.8g" % legacy.stddev == "   0.12884705"  # what the 2015 binary prints


def test_constant_tenths_have_a_tiny_stddev_not_nan():
    """0.1 * 3 sums to 0.30000000000000004: the mean is not 0.1, so the spread is not 0.

    Current ministat prints 1.6996749e-17; the 2015 port's running sums go
    negative and it prints -nan (the golden case zero_span_tenth).
    """
    s = m.describe("d", [0.1, 0.1, 0.1])
    assert s.mean == 0.30000000000000004 / 3
    assert "%g" % s.stddev == "1.69967e-17"
    assert math.isnan(m.describe("d", [0.1, 0.1, 0.1], flavor=m.LEGACY_2015).stddev)


def test_constant_integers_have_zero_stddev():
    s = m.describe("d", [7, 7, 7, 7])
    assert (s.variance, s.stddev, s.median) == (0.0, 0.0, 7.0)


def test_describe_refuses_too_few_points_and_non_finite_values():
    with pytest.raises(ValueError, match="at least 3"):
        m.describe("d", [1, 2])
    with pytest.raises(ValueError, match="NaN"):
        m.describe("d", [1, 2, math.nan])
    with pytest.raises(ValueError, match="NaN or infinity"):
        m.describe("d", [1, 2, math.inf])
    with pytest.raises(ValueError, match="flavor"):
        m.describe("d", [1, 2, 3], flavor="1999")


def test_sample_is_frozen():
    s = m.describe("d", [1, 2, 3])
    with pytest.raises(AttributeError):
        s.mean = 5  # type: ignore[misc]


# --- the comparison ----------------------------------------------------------

def _exact(values):
    mean = statistics.mean(Fraction(v) for v in values)
    var = statistics.variance(Fraction(v) for v in values)
    return float(mean), float(var)


def _expected(cand, base, pct):
    """The comparison by the formulas in STATS.md §2, from exact moments."""
    (md, vd), (mr, vr) = _exact(cand), _exact(base)
    nd, nr = len(cand), len(base)
    df = nd + nr - 2
    t = m.STUDENT_T[df if df <= 100 else 0][m.CONFIDENCE_LEVELS.index(pct)]
    sp = math.sqrt(((nd - 1) * vd + (nr - 1) * vr) / df)
    e = t * sp * math.sqrt(1 / nd + 1 / nr)
    re = t * math.sqrt(((nd - 1) * vd + (nr - 1) * vr * (md / mr) ** 2) / df
                       * (1 / nd + 1 / nr))
    return md - mr, e, 100 * (md - mr) / mr, 100 * re / mr, sp


def test_compare_man_page_is_no_difference():
    c = m.relative(m.describe("chameleon", CHAMELEON), m.describe("iguana", IGUANA))
    assert not c.significant
    assert (c.df, c.t, c.confidence) == (10, 2.228, 95.0)
    assert c.difference == 240.0
    d, e, pct, pct_hw, sp = _expected(CHAMELEON, IGUANA, 95)
    assert c.half_width == pytest.approx(e, rel=1e-12)
    assert c.pooled_stddev == pytest.approx(sp, rel=1e-12)
    assert c.percent == pytest.approx(pct, rel=1e-12)
    assert c.percent_half_width == pytest.approx(pct_hw, rel=1e-12)


@pytest.mark.parametrize("pct", [80, 90, 95, 98, 99, 99.5])
def test_compare_kamp_user_times_follows_stats_md(pct):
    current = [1972.63, 1965.80, 1969.07]
    buf_work = [1965.67, 1960.00, 1958.09]
    c = m.relative(m.describe("b", buf_work), m.describe("c", current),
                  m.confidence_index(pct))
    d, e, p, p_hw, sp = _expected(buf_work, current, pct)
    assert "%g %g %g %g %g" % (c.difference, c.half_width, c.percent, c.percent_half_width,
                               c.pooled_stddev) == "%g %g %g %g %g" % (d, e, p, p_hw, sp)
    assert c.significant == (abs(d) > e)
    assert c.significant == (pct in (80, 90))


def test_percent_half_width_2016_formula_differs_from_scaled_half_width():
    base, cand = [1, 1, 1, 2, 2, 3, 5], [1, 3, 4, 4, 5, 5, 5]  # golden case "ties", set 4
    current = m.relative(m.describe("b", cand), m.describe("a", base))
    legacy = m.relative(m.describe("b", cand, flavor=m.LEGACY_2015),
                       m.describe("a", base, flavor=m.LEGACY_2015), flavor=m.LEGACY_2015)
    assert "%g%% +/- %g%%" % (current.percent, current.percent_half_width) == "80% +/- 115.85%"
    assert "%g%% +/- %g%%" % (legacy.percent, legacy.percent_half_width) == "80% +/- 79.5658%"
    assert legacy.percent_half_width == legacy.half_width * 100 / (15 / 7)


def test_compare_uses_normal_row_above_100_df():
    a = m.describe("a", [float(i % 7) for i in range(60)])
    b = m.describe("b", [float(i % 7) + 0.5 for i in range(60)])
    c = m.relative(b, a)
    assert (c.df, c.t) == (118, 1.960)
    c100 = m.relative(m.describe("b", [float(i % 7) for i in range(51)]),
                     m.describe("a", [float(i % 5) for i in range(51)]), 5)
    assert (c100.df, c100.t) == (100, 3.174)


def test_compare_with_zero_baseline_mean_gives_ieee_results():
    base = m.describe("a", [-1, 0, 1])
    cand = m.describe("b", [10, 11, 12])
    c = m.relative(cand, base)
    assert c.significant
    assert c.percent == math.inf
    assert c.percent_half_width == math.inf


def test_compare_identical_constant_sets():
    a = m.describe("a", [7, 7, 7])
    c = m.relative(a, a)
    assert (c.difference, c.half_width, c.pooled_stddev, c.significant) == (0, 0, 0, False)
    assert math.isnan(c.percent_half_width) or c.percent_half_width == 0
