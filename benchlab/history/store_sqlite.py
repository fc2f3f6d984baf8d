"""A history in one SQLite file (WAL), through sqlite_file.py: the default backend.

The file is created as the runner's store is (sqlite_file.create): built under a
temporary name, locked through its descriptor and published with link(2), so it is
complete from the moment its name exists. A write is one BEGIN IMMEDIATE transaction
(SQLite's one writer at a time); WAL with synchronous=NORMAL survives the death of the
process, and a power cut may lose the last add, never corrupt the file.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from benchlab import sqlite_file
from benchlab.conninfo import masked
from benchlab.errors import InputError, UsageError
from benchlab.history.schema import FORMAT, SCHEMA_VERSION, SQLITE, schema
from benchlab.sqlite_file import timestamp, transaction

HISTORY = sqlite_file.Kind("history", "free space and add again (this add wrote nothing)")
SCHEMA_SCRIPT = ";\n".join(schema(SQLITE)) + ";\n"


class SqliteDatabase:
    """An open history file: `Database` over one autocommit sqlite3 connection."""

    dialect = SQLITE

    def __init__(self, conn: sqlite3.Connection, path: str, tables: set[str]) -> None:
        self.conn, self.where, self._tables = conn, path, tables

    def execute(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        return self.conn.execute(sql, params)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        self.conn.executemany(sql, rows)

    def insert(self, sql: str, params: Sequence[Any]) -> int:
        return self.conn.execute(sql, params).lastrowid

    def tables(self) -> set[str]:
        return set(self._tables)

    @contextmanager
    def write(self) -> Iterator[None]:
        with sqlite_file.writing(self.where, HISTORY), transaction(self.conn):
            yield

    def reading(self, table: str):
        return sqlite_file.reading(self.where, HISTORY, table)

    def prepare_write(self) -> None:
        with sqlite_file.writing(self.where, HISTORY):
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")

    def close(self) -> None:
        self.conn.close()


def connect(path: str, *, write: bool, create: bool = False) -> SqliteDatabase:
    """The history file at `path` (created empty first with `create`); a one-line
    InputError when it is missing or not a SQLite database."""
    if create and not os.path.lexists(path):
        _create(path)
    if not os.path.exists(path):
        raise InputError("no such file (benchlab history add creates it)", masked(path))
    conn, tables = sqlite_file.connect(path, HISTORY, write=write)
    return SqliteDatabase(conn, path, tables)


def _create(path: str) -> None:
    """An empty history at `path`, built aside and published whole (sqlite_file.create);
    when another process creates it first, theirs is kept."""
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise UsageError(f"cannot create the history: directory {masked(parent)} does not "
                         "exist", masked(path))

    def fill(conn: sqlite3.Connection) -> None:
        conn.executemany("INSERT INTO history_meta VALUES (?, ?)",
                         [("format", FORMAT), ("schema_version", str(SCHEMA_VERSION)),
                          ("created", timestamp())])

    try:
        sqlite_file.create(path, HISTORY, SCHEMA_SCRIPT, fill).close()
    except FileExistsError:
        pass  # another process published its history first: that one is used
