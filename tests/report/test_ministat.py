"""benchlab.report.ministat: ministat's text, byte for byte (STATS.md §2).

The whole-output checks against the real ministat binary are in
tests/cli/test_ministat_mode.py (golden files); these tests pin the drawing
rules on small hand-checked plots, where each column can be worked out on
paper: with width 11 and a range of exactly 0..10, dx = 1, x0 = -0.5 and a
value v lands in column trunc(v + 0.5).
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from benchlab.report import ministat as r
from benchlab.stats import ministat as m

IGUANA = [50, 200, 150, 400, 750, 400, 150]
CHAMELEON = [150, 400, 720, 500, 930]

# The FreeBSD man-page example as printed in STATS.md §2.
MAN_PAGE = (Path(__file__).resolve().parents[1] / "fixtures" / "ministat"
      / "man_page_example.txt").read_text()


def d(name, values, **kw):
    return m.describe(name, values, **kw)


def man_page_sets():
    return [d("iguana", IGUANA), d("chameleon", CHAMELEON)]


def test_man_page_example_byte_for_byte():
    samples = man_page_sets()
    comparisons = [m.relative(samples[1], samples[0])]
    assert r.render(samples, comparisons, width=60, separate=True) == MAN_PAGE


def test_render_without_plot_and_quiet():
    samples = man_page_sets()
    comparisons = [m.relative(samples[1], samples[0])]
    lines = MAN_PAGE.splitlines(keepends=True)
    assert r.render(samples, comparisons, plot=False) == "".join(lines[:2] + lines[7:])
    assert r.render(samples, None, plot=False) == "".join(lines[:2] + lines[7:10])
    assert r.render(samples, None, plot=False, quiet=True) == "".join(lines[8:10])
    assert r.render(samples, comparisons, width=60, separate=True, quiet=True) == "".join(
        lines[2:7] + lines[8:])


def test_vitals_header_and_row_format():
    assert r.VITALS_HEADER == (
        "    N           Min           Max        Median           Avg        Stddev\n")
    row = r.render_vitals(d("a", [-1.5, 123456789.123, 0.000012345678912]), 4)
    assert row == "%   3          -1.5 1.2345679e+08 1.2345679e-05      41152263      71277811\n"
    big = r.render_vitals(d("b", [float(i) for i in range(1234)]), 7)
    assert big.startswith("O 1234             0          1233         616.5         616.5 ")


def test_legend_symbols_for_seven_sets():
    samples = [d(f"s{i}", [i, i + 1, i + 2]) for i in range(7)]
    assert r.render_legend(samples) == "".join(
        f"{sym} s{i}\n" for i, sym in enumerate("x+*%#@O"))


def test_comparison_lines():
    base, cand = d("a", [1, 1, 1, 2, 2, 3, 5]), d("b", [1, 3, 4, 4, 5, 5, 5])
    text = r.render_comparison(m.relative(cand, base))
    assert text == ("Difference at 95.0% confidence\n"
                    "\t1.71429 +/- 1.70498\n"
                    "\t80% +/- 115.85%\n"
                    "\t(Student's t, pooled s = 1.46385)\n")
    none = r.render_comparison(m.relative(base, base, 5))
    assert none == "No difference proven at 99.5% confidence\n"


def test_plot_stacks_ties_upward_and_draws_the_bar():
    assert r.render_plot([d("a", [0, 5, 5, 5, 10])], 11) == (
        "+-----------+\n"
        "|     x     |\n"
        "|     x     |\n"
        "|x    x    x|\n"
        "| |___A___| |\n"  # | at mean-sd and mean+sd, M at 5 overdrawn by A
        "+-----------+\n")


def test_plot_collisions_are_the_bitwise_or_of_set_numbers():
    samples = [d("a", [0, 5, 10]), d("b", [4, 5, 6]), d("c", [1, 2, 3]), d("d", [6, 7, 8, 10])]
    plot = r.render_plot(samples, 11)
    # column 5: x|+ = 3 "*"; column 6: +|% = 6 "@"; column 10: x|% = 5 "#"
    assert plot.splitlines()[1] == "|x***+*@%% #|"
    assert plot.splitlines()[2] == "|||A||A|_A|||"


def test_plot_separate_bars_one_line_per_set():
    samples = [d("a", [0, 5, 10]), d("b", [4, 5, 6]), d("c", [1, 2, 3]), d("d", [6, 7, 8, 10])]
    assert r.render_plot(samples, 11, separate=True).splitlines()[2:6] == [
        "||____A____||",
        "|    |A|    |",
        "| |A|       |",
        "|      |_A| |",
    ]


def test_plot_height_is_that_of_the_last_set():
    """ministat's quirk: a later set with shorter stacks cuts off earlier stacks."""
    tall, flat = d("tall", [0, 5, 5, 5, 10]), d("flat", [2, 4, 6])
    assert r.render_plot([tall, flat], 11) == (
        "+-----------+\n"
        "|x + +x+   x|\n"
        "| ||_AA|__| |\n"
        "+-----------+\n")
    assert r.render_plot([flat, tall], 11).splitlines()[1:4] == [
        "|     +     |",
        "|     +     |",
        "|+ x x+x   +|",
    ]


def test_plot_bars_later_sets_draw_over_earlier():
    plot = r.render_plot([d("a", [0, 5, 10]), d("b", [4, 5, 6])], 11)
    # a: | at 0 and 10, _ between, A at 5; b: | at 4 and 6 over a's _, A at 5.
    assert plot.splitlines()[2] == "||___|A|___||"


def test_zero_span_prints_no_plot():
    sets = [d("a", [7, 7, 7]), d("b", [7, 7, 7, 7])]
    assert r.render_plot(sets, 74) == "[no plot, span is zero width]\n"


def test_minimum_width_two():
    plot = r.render_plot(man_page_sets(), 2)
    assert plot.splitlines()[0] == "+--+"
    with pytest.raises(ValueError, match="at least 2"):
        r.render_plot(man_page_sets(), 1)
    with pytest.raises(ValueError):
        r.render_plot(man_page_sets(), 0)


def test_overflowing_range_is_a_value_error_not_a_crash():
    sets = [d("a", [-1e308, 0.0, 1e308])]
    with pytest.raises(ValueError, match="overflow"):
        r.render_plot(sets, 74)


def test_nan_stddev_draws_no_bar():
    """The 2015 port's running sums can make the stddev NaN; then only M and A are drawn."""
    sets = [d("a", [0.1, 0.1, 0.1], flavor=m.LEGACY_2015), d("b", [0, 0.2, 0.4])]
    assert math.isnan(sets[0].stddev)
    bar = r.render_plot(sets, 11).splitlines()[-2]
    assert bar.count("|") == 4  # two frame bars, set b's two; none from set a


def test_default_width_is_74():
    plot = r.render_plot(man_page_sets())
    assert plot.splitlines()[0] == "+" + "-" * 74 + "+"
