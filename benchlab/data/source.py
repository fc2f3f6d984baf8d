"""Open an input (a path or `-` for standard input) as text lines, safely.

Every failure becomes an InputError naming the file: missing, unreadable, a
directory, binary content, a device, named pipe or socket (refused by type
before reading: /dev/zero would be read forever, a named pipe with no writer
blocks forever), more than BENCHLAB_MAX_INPUT_MB (checked from the size of a
file, while reading a stream; a stream is also refused at its first NUL byte).
Standard input (`-`, /dev/stdin) and the pipes of process substitution
(`<(command)`, /dev/fd/N) are streams, read within the same limit and kept, so
that a command that opens an input twice (sniffing metrics, then reading)
reads a pipe once. A UTF-8 byte-order mark is dropped, a UTF-16 or UTF-32 one
says how to decode the text (Windows PowerShell writes UTF-16), and CRLF/CR line ends
are read like LF, so files from any platform read the same. Whether the last
line has its line end is kept, for readers whose lines are records that a file
cut mid-line would change (go test's result lines).
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import BinaryIO

from benchlab import limits
from benchlab.errors import InputError
from benchlab.sqlite_file import SQLITE_HEADER

STDIN_NAME = "<stdin>"


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


def display_name(path: str) -> str:
    """`path` as text that can be printed and stored: a name with bytes that are not UTF-8
    (Python holds them as lone surrogates, which no UTF-8 stream or SQLite text takes) shows
    them as visible escapes, `bad\\xff.txt`; the file itself is still opened by `path`."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(path).decode("utf-8", "backslashreplace")
    return path


# UTF-32 first: its little-endian mark begins with UTF-16's. Windows PowerShell's `>` writes
# UTF-16 with a mark, so a file of numbers redirected there reads without converting it.
_WIDE_BOMS = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"),
              (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))


def _wide(raw: bytes) -> str | None:
    """The encoding a UTF-16 or UTF-32 byte-order mark at the start of `raw` names, if any."""
    return next((codec for mark, codec in _WIDE_BOMS if raw.startswith(mark)), None)


def _decode(raw: bytes, name: str) -> str:
    codec = _wide(raw)
    if codec is not None:
        try:
            return raw.decode(codec)  # the mark tells the byte order and is dropped
        except UnicodeDecodeError as exc:
            line = raw[: exc.start].decode(codec, "replace").count("\n") + 1
            raise InputError(f"not {codec.upper()} text despite its byte-order mark (cut "
                             "short, or binary content?)", f"{name}:{line}") from None
    if b"\x00" in raw[:65536]:
        raise InputError("binary content, not a text file of measurements", name)
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError("not UTF-8 text (binary content?)", f"{name}:{line}") from None


_CHUNK = 1 << 20
_STREAM_PREFIXES = ("/dev/fd/", "/proc/self/fd/")  # descriptors already open: <(command)


def _too_large(name: str, bound_mb: int) -> InputError:
    return InputError(f"more than {bound_mb:,} MB; a larger input needs "
                      f"{limits.MAX_INPUT_MB[0]} raised", name)


def _read_stream(handle: BinaryIO, name: str, first: bytes = b"") -> bytes:
    """A stream read in chunks up to the limit; refused at its first NUL (binary data such as
    /dev/zero on standard input ends at once instead of filling memory)."""
    bound_mb = limits.limit(limits.MAX_INPUT_MB)
    bound = bound_mb * 2**20
    raw = bytearray(first)
    while True:
        chunk = handle.read(_CHUNK)
        if not chunk:
            return bytes(raw)
        if b"\x00" in chunk and not (raw or chunk).startswith(SQLITE_HEADER) \
                and _wide(raw or chunk) is None:
            raise InputError("binary content, not a text file of measurements", name)
        raw += chunk
        if len(raw) > bound:
            raise _too_large(name, bound_mb)


def _read_error(exc: OSError, name: str) -> InputError:
    """The one-line error of a failed stat, open or read."""
    if isinstance(exc, FileNotFoundError):
        return InputError("no such file", name)
    if isinstance(exc, PermissionError):
        return InputError("permission denied", name)
    return InputError(f"cannot read: {exc.strerror or exc}", name)


def _refuse_special(path: str, name: str) -> bool:
    """Refuse what is not a regular file by its type (before opening: a FIFO's open blocks);
    True for a stream that may be read (a pipe of /dev/fd/N, /dev/stdin)."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise _read_error(exc, name) from None
    if stat.S_ISDIR(mode):
        raise InputError("is a directory, not a file", name)
    if stat.S_ISREG(mode):
        return False
    descriptor = path.startswith(_STREAM_PREFIXES) or path == "/dev/stdin"
    if stat.S_ISFIFO(mode) and descriptor:
        return True
    if stat.S_ISFIFO(mode):
        raise InputError("is a named pipe (FIFO): reading it waits for a writer; give a file, "
                         "- for standard input or <(command)", name)
    if stat.S_ISCHR(mode) and path == "/dev/stdin":
        return True  # a terminal on standard input: read until end of file
    kind = ("a character device" if stat.S_ISCHR(mode) else "a block device"
            if stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else "not a file")
    raise InputError(f"is {kind}, not a file of measurements", name)


_streams_read: dict[str, Source] = {}  # a pipe can be read once: its Source, by path


_kept: list[dict[str, Source]] = []  # inside reading_once(): every Source read, by path


def forget_streams() -> None:
    """Drop the kept streams (a new command in the same process reads its own stdin)."""
    _streams_read.clear()


@contextmanager
def reading_once() -> Iterator[None]:
    """Within this, each path is read once: opening it again gives the Source read first.

    A command that looks at its inputs several times (compare lists a go test file's
    metrics, then compares each) reads every file once; outside, every open reads the
    file as it is now."""
    _kept.append({})
    try:
        yield
    finally:
        _kept.pop()


def open_source(path: str) -> Source:
    """Read `path` (or standard input for "-") into a Source."""
    if path in _streams_read:
        return _streams_read[path]
    if _kept and path in _kept[-1]:
        return _kept[-1][path]
    source = _open(path)
    if _kept:
        _kept[-1][path] = source
    return source


def _open(path: str) -> Source:
    """Read `path` (or standard input for "-") from the file system, now."""
    stream = False
    if path == "-":
        name = STDIN_NAME
        raw = _read_stream(sys.stdin.buffer, name)
        if raw.startswith(SQLITE_HEADER):
            raise InputError("a SQLite store cannot be read from standard input; give its path",
                             name)
    else:
        name = display_name(path)
        stream = _refuse_special(path, name)
        try:
            with open(path, "rb") as handle:
                raw = handle.read(len(SQLITE_HEADER))
                if raw == SQLITE_HEADER and not stream:  # a store: its reader opens the path
                    return Source(path, (), sqlite=True)
                if stream:
                    raw = _read_stream(handle, name, raw)
                else:  # one read: `raw += ...` would hold the text twice
                    bound_mb = limits.limit(limits.MAX_INPUT_MB)
                    if os.fstat(handle.fileno()).st_size > bound_mb * 2**20:
                        raise _too_large(name, bound_mb)
                    handle.seek(0)
                    raw = handle.read()  # read(bound) would allocate the bound up front
                    if len(raw) > bound_mb * 2**20:  # grew while being read
                        raise _too_large(name, bound_mb)
        except OSError as exc:
            raise _read_error(exc, name) from None
    text = _decode(raw, name).replace("\r\n", "\n").replace("\r", "\n")
    source = Source(name, _Lines(text), unterminated=bool(text) and not text.endswith("\n"),
                    text=text)
    if stream:  # "-" is read by one reader only (cli/metrics leaves it alone)
        _streams_read[path] = source
    return source


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
