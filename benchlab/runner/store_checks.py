"""Checks of what a store reader reads: every value it uses is validated, not trusted.

A store is a SQLite file anyone can edit (or damage): a metadata value that is
not JSON, a text where a measurement should be, a file cut short by a full
disk. Each such problem becomes one InputError naming the store, the table and
the row (`S.db: table measurements, row (trial 3, iteration 2, metric
'wall'): value is 'abc', not a number`), never a traceback and never a wrong
number passed on (`benchlab export` used to copy `abc` into its CSV).

The file itself (permissions, a header cut short or corrupt, SQLite's own
errors) is checked by benchlab/sqlite_file.py when the store is opened.
"""

from __future__ import annotations

import json
import math
from typing import Any

from benchlab.errors import InputError


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


def fail(path: str, table: str, row: str, column: str, value: Any, wanted: str) -> InputError:
    return InputError(f"{where(table, row)}: {column} is {_show(value)}, not {wanted}", path)


def string_list(value: Any, path: str, table: str, row: str, column: str) -> list[str]:
    """A JSON array of strings (names of factors, alternatives)."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise fail(path, table, row, column, value, "a list of names")
    return value


def metric_pairs(value: Any, path: str, table: str, row: str) -> list[tuple[str, str]]:
    """The `metrics` metadata: a JSON array of [name, unit] string pairs."""
    if not isinstance(value, list) or not all(
            isinstance(m, list) and len(m) == 2 and all(isinstance(x, str) for x in m)
            for m in value):
        raise fail(path, table, row, "value", value, "a list of [metric, unit] pairs")
    return [(m[0], m[1]) for m in value]


def factor_levels(value: Any, path: str, table: str, row: str) -> dict[str, list[str]]:
    """The `factor_levels` metadata: a JSON object of factor name → list of level names."""
    if not isinstance(value, dict) or not all(
            isinstance(v, list) and all(isinstance(x, str) for x in v) for v in value.values()):
        raise fail(path, table, row, "value", value, "an object of factor → list of levels")
    return value


def factor_items(value: Any, path: str, table: str, row: str) -> tuple[tuple[str, str], ...]:
    """A trial's `factors`: a JSON object of factor name → level name (text)."""
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise fail(path, table, row, "factors", value, "an object of factor → level")
    return tuple(value.items())


def text(value: Any, path: str, table: str, row: str, column: str) -> str:
    """A text cell (names, metric, unit)."""
    if not isinstance(value, str):
        raise fail(path, table, row, column, value, "text")
    return value


def integer(value: Any, path: str, table: str, row: str, column: str) -> int:
    """An integer cell (build, execution, iteration, trial numbers, warm-up flags)."""
    if type(value) is not int:
        raise fail(path, table, row, column, value, "an integer")
    return value


def number(value: Any, path: str, table: str, row: str, column: str) -> float:
    """A finite number cell (a measurement, a wall time)."""
    if type(value) is float:
        result = value
    elif type(value) is int:
        result = float(value)
    else:
        raise fail(path, table, row, column, value, "a number")
    if not math.isfinite(result):
        raise fail(path, table, row, column, value, "a finite number")
    return result


def meta_text(meta: dict[Any, Any], path: str) -> None:
    """Every benchlab_meta key and value is text, and schema_version is a whole number."""
    for key, value in meta.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise fail(path, "benchlab_meta", repr(key), "value", value, "text")
    version = meta.get("schema_version", "0")
    if not version.strip().isdigit():
        raise fail(path, "benchlab_meta", "'schema_version'", "value", version,
                    "a whole number")
