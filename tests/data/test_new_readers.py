"""Readers of the CI tools' formats: pytest-benchmark, Criterion.rs, asv (issue 14, item 5).

The fixtures (tests/fixtures/formats/, made by make_ci_fixtures.py) follow each
tool's layout; every expectation here is computed from the file itself with
plain Python (no reader code), so regenerated fixtures need no test change.
"""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchlab.data import readers
from benchlab.data.samples import load_inputs
from benchlab.data.source import open_source
from benchlab.errors import InputError

FORMATS = Path(__file__).resolve().parents[1] / "fixtures" / "formats"
CRITERION = FORMATS / "criterion"
FIB_NEW = CRITERION / "fib 20" / "new"
FIB_BASE = CRITERION / "fib 20" / "base"


def groups(ds) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for name, value in zip(ds.columns[ds.default_by], ds.values, strict=True):
        out.setdefault(name, []).append(float(value))
    return out


def refused(path: Path | str, fmt: str | None = None, **opts) -> str:
    with pytest.raises(InputError) as info:
        readers.read(str(path), fmt, **opts)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(str(path))
    return message


def write(tmp_path: Path, name: str, doc: object) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return path


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "benchlab", *args], capture_output=True,
                          text=True, timeout=120)


# pytest-benchmark ------------------------------------------------------------------------

def test_pytest_benchmark_rounds_are_the_measurements():
    doc = json.loads((FORMATS / "pytest_benchmark.json").read_text())
    ds = readers.read(str(FORMATS / "pytest_benchmark.json"))
    assert readers.reader_for(open_source(str(FORMATS / "pytest_benchmark.json"))).NAME == \
        "pytest-benchmark"
    expected = {b["fullname"]: b["stats"]["data"] for b in doc["benchmarks"]}
    assert groups(ds) == expected
    assert ds.default_by == "benchmark" and ds.levels == ()
    assert ds.unit.name == "s" and not ds.unit.higher_is_better
    assert "group" in ds.factors
    by_group = {b["fullname"]: b["group"] or "" for b in doc["benchmarks"]}
    for name, group in zip(ds.columns["benchmark"], ds.columns["group"], strict=True):
        assert group == by_group[name]
    for b in doc["benchmarks"]:  # the file's own summaries agree with its rounds
        data = b["stats"]["data"]
        assert sum(data) / len(data) == pytest.approx(b["stats"]["mean"], rel=1e-12)


def test_pytest_benchmark_name_without_fullname_and_no_group_column(tmp_path):
    doc = json.loads((FORMATS / "pytest_benchmark.json").read_text())
    for b in doc["benchmarks"]:
        del b["fullname"]
        b["group"] = None
    ds = readers.read(str(write(tmp_path, "p.json", doc)))
    assert list(groups(ds)) == [b["name"] for b in doc["benchmarks"]]
    assert "group" not in ds.columns and ds.factors == ("benchmark",)


def test_two_pytest_benchmark_runs_compare_as_a_suite():
    paths = [str(FORMATS / "pytest_benchmark_base.json"), str(FORMATS / "pytest_benchmark.json")]
    inputs = load_inputs(paths)
    assert inputs.benchmark == "benchmark"
    result = cli("compare", *paths, "--format", "json")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    text = json.dumps(rows)
    for b in json.loads((FORMATS / "pytest_benchmark.json").read_text())["benchmarks"]:
        assert b["fullname"] in text


def test_pytest_benchmark_summaries_only_is_refused_saying_how_to_save_the_rounds():
    message = refused(FORMATS / "pytest_benchmark_nodata.json")
    assert "--benchmark-save-data" in message and "summary statistics" in message
    result = cli("compare", str(FORMATS / "pytest_benchmark_nodata.json"),
                 str(FORMATS / "pytest_benchmark.json"))
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("mutate,expected", [
    (lambda d: d["benchmarks"][0]["stats"].update(data=[]), "empty stats.data"),
    (lambda d: d["benchmarks"][0]["stats"].update(data="fast"), "stats.data is \"fast\""),
    (lambda d: d["benchmarks"][0]["stats"]["data"].__setitem__(2, "x"),
     "benchmarks[0].stats.data[2] is \"x\", not a number"),
    (lambda d: d["benchmarks"][1].pop("stats"), "benchmarks[1]: no 'stats' key"),
    (lambda d: d.update(benchmarks={}), "benchmarks is {}, not an array"),
    (lambda d: d.update(benchmarks=[]), "no benchmarks"),
    (lambda d: d["benchmarks"][1].update(fullname=d["benchmarks"][0]["fullname"]),
     "appears twice"),
    (lambda d: d["benchmarks"][0].update(group=3), "group is 3"),
])
def test_pytest_benchmark_bad_input(tmp_path, mutate, expected):
    doc = json.loads((FORMATS / "pytest_benchmark.json").read_text())
    mutate(doc)
    assert expected in refused(write(tmp_path, "p.json", doc), "pytest-benchmark")


def test_pytest_benchmark_truncated(tmp_path):
    text = (FORMATS / "pytest_benchmark.json").read_text()
    path = write(tmp_path, "p.json", text[: len(text) // 2])
    assert "truncated pytest-benchmark JSON" in refused(path)


def test_pytest_benchmark_refuses_a_metric_it_does_not_have():
    from benchlab.errors import InputError

    with pytest.raises(InputError, match=r"no metric 'B/op' .*\(metrics: time, ops\)"):
        readers.read(str(FORMATS / "pytest_benchmark.json"), metric="B/op")
    assert readers.read(str(FORMATS / "pytest_benchmark.json"), metric="ops").metric == "ops"


# Criterion.rs ----------------------------------------------------------------------------

def per_iteration(sample_path: Path) -> list[float]:
    doc = json.loads(sample_path.read_text())
    return [t / n for t, n in zip(doc["times"], doc["iters"], strict=True)]


def test_criterion_sample_is_times_over_iters_in_ns():
    path = FIB_NEW / "sample.json"
    ds = readers.read(str(path))
    assert readers.reader_for(open_source(str(path))).NAME == "criterion"
    info = json.loads((FIB_NEW / "benchmark.json").read_text())
    assert groups(ds) == {info["full_id"]: per_iteration(path)}
    assert ds.unit.name == "ns" and ds.levels == ()
    estimates = json.loads((FIB_NEW / "estimates.json").read_text())
    mean = sum(per_iteration(path)) / len(per_iteration(path))
    assert mean == pytest.approx(estimates["mean"]["point_estimate"], rel=1e-12)


def test_criterion_name_from_the_directories_without_benchmark_json(tmp_path):
    target = tmp_path / "target" / "criterion" / "parse" / "small" / "new"
    target.mkdir(parents=True)
    shutil.copy(FIB_NEW / "sample.json", target / "sample.json")
    assert list(groups(readers.read(str(target / "sample.json")))) == ["parse/small"]
    loose = tmp_path / "loose" / "new"
    loose.mkdir(parents=True)
    shutil.copy(FIB_NEW / "sample.json", loose / "sample.json")
    assert list(groups(readers.read(str(loose / "sample.json")))) == ["loose"]


def test_criterion_directory_is_a_suite():
    ds = readers.read(str(CRITERION))
    expected = {}
    for sample in sorted(CRITERION.rglob("new/sample.json")):
        info = json.loads((sample.parent / "benchmark.json").read_text())
        expected[info["full_id"]] = per_iteration(sample)
    assert groups(ds) == expected
    assert len(expected) == 3


def test_criterion_base_against_new_on_the_command_line():
    result = cli("compare", str(FIB_BASE / "sample.json"), str(FIB_NEW / "sample.json"),
                 "--format", "json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    base, new = per_iteration(FIB_BASE / "sample.json"), per_iteration(FIB_NEW / "sample.json")
    ratio = (sum(new) / len(new)) / (sum(base) / len(base))
    assert f"{ratio:.4f}"[:5] in json.dumps(doc)


def test_criterion_two_directories_compare_benchmark_by_benchmark(tmp_path):
    other = tmp_path / "criterion"
    shutil.copytree(CRITERION, other)
    inputs = load_inputs([str(CRITERION), str(other)])
    assert inputs.benchmark == "benchmark"


@pytest.mark.parametrize("doc,expected", [
    ({"sampling_mode": "Linear", "iters": [1.0, 0.0], "times": [5.0, 6.0]},
     "iters[1] is 0.0: a sample must run the routine at least once"),
    ({"sampling_mode": "Linear", "iters": [], "times": []}, "empty iters list"),
    ({"sampling_mode": "Linear", "iters": [1.0, 2.0], "times": [5.0]},
     "iters has 2 entries but times has 1"),
    ({"sampling_mode": "Linear", "iters": [1.0, 2.0], "times": [5.0, "6"]},
     "times[1] is \"6\", not a number"),
    ({"sampling_mode": "Linear", "iters": "10", "times": [5.0]}, "iters is \"10\", not an array"),
    ({"sampling_mode": "Linear", "iters": [1.0]}, "no 'times' key"),
    ({"sampling_mode": "Linear", "iters": [1.0, 2.0], "times": [5.0, -6.0]},
     "times[1] is -6.0, a negative time"),
])
def test_criterion_bad_sample(tmp_path, doc, expected):
    path = write(tmp_path, "b/new/sample.json", doc)
    assert expected in refused(path, "criterion")


def test_criterion_truncated_and_bad_benchmark_json(tmp_path):
    text = (FIB_NEW / "sample.json").read_text()
    cut = write(tmp_path, "a/new/sample.json", text[: len(text) // 2])
    assert "truncated Criterion.rs sample JSON" in refused(cut)
    good = write(tmp_path, "b/new/sample.json", text)
    write(tmp_path, "b/new/benchmark.json", {"full_id": 3})
    with pytest.raises(InputError) as info:
        readers.read(str(good))
    assert "full_id is 3, not a string" in str(info.value)
    assert str(info.value).startswith(str(tmp_path / "b" / "new" / "benchmark.json"))


def test_a_directory_without_criterion_results_is_refused(tmp_path):
    (tmp_path / "x.txt").write_text("1\n2\n")
    assert "is a directory, not a file (nor Criterion.rs results" in refused(tmp_path)


# asv -------------------------------------------------------------------------------------

def asv_expected(doc: dict) -> dict[str, list[float]]:
    """Every timing benchmark's samples per parameter combination, failed ones left out."""
    out = {}
    for name, row in doc["results"].items():
        if name.rpartition(".")[2].startswith(("mem_", "peakmem_", "track_")):
            continue
        entry = dict(zip(doc["result_columns"], row, strict=False))
        combos = list(itertools.product(*entry["params"]))
        for combo, result, samples in zip(combos, entry["result"], entry["samples"],
                                          strict=True):
            if result is None:
                continue
            label = f"{name}({', '.join(combo)})" if entry["params"] else name
            out[label] = samples
    return out


def test_asv_samples_per_benchmark_and_parameter_combination():
    path = FORMATS / "asv.json"
    doc = json.loads(path.read_text())
    ds = readers.read(str(path))
    assert readers.reader_for(open_source(str(path))).NAME == "asv"
    expected = asv_expected(doc)
    assert groups(ds) == expected
    assert "benchmarks.Sorting.time_sort('python', 10000)" not in expected  # failed in asv
    assert len(expected) == 4
    assert ds.unit.name == "s" and ds.default_by == "benchmark"


def test_asv_without_samples_is_refused_saying_record_samples():
    message = refused(FORMATS / "asv_nosamples.json")
    assert "--record-samples" in message


@pytest.mark.parametrize("mutate,expected", [
    (lambda d: d.update(version=1), "asv result format version 1 is not supported"),
    (lambda d: d.pop("result_columns"), "no 'result_columns' key"),
    (lambda d: d.update(results=[]), "results is [], not an object"),
    (lambda d: d["results"]["benchmarks.Sorting.time_sort"][11][0].__setitem__(0, "x"),
     "samples[0][0] is \"x\", not a number"),
    (lambda d: d["results"]["benchmarks.Sorting.time_sort"][11].__setitem__(0, []),
     "samples[0] (\"benchmarks.Sorting.time_sort('numpy', 100)\") is empty"),
    (lambda d: d["results"]["benchmarks.Sorting.time_sort"][11].pop(),
     "samples has 3 entries for 4 parameter combinations"),
    (lambda d: d["results"]["benchmarks.Sorting.time_sort"].__setitem__(1, "p"),
     "params is \"p\""),
    (lambda d: d["results"].update({"a.time_x": 3}), "is 3, not a list of column values"),
    (lambda d: d.update(results={"a.mem_x": [[1], [], "v"]}), "no timings"),
    (lambda d: d.update(results={}), "no benchmark results"),
])
def test_asv_bad_input(tmp_path, mutate, expected):
    doc = json.loads((FORMATS / "asv.json").read_text())
    mutate(doc)
    assert expected in refused(write(tmp_path, "a.json", doc), "asv")


def test_asv_truncated(tmp_path):
    text = (FORMATS / "asv.json").read_text()
    assert "truncated asv JSON" in refused(write(tmp_path, "a.json", text[: len(text) // 2]))


# the registry ----------------------------------------------------------------------------

def test_unknown_json_names_every_format(tmp_path):
    message = refused(write(tmp_path, "x.json", {"a": 1}))
    for name in ("hyperfine", "pyperf", "Google Benchmark", "JMH", "pytest-benchmark",
                 "Criterion.rs", "asv"):
        assert name in message


@pytest.mark.parametrize("name", ["hyperfine.json", "pyperf.json", "gbench.json", "jmh.json",
                                  "pytest_benchmark.json", "asv.json"])
def test_each_json_format_is_sniffed_as_itself(name):
    expected = {"hyperfine.json": "hyperfine", "pyperf.json": "pyperf", "gbench.json": "gbench",
                "jmh.json": "jmh", "pytest_benchmark.json": "pytest-benchmark",
                "asv.json": "asv"}[name]
    assert readers.reader_for(open_source(str(FORMATS / name))).NAME == expected
