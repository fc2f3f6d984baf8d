"""Run one process: time it, collect its resource usage, parse its output, enforce a timeout.

Timer: `time.perf_counter_ns()` (CLOCK_MONOTONIC on Linux, 1 ns resolution as
reported by `time.get_clock_info`), read just before the process is spawned and
just after `os.wait4` has reaped it, as hyperfine does; user and system CPU time
and the peak resident set size come from the rusage `wait4` returns (Linux
reports ru_maxrss in KiB; it is stored in bytes).

Output is read through pipes with poll(2) in chunks, so memory stays bounded
whatever a command prints: standard error keeps only its last 4 KiB (the tail
recorded for a failure), and standard output — read only when values are
parsed from it, else sent to /dev/null — is parsed line by line, a line
longer than 64 KiB being an error, not a growing buffer. The end of the process
is watched with a pidfd (Linux ≥ 5.3) beside the pipes, so a timeout holds even
when a descendant keeps the pipes open. Each command runs in its own session;
on a timeout, or when its descendants still hold the pipes after it exited,
the whole process group is killed.

Processes are started with os.posix_spawn (glibc spawns with vfork semantics:
no copy of the runner's memory, the cheapest start), in a new session, stdin
from /dev/null; the working directory and CPU pinning are set in the runner
around the spawn call. Written by hand: subprocess cannot give the child's
rusage (it waits with waitpid), cannot bound what it captures, and its Popen
costs more per start than hyperfine's (benchmarks/runner_overhead.py).

Peak RSS caveat: Linux carries the high-water mark of the address space an
exec replaces into the child's ru_maxrss, so the maxrss of a command is at
least the resident size of the runner (a Python process, tens of MB) when it
spawns; it is meaningful for commands that use more than that.
"""

from __future__ import annotations

import json
import math
import os
import re
import select
import shutil
import signal
import time
from dataclasses import dataclass, field

TAIL_BYTES = 4096
MAX_LINE = 65536
CHUNK = 65536
GRACE_S = 0.2  # after the process exits, how long silent pipes held by descendants are read


@dataclass(frozen=True)
class Outcome:
    """What one process did. `error` is None when it succeeded (and its output parsed)."""

    wall: float
    user: float
    sys: float
    maxrss: int
    exit_code: int | None
    signal: int | None
    timed_out: bool
    error: str | None
    stderr_tail: str
    rows: list[dict[str, float]] = field(default_factory=list)  # parsed: one per iteration

    @property
    def ok(self) -> bool:
        return self.error is None


class OutputParser:
    """Values parsed line by line from standard output: a regex whose named groups are the
    metrics (each match is one iteration), or JSON lines whose listed keys are the metrics."""

    def __init__(self, kind: str, metrics: tuple[str, ...], regex: str | None,
                 expected: int | None) -> None:
        self.kind, self.metrics, self.expected = kind, metrics, expected
        self.regex = re.compile(regex) if regex else None
        self.rows: list[dict[str, float]] = []
        self.extra = 0
        self.error: str | None = None
        self._partial = bytearray()
        self._skipping = False
        self._line = 0

    def feed(self, data: bytes) -> None:
        lines = data.split(b"\n")
        rest = lines.pop()
        if lines:
            if self._skipping:  # the end of an overlong line: dropped
                lines.pop(0)
                self._skipping = False
                self._line += 1
            elif self._partial:
                lines[0] = bytes(self._partial) + lines[0]
                self._partial.clear()
            if self.error is None and lines:  # decode the chunk once, then parse each line
                for i, line in enumerate(b"\n".join(lines).decode("utf-8", "replace")
                                         .split("\n"), start=self._line + 1):
                    self._parse(line, i)
            self._line += len(lines)
        if rest and not self._skipping:
            self._partial += rest
            if len(self._partial) > MAX_LINE:
                self._fail(f"line {self._line + 1} of the output is longer than "
                           f"{MAX_LINE // 1024} KiB")
                self._partial.clear()
                self._skipping = True

    def close(self) -> None:
        if self._partial and not self._skipping and self.error is None:
            self._line += 1
            self._parse(self._partial.decode("utf-8", "replace"), self._line)
            self._partial.clear()
        if self.error is None and self.expected is not None and \
                len(self.rows) + self.extra != self.expected:
            got = len(self.rows) + self.extra
            self._fail(f"{got} value{'s' if got != 1 else ''} in the output where "
                       f"{self.expected} were expected (iterations)")

    def _parse(self, text: str, line: int) -> None:
        if self.error is not None:
            return
        if self.regex is not None:
            for m in self.regex.finditer(text):
                self._row({k: v for k, v in m.groupdict().items() if v is not None}, line)
            return
        stripped = text.strip()
        if not stripped.startswith("{"):
            return
        try:
            obj = json.loads(stripped)
        except ValueError:
            self._fail(f"line {line} of the output is not valid JSON")
            return
        if isinstance(obj, dict):
            found = {k: obj[k] for k in self.metrics if k in obj}
            if found:
                self._row(found, line)

    def _row(self, found: dict[str, object], line: int) -> None:
        row: dict[str, float] = {}
        for key, raw in found.items():
            value = _number(raw)
            if value is None:
                self._fail(f"line {line} of the output: {key} = {str(raw)[:40]!r} is not "
                           "a finite number")
                return
            row[key] = value
        if self.expected is not None and len(self.rows) >= self.expected:
            self.extra += 1  # counted, not kept: memory stays bounded
            return
        self.rows.append(row)

    def _fail(self, message: str) -> None:
        if self.error is None:
            self.error = message


def _number(raw: object) -> float | None:
    if isinstance(raw, bool):
        return None
    try:
        value = float(raw)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


class _Tail:
    def __init__(self) -> None:
        self.data = bytearray()

    def feed(self, chunk: bytes) -> None:
        self.data += chunk
        if len(self.data) > 2 * TAIL_BYTES:
            del self.data[:-TAIL_BYTES]

    def text(self) -> str:
        return bytes(self.data[-TAIL_BYTES:]).decode("utf-8", errors="replace")


def resolve(program: str, env: dict[str, str] | None, cwd: str | None) -> str | None:
    """The path posix_spawn should execute: `program` looked up in the PATH of `env` (as a
    shell would), or as given when it names a path (relative to `cwd`)."""
    if os.sep in program:
        return program
    path = (env if env is not None else os.environ).get("PATH", os.defpath)
    return shutil.which(program, path=path)


def run_process(argv: list[str], *, cwd: str | None = None, env: dict[str, str] | None = None,
                timeout: float | None = None, parser: OutputParser | None = None,
                cpus: tuple[int, ...] | None = None, executable: str | None = None) -> Outcome:
    """Spawn `argv`, wait for it with wait4, and report its times, usage, output and errors.

    `executable` is argv[0] already resolved (see `resolve`), to keep the lookup out of
    repeated executions; the process gets its own session, stdin from /dev/null, stdout
    to /dev/null unless a parser reads it, and stderr through a pipe (its tail is kept).
    """
    program = executable or resolve(argv[0], env, cwd)
    if program is None:
        return Outcome(0.0, 0.0, 0.0, 0, None, None, False,
                       f"cannot run {argv[0]!r}: command not found", "")
    tail = _Tail()
    err_r, err_w = os.pipe()  # both close-on-exec; dup2 makes the child's copy inheritable
    out_r = out_w = None
    actions: list[tuple] = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                            (os.POSIX_SPAWN_DUP2, err_w, 2)]
    if parser is not None:
        out_r, out_w = os.pipe()
        actions.append((os.POSIX_SPAWN_DUP2, out_w, 1))
    else:
        actions.append((os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0))
    poller, readers = _readers(err_r, out_r, tail, parser)
    previous_cpus = previous_cwd = None
    pid, start, failure = None, 0, ""
    try:
        if cpus is not None:
            previous_cpus = os.sched_getaffinity(0)
            os.sched_setaffinity(0, cpus)
        if cwd is not None:
            failure = f"cannot enter the working directory {cwd}"
            here = os.getcwd()
            os.chdir(cwd)
            previous_cwd = here
        failure = f"cannot run {argv[0]!r}"
        start = time.perf_counter_ns()
        pid = os.posix_spawn(program, argv, os.environ if env is None else env,
                             file_actions=actions, setsid=True)
    except OSError as exc:
        failure = f"{failure}: {exc.strerror or exc}"
    finally:
        if previous_cwd is not None:
            os.chdir(previous_cwd)
        if previous_cpus is not None:
            os.sched_setaffinity(0, previous_cpus)
        os.close(err_w)
        if out_w is not None:
            os.close(out_w)
    if pid is None:
        os.close(err_r)
        if out_r is not None:
            os.close(out_r)
        wall = (time.perf_counter_ns() - start) / 1e9 if start else 0.0
        return Outcome(wall, 0.0, 0.0, 0, None, None, False, failure, "")
    deadline = None if timeout is None else start / 1e9 + timeout
    try:
        status, usage, timed_out, end = _supervise(pid, poller, readers, deadline)
    except BaseException:  # interrupted (Ctrl-C, SIGTERM): end the command's process group too
        _kill_group(pid)
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
        raise
    finally:
        os.close(err_r)
        if out_r is not None:
            os.close(out_r)
    wall = (end - start) / 1e9
    exit_code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    error = None
    if timed_out:
        error = f"timed out after {timeout:g} s"
    elif sig is not None:
        error = f"killed by signal {_signal_name(sig)}"
    elif exit_code != 0:
        error = f"exit code {exit_code}"
    rows: list[dict[str, float]] = []
    if parser is not None:
        parser.close()
        if error is None and parser.error is not None:
            error = f"unparsable output: {parser.error}"
        rows = parser.rows
    return Outcome(wall, usage.ru_utime, usage.ru_stime, int(usage.ru_maxrss) * 1024, exit_code,
                   sig, timed_out, error, tail.text(), rows)


def _signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return str(sig)


def _readers(err_fd: int, out_fd: int | None, tail: _Tail, parser: OutputParser | None
             ) -> tuple[select.poll, dict[int, object]]:
    """A poll object watching the pipes' read ends (made non-blocking), and their sinks;
    prepared before the timer starts."""
    poller = select.poll()
    readers: dict[int, object] = {}
    for fd, sink in ((err_fd, tail), (out_fd, parser)):
        if fd is not None:
            os.set_blocking(fd, False)
            poller.register(fd, select.POLLIN)
            readers[fd] = sink
    return poller, readers


def _supervise(pid: int, poller: select.poll, readers: dict[int, object],
               deadline: float | None) -> tuple[int, object, bool, int]:
    """Read the pipes until the process has exited and the pipes are closed (or silent for
    GRACE_S after the exit), killing the process group at the deadline; returns the wait4
    status, rusage, whether it timed out and the perf_counter_ns when it was reaped."""
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None
    if pidfd is not None:
        poller.register(pidfd, select.POLLIN)
    result = None
    end = 0
    timed_out = False
    exited_at: float | None = None
    try:
        while True:
            now = time.perf_counter()
            if deadline is not None and now >= deadline and result is None:
                _kill_group(pid)
                timed_out = True
                result = os.wait4(pid, 0)
                end = time.perf_counter_ns()
                break
            if result is None and pidfd is None:
                done = os.wait4(pid, os.WNOHANG)
                if done[0] != 0:
                    result = done
                    end = time.perf_counter_ns()
                    exited_at = now
            if not readers and result is not None:
                break
            if not readers and deadline is None:  # pipes closed, no deadline: wait4 blocks
                result = os.wait4(pid, 0)
                end = time.perf_counter_ns()
                break
            wait_ms = None if deadline is None else max(0.0, (deadline - now) * 1000)
            if result is not None:
                wait_ms = max(0.0, (exited_at + GRACE_S - now) * 1000)  # type: ignore[operator]
            elif pidfd is None:
                wait_ms = 1.0 if wait_ms is None else min(wait_ms, 1.0)
            events = poller.poll(None if wait_ms is None else int(math.ceil(wait_ms)))
            if not events and result is not None:
                _kill_group(pid)  # descendants keep the pipes open: end them
                break
            if len(events) > 1:  # reap first: the end time is taken before any reading
                events.sort(key=lambda event: event[0] != pidfd)
            for fd, _ in events:
                if fd == pidfd:
                    poller.unregister(pidfd)
                    result = os.wait4(pid, 0)
                    end = time.perf_counter_ns()
                    exited_at = end / 1e9
                    continue
                try:
                    chunk = os.read(fd, CHUNK)
                except BlockingIOError:
                    continue
                if not chunk:
                    poller.unregister(fd)
                    readers.pop(fd)
                    continue
                readers[fd].feed(chunk)  # type: ignore[attr-defined]
    finally:
        if pidfd is not None:
            os.close(pidfd)
    return result[1], result[2], timed_out, end


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
