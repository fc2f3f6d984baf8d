"""runner/bisect_store.py: counted instructions kept beside the times, a store of schema 1
(made before they were) read as it is and upgraded when a bisect resumes it, and the
check that tells a bisect's store from any other SQLite file."""

from __future__ import annotations

import json
import sqlite3

import pytest

from benchlab import sqlite_file
from benchlab.errors import InputError
from benchlab.runner import bisect_store
from benchlab.runner.bisect_store import BisectStore, Execution

SCHEMA_1 = bisect_store.SCHEMA.replace("error TEXT, stderr_tail TEXT NOT NULL, instructions REAL,",
                                       "error TEXT, stderr_tail TEXT NOT NULL,")
SETTINGS = {"repo": "/r", "good": "a" * 40, "bad": "b" * 40, "build": "make",
            "command": "./x", "metric": "wall"}


def _schema_1_store(path) -> None:
    """A store as benchlab wrote it before schema 2: no instructions column."""
    assert SCHEMA_1 != bisect_store.SCHEMA

    def fill(conn: sqlite3.Connection) -> None:
        conn.executemany("INSERT INTO meta VALUES (?, ?)", [
            ("format", bisect_store.FORMAT), ("schema", "1"),
            ("settings", json.dumps(SETTINGS)), ("created", "2026-11-20T00:00:00Z")])
        conn.execute("INSERT INTO executions VALUES (1, 0, 0, ?, 'good', 0, 't', 0.5, 0.1, "
                     "0.0, 1000, NULL, '')", ("a" * 40,))

    sqlite_file.create(str(path), bisect_store.KIND, SCHEMA_1, fill).close()


def test_a_schema_1_store_is_read_as_it_is_and_upgraded_on_resume(tmp_path):
    path = tmp_path / "old.db"
    _schema_1_store(path)
    assert bisect_store.is_bisect_store(str(path))
    recorded = bisect_store.read(str(path))  # read-only: compare, summary, report
    assert recorded.commits is None and recorded.subjects == {}
    assert [(e.wall, e.instructions) for e in recorded.executions] == [(0.5, None)]
    with pytest.raises(ValueError, match="counted no instructions"):
        recorded.executions[0].value("instructions")
    store = BisectStore.open(str(path))  # a resume: the column added, the rows kept
    try:
        store.record_execution(Execution(1, 0, 1, "b" * 40, "bad", False, 0.6, 0.1, 0.0, 1000,
                                         None, 1234.0), "t", "")
        assert [(e.arm, e.instructions) for e in store.executions(1)] == [
            ("good", None), ("bad", 1234.0)]
        assert store.meta("schema") == str(bisect_store.SCHEMA_VERSION)
    finally:
        store.close()


def test_only_a_bisect_store_is_one(tmp_path):
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE meta (key TEXT, value TEXT)")
        conn.execute("INSERT INTO meta VALUES ('format', 'benchlab')")
    text = tmp_path / "t.txt"
    text.write_text("1\n2\n")
    assert not bisect_store.is_bisect_store(str(other))
    assert not bisect_store.is_bisect_store(str(text))
    assert not bisect_store.is_bisect_store(str(tmp_path / "missing.db"))
    with pytest.raises(InputError, match="not a benchlab bisect store"):
        bisect_store.read(str(other))
