"""Crash safety: the runner killed with SIGKILL at random moments 20 times, resumed each time;
in the end every planned measurement exists exactly once, and each kill cost at most the
execution that was running (run again on resume)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from benchlab.runner.execute import process_stats

ROOT = Path(__file__).resolve().parents[2]
KILLS = 20
# trials: 2 builds x 2 alternatives x EXECUTIONS, more than the 20 kills use up, so every
# kill hits a running session (a kill lets 1-2 + its delay / ~45 ms of them finish: about
# 90 in all for the delays below, which sum to 2.7 s; about 135 if every trial took its
# 33 ms least)
EXECUTIONS = 40


@pytest.fixture
def reaper():
    """This process as the child subreaper (prctl(2), PR_SET_CHILD_SUBREAPER) while the test
    runs: what a killed runner leaves running (the command it spawned, or its spawn not yet
    exec'd) becomes this process's child, so the test can wait for it to end. A start it
    logs after the count would move that kill's loss to the next; a scan of /proc for such
    processes misses one in the middle of its execve, whose command line is empty then."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)

    def subreaper(on: bool) -> None:
        if libc.prctl(PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")

    others = _children()  # this process's children before the test (not the runner's)
    subreaper(True)
    try:
        yield lambda *waiting: _reap_orphans(others | {p.pid for p in waiting})
    finally:
        subreaper(False)
        _reap_orphans(others)


# A runner started ahead: the interpreter with benchlab's run imported (most of a start-up),
# waiting for a line on its standard input to run `benchlab ARGS`, so the next runner starts
# while the one before it runs instead of after its kill. What is killed is the same main()
# that `python -m benchlab` calls, past its imports.
AHEAD = ("import sys\nfrom benchlab.cli.main import main\nimport benchlab.cli.run, "
         "benchlab.runner.session\nsys.stdin.readline()\nraise SystemExit(main())")


PR_SET_CHILD_SUBREAPER = 36  # <linux/prctl.h>


def _children() -> set[int]:
    """The processes whose parent is this process (/proc/PID/stat's fourth field)."""
    me = os.getpid()
    return {pid for pid, fields in process_stats() if len(fields) > 1 and int(fields[1]) == me}


def _reap_orphans(others: set[int]) -> None:
    """Wait until every orphan of the killed runner has ended. When one ends, its own
    children are this process's before its end can be waited for, so the next scan sees
    them: once a scan finds none, none is left."""
    while orphans := _children() - others:
        for pid in orphans:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:  # not ours after all
                others.add(pid)


@pytest.mark.skipif(sys.platform != "linux", reason="prctl's child subreaper, /proc")
def test_sigkill_twenty_times_then_resume(tmp_path, reaper):
    exp = tmp_path / "exp.toml"
    ran = tmp_path / "ran.log"  # one line per execution started, by the command itself
    exp.write_text(textwrap.dedent(f"""
        seed = 3
        builds = 2
        executions = {EXECUTIONS}
        iterations = 2
        [measure]
        regex = 'v: (?P<v>[0-9]+)'
        [alternatives.a]
        command = ["sh", "-c", "echo a >> {ran}; sleep 0.03; echo v: 1; echo v: 2"]
        [alternatives.b]
        command = ["sh", "-c", "echo b >> {ran}; sleep 0.03; echo v: 3; echo v: 4"]
    """))
    db = tmp_path / "r.db"
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    args = ["run", str(exp), "-o", str(db), "--resume", "--quiet"]

    def ahead() -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-c", AHEAD, *args], env=env,
                                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)

    rng = np.random.default_rng(2024)
    # each kill lands at a random moment after the run has recorded a new trial (polled in
    # the store and its outcome log, not timed: on a loaded machine start-up alone may take
    # seconds), up to 0.3 s later: longer than the store's time slice between commits
    # (runner/store.py), so some kills land before the session's first commit, some after
    progress, lost, counted = [], [], 0
    following = ahead()
    try:
        for kill in range(KILLS):
            assert _started(ran) == counted  # nothing the last kill left logged a start late
            before = progress[-1] if progress else 0
            proc = following
            proc.stdin.write(b"go\n")
            proc.stdin.close()
            following = ahead() if kill + 1 < KILLS else None
            deadline = time.monotonic() + 120
            while proc.poll() is None and _recorded(db) <= before and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(float(rng.uniform(0.0, 0.3)))
            assert proc.poll() is None, "the run ended before its kill: plan more executions"
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            reaper(*filter(None, [following]))  # what the kill left running has ended: it may
            # have logged a start
            progress.append(_recorded(db))
            # executions started and not recorded (in the store or in its outcome log), so far
            counted = _started(ran)
            lost.append(counted - progress[-1])
    finally:  # a runner started ahead and never told to run: ended, not left waiting
        if following is not None and following.poll() is None:
            following.kill()
            following.wait()
    print("trials recorded after each kill:", progress, "lost so far:", lost)
    assert all(b - a <= 1 for a, b in zip([0, *lost], lost, strict=False))  # each kill: at most one
    finish = subprocess.run([sys.executable, "-m", "benchlab", *args], env=env,
                            capture_output=True, text=True, timeout=600)
    assert finish.returncode == 0, finish.stderr
    conn = sqlite3.connect(db)
    try:
        states = dict(conn.execute("SELECT status, COUNT(*) FROM trials GROUP BY status"))
        total = conn.execute("SELECT COUNT(*) FROM measurements").fetchone()[0]
        distinct = conn.execute("SELECT COUNT(*) FROM (SELECT DISTINCT trial, iteration, "
                                "metric FROM measurements)").fetchone()[0]
        per_trial = set(conn.execute("SELECT COUNT(*) FROM measurements GROUP BY trial"))
        values = dict(conn.execute("SELECT t.alternative, GROUP_CONCAT(DISTINCT m.value) FROM "
                                   "measurements m JOIN trials t ON t.seq = m.trial "
                                   "GROUP BY t.alternative"))
        sessions = conn.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]
    finally:
        conn.close()
    planned = 2 * 2 * EXECUTIONS
    assert states == {"ok": planned}
    assert total == distinct == planned * 2  # two iterations of one metric each
    assert per_trial == {(2,)}
    assert sorted(values["a"].split(",")) == ["1.0", "2.0"]
    assert sorted(values["b"].split(",")) == ["3.0", "4.0"]
    # the kills landed at different points of the plan, not all before the start
    assert progress == sorted(progress)
    assert 0 < progress[0] and len(set(progress)) == KILLS  # each kill after a new record
    assert sessions == KILLS + 1  # every killed run had started its session
    # a kill loses at most the execution that was running: it is run again on resume
    assert planned <= _started(ran) <= planned + KILLS


def _started(ran: Path) -> int:
    """Executions started so far: each command logs its start as its first act."""
    return len(ran.read_text().splitlines()) if ran.exists() else 0


def _recorded(db: Path) -> int:
    """Trials recorded so far: committed into the store, or in its outcome log (not yet
    committed). A kill between a commit and the log's truncation leaves lines whose trials
    the store already has (the resume skips them), which must not count twice."""
    import json

    try:  # the log first, then the store: a commit or replay in between moves lines from
        # the one to the other, never out of both
        lines = Path(f"{db}-outcomes").read_bytes().splitlines()
    except FileNotFoundError:  # none yet, or removed by a replay or the session's end
        lines = []
    seqs = set()
    for line in lines:
        try:
            row, _ = json.loads(line)
        except ValueError:  # a line the kill cut short: dropped on resume
            continue
        if row[0] == "ok":
            seqs.add(row[-1])
    if not db.exists():  # (connecting would create an empty file)
        return len(seqs)
    conn = sqlite3.connect(db, timeout=30)
    try:
        seqs |= {seq for (seq,) in conn.execute("SELECT seq FROM trials WHERE status = 'ok'")}
    except sqlite3.OperationalError:  # the tables are not there yet
        pass
    finally:
        conn.close()
    return len(seqs)
