"""Checks of what a store reader reads: every value it uses is validated, not trusted.

A store is a SQLite file anyone can edit (or damage): a metadata value that is
not JSON, a text where a measurement should be, a file cut short by a full
disk. Each such problem becomes one InputError naming the store, the table and
the row (`S.db: table measurements, row (trial 3, iteration 2, metric
'wall'): value is 'abc', not a number`), never a traceback and never a wrong
number passed on (`benchlab export` used to copy `abc` into its CSV).

`diagnose` looks at the file before SQLite does, so a store that cannot be
read is named for what it is: unreadable (permissions), cut short, or a
damaged SQLite database — not "not a SQLite database" when it is one.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from benchlab.errors import InputError

SQLITE_HEADER = b"SQLite format 3\x00"
HEADER_SIZE = 100


def _show(value: Any) -> str:
    """A cell's value as the message shows it: JSON spelling for JSON, else repr, cut short."""
    try:
        text = repr(value) if isinstance(value, (str, bytes)) else json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def where(table: str, row: str) -> str:
    """'table measurements, row (trial 3, ...)': the place a message names."""
    return f"table {table}, row {row}"


def parse_json(text: Any, path: str, table: str, row: str, column: str) -> Any:
    """The JSON document in one cell; a non-text cell or invalid JSON is an InputError."""
    if not isinstance(text, str):
        raise InputError(f"{where(table, row)}: {column} is {_show(text)}, not JSON text", path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where(table, row)}: {column} is not valid JSON ({exc.msg} at "
                         f"character {exc.pos + 1}: {_show(text)})", path) from None
    except RecursionError:
        raise InputError(f"{where(table, row)}: {column} is JSON nested too deeply",
                         path) from None


def _fail(path: str, table: str, row: str, column: str, value: Any, wanted: str) -> InputError:
    return InputError(f"{where(table, row)}: {column} is {_show(value)}, not {wanted}", path)


def string_list(value: Any, path: str, table: str, row: str, column: str) -> list[str]:
    """A JSON array of strings (names of factors, alternatives)."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _fail(path, table, row, column, value, "a list of names")
    return value


def metric_pairs(value: Any, path: str, table: str, row: str) -> list[tuple[str, str]]:
    """The `metrics` metadata: a JSON array of [name, unit] string pairs."""
    if not isinstance(value, list) or not all(
            isinstance(m, list) and len(m) == 2 and all(isinstance(x, str) for x in m)
            for m in value):
        raise _fail(path, table, row, "value", value, "a list of [metric, unit] pairs")
    return [(m[0], m[1]) for m in value]


def factor_levels(value: Any, path: str, table: str, row: str) -> dict[str, list[str]]:
    """The `factor_levels` metadata: a JSON object of factor name → list of level names."""
    if not isinstance(value, dict) or not all(
            isinstance(v, list) and all(isinstance(x, str) for x in v) for v in value.values()):
        raise _fail(path, table, row, "value", value, "an object of factor → list of levels")
    return value


def factor_items(value: Any, path: str, table: str, row: str) -> tuple[tuple[str, str], ...]:
    """A trial's `factors`: a JSON object of factor name → level name (text)."""
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise _fail(path, table, row, "factors", value, "an object of factor → level")
    return tuple(value.items())


def text(value: Any, path: str, table: str, row: str, column: str) -> str:
    """A text cell (names, metric, unit)."""
    if not isinstance(value, str):
        raise _fail(path, table, row, column, value, "text")
    return value


def integer(value: Any, path: str, table: str, row: str, column: str) -> int:
    """An integer cell (build, execution, iteration, trial numbers, warm-up flags)."""
    if type(value) is not int:
        raise _fail(path, table, row, column, value, "an integer")
    return value


def number(value: Any, path: str, table: str, row: str, column: str) -> float:
    """A finite number cell (a measurement, a wall time)."""
    if type(value) is float:
        result = value
    elif type(value) is int:
        result = float(value)
    else:
        raise _fail(path, table, row, column, value, "a number")
    if not math.isfinite(result):
        raise _fail(path, table, row, column, value, "a finite number")
    return result


def meta_text(meta: dict[Any, Any], path: str) -> None:
    """Every benchlab_meta key and value is text, and schema_version is a whole number."""
    for key, value in meta.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise _fail(path, "benchlab_meta", repr(key), "value", value, "text")
    version = meta.get("schema_version", "0")
    if not version.strip().isdigit():
        raise _fail(path, "benchlab_meta", "'schema_version'", "value", version,
                    "a whole number")


def diagnose(path: str) -> None:
    """Refuse, with an accurate message, a store file that SQLite could not read right.

    Checks, before SQLite opens it: that the file can be read (permissions), that
    its 100-byte header is whole and consistent (page size a power of two from 512
    to 65536), and that the file is as long as its header says (a store cut short
    by a full disk or an interrupted copy). A file without SQLite's header is left
    to the caller ("not a SQLite database").
    """
    try:
        with open(path, "rb") as handle:
            header = handle.read(HEADER_SIZE)
            size = os.fstat(handle.fileno()).st_size
    except FileNotFoundError:
        raise InputError("no such file", path) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a benchlab store", path) from None
    except PermissionError:
        raise InputError("permission denied: the store cannot be read (check the file's "
                         "permissions)", path) from None
    except OSError as exc:
        raise InputError(f"cannot read the store: {exc.strerror or exc}", path) from None
    if not header.startswith(SQLITE_HEADER):
        return
    if len(header) < HEADER_SIZE:
        raise InputError(f"a SQLite database cut short: {size} bytes, less than its "
                         f"{HEADER_SIZE}-byte header (was the copy interrupted?)", path)
    page_size = struct.unpack(">H", header[16:18])[0]
    page_size = 65536 if page_size == 1 else page_size
    if page_size < 512 or page_size & (page_size - 1) or header[21:24] != b"\x40\x20\x20":
        raise InputError("a damaged SQLite database: its header is corrupt", path)
    pages = struct.unpack(">I", header[28:32])[0]
    change, valid_for = header[24:28], header[92:96]
    if change == valid_for and pages and size < pages * page_size:
        raise InputError(f"a SQLite database cut short: its header says {pages * page_size} "
                         f"bytes ({pages} pages), the file has {size} (was the copy "
                         "interrupted?)", path)
    if size < page_size:
        raise InputError(f"a SQLite database cut short: {size} bytes, less than one "
                         f"{page_size}-byte page", path)


@contextmanager
def reading(path: str, table: str) -> Iterator[None]:
    """SQLite's errors while reading `table` as one InputError naming the store and table."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        raise InputError(f"a damaged SQLite database: reading table {table} failed ({exc})",
                         path) from None


def probe(path: str) -> None:
    """Open the store read-only and read its schema, as `Store.open` will: a damaged file
    (garbage after a valid header) is named as such, not as "not a benchlab store"."""
    from urllib.request import pathname2url

    try:
        conn = sqlite3.connect(f"file:{pathname2url(os.path.abspath(path))}?mode=ro",
                               uri=True, isolation_level=None, timeout=10)
    except sqlite3.Error as exc:
        raise InputError(f"cannot open the store ({exc})", path) from None
    try:
        conn.execute("SELECT name FROM sqlite_master").fetchall()
    except sqlite3.DatabaseError as exc:
        if "not a database" in str(exc):
            raise InputError("a damaged SQLite database: SQLite cannot read it (file is not "
                             "a database) although its header is SQLite's", path) from None
        raise InputError(f"a damaged SQLite database ({exc})", path) from None
    finally:
        conn.close()


def open_for_reading(path: str):
    """`Store.open(path)` for a reader, after `diagnose` and `probe` (accurate messages)."""
    from benchlab.runner.store import Store

    diagnose(path)
    with open(path, "rb") as handle:
        is_sqlite = handle.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    if is_sqlite:
        probe(path)
    return Store.open(path)
