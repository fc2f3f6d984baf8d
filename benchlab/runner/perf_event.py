"""Counting events of a child process with Linux's perf_event_open(2), through ctypes.

A small binding of the one system call benchlab needs, written from the man
page perf_event_open(2) and <linux/perf_event.h>: `Counters` opens one
counter per event on the runner itself (pid 0, any CPU) with `disabled`,
`inherit` and `enable_on_exec`. The runner never execs, so its own counters
stay off; every process it spawns inherits a copy, which the kernel switches
on when that process execs its program — as `perf stat` counts a command from
its exec — and adds into the runner's counter when it exits (with its own
children's, also inherited). So the count of one execution is the difference
of two reads of the runner's counter, one just before the spawn and one after
the process is reaped, both outside the timed region; nothing runs in the
child before its exec, and the posix_spawn start (runner/spawn.py) is kept.

Hardware events (instructions, cycles, branches, caches) need a PMU the kernel
exposes; a virtual machine often has none, and the open fails with ENOENT (or
EOPNOTSUPP): `probe` says so and the caller refuses the metric rather than
fall back. They count user space only (`exclude_kernel`, `exclude_hv`), as
Valgrind does, so a system call's kernel work does not blur them. Software
events (task-clock, page-faults, context-switches, cpu-migrations) are the
kernel's own and exist without a PMU. When the kernel multiplexes more
hardware counters than the PMU has, a counter runs part of the time; its value
is scaled by time enabled / time running, as `perf stat` does, and `read`
says which were scaled.
"""

from __future__ import annotations

import errno
import os
import struct
from dataclasses import dataclass

# <linux/perf_event.h>: event types and configs
TYPE_HARDWARE = 0
TYPE_SOFTWARE = 1
HARDWARE = {"cycles": 0, "instructions": 1, "cache-references": 2, "cache-misses": 3,
            "branches": 4, "branch-misses": 5}
SOFTWARE = {"task-clock": 1, "page-faults": 2, "context-switches": 3, "cpu-migrations": 4,
            "minor-faults": 5, "major-faults": 6}
_SW_DUMMY = 9  # PERF_COUNT_SW_DUMMY: counts nothing
# read_format: the value, then the times the counter was enabled and running (ns)
_FORMAT_TIMES = 1 | 2  # PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING
# attr.flags bits (the bit-field after read_format)
_DISABLED, _INHERIT, _EXCLUDE_KERNEL, _EXCLUDE_HV, _ENABLE_ON_EXEC = 0, 1, 5, 6, 12
_FLAG_FD_CLOEXEC = 8  # perf_event_open's flags argument
_ATTR_SIZE = 112  # PERF_ATTR_SIZE_VER5; the kernel accepts any published size
_SYSCALL = {"x86_64": 298, "i386": 336, "i686": 336, "aarch64": 241, "arm64": 241,
            "armv7l": 364, "ppc64le": 319, "ppc64": 319, "s390x": 331, "riscv64": 241}


def event_of(name: str) -> tuple[int, int] | None:
    """(type, config) of an event benchlab counts, None for another name."""
    if name in HARDWARE:
        return TYPE_HARDWARE, HARDWARE[name]
    if name in SOFTWARE:
        return TYPE_SOFTWARE, SOFTWARE[name]
    return None


def _attr(kind: int, config: int, inherit: bool = True) -> bytes:
    """A perf_event_attr: counting (no sampling), off until exec, inherited by children
    (`inherit`; the guard of `Counters` is not)."""
    buffer = bytearray(_ATTR_SIZE)
    flags = 1 << _DISABLED | (1 << _INHERIT | 1 << _ENABLE_ON_EXEC if inherit else 0)
    if kind == TYPE_HARDWARE:
        flags |= 1 << _EXCLUDE_KERNEL | 1 << _EXCLUDE_HV
    struct.pack_into("=IIQQQQQ", buffer, 0, kind, _ATTR_SIZE, config, 0, 0, _FORMAT_TIMES,
                     flags)
    return bytes(buffer)


_LIBC = None


def _syscall():
    """libc's syscall(2) through ctypes, or None where there is none (not glibc/musl)."""
    global _LIBC
    if _LIBC is None:
        import ctypes

        try:
            libc = ctypes.CDLL(None, use_errno=True)
            function = libc.syscall
        except (OSError, AttributeError):
            return None
        function.restype = ctypes.c_long
        _LIBC = function
    return _LIBC


def open_counter(name: str) -> int:
    """A descriptor counting event `name` in the runner's future children from their exec;
    OSError (errno set) when the kernel refuses it."""
    found = event_of(name)
    if found is None:
        raise ValueError(f"unknown event {name!r}")
    return _open(*found, inherit=True)


def _uname() -> tuple[str, str]:
    """(system, machine) as platform.system() and platform.machine() give them on POSIX,
    from os.uname() (platform's import costs a few ms of every run's start)."""
    if hasattr(os, "uname"):
        name = os.uname()
        return name.sysname, name.machine
    import platform

    return platform.system(), platform.machine()


def _open(kind: int, config: int, *, inherit: bool) -> int:
    """perf_event_open(attr, pid 0, cpu -1, no group, FD_CLOEXEC); OSError when refused."""
    system, machine = _uname()
    number = _SYSCALL.get(machine)
    call = _syscall() if number is not None and system == "Linux" else None
    if call is None:
        raise OSError(errno.ENOSYS, f"perf_event_open is not available on {system} {machine}")
    import ctypes

    attr = ctypes.create_string_buffer(_attr(kind, config, inherit), _ATTR_SIZE)
    fd = call(ctypes.c_long(number), attr, ctypes.c_int(0), ctypes.c_int(-1),
              ctypes.c_int(-1), ctypes.c_ulong(_FLAG_FD_CLOEXEC))
    if fd < 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return int(fd)


def _read(fd: int) -> tuple[int, int, int]:
    """(value, time enabled, time running) of a counter."""
    return struct.unpack("=QQQ", os.read(fd, 24))


@dataclass(frozen=True)
class Probe:
    """Whether an event can be counted here, and the kernel's reason when not."""

    name: str
    ok: bool
    reason: str = ""


def probe(name: str) -> Probe:
    """Open (and close) a counter of `name` to learn whether this machine offers it."""
    try:
        fd = open_counter(name)
    except OSError as exc:
        code = errno.errorcode.get(exc.errno or 0, str(exc.errno))
        why = {errno.ENOENT: "no such event: the kernel exposes no PMU for it",
               errno.EOPNOTSUPP: "not supported by this machine's PMU",
               errno.EACCES: "not permitted: see /proc/sys/kernel/perf_event_paranoid",
               errno.EPERM: "not permitted: see /proc/sys/kernel/perf_event_paranoid"}
        return Probe(name, False, f"perf_event_open: {code}, "
                                  f"{why.get(exc.errno or 0, exc.strerror or str(exc))}")
    os.close(fd)
    return Probe(name, True)


def offered() -> tuple[tuple[str, ...], tuple[str, ...], str]:
    """(hardware events, software events) this machine counts, and why hardware is absent
    ("" when some hardware event opened): for `benchlab env` and the metric checks."""
    hardware = [probe(n) for n in HARDWARE]
    software = [probe(n) for n in SOFTWARE]
    reason = "" if any(p.ok for p in hardware) else hardware[1].reason
    return (tuple(p.name for p in hardware if p.ok), tuple(p.name for p in software if p.ok),
            reason)


class Counters:
    """Counters of `names` for the runner's children, open until `close`. `snapshot()`
    before a spawn and `since(snapshot)` after the reaping give that execution's counts
    (task-clock in seconds, the others as counts)."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names
        self.fds: list[int] = []
        self.guard: int | None = None
        try:
            # An event the children do not inherit: without it the kernel takes a child's
            # context for a clone of the runner's and may swap the two at a context switch
            # (an optimisation for fork-heavy work), after which the runner's counters sit
            # in an exited child and count nothing more (seen after two executions).
            self.guard = _open(TYPE_SOFTWARE, _SW_DUMMY, inherit=False)
            for name in names:
                self.fds.append(open_counter(name))
        except OSError:
            self.close()
            raise

    def snapshot(self) -> list[tuple[int, int, int]]:
        return [_read(fd) for fd in self.fds]

    def since(self, before: list[tuple[int, int, int]]) -> tuple[dict[str, float], list[str]]:
        """The counts since `before` (scaled where multiplexed) and the names scaled."""
        out: dict[str, float] = {}
        scaled: list[str] = []
        for name, fd, (v0, e0, r0) in zip(self.names, self.fds, before, strict=True):
            v1, e1, r1 = _read(fd)
            value, enabled, running = v1 - v0, e1 - e0, r1 - r0
            if 0 < running < enabled:
                value = round(value * enabled / running)
                scaled.append(name)
            out[name] = value / 1e9 if name == "task-clock" else float(value)
        return out, scaled

    def close(self) -> None:
        while self.fds:
            os.close(self.fds.pop())
        if self.guard is not None:
            os.close(self.guard)
            self.guard = None
