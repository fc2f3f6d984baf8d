"""Run one fuzz case in-process and check benchlab's contract for bad input.

The contract (issue 15): the exit code is one the case allows (0 for valid input,
2 for bad usage or input; 1 only with --fail-on); on exit 2 stderr is exactly one
line starting with `benchlab:`; on exit 0 every stderr line starts with
`benchlab:` (notes); "Traceback" never appears; and no exception but SystemExit
escapes `main()` (anything else is counted as a traceback, as is exit 3, the
internal-error code). A case still running after `timeout` seconds is a hang.
"""

from __future__ import annotations

import io
import os
import signal
import socket
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from corpus import Case  # noqa: I001 - tests/fuzz is on sys.path (conftest or the script)


@dataclass(frozen=True)
class Outcome:
    """What one case did, and the contract problem, if any ("" when it kept it)."""

    case: Case
    code: int | None
    stderr: str
    seconds: float
    problem: str

    @property
    def kind(self) -> str:
        """"ok", "traceback", "hang", "exit" (wrong code) or "stderr" (not one line)."""
        return self.problem.split(":", 1)[0] if self.problem else "ok"


class _Hang(BaseException):
    """Raised by the alarm: not an Exception, so the code under test cannot catch it."""


@contextmanager
def _alarm(seconds: float):
    if seconds <= 0 or not hasattr(signal, "SIGALRM"):
        yield
        return

    def ring(*_):
        raise _Hang()

    old = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _stream() -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="replace", newline="")


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    return stream.buffer.getvalue().decode("utf-8", "replace")  # type: ignore[attr-defined]


def _make_special(path: Path, kind: str, sockets: list[socket.socket]) -> None:
    """A file that is not bytes: a named pipe, a socket (kept bound while the case runs), a
    directory, or a symbolic link ("link:TARGET")."""
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(str(path))
        sockets.append(listener)
    elif kind == "dir":
        path.mkdir()
        (path / "inside.txt").write_bytes(b"1\n2\n")
    elif kind.startswith("link:"):
        path.symlink_to(kind[len("link:"):])
    else:
        raise ValueError(f"unknown special file kind {kind!r}")


def run_case(case: Case, timeout: float = 60.0) -> Outcome:
    """Write the case's files to a fresh directory, run `benchlab ARGV`, check the contract."""
    from benchlab.cli.main import main

    sockets: list[socket.socket] = []
    with tempfile.TemporaryDirectory(prefix="benchlab-fuzz-") as tmp:
        for name, data in case.files.items():
            Path(tmp, name).write_bytes(data)
        for name, kind in case.specials.items():
            _make_special(Path(tmp, name), kind, sockets)
        argv = [a.replace("{dir}", tmp) for a in case.argv]
        out, err = _stream(), _stream()
        saved = sys.stdin, sys.stdout, sys.stderr
        cwd = os.getcwd()
        sys.stdin = io.TextIOWrapper(io.BytesIO(case.stdin), encoding="utf-8")
        sys.stdout, sys.stderr = out, err
        start = time.perf_counter()
        code: int | None = None
        escaped = ""
        try:
            os.chdir(tmp)
            with _alarm(timeout):
                code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        except _Hang:
            escaped = "hang"
        except BaseException as exc:  # noqa: BLE001 - the thing being counted
            escaped = f"{type(exc).__name__}: {exc}"
        finally:
            os.chdir(cwd)
            sys.stdin, sys.stdout, sys.stderr = saved
            for listener in sockets:
                listener.close()
        seconds = time.perf_counter() - start
        stderr = _text(err)
        shown = stderr.replace(tmp, "{dir}")
    return Outcome(case, code, shown, seconds, _problem(case, code, stderr, escaped))


def _problem(case: Case, code: int | None, stderr: str, escaped: str) -> str:
    if escaped == "hang":
        return "hang: still running after the timeout"
    if escaped:
        return f"traceback: {escaped[:300]}"
    if "Traceback" in stderr or code == 3:
        first = next((line for line in stderr.splitlines() if "rror" in line), stderr[:200])
        return f"traceback: exit {code}: {first[:300]}"
    if code not in case.exits:
        return f"exit: code {code}, allowed {case.exits}: {stderr.strip()[:200]}"
    lines = stderr.splitlines()
    if case.ministat and code == 2 and len(lines) == 1:
        return ""  # ministat mode reproduces ministat's own one-line messages
    if code == 2 and (len(lines) != 1 or not lines[0].startswith("benchlab:")):
        return f"stderr: exit 2 with {len(lines)} lines: {stderr[:300]!r}"
    if any(not line.startswith("benchlab:") for line in lines):
        return f"stderr: a line not from benchlab: {stderr[:300]!r}"
    return ""
