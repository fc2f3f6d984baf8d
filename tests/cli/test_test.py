"""`benchlab test`: Speedup-Test and Kruskal-Wallis on files and tables, JSON, errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "docs" / "examples"
R = json.loads((ROOT / "tests" / "fixtures" / "r" / "factorial" / "protocols.json").read_text())


@pytest.fixture
def pair(tmp_path):
    ref = R["two_sample"]["normal_equal"]
    a, b = tmp_path / "base.txt", tmp_path / "cand.txt"
    a.write_text("\n".join(map(repr, ref["baseline"])) + "\n")
    b.write_text("\n".join(map(repr, ref["candidate"])) + "\n")
    return a, b, ref


def test_speedup_mean_two_files(run_cli, pair):
    a, b, ref = pair
    code, out, err = run_cli("test", a, b, "--unit", "s")
    assert code == 0, err
    assert "Speedup-Test, mean protocol: cand vs base" in out
    assert "test: Student's t" in out
    assert "result: cand is faster than base" in out
    code, out, _ = run_cli("test", a, b, "--json", expect=0)
    doc = json.loads(out)
    c = doc["comparisons"][0]
    assert doc["protocol"] == "speedup-mean" and doc["alpha"] == pytest.approx(0.05)
    assert c["test"]["pvalue"] == pytest.approx(ref["student_p"], rel=1e-9)
    assert c["decision"] == "significant"
    assert c["speedups"]["mean"] == pytest.approx(np.mean(ref["baseline"])
                                                  / np.mean(ref["candidate"]))
    assert set(doc) >= {"benchlab_version", "unit", "warnings", "confidence"}


def test_files_in_different_time_units_are_converted(run_cli, tmp_path):
    """Baseline in s and candidate in ms give the one-unit result, with a note (as compare)."""
    ref = R["two_sample"]["normal_equal"]
    a, b, b_ms = tmp_path / "base.csv", tmp_path / "cand.csv", tmp_path / "ms" / "cand.csv"
    b_ms.parent.mkdir()
    a.write_text("unit,value\n" + "".join(f"s,{v!r}\n" for v in ref["baseline"]))
    b.write_text("unit,value\n" + "".join(f"s,{v!r}\n" for v in ref["candidate"]))
    b_ms.write_text("unit,value\n" + "".join(f"ms,{v * 1000!r}\n" for v in ref["candidate"]))
    for protocol, decision in (("speedup-mean", "significant"),
                               ("speedup-median", "not significant")):
        one = json.loads(run_cli("test", a, b, "--protocol", protocol, "--json", expect=0)[1])
        code, out, err = run_cli("test", a, b_ms, "--protocol", protocol, "--json")
        assert code == 0, err
        mixed = json.loads(out)
        assert one["notes"] == [] and mixed["notes"] == ["values converted to s (cand from ms)"]
        assert mixed["unit"] == "s"
        c1, c2 = one["comparisons"][0], mixed["comparisons"][0]
        assert c2["decision"] == c1["decision"] == decision
        assert c2["test"]["pvalue"] == pytest.approx(c1["test"]["pvalue"], rel=1e-9)
        assert c2["speedups"] == pytest.approx(c1["speedups"], rel=1e-12)
        assert [c["pvalue"] for c in c2["checks"]] == pytest.approx(
            [c["pvalue"] for c in c1["checks"]], rel=1e-9)
    code, out, _ = run_cli("test", a, b_ms)
    assert code == 0 and "note: values converted to s (cand from ms)" in out
    rate = tmp_path / "rate.csv"
    rate.write_text("unit,value\n" + "".join(f"ops/s,{v!r}\n" for v in ref["candidate"]))
    code, out, err = run_cli("test", a, rate)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "units of different kinds: s and ops/s" in err


def test_speedup_refusal_is_reported_not_an_error(run_cli):
    code, out, _ = run_cli("test", EX / "parse-old.txt", EX / "parse-drift.txt", "--json")
    assert code == 0
    c = json.loads(out)["comparisons"][0]
    assert c["decision"] == "refused" and "do more than 30 observations" in c["message"]
    assert c["test"] is None


def test_kruskal_on_table(run_cli, tmp_path):
    ref = R["k_sample"]["ties"]
    path = tmp_path / "k.csv"
    rows = ["group,time"] + [f"{g},{v}" for g, vs in ref["groups"].items() for v in vs]
    path.write_text("\n".join(rows) + "\n")
    code, out, err = run_cli("test", path, "--value", "time", "--by", "group", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["protocol"] == "kruskal"
    assert doc["kruskal"]["pvalue"] == pytest.approx(ref["p"], rel=1e-8)
    assert [p["pvalue_holm"] for p in doc["pairs"]] == pytest.approx(
        [p["p_holm"] for p in ref["pairs"]], rel=1e-8)
    code, out, _ = run_cli("test", path, "--value", "time", "--by", "group", expect=0)
    assert out.startswith("Kruskal-Wallis: H = ")
    assert "after Holm's adjustment" in out


def test_kruskal_with_dunn_post_hoc(run_cli):
    dunn = ROOT / "tests" / "fixtures" / "r" / "dunn"
    ref = json.loads((dunn / "dunn.json").read_text())["datasets"]["airquality"]
    args = ("test", dunn / "airquality.csv", "--by", "group", "--posthoc", "dunn")
    code, out, err = run_cli(*args, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["posthoc"] == "dunn" and "Dunn" in doc["method"]
    assert [p["statistic"] for p in doc["pairs"]] == pytest.approx(
        [p["statistic"] for p in ref["pairs"]], rel=1e-10)
    assert [p["pvalue_holm"] for p in doc["pairs"]] == pytest.approx(
        [p["p_holm"] for p in ref["pairs"]], rel=1e-9)
    code, out, _ = run_cli(*args, expect=0)
    assert "pairwise Dunn's test on the pooled mean ranks, Holm-adjusted" in out
    assert out.splitlines()[out.splitlines().index(
        "pairwise Dunn's test on the pooled mean ranks, Holm-adjusted (alpha = 0.05):") + 1
    ].split()[:3] == ["first", "second", "z"]


def test_speedup_median_against_baseline_by_name(run_cli):
    code, out, _ = run_cli("test", EX / "parse-old.txt", EX / "parse-new.txt",
                           EX / "parse-slow.txt", "--protocol", "speedup-median",
                           "--baseline", "parse-slow", "--json", expect=0)
    doc = json.loads(out)
    assert [c["candidate"] for c in doc["comparisons"]] == ["parse-old", "parse-new"]
    assert all(c["baseline"] == "parse-slow" for c in doc["comparisons"])
    assert any("without a correction" in w for w in doc["warnings"])


def test_errors(run_cli, tmp_path):
    one = tmp_path / "one.txt"
    one.write_text("1\n2\n3\n")
    for args, message in [
        ([one], "two or more samples"),
        ([EX / "bad-token.txt", one], "bad-token.txt:"),
        ([EX / "parse-old.txt", one, "--protocol", "kruskal", "--baseline", "one"],
         "--baseline belongs"),
        ([EX / "old.txt", EX / "new.txt", "--protocol", "kruskal"], "one benchmark"),
        ([EX / "parse-old.txt", one, "--baseline", "nope"], "no sample named"),
        ([EX / "parse-old.txt", one, "--protocol", "speedup-mean", "--posthoc", "dunn"],
         "--posthoc chooses kruskal's pairwise tests"),
    ]:
        code, out, err = run_cli("test", *args)
        assert code == 2, (args, err)
        assert message in err and err.count("\n") == 1 and out == ""


def test_suite_of_benchmarks(run_cli):
    code, out, err = run_cli("test", EX / "old.txt", EX / "new.txt")
    assert code == 0, err
    assert "per benchmark: new vs old" in out and "improved: 1 of 3 benchmarks" in out
    code, out, _ = run_cli("test", EX / "old.txt", EX / "new.txt", "--json", expect=0)
    suite = json.loads(out)["suites"][0]
    assert [b["benchmark"] for b in suite["benchmarks"]] == ["Parse", "Tokenize", "Format/short"]
    assert [b["decision"] for b in suite["benchmarks"]] == ["significant", "not significant",
                                                            "not significant"]
    assert suite["improved"] == 1 and suite["total"] == 3
    assert suite["proportion_low"] == pytest.approx(0.00840375865961264)  # R binom.test
    assert suite["gain"] > 1


def test_suite_from_a_table(run_cli, tmp_path):
    path = tmp_path / "s.csv"
    rng = np.random.default_rng(1)
    rows = ["system,bench,time"]
    for bench, speed in (("a", 0.8), ("b", 1.0)):
        for system, factor in (("old", 1.0), ("new", speed)):
            rows += [f"{system},{bench},{x:.4f}" for x in rng.normal(10 * factor, 0.1, 35)]
    path.write_text("\n".join(rows) + "\n")
    code, out, err = run_cli("test", path, "--value", "time", "--by", "system",
                             "--benchmark", "bench", "--protocol", "speedup-median", "--json")
    assert code == 0, err
    suite = json.loads(out)["suites"][0]
    assert suite["baseline"] == "old" and suite["improved"] == 1
    rows.append("new,c,10.0")
    path.write_text("\n".join(rows) + "\n")
    code, out, err = run_cli("test", path, "--value", "time", "--by", "system",
                             "--benchmark", "bench")
    assert code == 2 and "benchmark 'c' of new is missing from old" in err
