"""`benchlab design`: plan CSV, sign table, JSON, errors."""

from __future__ import annotations

import csv
import json

FACTORS = ["--factor", "sched=BFS,CFS", "--factor", "machine=core2,p4",
           "--factor", "vmstat=off,on", "--factor", "load=compile,encode"]


def test_plan_csv_written(run_cli, tmp_path):
    out = tmp_path / "plan.csv"
    code, stdout, err = run_cli("design", *FACTORS, "--replicates", "5", "--seed", "7",
                                "-o", out)
    assert code == 0, err
    assert stdout == f"wrote {out}: 16 cells (2×2×2×2) × 5 replicates = 80 runs, random order " \
                     "(seed 7)\n"
    text = out.read_text().splitlines()
    assert text[:4] == ["# factor sched=BFS,CFS", "# factor machine=core2,p4",
                        "# factor vmstat=off,on", "# factor load=compile,encode"]
    rows = list(csv.DictReader(text[4:]))
    assert list(rows[0]) == ["run", "id", "sched", "machine", "vmstat", "load", "replicate"]
    assert [int(r["run"]) for r in rows] == list(range(1, 81))
    cells = {(r["sched"], r["machine"], r["vmstat"], r["load"]) for r in rows}
    assert len(cells) == 16
    code, again, _ = run_cli("design", *FACTORS, "--replicates", "5", "--seed", "7", expect=0)
    assert again == out.read_text()


def test_standard_order_to_stdout(run_cli):
    code, out, _ = run_cli("design", "--factor", "A=lo,hi", "--factor", "B=1,2,3",
                           "--order", "standard")
    assert code == 0
    assert out.splitlines() == ["# factor A=lo,hi", "# factor B=1,2,3", "run,id,A,B,replicate",
                                "1,1-1,lo,1,1", "2,2-1,hi,1,1",
                                "3,3-1,lo,2,1", "4,4-1,hi,2,1", "5,5-1,lo,3,1",
                                "6,6-1,hi,3,1"]


def test_sign_table(run_cli):
    code, out, _ = run_cli("design", "--factor", "A=lo,hi", "--factor", "B=lo,hi",
                           "--sign-table")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["cell", "A", "B", "I", "A", "B", "AB"]
    assert lines[1].split() == ["1", "lo", "lo", "+1", "-1", "-1", "+1"]
    assert lines[4].split() == ["4", "hi", "hi", "+1", "+1", "+1", "+1"]


def test_json(run_cli):
    code, out, _ = run_cli("design", "--factor", "A=lo,hi", "--factor", "B=x,y",
                           "--replicates", "2", "--seed", "3", "--json", expect=0)
    doc = json.loads(out)
    assert doc["command"] == "design" and doc["seed"] == 3 and doc["replicates"] == 2
    assert doc["design"] == "2^k full factorial"
    assert doc["columns"] == ["run", "id", "A", "B", "replicate"]
    assert len(doc["runs"]) == 8
    assert doc["sign_table"]["columns"] == ["I", "A", "B", "AB"]
    assert set(doc) >= {"benchlab_version", "factors", "cells", "order"}


def test_errors_one_line_exit_2(run_cli):
    for args, message in [
        (["--factor", "A=lo"], "single level"),
        (["--factor", "A=1,2", "--factor", "B=1,2,3", "--sign-table"], "two-level"),
        ([], "at least one factor (--factor)"),
        (["--factor", "A=1,2", "--replicates", "0"], "--replicates"),
    ]:
        code, out, err = run_cli("design", *args)
        assert code == 2, args
        assert err.startswith("benchlab: ") and message in err and err.count("\n") == 1
        assert out == ""
