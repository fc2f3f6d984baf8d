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

    def __init__(self, conn: Any, url: str) -> None:
        self.conn, self.url, self.where = conn, url, masked(url, url)
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
        try:
            with self.conn.transaction():
                self.execute("SELECT pg_advisory_xact_lock(?)", (LOCK_KEY,))
                yield
        except self._driver.Error as exc:
            raise InputError(f"PostgreSQL refused the write, nothing of it was kept: "
                             f"{said(exc, self.url)}", self.where) from None

    @contextmanager
    def reading(self, table: str) -> Iterator[None]:
        try:
            yield
        except self._driver.Error as exc:
            raise InputError(f"PostgreSQL error while reading table {table}: "
                             f"{said(exc, self.url)}", self.where) from None

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
    options: dict[str, Any] = {"autocommit": write, "application_name": "benchlab"}
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
    if not write:
        conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
        conn.read_only = True
    db = PostgresDatabase(conn, url)
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
