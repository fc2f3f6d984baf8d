"""Nothing waits forever on a PostgreSQL history: another session holding the writers'
lock, or a lock on the tables, or a statement past its limit, ends the command with one
line that says what was waited for and how to allow longer, exit 2, and nothing written
(tests/conftest.py starts the real server). The timeouts are shortened through PGOPTIONS,
as a user would lengthen them."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "history"
ADD = ("history", "add", "--by", "benchmark", "--value", "time", "--unit", "s", "--levels",
       "run")
ADD_PAST = (*ADD, EXAMPLES / "past.csv", "--commit-column", "commit", "--date-column", "date")
ADD_HEAD = (*ADD, EXAMPLES / "head.csv", "--commit", "9b1e004", "--date",
            "2024-05-16T08:00:00Z", "--branch", "main")


def _holder(url: str):
    """A second session of the test's own, as another CI job's would be."""
    import psycopg

    return psycopg.connect(url, application_name="other-job")


def _counts(url: str) -> dict[str, int]:
    from benchlab.history.store import History

    with History.open(url) as h:
        return h.counts()


@pytest.fixture
def history(run_cli, postgres_server):
    url = postgres_server.database("timeouts")
    run_cli(*ADD_PAST, "--db", url, expect=0)
    return url


def test_the_limits_are_benchlab_s_unless_a_setting_gives_them(history, monkeypatch):
    from benchlab.history.store import History

    monkeypatch.delenv("PGOPTIONS", raising=False)
    with History.open(history, write=True) as h:
        assert h.db.limits == {"lock_timeout": 60_000, "statement_timeout": 300_000,
                               "idle_in_transaction_session_timeout": 60_000}
    monkeypatch.setenv("PGOPTIONS", "-c lock_timeout=2min")
    with History.open(history) as h:  # a reader: no idle limit, its snapshot may wait
        assert h.db.limits == {"lock_timeout": 120_000, "statement_timeout": 300_000}


def test_a_held_write_lock_ends_an_add_within_its_lock_timeout(run_cli, history,
                                                                monkeypatch):
    """Another job holds the writers' lock: the add waits lock_timeout (0.5 s here, 60 s
    by default), then says so in one line naming the holder, in the words of a locked
    SQLite file, and how to wait longer; nothing of it is kept."""
    from benchlab.history.store_postgres import LOCK_KEY

    before = _counts(history)
    monkeypatch.setenv("PGOPTIONS", "-c lock_timeout=500ms")
    with _holder(history) as other:
        other.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_KEY,))
        pid = other.info.backend_pid
        start = time.monotonic()
        _, out, err = run_cli(*ADD_HEAD, "--db", history, expect=2)
        waited = time.monotonic() - start
    assert out == "" and err.count("\n") == 1, err
    assert re.fullmatch(
        r"benchlab: postgresql://bench:\*\*\*@127\.0\.0\.1:\d+/timeouts: locked by another "
        r"process \(waited 0\.5 s for its write lock, held by pid (\d+) \(other-job, "
        r"127\.0\.0\.1\) since \d\d:\d\d:\d\d UTC\): wait for that process to finish, or "
        r"stop it, then try again \(nothing of this write was kept; to wait longer, raise "
        r"lock_timeout \(set by PGOPTIONS\): PGOPTIONS='-c lock_timeout=10min'\)\n", err), err
    assert re.search(r"pid (\d+)", err).group(1) == str(pid)
    assert waited < 30  # the 0.5 s set, not the default minute (a loaded machine's slack)
    assert _counts(history) == before
    run_cli(*ADD_HEAD, "--db", history, expect=0)  # the lock is free again: it adds
    assert _counts(history)["commits"] == before["commits"] + 1


@pytest.mark.parametrize("setting, said", [
    ("statement_timeout", "PostgreSQL stopped a statement after 0.5 s (statement_timeout): "
                          "it was waiting for a lock on table results held by pid PID "
                          "(other-job, 127.0.0.1) (nothing was read; to wait longer, raise "
                          "statement_timeout (set by PGOPTIONS): "
                          "PGOPTIONS='-c statement_timeout=30min')"),
    ("lock_timeout", "locked by another session (waited 0.5 s for a lock on the history's "
                     "tables): wait for it to finish, or stop it, then try again (nothing "
                     "was read; to wait longer, raise lock_timeout (set by PGOPTIONS): "
                     "PGOPTIONS='-c lock_timeout=10min')"),
])
def test_a_reader_blocked_by_a_table_lock_stops_at_its_limit(run_cli, history, monkeypatch,
                                                             setting, said):
    """A session holds an exclusive lock on the results (as a manual ALTER or VACUUM FULL
    would): `history check` stops at whichever limit is shorter, in one line."""
    monkeypatch.setenv("PGOPTIONS", f"-c {setting}=500ms")
    with _holder(history) as other:
        other.execute("LOCK TABLE results IN ACCESS EXCLUSIVE MODE")
        said = said.replace("PID", str(other.info.backend_pid))
        _, out, err = run_cli("history", "check", "--db", history, expect=2)
    assert out == "" and err.count("\n") == 1, err
    assert err.endswith(f"/timeouts: {said}\n"), err


def test_a_limit_from_the_url_is_named_and_raised_there(run_cli, history, monkeypatch):
    """The URL's options win over PGOPTIONS (libpq takes PGOPTIONS only without them): a
    statement_timeout given in the URL is said to be set there, and the hint raises it
    there, not through PGOPTIONS (which would not apply)."""
    monkeypatch.setenv("PGOPTIONS", "-c lock_timeout=20min")
    url = history + "?options=-c%20statement_timeout%3D500ms"
    with _holder(history) as other:
        other.execute("LOCK TABLE results IN ACCESS EXCLUSIVE MODE")
        pid = other.info.backend_pid
        _, out, err = run_cli("history", "check", "--db", url, expect=2)
    assert out == "" and err.count("\n") == 1, err
    assert err.endswith(
        "PostgreSQL stopped a statement after 0.5 s (statement_timeout): it was waiting for "
        f"a lock on table results held by pid {pid} (other-job, "
        "127.0.0.1) (nothing was read; to wait longer, raise statement_timeout (set in the "
        "URL's options): give -c statement_timeout=30min in the URL's options (PGOPTIONS "
        "does not apply when the URL gives options))\n"), err


def test_a_slow_statement_without_a_lock_is_not_said_to_wait_for_one(run_cli, history,
                                                                     monkeypatch):
    """pg_sleep past statement_timeout with no lock held elsewhere: the server or the
    statement is slow, not a lock; the limit is benchlab's default when nothing set it."""
    from benchlab.history.store import History
    from benchlab.history.store_postgres import OURS, _longer

    monkeypatch.setenv("PGOPTIONS", "-c statement_timeout=300ms")
    with pytest.raises(Exception) as caught, History.open(history) as h:
        with h.db.reading("results"):
            h.db.execute("SELECT pg_sleep(5)")
    assert str(caught.value).endswith(
        "PostgreSQL stopped a statement after 0.3 s (statement_timeout): the server is "
        "overloaded or the statement is stuck (nothing was read; to wait longer, raise "
        "statement_timeout (set by PGOPTIONS): PGOPTIONS='-c statement_timeout=30min')"), \
        str(caught.value)
    assert _longer("lock_timeout", OURS, "postgresql://u@h/d") == (
        "to wait longer, raise lock_timeout (benchlab's default): "
        "PGOPTIONS='-c lock_timeout=10min'")
