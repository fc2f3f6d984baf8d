"""The tables of `compare` from the command line: benchstat-like suites, one per metric,
digits from the uncertainty, --name, labels cut to COLUMNS in text only."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GOTEST = ROOT / "tests" / "fixtures" / "formats" / "gotest.txt"
FFT = ROOT / "examples" / "fft" / "two_systems.csv"
METRICS = ["ns/op", "MB/s", "B/op", "allocs/op"]


def _scaled(tmp_path: Path, name: str, scale: dict[tuple[str, str], float]) -> str:
    """The fixture with the value of (benchmark prefix, unit) multiplied by a factor."""
    out = []
    for line in GOTEST.read_text().splitlines():
        fields = line.split()
        if line.startswith("Benchmark"):
            for k in range(3, len(fields), 2):
                for (prefix, unit), factor in scale.items():
                    if fields[0].startswith(prefix) and fields[k] == unit:
                        fields[k - 1] = f"{float(fields[k - 1]) * factor:g}"
            line = "\t".join(fields)
        out.append(line)
    path = tmp_path / name
    path.write_text("\n".join(out) + "\n")
    return str(path)


@pytest.fixture
def go_pair(tmp_path):
    old = _scaled(tmp_path, "old.txt", {})
    new = _scaled(tmp_path, "new.txt", {("BenchmarkSum", "ns/op"): 2.0,
                                        ("BenchmarkJoin/n=100", "B/op"): 0.5})
    return old, new


def _section(out: str, metric: str) -> list[str]:
    """The lines of one metric's table (its heading "metric:" up to the blank line)."""
    lines = out.splitlines()
    start = lines.index(f"{metric}:") + 1
    end = lines.index("", start)
    return lines[start:end]


def _row(lines: list[str], bench: str) -> str:
    return next(line for line in lines if line.split()[0] == bench)


def test_go_test_files_give_a_table_per_metric(run_cli, go_pair, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    code, out, err = run_cli("compare", *go_pair, "--seed", "1", "--no-diagnostics")
    assert code == 0 and err == ""
    headings = [line[:-1] for line in out.splitlines() if line[:-1] in METRICS]
    assert headings == METRICS  # the default (time) first, then the file's order
    ns = _section(out, "ns/op")
    assert ns[0].split() == ["benchmark", "old", "new", "change", "(Holm", "CI)", "CI", "level",
                             "Holm", "p", "verdict"]  # family-wise verdicts (issue 12)
    assert [line.split()[0] for line in ns[1:]] == ["Sum", "Join/n=10", "Join/n=100", "geomean"]
    for bench in ("Sum", "Join/n=10", "Join/n=100"):
        row = _row(ns, bench)
        assert row.count("n=5") == 2 and row.count("± ") == 2
    sum_row = _row(ns, "Sum")
    assert re.search(r"1\.\d µs ± \d+%  n=5 +2\.\d µs ± \d+%  n=5 +2\.0× slower \(", sum_row)
    assert sum_row.endswith("slower")
    assert _row(ns, "Join/n=10").endswith("~") or _row(ns, "Join/n=10").endswith("?")
    # MB/s only for Sum: still a suite table with its geometric mean
    assert [line.split()[0] for line in _section(out, "MB/s")[1:]] == ["Sum", "geomean"]
    b = _section(out, "B/op")
    join = _row(b, "Join/n=100")
    assert "320 B/op ± 0%  n=5" in join and "160 B/op ± 0%  n=5" in join
    assert "-50" in join and join.endswith("better")  # B/op: lower is better
    assert "24 B/op ± 0%" in _row(b, "Join/n=10")  # exact values: no trailing zeros
    assert "1 allocs/op ± 0%" in _row(_section(out, "allocs/op"), "Join/n=10")
    assert out.count("± is the half-width") == 1  # the legend once, after the last table


def test_the_json_keeps_the_default_document_and_adds_metrics(run_cli, go_pair):
    code, out, _ = run_cli("compare", *go_pair, "--seed", "1", "--json", expect=0)
    doc = json.loads(out)
    single = json.loads(run_cli("compare", *go_pair, "--seed", "1", "--json",
                                "--metric", "ns/op", expect=0)[1])
    for key in single:  # today's document, key for key, for the default metric
        if key != "argv":
            assert doc[key] == single[key], key
    assert doc["metric"] == "ns/op"
    assert [m["metric"] for m in doc["metrics"]] == METRICS
    assert doc["metrics"][0]["benchmarks"] == single["benchmarks"]
    b = doc["metrics"][2]
    assert b["unit"] == "B/op" and [x["benchmark"] for x in b["benchmarks"]] == \
        ["Sum", "Join/n=10", "Join/n=100"]


def test_the_text_shows_the_json_numbers(run_cli, go_pair):
    out = run_cli("compare", *go_pair, "--seed", "1", "--no-diagnostics", "--metric",
                  "ns/op", expect=0)[1]
    doc = json.loads(run_cli("compare", *go_pair, "--seed", "1", "--json", "--metric",
                             "ns/op", expect=0)[1])
    lines = out.splitlines()
    for h in doc["holm"]:
        q = h["adjusted_pvalue"]
        p = _row(lines, h["benchmark"]).split()[-2]
        if q < 1e-3:
            assert p == "<0.001"
        else:  # within half a unit of its last digit
            assert abs(float(p) - q) <= 0.5 * 10.0 ** -len(p.partition(".")[2]) + 1e-12
    g = doc["geometric_means"][0]
    geo = _row(lines, "geomean")
    change = re.search(r"([-+]?\d+(\.\d+)?)% \(", geo) or re.search(r"(\d+\.\d+)× \(", geo)
    value = float(change.group(1))
    assert abs(value - (100 * (g["estimate"] - 1) if "%" in change.group(0)
                        else g["estimate"])) <= 0.5 + 1e-9


def test_one_metric_when_asked_or_from_stdin(run_cli, go_pair, monkeypatch):
    code, out, _ = run_cli("compare", *go_pair, "--metric", "B/op", "--seed", "1")
    assert code == 0 and not any(line[:-1] in METRICS for line in out.splitlines())
    assert "B/op ± 0%" in out
    # standard input is read once: the default metric only
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(GOTEST.read_bytes())))
    code, out, _ = run_cli("compare", "-", go_pair[1], "--seed", "1")
    assert code == 0 and "ns/op:" not in out and " µs ± " in out


def test_fail_on_counts_every_metric(run_cli, tmp_path):
    old = _scaled(tmp_path, "old.txt", {})
    worse = _scaled(tmp_path, "worse.txt", {("BenchmarkJoin/n=100", "B/op"): 2.0})
    code, out, _ = run_cli("compare", old, worse, "--seed", "1", "--fail-on", "regression")
    assert code == 1 and "worse" in _row(_section(out, "B/op"), "Join/n=100")
    assert run_cli("compare", old, worse, "--seed", "1", "--metric", "ns/op",
                   "--fail-on", "regression")[0] == 0


def test_markdown_has_a_section_per_metric(run_cli, go_pair):
    code, out, _ = run_cli("compare", *go_pair, "--seed", "1", "--format", "markdown")
    assert code == 0
    assert [line[3:] for line in out.splitlines() if line.startswith("## ")] == METRICS
    assert "| *geomean* |" in out and "| Sum | 1." in out


def test_fft_numbers_to_the_digits_their_ci_justifies(run_cli):
    args = ("compare", FFT, "--by", "system", "--levels", "build,run", "--unit", "ms")
    out = run_cli(*args, "--no-plot", expect=0)[1]
    doc = json.loads(run_cli(*args, "--json", expect=0)[1])
    # the samples table: one unit per row, the last digit from the standard error
    old = next(line for line in out.splitlines() if line.strip().startswith("old "))
    assert old.split()[2:4] == ["98.1", "ms"] and old.count(" ms") == 5
    # each system's mean and CI: rounded at the CI's half-width (±10 ms: whole ms)
    h = doc["hierarchy"][0]
    line = next(line for line in out.splitlines() if line.startswith("old: mean"))
    assert line.startswith(f"old: mean {h['mean']:.0f} ms  95% CI {h['low']:.0f} ms .. "
                           f"{h['high']:.0f} ms")
    assert 3 <= (h["high"] - h["low"]) / 2 < 30  # why whole ms are right here
    # variance components carry their unit (squared), never a bare S²
    assert re.search(r"build +6 +96\.84 ms² +89\.22 ms²", out)
    # the difference and its CI share one last digit
    assert re.search(r"difference +-2 ms  95% CI -12 ms .. 9 ms", out)


def test_name_renames_everywhere(run_cli, go_pair):
    args = ("compare", *go_pair, "--seed", "1", "--metric", "ns/op",
            "--name", "old=main", "--name", f"{go_pair[1]}=pr-42")
    out = run_cli(*args, expect=0)[1]
    assert out.splitlines()[0].split()[1:3] == ["main", "pr-42"]
    doc = json.loads(run_cli(*args, "--json", expect=0)[1])
    assert doc["benchmarks"][0]["comparisons"][0]["baseline"] == "main"
    assert doc["benchmarks"][0]["comparisons"][0]["candidate"] == "pr-42"
    assert "| benchmark | main | pr-42 |" in run_cli(*args, "--format", "markdown", expect=0)[1]
    for bad, message in (("old", "--name wants OLD=LABEL"),
                         ("nope=x", "no sample named 'nope'"),
                         ("old=new", "two samples the name 'new'")):
        code, out, err = run_cli("compare", *go_pair, "--name", bad)
        assert code == 2 and out == "" and message in err and len(err.splitlines()) == 1


def test_long_labels_are_cut_in_text_only(run_cli, tmp_path, monkeypatch):
    long_a = "python3 -c 'import time; time.sleep(0.01)' --with a --very long --argument list a"
    long_b = long_a[:-1] + "b"
    hyperfine = {"results": [
        {"command": cmd, "times": [t * (1 + 0.01 * k) for k in range(8)]}
        for cmd, t in ((long_a, 0.010), (long_b, 0.012))]}
    path = tmp_path / "h.json"
    path.write_text(json.dumps(hyperfine))
    monkeypatch.setenv("COLUMNS", "80")
    out = run_cli("compare", path, "--no-plot", expect=0)[1]
    table = out.split("\n\n")[0].splitlines()
    assert all(len(line) <= 80 for line in table)
    heading = out.split("\n\n")[1].splitlines()[0]  # "B vs A", cut; the verdict says it whole
    assert any("…" in line for line in table) and "…" in heading and len(heading) <= 80
    monkeypatch.setenv("COLUMNS", "200")
    wide = run_cli("compare", path, "--no-plot", expect=0)[1].split("\n\n")[0]
    assert long_a in wide and "…" not in wide
    monkeypatch.setenv("COLUMNS", "80")
    doc = json.loads(run_cli("compare", path, "--json", expect=0)[1])
    assert [s["name"] for s in doc["samples"]] == [long_a, long_b]
    assert long_a in run_cli("compare", path, "--format", "markdown", expect=0)[1]


def test_a_metric_that_cannot_be_compared_is_a_note(run_cli):
    """One go test file: its benchmarks are the samples; MB/s (Sum only) is one sample."""
    code, out, _ = run_cli("compare", GOTEST, "--no-diagnostics")
    assert code == 0 and "ns/op:" in out and "B/op:" in out and "MB/s:" not in out
    assert "note: metric 'MB/s' not compared: compare needs at least two samples" in out
