"""Plain files of numbers, read by FreeBSD ministat's rules (STATS.md §2).

One value per line from column `column` (1-based); fields split on any of the
`delimiters` characters, runs collapsing; a token starting with `#` before the
wanted column ends the line; blank lines and lines with too few columns are
skipped; a token must parse completely as a number (C `strtod` syntax).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from benchlab.data.source import Source
from benchlab.errors import InputError, UsageError

if TYPE_CHECKING:  # numpy and the Dataset load only when read() runs: ministat mode needs neither
    from benchlab.data.dataset import Dataset

NAME = "numbers"
DEFAULT_DELIMITERS = " \t"

# strtod's decimal syntax (Python's float() also takes "1_0", which strtod does not).
_DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_HEX = re.compile(r"[+-]?0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)([pP][+-]?\d+)?")
_SPECIAL = re.compile(r"[+-]?(inf|infinity|nan(\([0-9A-Za-z_]*\))?)", re.IGNORECASE)


class InvalidToken(InputError):
    """A field that is not a number; keeps the file, line and token for any message style."""

    def __init__(self, name: str, line: int, token: str) -> None:
        super().__init__(f"{token!r} is not a number", f"{name}:{line}")
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
        return sign * float.fromhex(body)
    match = _SPECIAL.fullmatch(text)
    if match:
        return float("nan") if "nan" in text.lower() else float(text.split("(")[0])
    return None


def split_fields(line: str, delimiters: str) -> list[str]:
    """Fields of `line` split on any delimiter character, runs collapsing (like strtok)."""
    return [t for t in re.split("[" + re.escape(delimiters) + "]+", line) if t]


def extract(
    source: Source, column: int = 1, delimiters: str = DEFAULT_DELIMITERS
) -> tuple[list[float], list[int]]:
    """The values of `column` and their 1-based line numbers, by ministat's rules."""
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
        value = parse_number(token)
        if value is None:
            raise InvalidToken(source.name, number, token)
        values.append(value)
        lines.append(number)
    return values, lines


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

    values, lines = extract(source, column, delimiters)
    if not values:
        raise InputError("no numbers found (empty file?)", source.name)
    return Dataset.from_values(
        np.array(values), name or source.name, unit=make_unit(unit, higher_is_better),
        source=source.name, lines=lines,
    )
