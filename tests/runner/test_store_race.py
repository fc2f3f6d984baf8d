"""Two runners creating the same store at once: exactly one gets it, the other a one-line
error, and the store on disk keeps every measurement of the one that ran (issue 15).

The full 100-pair check with real `benchlab run` processes is validation/store_race.py."""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from benchlab.errors import UsageError
from benchlab.runner.plan import Trial
from benchlab.runner.store import Store

ROOT = Path(__file__).resolve().parents[2]


def _plan(n: int) -> list[Trial]:
    return [Trial(i, i, "measure", "a", (), 1, i, False) for i in range(1, n + 1)]


def _create(path: str, barrier, results) -> None:
    barrier.wait()
    try:
        store = Store.create(path, {"who": str(os.getpid())}, _plan(200))
    except UsageError as exc:
        results.put(("refused", str(exc)))
        return
    results.put(("created", str(os.getpid())))
    store.close()


@pytest.mark.skipif(sys.platform != "linux", reason="fork start method and flock semantics")
def test_simultaneous_create_one_wins_every_time(tmp_path):
    ctx = multiprocessing.get_context("fork")
    for attempt in range(20):
        path = str(tmp_path / f"s{attempt}.db")
        barrier, results = ctx.Barrier(2), ctx.Queue()
        procs = [ctx.Process(target=_create, args=(path, barrier, results)) for _ in range(2)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(120)  # ceilings: a loaded machine may take seconds to fork and commit
        outcomes = sorted(results.get(timeout=120) for _ in procs)
        assert [o[0] for o in outcomes] == ["created", "refused"], outcomes
        assert "exists" in outcomes[1][1] and "\n" not in outcomes[1][1]
        conn = sqlite3.connect(path)
        try:
            who = conn.execute("SELECT value FROM benchlab_meta WHERE key = 'who'").fetchone()
            assert who[0] == outcomes[0][1]  # the store on disk is the winner's
            assert conn.execute("SELECT COUNT(*) FROM trials").fetchone()[0] == 200
        finally:
            conn.close()
        assert sorted(os.listdir(tmp_path)) == sorted(
            f"s{i}.db" for i in range(attempt + 1))  # no partial files left


def test_store_lock_is_held_by_descriptor_after_create(tmp_path):
    path = str(tmp_path / "s.db")
    store = Store.create(path, {}, _plan(3))
    try:
        with pytest.raises(UsageError, match="being written by another benchlab run"):
            Store.open(path, write=True)
    finally:
        store.close()
    Store.open(path, write=True).close()  # released with the store


def test_create_in_missing_directory_is_one_line(tmp_path):
    with pytest.raises(UsageError, match="does not exist"):
        Store.create(str(tmp_path / "missing" / "x.db"), {}, _plan(1))


def test_two_real_runners_started_together(tmp_path):
    exp = tmp_path / "exp.toml"
    exp.write_text(textwrap.dedent("""
        seed = 1
        executions = 8
        [measure]
        regex = 'v: (?P<v>[0-9]+)'
        [alternatives.a]
        command = ["sh", "-c", "echo v: 1"]
    """))  # one alternative: the winner's analysis is a summary, not a paired comparison
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for attempt in range(3):
        db = tmp_path / f"r{attempt}.db"
        argv = [sys.executable, "-m", "benchlab", "run", str(exp), "-o", str(db), "--quiet"]
        procs = [subprocess.Popen(argv, env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for _ in range(2)]
        done = [(p.wait(60), *p.communicate()) for p in procs]
        codes = sorted(code for code, _, _ in done)
        assert codes == [0, 2], done
        loser_err = next(err for code, _, err in done if code == 2)
        assert loser_err.count("\n") == 1 and loser_err.startswith("benchlab: ")
        conn = sqlite3.connect(db)
        try:
            assert conn.execute("SELECT COUNT(*) FROM measurements").fetchone()[0] == 8
        finally:
            conn.close()
