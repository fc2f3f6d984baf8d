"""Units of counts: SI prefixes when values spread, full counts when exact, lower is better;
rates and throughputs higher is better, from the unit or the metric's name."""

from __future__ import annotations

import pytest

from benchlab.report.numbers import fmt_interval, fmt_quantity, fmt_row, fmt_squared
from benchlab.units import make_unit

INSTRUCTIONS = make_unit("instructions")


@pytest.mark.parametrize("name,hib", [
    ("instructions", False), ("cycles", False), ("events", False), ("B", False),
    ("B/op", False), ("allocs/op", False), ("ops/s", True), ("B/s", True),
    ("elements/s", True), ("throughput", True), ("s", False), ("latency", None)])
def test_direction_comes_from_the_unit(name, hib):
    assert make_unit(name).higher_is_better is hib
    assert make_unit(name, True).higher_is_better is True  # an explicit choice wins


def test_counts_scale_by_si_prefixes_and_stay_whole_when_exact():
    assert fmt_quantity(2_380_675.5, INSTRUCTIONS, 1441.0) == "2.3807 M instructions"
    assert fmt_quantity(2_377_153.0, INSTRUCTIONS, 0.0) == "2377153 instructions"
    assert fmt_row((41_760_597.0, 41_725_952.0), make_unit("B"), 60_000.0, 41_760_597.0) \
        == ["41.76 MB", "41.73 MB"]
    assert fmt_quantity(1016.0, make_unit("B/op"), 0.0) == "1016 B/op"
    assert fmt_quantity(2048.5, make_unit("B/op"), 10.0) == "2.049 kB/op"
    assert fmt_quantity(56.0, make_unit("events"), 1.0) == "56.0 events"
    assert fmt_interval(24_000.0, 21_500.0, 26_500.0, INSTRUCTIONS) == [
        "24.0 k instructions", "21.5 k instructions", "26.5 k instructions"]


def test_unit_format_counts_in_full_when_exact_else_scaled():
    assert INSTRUCTIONS.format(2_377_153.0) == "2377153 instructions"  # spread unknown
    assert INSTRUCTIONS.format(2_377_153.0, exact=True) == "2377153 instructions"
    assert INSTRUCTIONS.format(2_380_750.0, like=2_380_675.5, exact=False) == \
        "2.38075 M instructions"
    assert INSTRUCTIONS.format(1441.21, like=2_380_675.5, exact=False) == \
        "0.00144121 M instructions"


def test_a_count_squared_is_not_prefixed():
    assert fmt_squared(0.0, INSTRUCTIONS, 2_377_153.0) == "0 instructions²"


def test_higher_is_better_from_the_metric_name(tmp_path):
    from benchlab.data.samples import load_samples

    path = tmp_path / "t.csv"
    path.write_text("system,metric,value\na,throughput,100\na,throughput,101\n"
                    "a,rss,5\na,rss,6\n")
    [sample] = load_samples([str(path)], by="system", metric="throughput")
    assert sample.dataset.unit.name is None and sample.dataset.unit.higher_is_better is True
    [sample] = load_samples([str(path)], by="system", metric="rss")
    assert sample.dataset.unit.higher_is_better is None
    [sample] = load_samples([str(path)], by="system", metric="throughput",
                            higher_is_better=False)  # the caller's choice wins
    assert sample.dataset.unit.higher_is_better is False
