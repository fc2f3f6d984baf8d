"""Plain files of numbers, read by FreeBSD ministat's rules (STATS.md §2).

One value per line from column `column` (1-based); fields split on any of the
`delimiters` characters, runs collapsing; a token starting with `#` before the
wanted column ends the line; blank lines and lines with too few columns are
skipped; a token must parse completely as a number (C `strtod` syntax).
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

from benchlab import progress
from benchlab.data.source import Source
from benchlab.errors import InputError, UsageError
from benchlab.escape import token as quoted

if TYPE_CHECKING:  # numpy and the Dataset load only when read() runs: ministat mode needs neither
    import numpy as np

    from benchlab.data.dataset import Dataset

NAME = "numbers"
DEFAULT_DELIMITERS = " \t"

# strtod's decimal syntax (Python's float() also takes "1_0", which strtod does not).
# Written so that no two ways match one text ("\d+\.?\d*" would try every split of a run of
# digits: quadratic, hours for a 10^6-digit token that ends in a letter).
_DECIMAL = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
_HEX = re.compile(r"[+-]?0[xX]([0-9a-fA-F]+(\.[0-9a-fA-F]*)?|\.[0-9a-fA-F]+)([pP][+-]?\d+)?")
_SPECIAL = re.compile(r"[+-]?(inf|infinity|nan(\([0-9A-Za-z_]*\))?)", re.IGNORECASE)


class OutOfRange(InputError):
    """A number beyond a double's range: it would read as 0 or as infinity, silently."""

    def __init__(self, name: str, line: int, token: str, value: float) -> None:
        what = ("is too large for a double (it would read as infinity)" if value != 0 else
                "is too small for a double (it would read as 0)")
        super().__init__(f"{quoted(token)} {what}", f"{name}:{line}")
        self.line = line
        self.token = token


class InvalidToken(InputError):
    """A field that is not a number; keeps the file, line and token for any message style."""

    def __init__(self, name: str, line: int, token: str) -> None:
        super().__init__(f"{quoted(token)} is not a number", f"{name}:{line}")
        self.name = name
        self.line = line
        self.token = token


def parse_number(token: str) -> float | None:
    """Parse `token` as C's strtod would if it must consume the whole token; None if not."""
    text = token.lstrip(" \t\n\v\f\r")
    if _DECIMAL.fullmatch(text):
        return float(text)
    if _HEX.fullmatch(text):
        sign = -1.0 if text.startswith("-") else 1.0
        body = text.lstrip("+-")
        if "p" not in body.lower():
            body += "p0"
        try:
            return sign * float.fromhex(body)
        except OverflowError:  # strtod gives ±HUGE_VAL (ERANGE); `out_of_range` refuses it
            return sign * math.inf
    match = _SPECIAL.fullmatch(text)
    if match:
        return float("nan") if "nan" in text.lower() else float(text.split("(")[0])
    return None


def is_number(text: str) -> bool:
    """Whether Python's `float()` reads `text` whole: the syntax numpy's conversion of a text
    column follows, so it finds the cell that made such a conversion fail."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def out_of_range(token: str, value: float) -> bool:
    """Whether `value`, parsed from `token`, overflowed to ±inf or underflowed to 0."""
    if value == 0.0:
        text = token.strip().lstrip("+-")
        hexadecimal = text[:2].lower() == "0x"
        mantissa = re.split("[pP]" if hexadecimal else "[eE]", text[2:] if hexadecimal else text)
        return bool(re.search("[1-9a-fA-F]" if hexadecimal else "[1-9]", mantissa[0]))
    return math.isinf(value) and not _SPECIAL.fullmatch(token.strip())


def checked_number(token: str, name: str, line: int) -> float | None:
    """`parse_number(token)`, refusing (OutOfRange) a number a double cannot hold."""
    value = parse_number(token)
    if value is not None and (value == 0.0 or math.isinf(value)) and out_of_range(token, value):
        raise OutOfRange(name, line, token.strip(), value)
    return value


def split_fields(line: str, delimiters: str) -> list[str]:
    """Fields of `line` split on any delimiter character, runs collapsing (like strtok)."""
    return [t for t in re.split("[" + re.escape(delimiters) + "]+", line) if t]


def extract(
    source: Source, column: int = 1, delimiters: str = DEFAULT_DELIMITERS,
    check_range: bool = False,
) -> tuple[list[float], list[int]]:
    """The values of `column` and their 1-based line numbers, by ministat's rules.

    check_range: refuse (OutOfRange) numbers that overflow to infinity or underflow
    to 0; ministat mode reads them as strtod does, the other commands refuse them.
    """
    values: list[float] = []
    lines: list[int] = []
    for number, raw in enumerate(source.lines, start=1):
        line = raw.rstrip(" \t\n\v\f\r")
        tokens = split_fields(line, delimiters)
        token = None
        for i, tok in enumerate(tokens, start=1):
            if tok.startswith("#"):
                break
            if i == column:
                token = tok
                break
        if token is None:
            continue
        value = (checked_number(token, source.name, number) if check_range
                 else parse_number(token))
        if value is None:
            raise InvalidToken(source.name, number, token)
        values.append(value)
        lines.append(number)
    return values, lines


_CHUNK = 1 << 22  # characters per vectorized step: bounds the temporaries (about 30× it)
_WIDEST = 40  # longer tokens go to the line-by-line path
_NUMBER_BYTES = b"0123456789.eE+-"


def columnar_extract(source: Source, column: int = 1, delimiters: str = DEFAULT_DELIMITERS
                     ) -> tuple[np.ndarray, np.ndarray] | None:
    """`extract` for large plain files, vectorized over the bytes; None where it cannot.

    Handles files of plain decimal numbers and delimiters only (no comments,
    hex, inf or nan: those take the line-by-line path, which gives the same
    result), in chunks of _CHUNK bytes: tokens are found from the delimiter
    mask, the column's token of each line kept, and the tokens converted by
    numpy as fixed-width byte strings. A bad token or a number out of a
    double's range raises the same line-numbered error as `extract`.
    """
    import numpy as np

    text = source.text
    if (text is None or not text.isascii() or not delimiters.isascii()
            or any(c.encode() in _NUMBER_BYTES or c == "\n" for c in delimiters)):
        return None
    allowed = np.zeros(256, dtype=bool)
    allowed[np.frombuffer(_NUMBER_BYTES + b"\n" + delimiters.encode(), dtype=np.uint8)] = True
    separator = np.zeros(256, dtype=bool)
    separator[np.frombuffer(b"\n" + delimiters.encode(), dtype=np.uint8)] = True
    capacity = text.count("\n") + 1  # at most one value per line
    values = np.empty(capacity)
    lines = np.empty(capacity, dtype=np.int32 if capacity < 2**31 else np.int64)
    filled, start, first_line = 0, 0, 1
    with progress.task(f"reading {source.name}", len(text)) as advance:
        while start < len(text):
            found = _next_chunk(text, start, allowed, separator, column, source.name,
                                first_line)
            if found is None:
                return None
            chunk_values, chunk_lines, stop, newlines = found
            values[filled:filled + chunk_values.size] = chunk_values
            lines[filled:filled + chunk_values.size] = chunk_lines
            filled += chunk_values.size
            first_line += newlines
            advance(stop - start)
            start = stop
    if filled < 0.9 * capacity:  # many lines without the column: do not keep the spare room
        return values[:filled].copy(), lines[:filled].copy()
    return values[:filled], lines[:filled]


def _next_chunk(text: str, start: int, allowed: np.ndarray, separator: np.ndarray,
                column: int, name: str, first_line: int
                ) -> tuple[np.ndarray, np.ndarray, int, int] | None:
    """The numbers of the chunk of whole lines from `start` and their lines, where the next
    chunk starts and how many line ends this one has; None when the chunk needs the
    line-by-line path."""
    import numpy as np

    stop = min(start + _CHUNK, len(text))
    if stop < len(text):  # end the chunk at a line end
        newline = text.rfind("\n", start, stop)
        stop = newline + 1 if newline >= 0 else len(text)
    chunk = np.frombuffer(text[start:stop].encode("ascii"), dtype=np.uint8)
    if not allowed[chunk].all():
        return None
    found = _chunk_numbers(chunk, separator, column, name, first_line)
    if found is None:
        return None
    return found[0], found[1], stop, int(np.count_nonzero(chunk == 10))


def _chunk_numbers(chunk: np.ndarray, separator: np.ndarray, column: int, name: str,
                   first_line: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The column's numbers of a chunk of whole lines and their 1-based line numbers."""
    import numpy as np

    sep = separator[chunk]
    inside = ~sep
    begins = np.flatnonzero(inside & np.concatenate(([True], sep[:-1])))
    ends = np.flatnonzero(inside & np.concatenate((sep[1:], [True]))) + 1
    newlines = np.flatnonzero(chunk == 10)
    line = np.searchsorted(newlines, begins)  # 0-based line of each token in the chunk
    rank = np.arange(line.size) - np.searchsorted(line, line, side="left")
    keep = rank == column - 1
    begins, ends, line = begins[keep], ends[keep], line[keep] + first_line
    widths = ends - begins
    if widths.size == 0:
        return np.empty(0), line
    width = int(widths.max())
    if width > _WIDEST:
        return None
    columns = np.empty((width, widths.size), dtype=np.uint8)  # byte j of every token
    last = chunk.size - 1
    for j in range(width):
        columns[j] = np.where(widths > j, chunk[np.minimum(begins + j, last)], 0)
    invalid = None  # the first token that is not a number, if any
    try:
        numbers = decimal_matrix(columns)
    except ValueError:
        tokens = np.ascontiguousarray(columns.T).view(f"S{width}").ravel()
        invalid = next((i for i, token in enumerate(tokens.tolist())
                        if parse_number(token.decode()) is None), None)
        if invalid is None:
            return None  # numpy refused what strtod reads: let the line-by-line path decide
        numbers = tokens[:invalid].astype(np.float64)
    check_range(numbers, columns, line, name)  # an earlier line's problem is reported first
    if invalid is not None:
        raise InvalidToken(name, int(line[invalid]), tokens[invalid].decode())
    return numbers, line


def decimal_matrix(columns: np.ndarray) -> np.ndarray:
    """Doubles from ASCII tokens given column-major (`columns[j]` is every token's j-th
    byte, NUL past its width); ValueError if a token is not a number.

    Short plain decimals ("-12.345": at most 15 digits, no exponent) are converted
    exactly by Clinger's fast path: the digits as an integer below 2^53 divided by
    a power of ten up to 10^15, both exact doubles, so the one rounding of the
    division gives the correctly rounded value, as strtod does. Everything else
    goes through numpy's own conversion, which is several times slower.
    """
    import numpy as np

    width, rows = columns.shape
    mantissa = np.zeros(rows, dtype=np.int64)
    digits = np.zeros(rows, dtype=np.int64)
    after_point = np.zeros(rows, dtype=np.int64)
    points = np.zeros(rows, dtype=np.int64)
    simple = np.ones(rows, dtype=bool)
    for j in range(width):  # Horner over the columns, vectorized over the tokens
        byte = columns[j]
        value = byte.astype(np.int64) - ord("0")
        digit = (value >= 0) & (value <= 9)
        point = byte == ord(".")
        mantissa = np.where(digit, mantissa * 10 + value, mantissa)
        digits += digit
        after_point += digit & (points > 0)
        points += point
        allowed = digit | point | (byte == 0)
        if j == 0:
            allowed |= (byte == ord("-")) | (byte == ord("+"))
        simple &= allowed
    simple &= (points <= 1) & (digits >= 1) & (digits <= 15)
    powers = 10.0 ** np.arange(16)
    numbers = np.empty(rows)
    numbers[simple] = mantissa[simple] / powers[np.minimum(after_point[simple], 15)]
    numbers[simple & (columns[0] == ord("-"))] *= -1.0
    rest = np.flatnonzero(~simple)
    if rest.size:
        numbers[rest] = np.ascontiguousarray(columns[:, rest].T).view(f"S{width}").ravel() \
            .astype(np.float64)
    return numbers


def check_range(numbers: np.ndarray, columns: np.ndarray, line: np.ndarray,
                name: str) -> None:
    """Raise OutOfRange for the first number that overflowed or underflowed."""
    import numpy as np

    suspect = np.flatnonzero((numbers == 0) | np.isinf(numbers))
    if suspect.size:  # "0.0" is zero, "1e-400" underflowed: a digit 1-9 before the exponent
        digits = np.ascontiguousarray(columns[:, suspect].T)
        mantissa = np.cumsum((digits == ord("e")) | (digits == ord("E")), axis=1) == 0
        lost = ((digits >= ord("1")) & (digits <= ord("9")) & mantissa).any(axis=1)
        for i in suspect[lost | np.isinf(numbers[suspect])][:1].tolist():
            token = columns[:, i].tobytes().rstrip(b"\0").decode()
            checked_number(token, name, int(line[i]))


def sniff(source: Source) -> bool:
    """Any text can be read as numbers; this reader is the fallback."""
    return True


def read(source: Source, *, column: int = 1, delimiters: str = DEFAULT_DELIMITERS,
         name: str | None = None, unit: str | None = None,
         higher_is_better: bool | None = None, metric: str | None = None,
         **_: object) -> Dataset:
    """A one-sample Dataset named after the file (or `name`)."""
    import numpy as np

    if metric is not None:
        raise UsageError(f"--metric {metric} picks a metric of a multi-metric format; this is "
                         "read as a plain file of numbers, which has one (-C picks a column)",
                         source.name)

    from benchlab.data.dataset import Dataset
    from benchlab.units import make_unit

    columnar = columnar_extract(source, column, delimiters)
    values, lines = (columnar if columnar is not None
                     else extract(source, column, delimiters, check_range=True))
    if not len(values):
        raise InputError("no numbers found (empty file?)", source.name)
    array = np.asarray(values, dtype=float)
    # One name for every row: a read-only broadcast view, not ten million pointers to it.
    sample = np.broadcast_to(np.array([name or source.name], dtype=object), array.shape)
    return Dataset({"sample": sample, "value": array}, factors=("sample",),
                   unit=make_unit(unit, higher_is_better), source=source.name,
                   lines=np.asarray(lines), synthetic=("sample", "value"))  # int32 if it fits
