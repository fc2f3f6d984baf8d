"""Run one process: time it, collect its resource usage, parse its output, enforce a timeout.

Timer: `time.perf_counter_ns()` (CLOCK_MONOTONIC on Linux, 1 ns resolution as
reported by `time.get_clock_info`), read just before the process is spawned and
as soon as the runner learns that it has exited: when the poll that reports its
pidfd readable returns (the same event hyperfine's blocking wait returns on),
before `os.wait4` reaps it, so no Python between the wake-up and the reaping
is timed (without a pidfd: just after `os.wait4`); user and system CPU time
and the peak resident set size come from the rusage `wait4` returns (Linux
reports ru_maxrss in KiB; it is stored in bytes).

Output is read through pipes with poll(2) in chunks, so memory stays bounded
whatever a command prints: standard error keeps only its last 4 KiB (the tail
recorded for a failure), and standard output — read only when values are
parsed from it, else sent to /dev/null — is parsed line by line, a line
longer than 64 KiB being an error, not a growing buffer. The end of the process
is watched with a pidfd (Linux ≥ 5.3) beside the pipes, so a timeout holds even
when a descendant keeps the pipes open. Each command runs in its own process
group; on a timeout the whole group is killed, and once a trial's command has
exited and its time is taken, whatever it left running in the group (a
descendant holding the pipes, a server in the background) gets SIGTERM, then
SIGKILL, and is counted (`Outcome.leftovers`, a warning of the run).

Processes are started with posix_spawn (glibc spawns with vfork semantics: no
copy of the runner's memory, the cheapest start), stdin from /dev/null, with
everything the start needs — argv and envp as C arrays, the file actions, the
attributes, the /dev/null descriptors and the pipes — prepared before the
timer starts (benchlab/runner/spawn.py says how, and why a process group and
not a session); a command started before reuses its C structures
(`spawn.prepared`), and /dev/null is opened once per runner, so an execution
costs the runner few system calls beside the spawn and the wait. The runner
holds its copies of the child's pipes until the child is reaped, so the exit
wakes it once (pidfd), not first at the pipes' end of file, and then reads
them to their end without waiting again. The runner enters the working
directory (unless it is there) before the timer starts and returns once the
child is reaped; it pins itself to `cpus` before the spawn and restores its
affinity right after it (inside the timed region: one system call, only with
`cpus`), to stay off the benchmark's CPUs.
Written by hand: subprocess cannot give the child's rusage (it waits with
waitpid), cannot bound what it captures, and its Popen costs more per start
than hyperfine's (benchmarks/runner_overhead.py).

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

from benchlab.runner import spawn

TAIL_BYTES = 4096
MAX_LINE = 65536
CHUNK = 65536
GRACE_S = 0.2  # after the process exits, how long silent pipes held by descendants are read
LEFTOVER_GRACE_S = 0.5  # how long leftover processes have between SIGTERM and SIGKILL
# The process (group) ids of the commands this process is waiting for now: another thread (a
# Dask worker's event loop, runner/worker.py's stop_trials) kills them when the driver is
# interrupted. One set.add in the timed region (no system call), removed after the reaping.
RUNNING: set[int] = set()


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
    # processes the command left running in its process group, killed once it ended
    leftovers: int = 0
    # events counted in it (perf_event_open's, or a counter's `instructions`), by metric
    counts: dict[str, float] = field(default_factory=dict)
    # a counted execution's profiles kept for profile-diff: Valgrind's out files, one per
    # process, compressed (runner/counter.py); empty unless kept
    profiles: tuple[bytes, ...] = ()
    # a counted execution under cache simulation: the caches Valgrind simulated, as its
    # out file's desc: lines say ({"I1": "32768 B, 64 B, 8-way associative", ...})
    caches: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None


class OutputParser:
    """Values parsed line by line from standard output: a regex whose named groups are the
    metrics (each match is one iteration), or JSON lines whose listed keys are the metrics."""

    def __init__(self, kind: str, metrics: tuple[str, ...], regex: str | None,
                 expected: int | None, watch=None) -> None:
        self.kind, self.metrics, self.expected = kind, metrics, expected
        self.watch, self.stopped = watch, False  # [steady_state]: runner/steady.py
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
        if self.error is None and self.expected is not None and not self.stopped and \
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
        if self.watch is not None and not self.stopped and self.watch(self.rows):
            self.stopped = True  # enough: _supervise ends the process

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
                cpus: tuple[int, ...] | None = None, executable: str | None = None,
                end_group: bool = True, counters=None) -> Outcome:
    """Spawn `argv`, wait for it with wait4, and report its times, usage, output and errors.

    `executable` is argv[0] already resolved (see `resolve`), to keep the lookup out of
    repeated executions; the process gets its own process group, stdin from /dev/null, stdout
    to /dev/null unless a parser reads it, and stderr through a pipe (its tail is kept).
    Everything the start needs is prepared before the timer starts (`spawn.prepared`); between
    the two timer reads lie only the spawn call, restoring the runner's CPU affinity when
    `cpus` pinned it, and the wait.

    With `end_group` (a trial's commands; not setup, which may start a server the trials
    use), processes the command leaves running in its process group are ended once the
    measurement is taken (`end_leftovers`: SIGTERM, then SIGKILL) and counted in the
    outcome's `leftovers`.

    `counters` (a perf_event.Counters) are read just before the timer starts and after the
    process is reaped, both outside the timed region: their difference is what the process
    and its descendants counted from their exec (`Outcome.counts`).
    """
    program = executable or resolve(argv[0], env, cwd)
    if program is None:
        return Outcome(0.0, 0.0, 0.0, 0, None, None, False,
                       f"cannot run {argv[0]!r}: command not found", "")
    tail = _Tail()
    null_in, null_out = _null()
    err_r, err_w = os.pipe()  # close-on-exec; the child gets copies through dup2
    out_r = None
    if parser is not None:
        out_r, out_w = os.pipe()
    else:
        out_w = null_out
    # The child's 0, 1, 2. The runner holds the pipes until the child is reaped, so their
    # end of file does not wake it before the exit does (a second wake-up, ~10 µs, timed).
    fds = (null_in, out_w, err_w)
    held = [err_w] if parser is None else [out_w, err_w]
    poller, readers = _readers(err_r, out_r, tail, parser)
    previous_cpus = previous_cwd = None
    pid, start, failure, before = None, 0, f"cannot run {argv[0]!r}", None
    try:
        try:
            start_process = spawn.prepared(program, argv, env, fds)
            if cpus is not None:
                previous_cpus = os.sched_getaffinity(0)
                os.sched_setaffinity(0, cpus)
            if cwd is not None:
                failure = f"cannot enter the working directory {cwd}"
                here = os.getcwd()
                if cwd != here:  # most runs stay where they are: no chdir there and back
                    os.chdir(cwd)
                    previous_cwd = here
            failure = f"cannot run {argv[0]!r}"
            before = counters.snapshot() if counters is not None else None
            start = time.perf_counter_ns()
            pid = start_process()
        except (OSError, ValueError) as exc:
            failure = f"{failure}: {getattr(exc, 'strerror', None) or exc}"
        finally:
            if previous_cpus is not None:  # the runner leaves the benchmark's CPUs at once
                os.sched_setaffinity(0, previous_cpus)
        if pid is None:
            wall = (time.perf_counter_ns() - start) / 1e9 if start else 0.0
            return Outcome(wall, 0.0, 0.0, 0, None, None, False, failure, "")
        RUNNING.add(pid)
        deadline = None if timeout is None else start / 1e9 + timeout
        try:
            status, usage, timed_out, end = _supervise(pid, poller, readers, deadline, held,
                                                       end_group)
            # after the measurement (its end is taken): what the command left behind
            leftovers = end_leftovers(pid) if end_group and not timed_out else 0
        except BaseException:  # interrupted (Ctrl-C, SIGTERM): end the command's group too
            _kill_group(pid)
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
            raise
    finally:
        RUNNING.discard(pid)  # type: ignore[arg-type]
        if previous_cwd is not None:
            os.chdir(previous_cwd)
        _close(held)
        os.close(err_r)
        if out_r is not None:
            os.close(out_r)
    wall = (end - start) / 1e9
    counts = counters.since(before)[0] if counters is not None and before is not None else {}
    exit_code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    error = None
    if timed_out:
        error = f"timed out after {timeout:g} s"
    elif parser is not None and parser.stopped:
        pass  # ended by the runner: its steady state was reached ([steady_state])
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
                   sig, timed_out, error, tail.text() if tail.data else "", rows, leftovers,
                   counts)


_NULL: tuple[int, int] | None = None  # /dev/null for reading and writing, for every child


def _null() -> tuple[int, int]:
    """The runner's two /dev/null descriptors (close-on-exec), opened once and kept: each
    child gets copies through dup2, so no execution opens or closes them."""
    global _NULL
    if _NULL is None:
        _NULL = (os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC),
                 os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC))
    return _NULL


def _close(fds: list[int]) -> None:
    """Close the descriptors the runner held for the child, once."""
    while fds:
        os.close(fds.pop())


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
               deadline: float | None, held: list[int], end_group: bool = True
               ) -> tuple[int, object, bool, int]:
    """Read the pipes until the process has exited and the pipes are closed (or silent for
    GRACE_S after the exit), killing the process group at the deadline; returns the wait4
    status, rusage, whether it timed out and the perf_counter_ns of its end (when the poll
    that saw the pidfd readable returned; without a pidfd, when wait4 reaped it).

    The runner's copies of the child's descriptors (`held`) are closed once it is reaped:
    until then the only event its exit raises is the pidfd's, and wait4 follows at once."""
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
    ended = False
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
                    _close(held)
            if not readers and result is not None:
                break
            wait_ms = None if deadline is None else max(0.0, (deadline - now) * 1000)
            if result is not None:
                wait_ms = max(0.0, (exited_at + GRACE_S - now) * 1000)  # type: ignore[operator]
            elif pidfd is None:
                wait_ms = 1.0 if wait_ms is None else min(wait_ms, 1.0)
            events = poller.poll(None if wait_ms is None else int(math.ceil(wait_ms)))
            woke = time.perf_counter_ns()  # the end, if this wake-up is the pidfd's
            if not events and result is not None:
                if not end_group:
                    _kill_group(pid)  # descendants keep the pipes open: end them
                break  # else run_process ends them, counted, once this returns
            if len(events) > 1:  # reap first: the end time is taken before any reading
                events.sort(key=lambda event: event[0] != pidfd)
            for fd, _ in events:
                if fd == pidfd:
                    end = woke
                    result = os.wait4(pid, 0)
                    poller.unregister(pidfd)
                    exited_at = end / 1e9
                    _close(held)
                    _drain(poller, readers)  # usually at their end now: no second poll
                    continue
                if fd in readers:  # else drained to its end just now
                    sink = readers[fd]
                    _read_chunk(poller, readers, fd)
                    if result is None and getattr(sink, "stopped", False) and not ended:
                        _kill_group(pid)  # [steady_state] reached: the rest is not needed
                        ended = True
    finally:
        if pidfd is not None:
            os.close(pidfd)
    return result[1], result[2], timed_out, end


def _read_chunk(poller: select.poll, readers: dict[int, object], fd: int) -> bool:
    """Read one chunk of pipe `fd` into its reader; False when it is empty for now or at its
    end of file (then it is unregistered and dropped)."""
    try:
        chunk = os.read(fd, CHUNK)
    except BlockingIOError:
        return False
    if not chunk:
        poller.unregister(fd)
        readers.pop(fd)
        return False
    readers[fd].feed(chunk)  # type: ignore[attr-defined]
    return True


def _drain(poller: select.poll, readers: dict[int, object]) -> None:
    """Read the pipes until each is empty for now (then poll waits for the rest) or at its
    end of file (then it is done)."""
    for fd in list(readers):
        while _read_chunk(poller, readers, fd):
            pass


def stop_running() -> int:
    """Kill (SIGKILL) the process group of every command this process is waiting for now,
    from another thread; the waiting thread then reaps it and reports it killed. Returns how
    many groups were signalled."""
    killed = 0
    for pid in list(RUNNING):
        try:
            os.killpg(pid, signal.SIGKILL)
            killed += 1
        except (ProcessLookupError, PermissionError):
            pass
    return killed


def end_leftovers(pgid: int, grace: float = LEFTOVER_GRACE_S) -> int:
    """End the processes still in the process group `pgid` of a command that has exited (and
    been reaped): SIGTERM, then SIGKILL to those left after `grace` seconds. Returns how many
    there were (0 in the usual case, which costs one kill(2)). Processes that left the group
    (setsid, setpgid: a daemon) are out of reach, and zombies are not counted."""
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return 0
    count = _members(pgid)
    if count == 0:
        return 0
    try:
        os.killpg(pgid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return count or 0
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        time.sleep(0.01)
        if _members(pgid) == 0:
            break
    else:
        _kill_group(pgid)
    return count if count is not None else 1


def _members(pgid: int) -> int | None:
    """How many live (not zombie) processes are in group `pgid`, read from /proc; None where
    /proc cannot say (then kill(2) with signal 0: 1 if any process is left, else 0)."""
    try:
        table = process_stats()
    except OSError:
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return 0
        return None
    return sum(1 for _, fields in table
               if len(fields) > 2 and fields[0] != b"Z" and int(fields[2]) == pgid)


def process_stats() -> list[tuple[int, list[bytes]]]:
    """Every process's pid and the fields of its /proc/PID/stat after the command name
    (state, ppid, pgrp, ...); a process that ends meanwhile is left out. OSError when /proc
    cannot be listed."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:  # ended meanwhile
            continue
        out.append((int(name), stat[stat.rfind(b")") + 2:].split()))
    return out


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
