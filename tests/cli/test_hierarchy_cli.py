"""`summary`, `plan` and `compare --levels` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "hierarchy"
REF = json.loads((FIX / "reference.json").read_text())
TWO = str(FIX / "two_systems.csv")


def test_summary_json_matches_r(run_cli):
    code, out, _ = run_cli("summary", TWO, "--by", "system", "--levels", "build,run", "--json")
    doc = json.loads(out)
    assert code == 0 and [g["name"] for g in doc["groups"]] == ["old", "new"]
    old = doc["groups"][0]
    want = REF["datasets"]["two_systems"]["systems"]["old"]["moment"]
    assert old["mean"] == pytest.approx(want["grand_mean"], rel=1e-13)
    assert old["low"] == pytest.approx(want["ci_mean"]["lower"], rel=1e-12)
    assert [lv["level"] for lv in old["levels"]] == ["build", "run", "measurement"]
    assert old["levels"][0]["t2"] == pytest.approx(want["T2"]["build"], rel=1e-12)


def test_summary_text_and_flat(run_cli):
    code, out, _ = run_cli("summary", str(FIX / "ks3.csv"), "--levels", "build,run")
    assert code == 0 and "can be dropped" in out and "only 3 build units" in out
    code, out, _ = run_cli("summary", str(FIX / "ks3.csv"), "--value", "value")
    assert code == 0 and "n = 12" in out


def test_plan_text_and_json(run_cli):
    args = ["plan", str(FIX / "ks_plan.csv"), "--levels", "build,run", "--cost", "build=100",
            "--cost", "run=20", "--cost", "measurement=3"]
    code, out, _ = run_cli(*args, "--budget", "1h")
    assert code == 0 and "4.2937" in out and "1.3023" in out and "single-level" in out
    doc = json.loads(run_cli(*args, "--target", "5%", "--json", expect=0)[1])
    group = doc["groups"][0]
    assert group["optimal"]["repetitions"]["run"] == 2
    assert group["optimal"]["repetitions"]["measurement"] == 5
    assert group["optimal"]["relative_halfwidth"] <= 0.05


def test_plan_measurement_cost_defaults_to_the_mean_time(run_cli):
    code, out, _ = run_cli("plan", str(FIX / "balanced_3level.csv"), "--levels", "build,run",
                           "--cost", "build=20m", "--cost", "run=6s", "--budget", "6h",
                           "--unit", "ms", "--json")
    doc = json.loads(out)
    assert code == 0
    assert doc["groups"][0]["costs"]["measurement"] == pytest.approx(
        REF["datasets"]["balanced_3level"]["systems"]["A"]["moment"]["grand_mean"] / 1000)


def test_compare_levels_uses_top_level_means(run_cli):
    code, out, _ = run_cli("compare", TWO, "--by", "system", "--levels", "build,run", "--json")
    doc = json.loads(out)
    ratio = doc["comparisons"][0]["ratio"]
    want = REF["ratio"]["fieller"]
    assert code == 0
    assert ratio["low"] == pytest.approx(want["lower"], rel=1e-12)
    assert ratio["high"] == pytest.approx(want["upper"], rel=1e-12)
    assert ratio["df"] == pytest.approx(want["df"], rel=1e-12)
    assert ratio["method"] == "Fieller on build means (welch df)"
    assert [h["name"] for h in doc["hierarchy"]] == ["old", "new"]
    assert "detects a change of" in doc["comparisons"][0]["verdict"]["text"]
    code, out, _ = run_cli("compare", TWO, "--by", "system", "--levels", "build,run",
                           "--threshold", "1%", "--json", expect=0)
    text = json.loads(out)["comparisons"][0]["verdict"]["text"]
    assert "build units per sample to resolve ±1%" in text  # top-level units counted


def test_compare_levels_bootstrap_and_resample(run_cli):
    base = ["compare", TWO, "--by", "system", "--levels", "build,run", "--bootstrap", "500",
            "--seed", "2", "--json"]
    full = json.loads(run_cli(*base, expect=0)[1])
    flat = json.loads(run_cli(*base, "--resample", "flat", expect=0)[1])
    f, g = full["comparisons"][0]["bootstrap"][0], flat["comparisons"][0]["bootstrap"][0]
    assert (g["percentile"]["high"] - g["percentile"]["low"]) < (
        f["percentile"]["high"] - f["percentile"]["low"])
    assert full["resample"] == "RRR" and flat["resample"] == "flat"


@pytest.mark.parametrize("args,message", [
    (["summary", TWO, "--by", "system", "--levels", "build,nope"], "no level column 'nope'"),
    (["compare", TWO, "--by", "system", "--levels", "build,run", "--resample", "RX"],
     "--resample wants R or N"),
    (["plan", TWO, "--by", "system", "--levels", "build,run", "--budget", "1h"],
     "say what one measurement costs"),
    (["plan", TWO, "--by", "system", "--levels", "build,run", "--budget", "1h", "--unit", "s"],
     "--cost is missing for level 'build'"),
    (["plan", TWO, "--by", "system", "--levels", "build,run", "--cost", "build=2q",
      "--budget", "1h"], "not a duration"),
    (["plan", TWO, "--by", "system", "--budget", "1h"], "plan needs --levels"),
    (["compare", TWO, "--by", "system", "--resample", "RRR"], "--resample needs --levels"),
])
def test_errors(run_cli, args, message):
    code, out, err = run_cli(*args)
    assert code == 2 and message in err and err.count("\n") == 1


FORMATS = Path(__file__).resolve().parents[1] / "fixtures" / "formats"


def test_format_levels_are_used_unless_none(run_cli):
    doc = json.loads(run_cli("compare", FORMATS / "pyperf.json", "--json", expect=0)[1])
    assert doc["comparisons"][0]["ratio"]["method"].startswith("Fieller on run means")
    flat = json.loads(run_cli("compare", FORMATS / "pyperf.json", "--levels", "none",
                              "--json", expect=0)[1])
    assert flat["comparisons"][0]["ratio"]["method"] == "Fieller (welch df)"
    assert flat["hierarchy"] == []


def test_two_go_files_compare_benchmark_by_benchmark(tmp_path, run_cli):
    old = tmp_path / "old.txt"
    new = tmp_path / "new.txt"
    text = (FORMATS / "gotest.txt").read_text()
    old.write_text(text)
    new.write_text(text)
    code, out, _ = run_cli("compare", old, new, "--seed", "1", "--bootstrap", "500", "--json")
    doc = json.loads(out)
    assert code == 0
    assert [b["benchmark"] for b in doc["benchmarks"]] == ["Sum", "Join/n=10", "Join/n=100"]
    assert all(b["comparisons"][0]["ratio"]["estimate"] == 1.0 for b in doc["benchmarks"])
    code, out, _ = run_cli("compare", old, new, "--metric", "B/op", "--seed", "1",
                           "--bootstrap", "500", "--json")
    assert code == 0
    assert json.loads(out)["benchmarks"][0]["unit"] == "B/op"


PLAN = ["plan", str(FIX / "ks_plan.csv"), "--levels", "build,run", "--cost", "build=100",
        "--cost", "run=20", "--cost", "measurement=3"]


def test_plan_budget_below_one_top_unit_and_zero_target(run_cli):
    code, out, err = run_cli(*PLAN, "--budget", "100s")
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert err == ("benchlab: a budget of 1.67 min buys no complete build: one costs 2.83 min "
                   "in the optimal plan (repetitions 2 x 5 below it); raise the budget to at "
                   "least 5.67 min for 2 build units\n")
    code, out, err = run_cli(*PLAN, "--target", "0")
    assert code == 2 and out == "" and "--target must be above 0%" in err


def test_plan_notes_are_grammatical(run_cli):
    code, out, _ = run_cli(*PLAN, "--budget", "10min")
    assert code == 0
    assert "only 3 build units: below 5, the CI rests on few means" in out
    assert "only 2 run units per build: below 5" in out
    assert "per parent" not in out and "only 0" not in out
    code, out, _ = run_cli(*PLAN, "--budget", "4min")
    assert code == 0 and "the budget pays for only 1 build unit of the optimal plan" in out


def test_top_level_without_variation_is_not_merged_into_a_level_above(tmp_path, run_cli):
    rows = ["build,run,value"]
    rng = np.random.default_rng(3)
    for b in range(6):  # builds alike; runs within builds vary a lot
        for r in range(4):
            shift = rng.normal(0, 5.0)
            rows += [f"{b},{r},{100 + shift + rng.normal(0, 0.5):.4f}" for _ in range(5)]
    path = tmp_path / "flat_builds.csv"
    path.write_text("\n".join(rows) + "\n")
    doc = json.loads(run_cli("summary", path, "--levels", "build,run", "--json", expect=0)[1])
    group = doc["groups"][0]
    assert group["levels"][0]["t2"] < 0 and group["levels"][0]["droppable"] is False
    assert not any("merged into the level above" in w and "'build'" in w
                   for w in group["warnings"])
    assert any("the top level 'build' adds no detectable variation of its own" in w
               for w in group["warnings"])
    out = run_cli("summary", path, "--levels", "build,run", expect=0)[1]
    assert "(no detectable variation of its own)" in out and "can be dropped" not in out


def test_level_errors_name_the_file_and_only_real_columns(tmp_path, run_cli):
    one = tmp_path / "one.csv"
    one.write_text("build,run,value\n" + "".join(f"{b},1,{10 + b + k / 10}\n"
                                                 for b in range(3) for k in range(3)))
    code, _, err = run_cli("summary", one, "--levels", "build,run")
    assert code == 2 and err.startswith(f"benchlab: {one}: one: level 'run' has a single unit")
    code, _, err = run_cli("compare", one, one, "--levels", "build,run")
    assert code == 2 and f"{one}" in err.split(": level")[0]
    code, _, err = run_cli("plan", one, "--levels", "build,run", "--cost", "build=1m",
                           "--cost", "run=1s", "--cost", "measurement=1s", "--budget", "1h")
    assert code == 2 and err.startswith(f"benchlab: {one}: ")
    code, _, err = run_cli("summary", one, "--levels", "build,fork", expect=2)
    assert err == f"benchlab: {one}: no level column 'fork' (columns: build, run)\n"
    own = tmp_path / "own.csv"  # a file's own "sample" column is real, and kept
    own.write_text("sample,value\nx,1\ny,2\nx,3\n")
    code, _, err = run_cli("summary", own, "--levels", "run", expect=2)
    assert err == f"benchlab: {own}: no level column 'run' (columns: sample)\n"
    plain = tmp_path / "plain.txt"
    plain.write_text("1\n2\n3\n")
    code, _, err = run_cli("summary", plain, "--levels", "run", expect=2)
    assert err == (f"benchlab: {plain}: no level column 'run' (a plain file of numbers has "
                   "none)\n")


def _dfs(node):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "df":
                yield value
            yield from _dfs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _dfs(value)


@pytest.mark.parametrize("args", [
    ("summary", str(FIX / "ks3.csv"), "--value", "value"),
    ("summary", TWO, "--by", "system", "--levels", "build,run"),
    ("plan", str(FIX / "ks_plan.csv"), "--levels", "build,run", "--cost", "build=100",
     "--cost", "run=20", "--cost", "measurement=3", "--budget", "1h"),
    ("compare", TWO, "--by", "system", "--levels", "build,run", "--tests"),
    ("compare", str(FIX / "suite.csv"), "--by", "system", "--benchmark", "benchmark",
     "--seed", "1", "--bootstrap", "200"),
])
def test_json_has_the_version_and_float_degrees_of_freedom(run_cli, args):
    from benchlab.version import __version__

    code, out, _ = run_cli(*args, "--json")
    doc = json.loads(out)
    assert code == 0 and doc["benchlab_version"] == __version__
    dfs = list(_dfs(doc))
    assert all(df is None or isinstance(df, float) for df in dfs)
    assert args[0] == "plan" or any(isinstance(df, float) for df in dfs)
