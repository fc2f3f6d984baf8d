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
from dataclasses import dataclass

import numpy as np

from benchlab import progress
from benchlab.data.dataset import Dataset
from benchlab.data.readers.numbers import (
    check_range,
    checked_number,
    decimal_matrix,
    parse_number,
)
from benchlab.data.source import Source
from benchlab.errors import InputError, UsageError
from benchlab.escape import token as quoted
from benchlab.units import make_unit

NAME = "table"


def _is_content(line: str) -> bool:
    return bool(line.strip()) and not line.lstrip().startswith("#")


def _delimiter(header: str) -> str | None:
    if "\t" in header:
        return "\t"
    if "," in header:
        return ","
    if ";" in header:
        return ";"
    return None


def _fields_up_to(size: int) -> None:
    """Let the csv module read fields as long as the text (its default stops at 131,072
    characters with an error): the text is already within BENCHLAB_MAX_INPUT_MB, and a
    long name is a name, not a reason to fail."""
    if csv.field_size_limit() < size + 1:
        csv.field_size_limit(size + 1)


def _first_content_line(source: Source) -> str | None:
    for line in source.lines:
        if _is_content(line):
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
    _fields_up_to(len(header))
    fields = [f.strip() for f in next(csv.reader([header], delimiter=delimiter))]
    first_token = header.split()[0] if header.split() else ""
    return (len(fields) >= 2 and bool(fields[0]) and parse_number(fields[0]) is None
            and parse_number(first_token) is None and not fields[0].startswith("#"))


def _choose_value_column(header: list[str], first_row: list[str], value: str | None,
                         by: str | None, name: str) -> str:
    if value is not None:
        if value not in header:
            raise UsageError(f"no column {value!r} (columns: {', '.join(header)})", name)
        return value
    if "value" in header:
        return "value"
    numeric = [h for h, field in zip(header, first_row, strict=True)  # numeric in the first
               if h != by and parse_number(field.strip()) is not None]  # row, not the groups
    if len(numeric) == 1:
        return numeric[0]
    raise UsageError(
        f"say which column holds the measurements with --value (columns: {', '.join(header)})",
        name)


@dataclass
class _Table:
    """A table's fields column by column: raw bytes (the columnar path) or str objects."""

    header: list[str]
    columns: list[np.ndarray]  # dtype S (unstripped UTF-8 bytes) or object (str)
    lines: np.ndarray  # the line each row starts on

    def first_row(self) -> list[str]:
        return [_text(c[:1])[0] for c in self.columns]

    def keep(self, mask: np.ndarray) -> None:
        self.columns = [c[mask] for c in self.columns]
        self.lines = self.lines[mask]


def _text(column: np.ndarray) -> np.ndarray:
    """A column as stripped str objects; byte columns are decoded once per distinct value."""
    if column.dtype.kind != "S":
        return np.array([f.strip() for f in column.tolist()], dtype=object)
    if not column.size:
        return np.empty(0, dtype=object)
    width = column.dtype.itemsize
    if width <= 8:  # distinct values by integer keys: sorting them is several times faster
        padded = np.zeros((column.size, 8), dtype=np.uint8)
        padded[:, :width] = column.view(np.uint8).reshape(-1, width)
        _, first, inverse = np.unique(padded.view(np.uint64).ravel(), return_index=True,
                                      return_inverse=True)
        uniques = column[first]
    else:
        uniques, inverse = np.unique(column, return_inverse=True)
    names = np.array([u.decode("utf-8").strip() for u in uniques.tolist()], dtype=object)
    return names[inverse.ravel()]


def _header(text: str, name: str) -> tuple[int, str, int]:
    """The header: its line number, its text, and the offset in the text where the body
    starts."""
    offset, number = 0, 1
    while offset < len(text):
        end = text.find("\n", offset)
        end = len(text) if end < 0 else end
        line = text[offset:end]
        if _is_content(line):
            return number, line, end + 1
        offset, number = end + 1, number + 1
    raise InputError("empty file", name)


def _collector_paused(function):
    """Run `function` with the cyclic garbage collector paused: the csv path makes millions
    of small lists and no cycles, and the collections they trigger cost more than the
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
    metrics never form one sample). Plain tables (no quotes, comments or blank
    lines after the header) are split column-wise on their bytes; others go
    through the csv module, where a quoted field may hold delimiters and line
    ends (RFC 4180).
    """
    text = source.text  # None for a Source built from lines (tests, library callers)
    text = text if text is not None else "\n".join(source.lines) + "\n"
    header_line, header_text, body_start = _header(text, source.name)
    delimiter = delimiter or _delimiter(header_text) or ","
    _fields_up_to(len(text))
    header = [h.strip() for h in next(csv.reader([header_text], delimiter=delimiter))]
    if len(set(header)) != len(header):
        raise InputError("repeated column names in the header", f"{source.name}:{header_line}")
    where = (text, body_start, header_line, source.name)
    table = _columnar_body(header, delimiter, *where) or _csv_body(header, delimiter, *where)
    if not table.lines.size:
        raise InputError("a header but no rows", source.name)
    _metric_rows(table, metric, source.name)
    value_col = _choose_value_column(header, table.first_row(), value, by, source.name)
    if by is not None and by not in header:
        raise UsageError(f"no column {by!r} for --by (columns: {', '.join(header)})",
                         source.name)
    j = header.index(value_col)
    numbers = _numbers(table.columns[j], table.lines, value_col, source.name)
    columns: dict[str, np.ndarray] = {}
    for k, h in enumerate(header):
        if k != j:
            columns[h] = _text(table.columns[k])
        table.columns[k] = None  # the raw fields are no longer needed
    columns[value_col] = numbers
    unit_name = unit
    if unit_name is None and "unit" in columns:
        units = sorted(set(columns["unit"].tolist()))
        if len(units) > 1:
            raise InputError(f"the unit column mixes units ({', '.join(units)}); convert the "
                             "values to one unit or say which with --unit", source.name)
        unit_name = units[0]
    synthetic: tuple[str, ...] = ()
    rows = len(numbers)
    if by is None:
        by = "sample"
        if "sample" not in header:  # a file's own "sample" column is kept as it is
            # one name for every row: a read-only broadcast view, not a pointer per row
            columns["sample"] = np.broadcast_to(np.array([name or source.name], dtype=object),
                                                (rows,))
            synthetic = ("sample",)
    factors = (by,) + tuple(h for h in header if h not in (by, value_col, "unit"))
    chosen = metric if metric is not None else (str(columns["metric"][0])
                                                 if "metric" in header else None)
    return Dataset(columns, value=value_col, factors=factors,
                   metric=chosen, unit=make_unit(unit_name, higher_is_better),
                   source=source.name, lines=table.lines.astype(np.int64),
                   synthetic=synthetic)


def _field_count_error(count: int, width: int, where: str) -> InputError:
    return InputError(f"{count} fields where the header has {width}", where)


def _csv_body(header: list[str], delimiter: str, text: str, body_start: int,
              header_line: int, name: str) -> _Table:
    """The rows by the csv module (RFC 4180 quoting, strict): comment and blank lines are
    skipped between records, never inside a quoted field."""
    state = {"start": True, "line": header_line, "first": header_line}

    def physical_lines():
        offset = body_start
        while offset < len(text):
            end = text.find("\n", offset)
            end = len(text) if end < 0 else end
            line = text[offset:end]
            offset = end + 1
            state["line"] += 1
            if state["start"]:
                if not _is_content(line):
                    continue
                state["first"], state["start"] = state["line"], False
            yield line + "\n"

    reader = csv.reader(physical_lines(), delimiter=delimiter, strict=True)
    fields: list[list[str]] = []
    lines: list[int] = []
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise InputError(f"malformed CSV quoting ({exc}); a quoted field must end with "
                             "a quote followed by a delimiter or the line end",
                             f"{name}:{state['first']}") from None
        state["start"] = True
        if len(row) != len(header):
            raise _field_count_error(len(row), len(header), f"{name}:{state['first']}")
        fields.append(row)
        lines.append(state["first"])
    columns = [np.array(c, dtype=object) for c in zip(*fields, strict=True)] if fields else \
        [np.empty(0, dtype=object) for _ in header]
    return _Table(header, columns, np.array(lines, dtype=np.int64))


_CHUNK = 1 << 22  # characters of the body per vectorized step
# Fields wider than this (a giant name or token) go to the csv path: a fixed-width byte
# column pads every row to its widest field, and the numbers are converted byte column by
# byte column, a loop as long as the widest field.
_WIDEST_FIELD = 256


def _columnar_body(header: list[str], delimiter: str, text: str, body_start: int,
                   header_line: int, name: str) -> _Table | None:
    """The rows split on the bytes, chunk by chunk; None when the body needs the csv module
    (a quote, or a comment, blank or indented line after the header)."""
    if (len(delimiter) != 1 or not delimiter.isascii() or '"' in delimiter
            or text.find('"', body_start) >= 0):
        return None
    parts: list[list[np.ndarray]] = [[] for _ in header]
    lines: list[np.ndarray] = []
    start, line = body_start, header_line + 1
    with progress.task(f"reading {name}", len(text) - body_start) as advance:
        while start < len(text):
            stop = min(start + _CHUNK, len(text))
            if stop < len(text):
                newline = text.rfind("\n", start, stop)
                stop = newline + 1 if newline > start else len(text)
            chunk = text[start:stop].encode("utf-8")
            if not chunk.endswith(b"\n"):
                chunk += b"\n"
            found = _split_chunk(np.frombuffer(chunk, dtype=np.uint8), len(header),
                                 ord(delimiter), line, name)
            if found is None:
                return None
            for k, column in enumerate(found[0]):
                parts[k].append(column)
            lines.append(found[1])
            line += found[1].size
            advance(stop - start)
            start = stop
    if not lines:
        return _Table(header, [np.empty(0, dtype="S1") for _ in header],
                      np.empty(0, dtype=np.int64))
    return _Table(header, [np.concatenate(p) for p in parts], np.concatenate(lines))


def _split_chunk(chunk: np.ndarray, width: int, delimiter: int, first_line: int,
                 name: str) -> tuple[list[np.ndarray], np.ndarray] | None:
    """Each column's fields (dtype S) of a chunk of whole lines, and the lines' numbers."""
    newlines = np.flatnonzero(chunk == 10)
    heads = chunk[np.concatenate(([0], newlines[:-1] + 1))]  # first byte of every line
    if np.isin(heads, np.frombuffer(b"#\n \t", dtype=np.uint8)).any():
        return None  # comments, blank or indented lines: the csv path skips them by its rules
    seps = np.flatnonzero((chunk == delimiter) | (chunk == 10))
    per_line = np.diff(np.concatenate(([-1], np.searchsorted(seps, newlines))))
    bad = np.flatnonzero(per_line != width)
    if bad.size:
        raise _field_count_error(int(per_line[bad[0]]), width,
                                 f"{name}:{first_line + int(bad[0])}")
    ends = seps.reshape(-1, width)
    begins = np.empty_like(ends)
    begins.ravel()[1:] = seps[:-1] + 1
    begins.ravel()[0] = 0
    if (ends - begins).max(initial=0) > _WIDEST_FIELD:
        return None  # fixed-width bytes would pad every row to the widest field
    columns = [_gather(chunk, begins[:, k], ends[:, k]) for k in range(width)]
    return columns, first_line + np.arange(newlines.size)


def _gather(chunk: np.ndarray, begins: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Fields chunk[begins:ends] as a fixed-width byte-string array (NUL-padded)."""
    widths = ends - begins
    width = max(int(widths.max()), 1) if widths.size else 1
    matrix = np.zeros((widths.size, width), dtype=np.uint8)
    last = chunk.size - 1
    narrowest = int(widths.min()) if widths.size else 0
    for j in range(narrowest):  # every field has these bytes
        matrix[:, j] = chunk[begins + j]
    for j in range(narrowest, int(widths.max()) if widths.size else 0):
        matrix[:, j] = np.where(widths > j, chunk[np.minimum(begins + j, last)], 0)
    return matrix.view(f"S{width}").ravel()


def _numbers(column: np.ndarray, lines: np.ndarray, name: str, source: str) -> np.ndarray:
    """The value column as doubles; a bad or out-of-range field is a line-numbered error."""
    if column.dtype.kind == "S" and column.size:
        width = column.dtype.itemsize
        columns = np.ascontiguousarray(column.view(np.uint8).reshape(-1, width).T)
        try:
            numbers = decimal_matrix(columns)
        except ValueError:
            numbers = None
        if numbers is not None:
            check_range(numbers, columns, lines, source)  # "0.0" is fine, "1e-400" is not
            return numbers
        tokens = [t.decode("utf-8", "replace") for t in column.tolist()]
    else:
        tokens = column.tolist()
        fast = plain_decimals(tokens)
        if fast is not None and not ((fast == 0) | np.isinf(fast)).any():
            return fast
    numbers = np.empty(len(tokens))
    for i, (token, line) in enumerate(zip(tokens, lines.tolist(), strict=True)):
        number = checked_number(token.strip(), source, line)
        if number is None:
            raise InputError(f"{quoted(token)} in column {quoted(name)} is not a number",
                             f"{source}:{line}")
        numbers[i] = number
    return numbers


_DECIMAL_BYTES = np.zeros(256, dtype=bool)
_DECIMAL_BYTES[np.frombuffer(b"0123456789.eE+- \t\x00", dtype=np.uint8)] = True


def plain_decimals(tokens: tuple[str, ...] | list[str]) -> np.ndarray | None:
    """The tokens as floats when every one is a plain decimal number, else None.

    The fast path of a numeric column: ASCII digits, sign, point and exponent
    only (no hex, inf or nan, which `parse_number` handles), converted by numpy
    in one pass; any token numpy cannot convert sends the column to the slow path.
    """
    if max(map(len, tokens), default=0) > _WIDEST_FIELD:
        return None  # a str array pads every token to the longest (4 bytes a character)
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


def _metric_rows(table: _Table, metric: str | None, name: str) -> None:
    """Keep the rows of the chosen metric (all rows when the table has one metric)."""
    if "metric" not in table.header:
        if metric is not None:
            raise UsageError(f"--metric {metric} needs a 'metric' column naming each row's "
                             f"metric (columns: {', '.join(table.header)})", name)
        return
    k = table.header.index("metric")
    labels = _text(table.columns[k])
    found = list(dict.fromkeys(labels.tolist()))
    if metric is None:
        if len(found) > 1:
            raise UsageError(f"the table has several metrics ({', '.join(found)}); choose one "
                             "with --metric", name)
        return
    if metric not in found:
        raise UsageError(f"no rows of metric {metric!r} (metrics: {', '.join(found)})", name)
    table.keep(labels == metric)
