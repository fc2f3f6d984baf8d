"""`--format bmf`: compare and summary as Bencher Metric Format, checked against the means
and t intervals computed here with numpy/scipy, and read back by the BMF reader."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from scipy import stats

from benchlab.data import readers

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "counts")


def fixture(name: str) -> str:
    return os.path.join(HERE, name)


def t_interval(values: list[float]) -> tuple[float, float, float]:
    x = np.asarray(values, dtype=float)
    low, high = stats.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=stats.sem(x))
    return x.mean(), low, high


def runs_of(directory: str, bench: str) -> list[float]:
    return [json.load(open(os.path.join(directory, f)))[bench]["latency"]["value"]
            for f in sorted(os.listdir(directory))]


def test_compare_suite_gives_the_candidates_means_and_intervals(run_cli):
    _, out, _ = run_cli("compare", fixture("bmf_old"), fixture("bmf_new"), "--seed", "1",
                        "--format", "bmf", expect=0)
    doc = json.loads(out)
    assert set(doc) == {"sort", "parse"}
    for bench in doc:
        mean, low, high = t_interval(runs_of(fixture("bmf_new"), bench))
        got = doc[bench]["latency"]
        assert got["value"] == pytest.approx(mean, rel=1e-12)
        assert got["lower_value"] == pytest.approx(low, rel=1e-9)
        assert got["upper_value"] == pytest.approx(high, rel=1e-9)


def test_identical_counts_are_exact(run_cli):
    _, out, _ = run_cli("compare", fixture("cachegrind_old"), fixture("cachegrind_new"),
                        "--format", "bmf", expect=0)
    [(name, entry)] = json.loads(out).items()
    counts = readers.read(fixture("cachegrind_new")).values
    assert name == "cachegrind_new"
    assert entry["instructions"] == {"value": counts[0], "lower_value": counts[0],
                                     "upper_value": counts[0]}


def test_summary_times_are_latency_in_ns_and_read_back(run_cli, tmp_path):
    path = tmp_path / "runs" / "one.json"
    path.parent.mkdir()
    run_cli("summary", fixture("perf_old.csv"), "--format", "bmf", "-o", str(path), expect=0)
    doc = json.loads(path.read_text())
    ms = readers.read(fixture("perf_old.csv")).values
    mean, low, high = t_interval(list(ms))
    assert doc["perf_old"]["latency"]["value"] == pytest.approx(mean * 1e6, rel=1e-12)
    assert doc["perf_old"]["latency"]["lower_value"] == pytest.approx(low * 1e6, rel=1e-9)
    back = readers.read(str(path))
    assert back.unit.name == "ns" and back.values[0] == pytest.approx(mean * 1e6, rel=1e-12)


def test_results_without_a_bmf_layout_are_refused(run_cli):
    _, out, err = run_cli("profile-diff", fixture("callgrind_old.out"),
                          fixture("callgrind_new.out"), "--format", "bmf", expect=2)
    assert "--format bmf is not available for profile-diff results" in err and out == ""


def test_a_lower_bound_below_zero_of_a_latency_is_left_out(run_cli, tmp_path):
    """The t interval of three widely spread times reaches below zero; a latency cannot,
    so lower_value is left out and upper_value kept (docs/output.md#bmf). Values without
    a unit may be negative: their bound is written as computed."""
    values = [10.0, 12.0, 200.0]
    mean, low, high = t_interval(values)
    assert low < 0
    timed, plain = tmp_path / "t.txt", tmp_path / "v.txt"
    for path in (timed, plain):
        path.write_text("".join(f"{v}\n" for v in values))
    _, out, _ = run_cli("summary", timed, "--unit", "ms", "--format", "bmf", expect=0)
    got = json.loads(out)["t"]["latency"]
    assert set(got) == {"value", "upper_value"}
    assert got["value"] == pytest.approx(mean * 1e6, rel=1e-12)
    assert got["upper_value"] == pytest.approx(high * 1e6, rel=1e-9)
    _, out, _ = run_cli("summary", plain, "--format", "bmf", expect=0)
    got = json.loads(out)["v"]["value"]
    assert got["lower_value"] == pytest.approx(low, rel=1e-9)
    assert got["upper_value"] == pytest.approx(high, rel=1e-9)
