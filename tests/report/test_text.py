"""The terminal report and its distribution plot."""

from __future__ import annotations

import numpy as np

from benchlab.report.compare.plot import distribution_plot
from benchlab.report.compare.text import fmt_p, render_text
from benchlab.stats.compare import compare_samples
from benchlab.stats.descriptive import describe
from benchlab.units import make_unit


def test_plot_marks_extremes_median_and_mean_on_a_shared_axis():
    a = np.array([1.0, 2.0, 3.0, 4.0, 10.0])
    b = np.array([5.0, 6.0, 7.0])
    lines = distribution_plot([(describe(a, "a"), a), (describe(b, "b"), b)], width=19)
    box_a, box_b = lines[1], lines[3]
    assert box_a.index("├") < box_a.index("M") < box_a.index("A") < box_a.index("┤")
    # a spans the whole axis 1..10, b sits in its middle
    assert box_a.split("│")[1].startswith("├") and box_a.split("│")[1].endswith("┤")
    assert box_b.split("│")[1].index("├") == round((5 - 1) / 9 * 18)


def test_plot_of_constant_data():
    x = np.full(3, 2.0)
    assert distribution_plot([(describe(x, "x"), x)]) == ["(no plot: every value is the same)"]


def test_report_scales_time_units_and_formats_p():
    base, cand = np.array([0.0010, 0.0011, 0.0012]), np.array([0.0020, 0.0021, 0.0022])
    result = compare_samples([("old", base), ("new", cand)], unit=make_unit("s"))
    text = render_text(result, [("old", base), ("new", cand)])
    assert "1.10 ms" in text and "new is" in text and "slower than old" in text
    assert fmt_p(0.00001) == "p < 0.0001" and fmt_p(0.5) == "p = 0.5000"
