"""`benchlab anova`: the example data, design → anova round trip, JSON, plots, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "examples" / "factorial" / "results.csv"
FACTORS = ["--factors", "sched,machine,vmstat,load"]


def test_example_two_level_analysis(run_cli):
    code, out, err = run_cli("anova", RESULTS, "--response", "time", *FACTORS,
                             "--interactions", "2")
    assert code == 0, err
    assert "method: sign table" in out
    assert "machine (core2 -1, p4 +1)" in out
    assert "the analysis of the mean holds" in out
    code, out, _ = run_cli("anova", RESULTS, "--response", "time", *FACTORS,
                           "--interactions", "2", "--json", expect=0)
    doc = json.loads(out)
    effects = {e["term"]: e for e in doc["effects"]}
    # the simulated model (examples/factorial/make_data.py): machine 78.6, machine:load 19.7
    assert effects["machine"]["low"] < 78.6 < effects["machine"]["high"]
    assert effects["machine:load"]["low"] < 19.7 < effects["machine:load"]["high"]
    assert len(doc["effects"]) == 11 and doc["replicates"] == 5 and doc["interactions"] == 2
    total = sum(a["variation"] for a in doc["anova"]) + doc["residual"]["variation"]
    assert total == pytest.approx(1.0)
    assert set(doc) >= {"benchlab_version", "method", "diagnostics", "r_squared", "s_e",
                        "effect_definition", "warnings", "transform", "ss_type"}


def test_latency_diagnostics_point_to_qreg(run_cli, tmp_path):
    plot = tmp_path / "res.svg"
    code, out, _ = run_cli("anova", RESULTS, "--response", "latency", *FACTORS,
                           "--plot", plot, "--json", expect=0)
    doc = json.loads(out)
    assert doc["diagnostics"]["normality"]["ok"] is False
    assert any("benchlab qreg" in a for a in doc["diagnostics"]["advice"])
    assert plot.read_text().lstrip().startswith("<?xml")
    code, out, _ = run_cli("anova", RESULTS, "--response", "latency", *FACTORS, "--log",
                           "--json", expect=0)
    doc = json.loads(out)
    assert doc["transform"] == "log"
    machine = next(e for e in doc["effects"] if e["term"] == "machine")
    assert machine["ratio"] > 1


def test_design_then_anova_round_trip(run_cli, tmp_path):
    """A plan from `benchlab design` with a response column added is anova's input."""
    plan = tmp_path / "plan.csv"
    code, _, _ = run_cli("design", "--factor", "cache=on,off", "--factor", "cpu=2,10",
                         "--replicates", "3", "--seed", "1", "-o", plan, expect=0)
    lines = plan.read_text().splitlines()
    head = [i for i, x in enumerate(lines) if x.startswith("run,")][0]
    rows = [lines[head] + ",time"]
    for line in lines[head + 1:]:
        f = line.split(",")
        rows.append(line + f",{10 + (2 if f[2] == 'off' else 0) + (1 if f[3] == '10' else 0)}"
                           f".{f[0]}")
    data = tmp_path / "data.csv"
    data.write_text("\n".join(lines[:head] + rows) + "\n")
    code, out, err = run_cli("anova", data, "--response", "time", "--factors", "cache,cpu",
                             "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["factors"][0]["low"] == "on"  # the design's order, not the alphabetical one
    cache = next(e for e in doc["effects"] if e["term"] == "cache")
    assert cache["estimate"] == pytest.approx(1.0, abs=0.1)


def test_general_design_uses_ols(run_cli, tmp_path):
    data = tmp_path / "g.csv"
    rows = ["m,l,y"] + [f"{m},{lv},{i + j * 0.5 + k * 0.1}" for i, m in enumerate("abc")
                        for j, lv in enumerate("xy") for k in range(3)]
    data.write_text("\n".join(rows) + "\n")
    code, out, err = run_cli("anova", data, "--response", "y", "--factors", "m,l")
    assert code == 0, err
    assert "method: OLS, type II sums of squares" in out
    assert "m[a]" in out and "analysis of variance (type II" in out


def test_bad_input_one_line_exit_2(run_cli, tmp_path):
    def bad(text: str) -> str:
        return text

    good = "a,b,y\nlo,x,1\nhi,x,2\nlo,y,3\nhi,y,4\n"
    cases = [
        (bad("a,b,y\nlo,x,1\nlo,y,2\nlo,x,3\n"), ["--factors", "a,b"], "single level"),
        (bad("a,b,y\nlo,x,1\nhi,x,fast\nlo,y,3\nhi,y,4\n"), ["--factors", "a,b"],
         "bad.csv:3"),
        (bad("a,b,y\nlo,x,1\nhi,x,2\nlo,y,3\n"), ["--factors", "a,b"],
         "cell a=hi, b=y has no observations"),
        (bad(good), ["--factors", "a,y"], "is the response"),
        (bad(good), ["--factors", "a,b", "--level-order", "a=lo,mid"], "not among the levels"),
        (bad(good), ["--factors", "a,b", "--level-order", "a=lo,hi,mid"], "does not occur"),
        (bad("# factor a=lo,hi,mid\n" + good), ["--factors", "a,b"], "does not occur"),
        (bad(good), ["--factors", "a,b", "--plot", tmp_path / "x.gif"], ".png, .svg or .pdf"),
        (bad("a,b,y\nlo,x,1\nhi,x,-2\nlo,y,3\nhi,y,4\n"), ["--factors", "a,b", "--log"],
         "bad.csv:3: --log needs positive values"),
        (bad(good), ["--factors", "a,c"], "no factor column 'c'"),
    ]
    path = tmp_path / "bad.csv"
    for text, args, message in cases:
        path.write_text(text)
        code, out, err = run_cli("anova", path, "--response", "y", *args)
        assert code == 2, (args, err)
        assert message in err, (message, err)
        assert err.startswith("benchlab: ") and err.count("\n") == 1 and out == ""


def test_general_design_cli_matches_r(run_cli):
    fixtures = ROOT / "tests" / "fixtures" / "r" / "factorial"
    ref = json.loads((fixtures / "anova.json").read_text())["general"]["full"]
    code, out, err = run_cli("anova", fixtures / "general.csv", "--response", "y",
                             "--factors", "M,L", "--ss", "1", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert [a["ss"] for a in doc["anova"]] == pytest.approx(ref["anova_ss"][:-1], rel=1e-9)
    assert [e["high"] for e in doc["effects"]] == pytest.approx(ref["high"], rel=1e-9)


def test_rows_sharing_a_run_are_flagged(run_cli, tmp_path):
    path = tmp_path / "lat.csv"
    rows = ["run,a,latency"] + [f"{r},{'lo' if r % 2 else 'hi'},{10 + r + i * 0.1}"
                                for r in range(1, 9) for i in range(5)]
    path.write_text("\n".join(rows) + "\n")
    code, out, _ = run_cli("anova", path, "--response", "latency", "--factors", "a", "--json")
    assert code == 0
    assert any("5 rows share a run" in w for w in json.loads(out)["warnings"])
    code, out, _ = run_cli("anova", RESULTS, "--response", "time", *FACTORS, "--json", expect=0)
    assert json.loads(out)["warnings"] == []  # a plan has one row per run
