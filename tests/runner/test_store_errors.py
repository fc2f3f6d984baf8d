"""A run's store when the file system or another process is in the way (issue 20): a full
disk, a lock held elsewhere, a read-only directory. Each is one line and exit 2, and
nothing recorded is lost."""

from __future__ import annotations

import errno
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from benchlab import sqlite_file


def _errors(err: str) -> list[str]:
    """Standard error without the environment's warnings (a loaded test machine)."""
    return [line for line in err.splitlines() if not line.startswith("benchlab: warning:")]


def _counts(db: Path) -> dict[str, int]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return dict(conn.execute("SELECT status, COUNT(*) FROM trials GROUP BY status"))
    finally:
        conn.close()


def _measurements(db: Path) -> int:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT COUNT(*) FROM measurements").fetchone()[0]
    finally:
        conn.close()


def _logged(db: Path) -> int:
    """Outcomes in the store's outcome log (written, not committed yet: runner/store.py)."""
    log = Path(f"{db}-outcomes")
    return len(log.read_bytes().splitlines()) if log.exists() else 0


def _experiment(tmp_path: Path, command: str = "echo v: 1") -> Path:
    exp = tmp_path / "exp.toml"
    exp.write_text(textwrap.dedent(f"""
        seed = 1
        executions = 10
        [measure]
        regex = 'v: (?P<v>[0-9]+)'
        [alternatives.a]
        command = ["sh", "-c", {command!r}]
        [alternatives.b]
        command = ["sh", "-c", "echo v: 2"]
    """).replace("'", '"'))
    return exp


def test_a_disk_that_fills_during_run_loses_nothing_and_resume_finishes(
        run_cli, tmp_path, small_filesystem):
    """A real 1 MiB file system, filled by the 7th trial's own command: the write that
    no longer fits is one line and exit 2; every trial recorded before stays (in the store,
    or in its outcome log until the store is resumed), `--resume` on the still-full disk
    says the same, and once space is freed it finishes the run, each trial once."""
    counter, fill = tmp_path / "count", small_filesystem / "fill"
    exp = _experiment(tmp_path, f"n=$(cat {counter} 2>/dev/null || echo 0); "
                                f"echo $((n+1)) > {counter}; "
                                f"if [ $n -eq 6 ]; then cat /dev/zero > {fill} 2>/dev/null; fi; "
                                "echo v: 1")
    db = small_filesystem / "s.db"
    expected = f"benchlab: disk full while writing {db}; nothing was lost; free space and " \
               "run again with --resume"
    _, _, err = run_cli("run", exp, "-o", db, "--quiet", expect=2)
    assert _errors(err) == [expected]
    before, logged = _counts(db), _logged(db)
    ok = before.get("ok", 0)
    assert ok + logged >= 7 and ok + before["planned"] == 20, (before, logged)
    assert _measurements(db) == ok
    _fill(small_filesystem)  # what SQLite freed when it closed the store is taken again
    _, _, err = run_cli("run", exp, "-o", db, "--resume", "--quiet", expect=2)
    assert _errors(err) == [expected]
    assert _counts(db).get("ok", 0) == ok and _logged(db) == logged
    for name in ("fill", "fill-more"):
        (small_filesystem / name).unlink(missing_ok=True)
    run_cli("run", exp, "-o", db, "--resume", "--quiet", expect=0)
    assert _counts(db) == {"ok": 20} and _measurements(db) == 20


def _fill(folder: Path) -> None:
    """Write into `folder` until its file system has no room left."""
    try:
        with open(folder / "fill-more", "ab") as handle:
            while True:
                handle.write(b"\0" * 4096)
                handle.flush()
    except OSError as exc:
        assert exc.errno == errno.ENOSPC, exc


class _FullAfter:
    """sqlite_file.transaction whose `n`-th and later transactions fail as SQLite does when
    the disk is full (SQLITE_FULL), injected at the write."""

    def __init__(self, n: int) -> None:
        self.n, self.entered = n, 0

    def __call__(self, conn: sqlite3.Connection):
        outer = self

        class Failing(sqlite_file.transaction):
            def __exit__(self, kind, value, tb) -> None:
                outer.entered += 1
                if kind is None and outer.entered >= outer.n:  # the commit finds no room
                    self.conn.execute("ROLLBACK")
                    raise sqlite3.OperationalError("database or disk is full")
                super().__exit__(kind, value, tb)

        return Failing(conn)


def test_a_full_disk_injected_at_the_write(run_cli, tmp_path, monkeypatch):
    """Where no file system can be filled: SQLITE_FULL injected at the 2nd transaction (the
    session's start, then the first commit of outcomes) gives the same line; the trials
    run so far are in the outcome log, and --resume puts them into the store (each once)
    and runs the rest."""
    exp = _experiment(tmp_path)
    db = tmp_path / "s.db"
    monkeypatch.setattr("benchlab.runner.store.transaction", _FullAfter(2))
    _, _, err = run_cli("run", exp, "-o", db, "--quiet", expect=2)
    assert _errors(err) == [f"benchlab: disk full while writing {db}; nothing was lost; free "
                            "space and run again with --resume"]
    assert _counts(db) == {"planned": 20} and _measurements(db) == 0
    assert 1 <= _logged(db) <= 20
    monkeypatch.undo()
    run_cli("run", exp, "-o", db, "--resume", "--quiet", expect=0)
    assert _counts(db) == {"ok": 20} and _measurements(db) == 20


@pytest.fixture
def held_lock():
    """`hold(db)`: another process holding an exclusive SQLite lock on `db` until the test
    ends."""
    procs = []

    def hold(db: Path) -> None:
        proc = subprocess.Popen(
            [sys.executable, "-c", "import sqlite3, sys, time\n"
             f"c = sqlite3.connect({str(db)!r}, isolation_level=None)\n"
             "c.execute('BEGIN EXCLUSIVE'); print('locked', flush=True); time.sleep(600)"],
            stdout=subprocess.PIPE, text=True)
        procs.append(proc)
        assert proc.stdout.readline().strip() == "locked"

    yield hold
    for proc in procs:
        proc.kill()
        proc.wait()


def test_a_locked_store_says_so_for_readers_and_resume(run_cli, tmp_path, monkeypatch,
                                                       held_lock):
    exp = _experiment(tmp_path)
    db = tmp_path / "s.db"
    run_cli("run", exp, "-o", db, "--quiet", expect=0)
    monkeypatch.setattr(sqlite_file, "BUSY_TIMEOUT", 0.3)
    held_lock(db)
    expected = [f"benchlab: {db}: locked by another process (waited 0.3 s for its write "
                "lock): wait for that process to finish, or stop it, then try again"]
    for argv in (["summary", db], ["export", db], ["run", exp, "-o", db, "--resume"]):
        _, _, err = run_cli(*argv, expect=2)
        assert _errors(err) == expected, argv


def test_a_store_in_a_read_only_directory(run_cli, tmp_path, read_only_copy):
    """Reading works; resuming an unfinished store says it cannot write, in one line."""
    exp = _experiment(tmp_path)
    db = tmp_path / "s.db"
    run_cli("run", exp, "-o", db, "--quiet", expect=0)
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("UPDATE trials SET status = 'planned' WHERE seq = (SELECT MAX(seq) FROM "
                 "trials)")
    conn.execute("DELETE FROM measurements WHERE trial = (SELECT MAX(seq) FROM trials)")
    conn.execute("UPDATE benchlab_meta SET value = 'running' WHERE key = 'status'")
    conn.close()
    folder = read_only_copy(db, exp)
    copy = folder / "s.db"
    _, out, _ = run_cli("export", copy, expect=0)
    assert len(out.splitlines()) == 20  # a header and 19 measurements
    _, _, err = run_cli("run", folder / "exp.toml", "-o", copy, "--resume", expect=2)
    assert _errors(err) == [f"benchlab: {copy}: cannot write the store: the file or its "
                            "directory is read-only (reading it works; writing needs write "
                            "permission on both)"]
