"""A history in a real PostgreSQL server (tests/conftest.py starts one per session): the
same results as SQLite on the same data, concurrent writers that lose and duplicate
nothing, and connection errors as one line without the password."""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "history"
ADD_PAST = ("history", "add", EXAMPLES / "past.csv", "--by", "benchmark", "--value", "time",
            "--unit", "s", "--levels", "run", "--commit-column", "commit", "--date-column",
            "date")
ADD_HEAD = ("history", "add", EXAMPLES / "head.csv", "--by", "benchmark", "--value", "time",
            "--unit", "s", "--levels", "run", "--commit", "9b1e004", "--date",
            "2024-05-16T08:00:00Z", "--branch", "main")


@pytest.fixture(scope="module")
def both(postgres_server, tmp_path_factory):
    """The example history in SQLite and in PostgreSQL, added by the same commands."""
    from benchlab.cli.main import main

    sqlite = str(tmp_path_factory.mktemp("pg") / "history.db")
    url = postgres_server.database("same_results")
    for db in (sqlite, url):
        for args in (ADD_PAST, ADD_HEAD):
            assert main([str(a) for a in args] + ["--db", db]) == 0
    return sqlite, url


def _same(a, b, where: str = "") -> None:
    """Two JSON documents equal, numbers within 1e-12 relative."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), where
        for key in a:
            _same(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{where}[{i}]")
    elif isinstance(a, float) and isinstance(b, float):
        assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-300) or a == b, where
    else:
        assert a == b, where


def _document(run_cli, *args) -> dict:
    _, out, _ = run_cli(*args, expect=0)
    doc = json.loads(out)
    for key in ("argv", "inputs"):  # the envelope names the store: the one difference
        doc.pop(key)
    return doc


@pytest.mark.parametrize("command", [
    ("history", "check", "--json"),
    ("history", "show", "--json", "--benchmark", "sort"),
    ("history", "compare", "--json", "--head", "9b1e004"),
])
def test_every_command_gives_sqlites_results(run_cli, both, command):
    sqlite, url = both
    _same(_document(run_cli, *command, "--db", sqlite), _document(run_cli, *command, "--db", url))


def test_check_finds_the_examples_step_in_postgresql(run_cli, both):
    _, url = both
    doc = _document(run_cli, "history", "check", "--json", "--db", url)
    assert [(c["benchmark"], c["commit"]) for c in doc["changes"]] == [("sort", "c020")]


def test_the_store_reads_alike(both):
    """The reading functions other modules use give equal commits and series."""
    import numpy as np

    from benchlab.history.store import History

    sqlite, url = both
    with History.open(sqlite) as a, History.open(url) as b:
        assert a.commits() == b.commits() and a.counts() == b.counts()
        for x, y in zip(a.series(), b.series(), strict=True):
            assert x.key == y.key and x.unit == y.unit and x.level_names == y.level_names
            assert np.array_equal(x.commit_index, y.commit_index)
            assert np.array_equal(x.values, y.values)
            assert all(np.array_equal(p, q) for p, q in zip(x.levels, y.levels, strict=True))


def test_a_second_add_of_a_commit_is_refused_and_replace_replaces(run_cli, postgres_server):
    url = postgres_server.database("retried_job")
    run_cli(*ADD_HEAD, "--db", url, expect=0)
    _, _, err = run_cli(*ADD_HEAD, "--db", url, expect=2)
    assert err.count("\n") == 1 and "already has results of benchmark" in err
    assert "s3cret" not in err and "postgresql://bench:***@127.0.0.1" in err
    _, out, _ = run_cli(*ADD_HEAD, "--db", url, "--replace", expect=0)
    assert "(now 1 commit, 2 series)" in out
    _, out, _ = run_cli(*ADD_HEAD[:-6], "--commit", "9b1e004", "--date", "2024-05-17",
                        "--db", url, expect=2)
    from benchlab.history.store import History

    with History.open(url) as h:
        assert h.counts() == {"commits": 1, "series": 2, "measurements": 12}


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_commit_that_would_reorder_the_history_is_refused(run_cli, postgres_server,
                                                            tmp_path, backend):
    """A dateless commit into a dated history (it would turn the whole history to the
    order of adding) and a dated one into a dateless history: one line naming --date,
    exit 2, nothing written; the history's order and its change are as before."""
    if backend == "sqlite":
        dated, dateless = str(tmp_path / "d.db"), str(tmp_path / "n.db")
    else:
        dated = postgres_server.database("dated_only")
        dateless = postgres_server.database("dateless_only")
    run_cli(*ADD_PAST, "--db", dated, expect=0)
    before = _document(run_cli, "history", "check", "--json", "--db", dated)
    _, out, err = run_cli(*ADD_HEAD[:-6], "--commit", "race1", "--db", dated, expect=2)
    assert out == "" and err.count("\n") == 1, err
    assert "commit 'race1' has no date" in err and "give --date" in err
    assert _document(run_cli, "history", "check", "--json", "--db", dated) == before
    run_cli(*ADD_HEAD[:-6], "--commit", "c020", "--db", dated, "--replace", expect=0)

    run_cli(*ADD_HEAD[:-6], "--commit", "first", "--db", dateless, expect=0)
    _, out, err = run_cli(*ADD_HEAD, "--db", dateless, expect=2)
    assert out == "" and err.count("\n") == 1, err
    assert "commit '9b1e004' has a date" in err and "without --date" in err
    from benchlab.history.store import History

    with History.open(dated) as h:
        assert h.counts()["commits"] == 30 and h.commits()[0].sha == "c000"
    with History.open(dateless) as h:
        assert [c.sha for c in h.commits()] == ["first"]


def _add_at_once(commands: list[list[str]], folder: Path) -> list[tuple[int, str, str]]:
    """Run each `benchlab ARGS` in its own process, released together: forked from this
    one (benchlab, numpy and psycopg imported already, so the processes race in the
    store, not in Python's start-up); each opens its own connection. (exit code, stdout,
    stderr) per command."""
    import benchlab.history.store_postgres  # noqa: F401  (imported once, before the forks)
    from benchlab.cli.main import main

    gate_read, gate_write = os.pipe()
    pids = []
    for k, args in enumerate(commands):
        pid = os.fork()
        if pid == 0:  # the child: wait for the gate, run the command, exit with its code
            code = 3
            try:
                os.close(gate_write)
                os.read(gate_read, 1)
                for fd, name in ((1, "out"), (2, "err")):
                    target = os.open(folder / f"{k}.{name}", os.O_WRONLY | os.O_CREAT, 0o600)
                    os.dup2(target, fd)
                sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
                sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
                code = main(args)
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
        pids.append(pid)
    os.close(gate_read)
    os.close(gate_write)  # every child's read returns now: all start together
    codes = [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in pids]
    return [(code, (folder / f"{k}.out").read_text(), (folder / f"{k}.err").read_text())
            for k, code in enumerate(codes)]


def test_ten_writers_at_once_lose_and_duplicate_nothing(run_cli, postgres_server, tmp_path):
    """10 processes add at once into a new database (so they also race to create its
    tables): 8 distinct commits and a retry of two of them; the 8 are stored once each,
    the 2 retries are refused, nothing is half-written, and `history check --json` gives
    what the same commits added one by one to a SQLite file give."""
    url = postgres_server.database("ten_writers")
    shas = [f"c{k}" for k in range(8)] + ["c0", "c1"]
    commands = []
    for k, sha in enumerate(shas):
        i = int(sha[1:])  # a retry carries its commit's own results and date
        path = tmp_path / f"{k}.csv"
        path.write_text("benchmark,run,time\n" + "".join(
            f"{b},{r},{(1.05 if i >= 4 and b == 'a' else 1.0) * (1 + 0.002 * ((r + i) % 3))}\n"
            for b in ("a", "b") for r in range(3)))
        commands.append(["history", "add", str(path), "--by", "benchmark", "--value", "time",
                         "--unit", "s", "--levels", "run", "--commit", sha, "--date",
                         f"2024-05-0{i + 1}"])
    outcomes = _add_at_once([c + ["--db", url] for c in commands], tmp_path)
    codes = sorted(code for code, _, _ in outcomes)
    assert codes == [0] * 8 + [2] * 2, outcomes
    for code, out, err in outcomes:
        assert "s3cret" not in out + err
        if code == 2:
            assert err.count("\n") == 1 and "already has results" in err, err
    import psycopg

    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT COUNT(*), COUNT(DISTINCT sha) FROM commits").fetchone() \
            == (8, 8)
        assert conn.execute("SELECT COUNT(*), SUM(n) FROM results").fetchone() == (16, 48)
        assert conn.execute("SELECT COUNT(*) FROM series").fetchone() == (2,)
    sqlite = str(tmp_path / "same.db")
    for c in commands[:8]:
        run_cli(*c, "--db", sqlite, expect=0)
    check = ("history", "check", "--json", "--min-segment", "3")
    reference = _document(run_cli, *check, "--db", sqlite)
    _same(reference, _document(run_cli, *check, "--db", url))
    assert [(c["benchmark"], c["commit"]) for c in reference["changes"]] == [("a", "c4")]


@pytest.mark.parametrize("how, said", [
    ("wrong password", "password authentication failed"),
    ("missing database", 'database "no_such_db" does not exist'),
    ("closed port", "Connection refused"),
    ("empty database", "no benchlab history in this database"),
])
def test_connection_failures_are_one_line_without_the_password(run_cli, postgres_server,
                                                               how, said):
    url = {"wrong password": postgres_server.url(password="not-the-s3cret"),
           "missing database": postgres_server.url("no_such_db"),
           "closed port": postgres_server.url().replace(f":{postgres_server.port}/",
                                                        ":1/"),
           "empty database": postgres_server.database("empty")}[how]
    _, out, err = run_cli("history", "check", "--db", url, expect=2)
    assert out == "" and err.count("\n") == 1 and said in err, err
    assert "s3cret" not in err and ":***@127.0.0.1:" in err


def test_the_password_is_in_no_json(run_cli, both):
    _, url = both
    _, out, _ = run_cli("history", "check", "--json", "--db", url, expect=0)
    assert "s3cret" not in out
    assert json.loads(out)["inputs"][0]["path"].startswith("postgresql://bench:***@")


def test_without_psycopg_one_line_says_what_to_install(run_cli, monkeypatch):
    """No server needed: psycopg made unimportable."""
    monkeypatch.setitem(sys.modules, "psycopg", None)
    _, out, err = run_cli("history", "check", "--db",
                          "postgresql://u:pw123@localhost/db", expect=2)
    assert err == ('benchlab: PostgreSQL histories need psycopg 3: pip install '
                   '"benchlab[postgres]"\n')


@pytest.mark.parametrize("text, shown", [
    ("postgresql://u:pw123@h:5432/db", "postgresql://u:***@h:5432/db"),
    ("postgres://u@h/db?password=pw123&sslmode=require",
     "postgres://u@h/db?password=***&sslmode=require"),
    ("postgresql://u:p%40ss@h/db", "postgresql://u:***@h/db"),
    ("host=h password='a b' dbname=x", "host=h password=*** dbname=x"),
    ("postgresql://u@h/db", "postgresql://u@h/db"),
    ("history.db", "history.db"),
])
def test_masking(text, shown):
    from benchlab.conninfo import masked

    assert masked(text, text) == shown


def test_a_key_value_conninfo_names_the_server_as_its_url_does(run_cli, both,
                                                               postgres_server):
    """libpq's `host=... dbname=...` is a server, not a file: the same results as the URL,
    and its password masked in every message; a near miss (a word without =) is a file
    name, and its password is masked too."""
    _, url = both
    server = postgres_server
    conninfo = (f"host=127.0.0.1 port={server.port} user={server.user} "
                f"password={server.password} dbname=same_results")
    check = ("history", "check", "--json")
    _same(_document(run_cli, *check, "--db", url), _document(run_cli, *check, "--db", conninfo))
    _, out, err = run_cli(*check, "--db", conninfo.replace(server.password, "KvLeak55"),
                          expect=2)
    assert err.count("\n") == 1 and "password authentication failed" in err, err
    assert "KvLeak55" not in err and "password=*** dbname=same_results" in err
    _, out, err = run_cli("history", "check", "--db", "host=h dbname password=KvLeak55",
                          expect=2)
    assert err == ("benchlab: host=h dbname password=***: no such file (benchlab history "
                   "add creates it)\n")


@pytest.mark.parametrize("text, server", [
    ("host=h dbname=x", True), ("service=bench", True), ("  dbname = 'a b'  ", True),
    ("postgres://h/x", True), ("history.db", False), ("a=b", False),
    ("runs/host=1.db", False), ("host=h dbname", False),
])
def test_what_names_a_server(text, server):
    from benchlab.conninfo import is_server

    assert is_server(text) is server


def test_export_and_import_move_a_history_both_ways(run_cli, both, postgres_server, tmp_path):
    """SQLite -> file -> PostgreSQL -> file -> SQLite: the files' commits and series are
    the same lines, and check gives the same document on all three."""
    sqlite, _ = both
    url = postgres_server.database("imported")
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    back = str(tmp_path / "back.db")
    run_cli("history", "export", "--db", sqlite, "-o", first, expect=0)
    _, out, _ = run_cli("history", "import", first, "--db", url, expect=0)
    assert out.startswith("imported 372 measurements of 2 series and 31 commits")
    run_cli("history", "export", "--db", url, "-o", second, expect=0)
    a, b = first.read_text().splitlines(), second.read_text().splitlines()
    assert a[1:] == b[1:] and json.loads(b[0])["source"].startswith("postgresql://bench:***@")
    assert "s3cret" not in second.read_text()
    run_cli("history", "import", second, "--db", back, expect=0)
    check = ("history", "check", "--json")
    reference = _document(run_cli, *check, "--db", sqlite)
    for db in (url, back):
        _same(reference, _document(run_cli, *check, "--db", db))
    _, _, err = run_cli("history", "import", first, "--db", url, expect=2)
    assert "already has results" in err and err.count("\n") == 1
    run_cli("history", "import", first, "--db", url, "--replace", expect=0)


def test_a_database_with_other_tables_of_those_names_is_left_alone(run_cli, postgres_server):
    import psycopg

    url = postgres_server.database("foreign")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE commits (x INTEGER)")
    _, _, err = run_cli(*ADD_HEAD, "--db", url, expect=2)
    assert "tables named as a history's (commits) but no benchlab history" in err
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT COUNT(*) FROM pg_tables WHERE schemaname = 'public'"
                            ).fetchone() == (1,)


def test_a_sql_ascii_database_reads_as_text(run_cli, postgres_server):
    """A database created with ENCODING 'SQL_ASCII' (an old cluster's default) still gives
    text, not bytes: benchlab asks for UTF-8 on the connection."""
    import psycopg

    with psycopg.connect(postgres_server.url(), autocommit=True) as conn:
        conn.execute('DROP DATABASE IF EXISTS "ascii"')
        conn.execute("CREATE DATABASE ascii ENCODING 'SQL_ASCII' TEMPLATE template0 "
                     "LC_COLLATE 'C' LC_CTYPE 'C'")
    url = postgres_server.url("ascii")
    run_cli(*ADD_HEAD, "--db", url, expect=0)
    run_cli(*ADD_HEAD, "--db", url, "--replace", expect=0)
    _, out, _ = run_cli("history", "show", "--db", url, expect=0)
    assert "sort" in out and "parse" in out


def test_a_crash_report_hides_the_password(run_cli, monkeypatch, tmp_path):
    """No server needed: a bug while the URL is in the command line and the error."""
    from benchlab.history.store import History

    def boom(*args, **kwargs):
        raise RuntimeError("lost postgresql://u:pw123@h/db")

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(History, "open", boom)
    _, _, err = run_cli("history", "check", "--db", "postgresql://u:pw123@h/db", expect=3)
    saved = list((tmp_path / "benchlab" / "crashes").iterdir())
    assert "internal error" in err and "pw123" not in err and len(saved) == 1
    text = saved[0].read_text()
    assert "pw123" not in text and "postgresql://u:***@h/db" in text


def test_a_file_history_needs_no_psycopg(run_cli, monkeypatch, tmp_path):
    """SQLite stays the default and needs nothing: with psycopg unimportable, add, check
    and export of a file work."""
    monkeypatch.setitem(sys.modules, "psycopg", None)
    db = str(tmp_path / "h.db")
    run_cli(*ADD_HEAD, "--db", db, expect=0)
    run_cli("history", "check", "--db", db, expect=0)
    run_cli("history", "export", "--db", db, "-o", tmp_path / "h.jsonl", expect=0)


def test_libpq_environment_gives_what_the_url_leaves_out(run_cli, both, postgres_server,
                                                        monkeypatch):
    """The URL goes to libpq as it is: the password from PGPASSWORD, the database from
    PGDATABASE (`postgresql://USER@HOST:PORT` names none)."""
    monkeypatch.setenv("PGPASSWORD", postgres_server.password)
    monkeypatch.setenv("PGDATABASE", "same_results")
    _, out, err = run_cli("history", "check", "--db",
                          f"postgresql://bench@127.0.0.1:{postgres_server.port}", expect=0)
    assert out.startswith("2 series over 31 commits") and "s3cret" not in out + err
