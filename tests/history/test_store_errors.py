"""The history when its file is damaged, locked, read-only or on a full disk (issue 20):
`history show`, `check` and `compare` exit 2 with one line naming the file (they exited 3
on a damaged file), reading works in a read-only directory, and a failed add keeps what
was stored."""

from __future__ import annotations

import errno
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from benchlab import sqlite_file

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "history"
READERS = (["show"], ["check"], ["compare", "--head", "c029"])


def _errors(err: str) -> list[str]:
    return [line for line in err.splitlines() if not line.startswith("benchlab: warning:")]


@pytest.fixture
def history(run_cli, tmp_path) -> Path:
    """The example history: 30 commits of two benchmarks (examples/history/past.csv)."""
    db = tmp_path / "h.db"
    run_cli("history", "add", EXAMPLE / "past.csv", "--by", "benchmark", "--value", "time",
            "--unit", "s", "--levels", "run", "--commit-column", "commit", "--date-column",
            "date", "--db", db, expect=0)
    return db


def _commits(db: Path, *, immutable: bool = False) -> int:
    """The commits in `db` (immutable: on a full disk, where SQLite has no room for the WAL
    index and no write-ahead log is left)."""
    conn = sqlite3.connect(f"file:{db}?{'immutable=1' if immutable else 'mode=ro'}", uri=True)
    try:
        return conn.execute("SELECT COUNT(*) FROM commits").fetchone()[0]
    finally:
        conn.close()


def _damage(db: Path, how: str) -> None:
    data = bytearray(db.read_bytes())
    if how == "header":
        data[16:18] = b"\x00\x03"  # page size 3
    elif how == "cut short":
        del data[8192:]
    elif how == "not SQLite":
        data = bytearray(b"commit,time\nabc,1.0\n")
    elif how == "garbage inside":  # the pages of the results table overwritten
        conn = sqlite3.connect(db)
        page = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'results'"
                            ).fetchone()[0]
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        conn.close()
        start = (page - 1) * size
        data[start:start + size] = bytes((i * 37 + 11) % 256 for i in range(size))
    db.write_bytes(bytes(data))


@pytest.mark.parametrize("how, message", [
    ("header", "a damaged SQLite database: its header is corrupt"),
    ("cut short", "a SQLite database cut short: its header says"),
    ("not SQLite", "not a benchlab history (not a SQLite database)"),
    ("garbage inside", "a damaged SQLite database: reading table results failed"),
])
def test_a_damaged_history_is_one_line_for_every_reader(run_cli, history, how, message):
    _damage(history, how)
    for argv in READERS:
        _, _, err = run_cli("history", *argv, "--db", history, expect=2)
        lines = _errors(err)
        assert len(lines) == 1 and lines[0].startswith(f"benchlab: {history}: {message}"), \
            (argv, lines)


def test_a_sqlite_file_without_the_history_tables(run_cli, tmp_path):
    db = tmp_path / "other.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    for argv in READERS:
        _, _, err = run_cli("history", *argv, "--db", db, expect=2)
        assert _errors(err) == [f"benchlab: {db}: not a benchlab history (a SQLite database "
                                "without its tables)"]


def test_a_locked_history_refuses_an_add_and_still_reads(run_cli, history, tmp_path,
                                                         monkeypatch):
    """Another process holds the write lock past the timeout: the add says so in one line
    and writes nothing; readers are not blocked (WAL)."""
    monkeypatch.setattr(sqlite_file, "BUSY_TIMEOUT", 0.3)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sqlite3, time\n"
         f"c = sqlite3.connect({str(history)!r}, isolation_level=None)\n"
         "c.execute('BEGIN IMMEDIATE'); c.execute(\"INSERT INTO history_meta VALUES "
         "('x', 'y')\"); print('locked', flush=True); time.sleep(600)"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        _, _, err = run_cli("history", "add", EXAMPLE / "head.csv", "--by", "benchmark",
                            "--value", "time", "--unit", "s", "--levels", "run", "--db",
                            history, "--commit", "new", expect=2)
        assert _errors(err) == [f"benchlab: {history}: locked by another process (waited "
                                "0.3 s for its write lock): wait for that process to finish, "
                                "or stop it, then try again"]
        run_cli("history", "show", "--db", history, expect=0)
    finally:
        holder.kill()
        holder.wait()
    assert _commits(history) == 30


def test_a_history_in_a_read_only_directory_reads(run_cli, history, read_only_copy):
    """show, check and compare read it (mode=ro, or immutable where SQLite cannot make its
    WAL index); add says in one line that it cannot write, and so does a new history."""
    folder = read_only_copy(history)
    db = folder / "h.db"
    for argv in READERS:
        _, out, _ = run_cli("history", *argv, "--db", db, expect=0)
        assert "sort" in out
    add = ["history", "add", EXAMPLE / "head.csv", "--by", "benchmark", "--value", "time",
           "--unit", "s", "--levels", "run", "--commit", "new"]
    _, _, err = run_cli(*add, "--db", db, expect=2)
    assert _errors(err) == [f"benchlab: {db}: cannot write the history: the file or its "
                            "directory is read-only (reading it works; writing needs write "
                            "permission on both)"]
    _, _, err = run_cli(*add, "--db", folder / "new.db", expect=2)
    assert _errors(err) == [f"benchlab: {folder / 'new.db'}: cannot create the history: its "
                            "directory is read-only"]
    assert not (folder / "new.db").exists()


def _fill(folder: Path) -> None:
    """Write into `folder` until its file system has no room left."""
    try:
        with open(folder / "fill", "ab") as handle:
            while True:
                handle.write(b"\0" * 4096)
                handle.flush()
    except OSError as exc:
        assert exc.errno == errno.ENOSPC, exc


def test_an_add_on_a_full_disk_keeps_the_history(run_cli, history, small_filesystem):
    """A real 1 MiB file system filled before an add of 30 commits: one line, exit 2, the
    30 stored commits still read; after space is freed the same add succeeds."""
    db = small_filesystem / "h.db"
    shutil.copy(history, db)
    _fill(small_filesystem)
    bulk = tmp_table(small_filesystem.parent)
    add = ["history", "add", bulk, "--value", "time", "--unit", "s", "--commit-column",
           "commit", "--date-column", "date", "--db", db]
    _, _, err = run_cli(*add, expect=2)
    assert _errors(err) == [f"benchlab: disk full while writing {db}; nothing was lost; free "
                            "space and add again (this add wrote nothing)"]
    wal = Path(f"{db}-wal")
    assert (not wal.exists() or wal.stat().st_size == 0) and _commits(db, immutable=True) == 30
    run_cli("history", "show", "--db", db, expect=0)
    (small_filesystem / "fill").unlink()
    run_cli(*add, expect=0)
    assert _commits(db) == 60


def tmp_table(folder: Path) -> Path:
    """A table of 30 new commits, 40 values each (enough pages to need new space)."""
    path = folder / "bulk.csv"
    path.write_text("commit,date,time\n" + "".join(
        f"n{c:02d},2024-06-01T{c // 2:02d}:{30 * (c % 2):02d}:00Z,{1 + v / 100}\n"
        for c in range(30) for v in range(40)))
    return path


class _FullAtCommit(sqlite_file.transaction):
    """A transaction whose commit finds no room (SQLITE_FULL), injected at the write."""

    def __exit__(self, kind, value, tb) -> None:
        if kind is None:
            self.conn.execute("ROLLBACK")
            raise sqlite3.OperationalError("database or disk is full")
        super().__exit__(kind, value, tb)


def test_a_full_disk_injected_at_the_add(run_cli, history, monkeypatch):
    """Where no file system can be filled: SQLITE_FULL at the add's commit."""
    monkeypatch.setattr("benchlab.history.store_sqlite.transaction", _FullAtCommit)
    _, _, err = run_cli("history", "add", tmp_table(history.parent), "--value", "time",
                        "--unit", "s", "--commit-column", "commit", "--date-column", "date",
                        "--db", history, expect=2)
    assert _errors(err) == [f"benchlab: disk full while writing {history}; nothing was lost; "
                            "free space and add again (this add wrote nothing)"]
    assert _commits(history) == 30
