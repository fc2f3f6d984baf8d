"""`benchlab history publish` refuses bad input in one line with exit 2: a missing, empty or
foreign database, a commit link template without {sha} or of another scheme."""

from __future__ import annotations

import sqlite3

import pytest

from tests.report.site_history import build


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_a_missing_database(tmp_path, run_cli):
    _, out, err = run_cli("history", "publish", "--db", tmp_path / "none.db", "-o",
                          tmp_path / "site", expect=2)
    assert "no such file" in _one_line(err) and not (tmp_path / "site").exists()


def test_an_empty_history(tmp_path, run_cli):
    from benchlab.history.store import History

    db = tmp_path / "empty.db"
    History.open_or_create(str(db)).close()
    _, _, err = run_cli("history", "publish", "--db", db, "-o", tmp_path / "site", expect=2)
    assert "holds no series" in _one_line(err) and not (tmp_path / "site").exists()


def test_an_empty_file_and_another_database(tmp_path, run_cli):
    empty = tmp_path / "zero.db"
    empty.write_bytes(b"")
    run_cli("history", "publish", "--db", empty, "-o", tmp_path / "a", expect=2)
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    _, _, err = run_cli("history", "publish", "--db", other, "-o", tmp_path / "b", expect=2)
    assert "not a benchlab history" in _one_line(err)


@pytest.mark.parametrize("template", ["https://example.org/commit/", "javascript:alert({sha})",
                                      "file:///etc/{sha}"])
def test_a_bad_commit_url(tmp_path, run_cli, template):
    db = tmp_path / "h.db"
    build(str(db), commits=12)
    _, _, err = run_cli("history", "publish", "--db", db, "-o", tmp_path / "site",
                        "--commit-url", template, expect=2)
    assert "--commit-url" in _one_line(err) and not (tmp_path / "site").exists()


def test_series_too_short_to_judge_are_published_with_a_note(tmp_path, run_cli):
    import json

    import numpy as np

    from benchlab.history.store import CommitResults, History, SeriesData

    db = tmp_path / "h.db"
    build(str(db), commits=12)
    with History.open(str(db), write=True) as h:
        h.add([CommitResults(f"new{i}", f"2024-02-01T00:00:0{i}Z", "main", (SeriesData(
            "young", "time", "default", "s", False, (), np.array([1.0, 1.1]), ()),) + ((
                SeriesData("once", "count", "default", "", None, (), np.array([3.0]), ()),)
                if i else ())) for i in range(2)])
    _, out, _ = run_cli("history", "publish", "--db", db, "-o", tmp_path / "site", expect=0)
    assert "published 7 series over 14 commits" in out  # one of a single commit
    assert "note: young (time, default): 2 commits;" in out
    _, out, _ = run_cli("history", "publish", "--db", db, "-o", tmp_path / "site", "--json",
                        expect=0)
    doc = json.loads(out)
    assert doc["written"] == [] and doc["kept"] == 12 and doc["seed"] == 0  # 11 + analysis
    assert doc["analysed"] == 0
    assert doc["threshold"] == 0.02 and doc["confidence"] == 0.95
    assert len(doc["notes"]) == 2 and doc["notes"][1].startswith("young (time, default)")
    page = next((tmp_path / "site" / "series").glob("young-*.html")).read_text()
    assert "2 commits; finding a change needs" in page
