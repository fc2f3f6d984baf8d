"""--warmup auto on compare, report, plan and history add (summary's is in test_warmup.py):
the same cut (data/steady_state.py) in every command, said in text and JSON."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "warmup.csv"
ARGS = ["--by", "benchmark", "--levels", "fork", "--value", "time", "--unit", "ms"]
CUT = ["--warmup", "auto"]


def test_compare_cuts_and_reports_it(run_cli):
    _, out, err = run_cli("compare", EXAMPLE, *ARGS, *CUT, "--json", expect=0)
    doc = json.loads(out)
    assert doc["analysis"]["warmup"]["no_steady_state"] == "keep"
    cut = doc["warmup_cut"]
    assert (cut["iterations_cut"], cut["iterations_dropped"]) == (225 + 120, 0)
    assert [(s["sample"], s["cut"], s["kept"], s["without_steady_state"])
            for s in cut["samples"]] == [("parse", 225, 675, 0), ("render", 120, 780, 1)]
    assert doc["samples"][0]["n"] == 675 and abs(doc["samples"][0]["mean"] - 2.0) < 0.01
    assert any("reach no steady state (fork 3); kept whole" in w for w in doc["warnings"])
    assert "warning: render: 1 of 3 executions reach no steady state (fork 3)" in err
    _, text, _ = run_cli("compare", EXAMPLE, *ARGS, *CUT, "--no-steady-state", "drop",
                         "--no-plot", expect=0)
    assert "parse: --warmup auto cut 225 of 900 iterations" in text
    assert "1 without a steady state left out (300 iterations)" in text
    _, plain, _ = run_cli("compare", EXAMPLE, *ARGS, "--json", expect=0)
    plain = json.loads(plain)
    assert "warmup_cut" not in plain and plain["analysis"]["warmup"] is None
    assert plain["samples"][0]["n"] == 900


def test_compare_usage_errors(run_cli):
    _, _, err = run_cli("compare", EXAMPLE, "--by", "benchmark", "--value", "time", *CUT,
                        expect=2)
    assert "--warmup auto needs the column naming each execution" in err
    _, _, err = run_cli("compare", EXAMPLE, *ARGS, "--no-steady-state", "drop", expect=2)
    assert "--no-steady-state goes with --warmup auto" in err


def test_report_page_says_what_was_cut(run_cli, tmp_path):
    page = tmp_path / "r.html"
    run_cli("report", EXAMPLE, *ARGS, *CUT, "--no-figures", "-o", page, expect=0)
    text = page.read_text()
    assert "--warmup auto cut 225 of 900 iterations" in text


def test_plan_from_the_steady_states(run_cli):
    base = ["plan", EXAMPLE, *ARGS, "--cost", "fork=2s", "--budget", "1h", "--json"]
    _, out, _ = run_cli(*base, *CUT, expect=0)
    doc = json.loads(out)
    assert doc["warmup_cut"]["iterations_cut"] == 345
    assert any(n.startswith("parse: --warmup auto cut 225") for n in doc["notes"])
    _, whole, _ = run_cli(*base, expect=0)
    # the warm-up inflates parse's measurement variance; cut, the plan sees the steady one
    def measurement_var(d):
        return d["groups"][0]["t2"]["measurement"]

    assert measurement_var(doc) < 0.2 * measurement_var(json.loads(whole))
    _, power, _ = run_cli("plan", EXAMPLE, *ARGS, *CUT, "--power", "--effect", "3%", "--reps",
                          "fork=3,measurement=50", "--seed", "1", "--simulations", "100",
                          "--cost", "fork=2s", "--json", expect=0)
    assert json.loads(power)["warmup_cut"]["iterations_cut"] == 345


def test_history_add_keeps_the_steady_states(run_cli, tmp_path):
    db = tmp_path / "h.db"
    _, out, _ = run_cli("history", "add", EXAMPLE, *ARGS, *CUT, "--no-steady-state", "drop",
                        "--db", db, "--commit", "abc", expect=0)
    assert out.startswith(f"added {1800 - 345 - 300} measurements")
    assert "note: render: --warmup auto cut 120 of 900" in out
    con = sqlite3.connect(db)
    tables = [r[0] for r in con.execute("select name from sqlite_master where type='table'")]
    con.close()
    assert tables  # a history was written
    _, _, err = run_cli("history", "add", EXAMPLE, "--by", "benchmark", "--value", "time",
                        *CUT, "--db", db, "--commit", "abd", expect=2)
    assert "--levels" in err
