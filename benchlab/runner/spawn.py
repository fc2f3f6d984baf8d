"""Start a process with posix_spawn, every argument prepared before the timer starts.

`os.posix_spawn` converts its arguments on every call — argv and the whole
environment encoded into C string arrays, each file action parsed into a
posix_spawn_file_actions_t, the attributes built — and that work lies between
the runner's two timer reads. Here the program path, argv, envp, the file
actions and the attributes are built once per start by `Spawn(...)`, before
the timer; calling it is one foreign call to glibc's posix_spawn through
ctypes (which releases the GIL like os.posix_spawn). Measured on `true` with
per-execution interleaving (benchmarks/runner_overhead.py, docs/run.md):
about 9 µs less per start than os.posix_spawn with the same actions.

The child gets its own process group (POSIX_SPAWN_SETPGROUP), so a timeout
or an interrupted run can kill it with its descendants, but not its own
session: on Linux with autogroup scheduling (the default of the common
distributions' kernels) setsid makes a new scheduler task group per process,
which cost about 20 µs per start and, under load, moved the third quartile
of `true` from 0.66 ms to 2.4 ms. Standard input, output and error are dup2'd
from descriptors the runner opened beforehand (no path lookup in the child).

A run starts the same command many times: `prepared(...)` keeps the last
starts' C structures (keyed by program, argv, environment and descriptors;
the pipes a run makes get the same descriptor numbers each time, the lowest
free ones), so an execution of a command started before costs one dictionary
lookup instead of about ten foreign calls. A start that inherits the runner's
environment (`env` None) passes glibc's own `environ`, read at the call: no copy
of `os.environ` is made (decoding `os.environ` key by key for every start cost
about 85 µs of CPU per execution of `true`), and os.environ's changes are in it
(Python's os.environ writes through putenv and unsetenv).

Where ctypes or glibc is unavailable (another libc, another system), the same
start goes through os.posix_spawn with the same file actions and process
group; `METHOD` names the path this process uses and the store records it
(environment key "spawn").
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence

POSIX_SPAWN_SETPGROUP = 0x02  # glibc <spawn.h>
_ATTR_BYTES = 1024  # sizeof(posix_spawnattr_t) is 336 on x86-64 glibc; room to spare
_ACTIONS_BYTES = 1024  # sizeof(posix_spawn_file_actions_t) is 80


def _load_libc():
    """glibc's posix_spawn and friends through ctypes, and its `environ` (the process's
    environment, a char **: passed as envp, ctypes reads the pointer the variable holds at
    each call, so a start inherits the environment as it is then, wherever putenv moved the
    array); (None, None) without them (then os.posix_spawn)."""
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):
            return None, None
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pointer, char_pp = ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p)
        libc.posix_spawn.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.c_char_p, pointer,
                                     pointer, char_pp, char_pp]
        for name, args in (("posix_spawn_file_actions_init", [pointer]),
                           ("posix_spawn_file_actions_destroy", [pointer]),
                           ("posix_spawn_file_actions_adddup2", [pointer, ctypes.c_int,
                                                                 ctypes.c_int]),
                           ("posix_spawnattr_init", [pointer]),
                           ("posix_spawnattr_destroy", [pointer]),
                           ("posix_spawnattr_setflags", [pointer, ctypes.c_short]),
                           ("posix_spawnattr_setpgroup", [pointer, ctypes.c_int])):
            getattr(libc, name).argtypes = args
        return libc, char_pp.in_dll(libc, "environ")
    except (AttributeError, OSError, ValueError, ImportError):
        return None, None


_LIBC, _ENVIRON = _load_libc()
METHOD = "glibc posix_spawn through ctypes" if _LIBC is not None else "os.posix_spawn"


def environ_matches() -> bool:
    """Whether glibc's environ holds exactly os.environ's variables (bytes for bytes): what a
    start with `env` None passes is then what Python says the environment is. C code that
    calls setenv directly (readline sets LINES and COLUMNS) makes them differ. True where
    starts go through os.posix_spawn, which takes os.environ itself."""
    if _ENVIRON is None:
        return True
    entries = []
    i = 0
    while (entry := _ENVIRON[i]) is not None:
        entries.append(entry)
        i += 1
    ours = {k + b"=" + v for k, v in os.environb.items()}
    return len(entries) == len(ours) and set(entries) == ours


class Spawn:
    """One prepared start of `program` with `argv` and `env` (None: the runner's own
    environment, as it is at each start), the child's descriptors 0, 1 and 2 dup2'd from
    `fds`, in a process group of its own. Calling it starts the process and returns its pid
    (OSError when it cannot start); `close` frees the C structures."""

    def __init__(self, program: str, argv: Sequence[str], env: Mapping[str, str] | None,
                 fds: tuple[int, int, int]) -> None:
        self.program, self.argv, self.env, self.fds = program, argv, env, fds
        self._c = None
        if _LIBC is not None:
            self._c = _CSpawn(program, argv, env, fds)

    def __call__(self) -> int:
        if self._c is not None:
            return self._c()
        env = os.environ if self.env is None else self.env
        return os.posix_spawn(self.program, self.argv, env, setpgroup=0,
                              file_actions=[(os.POSIX_SPAWN_DUP2, fd, target)
                                            for target, fd in enumerate(self.fds)])

    def close(self) -> None:
        if self._c is not None:
            self._c.close()
            self._c = None


_PREPARED: dict[tuple, _CSpawn] = {}  # the last starts, for `prepared` (at most 16)


def prepared(program: str, argv: Sequence[str], env: Mapping[str, str] | None,
             fds: tuple[int, int, int]):
    """A start of `program` as `Spawn` makes it (`env` None: the runner's environment),
    reused from the last starts when the same program, argv, environment and descriptors
    were started before: call it for the pid (OSError when it cannot start); nothing to
    close."""
    if _LIBC is None:
        return Spawn(program, argv, env, fds)
    envp = _envp(env)
    # an entry keeps its envp, so its id; one entry per thread, each with its own pid cell
    key = (program, tuple(argv), id(envp), fds, threading.get_ident())
    found = _PREPARED.get(key)
    if found is None:
        found = _CSpawn(program, argv, env, fds, envp)
        if len(_PREPARED) >= 16:
            _PREPARED.pop(next(iter(_PREPARED))).close()
        _PREPARED[key] = found
    return found


def _c_strings(items: list[bytes]):
    import ctypes

    for item in items:
        if b"\0" in item:
            raise ValueError("embedded null byte")
    return (ctypes.c_char_p * (len(items) + 1))(*items, None)


_ENVP: dict[tuple, object] = {}  # the last environments' C arrays: a run repeats a few of them


def _envp(env: Mapping[str, str] | None):
    """envp for `env`, encoded once per distinct environment (posix_spawn only reads it);
    for None, glibc's `environ` (the runner's environment at each start)."""
    if env is None:
        return _ENVIRON
    key = tuple(env.items())
    found = _ENVP.get(key)
    if found is None:
        found = _c_strings([os.fsencode(k) + b"=" + os.fsencode(v) for k, v in key])
        if len(_ENVP) >= 16:
            _ENVP.pop(next(iter(_ENVP)))
        _ENVP[key] = found
    return found


class _CSpawn:
    """The ctypes path: C arrays, file actions and attributes built once, freed by close."""

    def __init__(self, program: str, argv: Sequence[str], env: Mapping[str, str] | None,
                 fds: tuple[int, int, int], envp=None) -> None:
        import ctypes

        self.path = os.fsencode(program)
        if b"\0" in self.path:
            raise ValueError("embedded null byte")
        self.argv = _c_strings([os.fsencode(a) for a in argv])
        self.envp = _envp(env) if envp is None else envp
        self.pid = ctypes.c_int(0)
        self.pid_ref = ctypes.byref(self.pid)
        self.actions = ctypes.create_string_buffer(_ACTIONS_BYTES)
        self.attr = ctypes.create_string_buffer(_ATTR_BYTES)
        self.live = False
        _check(_LIBC.posix_spawn_file_actions_init(self.actions))
        _check(_LIBC.posix_spawnattr_init(self.attr))
        self.live = True
        try:
            for target, fd in enumerate(fds):
                _check(_LIBC.posix_spawn_file_actions_adddup2(self.actions, fd, target))
            _check(_LIBC.posix_spawnattr_setflags(self.attr, POSIX_SPAWN_SETPGROUP))
            _check(_LIBC.posix_spawnattr_setpgroup(self.attr, 0))
        except OSError:
            self.close()
            raise
        self.call = _LIBC.posix_spawn

    def __call__(self) -> int:
        err = self.call(self.pid_ref, self.path, self.actions, self.attr, self.argv, self.envp)
        if err:
            raise OSError(err, os.strerror(err))
        return self.pid.value

    def close(self) -> None:
        if self.live:
            self.live = False
            _LIBC.posix_spawn_file_actions_destroy(self.actions)
            _LIBC.posix_spawnattr_destroy(self.attr)


def _check(err: int) -> None:
    if err:
        raise OSError(err, os.strerror(err))
