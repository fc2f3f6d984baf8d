"""Helpers shared by the readers of other tools' formats (JMH, pyperf, Google Benchmark, ...).

Sniffing looks at a bounded prefix of the text; loading turns every JSON
problem into a one-line InputError naming the file (and the line for a syntax
error); `Rows` collects measurements chunk by chunk and builds the Dataset.
numpy and the Dataset are imported only when a file is actually read.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from benchlab.data.source import Source
from benchlab.errors import InputError
from benchlab.escape import shorten
from benchlab.escape import token as quoted

if TYPE_CHECKING:
    import numpy as np

    from benchlab.data.dataset import Dataset
    from benchlab.units import Unit

SNIFF_CHARS = 4096
_PARTIAL_TOKEN = re.compile(r"[\w.+-]{0,32}")


def prefix(source: Source, limit: int = SNIFF_CHARS) -> str:
    """The first `limit` characters of the text (cheap even for a one-line JSON file)."""
    parts: list[str] = []
    size = 0
    for line in source.lines:
        parts.append(line[:limit])
        size += len(parts[-1]) + 1
        if size >= limit:
            break
    return "\n".join(parts)[:limit]


def load_json(source: Source, format_name: str) -> Any:
    """The parsed JSON document; invalid or truncated JSON is an InputError with the line."""
    import json

    text = "\n".join(source.lines)
    if not text.strip():
        raise InputError(f"empty file, not {format_name} JSON", source.name)
    try:
        doc = json.loads(text, parse_int=_integer)
    except _LongInteger as exc:  # Python refuses int("9" * 4301): a ValueError deep in json
        line = text.count("\n", 0, max(text.find(exc.digits), 0)) + 1
        raise InputError(f"{quoted(exc.digits)} is too large for a double (an integer of "
                         f"{len(exc.digits.lstrip('-')):,} digits)", f"{source.name}:{line}"
                         ) from None
    except json.JSONDecodeError as exc:
        where = f"{source.name}:{exc.lineno}"
        if _cut_short(text, exc):
            raise InputError(f"truncated {format_name} JSON: the file ends before the document "
                             "does (was it cut short?)", f"{source.name}:{len(source.lines)}"
                             ) from None
        raise InputError(f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
                         where) from None
    except RecursionError:
        raise InputError("invalid JSON: nested too deeply", source.name) from None
    if _SURROGATE_ESCAPE.search(text) is not None:
        _refuse_lone_surrogates(doc, text, source)
    return doc


# Python's int() of a decimal string stops at sys.get_int_max_str_digits() (4,300) digits;
# a longer integer is beyond a double by far (1.8e308 has 309 digits).
_MAX_DIGITS = 4300


class _LongInteger(Exception):
    """A JSON integer with more digits than Python converts (carries its text)."""

    def __init__(self, digits: str) -> None:
        super().__init__(digits[:20])
        self.digits = digits


def _integer(text: str) -> int:
    """A JSON integer as `int`; _LongInteger past the digits Python converts."""
    if len(text) > _MAX_DIGITS:
        raise _LongInteger(text)
    return int(text)


# A \uD800-\uDFFF escape: half of a UTF-16 pair, which json decodes even when alone.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LONE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])"
                   r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}")


def _refuse_lone_surrogates(doc: Any, text: str, source: Source) -> None:
    """Refuse a string holding half a UTF-16 pair (`"\\ud800"` alone): it is no Unicode
    character, so it can be neither printed as UTF-8 nor stored in SQLite."""
    pending = [doc]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
        elif isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as exc:
                found = _LONE.search(text)
                line = text.count("\n", 0, found.start()) + 1 if found else None
                escape = f"\\u{ord(item[exc.start]):04x}"
                raise InputError(f"a JSON string holds a lone UTF-16 surrogate ({escape}), "
                                 f"which is not a character: {quoted(item)}",
                                 f"{source.name}:{line}" if line else source.name) from None


def _cut_short(text: str, exc: Any) -> bool:
    """True when the JSON error is the end of the text: an unfinished string, number or
    literal (`tru`, `3.`) or nothing at all where a value or bracket should follow."""
    if exc.msg.startswith("Unterminated string"):
        return True
    rest = text[exc.pos:].rstrip()
    return not exc.msg.startswith("Extra data") and _PARTIAL_TOKEN.fullmatch(rest) is not None


def show(value: Any) -> str:
    import json

    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return shorten(text, 37)


def number(value: Any, path: str, source: Source) -> float:
    """A finite JSON number, else an InputError naming the JSON path."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{path} is {show(value)}, not a number", source.name)
    try:
        result = float(value)
    except OverflowError:
        result = math.inf
    if not math.isfinite(result):
        raise InputError(f"{path} is {show(value)}, not a finite number", source.name)
    return result


def get(obj: Any, key: str, path: str, source: Source, kind: type | tuple[type, ...],
        what: str, *, required: bool = True) -> Any:
    """obj[key] checked to be of `kind`; a missing required key names the format (`what`)."""
    if not isinstance(obj, dict):
        raise InputError(f"{path or 'the document'} is {show(obj)}, not an object "
                         f"(not a {what} file?)", source.name)
    if key not in obj:
        if required:
            raise InputError(f"{path + ': ' if path else ''}no {key!r} key (not a {what} "
                             "file, or an unsupported version?)", source.name)
        return None
    value = obj[key]
    if not isinstance(value, kind) or isinstance(value, bool) and bool not in _kinds(kind):
        names = "/".join(k.__name__ for k in _kinds(kind))
        names = names.replace("dict", "object").replace("list", "array").replace("str", "string")
        raise InputError(f"{path + '.' if path else ''}{key} is {show(value)}, not "
                         f"{'an' if names[0] in 'aeiou' else 'a'} {names}", source.name)
    return value


def _kinds(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def label(value: Any) -> str:
    """A factor label from a JSON scalar: strings as they are, numbers in JSON spelling."""
    if isinstance(value, str):
        return value
    import json

    return json.dumps(value)


def case_names(bases: Sequence[str], details: Sequence[str]) -> list[str] | None:
    """Sample names that stay distinct: `base` alone when each base has one detail, else
    "base:detail" (None means the bases already name the samples)."""
    seen: dict[str, str] = {}
    for base, detail in zip(bases, details, strict=True):
        if seen.setdefault(base, detail) != detail:
            return [f"{b}:{d}" if d else b for b, d in zip(bases, details, strict=True)]
    return None


class Rows:
    """Measurements collected chunk by chunk: each chunk is values plus per-column labels.

    A label is one string for the whole chunk or a sequence with one per value.
    A column missing from a chunk is filled with "" there.
    """

    def __init__(self) -> None:
        self._chunks: list[tuple[Any, dict[str, Any]]] = []
        self._names: dict[str, None] = {}
        self.count = 0

    def add(self, values: Sequence[float] | np.ndarray, labels: Mapping[str, Any]) -> None:
        self._chunks.append((values, dict(labels)))
        for name in labels:
            self._names.setdefault(name, None)
        self.count += len(values)

    def label_chunks(self, column: str, labels: Sequence[Any]) -> None:
        """Give chunk k the label labels[k] (a string, or one per row) in `column`, a new
        first column."""
        for (_, chunk_labels), text in zip(self._chunks, labels, strict=True):
            chunk_labels[column] = text
        self._names = {column: None, **self._names}

    def dataset(self, source: Source, *, factors: Sequence[str], levels: Sequence[str],
                unit: Unit, metric: str | None, default_by: str | None,
                lines: Sequence[int] | None = None, ordered: bool = True) -> Dataset:
        """The Dataset of every row, value column "value"; an empty one is an InputError."""
        import numpy as np

        from benchlab.data.dataset import Dataset

        if self.count == 0:
            raise InputError("no measurements in the file", source.name)
        columns: dict[str, np.ndarray] = {}
        for name in self._names:
            parts = []
            for values, labels in self._chunks:
                part = labels.get(name, "")
                if isinstance(part, str):
                    parts.append(np.full(len(values), part, dtype=object))
                else:
                    parts.append(np.asarray(part, dtype=object))
            columns[name] = np.concatenate(parts) if parts else np.empty(0, dtype=object)
        columns["value"] = np.concatenate(
            [np.asarray(values, dtype=np.float64) for values, _ in self._chunks])
        return Dataset(columns, "value", tuple(factors), tuple(levels), metric, unit,
                       source.name, None if lines is None else np.asarray(lines, dtype=np.int64),
                       default_by, ordered)
