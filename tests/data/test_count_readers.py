"""The readers of counting tools' outputs: perf stat (-x, and -j), cachegrind/callgrind out
files (totals) and BMF, on the real files in tests/fixtures/counts (made by its
make_fixtures.sh); expectations are read from the files independently (csv, json, re)."""

from __future__ import annotations

import csv
import json
import os
import re

import numpy as np
import pytest

from benchlab.data import readers
from benchlab.errors import InputError

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "counts")


def fixture(name: str) -> str:
    return os.path.join(HERE, name)


def perf_rows(path: str, event: str) -> list[float]:
    """The event's values in a perf stat -x, file, by the csv module."""
    with open(path) as f:
        rows = [r for r in csv.reader(f) if r and not r[0].startswith("#")]
    return [float(r[0]) for r in rows if r[2] == event and not r[0].startswith("<")]


def test_perf_csv_reports_are_runs():
    data = readers.read(fixture("perf_old.csv"))
    assert readers.reader_for(readers.open_source(fixture("perf_old.csv"))).NAME == "perf"
    assert data.metric == "task-clock" and data.unit.name == "ms"
    np.testing.assert_allclose(data.values, perf_rows(fixture("perf_old.csv"), "task-clock"))
    assert len(data) == 3
    faults = readers.read(fixture("perf_old.csv"), metric="page-faults")
    assert faults.unit.name == "events" and faults.unit.higher_is_better is False
    np.testing.assert_allclose(faults.values, perf_rows(fixture("perf_old.csv"), "page-faults"))
    assert list(faults.lines) == [5, 12, 19]  # the lines of the page-faults rows


def test_perf_not_supported_is_missing_and_said():
    with pytest.raises(InputError, match=r"perf could not count 'instructions' in any of the "
                                         r"3 reports \(<not supported>"):
        readers.read(fixture("perf_old.csv"), metric="instructions")
    with pytest.raises(InputError, match="no event 'L1-dcache' .*events: task-clock"):
        readers.read(fixture("perf_old.csv"), metric="L1-dcache")


def test_perf_repeat_is_one_value_with_variance_column():
    data = readers.read(fixture("perf_repeat.csv"), metric="page-faults")
    assert list(data.values) == perf_rows(fixture("perf_repeat.csv"), "page-faults")
    assert len(data) == 1


def test_perf_json_lines():
    path = fixture("perf_old.json")
    with open(path) as f:
        docs = [json.loads(line) for line in f if line.startswith("{")]
    want = [float(d["counter-value"]) for d in docs if d["event"] == "task-clock"]
    data = readers.read(path)
    assert data.metric == "task-clock" and data.unit.name == "ms"
    np.testing.assert_allclose(data.values, want)


def test_perf_reports_appended_without_header(tmp_path):
    """2>>FILE appends reports with no "# started on" line: a repeated event starts a run."""
    lines = [line for line in open(fixture("perf_old.csv")) if not line.startswith("#")]
    path = tmp_path / "perf.csv"
    path.write_text("".join(line for line in lines if line.strip()))
    np.testing.assert_allclose(readers.read(str(path)).values,
                               perf_rows(fixture("perf_old.csv"), "task-clock"))


@pytest.mark.parametrize("text, message", [
    ("1.0,msec,task-clock,100,100.00,,\nabc,,page-faults,100,100.00,,\n",
     r"perf\.csv:2: the counter value is 'abc'"),
    ("1.0,msec,task-clock,100,100.00,,\n1.0,2.0\n", r"perf\.csv:2: a perf stat -x, line has 2"),
    ("1.0,msec,task-clock,100,100.00,,\n0.1,5,,page-faults,100,100.00\n",
     r"perf\.csv:2: the second field is a number"),
])
def test_perf_errors_name_the_line(tmp_path, text, message):
    path = tmp_path / "perf.csv"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        readers.read(str(path))


def summary_totals(path: str) -> int:
    with open(path) as f:
        return int(re.search(r"^summary: (\d+)", f.read(), re.MULTILINE).group(1))


def test_cachegrind_directory_is_a_sample_of_runs():
    directory = fixture("cachegrind_old")
    data = readers.read(directory)
    files = sorted(os.listdir(directory))
    assert data.metric == "Ir" and data.unit.name == "instructions"
    assert list(data.columns["file"]) == files and list(data.columns["run"]) == ["1", "2", "3"]
    assert list(data.values) == [summary_totals(os.path.join(directory, f)) for f in files]


def test_callgrind_file_and_concatenated_runs(tmp_path):
    data = readers.read(fixture("callgrind_old.out"))
    assert list(data.values) == [summary_totals(fixture("callgrind_old.out"))]
    both = tmp_path / "both.out"
    both.write_text(open(fixture("callgrind_old.out")).read()
                    + open(fixture("callgrind_new.out")).read())
    assert list(readers.read(str(both)).values) == [
        summary_totals(fixture("callgrind_old.out")), summary_totals(fixture("callgrind_new.out"))]


def test_valgrind_errors(tmp_path):
    with pytest.raises(InputError, match="no event 'Dr' in this run .*events: Ir"):
        readers.read(fixture("callgrind_old.out"), metric="Dr")
    cut = tmp_path / "cut.out"
    cut.write_text("".join(open(fixture("cachegrind_old/cachegrind.out.1")).readlines()[:40]))
    with pytest.raises(InputError, match=r"cut\.out:5: no summary: or totals: line"):
        readers.read(str(cut))
    bad = tmp_path / "bad.out"
    bad.write_text("desc: x\ncmd: a\nevents: Ir Dr\nfl=a.c\nfn=f\n1 2 3\nsummary: 2 x\n")
    with pytest.raises(InputError, match=r"bad\.out:7: total 'x' is not an integer"):
        readers.read(str(bad))


def test_bmf_directory_runs_per_benchmark():
    directory = fixture("bmf_old")
    docs = [json.load(open(os.path.join(directory, f))) for f in sorted(os.listdir(directory))]
    data = readers.read(directory)
    assert data.metric == "latency" and data.unit.name == "ns"
    assert data.default_by == "benchmark"
    for bench in ("sort", "parse"):
        mask = data.columns["benchmark"] == bench
        assert list(data.values[mask]) == [d[bench]["latency"]["value"] for d in docs]
    counts = readers.read(directory, metric="instructions")
    assert counts.unit.name == "instructions" and set(counts.columns["benchmark"]) == {"sort"}


def test_bmf_errors(tmp_path):
    with pytest.raises(InputError, match="no benchmark has the measure 'throughput'"):
        readers.read(fixture("bmf_old/run1.json"), metric="throughput")
    bad = tmp_path / "bad.json"
    bad.write_text('{"a": {"latency": {"value": "fast"}}}')
    with pytest.raises(InputError, match=r"a\.latency\.value is \"fast\", not a number"):
        readers.read(str(bad))
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    (mixed / "a.json").write_text(open(fixture("bmf_old/run1.json")).read())
    (mixed / "b.out").write_text(open(fixture("callgrind_old.out")).read())
    with pytest.raises(InputError, match="b.out is valgrind, the files before it bmf"):
        readers.read(str(mixed))
