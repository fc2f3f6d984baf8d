"""Crash safety of the history: concurrent `history add`s lose nothing, and an add killed
with SIGKILL at any moment leaves all of its commits or none (one transaction)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def _add(db: Path, data: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "benchlab", "history", "add", str(data), "--db", str(db),
            "--unit", "s", *extra]


def _commits(db: Path) -> dict[str, int]:
    """Measurements per commit in the history (empty when the file does not exist yet)."""
    if not db.exists():
        return {}
    conn = sqlite3.connect(db)
    try:
        return dict(conn.execute("SELECT c.sha, SUM(r.n) FROM commits c JOIN results r ON "
                                 "r.commit_id = c.id GROUP BY c.sha"))
    finally:
        conn.close()


def test_concurrent_adds_to_a_new_history_lose_nothing(tmp_path):
    """Eight adds started together on a history that does not exist yet: one creates it,
    the others use it, each commit's three values are there exactly once."""
    data = tmp_path / "one.txt"
    data.write_text("1.0\n1.1\n0.9\n")
    db = tmp_path / "h.db"
    procs = [subprocess.Popen(_add(db, data, "--commit", f"c{i}"), env=ENV,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(8)]
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    assert _commits(db) == {f"c{i}": 3 for i in range(8)}
    assert not [f for f in os.listdir(tmp_path) if ".partial-" in f]


def test_sigkill_during_add_leaves_all_of_it_or_none(tmp_path):
    """Bulk adds of 40 commits each, killed at random moments: after every kill the
    history holds each add's 40 commits with all their values, or none of them."""
    db = tmp_path / "h.db"
    rng = np.random.default_rng(7)
    outcomes = []
    for attempt in range(6):
        table = tmp_path / f"t{attempt}.csv"
        rows = [f"a{attempt}-{c:02d},{v}" for c in range(40) for v in (1.0, 1.1, 0.9)]
        table.write_text("commit,time\n" + "\n".join(rows) + "\n")
        proc = subprocess.Popen(_add(db, table, "--commit-column", "commit", "--value",
                                     "time"), env=ENV, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        time.sleep(float(rng.uniform(0.2, 2.5)))
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        have = {sha: n for sha, n in _commits(db).items() if sha.startswith(f"a{attempt}-")}
        assert have in ({}, {f"a{attempt}-{c:02d}": 3 for c in range(40)}), have
        outcomes.append("kept" if have else "none")
    print("adds after each kill:", outcomes)
    done = subprocess.run(_add(db, table, "--commit-column", "commit", "--value", "time",
                               "--replace"), env=ENV, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert {sha: n for sha, n in _commits(db).items() if sha.startswith("a5-")} == {
        f"a5-{c:02d}": 3 for c in range(40)}
    check = sqlite3.connect(db)
    try:
        assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        check.close()
