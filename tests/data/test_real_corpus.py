"""Every reading command on the real tools' outputs at the sizes users have.

The corpus (tests/fixtures/real/, made by its make_corpus.sh) holds an old and a
new run of each tool: pytest-benchmark with thousands of rounds, hyperfine with
1,000 runs, go test -count 20, Criterion's base/ and new/, asv --record-samples,
JMH with forks, pyperf's worker runs and Google Benchmark repetitions. Each
command must end with exit 0 or 1, never an internal error, and say what the
file holds: the expected sample sizes are counted here from the tools' own
files, not from benchlab's readers.
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import FIXTURES

REAL = FIXTURES / "real"
TOOLS = ("pytest-benchmark", "hyperfine", "gotest", "gbench", "pyperf", "criterion", "asv",
         "jmh")
# pytest-benchmark's thousands of rounds make the default 10,000-replicate
# bootstrap of the suite's geometric mean the slow part; a user in a hurry
# passes a smaller B, as here (the analysis is otherwise the default one).
FAST = {"pytest-benchmark": ("--bootstrap", "2000")}


def _runs(tool: str) -> tuple[list[Path], list[Path]]:
    """The old and the new run of one tool: its files (Criterion: each benchmark's
    base/sample.json and new/sample.json, in the same order)."""
    if tool == "criterion":
        base = sorted((REAL / tool).rglob("base/sample.json"))
        return base, [p.parent.parent / "new" / "sample.json" for p in base]
    ext = "txt" if tool == "gotest" else "json"
    return [REAL / tool / f"old.{ext}"], [REAL / tool / f"new.{ext}"]


def _cases() -> list:
    """(tool, old inputs, new inputs) of every comparison: one per tool, as its old and
    new files hold a suite; Criterion one per benchmark (base/ against new/)."""
    cases = []
    for tool in TOOLS:
        old, new = _runs(tool)
        if tool == "criterion":
            cases += [pytest.param(tool, [o], [n], id=f"criterion-{o.parent.parent.name}")
                      for o, n in zip(old, new, strict=True)]
        else:
            cases.append(pytest.param(tool, old, new, id=tool))
    return cases


CASES = _cases()
# Comparisons whose two runs have equally many measurements, compared as one
# benchmark, so --paired applies (value i with value i).
PAIRED = [c for c in CASES if c.values[0] == "criterion"]


def _sizes(tool: str, paths: list[Path]) -> list[int]:
    """The number of measurements per benchmark the tool recorded in these files,
    counted by the tool's own layout (not by benchlab's readers), sorted."""
    return sorted(n for path in paths for n in _sizes_of_file(tool, path))


def _sizes_of_file(tool: str, path: Path) -> list[int]:
    text = path.read_text()
    if tool == "gotest":
        return list(Counter(re.findall(r"^(Benchmark\S+)\s+\d+\s", text, re.M)).values())
    doc = json.loads(text)
    if tool == "criterion":
        return [len(doc["times"])]
    if tool == "pytest-benchmark":
        sizes = [b["stats"]["rounds"] for b in doc["benchmarks"]]
        assert sizes == [len(b["stats"]["data"]) for b in doc["benchmarks"]]
        return sizes
    if tool == "hyperfine":
        return [len(r["times"]) for r in doc["results"]]
    if tool == "gbench":
        return list(Counter(b["run_name"] for b in doc["benchmarks"]
                            if b["run_type"] == "iteration").values())
    if tool == "pyperf":
        return [sum(len(run.get("values", [])) for run in b["runs"]) for b in doc["benchmarks"]]
    if tool == "asv":
        column = doc["result_columns"].index("samples")
        return [len(s) for entry in doc["results"].values()
                for s in (entry[column] or []) if s]
    if tool == "jmh":
        return [sum(len(fork) for fork in r["primaryMetric"]["rawData"]) for r in doc]
    raise AssertionError(tool)


def _compare_args(old: list[Path], new: list[Path], named: bool = True) -> list[str]:
    """Both runs' inputs, the samples named old and new (compare's --name)."""
    names = []
    if named and [p.name for p in old] == [p.name for p in new]:  # Criterion: sample.json
        names = [a for o, n in zip(old, new, strict=True)
                 for a in ("--name", f"{o}=old", "--name", f"{n}=new")]
    return [*map(str, old), *map(str, new), *names]


def _clean(code: int, err: str) -> None:
    """Exit 0 or 1 and nothing of an internal error on stderr."""
    assert code in (0, 1), err
    assert "internal error" not in err.lower()
    assert "Traceback" not in err


def _json_comparisons(doc: dict) -> list[tuple[dict, dict]]:
    """(benchmark entry, comparison) of a compare document, suite or not."""
    benchmarks = doc.get("benchmarks") or [doc]
    return [(b, c) for b in benchmarks for c in b["comparisons"]]


def _finite(*values: float | None) -> bool:
    return all(v is not None and math.isfinite(v) for v in values)


@pytest.mark.parametrize("tool", TOOLS)
def test_corpus_is_present_at_real_sizes(tool):
    """The corpus is what its README says: an old and a new run at the tools' real sizes."""
    floor = {"pytest-benchmark": 2000, "hyperfine": 1000, "gotest": 20, "gbench": 20,
             "pyperf": 60, "criterion": 100, "asv": 10, "jmh": 30}[tool]
    for paths in _runs(tool):
        sizes = _sizes(tool, paths)
        assert len(sizes) >= 2, (tool, paths)
        assert min(sizes) >= floor, (tool, paths, sizes)


@pytest.mark.parametrize(("tool", "old", "new"), CASES)
def test_compare_json_reads_every_measurement(run_cli, tool, old, new):
    """compare --format json: every benchmark's n is the tool's count, finite CI bounds."""
    code, out, err = run_cli("compare", *_compare_args(old, new), "--format", "json",
                             *FAST.get(tool, ()))
    _clean(code, err)
    doc = json.loads(out)
    pairs = _json_comparisons(doc)
    assert pairs
    for name, paths in (("old", old), ("new", new)):
        found = sorted(s["n"] for b, _ in pairs for s in b["samples"] if s["name"] == name)
        assert found == _sizes(tool, paths), name
    for _, c in pairs:
        h = c["headline"]
        assert _finite(h["low"], h["estimate"], h["high"]), h
        assert h["low"] <= h["estimate"] <= h["high"]
    for g in doc.get("geometric_means", []):
        assert _finite(g["low"], g["estimate"], g["high"])


@pytest.mark.parametrize(("tool", "old", "new"), CASES)
def test_compare_text(run_cli, tool, old, new):
    """The default compare prints a verdict for every benchmark."""
    code, out, err = run_cli("compare", *_compare_args(old, new), *FAST.get(tool, ()))
    _clean(code, err)
    assert re.search(r"faster|slower|no change|inconclusive|equivalent", out), out


@pytest.mark.parametrize(("tool", "old", "new"), CASES)
def test_compare_median(run_cli, tool, old, new):
    """--statistic median: the ratio of medians is the headline, with finite bounds."""
    code, out, err = run_cli("compare", *_compare_args(old, new), "--statistic", "median",
                             "--format", "json", "--seed", "1")
    _clean(code, err)
    pairs = _json_comparisons(json.loads(out))
    assert pairs
    for _, c in pairs:
        h = c["headline"]
        assert h["statistic"] == "median"
        assert _finite(h["low"], h["estimate"], h["high"]), h


@pytest.mark.parametrize(("tool", "old", "new"), CASES)
def test_compare_tests(run_cli, tool, old, new):
    """--tests adds the other tests to every comparison, with p-values in [0, 1]."""
    code, out, err = run_cli("compare", *_compare_args(old, new), "--tests", "--format",
                             "json", *FAST.get(tool, ()))
    _clean(code, err)
    pairs = _json_comparisons(json.loads(out))
    assert pairs
    for _, c in pairs:
        assert c["tests"], c
        for t in c["tests"]:
            p = t.get("pvalue")
            assert p is None or 0.0 <= p <= 1.0, t


@pytest.mark.parametrize(("tool", "old", "new"), PAIRED)
def test_compare_paired(run_cli, tool, old, new):
    """--paired pairs old and new by position: the comparison says it is paired."""
    code, out, err = run_cli("compare", *_compare_args(old, new), "--paired", "--format",
                             "json")
    _clean(code, err)
    pairs = _json_comparisons(json.loads(out))
    assert pairs
    for _, c in pairs:
        assert c["paired"] is True
        assert _finite(c["headline"]["low"], c["headline"]["high"])


@pytest.mark.parametrize(("tool", "old", "new"), [c for c in CASES if c not in PAIRED])
def test_compare_paired_suite_is_refused_cleanly(run_cli, tool, old, new):
    """A file of several benchmarks is a suite, which --paired does not analyse: a usage
    error (exit 2) that does not name an option the user did not give."""
    code, out, err = run_cli("compare", *_compare_args(old, new), "--paired")
    assert code == 2 and out == ""
    assert "internal error" not in err.lower() and "Traceback" not in err
    assert "--paired" in err and "--benchmark" not in err


@pytest.mark.parametrize("tool", TOOLS)
def test_summary(run_cli, tool):
    """summary of the new run gives every benchmark's n."""
    new = _runs(tool)[1]
    inputs = [REAL / tool] if tool == "criterion" else new  # the results directory
    code, out, err = run_cli("summary", *inputs, "--format", "json")
    _clean(code, err)
    found = sorted(int(n) for n in re.findall(r'"n": (\d+)', out))
    for n in _sizes(tool, new):
        assert n in found, (n, found)


SECONDS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}


def _tool_means(tool: str, paths: list[Path]) -> list[float]:
    """Each benchmark's mean in seconds: the tool's own where it writes one (pytest-benchmark,
    hyperfine, Google Benchmark's mean aggregate, JMH's score), else of its raw values."""
    means = []
    for path in paths:
        text = path.read_text()
        if tool == "gotest":
            per: dict[str, list[float]] = {}
            for name, ns in re.findall(r"^(Benchmark\S+)\s+\d+\s+([\d.]+) ns/op", text, re.M):
                per.setdefault(name, []).append(float(ns) * 1e-9)
            means += [sum(v) / len(v) for v in per.values()]
            continue
        doc = json.loads(text)
        if tool == "pytest-benchmark":
            means += [b["stats"]["mean"] for b in doc["benchmarks"]]
        elif tool == "hyperfine":
            means += [r["mean"] for r in doc["results"]]
        elif tool == "gbench":
            means += [b["real_time"] * SECONDS[b["time_unit"]] for b in doc["benchmarks"]
                      if b.get("aggregate_name") == "mean"]
        elif tool == "jmh":
            means += [r["primaryMetric"]["score"] * SECONDS[r["primaryMetric"]["scoreUnit"][:-3]]
                      for r in doc]
        elif tool == "criterion":
            means.append(sum(t / i for t, i in zip(doc["times"], doc["iters"], strict=True))
                         / len(doc["times"]) * 1e-9)
        elif tool == "pyperf":
            for b in doc["benchmarks"]:
                values = [v for run in b["runs"] for v in run.get("values", [])]
                means.append(sum(values) / len(values))
        elif tool == "asv":
            column = doc["result_columns"].index("samples")
            means += [sum(x) / len(x) for entry in doc["results"].values()
                      for x in (entry[column] or []) if x]
    return sorted(means)


@pytest.mark.parametrize("tool", TOOLS)
def test_summary_means_are_the_tools_own(run_cli, tool):
    """The values are read in the right unit: each benchmark's mean in summary is the one the
    tool writes (or the mean of its raw values), to 1e-9 relative."""
    old = _runs(tool)[0]
    code, out, err = run_cli("summary", *old, "--format", "json")
    _clean(code, err)
    doc = json.loads(out)
    got = sorted(g["mean"] * SECONDS[doc["unit"]] for g in doc["groups"])
    assert got == pytest.approx(_tool_means(tool, old), rel=1e-9)


@pytest.mark.parametrize(("tool", "old", "new"), CASES)
def test_test_command(run_cli, tool, old, new):
    """benchlab test on old and new ends with a decision, not an internal error."""
    code, out, err = run_cli("test", *_compare_args(old, new, named=False))
    _clean(code, err)
    assert out.strip()


@pytest.mark.parametrize(("tool", "old", "new"), CASES)
def test_report(run_cli, tool, old, new, tmp_path):
    """report writes one HTML page."""
    page = tmp_path / "report.html"
    code, out, err = run_cli("report", *_compare_args(old, new, named=False), "-o", page,
                             "--no-figures", "--seed", "1")
    _clean(code, err)
    html = page.read_text()
    assert html.lstrip().lower().startswith("<!doctype html")
    assert "</html>" in html


@pytest.mark.parametrize("tool", TOOLS)
def test_history_add(run_cli, tool, tmp_path):
    """history add stores both runs (the store holds every benchmark with its n); history
    compare then checks the new run against its parent."""
    db = tmp_path / "history.db"
    runs = _runs(tool)
    for sha, files in zip(("a" * 40, "b" * 40), runs, strict=True):
        code, out, err = run_cli("history", "add", *files, "--db", db, "--commit", sha)
        _clean(code, err)
        assert code == 0
    code, out, err = run_cli("history", "show", "--db", db)
    _clean(code, err)
    code, out, err = run_cli("history", "compare", "--db", db, "--head", "b" * 40)
    _clean(code, err)  # the new run against its parent, the old one
    assert out.strip()
    with sqlite3.connect(db) as con:
        stored = [sorted(n for (n,) in con.execute(
            "SELECT n FROM results JOIN commits ON commits.id = commit_id WHERE sha = ?",
            (sha,))) for sha in ("a" * 40, "b" * 40)]
    assert stored == [_sizes(tool, runs[0]), _sizes(tool, runs[1])]


# What starting one process costs (pyperf's worker runs, JMH's forks): the level
# above the measurement, whose cost plan needs; the measurement's is its mean.
PROCESS_COST = {"pyperf": ("--cost", "run=0.5s"), "jmh": ("--cost", "fork=1s")}


@pytest.mark.parametrize("tool", TOOLS)
def test_plan(run_cli, tool):
    """plan on the old run: with levels (processes), the size of a new experiment for a 2%
    half-width, as JSON; a flat file has no levels to plan, said in one line (exit 2)."""
    old = _runs(tool)[0]
    code, out, err = run_cli("plan", *old, "--target", "2%", *PROCESS_COST.get(tool, ()),
                             "--format", "json")
    if tool not in PROCESS_COST:
        assert code == 2 and out == "" and "plan needs --levels" in err
        return
    _clean(code, err)
    doc = json.loads(out)
    assert doc["groups"], doc
    for g in doc["groups"]:
        plan = g["optimal"]
        assert plan["total_cost"] > 0 and 0 < plan["relative_halfwidth"] <= 0.02 * (1 + 1e-9)
