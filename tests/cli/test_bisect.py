"""`benchlab bisect` on real git repositories made in a temporary folder: a C program whose
sleep grows 10-fold at a known commit (a step no load on the machine can hide), a commit
that does not build, an A/A history, a bisect killed and resumed (one bisect shared by the
tests of its culprit, its store, the resume and the analyses that read the store), counted
instructions, and bad input as one line with exit 2. Accuracy at small effects is
validation/bisect_accuracy.py's and validation/bisect_real.py's."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ..support.cli import main_output

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bisect_repo", ROOT / "validation" /
                                               "bisect_repo.py")
bisect_repo = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bisect_repo)

COMMITS, CULPRIT, BROKEN = 8, 5, 3  # commit 3 is the first middle: it must be skipped


@pytest.fixture(scope="module")
def repos(tmp_path_factory):
    """An 8-commit history whose sleep goes from 5 ms to 50 ms at commit 5 (commit 3 does
    not build); its commits 5 to 7 are an A/A range. One build cache for every test. (A
    5 ms sleep, not a shorter one: the start of a process on a loaded machine takes
    milliseconds, and the low end's spread is what the first look must beat.)"""
    folder = tmp_path_factory.mktemp("bisect")
    found = bisect_repo.make_repo(str(folder / "step"), commits=COMMITS, culprit=CULPRIT,
                                  loops=5000, factor=10, broken=(BROKEN,), sleep=True)
    return {"folder": folder, "step": found}


def _args(repos, good: int, bad: int, *more: str) -> list[str]:
    """(--runs 10 everywhere: looks of 10 and 20 outlast a load spike on a shared machine)"""
    folder = repos["folder"]
    shas = repos["step"]
    return ["bisect", "--repo", str(folder / "step"), "--good", shas[good], "--bad", shas[bad],
            "--build", bisect_repo.BUILD, "--command", bisect_repo.COMMAND,
            "--cache", str(folder / "cache"), "--seed", "3", "--runs", "10", *more]


@pytest.fixture(scope="module")
def killed(repos, tmp_path_factory):
    """The step history's bisect, killed with SIGKILL within the ends' first look (a
    process of its own) and resumed here to the end: one bisect that the culprit, the
    store, the resume and the analyses of its store are all checked on."""
    folder = tmp_path_factory.mktemp("killed")
    store, document = folder / "r.db", folder / "r.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen([sys.executable, "-m", "benchlab",
                              *_args(repos, 0, COMMITS - 1, "-o", str(store))], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and child.poll() is None:
            if store.exists():
                try:
                    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as conn:
                        n = conn.execute("SELECT COUNT(*) FROM executions").fetchone()[0]
                except sqlite3.Error:
                    n = 0
                if n >= 12:  # within the ends' first look (10 rounds of 2)
                    child.send_signal(signal.SIGKILL)
                    break
            time.sleep(0.02)
    finally:
        child.wait()
    with sqlite3.connect(store) as conn:
        before = conn.execute("SELECT step, round, slot, sha, wall FROM executions").fetchall()
    code, text, err = main_output("bisect", "-o", store, "--resume", "--export-json", document)
    return {"returncode": child.returncode, "before": before, "code": code, "text": text,
            "err": err, "store": store, "doc": json.loads(document.read_text())}


def test_finds_the_culprit_and_skips_a_broken_build(repos, killed):
    doc, text, err, store = killed["doc"], killed["text"], killed["err"], killed["store"]
    assert killed["code"] == 0, err
    shas = repos["step"]
    assert doc["status"] == "found" and doc["culprit"] == shas[CULPRIT], (
        doc["status"], [(s["kind"], s["outcome"], s["executions"], s["looks"][-1:])
                        for s in doc["steps"]])
    assert doc["parent"] == shas[CULPRIT - 1]
    assert doc["subject"] == "loop count x10"
    assert doc["ratio"]["low"] > 1.02 and doc["ratio"]["verdict"] == "change"
    assert doc["skipped"] == [shas[BROKEN]]
    broken = [b for b in doc["builds"] if b["commit"] == shas[BROKEN]]
    assert broken and not broken[0]["ok"] and broken[0]["error"] == "exit code 1"
    # the ends, then commits 4 (good) and 5 (bad): the broken one took no step
    assert [(s["kind"], s["commit"], s["outcome"]) for s in doc["steps"]] == [
        ("ends", None, "differ"), ("commit", shas[4], "good"), ("commit", shas[5], "bad")]
    assert doc["executions"] == sum(s["executions"] for s in doc["steps"])
    with sqlite3.connect(store) as conn:
        assert conn.execute("SELECT COUNT(*) FROM executions").fetchone()[0] == \
            doc["executions"]
        env = json.loads(conn.execute("SELECT environment FROM builds WHERE sha = ?",
                                      (shas[BROKEN],)).fetchone()[0])
    assert env["command"] == bisect_repo.BUILD and "PATH" in env["variables"]
    assert "skipping" in err and shas[BROKEN][:12] in err
    # the text: the culprit with its subject, the skipped commit
    assert f"culprit: {shas[CULPRIT]} loop count x10" in text
    assert f"skipped {shas[BROKEN][:12]}: its build failed" in text
    # the user's checkout is untouched: no file of a build in it
    assert not (repos["folder"] / "step" / "prog").exists()


def test_no_difference_names_no_culprit(run_cli, repos, tmp_path):
    """Commits 5 to 7 sleep 50 ms each (6 and 7 change a notes file): no change (their
    builds are the killed bisect's, when it ran first)."""
    document = tmp_path / "same.json"
    _, text, _ = run_cli(*_args(repos, CULPRIT, COMMITS - 1, "--threshold", "50%",
                                "--export-json", document), expect=0)
    doc = json.loads(document.read_text())
    assert doc["culprit"] is None and doc["ratio"] is None
    assert doc["status"] == "no-change", doc["steps"]
    assert [s["kind"] for s in doc["steps"]] == ["ends"]
    assert "no culprit: good and bad do not differ by more than the threshold" in text


def test_resume_after_a_kill_measures_nothing_twice(run_cli, repos, killed):
    store, doc = killed["store"], killed["doc"]
    assert killed["returncode"] == -signal.SIGKILL, "the bisect ended before it was killed"
    with sqlite3.connect(store) as conn:
        after = conn.execute("SELECT step, round, slot, sha, wall FROM executions").fetchall()
    assert set(killed["before"]) <= set(after) and len(after) > len(killed["before"])
    assert doc["executions"] == len(after)
    # a resume of a finished bisect runs nothing and says the same; --fail-on found: exit 1
    _, again, _ = run_cli("bisect", "-o", store, "--resume", "--json", "--fail-on", "found",
                          expect=1)
    assert json.loads(again)["culprit"] == doc["culprit"] == repos["step"][CULPRIT]
    with sqlite3.connect(store) as conn:
        assert conn.execute("SELECT COUNT(*) FROM executions").fetchone()[0] == len(after)
    # an option that contradicts the store is refused
    code, _, err = run_cli("bisect", "-o", store, "--resume", "--threshold", "5%", expect=2)
    assert "--threshold 0.05: the store's bisect has 0.02" in err


def test_compare_summary_and_report_read_the_store(run_cli, repos, killed, tmp_path):
    """The store as data: a sample per measured commit in history order, good first (the
    baseline), each against it; summary and the HTML report read it too."""
    store, doc, shas = killed["store"], killed["doc"], repos["step"]
    measured = [sha for sha in shas if sha in {doc["good"], doc["bad"]}
                or any(s["commit"] == sha for s in doc["steps"])]
    with sqlite3.connect(store) as conn:
        rows = conn.execute("SELECT sha, wall FROM executions WHERE error IS NULL AND "
                            "warmup = 0").fetchall()
    _, out, _ = run_cli("summary", store, "--json", expect=0)
    summary = json.loads(out)
    assert [s["name"] for s in summary["groups"]] == [sha[:12] for sha in measured]
    for s in summary["groups"]:
        values = [w for sha, w in rows if sha[:12] == s["name"]]
        assert s["n"] == len(values) and s["mean"] == pytest.approx(sum(values) / len(values))
    _, out, _ = run_cli("compare", store, "--json", expect=0)
    compared = json.loads(out)
    assert {c["baseline"] for c in compared["comparisons"]} == {shas[0][:12]}
    by_name = {c["candidate"]: c for c in compared["comparisons"]}
    assert by_name[shas[CULPRIT][:12]]["ratio"]["low"] > 1.02
    code, _, err = run_cli("compare", store, "--metric", "instructions", expect=2)
    assert "this bisect counted no instructions (it measured wall)" in err
    page = tmp_path / "report.html"
    run_cli("report", store, "-o", page, "--no-figures", expect=0)
    assert shas[CULPRIT][:12] in page.read_text()


def test_bad_input_is_one_line_exit_2(run_cli, repos, tmp_path):
    shas, repo = repos["step"], str(repos["folder"] / "step")
    base = ["--build", bisect_repo.BUILD, "--command", bisect_repo.COMMAND,
            "--cache", str(repos["folder"] / "cache")]
    cases = [
        (["--repo", repo, "--good", shas[5], "--bad", shas[2], *base],
         "is not an ancestor of the bad commit"),
        (["--repo", repo, "--good", "nosuch", "--bad", shas[2], *base],
         "'nosuch' is not a commit of this repository"),
        (["--repo", str(tmp_path), "--good", "a", "--bad", "b", *base], "not a git repository"),
        (["--repo", repo, "--good", shas[0], "--bad", shas[BROKEN], *base],
         f"the bad commit {shas[BROKEN][:12]} does not build"),
        (["--repo", repo, "--good", shas[0], *base], "--bad is needed"),
        (["--repo", repo, "--good", shas[0], "--bad", shas[2], *base, "--counter",
          "cachegrind"], "--counter cachegrind counts instructions: give --metric"),
        (["--resume"], "--resume needs -o STORE"),
        (["-o", str(tmp_path / "none.db"), "--resume"], "no such file"),
    ]
    for args, said in cases:
        code, out, err = run_cli("bisect", *args, expect=2)
        assert said in err, (args, err)
        assert len(err.strip().splitlines()) == 1 or "building" in err, err
        assert out == ""


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="Valgrind is not installed")
def test_instructions_counted_by_cachegrind_decide_at_the_first_look(run_cli, tmp_path):
    """A 4.7% step in instructions (a loop 5% longer beside the program's start), counted
    under cachegrind: the counts repeat exactly, so every CI is a point and every step is
    decided at its first look of 2 executions, whatever the load."""
    shas = bisect_repo.make_repo(str(tmp_path / "repo"), commits=3, culprit=1,
                                 loops=100_000, factor=1.05)
    store, document = tmp_path / "c.db", tmp_path / "c.json"
    _, text, _ = run_cli("bisect", "--repo", tmp_path / "repo", "--good", shas[0], "--bad",
                         shas[2], "--build", bisect_repo.BUILD_STATIC, "--command",
                         bisect_repo.COMMAND, "--cache", tmp_path / "cache", "--seed", "3",
                         "--runs", "2", "--metric", "instructions", "--counter", "cachegrind",
                         "-o", store, "--export-json", document, expect=0)
    doc = json.loads(document.read_text())
    assert doc["culprit"] == shas[1] and doc["parent"] == shas[0], doc["steps"]
    assert doc["metric"] == "instructions" and doc["status"] == "found"
    assert [(s["kind"], [x["runs"] for x in s["looks"]]) for s in doc["steps"]] == [
        ("ends", [2]), ("commit", [2])]
    r = doc["ratio"]
    assert r["low"] == r["estimate"] == r["high"] and 1.03 < r["estimate"] < 1.05
    shown = f"{100 * (r['estimate'] - 1):.1f}%"
    assert f"against its parent {shas[0]}: +{shown} (exact) at 95%" in text, text
    with sqlite3.connect(store) as conn:
        rows = conn.execute("SELECT sha, instructions FROM executions").fetchall()
    assert len(rows) == doc["executions"] == 2 * 2 + 3 * 2
    counts = {sha: {n for s, n in rows if s == sha} for sha, _ in rows}
    assert all(len(c) == 1 for c in counts.values()), counts  # exact: one count per commit
    assert counts[shas[1]] == counts[shas[2]] != counts[shas[0]]


def test_history_bisect_goes_from_a_change_to_its_commit(run_cli, repos, tmp_path):
    """A history of commits 0, 1, 2 and 5, 6, 7 (3, 4 never measured): history check finds
    the change at 5 after 2, and history bisect names 5 (3 does not build: skipped)."""
    shas = repos["step"]
    table = tmp_path / "history.csv"
    rows = ["commit,benchmark,run,time"]
    for k in (0, 1, 2, 5, 6, 7):
        for run in range(3):
            level = 0.050 if k >= CULPRIT else 0.005
            rows.append(f"{shas[k]},prog,{run},{level * (1 + 0.01 * ((k + run) % 3 - 1))}")
    table.write_text("\n".join(rows) + "\n")
    db = tmp_path / "h.db"
    run_cli("history", "add", table, "--by", "benchmark", "--value", "time", "--unit", "s",
            "--levels", "run", "--commit-column", "commit", "--db", db, expect=0)
    folder = repos["folder"]
    args = ["history", "bisect", "--db", db, "--benchmark", "prog", "--repo", folder / "step",
            "--build", bisect_repo.BUILD, "--command", bisect_repo.COMMAND,
            "--cache", folder / "cache", "--seed", "3", "--runs", "10", "--json"]
    _, out, err = run_cli(*args, expect=0)
    doc = json.loads(out)
    assert (doc["good"], doc["bad"]) == (shas[2], shas[CULPRIT])
    assert doc["culprit"] == shas[CULPRIT] and doc["skipped"] == [shas[BROKEN]]
    assert f"bisecting the step of prog (value, machine default) at {shas[CULPRIT]}" in err
    code, _, err = run_cli(*args[:5], "nosuch", *args[6:], expect=2)
    assert "--benchmark nosuch: no such series" in err
