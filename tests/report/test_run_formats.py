"""`benchlab run` and `run --dry-run` in every format (report/run.py): text and JSON
as before, Markdown, CSV and HTML through the registry, exports beside the main format."""

from __future__ import annotations

import csv
import io
import json
import textwrap

import pytest

SMALL = """
    seed = 5
    executions = 3
    [warmup]
    executions = 1
    [measure]
    regex = 'v: (?P<v>[0-9.]+)'
    unit = "ms"
    [alternatives.old]
    command = ["sh", "-c", "echo v: 100"]
    [alternatives."new|fast"]
    command = ["sh", "-c", "echo v: 90"]
    [factors]
    size = ["1", "2"]
"""
FAILING = """
    seed = 1
    executions = 2
    [alternatives.a]
    command = ["sh", "-c", "echo 'no config' >&2; exit 2"]
"""


def write(tmp_path, text: str, name: str = "exp.toml") -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def rows_of(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


# 2 alternatives x 2 sizes x (1 warm-up + 3) executions
TRIALS = 16


def test_dry_run_text_and_json_keep_their_layout(tmp_path, run_cli):
    exp = write(tmp_path, SMALL)
    code, out, err = run_cli("run", exp, "-o", tmp_path / "r.db", "--dry-run", "--format",
                             "text", expect=0)
    assert f"plan: {TRIALS} trials (0 build steps, {TRIALS} executions of which 4 warm-up)" \
        in out
    assert out.startswith(f"experiment {exp}: exp\n")
    code, plain, _ = run_cli("run", exp, "-o", tmp_path / "r.db", "--dry-run", expect=0)
    assert plain == out  # --format text is the default
    code, out, _ = run_cli("run", exp, "-o", tmp_path / "r.db", "--dry-run", "--json",
                           expect=0)
    doc = json.loads(out)
    assert doc["command"] == "run" and doc["dry_run"] and doc["seed"] == 5
    assert doc["store"] == str(tmp_path / "r.db") and doc["seed_drawn"] is False
    assert doc["schema"] == 1 and doc["inputs"][0]["path"] == exp
    assert len(doc["trials"]) == TRIALS
    code, same, _ = run_cli("run", exp, "-o", tmp_path / "r.db", "--dry-run", "--format",
                            "json", expect=0)
    assert json.loads(same)["trials"] == doc["trials"]


def test_dry_run_csv_has_a_row_per_trial(tmp_path, run_cli):
    exp = write(tmp_path, SMALL)
    code, out, _ = run_cli("run", exp, "--dry-run", "--format", "csv", expect=0)
    rows = rows_of(out)
    doc = json.loads(run_cli("run", exp, "--dry-run", "--json", expect=0)[1])
    assert len(rows) == TRIALS
    assert [int(r["trial"]) for r in rows] == [t["trial"] for t in doc["trials"]]
    assert [r["alternative"] for r in rows] == [t["alternative"] for t in doc["trials"]]
    assert [r["size"] for r in rows] == [t["factors"]["size"] for t in doc["trials"]]
    assert [r["command"] for r in rows] == [t["command"] for t in doc["trials"]]
    assert sum(r["warmup"] == "True" for r in rows) == 4
    assert {r["table"] for r in rows} == {"trial"}


def test_dry_run_markdown_escapes_names_and_lists_every_trial(tmp_path, run_cli):
    exp = write(tmp_path, SMALL)
    code, out, _ = run_cli("run", exp, "--dry-run", "--format", "markdown", expect=0)
    lines = out.splitlines()
    assert lines[0] == "### benchlab run --dry-run"
    assert "- order: interleaved-random, seed 5" in lines
    table = [line for line in lines if line.startswith("| ") and "trial" not in line
             and "---" not in line]
    assert len(table) == TRIALS
    assert all(line.count(" | ") == 5 for line in table)  # six cells: | in a name is escaped
    assert "new\\|fast" in out and "estimated duration: unknown" in out


def test_dry_run_html_is_a_document_with_the_trials(tmp_path, run_cli):
    exp = write(tmp_path, SMALL)
    code, out, _ = run_cli("run", exp, "--dry-run", "--format", "html", expect=0)
    assert out.startswith("<!DOCTYPE html>") and out.rstrip().endswith("</html>")
    assert out.count("<tr>") >= TRIALS + 1
    assert "new|fast" in out and "<script" not in out


def test_dry_run_exports_while_the_text_prints(tmp_path, run_cli):
    exp = write(tmp_path, SMALL)
    md, js, cs = tmp_path / "p.md", tmp_path / "p.json", tmp_path / "p.csv"
    code, out, _ = run_cli("run", exp, "--dry-run", "--export-markdown", md, "--export-json",
                           js, "--export-csv", cs, expect=0)
    assert out.startswith("experiment ")
    assert md.read_text().startswith("### benchlab run --dry-run")
    assert json.loads(js.read_text())["trials_total"] == TRIALS
    assert len(rows_of(cs.read_text())) == TRIALS


def test_run_in_every_format(tmp_path, run_cli):
    exp = write(tmp_path, SMALL)
    db, md, html = tmp_path / "r.db", tmp_path / "r.md", tmp_path / "r.html"
    code, out, err = run_cli("run", exp, "-o", db, "--format", "csv", "--export-markdown", md,
                             "--export-html", html, expect=0)
    rows = rows_of(out)
    assert "] round " not in out  # no progress lines in a document
    assert "new|fast vs old" not in out  # nor the analysis after it (text only)
    run = [r for r in rows if r["table"] == "run"]
    assert len(run) == 1 and run[0]["ok"] == str(TRIALS) and run[0]["failed"] == "0"
    assert run[0]["status"] == "finished" and run[0]["store"] == str(db)
    assert run[0]["measurements"] == str(TRIALS)
    text = md.read_text()
    assert text.startswith("### benchlab run\n")
    assert f"| {db} | 5 | {TRIALS} | 0 | 0 | {TRIALS} | finished: every planned trial has run |" \
        in text
    assert f"analyze with: benchlab compare {db} --seed 5" in text
    page = html.read_text()
    assert page.startswith("<!DOCTYPE html>") and "finished" in page


def test_a_failed_run_in_markdown_and_csv_names_the_failure(tmp_path, run_cli):
    exp = write(tmp_path, FAILING)
    db = tmp_path / "f.db"
    code, out, err = run_cli("run", exp, "-o", db, "--fail-fast", "--format", "markdown")
    assert code == 1 and "1 of 2 trials failed or timed out (exit 1)" in err
    assert "| 1 | a | exit code 2 | no config |" in out
    assert f"continue with: benchlab run {exp} -o {db} --resume" in out
    code, out, err = run_cli("run", exp, "-o", db, "--resume", "--format", "csv")
    assert code == 1
    failures = [r for r in rows_of(out) if r["table"] == "failure"]
    assert [(r["trial"], r["error"]) for r in failures] == [("1", "exit code 2"),
                                                            ("2", "exit code 2")]
    assert "no config" in failures[0]["stderr_tail"]


@pytest.mark.parametrize("fmt", ["text", "markdown", "json", "csv", "html"])
def test_an_export_over_the_store_is_refused_before_running(tmp_path, run_cli, fmt):
    exp = write(tmp_path, SMALL)
    db = tmp_path / "r.db"
    code, out, err = run_cli("run", exp, "-o", db, "--format", fmt, "--export-json", db)
    assert code == 2 and "is the store this run writes" in err
    assert not db.exists() and err.count("\n") == 1


ODD = """
    seed = 2
    executions = 2
    [warmup]
    executions = 1
    [factors]
    size = ["1", "2\\u001b[31m"]
    [alternatives."fast\\u001b]0;x"]
    command = ["echo", "{size}", "a b"]
    [alternatives.plain]
    command = ["true"]
"""


def test_dry_run_text_shows_each_trials_own_command_made_inert(tmp_path, run_cli):
    """Each line of the text names its own trial's command (a placeholder substituted per
    trial, even when two trials' commands differ only by a level) and its alternative and
    levels, with control characters shown as escapes: line by line the JSON plan's
    commands and labels, passed through escape.terminal."""
    from benchlab.escape import terminal

    exp = write(tmp_path, ODD)
    _, out, _ = run_cli("run", exp, "-o", tmp_path / "r.db", "--dry-run", expect=0)
    _, js, _ = run_cli("run", exp, "-o", tmp_path / "r.db", "--dry-run", "--json", expect=0)
    trials = json.loads(js)["trials"]
    assert "\x1b" not in out
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("trial round")) + 1
    rows = lines[start:start + len(trials)]
    assert len(trials) == 2 * 2 * 3 and rows[-1].strip() and lines[start + len(trials)] == ""
    for row, t in zip(rows, trials, strict=True):
        assert row.endswith("  " + terminal(t["command"]))
        label = " ".join([t["alternative"], *(f"{k}={v}" for k, v in t["factors"].items())])
        assert f"  {terminal(label)}" in row
        assert row.split()[0] == str(t["trial"])
    assert {r.rsplit("  ", 1)[1] for r in rows if "fast" in r} == \
        {"echo 1 'a b'", "echo '2\\x1b[31m' 'a b'"}
