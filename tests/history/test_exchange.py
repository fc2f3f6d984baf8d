"""history export/import on SQLite: the file's format, its errors as file:line, a round
trip that changes nothing (PostgreSQL's side: test_store_postgres.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "history"


@pytest.fixture
def history(run_cli, tmp_path) -> str:
    db = str(tmp_path / "h.db")
    run_cli("history", "add", EXAMPLES / "past.csv", "--by", "benchmark", "--value", "time",
            "--unit", "s", "--levels", "run", "--commit-column", "commit", "--db", db,
            expect=0)
    return db


def test_the_export_is_the_stated_format(run_cli, history, tmp_path):
    target = tmp_path / "h.jsonl"
    _, out, err = run_cli("history", "export", "--db", history, "-o", target, expect=0)
    assert out == "" and err.startswith("exported 30 commits, 2 series and 360 measurements")
    lines = [json.loads(x) for x in target.read_text().splitlines()]
    assert lines[0]["format"] == "benchlab-history-export" and lines[0]["version"] == 2
    assert [x["commit"] for x in lines[1:31]] == [f"c{k:03d}" for k in range(30)]
    series = lines[31:]
    assert [s["series"]["benchmark"] for s in series] == ["parse", "sort"]
    assert series[0]["series"]["levels"] == ["run"] and series[0]["series"]["unit"] == "s"
    first = series[0]["results"][0]
    assert first["commit"] == "c000" and len(first["values"]) == len(first["levels"][0]) == 6


def test_a_round_trip_changes_nothing(run_cli, history, tmp_path):
    copy = str(tmp_path / "copy.db")
    _, text, _ = run_cli("history", "export", "--db", history, expect=0)
    (tmp_path / "h.jsonl").write_text(text)
    run_cli("history", "import", tmp_path / "h.jsonl", "--db", copy, expect=0)
    _, again, _ = run_cli("history", "export", "--db", copy, expect=0)
    assert text.splitlines()[1:] == again.splitlines()[1:]


@pytest.mark.parametrize("body, said", [
    ('{"format": "other"}\n', "not a benchlab history export"),
    ('{"format": "benchlab-history-export", "version": 9}\n', "format version 9"),
    ('{"format": "benchlab-history-export", "version": 1}\n{"commit": "a"}\nnot json\n',
     ":3: not JSON"),
    ('{"format": "benchlab-history-export", "version": 1}\n{"series": {"benchmark": "b", '
     '"metric": "m", "machine": "x", "unit": "s", "levels": []}, "results": [{"commit": '
     '"a", "values": [1.0], "levels": []}]}\n', ":2: results of commit 'a', which no line"),
    ('{"format": "benchlab-history-export", "version": 1}\n{"commit": "a"}\n{"series": '
     '{"benchmark": "b", "metric": "m", "machine": "x", "unit": "s", "levels": ["run"]}, '
     '"results": [{"commit": "a", "values": [1.0, 2.0], "levels": [["1"]]}]}\n',
     ":3: commit 'a': \"values\" must be a non-empty list"),
])
def test_a_bad_export_is_one_line_naming_its_line(run_cli, tmp_path, body, said):
    path = tmp_path / "bad.jsonl"
    path.write_text(body)
    _, _, err = run_cli("history", "import", path, "--db", tmp_path / "h.db", expect=2)
    assert err.count("\n") == 1 and said in err, err
    assert not (tmp_path / "h.db").exists()  # read whole before the history is opened
