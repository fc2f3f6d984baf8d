"""Switching the system state between the levels of state factors, during a run
(docs/experiment-file.md, "System state as a factor").

Before a trial whose level of a switched factor differs from the one in force, the runner
runs the teardown of the level in force and the setup of the new one (commands, or the
writes of a built-in: runner/system_settings.py). Every switch is a row of the store's
`switches` table (time, factor, level, action, command, exit status, output, seconds), and
the levels in force with the files' previous texts are kept in the store's meta
(`state_in_force`) before anything is changed, so that a run killed even by SIGKILL leaves
a store that knows what to undo: `--resume` restores it first. A failed setup stops the
run (exit 2) after the teardown of that level; the session tears every level in force down
on its way out, Ctrl-C and SIGTERM included (with both signals held meanwhile).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass

from benchlab import sqlite_file
from benchlab.errors import InputError, UsageError
from benchlab.runner import system_settings
from benchlab.runner.config import Command, Experiment
from benchlab.runner.plan import Trial, state_key
from benchlab.runner.state_config import ALL_CPUS, StateFactor
from benchlab.sqlite_file import timestamp, transaction

META_KEY = "state_in_force"
OUTPUT_LIMIT = 4096  # the last bytes of a switch command's output kept in the store
_SCHEMA = """
CREATE TABLE IF NOT EXISTS switches (
    id INTEGER PRIMARY KEY, session INTEGER, before_trial INTEGER, time TEXT NOT NULL,
    factor TEXT NOT NULL, level TEXT NOT NULL, action TEXT NOT NULL, command TEXT NOT NULL,
    exit_code INTEGER, error TEXT, output TEXT, seconds REAL NOT NULL)
"""
SWITCH_COLUMNS = ("id", "session", "before_trial", "time", "factor", "level", "action",
                  "command", "exit_code", "error", "output", "seconds")


class SetupFailed(InputError):
    """A level's setup failed: the run stops with exit 2 (its teardown has run)."""


@dataclass
class _Step:
    """What one setup or teardown did, as the store records it."""

    command: str
    exit_code: int | None
    error: str | None
    output: str
    seconds: float

    @property
    def ok(self) -> bool:
        return self.error is None


def switched(e: Experiment) -> list[StateFactor]:
    return [s for s in e.states if s.switched]


def trial_key(e: Experiment, trial: Trial) -> tuple[tuple[str, str], ...] | None:
    """The switched levels a trial runs under; None for a build step (it runs in whatever
    state is in force)."""
    if trial.kind == "build":
        return None
    return state_key(trial.factors, {s.name for s in switched(e)})


# -- checks before the run -------------------------------------------------------------------

def check_support(e: Experiment, root: str = "", cluster: bool = False) -> None:
    """Refuse, before the store is made, a built-in level this machine lacks or does not let
    this process set: one line naming the factor's line and what is missing."""
    for s in e.states:
        where = e.where("factors", s.name)
        if cluster and s.switched:
            raise UsageError(f"factor {s.name!r} switches this machine's state; with --cluster "
                             "the trials run on other machines: run it without --cluster", where)
        for level in s.levels:
            try:
                _check_level(s, level.value, root)
            except system_settings.Unsupported as exc:
                raise InputError(f"factors.{s.name} level {level.name!r}: {exc}", where) \
                    from None


def _check_level(s: StateFactor, value: str, root: str) -> None:
    if s.kind == "commands":
        return
    if s.kind == "affinity":
        if value == ALL_CPUS:
            return
        if not hasattr(os, "sched_setaffinity"):
            raise system_settings.Unsupported("affinity needs Linux's sched_setaffinity")
        cpus = system_settings.parse_cpus(value)
        usable = os.sched_getaffinity(0)
        missing = [c for c in cpus if c not in usable]
        if missing:
            raise system_settings.Unsupported(
                f"CPU {system_settings.show_cpus(missing)} is not usable by this process "
                f"(usable: {system_settings.show_cpus(sorted(usable))})")
        return
    if s.kind == "aslr":
        from benchlab.runner.personality import available

        if value == "off" and not available():
            raise system_settings.Unsupported("aslr off needs Linux's personality(2) "
                                              "through glibc (ADDR_NO_RANDOMIZE)")
        if value == "on" and system_settings.read(system_settings.ASLR, root) == "0":
            raise system_settings.Unsupported(
                f"aslr on needs {system_settings.ASLR} above 0 (it is 0: randomization is "
                "off for the whole machine, and one process cannot switch it on)")
        return
    writes = system_settings.level_writes(s.kind, value, root)
    ok, refused = system_settings.probe(writes, root)
    if writes and (not ok or s.kind != "irq_affinity" and refused):
        path, why = next(iter(refused.items()))
        raise system_settings.Unsupported(f"{s.kind} cannot write {path}: {why}")


# -- the switches' record --------------------------------------------------------------------

def switches(store) -> list[dict]:
    """Every switch a store recorded, in order (none for a store without the table)."""
    with sqlite_file.reading(store.path, _kind(), "switches"):
        names = {r[0] for r in store.conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "switches" not in names:
            return []
        rows = store.conn.execute(f"SELECT {', '.join(SWITCH_COLUMNS)} FROM switches "
                                  "ORDER BY id").fetchall()
    return [dict(zip(SWITCH_COLUMNS, r, strict=True)) for r in rows]


def switch_seconds(store) -> dict[tuple[str, str, str], float]:
    """The median seconds of each (factor, level, action) a store's switches took."""
    import statistics

    found: dict[tuple[str, str, str], list[float]] = {}
    for s in switches(store):
        if s["action"] in ("setup", "teardown") and s["error"] is None:
            found.setdefault((s["factor"], s["level"], s["action"]), []).append(s["seconds"])
    return {k: statistics.median(v) for k, v in found.items()}


def _kind():
    from benchlab.runner.store import STORE

    return STORE


@dataclass(frozen=True)
class SwitchPlan:
    """The switches a plan makes (the --dry-run's estimate of their cost): per factor, the
    setups and teardowns, and their seconds when a pilot store timed them all."""

    counts: dict[str, dict[str, int]]  # factor → {"setup": n, "teardown": n}
    seconds: float | None

    @property
    def total(self) -> int:
        return sum(sum(c.values()) for c in self.counts.values())


def plan_switches(e: Experiment, trials: list[Trial],
                  timed: dict[tuple[str, str, str], float] | None = None) -> SwitchPlan | None:
    """The setups and teardowns running `trials` in order makes (from no state in force,
    every level left at the end), and their seconds from `timed` (None when some switch has
    no timing there); None without switched factors."""
    factors = switched(e)
    if not factors:
        return None
    timed = timed or {}
    counts = {s.name: {"setup": 0, "teardown": 0} for s in factors}
    seconds: float | None = 0.0
    current: dict[str, str] = {}

    def add(factor: str, level: str, action: str) -> None:
        nonlocal seconds
        counts[factor][action] += 1
        if seconds is not None:
            cost = timed.get((factor, level, action))
            if cost is None and _builtin_or_empty(e, factor, level, action):
                cost = 0.0
            seconds = None if cost is None else seconds + cost

    for t in trials:
        key = trial_key(e, t)
        for factor, level in key or ():
            if current.get(factor) != level:
                if factor in current:
                    add(factor, current[factor], "teardown")
                add(factor, level, "setup")
                current[factor] = level
    for factor, level in current.items():
        add(factor, level, "teardown")
    return SwitchPlan(counts, seconds)


def _builtin_or_empty(e: Experiment, factor: str, level: str, action: str) -> bool:
    """A switch that runs no command (a level without one): it costs nothing to speak of."""
    s = next(s for s in e.states if s.name == factor)
    if s.kind != "commands":
        return False
    found = s.level(level)
    return not (found.setup if action == "setup" else found.teardown)


# -- the switcher ----------------------------------------------------------------------------

class Switcher:
    """The levels in force during one session, switched as the trials need them."""

    def __init__(self, e: Experiment, store, session: int, env: dict[str, str],
                 root: str = "", warn=None) -> None:
        self.e, self.store, self.session, self.env, self.root = e, store, session, env, root
        self.warn = warn  # said when a teardown fails (the run goes on to the next)
        self.factors = {s.name: s for s in switched(e)}
        self.current: dict[str, str] = {}
        self.saved: dict[str, dict[str, str]] = {}  # factor → files' previous texts
        self.seq: int | None = None  # the trial the switch comes before
        self._table = False  # the switches table made (once per session)

    # the record
    def _ensure_table(self) -> None:
        if not self._table:
            with sqlite_file.writing(self.store.path, _kind()):
                self.store.conn.execute(_SCHEMA)
            self._table = True

    def _record(self, factor: str, level: str, action: str, step: _Step) -> None:
        self._ensure_table()
        output = step.output[-OUTPUT_LIMIT:]
        with _signals_held(), sqlite_file.writing(self.store.path, _kind()), \
                transaction(self.store.conn):  # a switch is recorded whole, or not at all
            self.store.conn.execute(
                "INSERT INTO switches (session, before_trial, time, factor, level, action, "
                "command, exit_code, error, output, seconds) VALUES (?, ?, ?, ?, ?, ?, ?, ?, "
                "?, ?, ?)", (self.session, self.seq, timestamp(), factor, level, action,
                             step.command, step.exit_code, step.error, output, step.seconds))

    def _save_state(self) -> None:
        with _signals_held():
            self._set_state()

    def _set_state(self) -> None:
        self.store.set_meta(**{META_KEY: json.dumps({"levels": self.current,
                                                     "saved": self.saved})})

    # switching
    def enter(self, key: tuple[tuple[str, str], ...], seq: int | None = None) -> None:
        """Put the machine in the state `key` names, switching only the factors whose level
        differs from the one in force."""
        self.seq = seq
        for factor, level in key:
            if self.current.get(factor) == level:
                continue
            if factor in self.current:
                self._teardown(factor, "teardown")
            self._setup(factor, level)

    def _setup(self, factor: str, level: str) -> None:
        s = self.factors[factor]
        self.current[factor] = level  # in force from now: a kill mid-setup is undone too
        try:
            if s.kind == "commands":
                self._save_state()
                step = self._commands(s.level(level).setup)
            else:
                step = self._writes(factor, s.kind, s.level(level).value)
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM mid-setup: said, then torn down
            shown = "; ".join(c.show() for c in s.level(level).setup) or f"set {s.kind}"
            self._record(factor, level, "setup", _Step(shown, None, "interrupted", "", 0.0))
            raise
        self._record(factor, level, "setup", step)
        if not step.ok:
            self._teardown(factor, "teardown")
            where = self.e.where("factors", factor, "levels", level)
            tail = step.output.strip().split("\n")[-1] if step.output.strip() else ""
            raise SetupFailed(f"setup of {factor} = {level} failed: {step.error}"
                              f"{': ' + tail[:200] if tail else ''} (its teardown ran; the "
                              "store keeps the switches: benchlab run --resume goes on)",
                              where)

    def _writes(self, factor: str, kind: str, value: str) -> _Step:
        started = time.perf_counter()
        try:
            writes = system_settings.level_writes(kind, value, self.root)
        except system_settings.Unsupported as exc:
            self._save_state()
            return _Step(f"set {kind} {value}", None, str(exc), "",
                         time.perf_counter() - started)
        # the previous texts are kept in the store before anything is written
        self.saved[factor] = {w.path: t for w in writes
                              if (t := system_settings.read(w.path, self.root)) is not None}
        self._save_state()
        applied = system_settings.apply(writes, self.root)
        error = None
        if kind != "irq_affinity" and applied.refused:
            path, why = next(iter(applied.refused.items()))
            error = f"cannot write {path}: {why}"
        elif kind == "irq_affinity" and writes and len(applied.refused) == len(writes):
            error = "no IRQ accepted the new affinity"
        return _Step(f"set {kind} {value}", None, error, "\n".join(applied.lines()),
                     time.perf_counter() - started)

    def _teardown(self, factor: str, action: str) -> None:
        s = self.factors.get(factor)
        level = self.current[factor]
        if s is None or s.kind == "commands":
            commands = s.level(level).teardown if s is not None else ()
            step = self._commands(commands)
        else:
            started = time.perf_counter()
            previous = self.saved.get(factor, {})
            failed = system_settings.restore(previous, self.root)
            lines = [f"{p}: {'restored ' + v if p not in failed else 'not restored'}"
                     for p, v in previous.items()]
            error = (f"cannot restore {next(iter(failed))}: {next(iter(failed.values()))}"
                     if failed else None)
            step = _Step(f"restore {s.kind}", None, error, "\n".join(lines),
                         time.perf_counter() - started)
        self._record(factor, level, action, step)
        if not step.ok and self.warn is not None:
            self.warn(f"the {action} of {factor} = {level} failed: {step.error}; the machine "
                      "may not be as it was (the store's switches have its output)")
        del self.current[factor]
        self.saved.pop(factor, None)
        self._save_state()

    def _commands(self, commands: tuple[Command, ...]) -> _Step:
        """Run the commands in turn (stopping at the first that fails), output kept: written
        to a file, not a pipe, so a background process a setup starts (a noise load) does
        not hold the runner until it ends."""
        started = time.perf_counter()
        shown, outputs = [], []
        for c in commands:
            shown.append(c.show())
            with tempfile.TemporaryFile() as out:
                try:
                    done = subprocess.run(c.spawn_argv(), cwd=self.e.cwd, env=self.env,
                                          stdin=subprocess.DEVNULL, stdout=out,
                                          stderr=subprocess.STDOUT, timeout=self.e.timeout,
                                          start_new_session=True, check=False)
                    code, error = done.returncode, None
                    if code != 0:
                        error = (f"exit status {code}" if code > 0 else
                                 f"killed by {signal.Signals(-code).name}")
                except subprocess.TimeoutExpired:
                    code, error = None, f"timed out after {self.e.timeout:g} s"
                except OSError as exc:
                    code, error = None, f"cannot run {c.show()!r}: {exc.strerror}"
                out.seek(0)
                outputs.append(out.read().decode("utf-8", "replace"))
            if error is not None:
                return _Step("; ".join(shown), code, error, "".join(outputs),
                             time.perf_counter() - started)
        return _Step("; ".join(shown) or "(none)", 0 if commands else None, None,
                     "".join(outputs), time.perf_counter() - started)

    def leave_all(self) -> None:
        """Tear down every level in force (the end of a session, however it ends), with
        SIGINT and SIGTERM held until it is done."""
        with _signals_held():
            for factor in list(self.current):
                self.seq = None
                self._teardown(factor, "teardown")

    def restore_left(self) -> list[str]:
        """Undo the state a previous session left in force (killed before its teardown): the
        teardown of each level named in the store, as action "restore". The factors done."""
        text = self.store.meta.get(META_KEY)
        if not text:
            return []
        state = json.loads(text)
        self.current = dict(state.get("levels", {}))
        self.saved = {k: dict(v) for k, v in state.get("saved", {}).items()}
        done = list(self.current)
        if done:
            with _signals_held():
                for factor in done:
                    self._teardown(factor, "restore")
        return done


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM blocked meanwhile (a second Ctrl-C must not cut a teardown short);
    one that came is delivered when they are let through again."""
    held = {signal.SIGINT, signal.SIGTERM}
    try:
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    except (AttributeError, ValueError):  # not the main thread, or no pthread_sigmask
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


class SwitchingExecutor:
    """An executor (runner/rounds.py) that puts the machine in each trial's state before
    handing runs of trials in one state to the inner executor."""

    def __init__(self, inner, switcher: Switcher) -> None:
        self.inner, self.switcher = inner, switcher

    def run(self, trials: list[Trial], recorder, fail_fast: bool) -> str | None:
        e = self.switcher.e
        start = 0
        while start < len(trials):
            key = trial_key(e, trials[start])
            end = start + 1
            while end < len(trials) and trial_key(e, trials[end]) in (key, None):
                end += 1
            if key is not None:
                self.switcher.enter(key, trials[start].seq)
            failure = self.inner.run(trials[start:end], recorder, fail_fast)
            if failure is not None:
                return failure
            start = end
        return None
