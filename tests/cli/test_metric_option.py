"""`--metric NAME[,NAME...]` across the analyses: a store's metrics and foreign formats'.

One store is run once for the module (two quick commands, 5 rounds): it records wall,
user, sys and maxrss. Counting tools' fixtures (perf stat, cachegrind) are the real
files of tests/fixtures/counts.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
COUNTS = ROOT / "tests" / "fixtures" / "counts"
PERF = [str(COUNTS / "perf_old.csv"), str(COUNTS / "perf_new.csv")]
CACHEGRIND = [str(COUNTS / "cachegrind_old"), str(COUNTS / "cachegrind_new")]


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> str:
    """A store of `true` against `true` with an argument, 5 rounds (wall, user, sys, maxrss)."""
    import subprocess
    import sys

    path = tmp_path_factory.mktemp("metric") / "quick.db"
    done = subprocess.run([sys.executable, "-m", "benchlab", "run", "--runs", "5", "-o",
                           str(path), "--", "true", "true 1"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return str(path)


def test_compare_store_metric_names_the_metric_in_the_spec(run_cli, store):
    _, out, _ = run_cli("compare", store, "--metric", "user", "--json", expect=0)
    doc = json.loads(out)
    assert doc["analysis"]["metric"] == "user"
    _, out, _ = run_cli("compare", store, "--json", expect=0)
    assert json.loads(out)["analysis"]["metric"] == "wall"  # the store's first, said


def test_compare_several_metrics_side_by_side(run_cli, store):
    _, out, _ = run_cli("compare", store, "--metric", "wall,maxrss", "--no-plot", expect=0)
    lines = out.splitlines()
    assert lines[0] == "metrics side by side:"
    assert lines[1].split()[:3] == ["metric", "comparison", "baseline"]
    assert lines[2].split()[0] == "wall" and lines[3].split()[0] == "maxrss"
    assert "\nwall:\n" in out and "\nmaxrss:\n" in out  # then a section per metric
    _, out, _ = run_cli("compare", store, "--metric", "maxrss,wall", "--json", expect=0)
    doc = json.loads(out)
    assert doc["metric"] == "maxrss"  # the first asked for is the top level
    assert [m["metric"] for m in doc["metrics"]] == ["maxrss", "wall"]
    assert [m["analysis"]["metric"] for m in doc["metrics"]] == ["maxrss", "wall"]


def test_a_metric_not_present_lists_those_that_are(run_cli, store):
    code, out, err = run_cli("compare", store, "--metric", "wall,instructions")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "no metric 'instructions'" in err
    assert "wall, user, sys, maxrss" in err
    code, _, err = run_cli("compare", *PERF, "--metric", "cycles")
    assert code == 2 and err.count("\n") == 1 and "task-clock" in err


def test_one_metric_commands_refuse_several(run_cli, store):
    for command in ("summary", "test"):
        code, _, err = run_cli(command, store, "--metric", "wall,user")
        assert code == 2 and f"{command} analyses one metric at a time" in err
    code, _, err = run_cli("compare", store, "--metric", "wall,wall")
    assert code == 2 and "names a metric twice" in err


def test_counts_side_by_side_with_time(run_cli):
    _, out, _ = run_cli("compare", *PERF, "--metric", "task-clock,page-faults", "--no-plot",
                        expect=0)
    head, task, faults = out.splitlines()[1:4]
    assert task.split()[0] == "task-clock" and faults.split()[0] == "page-faults"
    _, out, _ = run_cli("compare", *CACHEGRIND, "--metric", "Ir", "--format", "markdown", expect=0)
    assert "2377153" in out  # one metric: compare's own layout


FORMATS = ROOT / "tests" / "fixtures" / "formats"
PYTEST = [str(FORMATS / "pytest_benchmark_base.json"), str(FORMATS / "pytest_benchmark.json")]


def test_pytest_benchmark_ops_is_one_over_each_round_and_higher_is_better(run_cli):
    from benchlab.data.samples import load_samples

    times = load_samples(PYTEST[:1])
    ops = load_samples(PYTEST[:1], metric="ops")
    for t, o in zip(times, ops, strict=True):
        assert o.values == pytest.approx(1.0 / t.values, rel=1e-12)
        assert o.dataset.unit.name == "ops/s" and o.dataset.unit.higher_is_better is True
    _, out, _ = run_cli("compare", *PYTEST, "--metric", "ops", "--json", expect=0)
    doc = json.loads(out)
    assert doc["higher_is_better"] is True and doc["analysis"]["metric"] == "ops"
    code, _, err = run_cli("summary", PYTEST[0], "--metric", "wall")
    assert code == 2 and err.count("\n") == 1 and "(metrics: time, ops)" in err


def test_anova_and_qreg_read_a_store_metric(run_cli, store):
    _, out, _ = run_cli("anova", store, "--response", "value", "--factors", "alternative",
                        "--metric", "maxrss", "--json", expect=0)
    assert json.loads(out)["response"] == "value"
    code, _, err = run_cli("qreg", store, "--response", "value", "--factors", "alternative",
                           "--metric", "cycles")
    assert code == 2 and "no metric 'cycles'" in err and "wall, user, sys, maxrss" in err


def test_history_keeps_a_series_per_metric_and_filters_by_it(run_cli, store, tmp_path):
    db = str(tmp_path / "h.db")
    for sha in ("a1", "a2"):
        _, out, _ = run_cli("history", "add", "--db", db, store, "--metric", "wall,maxrss",
                            "--commit", sha, expect=0)
    assert "4 series" in out
    _, out, _ = run_cli("history", "show", "--db", db, "--metric", "maxrss", "--json",
                        expect=0)
    assert {s["metric"] for s in json.loads(out)["series"]} == {"maxrss"}
    code, _, err = run_cli("history", "check", "--db", db, "--metric", "user")
    assert code == 2 and "no metric 'user'" in err and "(metrics: " in err


def test_report_has_a_section_per_metric(run_cli, store, tmp_path):
    page = tmp_path / "r.html"
    run_cli("report", store, "--metric", "wall,maxrss", "--no-figures", "-o", page, expect=0)
    html = page.read_text()
    assert '<h2 id="metrics">metrics side by side</h2>' in html
    assert 'id="metric-wall"' in html and 'id="metric-maxrss"' in html
    assert html.index('id="metric-wall"') < html.index('id="metric-maxrss"')
    assert 'id="metric-maxrss-headline"' in html  # the second metric's ids kept apart
    ids = __import__("re").findall(r'<(?:section|h2)[^>]* id="([^"]+)"', html)
    assert len(ids) == len(set(ids))
    one = tmp_path / "one.html"
    run_cli("report", store, "--metric", "maxrss", "--no-figures", "-o", one, expect=0)
    assert "metrics side by side" not in one.read_text()


def test_report_of_go_test_benchmem_shows_every_metric(run_cli, tmp_path):
    files = [str(ROOT / "tests/fixtures/real/gotest" / f) for f in ("old.txt", "new.txt")]
    page = tmp_path / "go.html"
    run_cli("report", *files, "--no-figures", "-o", page, expect=0)
    html = page.read_text()
    for metric in ("ns-op", "B-op", "allocs-op"):
        assert f'id="metric-{metric}"' in html


def test_criterion_without_a_throughput_says_which_metrics_it_has(run_cli):
    code, out, err = run_cli("summary", FORMATS / "criterion", "--metric", "throughput")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "benchmark.json: the benchmark records no throughput" in err
    assert "metrics: time" in err
    code, _, err = run_cli("summary", FORMATS / "criterion", "--metric", "cycles")
    assert code == 2 and "(metrics: time, throughput)" in err


def test_criterion_throughput_is_the_amount_over_each_samples_time(run_cli):
    from benchlab.data.samples import load_samples

    root = FORMATS / "criterion_throughput" / "sum"
    for n in (100, 1000):
        folder = root / str(n) / "new"
        doc = json.loads((folder / "sample.json").read_text())
        amount = json.loads((folder / "benchmark.json").read_text())["throughput"]["Bytes"]
        expected = [amount * i / (t * 1e-9) for i, t in zip(doc["iters"], doc["times"],
                                                               strict=True)]
        [sample] = load_samples([str(folder / "sample.json")], metric="throughput")
        assert sample.values == pytest.approx(expected, rel=1e-12)
        assert sample.dataset.unit.name == "B/s" and sample.dataset.unit.higher_is_better
    _, out, _ = run_cli("summary", root.parent, "--metric", "throughput", expect=0)
    assert out.count(" GB/s") == 5 and out.count(" TB/s") == 5  # SI prefixes


def test_several_metrics_in_bmf_and_html(run_cli, store):
    _, out, _ = run_cli("compare", store, "--metric", "wall,user,maxrss", "--format", "bmf",
                        expect=0)
    doc = json.loads(out)
    assert list(doc) == ["true 1"]
    assert list(doc["true 1"]) == ["latency", "user", "B"]  # user: a second latency
    assert doc["true 1"]["latency"]["value"] > 0
    _, out, _ = run_cli("compare", store, "--metric", "wall,maxrss", "--format", "html",
                        expect=0)
    assert out.count("metrics side by side") == 1
    assert out.index("<h3>wall") < out.index("<h3>maxrss")


def test_side_by_side_says_unbounded_not_exact(run_cli):
    """examples/experiments/counts.db: wall's paired ratio is unbounded (noisy on a loaded
    machine), instructions exact; the table must not call an unbounded CI exact."""
    code, out, _ = run_cli("compare", ROOT / "examples/experiments/counts.db", "--metric",
                           "wall,instructions", "--no-plot")
    assert code == 0
    rows = {line.split()[0]: line for line in out.splitlines()[2:4]}
    assert "exact" in rows["instructions"] and "worse" in rows["instructions"]
    assert "exact" not in rows["wall"]


def test_suites_side_by_side_carry_each_suites_decisions(run_cli, tmp_path):
    """--metric ns/op,B/op on go test files (suites): a row per metric and benchmark with the
    interval the suite's (family-wise) verdict used and its level, then the geometric mean;
    the same numbers in the text, Markdown, HTML and the report page."""
    from benchlab.notation import change_parts, fmt_level
    from benchlab.units import make_unit

    files = [str(ROOT / "docs/examples" / f) for f in ("go-old.txt", "go-new.txt")]
    args = [*files, "--seed", "1", "--metric", "ns/op,B/op"]
    _, out, _ = run_cli("compare", *args, "--json", expect=0)
    docs = {d["metric"]: d for d in json.loads(out)["metrics"]}
    _, text, _ = run_cli("compare", *args, "--no-diagnostics", expect=0)
    head, *rows = text.split("\n\n")[0].splitlines()[1:]
    assert head.split()[:3] == ["metric", "benchmark", "comparison"]
    benchmarks = {m: [d["benchmark"] for d in docs[m]["decisions"]] for m in docs}
    assert [r.split()[:2] for r in rows] == [
        [m, b] for m in ("ns/op", "B/op") for b in [*benchmarks[m], "geomean"]]
    slow = next(d for d in docs["ns/op"]["decisions"] if d["benchmark"] == "Join/n=100")
    parts = change_parts(slow["estimate"], slow["low"], slow["high"], make_unit("ns/op"))
    level = fmt_level(slow["level"])
    row = next(r for r in rows if r.split()[:2] == ["ns/op", "Join/n=100"])
    assert f"{parts.low} .. {parts.high} at {level}" in row and row.endswith("faster")
    _, markdown, _ = run_cli("compare", *args, "--format", "markdown", expect=0)
    assert f"| {parts.low} .. {parts.high} at {level} | faster |" in markdown
    page = tmp_path / "go.html"
    run_cli("report", *args, "--no-figures", "-o", page, expect=0)
    html = page.read_text()
    table = html[html.index('<h2 id="metrics">'):html.index("</table>",
                                                             html.index('<h2 id="metrics">'))]
    assert f"<td>{parts.low} .. {parts.high} at {level}</td>" in table
    assert '<a href="#metric-B-op">B/op</a>' in table
