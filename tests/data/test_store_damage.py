"""A damaged or hand-edited store gives one line naming the store, table and row (issue 15).

Every reader of a store (compare/summary through the store reader, export, env)
validates what it reads: metadata JSON, a trial's factors, measurement values.
A file cut short or with garbage after SQLite's header is named for what it is.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from benchlab import sqlite_file
from benchlab.cli.main import main
from benchlab.errors import InputError
from benchlab.runner.store import STORE, Store

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "experiments" / "loop.db"


def _copy(tmp_path: Path, sql: str | None = None) -> str:
    path = tmp_path / "s.db"
    shutil.copy(EXAMPLE, path)
    if sql is not None:
        conn = sqlite3.connect(path)
        conn.execute(sql)
        conn.commit()
        conn.close()
    return str(path)


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


MEASURED_TRIAL = ("(SELECT trial FROM measurements WHERE warmup = 0 AND trial IN "
                  "(SELECT seq FROM trials WHERE status = 'ok') LIMIT 1)")

CASES = {
    "text value": (f"UPDATE measurements SET value = 'abc' WHERE trial = {MEASURED_TRIAL} "
                   "AND iteration = 3", "table measurements, row (trial ",
                   "value is 'abc', not a number"),
    "blob value": (f"UPDATE measurements SET value = x'00ff' WHERE trial = {MEASURED_TRIAL}",
                   "table measurements", "not a number"),
    "factors meta not JSON": ("UPDATE benchlab_meta SET value = 'nope' WHERE key = 'factors'",
                              "table benchlab_meta, row 'factors'", "not valid JSON"),
    "metrics meta wrong shape": ("UPDATE benchlab_meta SET value = '[[1]]' WHERE key = "
                                 "'metrics'", "row 'metrics'", "[metric, unit] pairs"),
    "alternatives meta not a list": ("UPDATE benchlab_meta SET value = '{}' WHERE key = "
                                     "'alternatives'", "row 'alternatives'", "list of names"),
    "factor_levels meta cut": ("UPDATE benchlab_meta SET value = '{\"n\": [' WHERE key = "
                               "'factor_levels'", "row 'factor_levels'", "not valid JSON"),
    "trial factors not JSON": (f"UPDATE trials SET factors = '{{bad' WHERE seq = "
                               f"{MEASURED_TRIAL}", "table trials, row seq ", "not valid JSON"),
    "trial factor not text": (f"UPDATE trials SET factors = '{{\"n\": 5}}' WHERE seq = "
                              f"{MEASURED_TRIAL}", "table trials, row seq ", '{"n": 5}'),
    "schema version not a number": ("UPDATE benchlab_meta SET value = 'x' WHERE key = "
                                    "'schema_version'", "row 'schema_version'", "whole number"),
}


@pytest.mark.parametrize("command", ["summary", "compare", "export"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_cells_are_one_line_naming_table_and_row(tmp_path, capsys, command, case):
    sql, place, problem = CASES[case]
    store = _copy(tmp_path, sql)
    out_csv = tmp_path / "out.csv"
    argv = {"summary": ["summary", store], "compare": ["compare", store],
            "export": ["export", store, "-o", str(out_csv)]}[command]
    code, _, err = _run(argv, capsys)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith(f"benchlab: {store}: ")
    assert place in err and problem in err
    assert not out_csv.exists()  # export wrote nothing, not a CSV with 'abc' in it


def test_export_of_a_sound_store_still_works(tmp_path, capsys):
    code, out, err = _run(["export", _copy(tmp_path)], capsys)
    assert code == 0 and err == ""
    assert out.startswith("alternative,n,case,build,execution,iteration,warmup,metric")


def test_env_names_a_bad_environment(tmp_path, capsys):
    store = _copy(tmp_path, "UPDATE sessions SET environment = '[1,'")
    code, _, err = _run(["env", "--store", store], capsys)
    assert code == 2 and "table sessions, row id 1: environment is not valid JSON" in err


def test_a_store_cut_short_says_so(tmp_path, capsys):
    data = EXAMPLE.read_bytes()
    path = tmp_path / "cut.db"
    path.write_bytes(data[: len(data) // 2])
    code, _, err = _run(["summary", str(path)], capsys)
    assert code == 2 and "cut short" in err and "not a SQLite database" not in err
    path.write_bytes(data[:60])
    code, _, err = _run(["export", str(path)], capsys)
    assert code == 2 and "cut short" in err and "100-byte header" in err


def test_a_checkpoint_stopped_by_a_full_disk_is_completed_from_the_log(tmp_path, capsys):
    """A full disk can stop a checkpoint after page 1 (the header's page count) was written
    but before the file grew: the write-ahead log beside it still holds every page, so the
    store reads (SQLite finishes the file from the log) instead of being called cut short."""
    import re
    import struct

    live = _copy(tmp_path)
    code, expected, _ = _run(["summary", live, "--format", "json"], capsys)
    assert code == 0
    conn = sqlite3.connect(live, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.execute("CREATE TABLE filler(x BLOB)")
    conn.executemany("INSERT INTO filler VALUES (?)", [(b"x" * 3000,)] * 40)
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    stopped = tmp_path / "stopped.db"
    shutil.copy(live, stopped)  # the file as the checkpoint left it, the log beside it
    shutil.copy(live + "-wal", str(stopped) + "-wal")
    conn.close()
    data = bytearray(stopped.read_bytes())
    assert len(data) < pages * 4096 or len(data) < pages * struct.unpack(">H", data[16:18])[0]
    data[28:32] = struct.pack(">I", pages)  # page 1 written by the checkpoint
    stopped.write_bytes(bytes(data))
    assert sqlite_file.check_header(str(stopped), STORE)
    code, out, err = _run(["summary", str(stopped), "--format", "json"], capsys)
    assert (code, err) == (0, "")
    got = out.replace(str(stopped), live)
    assert re.sub(r'"sha256": "\w+"', "", got) == re.sub(r'"sha256": "\w+"', "", expected)
    (tmp_path / "stopped.db-wal").unlink()  # without the log it is a file cut short
    code, _, err = _run(["summary", str(stopped)], capsys)
    assert code == 2 and "cut short" in err


def test_garbage_after_the_header_is_a_damaged_database(tmp_path, capsys):
    import random

    data = EXAMPLE.read_bytes()
    rng = random.Random(1)
    for keep in (100, 4096):
        path = tmp_path / f"garbage{keep}.db"
        path.write_bytes(data[:keep] + bytes(rng.randrange(256) for _ in range(len(data) - keep)))
        code, _, err = _run(["summary", str(path)], capsys)
        assert code == 2 and err.count("\n") == 1
        assert "a damaged SQLite database" in err and "not a SQLite database" not in err


def test_a_corrupt_header_is_named(tmp_path):
    data = EXAMPLE.read_bytes()
    path = tmp_path / "hdr.db"
    path.write_bytes(data[:16] + b"\x00\x03" + data[18:])  # page size 3
    with pytest.raises(InputError, match="header is corrupt"):
        sqlite_file.check_header(str(path), STORE)


def test_permission_denied_is_not_not_a_database(tmp_path, monkeypatch):
    path = _copy(tmp_path)
    real_open = open

    def refusing(name, *args, **kwargs):
        if str(name) == path:
            raise PermissionError(13, "Permission denied", name)
        return real_open(name, *args, **kwargs)

    monkeypatch.setattr("builtins.open", refusing)
    with pytest.raises(InputError, match="permission denied") as info:
        Store.open(path)
    assert "not a SQLite database" not in str(info.value)


def test_junk_appended_after_a_whole_store_is_still_read(tmp_path, capsys):
    path = tmp_path / "longer.db"
    path.write_bytes(EXAMPLE.read_bytes() + b"junk" * 100)
    code, _, err = _run(["summary", str(path)], capsys)
    assert code == 0, err
