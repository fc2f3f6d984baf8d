"""The history store: one transaction per add, refusals that keep what is stored."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

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


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_a_value_that_is_not_finite_is_refused(tmp_path, bad):
    """The Python API (and `history import`) refuse NaN and ±inf as the command line does:
    nothing is written, and an export never holds a token JSON does not have."""
    db = str(tmp_path / "h.db")
    with History.open_or_create(db) as h:
        h.add([commit("a")])
        with pytest.raises(InputError, match=r"commit c, benchmark 'sort', metric 'time': "
                                             r"value 3 is .*not a finite number"):
            h.add([commit("b"), commit("c", series(values=(1.0, 1.0, bad, 1.0)))])
        assert h.counts() == {"commits": 1, "series": 1, "measurements": 4}


def test_units_are_converted_to_the_stored_unit(tmp_path):
    with History.open_or_create(str(tmp_path / "h.db")) as h:
        h.add([commit("a")])
        h.add([commit("b", series(values=(1000.0, 1200.0), unit="ms"))])
        assert h.series()[0].values[4:].tolist() == [1.0, 1.2]


def test_a_series_new_in_an_add_keeps_its_first_unit_and_levels(tmp_path):
    """The rows are encoded before the write lock; a series this add creates is stored in
    the unit of its first results, and a later commit of the same add in another unit is
    converted to it, or refused (with nothing written) when its levels differ; the same
    series twice in one commit is refused."""
    with History.open_or_create(str(tmp_path / "h.db")) as h:
        h.add([commit("a"), commit("b", series(values=(1000.0, 1200.0), unit="ms"))])
        assert h.series()[0].values.tolist() == [1.0, 1.1, 0.9, 1.0, 1.0, 1.2]
        flat = SeriesData("new", "time", "m1", "s", False, (), np.array([1.0]), ())
        with pytest.raises(InputError, match="stored with levels"):
            h.add([commit("c", series("new")), commit("d", flat)])
        with pytest.raises(InputError, match="gives results of benchmark 'sort'.*twice"):
            h.add([commit("e", series(), series(values=(2.0, 2.0)))])
        assert h.counts() == {"commits": 2, "series": 1, "measurements": 6}


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
        with pytest.raises(InputError, match="'undated' has no date.*give --date"):
            h.add([commit("undated")])  # it would reorder every commit: refused
        assert [c.sha for c in h.commits()] == ["early", "late"]


def test_a_mixed_history_stays_in_the_order_of_adding(tmp_path):
    """A history an earlier benchlab mixed (some commits dated) is ordered as added, and
    takes commits with and without dates."""
    with History.open_or_create(str(tmp_path / "h.db")) as h:
        h.add([commit("late", date="2024-02-01"), commit("undated"),
               commit("early", date="2024-01-01")])
        h.add([commit("more")])
        h.add([commit("dated", date="2023-01-01")])
        assert [c.sha for c in h.commits()] == ["late", "undated", "early", "more", "dated"]


def test_dates_are_normalized_to_utc():
    assert normalize_date("2024-05-01T14:00:00+02:00") == "2024-05-01T12:00:00Z"
    assert normalize_date("2024-05-01") == "2024-05-01T00:00:00Z"


@pytest.mark.parametrize("content", [b"hello, not a database\n",
                                     b"SQLite format 3\x00" + b"\xff" * 200])
def test_a_corrupt_file_is_refused_and_left_alone(tmp_path, content):
    db = tmp_path / "h.db"
    db.write_bytes(content)
    # a file SQLite's header starts is named damaged (sqlite_file.check_header), not foreign
    with pytest.raises(InputError, match="not a benchlab history|a damaged SQLite database"):
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


def _rows_one_by_one(db: str) -> dict:
    """An independent reader: every row (a series' results of one commit) decoded on its
    own (struct for the values, json for the levels), ordered by the commits' positions."""
    import json
    import struct

    conn = sqlite3.connect(db)
    with History.open(db) as h:
        order = {c.sha: i for i, c in enumerate(h.commits())}
    out = {}
    for sid, bench, machine in conn.execute("SELECT id, benchmark, machine FROM series"):
        rows = conn.execute("SELECT c.sha, r.n, r.data, r.levels FROM results r JOIN commits c "
                            "ON c.id = r.commit_id WHERE r.series = ?", (sid,)).fetchall()
        rows.sort(key=lambda r: order[r[0]])
        at, values, levels = [], [], []
        for sha, n, data, text in rows:
            at += [order[sha]] * n
            values += list(struct.unpack(f"<{n}d", data))
            per_level = json.loads(text)
            levels += [[lv[i] for lv in per_level] for i in range(n)]
        out[(bench, machine)] = (at, values, levels)
    return out


def _check_against(found, expected) -> None:
    for s in found:
        at, values, levels = expected[(s.benchmark, s.machine)]
        assert s.commit_index.tolist() == at and s.values.tolist() == values
        rows = [[str(lv[i]) for lv in s.levels] for i in range(s.values.size)]
        assert rows == levels and all(len(r) == len(s.level_names) for r in rows)


def test_series_read_as_a_row_by_row_reader_reads_them(tmp_path):
    """Mixed level counts (none, one, two), commits added out of date order, a replaced
    commit: the vectorized read gives what decoding every row on its own gives."""
    db = str(tmp_path / "h.db")
    rng = np.random.default_rng(2)
    flat = SeriesData("flat", "time", "m1", "s", False, (), rng.random(3))
    two = SeriesData("two", "time", "m2", "s", False, ("build", "run"), rng.random(4),
                     (np.array(["b1", "b1", "b2", "b2"]), np.array(["0", "1", "0", "1"])))
    with History.open_or_create(db) as h:
        h.add([commit("c", flat, two, series("sort", (3.0, 3.1)), date="2024-01-03")])
        h.add([commit("a", two, series("sort"), date="2024-01-01")])
        h.add([commit("b", flat, date="2024-01-02")])
        h.add([commit("a", series("sort", (5.0, 5.5, 5.2)), date="2024-01-01")],
              replace=True)
        assert h.counts() == {"commits": 3, "series": 3, "measurements": 3 + 4 + 2 + 4 + 3 + 3}
    with History.open(db) as h:
        found = h.series()
    assert [s.benchmark for s in found] == ["flat", "sort", "two"]
    _check_against(found, _rows_one_by_one(db))
    sort = next(s for s in found if s.benchmark == "sort")
    assert sort.commit_index.tolist() == [0, 0, 0, 2, 2] and sort.values[:3].tolist() == \
        [5.0, 5.5, 5.2]


V1 = Path(__file__).resolve().parent / "fixtures" / "history-v1.db"


def _v1_expected() -> dict:
    """What history-v1.db holds (fixtures/make_history_v1.py), read row by row from its
    schema-1 table."""
    import json

    conn = sqlite3.connect(f"file:{V1}?mode=ro&immutable=1", uri=True)
    dates = dict(conn.execute("SELECT id, date FROM commits"))
    order = {cid: i for i, cid in enumerate(sorted(dates, key=lambda c: dates[c]))}
    out = {}
    for sid, bench, machine in conn.execute("SELECT id, benchmark, machine FROM series"):
        rows = sorted(conn.execute("SELECT commit_id, position, value, levels FROM "
                                   "measurements WHERE series = ?", (sid,)),
                      key=lambda r: (order[r[0]], r[1]))
        out[(bench, machine)] = ([order[r[0]] for r in rows], [r[2] for r in rows],
                                 [json.loads(r[3]) for r in rows])
    return out


def test_a_schema_1_history_reads_as_it_is_and_migrates_when_written(tmp_path):
    """A history written before schema 2 (by the store of 3c11a07): opened to read, it is
    read in place and left at schema 1; opened to write, it is migrated in one
    transaction to one row per series and commit, reads the same, and takes new adds."""
    import shutil

    expected = _v1_expected()
    db = str(tmp_path / "h.db")
    shutil.copy(V1, db)
    with History.open(db) as h:
        assert h.version == 1
        _check_against(h.series(), expected)
        assert h.counts()["measurements"] == 20
    meta = dict(sqlite3.connect(db).execute("SELECT key, value FROM history_meta"))
    assert meta["schema_version"] == "1"
    with History.open(db, write=True) as h:
        assert h.version == 3 and h.checks() == []
        _check_against(h.series(), expected)
        h.add([commit("d", series("sort", (1.2, 1.3)), date="2024-01-04")])
        assert h.counts() == {"commits": 4, "series": 3, "measurements": 22}
    conn = sqlite3.connect(db)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "measurements" not in tables and {"results", "checks", "check_results"} <= tables
    assert dict(conn.execute("SELECT key, value FROM history_meta"))["schema_version"] == "3"
    assert _rows_one_by_one(db)[("sort", "m1")][1] == expected[("sort", "m1")][1] + [1.2, 1.3]
