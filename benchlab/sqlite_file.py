"""One SQLite file as benchlab keeps it: opened, locked, published and written the same way
by both stores (runner/store.py, a run's store; history/store.py, the history).

What they share, kept here once:

- the header check (`check_header`) before SQLite opens a file, so a file cut short
  or with a corrupt header is named for what it is, not "not a SQLite database";
- `connect`: read-only opens never write (`mode=ro`; where SQLite cannot make the WAL
  index, in a directory this process cannot write or on a full disk, the file is
  opened `immutable=1` when no write-ahead log is beside it), and the schema is read
  at once, so a damaged file fails here with one line;
- one busy timeout, `BUSY_TIMEOUT` (30 s): the longest a command waits for another
  process's write lock. Concurrent `history add`s queue behind each other on this
  lock (20-30 at once on a loaded 2-core machine took more than 10 s), while a run's
  store has one writer (its flock) and readers that WAL does not block, so the longer
  wait costs nothing unless a lock is really held;
- `create`: a new file built under a temporary name, locked through its descriptor
  (`flock`) and published with link(2) (`publish`), so it is complete from the moment
  its name exists; `transaction` for BEGIN IMMEDIATE ... COMMIT;
- `failure`: SQLite's errors as one line that says what happened and what to do (a
  lock held by another process, a full disk, a read-only file, a damaged file).
"""

from __future__ import annotations

import errno
import os
import sqlite3
import stat
import struct
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO

from benchlab.errors import InputError

SQLITE_HEADER = b"SQLite format 3\x00"
HEADER_SIZE = 100
BUSY_TIMEOUT = 30.0  # seconds; see the module docstring for why one value and why 30

# SQLite's primary result codes (https://www.sqlite.org/rescode.html) and the message
# sqlite3 gives for each, for Pythons without `sqlite_errorcode` (before 3.11).
_BUSY, _LOCKED, _READONLY, _IOERR, _CORRUPT, _FULL, _CANTOPEN, _NOTADB = 5, 6, 8, 10, 11, 13, \
    14, 26
_MESSAGES = {"database is locked": _BUSY, "database table is locked": _LOCKED,
             "attempt to write a readonly database": _READONLY, "disk i/o error": _IOERR,
             "database disk image is malformed": _CORRUPT, "database or disk is full": _FULL,
             "unable to open database file": _CANTOPEN, "file is not a database": _NOTADB}


@dataclass(frozen=True)
class Kind:
    """Which of benchlab's files this is, as messages name it, and what to do after a
    write failed for want of space (`again`)."""

    noun: str  # "store", "history"
    again: str  # "free space and run again with --resume"


_STAMP: list = [None, ""]  # the second and its text, last made: a run stamps every trial


def timestamp() -> str:
    """The time now as both stores record it: UTC, ISO 8601 to the second, sorting as text."""
    import time

    now = int(time.time())
    if _STAMP[0] != now:
        _STAMP[:] = [now, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now))]
    return _STAMP[1]


def is_sqlite(path: str) -> bool:
    """True when `path` starts with SQLite's header (False when it cannot be read)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO's open waits for a writer
            return False
        with open(path, "rb") as handle:
            return handle.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


def check_header(path: str, kind: Kind) -> bool:
    """Refuse, with an accurate message, a file SQLite could not read right; whether it
    has SQLite's header at all (False: the caller says what the file is not).

    Checks, before SQLite opens it: that the file can be read (permissions), that its
    100-byte header is whole and consistent (page size a power of two from 512 to
    65536, the fixed payload fractions 64, 32, 32; https://www.sqlite.org/fileformat.html
    section 1.3), and that the file is as long as its header says (a file cut short by a
    full disk or an interrupted copy). With a write-ahead log beside it the length is
    not checked: a checkpoint that a full disk stopped leaves page 1 written and the
    file not yet grown, and SQLite completes the file from the log's frames.
    """
    try:
        mode = os.stat(path).st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):  # a FIFO's open waits for a writer
            raise InputError(f"is a device, named pipe or socket, not a benchlab {kind.noun}",
                             path)
        with open(path, "rb") as handle:
            header = handle.read(HEADER_SIZE)
            size = os.fstat(handle.fileno()).st_size
    except FileNotFoundError:
        raise InputError("no such file", path) from None
    except IsADirectoryError:
        raise InputError(f"is a directory, not a benchlab {kind.noun}", path) from None
    except PermissionError:
        raise InputError(f"permission denied: the {kind.noun} cannot be read (check the "
                         "file's permissions)", path) from None
    except OSError as exc:
        raise InputError(f"cannot read the {kind.noun}: {exc.strerror or exc}", path) from None
    if not header.startswith(SQLITE_HEADER):
        return False
    if len(header) < HEADER_SIZE:
        raise InputError(f"a SQLite database cut short: {size} bytes, less than its "
                         f"{HEADER_SIZE}-byte header (was the copy interrupted?)", path)
    page_size = struct.unpack(">H", header[16:18])[0]
    page_size = 65536 if page_size == 1 else page_size
    if page_size < 512 or page_size & (page_size - 1) or header[21:24] != b"\x40\x20\x20":
        raise InputError("a damaged SQLite database: its header is corrupt", path)
    pages = struct.unpack(">I", header[28:32])[0]
    change, valid_for = header[24:28], header[92:96]
    if change == valid_for and pages and size < pages * page_size and _no_log(path):
        raise InputError(f"a SQLite database cut short: its header says {pages * page_size} "
                         f"bytes ({pages} pages), the file has {size} (was the copy "
                         "interrupted?)", path)
    if size < page_size:
        raise InputError(f"a SQLite database cut short: {size} bytes, less than one "
                         f"{page_size}-byte page", path)
    return True


def _code(exc: BaseException) -> int | None:
    """SQLite's primary result code of `exc`, from the exception or its message."""
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF
    return _MESSAGES.get(str(exc).strip().lower())


def _no_space(path: str) -> bool:
    """Whether the file system holding `path` has no room left (statvfs: under one
    4 KiB block free for an unprivileged writer)."""
    try:
        st = os.statvfs(os.path.dirname(os.path.abspath(path)) or ".")
    except OSError:
        return False
    return st.f_bavail * st.f_frsize < 4096


def failure(exc: BaseException, path: str, kind: Kind, *, writing: bool,
            table: str | None = None) -> InputError:
    """`exc` (a sqlite3.Error or an OSError) as the one line a user acts on."""
    code = _code(exc) if isinstance(exc, sqlite3.Error) else None
    if isinstance(exc, OSError):
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            code = _FULL
        elif exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            code = _READONLY
    if code in (_BUSY, _LOCKED):
        return InputError(f"locked by another process (waited {BUSY_TIMEOUT:g} s for its "
                          "write lock): wait for that process to finish, or stop it, then "
                          "try again", path)
    if code == _FULL or (writing and code in (_IOERR, _CANTOPEN) and _no_space(path)):
        return InputError(f"disk full while writing {path}; nothing was lost; {kind.again}")
    if not writing and code in (_IOERR, _CANTOPEN) and _no_space(path):
        return InputError(f"no room on the disk to read {path} (SQLite writes an index file "
                          "beside it); nothing was lost; free space and try again")
    if code == _READONLY or (writing and code == _CANTOPEN and not _writable(path)):
        return InputError(f"cannot write the {kind.noun}: the file or its directory is "
                          "read-only (reading it works; writing needs write permission on "
                          "both)", path)
    if isinstance(exc, OSError):
        return InputError(f"cannot {'write' if writing else 'read'} the {kind.noun}: "
                          f"{exc.strerror or exc}", path)
    if code in (_CORRUPT, _NOTADB) or (table and not writing):
        what = f"reading table {table} failed" if table else "SQLite cannot read it"
        return InputError(f"a damaged SQLite database: {what} ({_short(exc)})", path)
    doing = "writing" if writing else "opening"
    return InputError(f"SQLite failed while {doing} the {kind.noun} ({_short(exc)})", path)


def _short(exc: BaseException) -> str:
    """SQLite's message, cut to 120 characters (it may quote a whole damaged cell)."""
    text = str(exc)
    return text if len(text) <= 120 else text[:117] + "..."


def _writable(path: str) -> bool:
    """Whether this process may write `path` and create files beside it."""
    folder = os.path.dirname(os.path.abspath(path))
    return os.access(folder, os.W_OK) and (not os.path.exists(path) or
                                           os.access(path, os.W_OK))


def _uri(path: str, **params: str) -> str:
    """A file: URI of `path` (urllib.parse's quote, as pathname2url on POSIX, without the
    25 ms of importing urllib.request)."""
    from urllib.parse import quote, urlencode

    return f"file:{quote(os.path.abspath(path))}?{urlencode(params)}"


def connect(path: str, kind: Kind, *, write: bool) -> tuple[sqlite3.Connection, set[str]]:
    """An autocommit connection to the existing SQLite file `path` and its table names.

    A reader's connection is read-only (`mode=ro`) and never creates a file. Where
    SQLite cannot make a WAL database's index file (a directory this process cannot
    write, a full disk) and no write-ahead log with frames is beside it, the file is
    opened `immutable=1`: with no log, the file alone is the whole database, and a
    writer could not add to a log there either. The header is checked first and the schema
    read at once, so every problem is one InputError.
    """
    if not check_header(path, kind):
        raise InputError(f"not a benchlab {kind.noun} (not a SQLite database)", path)
    alone = _no_log(path)
    try:
        return _connect(path, write=write, immutable=not write and alone and
                        not _writable(path))
    except sqlite3.Error as exc:
        if write or not alone or _code(exc) not in (_CANTOPEN, _IOERR):
            raise failure(exc, path, kind, writing=write) from None
        first = exc
    try:  # a full disk has no room for the WAL index either
        return _connect(path, write=False, immutable=True)
    except sqlite3.Error:
        raise failure(first, path, kind, writing=False) from None


def _no_log(path: str) -> bool:
    """Whether no write-ahead log with frames is beside `path` (none, or an empty one
    left by a writer that found no room): then the file is the whole database."""
    try:
        return os.path.getsize(path + "-wal") == 0
    except OSError:
        return True


def _connect(path: str, *, write: bool, immutable: bool
             ) -> tuple[sqlite3.Connection, set[str]]:
    """`connect`'s one attempt: SQLite's errors raised as they are."""
    if write:
        conn = sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT)
    else:
        params = {"immutable": "1"} if immutable else {"mode": "ro"}
        conn = sqlite3.connect(_uri(path, **params), uri=True, isolation_level=None,
                               timeout=BUSY_TIMEOUT)
    try:
        tables = {r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
    except BaseException:
        conn.close()
        raise
    return conn, tables


@contextmanager
def reading(path: str, kind: Kind, table: str) -> Iterator[None]:
    """SQLite's errors while reading `table` as one InputError naming the file and table."""
    try:
        yield
    except sqlite3.Error as exc:
        raise failure(exc, path, kind, writing=False, table=table) from None


@contextmanager
def writing(path: str, kind: Kind) -> Iterator[None]:
    """SQLite's (and the file system's) errors while writing as one InputError."""
    try:
        yield
    except (sqlite3.Error, OSError) as exc:
        raise failure(exc, path, kind, writing=True) from None


class transaction:
    """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on error) on an autocommit connection.

    SQLite rolls a transaction back by itself after some errors (a full disk among
    them); the ROLLBACK is then skipped, so the first error is the one raised."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, kind, value, tb) -> None:
        if kind is None:
            self.conn.execute("COMMIT")
        elif self.conn.in_transaction:
            try:
                self.conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # the error being raised says what went wrong; SQLite rolled back


def flock(path: str) -> IO[bytes]:
    """An open handle of `path` holding an exclusive flock (BlockingIOError if taken).

    The lock belongs to the open file, not to the name: it stays on the file when it is
    linked to its final name, and the kernel drops it when the process dies, however it
    dies."""
    import fcntl

    handle = open(path, "rb")  # noqa: SIM115 - held by the caller until it closes the file
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BaseException:
        handle.close()
        raise
    return handle


def publish(tmp: str, path: str) -> None:
    """Give the finished file at `tmp` the name `path`, only if no file has that name
    (FileExistsError otherwise).

    link(2) is atomic and exclusive; where the file system has no hard links, the name
    is claimed with O_CREAT|O_EXCL and the file renamed over the claim."""
    try:
        os.link(tmp, path)
        return
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK,
                             errno.EXDEV):
            raise
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    os.replace(tmp, path)


def remove_stale(path: str) -> None:
    """Remove the half-made files of processes killed while creating `path`."""
    import glob

    for tmp in glob.glob(glob.escape(path) + ".partial-*"):
        pid = tmp.rsplit(".partial-", 1)[-1].split(".")[0]
        if not pid.isdigit():
            continue
        try:
            os.kill(int(pid), 0)
            continue  # still running
        except ProcessLookupError:
            pass
        except PermissionError:
            continue
        try:
            os.unlink(tmp)
        except OSError:
            pass


def create(path: str, kind: Kind, schema: str,
           fill: Callable[[sqlite3.Connection], None]) -> IO[bytes]:
    """A new WAL database at `path` holding `schema` and what `fill` writes (one
    transaction), built aside and published whole; the handle holding its flock.

    The file is private until published, so SQLite does not sync it while building
    (synchronous=OFF: each commit and the checkpoint synced it, ten fdatasync calls per
    store); it is synced once, whole, before its name appears, so a published file is on
    disk complete even across a power cut.

    FileExistsError when a file named `path` exists or appears meanwhile (the caller
    decides: refuse, or use the other's); every other failure is one InputError, and
    no temporary file is left behind.
    """
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise InputError(f"cannot create the {kind.noun}: directory {parent} does not exist",
                         path)
    if os.path.lexists(path):
        raise FileExistsError(errno.EEXIST, "exists", path)
    remove_stale(path)
    tmp = f"{path}.partial-{os.getpid()}.{os.urandom(4).hex()}"
    lock = None
    try:
        conn = sqlite3.connect(tmp, isolation_level=None)
        try:
            conn.execute("PRAGMA synchronous=OFF")
            conn.execute("PRAGMA journal_mode=WAL")
            conn.executescript("BEGIN;" + schema + "COMMIT;")
            with transaction(conn):
                fill(conn)
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            conn.close()
        _sync(tmp)
        lock = flock(tmp)  # the inode is ours before its name is public
        publish(tmp, path)
    except BaseException as exc:
        if lock is not None:
            lock.close()
        if isinstance(exc, (sqlite3.Error, OSError)) and not isinstance(exc, FileExistsError):
            raise _create_failure(exc, path, kind) from None
        raise
    finally:
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(tmp + suffix):
                os.unlink(tmp + suffix)
    return lock


def _sync(path: str) -> None:
    """`path`'s data on disk (fdatasync)."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        os.fdatasync(fd)
    finally:
        os.close(fd)


def _create_failure(exc: BaseException, path: str, kind: Kind) -> InputError:
    """A failure to create the file: a full disk or a read-only directory said as such."""
    code = _code(exc) if isinstance(exc, sqlite3.Error) else None
    full = code == _FULL or (isinstance(exc, OSError) and exc.errno in (errno.ENOSPC,
                                                                         errno.EDQUOT))
    if full or (code in (_IOERR, _CANTOPEN) and _no_space(path)):
        return InputError(f"disk full while creating {path}; nothing was written; free space "
                          "and try again")
    if code in (_READONLY, _CANTOPEN) and not _writable(path):
        return InputError(f"cannot create the {kind.noun}: its directory is read-only", path)
    if isinstance(exc, OSError):
        return InputError(f"cannot create the {kind.noun}: {exc.strerror or exc}", path)
    return InputError(f"cannot create the {kind.noun} ({_short(exc)})", path)
