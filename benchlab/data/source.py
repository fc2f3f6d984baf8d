"""Open an input (a path or `-` for standard input) as text lines, safely.

Every failure becomes an InputError naming the file: missing, unreadable, a
directory, binary content. A UTF-8 byte-order mark is dropped and CRLF/CR line
ends are read like LF, so files from any platform read the same. Whether the
last line has its line end is kept, for readers whose lines are records that a
file cut mid-line would change (go test's result lines).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from benchlab.errors import InputError

STDIN_NAME = "<stdin>"
SQLITE_HEADER = b"SQLite format 3\x00"


@dataclass(frozen=True)
class Source:
    """The text of one input: its display name and its lines (without line ends)."""

    name: str
    lines: tuple[str, ...]
    sqlite: bool = False  # a SQLite database (a benchlab store): no lines, read by its path
    unterminated: bool = False  # the last line has no line end: the file may be cut short
    text: str | None = None  # the whole text (line ends as LF), for the columnar readers

    @property
    def head(self) -> str:
        """The first few lines joined, for format sniffing."""
        return "\n".join(self.lines[:5])


def _decode(raw: bytes, name: str) -> str:
    if b"\x00" in raw[:65536]:
        raise InputError("binary content, not a text file of measurements", name)
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError("not UTF-8 text (binary content?)", f"{name}:{line}") from None


def open_source(path: str) -> Source:
    """Read `path` (or standard input for "-") into a Source."""
    if path == "-":
        raw = sys.stdin.buffer.read()
        name = STDIN_NAME
        if raw.startswith(SQLITE_HEADER):
            raise InputError("a SQLite store cannot be read from standard input; give its path",
                             name)
    else:
        name = path
        if os.path.isdir(path):
            raise InputError("is a directory, not a file", name)
        try:
            with open(path, "rb") as handle:
                raw = handle.read(len(SQLITE_HEADER))
                if raw == SQLITE_HEADER:  # a benchlab store: its reader opens the path
                    return Source(name, (), sqlite=True)
                if handle.seekable():  # one read: `raw += ...` would hold the text twice
                    handle.seek(0)
                    raw = handle.read()
                else:
                    raw += handle.read()
        except FileNotFoundError:
            raise InputError("no such file", name) from None
        except PermissionError:
            raise InputError("permission denied", name) from None
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror or exc}", name) from None
    text = _decode(raw, name).replace("\r\n", "\n").replace("\r", "\n")
    return Source(name, _Lines(text), unterminated=bool(text) and not text.endswith("\n"),
                  text=text)


class _Lines(Sequence):
    """A text's lines, split only when asked (and the first few without splitting it all).

    Ten million lines as Python strings take about 600 MB; the columnar readers
    work on the text itself and never ask, sniffing asks only for the head.
    """

    def __init__(self, text: str) -> None:
        self._text = text
        self._all: tuple[str, ...] | None = None

    def _split(self) -> tuple[str, ...]:
        if self._all is None:
            lines = self._text.split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            self._all = tuple(lines)
        return self._all

    def __len__(self) -> int:
        return len(self._split())

    def __getitem__(self, index):
        if (self._all is None and isinstance(index, slice) and index.step is None
                and not index.start and index.stop is not None and 0 <= index.stop <= 100_000):
            parts = self._text.split("\n", index.stop)
            if len(parts) > index.stop:  # more text follows: the first lines are whole
                return tuple(parts[:index.stop])
            if parts and parts[-1] == "":
                parts.pop()  # the text's last line end, as _split drops it
            return tuple(parts)
        return self._split()[index]

    def __iter__(self):
        """The lines one at a time (a reader that stops early never splits the rest)."""
        if self._all is not None:
            yield from self._all
            return
        text, start = self._text, 0
        while start < len(text):
            end = text.find("\n", start)
            if end < 0:
                yield text[start:]
                return
            yield text[start:end]
            start = end + 1

    def __eq__(self, other: object) -> bool:
        return tuple(self) == (tuple(other) if isinstance(other, (tuple, list, _Lines))
                               else other)

    __hash__ = None  # type: ignore[assignment]
