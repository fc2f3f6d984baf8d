"""`compare --benchmark` (suites) from the command line: options that must reach every part."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "hierarchy"
SUITE = str(FIX / "suite.csv")
SUITE_ARGS = ("compare", SUITE, "--by", "system", "--benchmark", "benchmark")


def warmup_csv(tmp_path: Path, benchmarks: tuple[str, ...] = ("a",)) -> str:
    """Two systems, 6 builds x 4 runs x 12 iterations whose first 3 iterations are slow."""
    rng = np.random.default_rng(7)
    lines = ["benchmark,system,build,run,iteration,value"]
    for bench in benchmarks:
        for system, mean in (("old", 100.0), ("new", 95.0)):
            for b in range(6):
                for r in range(4):
                    for i in range(12):
                        x = mean * (1.5 if i < 3 else 1.0) + rng.normal(0, 0.5)
                        lines.append(f"{bench},{system},{b},{r},{i},{x:.4f}")
    path = tmp_path / "warm.csv"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_suite_resample_is_checked_and_upper_cased(run_cli):
    code, out, err = run_cli(*SUITE_ARGS, "--levels", "build,run", "--resample", "RX")
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert "R or N for each of the 3 levels" in err and "Traceback" not in err
    code, _, err = run_cli(*SUITE_ARGS, "--resample", "RNN")
    assert code == 2 and "--resample needs --levels" in err


def test_suite_resample_reaches_every_bootstrap_and_the_json(run_cli):
    code, out, _ = run_cli(*SUITE_ARGS, "--levels", "build,run", "--resample", "rnn",
                           "--bootstrap", "500", "--seed", "3", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["resample"] == "RNN" and doc["seed"] == 3
    for bench in doc["benchmarks"]:
        assert bench["resample"] == "RNN"
        notes = [b["note"] for b in bench["comparisons"][0]["bootstrap"]]
        assert notes and all("resampling RNN" in n for n in notes)
    # no --bootstrap: no per-benchmark bootstrap ran, so none is reported; the geometric
    # mean's bootstrap did run, with the default spec
    doc = json.loads(run_cli(*SUITE_ARGS, "--levels", "build,run", "--seed", "3",
                             "--json", expect=0)[1])
    assert doc["resample"] == "RRR"
    assert all(b["resample"] is None and b["comparisons"][0]["bootstrap"] == []
               for b in doc["benchmarks"])


def test_suite_flat_resample_is_flat(run_cli):
    def width(spec: str) -> float:
        doc = json.loads(run_cli(*SUITE_ARGS, "--levels", "build,run", "--resample", spec,
                                 "--seed", "3", "--bootstrap", "1000", "--json", expect=0)[1])
        g = doc["geometric_means"][0]
        assert doc["resample"] == (spec if spec == "flat" else spec.upper())
        return g["high"] - g["low"]

    assert width("flat") < 0.6 * width("RRR")  # ignoring the builds: far too narrow


def test_resample_without_bootstrap_is_refused_outside_suites(run_cli):
    code, _, err = run_cli("compare", SUITE, "--by", "system", "--levels", "build,run",
                           "--resample", "RNN")
    assert code == 2 and "add --bootstrap" in err
    code, out, _ = run_cli("compare", str(FIX / "two_systems.csv"), "--by", "system",
                           "--levels", "build,run", "--json")
    assert code == 0 and json.loads(out)["resample"] is None


def test_no_diagnostics_with_levels_and_benchmark(tmp_path, run_cli):
    path = warmup_csv(tmp_path)
    base = ("compare", path, "--by", "system", "--levels", "build,run")
    doc = json.loads(run_cli(*base, "--json", expect=0)[1])
    assert any(w["kind"] == "warmup" for w in doc["warnings"])
    doc = json.loads(run_cli(*base, "--json", "--no-diagnostics", expect=0)[1])
    assert not any(w["kind"] in ("warmup", "autocorrelation", "drift") for w in doc["warnings"])
    suite = (*base, "--benchmark", "benchmark", "--seed", "1")
    code, out, _ = run_cli(*suite)
    assert code == 0 and "warm-up" in out
    code, out, _ = run_cli(*suite, "--no-diagnostics")
    assert code == 0 and "warm-up" not in out
    flat = ("compare", path, "--by", "system", "--benchmark", "benchmark", "--seed", "1")
    assert "warnings:" in run_cli(*flat, expect=0)[1]
    assert "warnings:" not in run_cli(*flat, "--no-diagnostics", expect=0)[1]


def test_benchmark_missing_from_a_system_is_skipped_with_a_warning(tmp_path, run_cli):
    rows = Path(SUITE).read_text().splitlines()
    kept = [r for r in rows if not r.startswith("lu,new,")]  # lu only in old
    path = tmp_path / "holes.csv"
    path.write_text("\n".join(kept) + "\n")
    args = ("compare", str(path), "--by", "system", "--benchmark", "benchmark", "--seed", "1")
    code, out, err = run_cli(*args)
    assert code == 0 and err == ""
    assert "benchmark 'lu' is missing from 'new': skipped for it" in out
    assert "geometric mean over 3 benchmarks" in out
    doc = json.loads(run_cli(*args, "--json", expect=0)[1])
    assert [b["benchmark"] for b in doc["benchmarks"]] == ["fft", "sor", "mc"]
    assert doc["skipped"] == ["benchmark 'lu' is missing from 'new': skipped for it"]
    assert [h["benchmark"] for h in doc["holm"]] == ["fft", "sor", "mc"]


def test_benchmark_missing_from_the_baseline_and_single_values(tmp_path, run_cli):
    path = tmp_path / "s.csv"
    path.write_text("benchmark,system,value\n"
                    "a,old,1.0\na,old,1.1\na,new,0.9\na,new,0.95\n"
                    "b,new,2.0\nb,new,2.1\n"
                    "c,old,3.0\nc,new,2.9\nc,new,2.8\n")
    code, out, _ = run_cli("compare", path, "--by", "system", "--benchmark", "benchmark",
                           "--seed", "1", "--no-diagnostics")
    assert code == 0
    assert "benchmark 'b' is missing from the baseline 'old' (only in new): skipped" in out
    assert "benchmark 'c' has 1 value for 'old': at least 2 repetitions are needed" in out
    assert "geometric mean over 1 benchmark, new" in out
    path.write_text("benchmark,system,value\na,old,1.0\na,new,0.9\nb,old,2\nb,new,2.2\n")
    code, out, err = run_cli("compare", path, "--by", "system", "--benchmark", "benchmark")
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert "no benchmark can be compared" in err and "benchmark 'a' has 1 value for 'old'" in err


def test_suite_markdown(run_cli):
    code, out, err = run_cli(*SUITE_ARGS, "--levels", "build,run", "--seed", "1",
                             "--format", "markdown")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "### benchlab compare (suite)"
    rows = [line for line in lines if line.startswith("| ") and " n=" in line]
    assert [r.split(" | ")[0] for r in rows] == ["| fft", "| lu", "| sor", "| mc"]
    assert "geometric mean of the ratios over 4 benchmarks" in out
    assert "Fieller on build means" in out and "resampling RRR" in out


def test_markdown_with_levels_has_the_per_level_tables(run_cli):
    code, out, _ = run_cli("compare", str(FIX / "two_systems.csv"), "--by", "system",
                           "--levels", "build,run", "--format", "markdown")
    assert code == 0
    assert out.count("| level | reps | S² | T² | rel. SD | share |") == 2
    assert "**old**: mean" in out and "t on 6 build means" in out
    for level in ("build", "run", "measurement"):
        assert sum(line.startswith(f"| {level} |") for line in out.splitlines()) == 2


def test_files_in_different_time_units_are_converted(tmp_path, run_cli):
    formats = Path(__file__).resolve().parents[1] / "fixtures" / "formats"
    doc = json.loads((formats / "jmh.json").read_text())
    for result in doc:
        metric = result["primaryMetric"]
        metric["scoreUnit"] = "ns/op"
        metric["rawData"] = [[v * 1000.0 for v in fork] for fork in metric["rawData"]]
    ns = tmp_path / "ns.json"
    ns.write_text(json.dumps(doc, indent=4))
    code, out, err = run_cli("compare", formats / "jmh.json", ns, "--seed", "1", "--json")
    result = json.loads(out)
    assert code == 0 and err == "" and result["unit"] == "us"
    assert result["notes"][0] == "values converted to us (ns from ns)"
    for bench in result["benchmarks"]:
        assert bench["comparisons"][0]["ratio"]["estimate"] == pytest.approx(1.0)
    code, out, _ = run_cli("compare", formats / "jmh.json", ns, "--seed", "1", expect=0)
    assert "values converted to us (ns from ns)" in out
    for result in doc:
        result["primaryMetric"]["scoreUnit"] = "ops/ms"
    rate = tmp_path / "rate.json"
    rate.write_text(json.dumps(doc, indent=4))
    code, out, err = run_cli("compare", formats / "jmh.json", rate)
    assert code == 2 and out == ""
    assert err == ("benchlab: the samples have units of different kinds: us and ops/ms cannot "
                   "be converted into each other\n")


def _boot_rows(out: str) -> dict:
    """(benchmark, statistic) -> the tokens after "new vs old" of the bootstrap table's rows."""
    start = out.index("bootstrap 95% CI of each benchmark's ratios")
    rows = {}
    for line in out[start:].splitlines()[1:]:
        if " new vs old " not in line:
            if rows:
                break
            continue  # the header (and markdown's blank line and rule)
        bench, rest = line.split(" new vs old ")
        tokens = rest.replace("|", " ").split()
        rows[(bench.strip(" |"), tokens[0])] = tokens[1:]
    return rows


def _interval(low: float | None, high: float | None) -> list[str]:
    return ["n/a"] if low is None else [f"{low:.4f}", "..", f"{high:.4f}"]


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_suite_bootstrap_intervals_shown_beside_the_json(run_cli, tmp_path, fmt):
    """--bootstrap's per-benchmark intervals: in text and markdown, the JSON's values."""
    args = (*SUITE_ARGS, "--levels", "build,run", "--bootstrap", "500", "--seed", "3")
    doc = json.loads(run_cli(*args, "--json", expect=0)[1])
    code, out, err = run_cli(*args, "--format", fmt)
    assert code == 0 and err == ""
    rows = _boot_rows(out.replace("Bootstrap 95%", "bootstrap 95%"))
    assert "(B = 500, seed = 3)" in out
    for bench in doc["benchmarks"]:
        for b in bench["comparisons"][0]["bootstrap"]:
            p = b["percentile"]
            assert b["bca"]["low"] is None  # hierarchical: no BCa, so no BCa column
            st = b["studentized"]  # hierarchical means: the studentized column
            assert (st["low"] is None) == (b["statistic"] == "median")
            assert rows.pop((bench["benchmark"], b["statistic"] + "s")) == [
                f"{b['estimate']:.4f}", *_interval(p["low"], p["high"]),
                *_interval(st["low"], st["high"])]
    assert rows == {}
    note = doc["benchmarks"][0]["comparisons"][0]["bootstrap"][0]["note"]
    assert out.count(note) == 1  # shared by every interval: said once
    plain = run_cli(*SUITE_ARGS, "--levels", "build,run", "--seed", "3", "--format", fmt,
                    expect=0)[1]
    assert "each benchmark's ratios" not in plain  # no --bootstrap, no table


def test_suite_bootstrap_bca_and_notes_of_some_benchmarks(run_cli, tmp_path):
    rng = np.random.default_rng(2)
    lines = ["benchmark,system,value"]
    for bench, n in (("a", 10), ("b", 40)):
        for system, mean in (("old", 10.0), ("new", 9.5)):
            lines += [f"{bench},{system},{x:.4f}" for x in rng.normal(mean, 0.3, n)]
    path = tmp_path / "suite.csv"
    path.write_text("\n".join(lines) + "\n")
    args = ("compare", path, "--by", "system", "--benchmark", "benchmark", "--bootstrap", "500",
            "--seed", "1", "--no-diagnostics")
    doc = json.loads(run_cli(*args, "--json", expect=0)[1])
    out = run_cli(*args, expect=0)[1]
    head = out.splitlines()[out.splitlines().index(
        "bootstrap 95% CI of each benchmark's ratios (B = 500, seed = 1):") + 1]
    assert head.split() == ["benchmark", "comparison", "ratio", "of", "estimate", "percentile",
                            "BCa"]
    rows = _boot_rows(out)
    for bench in doc["benchmarks"]:
        for b in bench["comparisons"][0]["bootstrap"]:
            assert rows[(bench["benchmark"], b["statistic"] + "s")][-3:] == _interval(
                b["bca"]["low"], b["bca"]["high"])
    assert ("note: a: fewer than 30 values per sample: bootstrap intervals run too narrow"
            in out)
    assert "b: fewer than 30" not in out


def _rows_of(tmp_path: Path, benchmark: str) -> str:
    lines = Path(SUITE).read_text().splitlines()
    col = lines[0].split(",").index("benchmark")
    kept = [lines[0]] + [ln for ln in lines[1:] if ln.split(",")[col] == benchmark]
    path = tmp_path / f"{benchmark}.csv"
    path.write_text("\n".join(kept) + "\n")
    return str(path)


def test_summary_and_plan_per_benchmark_equal_each_benchmark_alone(tmp_path, run_cli):
    common = ("--by", "system", "--levels", "build,run")
    plan = ("--cost", "build=10m", "--cost", "run=5s", "--cost", "measurement=1s",
            "--budget", "2h")
    for command, extra in (("summary", ()), ("plan", plan)):
        code, out, err = run_cli(command, SUITE, *common, "--benchmark", "benchmark",
                                 *extra, "--json")
        assert code == 0, err
        groups = json.loads(out)["groups"]
        benchmarks = list(dict.fromkeys(g["benchmark"] for g in groups))
        assert len(benchmarks) > 1
        for bench in benchmarks:
            code, out, err = run_cli(command, _rows_of(tmp_path, bench), *common, *extra,
                                     "--json")
            assert code == 0, err
            alone = json.loads(out)["groups"]
            mine = [g for g in groups if g["benchmark"] == bench]
            assert [g["name"] for g in mine] == [f"{bench} / {g['name']}" for g in alone]
            for g, a in zip(mine, alone, strict=True):
                assert {k: v for k, v in g.items() if k not in ("name", "benchmark")} == \
                    {k: v for k, v in a.items() if k != "name"}


def test_summary_of_suite_files_is_benchmark_by_benchmark(tmp_path, run_cli):
    go = Path(__file__).resolve().parents[1] / "fixtures" / "formats" / "gotest.txt"
    other = tmp_path / "other.txt"
    other.write_text(go.read_text())
    code, out, err = run_cli("summary", str(go), str(other), "--json")
    assert code == 0, err
    groups = json.loads(out)["groups"]
    names = {g["name"] for g in groups}
    assert {"Sum / gotest", "Sum / other", "Join/n=10 / gotest"} <= names
    assert all(g["n"] == 5 for g in groups)  # not the 15 values of all benchmarks pooled


def test_summary_benchmark_errors(tmp_path, run_cli):
    code, out, err = run_cli("summary", SUITE, "--by", "system", "--benchmark", "nope")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "no column 'nope' for --benchmark" in err
    path = tmp_path / "one.csv"
    path.write_text("benchmark,value\na,1\na,2\nb,3\n")
    code, out, err = run_cli("summary", str(path), "--benchmark", "benchmark")
    assert code == 2 and "benchmark 'b' of 'one' has 1 value; at least 2 are needed" in err


def _aa_csv(tmp_path: Path) -> str:
    """Issue 12's reproduction: an A/A suite of 4 benchmarks where one benchmark's own 95% CI
    excludes 0 (c: +2.8%, p = 0.026) but Holm's adjusted p does not (0.11)."""
    r = np.random.default_rng(12)
    lines = ["benchmark,system,value"] + [f"{b},{s},{v:.2f}" for b in "abcd"
                                         for s in ("old", "new") for v in r.normal(100, 3, 10)]
    path = tmp_path / "aa.csv"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_aa_suite_does_not_trip_fail_on_change(tmp_path, run_cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    aa = _aa_csv(tmp_path)
    args = ("compare", aa, "--by", "system", "--benchmark", "benchmark", "--seed", "1",
            "--no-diagnostics")
    code, out, err = run_cli(*args, "--fail-on", "change")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split()[3:] == ["change", "(Holm", "CI)", "CI", "level", "Holm", "p",
                                    "verdict"]
    row = next(line for line in lines if line.startswith("c "))
    assert row.split()[-3:] == ["98.75%", "0.1051", "?"]  # the verdict beside its interval
    assert "verdicts family-wise at 95% over 4 benchmarks" in " ".join(lines)
    # --no-adjust: today's per-benchmark decision, and the output says it is not adjusted
    code, out, _ = run_cli(*args, "--fail-on", "change", "--no-adjust")
    assert code == 1
    lines = out.splitlines()
    assert lines[0].split()[3:] == ["change", "(95%", "CI)", "p", "verdict"]
    assert next(line for line in lines if line.startswith("c ")).split()[-2:] == ["0.0263",
                                                                                  "higher"]
    assert "NOT adjusted for the 4 benchmarks (--no-adjust)" in " ".join(lines)


def test_suite_json_decisions(tmp_path, run_cli):
    aa = _aa_csv(tmp_path)
    args = ("compare", aa, "--by", "system", "--benchmark", "benchmark", "--seed", "1",
            "--json", "--threshold", "3%")
    code, out, _ = run_cli(*args)
    doc = json.loads(out)
    assert code == 0 and doc["adjust"] == "holm" and doc["family_confidence"] == 0.95
    keys = {"benchmark", "candidate", "test", "pvalue", "adjusted_pvalue", "level", "scale",
            "estimate", "low", "high", "outcome", "per_benchmark_outcome", "statistic"}
    assert all(set(d) == keys for d in doc["decisions"])
    a = doc["decisions"][0]
    assert doc["statistic"] == "mean" and {d["statistic"] for d in doc["decisions"]} == {"mean"}
    assert a["benchmark"] == "a" and a["test"] == "ratio outside threshold"
    assert a["per_benchmark_outcome"] == "equivalent" and a["outcome"] == "inconclusive"
    assert a["level"] == pytest.approx(1 - 0.05 / 4) and a["low"] < 0.97
    verdict = doc["benchmarks"][0]["comparisons"][0]["verdict"]
    assert verdict["outcome"] == "inconclusive" and "98.75% CI" in verdict["text"]
    assert [h["adjusted_pvalue"] for h in doc["holm"]] == [d["adjusted_pvalue"]
                                                           for d in doc["decisions"]]
    code, out, _ = run_cli(*args, "--no-adjust", expect=0)
    doc = json.loads(out)
    assert doc["adjust"] == "none" and doc["family_confidence"] is None
    assert doc["decisions"][0]["outcome"] == "equivalent"
    assert {d["level"] for d in doc["decisions"]} == {0.95}


def test_suite_markdown_says_which_interval(tmp_path, run_cli):
    code, out, _ = run_cli("compare", _aa_csv(tmp_path), "--by", "system", "--benchmark",
                           "benchmark", "--seed", "1", "--format", "markdown")
    assert code == 0
    assert "| benchmark | old | new | change (Holm CI) | CI level | Holm p | verdict |" in out
    assert "| 98.75% | 0.1051 | ❔ ? |" in out and "Holm's step-down" in out


def test_levels_suite_decides_family_wise(run_cli):
    code, out, _ = run_cli(*SUITE_ARGS, "--levels", "build,run", "--seed", "1", "--json")
    doc = json.loads(out)
    assert code in (0, 1) and doc["adjust"] == "holm"
    levels = sorted(d["level"] for d in doc["decisions"])
    assert levels[-1] == pytest.approx(1 - 0.05 / 4)  # the first step: α/4
    for d, b in zip(doc["decisions"], doc["benchmarks"], strict=True):
        assert b["comparisons"][0]["verdict"]["outcome"] == d["outcome"]
        inside = d["low"] is not None and d["low"] <= 1 <= d["high"]
        assert (d["outcome"] == "change") == (d["low"] is not None and not inside)


def test_no_adjust_outside_a_suite_is_refused(tmp_path, run_cli):
    path = tmp_path / "two.csv"
    path.write_text("system,value\n" + "".join(f"{s},{v}\n" for s in ("a", "b")
                                              for v in (1, 2, 3)))
    code, out, err = run_cli("compare", path, "--by", "system", "--no-adjust")
    assert code == 2 and out == "" and "--no-adjust applies to suites" in err


def test_suite_csv_has_the_decision_rows(tmp_path, run_cli):
    import csv
    import io

    code, out, _ = run_cli("compare", _aa_csv(tmp_path), "--by", "system", "--benchmark",
                           "benchmark", "--seed", "1", "--format", "csv")
    rows = [r for r in csv.DictReader(io.StringIO(out)) if r["table"] == "decisions"]
    assert code == 0 and [r["benchmark"] for r in rows] == ["a", "b", "c", "d"]
    c = rows[2]
    assert float(c["confidence"]) == pytest.approx(0.9875) and c["verdict"] == "inconclusive"
    assert float(c["low"]) < 1 < float(c["high"]) and c["method"] == "ratio = 1; Holm"


# -- --statistic median for suites ----------------------------------------------------------
def _median_suite(tmp_path: Path) -> str:
    """Skewed suite (100 + lognormal tail): benchmark x's body 5% slower in new, y and z not."""
    r = np.random.default_rng(5)
    lines = ["benchmark,system,value"]
    for b, shift in (("x", 1.05), ("y", 1.0), ("z", 1.0)):
        for s, f in (("old", 1.0), ("new", shift)):
            lines += [f"{b},{s},{v:.4f}" for v in f * (100 + np.exp(r.normal(1, 1.3, 30)))]
    path = tmp_path / "skew-suite.csv"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_median_suite_json_says_median_everywhere(tmp_path, run_cli):
    args = ("compare", _median_suite(tmp_path), "--by", "system", "--benchmark", "benchmark",
            "--seed", "3", "--statistic", "median")
    code, out, err = run_cli(*args, "--json", "--fail-on", "regression")
    doc = json.loads(out)
    assert doc["statistic"] == "median" and err == ""
    assert {d["statistic"] for d in doc["decisions"]} == {"median"}
    assert {b["statistic"] for b in doc["benchmarks"]} == {"median"}
    (g,) = doc["geometric_means"]
    assert g["statistic"] == "median" and "ratios of medians" in g["method"]
    x = doc["decisions"][0]
    head = doc["benchmarks"][0]["comparisons"][0]["headline"]
    assert x["estimate"] == head["estimate"] and x["outcome"] == "change"
    assert code == 1  # x's median is 5% slower: a regression, decided family-wise
    for d in doc["decisions"]:  # the verdict is read from the interval beside it
        excludes = d["low"] is not None and not d["low"] <= 1 <= d["high"]
        assert (d["outcome"] == "change") == excludes == (d["adjusted_pvalue"] <= 0.05)
        assert 0.95 <= d["level"] <= 1 - 0.05 / 3


def test_median_suite_text_markdown_csv_name_the_median(tmp_path, run_cli, monkeypatch):
    import csv
    import io

    monkeypatch.setenv("COLUMNS", "120")
    args = ("compare", _median_suite(tmp_path), "--by", "system", "--benchmark", "benchmark",
            "--seed", "3", "--statistic", "median", "--no-diagnostics")
    code, out, _ = run_cli(*args, expect=0)
    head = out.splitlines()[0].split()
    assert head[3:] == ["median", "change", "(Holm", "CI)", "CI", "level", "Holm", "p",
                        "verdict"]
    flat = " ".join(out.split())
    assert "ratio of medians − 1 with the CI its verdict used (bootstrap percentile CI" in flat
    assert "geometric mean of the median ratios over 3 benchmarks" in flat
    code, out, _ = run_cli(*args, "--no-adjust", expect=0)
    assert out.splitlines()[0].split()[3:6] == ["median", "change", "(95%"]
    assert "NOT adjusted for the 3 benchmarks" in " ".join(out.split())
    code, out, _ = run_cli(*args, "--format", "markdown", expect=0)
    assert "| median change (Holm CI) | CI level | Holm p | verdict |" in out
    assert "geometric mean of the median ratios over 3" in out
    code, out, _ = run_cli(*args, "--format", "csv", expect=0)
    rows = list(csv.DictReader(io.StringIO(out)))
    assert {r["statistic"] for r in rows if r["table"] == "decisions"} == {"ratio of medians"}
    assert [r["statistic"] for r in rows if r["table"] == "geometric_means"] == [
        "geometric mean of ratios of medians"]


def test_median_suite_cells_are_the_medians(tmp_path, run_cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    path = _median_suite(tmp_path)
    code, out, _ = run_cli("compare", path, "--by", "system", "--benchmark", "benchmark",
                           "--seed", "3", "--statistic", "median", "--no-diagnostics", expect=0)
    rows = [line.split() for line in out.splitlines()[1:4]]
    data = np.genfromtxt(path, delimiter=",", names=True, dtype=None, encoding=None)
    for row in rows:
        mine = data[(data["benchmark"] == row[0]) & (data["system"] == "old")]["value"]
        places = len(row[1].partition(".")[2])  # the digits the mean's CI justifies
        assert float(row[1]) == pytest.approx(np.median(mine), abs=0.5 * 10.0**-places)
        assert row[2] == "n=30"


def test_median_suite_with_levels_decides_on_the_build_medians(run_cli):
    """The headline stays the hierarchical bootstrap; the verdicts are the permutation test
    of Welch's t on the log medians of the builds (stats/suite_median_units.py), checked
    against scipy.stats' t over every split of the builds."""
    from itertools import combinations

    import pandas as pd
    from scipy import stats

    code, out, _ = run_cli(*SUITE_ARGS, "--levels", "build,run", "--seed", "1", "--json",
                           "--statistic", "median", "--bootstrap", "2000")
    doc = json.loads(out)
    assert code == 0 and doc["statistic"] == "median" and doc["resample"] == "RRR"
    data = pd.read_csv(SUITE)
    for d, b in zip(doc["decisions"], doc["benchmarks"], strict=True):
        head = b["comparisons"][0]["headline"]
        assert head["replicates"] == 2000
        logs = {s: np.log(data[(data["benchmark"] == d["benchmark"]) & (data["system"] == s)]
                          .groupby("build")["value"].median().to_numpy()) for s in ("old", "new")}
        x = np.r_[logs["old"], logs["new"]]
        k = logs["new"].size
        splits = np.array(list(combinations(range(x.size), k)))  # every split, one scipy call
        rest = np.array([np.setdiff1d(np.arange(x.size), c) for c in splits])
        t = np.abs(stats.ttest_ind(x[splits], x[rest], axis=1, equal_var=False).statistic)
        obs = abs(stats.ttest_ind(logs["new"], logs["old"], equal_var=False).statistic)
        assert d["pvalue"] == pytest.approx(np.mean(t >= obs * (1 - 1e-12)), rel=1e-9)
        assert d["estimate"] == pytest.approx(math.exp(logs["new"].mean() - logs["old"].mean()),
                                              rel=1e-12)
        assert b["comparisons"][0]["verdict"]["outcome"] == d["outcome"]
        assert "Welch t on their logs" in b["comparisons"][0]["verdict"]["text"]


def test_median_suite_refusals(tmp_path, run_cli):
    path = tmp_path / "zero.csv"
    path.write_text("benchmark,system,value\n" + "".join(
        f"{b},{s},{v}\n" for b in ("a", "b") for s in ("old", "new")
        for v in ((0, 0, 0, 1, 2) if (b, s) == ("b", "old") else (1, 2, 3, 4, 5))))
    code, out, err = run_cli("compare", path, "--by", "system", "--benchmark", "benchmark",
                             "--statistic", "median", "--seed", "1")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "benchmark 'b'" in err and "needs a positive baseline median" in err
    code, out, err = run_cli("compare", path, "--by", "system", "--benchmark", "benchmark",
                             "--statistic", "median", "--paired")
    assert code == 2 and "--paired does not combine with --benchmark" in err
