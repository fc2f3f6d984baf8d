"""A history in a PostgreSQL database, through psycopg 3 (the `postgres` extra).

`--db postgresql://USER@HOST:PORT/DB` (or postgres://) is handed to libpq as it is, so
its PG* environment variables, ~/.pgpass and service file (`postgresql://?service=NAME`)
apply. psycopg is imported only here, only when such a URL is given.

Many CI runners write at once: every write is one transaction that first takes a
transaction-scoped advisory lock (pg_advisory_xact_lock), so writers go one at a time
as SQLite's do, each sees what the one before it committed, and a retried job adding the
same commit, machine and benchmark is refused (or replaced with --replace) exactly as in
SQLite; the lock is released by the commit or rollback, or by the server when a client
dies. A reader sees one snapshot (a REPEATABLE READ, read-only transaction) from its
first query to its close. Messages name the URL with its password masked (conninfo.py).

Nothing waits forever (`_limit`): where no setting of the server, database, role, URL
(`options=-c ...`) or PGOPTIONS says otherwise, a lock is waited for LOCK_TIMEOUT, a
statement runs STATEMENT_TIMEOUT, and a writer's transaction idle IDLE_TIMEOUT (a writer
frozen while holding the lock) is ended by the server. When one fires, the transaction
rolls back and the message says what was waited for and how to allow longer (`_failed`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from benchlab.conninfo import masked
from benchlab.errors import InputError, UsageError
from benchlab.history.schema import (
    BASE_TABLES,
    FORMAT,
    POSTGRES,
    RESULTS,
    SCHEMA_VERSION,
    schema,
)
from benchlab.sqlite_file import timestamp

INSTALL = 'PostgreSQL histories need psycopg 3: pip install "benchlab[postgres]"'
# The key of the advisory lock every writer of a history takes ("benchlab" in ASCII);
# advisory locks are per database, so histories in two databases do not wait on each other.
LOCK_KEY = int.from_bytes(b"benchlab", "big")
CONNECT_TIMEOUT = 10  # seconds, unless the URL or PGCONNECT_TIMEOUT says otherwise
# seconds, each unless a setting of the server, database, role, URL or PGOPTIONS says
# otherwise: the longest wait for a lock (the writers' one above all; a CI add takes well
# under a second, so 60 s is a queue of dozens), the longest statement (reading a history
# of 100 series x 1,000 commits takes about a second), and the longest a writer's
# transaction may sit idle (never, unless its process is stopped or cut off: the server
# then ends it and frees the lock for the others)
LOCK_TIMEOUT, STATEMENT_TIMEOUT, IDLE_TIMEOUT = 60, 300, 60


def _driver():
    try:
        import psycopg
    except ImportError:
        raise UsageError(INSTALL) from None
    return psycopg


def said(exc: BaseException, url: str) -> str:
    """A driver's or server's error as one line, without passwords."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    text = re.sub(r"^(connection failed|connection is bad): ", "", text)
    return masked(text, url)


class PostgresDatabase:
    """`Database` over one psycopg connection: autocommit with explicit write
    transactions for a writer, one read-only snapshot for a reader."""

    dialect = POSTGRES

    def __init__(self, conn: Any, url: str, limits: dict[str, int] | None = None,
                 sources: dict[str, str] | None = None) -> None:
        self.conn, self.url, self.where = conn, url, masked(url, url)
        self.limits = limits or {}  # the timeouts in force, in ms (0: none)
        self.sources = sources or {}  # where each was set: pg_settings' source, or OURS
        self._driver = _driver()

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self.conn.execute(sql.replace("?", "%s"), tuple(params) or None)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        with self.conn.cursor() as cur:
            cur.executemany(sql.replace("?", "%s"), [tuple(r) for r in rows])

    def insert(self, sql: str, params: Sequence[Any]) -> int:
        return self.execute(sql + " RETURNING id", params).fetchone()[0]

    def tables(self) -> set[str]:
        rows = self.execute("SELECT tablename FROM pg_catalog.pg_tables "
                            "WHERE schemaname = current_schema()").fetchall()
        return {name for (name,) in rows}

    @contextmanager
    def write(self) -> Iterator[None]:
        locking = True
        try:
            with self.conn.transaction():
                self.execute("SELECT pg_advisory_xact_lock(?)", (LOCK_KEY,))
                locking = False
                yield
        except self._driver.Error as exc:
            timed_out = self._failed(exc, writing=True, locking=locking)
            raise InputError(timed_out or f"PostgreSQL refused the write, nothing of it was "
                             f"kept: {said(exc, self.url)}", self.where) from None

    @contextmanager
    def reading(self, table: str) -> Iterator[None]:
        try:
            yield
        except self._driver.Error as exc:
            timed_out = self._failed(exc, writing=False, locking=False)
            raise InputError(timed_out or f"PostgreSQL error while reading table {table}: "
                             f"{said(exc, self.url)}", self.where) from None

    def _failed(self, exc: BaseException, *, writing: bool, locking: bool) -> str | None:
        """A timeout that fired (`exc`: lock_timeout's LockNotAvailable, statement_timeout's
        QueryCanceled) as the line a user acts on, in sqlite_file's words for a locked
        file; None for any other error. `locking`: while waiting for the writers' lock."""
        errors = self._driver.errors
        if isinstance(exc, errors.LockNotAvailable):
            setting = "lock_timeout"
        elif isinstance(exc, errors.QueryCanceled) and "statement timeout" in str(exc):
            setting = "statement_timeout"
        else:
            return None
        limit = _seconds(self.limits.get(setting, 0))
        kept = "nothing of this write was kept" if writing else "nothing was read"
        longer = _longer(setting, self.sources.get(setting, OURS), self.url)
        if locking:
            return (f"locked by another process (waited {limit} for its write lock"
                    f"{self._holder()}): wait for that process to finish, or stop it, then "
                    f"try again ({kept}; {longer})")
        if setting == "lock_timeout":
            return (f"locked by another session (waited {limit} for a lock on the "
                    f"history's tables): wait for it to finish, or stop it, then try again "
                    f"({kept}; {longer})")
        blocker = self._blocker(writing)
        why = (f"it was waiting for a lock on table {blocker}" if blocker else
               "the server is overloaded or the statement is stuck")
        return (f"PostgreSQL stopped a statement after {limit} (statement_timeout): {why} "
                f"({kept}; {longer})")

    def _blocker(self, writing: bool) -> str:
        """After a statement timeout: "T held by pid N (application, client address)" when
        another session holds a lock on the history's table T that this statement's kind
        (a read: ACCESS SHARE; a write: ROW EXCLUSIVE) waits for, else "" (none, or the
        server's views are not readable). The statement's own wait ended with it, so the
        holder is what is left to see."""
        modes = ["AccessExclusiveLock"] + (
            ["ShareLock", "ShareRowExclusiveLock", "ExclusiveLock"] if writing else [])
        try:
            if not self.conn.autocommit:  # a reader's failed snapshot: end it to ask
                self.conn.rollback()
            row = self.execute(
                "SELECT c.relname, a.pid, a.application_name, host(a.client_addr) "
                "FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
                "JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'relation' "
                "AND l.granted AND l.pid <> pg_backend_pid() AND l.mode = ANY(?) "
                "AND c.relnamespace = current_schema()::regnamespace AND l.database = "
                "(SELECT oid FROM pg_database WHERE datname = current_database()) "
                "ORDER BY c.relname LIMIT 1", (modes,)).fetchone()
        except self._driver.Error:
            return ""
        if row is None:
            return ""
        table, pid, application, address = row
        return f"{table} held by {self._session_text(pid, application, address)}"

    def _holder(self) -> str:
        """Who holds the writers' lock, as far as this role may see: ", held by pid N
        (application, client address) since HH:MM:SS UTC", or "" when it cannot be told
        (the lock was released meanwhile, or the server's views are not readable)."""
        try:
            row = self.execute(
                "SELECT a.pid, a.application_name, host(a.client_addr), "
                "to_char(a.xact_start AT TIME ZONE 'UTC', 'HH24:MI:SS') FROM pg_locks l "
                "JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' "
                "AND l.granted AND l.classid = ? AND l.objid = ? AND l.objsubid = 1 AND "
                "l.database = (SELECT oid FROM pg_database WHERE datname = "
                "current_database()) LIMIT 1",
                (LOCK_KEY >> 32, LOCK_KEY & 0xFFFFFFFF)).fetchone()
        except self._driver.Error:
            return ""
        if row is None:
            return ""
        pid, application, address, since = row
        return (f", held by {self._session_text(pid, application, address)}"
                f"{f' since {since} UTC' if since else ''}")

    def _session_text(self, pid, application, address) -> str:
        """Another server session as a message names it: "pid N (application, client
        address)", each part a user set passed through `masked` (no password in a message)."""
        who = ", ".join(masked(str(x), self.url) for x in (application, address) if x)
        return f"pid {pid}{f' ({who})' if who else ''}"

    def prepare_write(self) -> None:
        pass  # a server keeps its own log; nothing to set per connection

    def close(self) -> None:
        try:
            self.conn.close()
        except self._driver.Error:
            pass  # a connection the server dropped: nothing is left to close


def connect(url: str, *, write: bool, create: bool = False) -> PostgresDatabase:
    """The history in the database `url` names; with `create`, its tables are made when
    the database has none of them (under the writers' lock, so concurrent first adds
    create them once). Connection failures, wrong credentials and a missing database are
    one InputError naming the URL without its password."""
    import os

    psycopg = _driver()
    options: dict[str, Any] = {"autocommit": True, "application_name": "benchlab"}
    if "client_encoding" not in url and not os.environ.get("PGCLIENTENCODING"):
        options["client_encoding"] = "UTF8"  # text as str even from a SQL_ASCII database
    if "connect_timeout" not in url and not os.environ.get("PGCONNECT_TIMEOUT"):
        options["connect_timeout"] = CONNECT_TIMEOUT
    shown = masked(url, url)
    try:
        conn = psycopg.connect(url, **options)
    except psycopg.Error as exc:
        raise InputError(f"cannot connect: {said(exc, url)}", shown) from None
    except Exception as exc:  # noqa: BLE001 - an unparsable URL raises plain errors too
        raise InputError(f"cannot connect: {said(exc, url)}", shown) from None
    try:
        limits, sources = _limit(conn, write=write)
    except psycopg.Error as exc:
        conn.close()
        raise InputError(f"cannot connect: {said(exc, url)}", shown) from None
    if not write:  # one snapshot from the first query on (the limits above stay set)
        conn.autocommit = False
        conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
        conn.read_only = True
    db = PostgresDatabase(conn, url, limits, sources)
    try:
        if create and not db.tables() & (BASE_TABLES | set(RESULTS.values())):
            with db.write():  # under the writers' lock: one of many first adds creates
                _create(db)
        with db.reading("pg_tables"):
            tables = db.tables()
        if not tables & (BASE_TABLES | set(RESULTS.values())):
            raise InputError("no benchlab history in this database (benchlab history add "
                             "creates it)", shown)
        if "history_meta" not in tables:
            named = ", ".join(sorted(tables & (BASE_TABLES | set(RESULTS.values()))))
            raise InputError(f"tables named as a history's ({named}) but no benchlab history: "
                             "give benchlab its own database, or a schema "
                             "(?options=-csearch_path%3DNAME)", shown)
    except BaseException:
        db.close()
        raise
    return db


OURS = "benchlab"  # the source of a timeout benchlab set (_limit)
SOURCES = {"configuration file": "the server's configuration",
           "database": "the database's settings (ALTER DATABASE ... SET)",
           "user": "the role's settings (ALTER ROLE ... SET)",
           "database user": "the role's settings in this database (ALTER ROLE ... IN "
                            "DATABASE ... SET)"}


def _longer(setting: str, source: str, url: str) -> str:
    """How to allow a timeout longer, naming where it was set (`source`: pg_settings'
    source, or OURS). libpq takes PGOPTIONS only when the URL gives no options, and a
    client's options win over the server's, database's and role's settings."""
    import os

    from psycopg.conninfo import conninfo_to_dict

    value = "10min" if setting == "lock_timeout" else "30min"
    try:
        in_url = "options" in conninfo_to_dict(url)
    except Exception:  # noqa: BLE001 - a URL libpq took parses; be safe all the same
        in_url = False
    if in_url:
        raise_it = (f"give -c {setting}={value} in the URL's options (PGOPTIONS does not "
                    "apply when the URL gives options)")
    else:
        raise_it = f"PGOPTIONS='-c {setting}={value}'"
    if source == OURS:
        where = "benchlab's default"
    elif source == "client":
        where = ("set in the URL's options" if in_url else "set by PGOPTIONS"
                 if setting in os.environ.get("PGOPTIONS", "") else
                 "set by the connection's options")
    else:
        where = "set by " + SOURCES.get(source, f"the server ({source})")
    return f"to wait longer, raise {setting} ({where}): {raise_it}"


def _limit(conn: Any, *, write: bool) -> tuple[dict[str, int], dict[str, str]]:
    """Set benchlab's timeouts (module docstring) on this session where nothing else set
    them (pg_settings' source "default": not the server's configuration, the database's or
    role's ALTER ... SET, the URL's options nor PGOPTIONS), in one round trip; the ones
    then in force, in milliseconds (0: none), and where each was set (pg_settings'
    source, OURS for benchlab's). A writer's idle-in-transaction limit too."""
    wanted = {"lock_timeout": LOCK_TIMEOUT, "statement_timeout": STATEMENT_TIMEOUT}
    if write:
        wanted["idle_in_transaction_session_timeout"] = IDLE_TIMEOUT
    rows = conn.execute(
        "SELECT s.name, s.setting, s.source, s.source = 'default' AND "
        "set_config(s.name, w.value, false) IS NOT NULL FROM pg_settings s "
        "JOIN unnest(%s::text[], %s::text[]) AS w(name, value) ON w.name = s.name",
        (list(wanted), [f"{1000 * v}" for v in wanted.values()])).fetchall()
    return ({name: 1000 * wanted[name] if ours else int(setting)
             for name, setting, _, ours in rows},
            {name: OURS if ours else source for name, _, source, ours in rows})


def _seconds(ms: int) -> str:
    """A timeout in milliseconds as a message says it: "60 s", "1.5 s", "10 min"."""
    if ms >= 60_000 and ms % 60_000 == 0:
        return f"{ms // 60_000} min"
    return f"{ms / 1000:g} s"


def _create(db: PostgresDatabase) -> None:
    """The history's tables and marks, when the database (its current schema) has none
    of them; a database with other tables of those names is left alone and refused when
    opened."""
    tables = db.tables()
    if tables & (BASE_TABLES | set(RESULTS.values())):
        return
    for statement in schema(POSTGRES):
        db.execute(statement)
    db.executemany("INSERT INTO history_meta VALUES (?, ?)",
                   [("format", FORMAT), ("schema_version", str(SCHEMA_VERSION)),
                    ("created", timestamp())])
