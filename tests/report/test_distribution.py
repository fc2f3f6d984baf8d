"""The distribution panels (report/figures/distribution.py): the log-axis rule, the rows of
flat and hierarchical comparisons, and the panel's SVG (named dots, thinned, inside its
axis, the same bytes each time). Where the dots fall in a browser: tests/browser/."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from benchlab.stats.compare import compare_hierarchical, compare_samples
from benchlab.units import make_unit

pytest.importorskip("matplotlib", reason="figures need the plot extra")

from benchlab.report.figures.distribution import (  # noqa: E402
    POINTS,
    WIDE,
    Panels,
    Row,
    layout,
    log_axis,
    rows_of,
)

SVG = "{http://www.w3.org/2000/svg}"


def _row(values, mean=None) -> Row:
    x = np.asarray(values, dtype=float)
    m = float(x.mean()) if mean is None else mean
    return Row("r", x, m, m, m)


@pytest.mark.parametrize("values, log", [
    ([1.0, 2.0, 2.9], False),
    ([1.0, 2.0, 3.1], True),
    ([9e-6, 3e-4], True),  # 9 µs beside 300 µs
    ([-1.0, 5.0, 100.0], False),  # not all positive: linear
    ([0.0, 10.0], False),
])
def test_log_axis_beyond_a_factor_of_wide(values, log):
    assert WIDE == 3.0
    assert log_axis([_row(values)]) is log


def test_layout_pads_around_values_and_intervals():
    rows = [Row("a", np.array([10.0, 11.0, 12.0]), 11.0, 9.0, 13.0)]
    axis = layout(rows, make_unit("ms"))
    assert not axis.log and axis.unit_label == "ms"
    lo, hi = axis.limits()
    assert lo == pytest.approx(9.0 - 0.12) and hi == pytest.approx(13.0 + 0.12)


def test_rows_are_the_top_level_means_for_hierarchical_data():
    rng = np.random.default_rng(3)
    build = np.repeat(np.arange(4), 5)
    data = [(name, shift + rng.normal(0, 0.2, 4)[build] + rng.normal(0, 0.05, 20), [build])
            for name, shift in (("old", 10.0), ("new", 9.0))]
    result = compare_hierarchical(data, ["build"])
    rows = rows_of(result)
    assert [r.values.size for r in rows] == [4, 4]
    assert rows[0].low < rows[0].mean < rows[0].high


def _panel(n: int, scale: float = 1.0) -> tuple[str, bool]:
    rng = np.random.default_rng(9)
    samples = [("old", scale * rng.lognormal(0, 0.05, n)),
               ("new", scale * 0.9 * rng.lognormal(0, 0.05, n))]
    result = compare_samples(samples, unit=make_unit("s"))
    with Panels() as panels:
        return panels.svg(result, samples, "bench-x")


def test_panel_names_its_dots_and_thins_them():
    svg, log = _panel(3000, 9e-6)
    root = ET.fromstring(svg)
    groups = {g.get("id"): g for g in root.iter(f"{SVG}g") if g.get("id")}
    assert "bench-x-axes" in groups and not log
    for k in (0, 1):
        d = groups[f"bench-x-dots-{k}"].find(f"{SVG}path").get("d")
        assert d.count("M") == POINTS  # one stroke per dot, 3000 values thinned
        assert not re.search(r"\.\d{3}", d)  # coordinates to 2 decimals
    texts = ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]
    assert "measurement (µs)" in texts and "old" in texts


def test_panel_is_the_same_each_time_and_small():
    first, _ = _panel(40)
    again, _ = _panel(40)
    assert first == again and len(first) < 40_000


def test_the_light_strip_plot_follows_the_same_log_rule():
    from benchlab.report.figures.strip import strip_svg

    rng = np.random.default_rng(4)
    for scale, expected in ((30.0, "log"), (0.95, "linear")):
        samples = [("old", 9e-6 * rng.lognormal(0, 0.04, 12)),
                   ("new", scale * 9e-6 * rng.lognormal(0, 0.04, 12))]
        svg = strip_svg(compare_samples(samples, unit=make_unit("s")), samples)
        assert f'data-scale="{expected}"' in svg
        ET.fromstring(svg)  # well-formed
