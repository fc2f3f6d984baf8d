"""Number formatting: the uncertainty decides the last digit, one unit per row, labels cut."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchlab.report.numbers import (
    decimals,
    fixed,
    fmt_change,
    fmt_interval,
    fmt_percent,
    fmt_pvalue,
    fmt_quantity,
    fmt_row,
    fmt_spread,
    fmt_squared,
    fmt_uncertain,
    last_digit,
    shorten,
    terminal_width,
)
from benchlab.units import make_unit

MS, US, NONE = make_unit("ms"), make_unit("us"), make_unit(None)

finite = st.floats(min_value=-1e12, max_value=1e12, allow_nan=False, allow_infinity=False)
positive = st.floats(min_value=1e-9, max_value=1e9, allow_nan=False, allow_infinity=False)


def test_the_issue_examples():
    assert fmt_quantity(86.1463, MS, 1.2) == "86.1 ms"  # a CI of ±1.2 ms keeps tenths
    assert fmt_quantity(86.1463, MS, 4.0) == "86 ms"
    # one unit per row: the stddev in µs like the mean, not "515.144 ns"
    assert fmt_row((4.87014, 0.515144), US, 0.005, 4.87014) == ["4.870 µs", "0.515 µs"]
    assert fmt_change(6.52, 3.25, 13.1, US) == "6.5× slower (3.3× .. 13.1×)"
    assert fmt_change(0.969, 0.960, 0.978, US) == "-3.1% (-4.0% .. -2.2%)"


@pytest.mark.parametrize(("u", "digit"), [(1.2, -1), (2.9, -1), (3.0, 0), (4.0, 0),
                                          (0.515, -1), (37.0, 1), (0.0012, -4), (1000.0, 2)])
def test_last_digit_from_the_uncertainty(u, digit):
    assert last_digit(u) == digit


@pytest.mark.parametrize("u", [None, 0.0, -1.0, math.nan, math.inf])
def test_no_uncertainty_says_nothing(u):
    assert last_digit(u) is None
    assert fmt_uncertain(123.456789, u) == "123.5"  # four significant digits


@given(finite, positive)
def test_printed_value_is_within_half_a_last_digit(value, u):
    text = fmt_uncertain(value, u)
    places = decimals(value, u)
    printed = float(text)
    step = 10.0 ** (-places)
    assert abs(printed - value) <= 0.5 * step * (1 + 1e-9) + 1e-12 * abs(value)


@given(st.floats(min_value=1.0, max_value=1e6), positive)
def test_a_wider_ci_never_shows_more_digits(value, u):
    assert decimals(value, 10 * u) <= decimals(value, u)


@given(st.floats(min_value=1e-3, max_value=1e6), st.floats(min_value=1e-6, max_value=1e3))
def test_the_last_digit_is_the_uncertaintys_within_two_to_seven_digits(value, u):
    places = decimals(value, u)
    top = int(f"{value:.15e}".split("e")[1])  # the power of ten of its first digit
    shown = top + places + 1  # significant digits printed
    assert 2 <= shown <= 7
    if 2 < shown < 7 and places > 0:  # not clamped: the uncertainty's own last digit
        assert -places == last_digit(u)
    assert places >= 0  # never inside the integer part: no invented trailing zeros


def test_clamps_keep_two_and_at_most_seven_significant_digits():
    assert fmt_uncertain(1.756, 10.3) == "1.8"  # a CI wider than the value: still 2 digits
    assert fmt_uncertain(1.23456789, 1e-12) == "1.234568"  # never past 7


def test_fixed_plain_and_exponent_notation():
    assert fixed(123456789.0, -2) == "123456800"
    assert fixed(-0.0001, 2) == "0.00"  # never "-0.00"
    assert fixed(1.234e20, 2) == "1.234000e+20"
    assert fixed(math.nan, 2) == "n/a"


def test_interval_shares_one_last_digit():
    assert fmt_interval(-1.756, -12.08, 8.567, MS) == ["-2 ms", "-12 ms", "9 ms"]
    assert fmt_interval(-0.001756, -0.01208, 0.008567, make_unit("s")) == [
        "-2 ms", "-12 ms", "9 ms"]


def test_rows_scale_by_the_mean_and_keep_small_values_readable():
    assert fmt_row((98127.5, 11124.8, 70842.7), US, 718.0, 98127.5) == [
        "98.1 ms", "11.1 ms", "70.8 ms"]
    # a stddev far below the mean's last digit keeps two significant digits
    assert fmt_row((1000.0, 0.0123), NONE, 100.0, 1000.0) == ["1000", "0.012"]
    assert fmt_row((math.nan, 1.0), MS, None, 1.0) == ["n/a", "1.000 ms"]


def test_squared_units():
    assert fmt_squared(96.8388, MS, 98.1) == "96.84 ms²"
    assert fmt_squared(96.8388e6, US, 98100.0) == "96.84 ms²"  # scaled as the mean is
    assert fmt_squared(3.0, make_unit("B/op"), 10.0) == "3.000 (B/op)²"
    assert fmt_squared(3.0, NONE, 10.0) == "3.000"


def test_percent_change_and_factors():
    assert fmt_percent(0.1, 0.3) == "+10%"
    assert fmt_percent(-0.0312, 0.009) == "-3.1%"
    assert fmt_percent(0.0, 0.01) == "0.0%"
    assert fmt_change(1.1, None, None, MS) == "+10.0% (unbounded)"
    assert fmt_change(None, None, None, MS) == "n/a"
    # beyond -50% a decrease is a factor too: 1/0.1 = 10× faster, its CI 1/0.12 .. 1/0.08
    assert fmt_change(0.1, 0.08, 0.12, MS) == "10.0× faster (8.3× .. 12.5×)"
    assert fmt_change(1.5, 1.4, 1.6, MS) == "1.50× slower (1.40× .. 1.60×)"  # a bound beyond
    assert fmt_change(1.5, 1.4, 1.5, MS) == "+50% (+40% .. +50%)"  # +50% is not beyond ±50%


@given(st.floats(min_value=1.51, max_value=1e4), st.floats(min_value=0.001, max_value=0.5))
def test_factors_beyond_plus_fifty_percent(ratio, rel):
    text = fmt_change(ratio, ratio * (1 - rel), ratio * (1 + rel), MS)
    assert " slower (" in text
    numbers = re.findall(r"([0-9.e+]+)×", text)
    assert len(numbers) == 3
    assert float(numbers[1]) <= float(numbers[0]) <= float(numbers[2])


def test_spread_and_pvalues():
    assert fmt_spread(0.023) == "± 2%" and fmt_spread(0.004) == "± 0.4%"
    assert fmt_spread(0.0) == "± 0%" and fmt_spread(None) == "± ?"
    assert fmt_pvalue(0.6447) == "0.6447" and fmt_pvalue(0.0312) == "0.0312"
    assert fmt_pvalue(1e-5) == "<0.0001" and fmt_pvalue(None) == "n/a"


def test_shorten_keeps_both_ends():
    label = "python3 -c 'import time; time.sleep(0.1)' --input data/large_file.bin"
    short = shorten(label, 20)
    assert len(short) == 20 and short.startswith("python3 -c") and short.endswith(".bin")
    assert "…" in short
    assert shorten("short", 20) == "short"


@given(st.text(min_size=0, max_size=200), st.integers(min_value=1, max_value=100))
def test_shorten_never_exceeds_the_width(label, width):
    short = shorten(label, width)
    assert len(short) <= max(width, 0)
    assert short == label or "…" in short


def test_terminal_width_from_columns(monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    assert terminal_width() == 120
    monkeypatch.setenv("COLUMNS", "junk")
    assert terminal_width() == 80
    monkeypatch.delenv("COLUMNS")
    assert terminal_width() == 80
    monkeypatch.setenv("COLUMNS", "10")
    assert terminal_width() == 40  # never narrower than a table can be
