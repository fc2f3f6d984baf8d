"""CSV and TSV files with a header row, in long format (one row per measurement).

`value` names the measurement column (default: a column called `value`, else
the only numeric column); `by` names the column whose values are the samples
(groups). Other columns are kept as factors so later steps (pairing, levels)
can use them. Lines starting with `#` before the header are comments.
"""

from __future__ import annotations

import csv
import functools
import gc

import numpy as np

from benchlab.data.dataset import Dataset
from benchlab.data.readers.numbers import parse_number
from benchlab.data.source import Source
from benchlab.errors import InputError, UsageError
from benchlab.units import make_unit

NAME = "table"


def _content_lines(source: Source) -> list[tuple[int, str]]:
    return [(i, line) for i, line in enumerate(source.lines, start=1)
            if line.strip() and not line.lstrip().startswith("#")]


def _delimiter(header: str) -> str | None:
    if "\t" in header:
        return "\t"
    if "," in header:
        return ","
    if ";" in header:
        return ";"
    return None


def _first_content_line(source: Source) -> str | None:
    for line in source.lines:
        if line.strip() and not line.lstrip().startswith("#"):
            return line
    return None


def sniff(source: Source) -> bool:
    """A header row: two or more delimited names, the first of which is not a number.

    A plain line such as "1476.48 # after reboot, cold cache" starts with a
    number and so stays a plain file of numbers.
    """
    header = _first_content_line(source)
    if header is None:
        return False
    delimiter = _delimiter(header)
    if delimiter is None:
        return False
    fields = [f.strip() for f in next(csv.reader([header], delimiter=delimiter))]
    first_token = header.split()[0] if header.split() else ""
    return (len(fields) >= 2 and bool(fields[0]) and parse_number(fields[0]) is None
            and parse_number(first_token) is None and not fields[0].startswith("#"))


def _choose_value_column(header: list[str], rows: list[list[str]], value: str | None,
                         by: str | None, name: str) -> str:
    if value is not None:
        if value not in header:
            raise UsageError(f"no column {value!r} (columns: {', '.join(header)})", name)
        return value
    if "value" in header:
        return "value"
    numeric = [h for j, h in enumerate(header)  # numeric in the first row, and not the groups
               if h != by and parse_number(rows[0][j].strip()) is not None]
    if len(numeric) == 1:
        return numeric[0]
    raise UsageError(
        f"say which column holds the measurements with --value (columns: {', '.join(header)})",
        name)


def _collector_paused(function):
    """Run `function` with the cyclic garbage collector paused: parsing makes millions of
    small lists and no cycles, and the collections they trigger cost more than the
    parsing itself (about 3× at 1M rows)."""

    @functools.wraps(function)
    def paused(*args, **kwargs):
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            return function(*args, **kwargs)
        finally:
            if was_enabled:
                gc.enable()

    return paused


@_collector_paused
def read(source: Source, *, value: str | None = None, by: str | None = None,
         unit: str | None = None, higher_is_better: bool | None = None,
         name: str | None = None, delimiter: str | None = None, metric: str | None = None,
         **_: object) -> Dataset:
    """Read a delimited table with a header into a Dataset (delimiter guessed unless given).

    A `metric` column names what each row measured: `metric` keeps the rows of
    one metric, and a table mixing metrics must say which (values of different
    metrics never form one sample).
    """
    content = _content_lines(source)
    if not content:
        raise InputError("empty file", source.name)
    delimiter = delimiter or _delimiter(content[0][1]) or ","
    parsed = list(csv.reader([line for _, line in content], delimiter=delimiter))
    header = [h.strip() for h in parsed[0]]
    if len(set(header)) != len(header):
        raise InputError("repeated column names in the header", f"{source.name}:{content[0][0]}")
    body = parsed[1:]
    body_lines = [n for n, _ in content[1:]]
    if not body:
        raise InputError("a header but no rows", source.name)
    for fields, line in zip(body, body_lines, strict=True):
        if len(fields) != len(header):
            raise InputError(f"{len(fields)} fields where the header has {len(header)}",
                             f"{source.name}:{line}")
    body, body_lines = _metric_rows(header, body, body_lines, metric, source.name)
    value_col = _choose_value_column(header, body, value, by, source.name)
    if by is not None and by not in header:
        raise UsageError(f"no column {by!r} for --by (columns: {', '.join(header)})",
                         source.name)
    j = header.index(value_col)
    by_column = list(zip(*body, strict=True))  # one tuple of fields per column
    numbers = plain_decimals(by_column[j])
    if numbers is None:  # not all plain decimals: parse one by one, naming a bad field's line
        numbers = np.empty(len(body))
        for i, (token, line) in enumerate(zip(by_column[j], body_lines, strict=True)):
            number = parse_number(token.strip())
            if number is None:
                raise InputError(f"{token!r} in column {value_col!r} is not a number",
                                 f"{source.name}:{line}")
            numbers[i] = number
    columns: dict[str, np.ndarray] = {}
    for k, h in enumerate(header):
        if k != j:
            columns[h] = np.char.strip(np.array(by_column[k], dtype=str)).astype(object)
    columns[value_col] = numbers
    unit_name = unit
    if unit_name is None and "unit" in columns:
        units = sorted(set(columns["unit"].tolist()))
        if len(units) > 1:
            raise InputError(f"the unit column mixes units ({', '.join(units)}); convert the "
                             "values to one unit or say which with --unit", source.name)
        unit_name = units[0]
    synthetic: tuple[str, ...] = ()
    if by is None:
        by = "sample"
        if "sample" not in header:  # a file's own "sample" column is kept as it is
            columns["sample"] = np.full(len(body), name or source.name, dtype=object)
            synthetic = ("sample",)
    factors = (by,) + tuple(h for h in header if h not in (by, value_col, "unit"))
    chosen = metric if metric is not None else (body[0][header.index("metric")].strip()
                                                 if "metric" in header else None)
    return Dataset(columns, value=value_col, factors=factors,
                   metric=chosen, unit=make_unit(unit_name, higher_is_better),
                   source=source.name, lines=np.array(body_lines, dtype=np.int64),
                   synthetic=synthetic)


_DECIMAL_BYTES = np.zeros(256, dtype=bool)
_DECIMAL_BYTES[np.frombuffer(b"0123456789.eE+- \t\x00", dtype=np.uint8)] = True


def plain_decimals(tokens: tuple[str, ...] | list[str]) -> np.ndarray | None:
    """The tokens as floats when every one is a plain decimal number, else None.

    The fast path of a numeric column: ASCII digits, sign, point and exponent
    only (no hex, inf or nan, which `parse_number` handles), converted by numpy
    in one pass; any token numpy cannot convert sends the column to the slow path.
    """
    try:
        raw = np.array(tokens, dtype=str).astype(np.bytes_)
    except UnicodeEncodeError:
        return None
    if raw.size == 0 or raw.dtype.itemsize == 0:
        return None
    codes = np.frombuffer(raw.tobytes(), dtype=np.uint8)
    if not _DECIMAL_BYTES[codes].all():
        return None
    try:
        return np.char.strip(raw).astype(np.float64)
    except ValueError:
        return None


def _metric_rows(header: list[str], body: list[list[str]], lines: list[int],
                 metric: str | None, name: str) -> tuple[list[list[str]], list[int]]:
    """The rows of the chosen metric (all rows when the table has one metric)."""
    if "metric" not in header:
        if metric is not None:
            raise UsageError(f"--metric {metric} needs a 'metric' column naming each row's "
                             f"metric (columns: {', '.join(header)})", name)
        return body, lines
    k = header.index("metric")
    found = list(dict.fromkeys(row[k].strip() for row in body))
    if metric is None:
        if len(found) > 1:
            raise UsageError(f"the table has several metrics ({', '.join(found)}); choose one "
                             "with --metric", name)
        return body, lines
    if metric not in found:
        raise UsageError(f"no rows of metric {metric!r} (metrics: {', '.join(found)})", name)
    keep = [i for i, row in enumerate(body) if row[k].strip() == metric]
    return [body[i] for i in keep], [lines[i] for i in keep]
