"""`benchlab run`: dry run, a real run, resume, failures, bad input, and analysis of the store."""

from __future__ import annotations

import json
import sqlite3
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SMALL = """
    seed = 5
    executions = 3
    [warmup]
    executions = 1
    [measure]
    regex = 'v: (?P<v>[0-9.]+)'
    unit = "ms"
    [alternatives.old]
    command = ["sh", "-c", "echo v: $(( $(date +%N | sed 's/^0*//' ) % 7 + 100 ))"]
    [alternatives.new]
    command = ["sh", "-c", "echo v: $(( $(date +%N | sed 's/^0*//' ) % 7 + 90 ))"]
"""


def write(tmp_path, text: str, name: str = "exp.toml") -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def test_dry_run_prints_the_plan_and_writes_nothing(tmp_path, run_cli):
    exp = write(tmp_path, SMALL)
    db = tmp_path / "r.db"
    code, out, err = run_cli("run", exp, "-o", db, "--dry-run")
    assert code == 0, err
    assert "plan: 8 trials (0 build steps, 8 executions of which 2 warm-up)" in out
    assert "order: interleaved-random, seed 5" in out
    assert "estimated duration: unknown" in out
    assert not db.exists()
    code, again, _ = run_cli("run", exp, "-o", db, "--dry-run", expect=0)
    assert again == out  # seeded: the same plan
    code, other, _ = run_cli("run", exp, "-o", db, "--dry-run", "--seed", "6", expect=0)
    assert "seed 6" in other


def test_dry_run_json(tmp_path, run_cli):
    exp = write(tmp_path, SMALL)
    code, out, _ = run_cli("run", exp, "--dry-run", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["dry_run"] and doc["seed"] == 5
    assert doc["benchlab_version"] and doc["trials_total"] == 8
    assert [t["warmup"] for t in doc["trials"]].count(True) == 2
    assert doc["metrics"] == [{"name": "v", "unit": "ms"}]


def test_run_then_compare_summary_and_export(tmp_path, run_cli):
    exp = write(tmp_path, SMALL)
    db = tmp_path / "r.db"
    code, out, err = run_cli("run", exp, "-o", db)
    assert code == 0, err
    assert "trials: 8 ok, 0 failed, 0 not run; 8 measurements" in out
    assert "analyze with: benchlab compare" in out
    assert out.count("] round ") == 8  # plain progress lines: not a terminal
    code, out, err = run_cli("compare", db)
    assert code == 0, err
    assert "new vs old" in out  # the file's first alternative is the baseline
    code, out, err = run_cli("compare", db, "--json", expect=0)
    doc = json.loads(out)
    assert doc["comparisons"][0]["baseline"] == "old"
    code, out, err = run_cli("summary", db)
    assert code == 0, err


@pytest.mark.parametrize("factors", [False, True])
def test_a_file_of_one_alternative_is_summarised(tmp_path, run_cli, factors):
    """One alternative has nothing to compare: the run prints its summary (each combination
    of factor levels, with factors) and names `benchlab summary STORE`, as quick mode does
    for one command, instead of compare's refusal."""
    extra = "[factors]\nn = [1, 2]\n" if factors else ""
    exp = write(tmp_path, f"executions = 3\n{extra}[alternatives.t]\ncommand = [\"true\"]\n")
    db = tmp_path / "r.db"
    code, out, err = run_cli("run", exp, "-o", db, expect=0)
    assert f"analyze with: benchlab summary {db}" in out
    assert "needs at least two samples" not in out + err
    for cell in (["t n=1", "t n=2"] if factors else ["t"]):
        assert f"{cell}: n = 3, mean" in out
    assert run_cli("summary", db, expect=0)[1] in out  # the command named gives it


def test_quiet_and_json(tmp_path, run_cli):
    exp = write(tmp_path, SMALL)
    code, out, err = run_cli("run", exp, "-o", tmp_path / "r.db", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["status"] == "finished" and doc["trials"]["ok"] == 8
    assert doc["measurements"] == 8 and doc["seed"] == 5
    code, out, err = run_cli("run", exp, "-o", tmp_path / "q.db", "--quiet", expect=0)
    assert "] round " not in out and "trials: 8 ok" in out  # no progress lines


def test_fail_fast_exit_code_and_resume(tmp_path, run_cli):
    exp = write(tmp_path, """
        seed = 1
        executions = 2
        [alternatives.a]
        command = ["sh", "-c", "echo 'no config' >&2; exit 2"]
    """)
    db = tmp_path / "r.db"
    code, out, err = run_cli("run", exp, "-o", db, "--fail-fast")
    assert code == 1
    assert "stopped by --fail-fast: trial 1 failed: exit code 2" in out
    assert "trial 1 (a): exit code 2: no config" in out
    code, out, err = run_cli("run", exp, "-o", db, "--resume")
    assert code == 1 and "trials: 0 ok, 2 failed, 0 not run" in out
    assert "2 of 2 trials failed or timed out (exit 1)" in err


def test_existing_store_needs_resume(tmp_path, run_cli):
    exp = write(tmp_path, SMALL)
    db = tmp_path / "r.db"
    assert run_cli("run", exp, "-o", db, "--quiet")[0] == 0
    code, out, err = run_cli("run", exp, "-o", db)
    assert code == 2 and "exists: add --resume" in err
    code, out, err = run_cli("run", exp, "-o", db, "--resume")
    assert code == 0 and "nothing to do" in out


@pytest.mark.parametrize("text, fragment", [
    ("executions = 2\n[alternatives.a]\ncommand = [\"true\"]\ncolor = 1\n",
     "exp.toml:4: unknown key 'alternatives.a.color'"),
    ("executions = 'many'\n[alternatives.a]\ncommand = [\"true\"]\n",
     "exp.toml:1: executions must be an integer, not 'many'"),
    ("[alternatives.a]\ncommand = [\"definitely-not-a-command\"]\n",
     "exp.toml:2: command not found: 'definitely-not-a-command'"),
    ("[measure]\nregex = '([0-9]+) ms'\n[alternatives.a]\ncommand = [\"true\"]\n",
     "exp.toml:2: the regex has no named group"),
])
def test_bad_experiment_files(tmp_path, run_cli, text, fragment):
    exp = write(tmp_path, text)
    code, out, err = run_cli("run", exp, "-o", tmp_path / "r.db")
    assert code == 2 and fragment in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "r.db").exists()


def test_resume_with_a_different_file_is_refused(tmp_path, run_cli):
    exp = write(tmp_path, SMALL)
    db = tmp_path / "r.db"
    run_cli("run", exp, "-o", db, "--quiet", expect=0)
    other = write(tmp_path, SMALL.replace("executions = 3", "executions = 4"), "other.toml")
    code, out, err = run_cli("run", other, "-o", db, "--resume")
    assert code == 2
    assert "other.toml:3: " in err and "different experiment file" in err
    assert "'executions = 4'" in err and "'executions = 3'" in err


def test_not_a_store(tmp_path, run_cli):
    exp = write(tmp_path, SMALL)
    bogus = tmp_path / "r.db"
    bogus.write_text("1\n2\n")
    code, out, err = run_cli("run", exp, "-o", bogus, "--resume")
    assert code == 2 and "not a benchlab store (not a SQLite database)" in err
    other = tmp_path / "o.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE x (y)")
    conn.commit()
    conn.close()
    code, out, err = run_cli("run", exp, "-o", other, "--resume")
    assert code == 2 and "without benchlab's tables" in err
    code, out, err = run_cli("compare", other)
    assert code == 2 and "not a benchlab store" in err


def test_missing_experiment_file(tmp_path, run_cli):
    code, out, err = run_cli("run", tmp_path / "nope.toml")
    assert code == 2 and "nope.toml: no such file" in err


def test_estimate_from_a_pilot(tmp_path, run_cli):
    exp = write(tmp_path, SMALL)
    pilot = tmp_path / "pilot.db"
    assert run_cli("run", exp, "-o", pilot, "--quiet")[0] == 0
    code, out, err = run_cli("run", exp, "--dry-run", "--estimate-from", pilot, "--json", expect=0)
    doc = json.loads(out)
    import sqlite3

    conn = sqlite3.connect(pilot)
    walls = {a: sorted(w for (w,) in conn.execute(
        "SELECT wall FROM trials WHERE alternative = ?", (a,))) for a in ("old", "new")}
    conn.close()
    expected = sum(4 * w[len(w) // 2] if len(w) % 2 else 4 * (w[1] + w[2]) / 2
                   for w in walls.values())
    assert doc["estimated_seconds"] == pytest.approx(expected)
    code, out, err = run_cli("run", exp, "--estimate-from", pilot)
    assert code == 2 and "--estimate-from goes with --dry-run" in err


def test_failed_trials_exit_1_without_fail_fast(tmp_path, run_cli):
    """docs/exit-codes.md: `run` finished with failed trials exits 1, saying how many; the
    good trials are kept and the run went on."""
    db = tmp_path / "f.db"
    code, out, err = run_cli("run", ROOT / "examples" / "experiments" / "failing.toml", "-o", db)
    assert code == 1
    assert "trials: 3 ok, 3 failed, 0 not run" in out
    assert "benchlab: 3 of 6 trials failed or timed out (exit 1)" in err
    code, out, err = run_cli("run", ROOT / "examples" / "experiments" / "failing.toml", "-o",
                             tmp_path / "j.db", "--json")
    assert code == 1 and json.loads(out)["trials"]["failed"] == 3


def test_timed_out_trials_exit_1(tmp_path, run_cli):
    exp = write(tmp_path, """
        seed = 1
        executions = 1
        timeout = "0.2s"
        [alternatives.slow]
        command = ["sleep", "30"]
        [alternatives.quick]
        command = ["true"]
    """)
    code, out, err = run_cli("run", exp, "-o", tmp_path / "t.db")
    assert code == 1 and "1 of 2 trials failed or timed out" in err
