"""Files benchlab writes: never half-written, never over a store or an input unless forced.

Every output (a CSV, a report, a figure, an exported table) is written to a
temporary file beside its target and renamed over it when complete, so a crash
or a full disk leaves the old file or the new one, never a mix. Before that,
the target is checked: an existing benchlab store (any SQLite file) or one of
the command's own inputs is refused unless the caller passes `force=True`
(the commands' `--overwrite`), since replacing it loses what a user recorded.

A target that is not a regular file (`/dev/null`, `/dev/stdout`, a named pipe)
is written straight into, as a shell's `>` does: renaming over it would
replace the device itself (as root, `-o /dev/null` once replaced the machine's
/dev/null with a regular file). A symbolic link is followed, so the link stays
and the file it names is replaced.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import IO

from benchlab.errors import InputError, UsageError
from benchlab.sqlite_file import is_sqlite


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_target(path: str, inputs: Iterable[str] = (), *, force: bool = False) -> None:
    """Refuse a target that cannot be written or whose replacement would lose data.

    A missing directory, a directory as target, one of `inputs` (by identity of
    the file, so a symlink or another spelling is caught) or an existing SQLite
    store are one-line errors; the last two only without `force`.
    """
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise UsageError(f"cannot write: directory {parent} does not exist", path)
    if os.path.isdir(path):
        raise UsageError("cannot write: is a directory", path)
    if force or not os.path.exists(path):
        return
    for source in inputs:
        if source not in ("-", "") and _same_file(source, path):
            raise UsageError("is one of this command's inputs; writing the output there would "
                             "replace it (choose another file, or add --overwrite)", path)
    if is_sqlite(path):
        raise UsageError("is an existing benchlab store (a SQLite database); writing there "
                         "would replace it (choose another file, or add --overwrite)", path)


def _is_special(path: str) -> bool:
    """True when `path` names an existing file that is not a regular file (a device, a FIFO)."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _temporary_name(path: str) -> str:
    """A name beside `path` with the same extension (figure writers choose by extension)."""
    head, tail = os.path.split(path)
    stem, ext = os.path.splitext(tail)
    return os.path.join(head, f".{stem}.partial-{os.getpid()}{ext}")


@contextmanager
def replacing(path: str, inputs: Iterable[str] = (), *, force: bool = False) -> Iterator[str]:
    """A temporary path to write; renamed over `path` when the block ends without error.

    For writers that take a file name (matplotlib's savefig, pyarrow).
    """
    check_target(path, inputs, force=force)
    if _is_special(path):
        try:
            yield path
        except OSError as exc:
            raise InputError(f"cannot write: {exc.strerror or exc}", path) from None
        return
    target = os.path.realpath(path)
    tmp = _temporary_name(target)
    try:
        yield tmp
        if not os.path.exists(tmp):
            raise RuntimeError(f"the writer of {path} wrote nothing")
        os.replace(tmp, target)
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror or exc}", path) from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


@contextmanager
def writing(path: str, inputs: Iterable[str] = (), *, force: bool = False,
            binary: bool = False) -> Iterator[IO]:
    """An open file to write `path` through a temporary file and a rename."""
    with replacing(path, inputs, force=force) as tmp:
        try:
            # surrogateescape: bytes of a command-line argument that are not UTF-8 (held as
            # lone surrogates) are written back as given, as standard output writes them
            handle = (open(tmp, "wb") if binary  # noqa: SIM115 - closed below
                      else open(tmp, "w", encoding="utf-8", errors="surrogateescape",
                                newline=""))
        except OSError as exc:
            raise InputError(f"cannot write: {exc.strerror or exc}", path) from None
        with handle:
            yield handle


def write_text(path: str, text: str, inputs: Iterable[str] = (), *,
               force: bool = False) -> None:
    """`text` into `path`, atomically, refusing stores and inputs unless `force`."""
    with writing(path, inputs, force=force) as handle:
        handle.write(text)
