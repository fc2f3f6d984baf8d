"""Readers of other tools' formats: JMH, pyperf, Google Benchmark, hyperfine, go test -bench.

The fixtures in tests/fixtures/formats/ were made by the real tools (JMH's by
hand, see its README); every expectation here is computed from the file
itself with plain Python, so regenerated fixtures need no test change.
"""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from pathlib import Path

import pytest

from benchlab.data import readers
from benchlab.data.source import open_source
from benchlab.errors import InputError

FORMATS = Path(__file__).resolve().parents[1] / "fixtures" / "formats"


def path_of(name: str) -> str:
    return str(FORMATS / name)


def load(name: str):
    return json.loads((FORMATS / name).read_text())


def read(path: str, fmt: str | None = None, **opts):
    source = open_source(path)
    return readers.reader_for(source, fmt).read(source, **opts)


def groups(ds, by=None):
    """{sample name: [values]} in file order, by the dataset's default_by column."""
    out = defaultdict(list)
    for name, value in zip(ds.columns[by or ds.default_by], ds.values, strict=True):
        out[name].append(float(value))
    return dict(out)


def level_counts(ds, sample_col, level):
    """{sample: {level label: number of measurements}}."""
    out = defaultdict(lambda: defaultdict(int))
    for s, lv in zip(ds.columns[sample_col], ds.columns[level], strict=True):
        out[s][lv] += 1
    return {k: dict(v) for k, v in out.items()}


def error_of(path: str, fmt: str | None = None, **opts) -> str:
    with pytest.raises(InputError) as info:
        read(path, fmt, **opts)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(path)
    return message


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


# --- sniffing ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name,fmt", [
    ("jmh.json", "jmh"), ("jmh_thrpt.json", "jmh"), ("jmh_sample.json", "jmh"),
    ("jmh_nan.json", "jmh"), ("jmh_mixed.json", "jmh"),
    ("pyperf.json", "pyperf"), ("pyperf_single.json", "pyperf"),
    ("pyperf_badversion.json", "pyperf"),
    ("gbench.json", "gbench"), ("gbench_invalid.json", "gbench"),
    ("hyperfine.json", "hyperfine"), ("hyperfine_scan.json", "hyperfine"),
    ("hyperfine_truncated.json", "hyperfine"), ("hyperfine_old.json", "hyperfine"),
    ("gotest.txt", "gotest"), ("gotest_malformed.txt", "gotest"),
])
def test_sniffing_picks_the_format(name, fmt):
    assert readers.reader_for(open_source(path_of(name))).NAME == fmt


@pytest.mark.parametrize("text,fmt", [
    ("1.5\n2.5\n3.5\n", "numbers"),
    ("1476.48 # after reboot, cold cache\n1480.2\n", "numbers"),
    ("benchmark,value\nBenchmarkA,1.5\nBenchmarkA,1.6\n", "table"),
    ("name\titers\tvalue\nfoo\t100\t1.5\n", "table"),
    ("benchmark;real\nx;1\n", "table"),
    ("goos: linux\n", "numbers"),
    ("Benchmarking is fun\n1 2\n", "numbers"),
])
def test_sniffing_leaves_csv_and_numbers_alone(tmp_path, text, fmt):
    assert readers.reader_for(open_source(write(tmp_path, "x.txt", text))).NAME == fmt


def test_go_lines_without_header_are_go_not_tsv(tmp_path):
    lines = [line for line in (FORMATS / "gotest.txt").read_text().splitlines()
             if line.startswith("Benchmark")]
    path = write(tmp_path, "grep.txt", "\n".join(lines) + "\n")
    assert readers.reader_for(open_source(path)).NAME == "gotest"


def test_input_format_names_the_reader():
    source = open_source(path_of("hyperfine.json"))
    for fmt in ("jmh", "pyperf", "gbench", "hyperfine", "gotest"):
        assert readers.reader_for(source, fmt).NAME == fmt


# --- hyperfine --------------------------------------------------------------------------------

def test_hyperfine_runs_are_measurements():
    doc = load("hyperfine.json")
    ds = read(path_of("hyperfine.json"))
    assert ds.default_by == "command" and ds.factors == ("command",) and ds.levels == ()
    assert ds.unit.name == "s" and ds.unit.higher_is_better is False
    assert groups(ds) == {r["command"]: r["times"] for r in doc["results"]}
    assert ds.lines is None


def test_hyperfine_parameters_become_factors():
    doc = load("hyperfine_scan.json")
    ds = read(path_of("hyperfine_scan.json"))
    assert ds.factors == ("command", "param_ms")
    expected = [r["parameters"]["ms"] for r in doc["results"] for _ in r["times"]]
    assert ds.columns["param_ms"].tolist() == expected
    assert groups(ds) == {r["command"]: r["times"] for r in doc["results"]}


def test_hyperfine_same_command_twice_stays_two_samples(tmp_path):
    doc = load("hyperfine.json")
    doc["results"][1]["command"] = doc["results"][0]["command"]
    ds = read(write(tmp_path, "h.json", json.dumps(doc)))
    assert ds.default_by == "case"
    assert ds.group_names("case") == ["sleep 0.01", "sleep 0.01 (2)"]


def test_hyperfine_old_parameter_key(tmp_path):
    doc = load("hyperfine.json")
    for i, r in enumerate(doc["results"]):
        r["parameter"] = str(i)
    ds = read(write(tmp_path, "h.json", json.dumps(doc)))
    assert "parameter" in ds.factors and set(ds.columns["parameter"]) == {"0", "1"}


def test_hyperfine_errors(tmp_path):
    path = path_of("hyperfine_truncated.json")
    lines = (FORMATS / "hyperfine_truncated.json").read_text().count("\n") + 1
    assert error_of(path).startswith(f"{path}:{lines}: truncated hyperfine JSON")
    assert "only summaries" in error_of(path_of("hyperfine_old.json"))
    doc = load("hyperfine.json")
    doc["results"][1]["times"][3] = "fast"
    bad = write(tmp_path, "bad.json", json.dumps(doc))
    assert error_of(bad) == f'{bad}: results[1].times[3] is "fast", not a number'
    nan = write(tmp_path, "nan.json", json.dumps(doc).replace('"fast"', "NaN"))
    assert error_of(nan) == f"{nan}: results[1].times[3] is NaN, not a finite number"
    empty = write(tmp_path, "empty.json", '{"results": []}')
    assert error_of(empty, "hyperfine") == f"{empty}: no results in the hyperfine file"


def test_hyperfine_memory_metric(tmp_path):
    doc = load("hyperfine.json")
    assert not any("memory_usage_byte" in r for r in doc["results"])  # hyperfine 1.15
    plain = path_of("hyperfine.json")
    assert len(read(plain)) == sum(len(r["times"]) for r in doc["results"])
    assert error_of(plain, metric="memory_usage_byte") == (
        f"{plain}: results[0] ('sleep 0.01') has no 'memory_usage_byte': its metrics are time "
        "(newer hyperfine versions also record the memory of each run)")
    for r in doc["results"]:
        r["memory_usage_byte"] = [4096 + i for i in range(len(r["times"]))]
    with_memory = write(tmp_path, "mem.json", json.dumps(doc))
    ds = read(with_memory, metric="memory_usage_byte")
    assert ds.unit.name == "B" and ds.metric == "memory_usage_byte"
    assert ds.values[:3].tolist() == [4096, 4097, 4098]
    assert read(with_memory).metric == "time"
    assert "known: time, memory_usage_byte" in error_of(with_memory, metric="rss")


# --- pyperf -----------------------------------------------------------------------------------

def _pyperf_expected(doc):
    values, runs = {}, {}
    for bench in doc["benchmarks"]:
        meta = {**doc.get("metadata", {}), **bench.get("metadata", {})}
        measured = [r for r in bench["runs"] if r.get("values")]
        values[meta["name"]] = [v for r in measured for v in r["values"]]
        runs[meta["name"]] = {str(i + 1): len(r["values"]) for i, r in enumerate(measured)}
    return values, runs


@pytest.mark.parametrize("name", ["pyperf.json", "pyperf_single.json"])
def test_pyperf_runs_are_the_level(name):
    doc = load(name)
    ds = read(path_of(name))
    values, runs = _pyperf_expected(doc)
    assert ds.default_by == "benchmark" and ds.factors == ("benchmark",)
    assert ds.levels == ("run",)
    assert ds.unit.name == "s" and ds.unit.higher_is_better is False
    assert groups(ds) == values
    assert level_counts(ds, "benchmark", "run") == runs
    warmups = [w for b in doc["benchmarks"] for r in b["runs"] for w in r.get("warmups", [])]
    calibration = [r for b in doc["benchmarks"] for r in b["runs"] if not r.get("values")]
    assert warmups and calibration, "the fixture should have warm-ups and calibration to skip"
    assert len(ds) == sum(len(v) for v in values.values())  # values only, no warm-ups


def test_pyperf_single_benchmark_name_from_top_metadata():
    assert read(path_of("pyperf_single.json")).group_names("benchmark") == ["timeit"]


def test_pyperf_units(tmp_path):
    doc = load("pyperf.json")
    doc["metadata"]["unit"] = "byte"
    ds = read(write(tmp_path, "p.json", json.dumps(doc, sort_keys=True)))
    assert ds.unit.name == "B" and ds.unit.higher_is_better is False
    doc["benchmarks"][0]["metadata"]["unit"] = "second"
    mixed = write(tmp_path, "mixed.json", json.dumps(doc, sort_keys=True))
    assert "different units" in error_of(mixed)


def test_pyperf_errors(tmp_path):
    path = path_of("pyperf_badversion.json")
    assert error_of(path) == (f"{path}: pyperf file format version 9.9 is not supported "
                              "(supported: 1.0; pyperf 1.0 and later write it)")
    doc = load("pyperf.json")
    del doc["benchmarks"][0]["runs"]
    missing = write(tmp_path, "m.json", json.dumps(doc, sort_keys=True))
    assert error_of(missing) == (f"{missing}: benchmarks[0]: no 'runs' key (not a pyperf "
                                 "JSON file, or an unsupported version?)")
    doc = load("pyperf.json")
    doc["benchmarks"][1]["runs"][2]["values"][0] = None
    bad = write(tmp_path, "b.json", json.dumps(doc, sort_keys=True))
    assert error_of(bad) == f"{bad}: benchmarks[1].runs[2].values[0] is null, not a number"
    text = (FORMATS / "pyperf.json").read_text()
    cut = write(tmp_path, "cut.json", text[: len(text) // 3])
    assert "truncated pyperf JSON" in error_of(cut)


# --- Google Benchmark -------------------------------------------------------------------------

_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def _gbench_expected(doc, key):
    entries = [b for b in doc["benchmarks"] if b["run_type"] == "iteration"]
    unit = entries[0]["time_unit"]
    out = defaultdict(list)
    for b in entries:
        out[b["run_name"]].append(b[key] * _SECONDS[b["time_unit"]] / _SECONDS[unit])
    return unit, dict(out), entries


@pytest.mark.parametrize("key", ["real_time", "cpu_time"])
def test_gbench_iterations_only(key):
    doc = load("gbench.json")
    unit, expected, entries = _gbench_expected(doc, key)
    ds = read(path_of("gbench.json"), **({} if key == "real_time" else {"metric": key}))
    assert ds.metric == key and ds.levels == () and ds.default_by == "benchmark"
    assert ds.factors == ("benchmark", "threads")
    assert ds.unit.name == unit and ds.unit.higher_is_better is False
    assert len(ds) == len(entries) < len(doc["benchmarks"])  # aggregates dropped
    got = groups(ds)
    assert list(got) == list(expected)
    for name in expected:
        assert got[name] == pytest.approx(expected[name], rel=1e-12)
    assert sorted(set(ds.columns["threads"])) == sorted({str(b["threads"]) for b in entries})
    units = {b["time_unit"] for b in entries}
    assert len(units) > 1, "the fixture mixes time units, exercising the conversion"


def test_gbench_counters(tmp_path):
    ds = read(path_of("gbench.json"), metric="items_per_second")
    doc = load("gbench.json")
    with_items = [b for b in doc["benchmarks"]
                  if b["run_type"] == "iteration" and "items_per_second" in b]
    assert ds.values.tolist() == [b["items_per_second"] for b in with_items]
    assert ds.unit.higher_is_better is True
    message = error_of(path_of("gbench.json"), metric="nope")
    assert "no benchmark reports 'nope'" in message and "cpu_time" in message


def test_gbench_errors(tmp_path):
    path = path_of("gbench_invalid.json")
    good = (FORMATS / "gbench.json").read_text().split("\n")
    bad = (FORMATS / "gbench_invalid.json").read_text().split("\n")
    changed = next(i for i, (a, b) in enumerate(zip(good, bad, strict=True)) if a != b)
    message = error_of(path)
    assert re.fullmatch(rf"{re.escape(path)}:{changed + 2}: invalid JSON: Expecting ',' "
                        rf"delimiter \(line {changed + 2}, column \d+\)", message)
    doc = load("gbench.json")
    doc["context"]["json_schema_version"] = 7
    v7 = write(tmp_path, "v7.json", json.dumps(doc))
    assert "schema version 7 is not supported" in error_of(v7)
    doc = load("gbench.json")
    del doc["benchmarks"]
    none = write(tmp_path, "none.json", json.dumps(doc))
    assert "no 'benchmarks' key" in error_of(none)
    doc = load("gbench.json")
    doc["benchmarks"] = [b for b in doc["benchmarks"] if b["run_type"] == "aggregate"]
    aggregates = write(tmp_path, "agg.json", json.dumps(doc))
    assert "only aggregates" in error_of(aggregates)


# --- go test -bench ---------------------------------------------------------------------------

def _go_expected(text):
    """{metric: {name: [(line, value)]}} and the config lines, parsed independently."""
    metrics = defaultdict(lambda: defaultdict(list))
    config = {}
    for number, line in enumerate(text.split("\n"), start=1):
        if line.startswith("Benchmark"):
            name, _iters, *pairs = line.split()
            name = re.sub(r"-\d+$", "", name[len("Benchmark"):])
            for value, unit in zip(pairs[::2], pairs[1::2], strict=True):
                metrics[unit][name].append((number, float(value)))
        elif re.match(r"[a-z]+: ", line):
            key, value = line.split(": ", 1)
            config[key] = value
    return metrics, config


def test_gotest_default_metric_is_time():
    text = (FORMATS / "gotest.txt").read_text()
    metrics, config = _go_expected(text)
    ds = read(path_of("gotest.txt"))
    assert ds.metric == "ns/op" and ds.unit.name == "ns" and ds.unit.higher_is_better is False
    assert ds.levels == () and ds.default_by == "benchmark"
    assert ds.factors == ("benchmark", "procs", *config, "metric")
    expected = metrics["ns/op"]
    assert groups(ds) == {name: [v for _, v in rows] for name, rows in expected.items()}
    assert ds.lines.tolist() == sorted(n for rows in expected.values() for n, _ in rows)
    for key, value in config.items():
        assert set(ds.columns[key]) == {value}
    procs = re.search(r"^Benchmark\S*-(\d+)\s", text, re.M).group(1)
    assert set(ds.columns["procs"]) == {procs}


@pytest.mark.parametrize("metric,higher", [("B/op", False), ("allocs/op", False),
                                           ("MB/s", True)])
def test_gotest_other_metrics(metric, higher):
    metrics, _ = _go_expected((FORMATS / "gotest.txt").read_text())
    ds = read(path_of("gotest.txt"), metric=metric)
    assert ds.metric == metric and ds.unit.higher_is_better is higher
    assert groups(ds) == {name: [v for _, v in rows] for name, rows in metrics[metric].items()}
    assert set(ds.columns["metric"]) == {metric}


def test_gotest_config_changes_and_procs(tmp_path):
    text = ("goos: linux\npkg: a\nBenchmarkX-8 \t 10\t 5.0 ns/op\nBenchmarkX-8 \t 10\t 6.0 ns/op\n"
            "=== RUN x\nBenchmarkX\n    x_test.go:3: log\n"
            "BenchmarkX-4 \t 10\t 7.0 ns/op\nBenchmarkX-4 \t 10\t 8.0 ns/op\n"
            "pkg: b\nBenchmarkY \t 10\t 1e1 ns/op\nBenchmarkY \t 10\t 11 ns/op\n"
            "pkg:\nBenchmarkY \t 10\t 12 ns/op\nPASS\nok  \tb\t1.0s\n")
    ds = read(write(tmp_path, "go.txt", text))
    assert ds.default_by == "case"
    assert groups(ds) == {"X-8": [5.0, 6.0], "X-4": [7.0, 8.0], "Y:pkg=b": [10.0, 11.0],
                          "Y:pkg=": [12.0]}
    assert ds.columns["pkg"].tolist() == ["a"] * 4 + ["b", "b", ""]
    assert ds.lines.tolist() == [3, 4, 8, 9, 11, 12, 14]


def test_gotest_errors(tmp_path):
    path = path_of("gotest_malformed.txt")
    lines = (FORMATS / "gotest_malformed.txt").read_text().split("\n")
    first = next(i for i, line in enumerate(lines) if line.startswith("Benchmark")) + 1
    assert error_of(path) == (f"{path}:{first}: malformed benchmark line: 'fast' is not a "
                              "number (before unit 'ns/op')")
    cases = {
        "BenchmarkX-8 \t many\t 5 ns/op": "malformed benchmark line: 'many' is not an "
                                          "iteration count",
        "BenchmarkX-8 \t 10": "malformed benchmark line: no measurements after the "
                              "iteration count",
        "BenchmarkX-8 \t 10\t 5 ns/op 6": "malformed benchmark line: the value '6' has no unit",
        "BenchmarkX-8 \t 10\t NaN ns/op": "NaN ns/op is not a finite number",
    }
    for line, problem in cases.items():
        p = write(tmp_path, "bad.txt", f"goos: linux\nBenchmarkX-8 \t 10\t 5 ns/op\n{line}\n")
        assert error_of(p) == f"{p}:3: {problem}"
    p = write(tmp_path, "m.txt", "BenchmarkX-8 \t 10\t 5 ns/op\nBenchmarkX-8 \t 10\t 6 ns/op\n")
    assert error_of(p, metric="B/op") == f"{p}: no results in 'B/op' (the file has: ns/op)"


# --- JMH --------------------------------------------------------------------------------------

def _jmh_case(result):
    params = result.get("params", {})
    detail = ",".join(f"{k}={v}" for k, v in params.items())
    return f"{result['benchmark']}:{detail}" if detail else result["benchmark"]


def test_jmh_forks_are_the_level():
    doc = load("jmh.json")
    ds = read(path_of("jmh.json"))
    assert ds.levels == ("fork",)
    assert ds.unit.name == "us" and ds.unit.higher_is_better is False
    params = list(dict.fromkeys(k for r in doc for k in r.get("params", {})))
    assert ds.default_by == "case"  # ListBench.sum has two parameter combinations
    assert ds.factors == ("case", "benchmark", "mode", *(f"param_{p}" for p in params))
    expected = {_jmh_case(r): [v for fork in r["primaryMetric"]["rawData"] for v in fork]
                for r in doc}
    assert groups(ds) == expected
    forks = {_jmh_case(r): {str(i + 1): len(f) for i, f in enumerate(r["primaryMetric"]["rawData"])}
             for r in doc}
    assert level_counts(ds, "case", "fork") == forks
    assert set(ds.columns["mode"]) == {"avgt"}


def test_jmh_throughput_is_higher_is_better():
    doc = load("jmh_thrpt.json")
    ds = read(path_of("jmh_thrpt.json"))
    assert ds.default_by == "benchmark" and ds.factors == ("benchmark", "mode")
    assert ds.unit.name == "ops/s" and ds.unit.higher_is_better is True
    assert groups(ds) == {r["benchmark"]: [v for f in r["primaryMetric"]["rawData"] for v in f]
                          for r in doc}


def test_jmh_sample_mode_expands_the_histogram():
    doc = load("jmh_sample.json")
    ds = read(path_of("jmh_sample.json"))
    assert ds.levels == ("fork", "iteration")
    for r in doc:
        hist = r["primaryMetric"]["rawDataHistogram"]
        mask = ds.columns["benchmark"] == r["benchmark"]
        expected = sorted(v for fork in hist for it in fork for v, c in it for _ in range(c))
        assert sorted(ds.values[mask].tolist()) == expected
        counts = defaultdict(int)
        for f, i in zip(ds.columns["fork"][mask], ds.columns["iteration"][mask], strict=True):
            counts[(f, i)] += 1
        assert dict(counts) == {(str(f + 1), str(i + 1)): sum(c for _, c in it)
                                for f, fork in enumerate(hist) for i, it in enumerate(fork)}


def test_jmh_secondary_metric_and_mode():
    doc = load("jmh.json")
    name = next(k for r in doc for k in r["secondaryMetrics"])
    ds = read(path_of("jmh.json"), metric=name)
    with_metric = [r for r in doc if name in r["secondaryMetrics"]]
    assert ds.metric == name and ds.unit.name == "B/op" and ds.unit.higher_is_better is False
    assert ds.values.tolist() == [v for r in with_metric
                                  for f in r["secondaryMetrics"][name]["rawData"] for v in f]
    mixed = read(path_of("jmh_mixed.json"), mode="thrpt")
    assert set(mixed.columns["mode"]) == {"thrpt"} and mixed.unit.higher_is_better is True


def test_jmh_sample_mode_is_not_in_time_order():
    assert read(path_of("jmh_sample.json")).ordered is False
    assert read(path_of("jmh.json")).ordered is True
    part = read(path_of("jmh_sample.json")).split("benchmark")[0][1]
    assert part.ordered is False


def test_jmh_sample_mode_raw_data_is_not_in_time_order_either(tmp_path):
    doc = load("jmh_thrpt.json")
    for result in doc:  # a writer that keeps sample mode's per-operation samples in rawData
        result["mode"] = "sample"
        result["primaryMetric"]["scoreUnit"] = "us/op"
    path = write(tmp_path, "sample_raw.json", json.dumps(doc, indent=4))
    ds = read(path)
    assert ds.ordered is False and ds.levels == ("fork",)
    assert read(path_of("jmh_thrpt.json")).ordered is True


def test_jmh_modes_are_chosen_from_the_command_line(run_cli):
    mixed = path_of("jmh_mixed.json")
    code, out, err = run_cli("compare", mixed)
    assert code == 2 and out == "" and err == (
        f"benchlab: {mixed}: the file has results of several JMH modes: avgt (us/op), thrpt "
        "(ops/s); choose one with --mode\n")
    code, out, err = run_cli("summary", mixed, "--mode", "thrpt", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["unit"] == "ops/s" and len(doc["groups"]) == 1
    code, _, err = run_cli("summary", path_of("gotest.txt"), "--mode", "avgt")
    assert code == 2 and "--mode chooses among a JMH file's benchmark modes" in err


def test_jmh_sample_mode_has_no_false_order_warnings(run_cli):
    code, out, _ = run_cli("compare", path_of("jmh_sample.json"), "--json")
    kinds = {w["kind"] for w in json.loads(out)["warnings"]}
    assert code == 0 and not kinds & {"warmup", "autocorrelation", "structure"}


def test_jmh_errors(tmp_path):
    path = path_of("jmh_nan.json")
    assert error_of(path) == f'{path}: [0].primaryMetric.rawData[0][1] is "NaN", not a number'
    mixed = path_of("jmh_mixed.json")
    assert error_of(mixed) == (f"{mixed}: the file has results of several JMH modes: avgt "
                               "(us/op), thrpt (ops/s); choose one with --mode")
    text = (FORMATS / "jmh.json").read_text()
    cut = write(tmp_path, "cut.json", text[:2000])
    assert re.fullmatch(rf"{re.escape(cut)}:\d+: truncated JMH JSON: .*", error_of(cut))
    doc = load("jmh.json")
    del doc[1]["primaryMetric"]["rawData"]
    raw = write(tmp_path, "raw.json", json.dumps(doc, indent=4))
    assert "no 'rawData' or 'rawDataHistogram'" in error_of(raw)
    doc = load("jmh.json")
    doc.append(doc[0])
    dup = write(tmp_path, "dup.json", json.dumps(doc, indent=4))
    assert "repeats the results of [0]" in error_of(dup)
    doc = load("jmh.json")
    del doc[2]["primaryMetric"]
    nopm = write(tmp_path, "nopm.json", json.dumps(doc, indent=4))
    assert error_of(nopm) == (f"{nopm}: [2]: no 'primaryMetric' key (not a JMH JSON file, or "
                              "an unsupported version?)")
    assert "no results with mode 'ss'" in error_of(path_of("jmh.json"), mode="ss")


# --- end to end -------------------------------------------------------------------------------

@pytest.mark.parametrize("name,samples", [
    ("jmh.json", 3), ("jmh_thrpt.json", 2), ("jmh_sample.json", 2),
    ("pyperf.json", 2), ("gbench.json", 4), ("hyperfine.json", 2),
    ("hyperfine_scan.json", 3), ("gotest.txt", 3),
])
def test_compare_reads_each_format(run_cli, name, samples):
    code, out, err = run_cli("compare", path_of(name), "--json", "--no-diagnostics")
    assert code == 0, err
    doc = json.loads(out)
    ds = read(path_of(name))
    assert [s["name"] for s in doc["samples"]] == ds.group_names(ds.default_by)
    assert len(doc["samples"]) == samples
    assert len(doc["comparisons"]) == samples - 1
    assert doc["unit"] == ds.unit.name and doc["higher_is_better"] == ds.unit.higher_is_better
    assert sum(s["n"] for s in doc["samples"]) == len(ds)
    for s, values in zip(doc["samples"], groups(ds).values(), strict=True):
        assert s["mean"] == pytest.approx(math.fsum(values) / len(values), rel=1e-9)


@pytest.mark.parametrize("name", ["hyperfine_truncated.json", "gotest_malformed.txt",
                                  "pyperf_badversion.json", "jmh_nan.json"])
def test_compare_bad_foreign_file_is_one_line(run_cli, name):
    code, out, err = run_cli("compare", path_of(name))
    assert code == 2 and out == ""
    assert err.startswith(f"benchlab: {path_of(name)}") and err.count("\n") == 1


def test_compare_input_format_option(run_cli):
    code, out, _ = run_cli("compare", "--input-format", "hyperfine", path_of("hyperfine.json"),
                           "--json")
    assert code == 0 and len(json.loads(out)["samples"]) == 2
    code, _, err = run_cli("compare", "--input-format", "jmh", path_of("hyperfine.json"))
    assert code == 2 and "not a JSON array" in err
