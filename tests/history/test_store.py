"""The history store: one transaction per add, refusals that keep what is stored."""

from __future__ import annotations

import os
import sqlite3

import numpy as np
import pytest

from benchlab.errors import InputError
from benchlab.history.store import CommitResults, History, SeriesData, normalize_date


def series(bench: str = "sort", values=(1.0, 1.1, 0.9, 1.0), unit: str = "s",
           machine: str = "m1") -> SeriesData:
    runs = np.array(["0", "0", "1", "1"])[: len(values)]
    return SeriesData(bench, "time", machine, unit, False, ("run",),
                      np.asarray(values, dtype=float), (runs,))


def commit(sha: str, *parts: SeriesData, date: str | None = None,
           branch: str | None = None) -> CommitResults:
    return CommitResults(sha, date, branch, parts or (series(),))


def test_add_keeps_every_measurement_and_its_levels(tmp_path):
    db = str(tmp_path / "h.db")
    with History.open_or_create(db) as h:
        assert h.add([commit("a", series("sort"), series("parse", (2.0, 2.2)))]) == 6
        assert h.add([commit("b")]) == 4
    with History.open(db) as h:
        assert [c.sha for c in h.commits()] == ["a", "b"]
        found = {s.benchmark: s for s in h.series()}
    assert found["sort"].commit_index.tolist() == [0] * 4 + [1] * 4
    assert found["parse"].values.tolist() == [2.0, 2.2]
    assert found["sort"].levels[0].tolist() == ["0", "0", "1", "1"] * 2
    assert found["sort"].level_names == ("run",) and found["sort"].unit == "s"
    mode = sqlite3.connect(db).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_the_same_commit_twice_is_refused_unless_replace(tmp_path):
    db = str(tmp_path / "h.db")
    with History.open_or_create(db) as h:
        h.add([commit("a")])
        with pytest.raises(InputError, match="already has results.*--replace"):
            h.add([commit("a", series(values=(5.0, 5.0)))])
        assert h.series()[0].values.tolist() == [1.0, 1.1, 0.9, 1.0]
        h.add([commit("a", series(values=(5.0, 5.0)))], replace=True)
        assert h.series()[0].values.tolist() == [5.0, 5.0]
        h.add([commit("a", series(machine="m2"))])  # another machine is another series
        assert h.counts() == {"commits": 1, "series": 2, "measurements": 6}


def test_a_failing_add_writes_nothing(tmp_path):
    """One transaction per add: the second commit's unit error undoes the first commit."""
    db = str(tmp_path / "h.db")
    with History.open_or_create(db) as h:
        h.add([commit("a")])
        with pytest.raises(InputError, match="stored in s.*MB/s cannot be converted"):
            h.add([commit("b"), commit("c", series(unit="MB/s"))])
        assert h.counts() == {"commits": 1, "series": 1, "measurements": 4}


def test_units_are_converted_to_the_stored_unit(tmp_path):
    with History.open_or_create(str(tmp_path / "h.db")) as h:
        h.add([commit("a")])
        h.add([commit("b", series(values=(1000.0, 1200.0), unit="ms"))])
        assert h.series()[0].values[4:].tolist() == [1.0, 1.2]


def test_a_commit_with_another_date_is_refused(tmp_path):
    with History.open_or_create(str(tmp_path / "h.db")) as h:
        h.add([commit("a", date="2024-01-02")])
        with pytest.raises(InputError, match="stored with date 2024-01-02T00:00:00Z"):
            h.add([commit("a", series("other"), date="2024-01-03")])
        with pytest.raises(InputError, match="given twice"):
            h.add([commit("x"), commit("x", series("other"))])


def test_commits_are_ordered_by_date_when_all_have_one(tmp_path):
    with History.open_or_create(str(tmp_path / "h.db")) as h:
        h.add([commit("late", date="2024-01-31T23:30:00-00:15")])
        h.add([commit("early", date="2024-01-31T23:00:00Z")])
        assert [c.sha for c in h.commits()] == ["early", "late"]
        assert h.series()[0].commit_index.tolist() == [0] * 4 + [1] * 4
        h.add([commit("undated")])
        assert [c.sha for c in h.commits()] == ["late", "early", "undated"]


def test_dates_are_normalized_to_utc():
    assert normalize_date("2024-05-01T14:00:00+02:00") == "2024-05-01T12:00:00Z"
    assert normalize_date("2024-05-01") == "2024-05-01T00:00:00Z"


@pytest.mark.parametrize("content", [b"hello, not a database\n",
                                     b"SQLite format 3\x00" + b"\xff" * 200])
def test_a_corrupt_file_is_refused_and_left_alone(tmp_path, content):
    db = tmp_path / "h.db"
    db.write_bytes(content)
    with pytest.raises(InputError, match="not a benchlab history"):
        History.open_or_create(str(db))
    assert db.read_bytes() == content


def test_a_foreign_database_is_refused_and_left_alone(tmp_path):
    db = tmp_path / "h.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    before = db.read_bytes()
    with pytest.raises(InputError, match="without its tables"):
        History.open_or_create(str(db))
    assert db.read_bytes() == before and not os.path.exists(str(db) + "-wal")


def test_creation_leaves_no_temporary_file(tmp_path):
    History.open_or_create(str(tmp_path / "h.db")).close()
    assert sorted(p.name for p in tmp_path.iterdir() if ".partial-" in p.name) == []
