"""The result store: one SQLite database (WAL) per experiment (docs/architecture.md: runner layer).

It holds the experiment file, the environment of every session, the full plan
(one row per trial) and the measurements. The primary key (trial, iteration,
metric) makes a duplicate measurement impossible.

Durability (docs/run.md#the-store). Each trial's outcome is appended, as one
line, to the outcome log beside the store (`STORE-outcomes`) the moment its
process has been reaped: one write(2), before the next trial starts. The
outcomes are committed to SQLite together, one transaction per time slice
(`SLICE_S`) and at every round the stopping rule reads, after which the log is
emptied. So a runner killed at any moment (SIGKILL included) loses at most the
trial that was running: the kernel keeps what was written, and the next writer
(`--resume`) replays the log into the store, skipping trials already recorded,
in one transaction. A commit per trial cost about 110 µs of the runner's CPU
per execution; the log line costs about 20, the batched commit about 20 more.
WAL with synchronous=NORMAL: a commit survives the death of the process
without an fsync; a power cut may lose the outcomes since the last checkpoint
(they stay planned and are run again), never corrupt the file. Readers see the
outcomes of the last slice committed (at most SLICE_S old while a run is
alive; after a SIGKILL, those of the log only once the store is resumed).

Profiles (`profiles` table): with counter = "callgrind" a counted trial's
Valgrind out files, compressed, one row per process (runner/counter.py), for
`benchlab profile-diff STORE`. A store made before the table existed gets it
when opened for writing (`--resume`) and reads as one without profiles; the
schema version stays 1, as an older benchlab reads and resumes a store with
the table correctly (it ignores it), so a newer version would refuse for nothing.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import os
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass

from benchlab import sqlite_file
from benchlab.errors import InputError, UsageError
from benchlab.runner import store_checks
from benchlab.runner.plan import Trial
from benchlab.sqlite_file import timestamp, transaction

FORMAT = "benchlab-store"
SCHEMA_VERSION = 1
STORE = sqlite_file.Kind("store", "free space and run again with --resume")
LOG_SUFFIX = "-outcomes"  # the outcome log beside the store, STORE-outcomes
SLICE_S = 0.25  # seconds between the commits of a running session's outcomes
PROFILE_ENCODING = "zlib"  # a kept out file's bytes: zlib.compress'd (runner/counter.py)

_UPDATE = ("UPDATE trials SET status = ?, session = ?, started = ?, command = ?, wall = ?, "
           "user = ?, sys = ?, maxrss = ?, exit_code = ?, signal = ?, error = ?, "
           "stderr_tail = ? WHERE seq = ? AND status = 'planned'")
_INSERT = "INSERT INTO measurements VALUES (?, ?, ?, ?, ?, ?)"
_INSERT_PROFILE = "INSERT INTO profiles VALUES (?, ?, ?, ?)"
_PROFILES = """
CREATE TABLE IF NOT EXISTS profiles (
    trial INTEGER NOT NULL REFERENCES trials(seq), part INTEGER NOT NULL,
    encoding TEXT NOT NULL, data BLOB NOT NULL, PRIMARY KEY (trial, part));
"""

_SCHEMA = """
CREATE TABLE benchlab_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE sessions (
    id INTEGER PRIMARY KEY, started TEXT NOT NULL, finished TEXT, argv TEXT NOT NULL,
    environment TEXT NOT NULL, warnings TEXT NOT NULL, outcome TEXT);
CREATE TABLE trials (
    seq INTEGER PRIMARY KEY, round INTEGER NOT NULL, kind TEXT NOT NULL,
    alternative TEXT NOT NULL, factors TEXT NOT NULL, build INTEGER NOT NULL,
    execution INTEGER NOT NULL, warmup INTEGER NOT NULL,
    status TEXT NOT NULL DEFAULT 'planned', session INTEGER REFERENCES sessions(id),
    started TEXT, command TEXT, wall REAL, user REAL, sys REAL, maxrss INTEGER,
    exit_code INTEGER, signal INTEGER, error TEXT, stderr_tail TEXT, machine TEXT);
CREATE TABLE measurements (
    trial INTEGER NOT NULL REFERENCES trials(seq), iteration INTEGER NOT NULL,
    metric TEXT NOT NULL, value REAL NOT NULL, unit TEXT NOT NULL, warmup INTEGER NOT NULL,
    PRIMARY KEY (trial, iteration, metric));
""" + _PROFILES


@dataclass(frozen=True)
class Row:
    """One measurement with its place in the design."""

    alternative: str
    factors: tuple[tuple[str, str], ...]
    build: int
    execution: int
    iteration: int
    warmup: bool
    metric: str
    unit: str
    value: float
    trial: int
    machine: str | None = None



@dataclass(frozen=True)
class Profile:
    """One process's out file of a counted trial (callgrind), compressed as stored."""

    trial: int
    alternative: str
    factors: tuple[tuple[str, str], ...]
    build: int
    execution: int
    part: int
    data: bytes

    def text(self) -> str:
        """The out file's text (zlib-decompressed); ValueError when the blob is damaged."""
        import zlib

        try:
            return zlib.decompress(self.data).decode("utf-8", errors="replace")
        except zlib.error as exc:
            raise ValueError(f"damaged profile blob: {exc}") from None


class Store:
    """An open store. Use `create` for a new experiment, `open` for an existing one."""

    def __init__(self, conn: sqlite3.Connection, path: str) -> None:
        self.conn, self.path = conn, path
        self._lock = None
        self._log: int | None = None  # the outcome log's descriptor, during a session
        self._rows: list[tuple] = []  # logged outcomes not committed yet (_UPDATE's rows)
        self._values: list[tuple] = []  # and their measurements (_INSERT's rows)
        self._profiles: list[tuple] = []  # and their profiles (_INSERT_PROFILE's rows)
        self._committed = time.monotonic()
        try:
            with sqlite_file.reading(path, STORE, "benchlab_meta"):
                self.meta = dict(conn.execute("SELECT key, value FROM benchlab_meta"))
            store_checks.meta_text(self.meta, path)
            self.has_machine = "machine" in self._trial_columns()
        except InputError:
            conn.close()
            raise

    # -- opening -----------------------------------------------------------------
    @classmethod
    def create(cls, path: str, meta: dict[str, str], plan: list[Trial]) -> Store:
        """A new store holding `meta` and the planned trials; refuses an existing file.

        The store is built under a temporary name and locked through its descriptor,
        then published with link(2), which fails when `path` exists: of two runners
        started together exactly one gets the store and the other a one-line error,
        and the file at `path` is complete with its plan from the moment it appears.
        """
        parent = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(parent):
            raise UsageError(f"cannot create the store: directory {parent} does not exist",
                             path)

        texts: dict[tuple, str] = {}  # each cell's factors as JSON, made once

        def fill(conn: sqlite3.Connection) -> None:
            conn.executemany("INSERT INTO benchlab_meta VALUES (?, ?)",
                             [("format", FORMAT), ("schema_version", str(SCHEMA_VERSION)),
                              ("created", timestamp()), ("status", "running"), *meta.items()])
            conn.executemany(
                "INSERT INTO trials (seq, round, kind, alternative, factors, build, "
                "execution, warmup, machine) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(t.seq, t.round, t.kind, t.alternative, texts.get(t.factors) or
                  texts.setdefault(t.factors, json.dumps(dict(t.factors))),
                  t.build, t.execution, int(t.warmup), t.machine) for t in plan])

        try:
            lock = sqlite_file.create(path, STORE, _SCHEMA, fill)
        except FileExistsError:
            raise _exists(path) from None
        return cls.open(path, write=True, lock=lock)

    @classmethod
    def open(cls, path: str, *, write: bool = False, lock=None) -> Store:
        """An existing store; one InputError naming what is wrong when `path` is not one
        (a directory, cut short, damaged, another SQLite database, locked elsewhere).
        A reader's connection is read-only and writes nothing (sqlite_file.connect).

        `lock` is the locked handle of a store just created (`create`); without it a
        writer locks the store itself.
        """
        conn, tables = sqlite_file.connect(path, STORE, write=write)
        if not {"benchlab_meta", "trials", "measurements", "sessions"} <= tables:
            conn.close()
            raise InputError("not a benchlab store (a SQLite database without benchlab's "
                             "tables)", path)
        store = cls(conn, path)
        if store.meta.get("format") != FORMAT:
            conn.close()
            raise InputError("not a benchlab store (no benchlab format mark)", path)
        version = int(store.meta.get("schema_version", "0"))
        if version > SCHEMA_VERSION:
            conn.close()
            raise InputError(f"store schema version {version} is newer than this benchlab "
                             f"reads ({SCHEMA_VERSION}); upgrade benchlab", path)
        if write:
            if lock is not None:
                store._lock = lock
            else:
                store._lock_for_writing()
            try:
                with store._writing():
                    store._add_machine_column()
                    store.conn.executescript(_PROFILES)
                store._replay()
            except BaseException:
                store.close()
                raise
        return store

    def _trial_columns(self) -> set[str]:
        with sqlite_file.reading(self.path, STORE, "trials"):
            return {r[1] for r in self.conn.execute("PRAGMA table_info(trials)")}

    def _add_machine_column(self) -> None:
        """A store made before trials had a `machine` column gets it (NULL: the machine, if
        any, is then the trial's `machine` factor) when opened for writing; readers of such
        a store select NULL in its place."""
        if not self.has_machine:
            self.conn.execute("ALTER TABLE trials ADD COLUMN machine TEXT")
            self.has_machine = True

    def _writing(self):
        """SQLite's errors while writing (a full disk, a lock held elsewhere, a read-only
        file) as one InputError; the failed transaction is rolled back, so every trial
        recorded before it stays and the rest stay planned for --resume."""
        return sqlite_file.writing(self.path, STORE)

    def _lock_for_writing(self) -> None:
        """One runner per store: an exclusive flock, released by the kernel when the runner
        dies, however it dies."""
        try:
            self._lock = sqlite_file.flock(self.path)
        except BlockingIOError:
            self.conn.close()
            raise UsageError(f"{self.path} is being written by another benchlab run; wait "
                             "for it to end, or stop it first") from None

    def settle(self) -> None:
        """A finished experiment's store becomes one self-contained file (rollback journal,
        no -wal/-shm beside it), which readers open without writing anything; `--resume`
        switches it back to WAL. Skipped while another process has it open (after 1 s,
        not the full busy timeout: the run is over, and WAL is a valid state to leave)."""
        self.conn.execute("PRAGMA busy_timeout = 1000")
        try:
            self.conn.execute("PRAGMA journal_mode=DELETE")
        except sqlite3.OperationalError:
            pass
        finally:
            self.conn.execute(f"PRAGMA busy_timeout = {int(sqlite_file.BUSY_TIMEOUT * 1000)}")

    def close(self) -> None:
        if self._log is not None:  # an error ended the session: its log stays for --resume
            os.close(self._log)
            self._log = None
        self.conn.close()
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    # -- the experiment ------------------------------------------------------------
    def check_same_experiment(self, text: str, path: str) -> None:
        """Refuse to resume with an experiment file other than the one the store was made by,
        naming the first line that differs."""
        old = self.meta.get("experiment_text", "")
        if old == text:
            return
        import difflib

        a, b = old.split("\n"), text.split("\n")
        for tag, i1, _, j1, _ in difflib.SequenceMatcher(a=a, b=b).get_opcodes():
            if tag != "equal":
                was = a[i1].strip() if i1 < len(a) else "(end of file)"
                now = b[j1].strip() if j1 < len(b) else "(end of file)"
                raise InputError(f"{self.path} was made by a different experiment file: line "
                                 f"{j1 + 1} is {now!r}, the store's has {was!r} (resume with "
                                 "the original file, or start a new store with -o)",
                                 f"{path}:{j1 + 1}")
        raise InputError(f"{self.path} was made by a different experiment file", path)

    def set_meta(self, **values: str) -> None:
        with self._writing(), transaction(self.conn):
            self.conn.executemany("INSERT OR REPLACE INTO benchlab_meta VALUES (?, ?)",
                                  list(values.items()))
        self.meta.update(values)

    # -- sessions ------------------------------------------------------------------
    def start_session(self, argv: list[str], environment: dict, warnings: list[str]) -> int:
        """A new run session; the store is in WAL mode and the outcome log open while trials
        are recorded."""
        with self._writing():
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
        with self._writing(), transaction(self.conn):
            cur = self.conn.execute(
                "INSERT INTO sessions (started, argv, environment, warnings) VALUES (?, ?, ?, ?)",
                (timestamp(), json.dumps(argv), json.dumps(environment), json.dumps(warnings)))
            self._log = os.open(self.path + LOG_SUFFIX, os.O_WRONLY | os.O_CREAT | os.O_APPEND
                                | os.O_CLOEXEC, 0o644)
        self._committed = time.monotonic()
        return int(cur.lastrowid or 0)

    def set_session_environment(self, session: int, environment: dict) -> None:
        """A session's environment record replaced by `environment` (completed after the
        executions: runner/session.py)."""
        with self._writing(), transaction(self.conn):
            self.conn.execute("UPDATE sessions SET environment = ? WHERE id = ?",
                              (json.dumps(environment), session))

    def finish_session(self, session: int, outcome: str) -> None:
        """The session's last outcomes committed with its end; the outcome log removed."""
        with self._writing(), transaction(self.conn):
            self._apply(self._rows, self._values, self._profiles)
            self.conn.execute("UPDATE sessions SET finished = ?, outcome = ? WHERE id = ?",
                              (timestamp(), outcome, session))
        self._rows, self._values, self._profiles = [], [], []
        if self._log is not None:
            os.close(self._log)
            self._log = None
            _unlink(self.path + LOG_SUFFIX)

    def sessions(self) -> list[dict]:
        """Every run session, its argv, environment and warnings checked to be JSON."""
        with sqlite_file.reading(self.path, STORE, "sessions"):
            rows = self.conn.execute("SELECT id, started, finished, argv, environment, "
                                     "warnings, outcome FROM sessions ORDER BY id").fetchall()
        out = []
        for r in rows:
            row = f"id {r[0]}"
            cells = [store_checks.parse_json(r[k], self.path, "sessions", row, column)
                     for k, column in ((3, "argv"), (4, "environment"), (5, "warnings"))]
            if not isinstance(cells[1], dict):
                raise store_checks.fail(self.path, "sessions", row, "environment", cells[1],
                                         "a JSON object")
            out.append({"id": r[0], "started": r[1], "finished": r[2], "argv": cells[0],
                        "environment": cells[1], "warnings": cells[2], "outcome": r[6]})
        return out

    # -- trials --------------------------------------------------------------------
    def _machine_sql(self, table: str = "") -> str:
        """The trials' machine column in a SELECT: the column, or (an old store) the
        `machine` factor."""
        prefix = f"{table}." if table else ""
        factor = f"json_extract({prefix}factors, '$.machine')"
        return f"COALESCE({prefix}machine, {factor})" if self.has_machine else factor

    def trials(self, status: str | None = None) -> list[Trial]:
        """The planned trials (those of one status), in plan order, each with its machine."""
        query = ("SELECT seq, round, kind, alternative, factors, build, execution, warmup, "
                 f"{'machine' if self.has_machine else 'NULL'} FROM trials")
        args: tuple = ()
        if status is not None:
            query += " WHERE status = ?"
            args = (status,)
        with sqlite_file.reading(self.path, STORE, "trials"):
            rows = self.conn.execute(query + " ORDER BY seq", args).fetchall()
        cells: dict[object, tuple] = {}  # a plan repeats a few factors texts: each parsed once
        out = []
        for r in rows:
            factors = cells.get(r[4]) if type(r[4]) is str else None
            if factors is None:
                factors = self._factors(r[4], f"seq {r[0]}")
                if type(r[4]) is str:
                    cells[r[4]] = factors
            out.append(Trial(r[0], r[1], r[2], r[3], factors, r[5], r[6], bool(r[7]),
                             r[8] if r[8] is None or type(r[8]) is str
                             else _machine(r[8], self.path, r[0])))
        return out

    def trial_count(self) -> int:
        """How many trials the plan has, whatever their status."""
        with sqlite_file.reading(self.path, STORE, "trials"):
            return int(self.conn.execute("SELECT COUNT(*) FROM trials").fetchone()[0])

    def rounds(self) -> dict[int, int]:
        """The round of every trial, by its seq."""
        with sqlite_file.reading(self.path, STORE, "trials"):
            return dict(self.conn.execute("SELECT seq, round FROM trials"))

    def _factors(self, cell: object, row: str) -> tuple[tuple[str, str], ...]:
        """A trials row's factors column, checked: a JSON object of factor → level."""
        value = store_checks.parse_json(cell, self.path, "trials", row, "factors")
        return store_checks.factor_items(value, self.path, "trials", row)

    def _meta_json(self, key: str, default: str) -> object:
        """A benchlab_meta value parsed as JSON (`default` when the key is absent)."""
        return store_checks.parse_json(self.meta.get(key, default), self.path, "benchlab_meta",
                                       repr(key), "value")

    def counts(self) -> dict[str, int]:
        with sqlite_file.reading(self.path, STORE, "trials"):
            return dict(self.conn.execute("SELECT status, COUNT(*) FROM trials GROUP BY status"))

    def machine_counts(self) -> dict[str, dict[str, int]]:
        """Trials per machine and status ({"m1": {"ok": 8, "failed": 1}}), machines in their
        name order; empty without machines."""
        out: dict[str, dict[str, int]] = {}
        with sqlite_file.reading(self.path, STORE, "trials"):
            rows = self.conn.execute(
                f"SELECT {self._machine_sql()} AS m, status, COUNT(*) FROM trials WHERE m IS "
                "NOT NULL GROUP BY m, status ORDER BY m, status").fetchall()
        for machine, status, n in rows:
            out.setdefault(str(machine), {})[str(status)] = int(n)
        return out

    def machines_meta(self) -> dict | None:
        """The experiment's [machines] table as recorded ({"names": [...], "role": ...}), None
        without machines or in a store made before it was recorded (then a `machine` factor
        means role "factor")."""
        if "machines" not in self.meta:
            return None
        value = self._meta_json("machines", "null")
        if value is None:
            return None
        if not isinstance(value, dict) or value.get("role") not in ("factor", "level"):
            raise store_checks.fail(self.path, "benchlab_meta", "'machines'", "value", value,
                                     "a JSON object with names and role")
        return value

    def record(self, trial: Trial, session: int, started: str, command: str, outcome,
               measurements: Iterable[tuple[int, str, float, str, bool]]) -> None:
        """The outcome of one trial and its measurements (iteration, metric, value, unit,
        warm-up): in a session, one line of the outcome log now and in the store with the
        next commit (`commit`, at the latest SLICE_S from the previous one); outside a
        session, in one transaction now."""
        row = ("ok" if outcome.ok else "failed", session, started, command, outcome.wall,
               outcome.user, outcome.sys, outcome.maxrss, outcome.exit_code, outcome.signal,
               outcome.error, outcome.stderr_tail if not outcome.ok else None, trial.seq)
        values = [(trial.seq, i, m, v, u, int(w)) for i, m, v, u, w in measurements]
        profiles = [(trial.seq, part, PROFILE_ENCODING, data)
                    for part, data in enumerate(getattr(outcome, "profiles", ()), start=1)]
        if self._log is None:
            with self._writing(), transaction(self.conn):
                self._apply([row], values, profiles)
            return
        logged = [row, [v[1:] for v in values]]
        if profiles:  # a third element: the out files, base64 (a counted trial's only)
            logged.append([base64.b64encode(p[3]).decode("ascii") for p in profiles])
        line = _LINE(logged)
        try:
            written = os.write(self._log, line)
            while written < len(line):  # cut short by a disk filling in the line: the rest,
                # or the error (a line left half written must stay the log's last)
                written += os.write(self._log, line[written:])
        except OSError as exc:
            raise sqlite_file.failure(exc, self.path, STORE, writing=True) from None
        self._rows.append(row)
        self._values.extend(values)
        self._profiles.extend(profiles)
        if time.monotonic() - self._committed >= SLICE_S:
            self.commit()

    def commit(self) -> None:
        """The logged outcomes into the store, one transaction; then the log is emptied (a
        runner killed between the two leaves lines that the replay skips)."""
        if self._rows:
            with self._writing(), transaction(self.conn):
                self._apply(self._rows, self._values, self._profiles)
            self._rows, self._values, self._profiles = [], [], []
            if self._log is not None:
                with self._writing():
                    os.ftruncate(self._log, 0)
        self._committed = time.monotonic()

    def _apply(self, rows: list[tuple], values: list[tuple], profiles: list[tuple]) -> None:
        """Outcomes, measurements and profiles into the open transaction; every trial must
        be planned."""
        if not rows:
            return
        updated = self.conn.executemany(_UPDATE, rows).rowcount
        if updated != len(rows):
            planned = {r[0] for r in self.conn.execute(
                "SELECT seq FROM trials WHERE status = 'planned'")}
            seq = next((r[-1] for r in rows if r[-1] not in planned), rows[0][-1])
            raise RuntimeError(f"trial {seq} is not planned any more")
        self.conn.executemany(_INSERT, values)
        if profiles:
            self.conn.executemany(_INSERT_PROFILE, profiles)

    def logged(self) -> list[tuple[tuple, list[tuple], list[tuple]]]:
        """The outcomes in the log a killed session left beside the store (STORE-outcomes),
        not in the store yet: (trials row, measurements, profiles) each, in the order written;
        a last line cut short (a power cut in its write) is dropped, and its trial stays
        planned."""
        log = self.path + LOG_SUFFIX
        try:
            with open(log, "rb") as handle:
                lines = handle.read().split(b"\n")
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise sqlite_file.failure(exc, log, STORE, writing=False) from None
        lines.pop()  # after the last newline: empty, or a write cut short
        return [_logged(line, log, n) for n, line in enumerate(lines, start=1)]

    def _replay(self) -> None:
        """The outcome log a killed session left into the store, one transaction, then
        removed. Trials recorded already (killed between a commit and the log's truncation)
        are skipped."""
        outcomes = self.logged()
        if not outcomes and not os.path.exists(self.path + LOG_SUFFIX):
            return
        with self._writing(), transaction(self.conn):
            for row, values, profiles in outcomes:
                if self.conn.execute(_UPDATE, row).rowcount == 1:
                    self.conn.executemany(_INSERT, values)
                    self.conn.executemany(_INSERT_PROFILE, profiles)
        _unlink(self.path + LOG_SUFFIX)

    def durations(self) -> dict[tuple, float]:
        """Median wall time of the finished trials of each kind and cell (for estimates)."""
        import numpy as np

        groups: dict[tuple, list[float]] = {}
        with sqlite_file.reading(self.path, STORE, "trials"):
            rows = self.conn.execute("SELECT kind, alternative, factors, wall, seq FROM trials "
                                     "WHERE wall IS NOT NULL").fetchall()
        for kind, alternative, factors, wall, seq in rows:
            key = (kind, alternative, self._factors(factors, f"seq {seq}"))
            groups.setdefault(key, []).append(
                store_checks.number(wall, self.path, "trials", f"seq {seq}", "wall"))
        return {k: float(np.median(v)) for k, v in groups.items()}

    def failures(self, limit: int = 5) -> list[tuple[int, str, str, str]]:
        with sqlite_file.reading(self.path, STORE, "trials"):
            rows = self.conn.execute("SELECT seq, alternative, error, stderr_tail FROM trials "
                                     "WHERE status = 'failed' ORDER BY seq LIMIT ?",
                                     (limit,)).fetchall()
        return [(r[0], r[1], r[2] or "", r[3] or "") for r in rows]

    def build_counts(self) -> tuple[int, int]:
        """(build steps planned, distinct build numbers) of the plan."""
        with sqlite_file.reading(self.path, STORE, "trials"):
            steps, builds = self.conn.execute(
                "SELECT COALESCE(SUM(kind = 'build'), 0), COUNT(DISTINCT build) FROM "
                "trials").fetchone()
        return int(steps), int(builds)

    # -- measurements --------------------------------------------------------------
    def execution_means(self, metric: str) -> list[tuple[str, tuple, int, int, float]]:
        """(alternative, factors, build, execution, mean) of every finished execution's
        measured (not warm-up) values of `metric` (build steps left out)."""
        with sqlite_file.reading(self.path, STORE, "measurements"):
            bad = self.conn.execute(
                "SELECT trial, iteration, metric, value FROM measurements WHERE metric = ? AND "
                "typeof(value) NOT IN ('real', 'integer') LIMIT 1", (metric,)).fetchone()
            if bad is not None:
                store_checks.number(bad[3], self.path, "measurements", _measurement_row(*bad[:3]),
                                    "value")
            rows = self.conn.execute(
                "SELECT t.alternative, t.factors, t.build, t.execution, AVG(m.value), t.seq "
                "FROM measurements m JOIN trials t ON t.seq = m.trial WHERE t.status = 'ok' "
                "AND t.kind != 'build' AND m.warmup = 0 AND m.metric = ? GROUP BY t.seq",
                (metric,)).fetchall()
        return [(r[0], self._factors(r[1], f"seq {r[5]}"), r[2], r[3], r[4]) for r in rows]

    def metrics(self) -> list[tuple[str, str]]:
        """(metric, unit) pairs of the experiment, primary first."""
        return store_checks.metric_pairs(self._meta_json("metrics", "[]"), self.path,
                                         "benchlab_meta", "'metrics'")

    def metric_sources(self) -> dict[str, dict]:
        """Where each metric came from ({"instructions": {"source": "cachegrind", "version":
        "valgrind-3.19.0", "options": [...]}, "wall": {"source": "clock"}}; sources: clock,
        rusage, pmu, software, cachegrind, callgrind); empty for a store made before they
        were recorded or from values parsed from the output."""
        value = self._meta_json("metric_sources", "{}")
        if not isinstance(value, dict) or not all(
                isinstance(v, dict) and isinstance(v.get("source"), str) for v in value.values()):
            raise store_checks.fail(self.path, "benchlab_meta", "'metric_sources'", "value",
                                    value, "a JSON object of metric → {\"source\": ...}")
        return value

    def profiles(self) -> list[Profile]:
        """The profiles kept of the finished counted trials, in plan order and process order
        within a trial; none for a store without the table (made before it existed)."""
        with sqlite_file.reading(self.path, STORE, "profiles"):
            if self.conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name "
                                 "= 'profiles'").fetchone() is None:
                return []
            rows = self.conn.execute(
                "SELECT t.seq, t.alternative, t.factors, t.build, t.execution, p.part, "
                "p.encoding, p.data FROM profiles p JOIN trials t ON t.seq = p.trial WHERE "
                "t.status = 'ok' ORDER BY t.seq, p.part").fetchall()
        out = []
        for seq, alternative, factors, build, execution, part, encoding, data in rows:
            where = f"(trial {seq}, part {part})"
            if encoding != PROFILE_ENCODING:
                raise store_checks.fail(self.path, "profiles", where, "encoding", encoding,
                                        f"{PROFILE_ENCODING!r}")
            if not isinstance(data, bytes):
                raise store_checks.fail(self.path, "profiles", where, "data", data, "a blob")
            out.append(Profile(seq, alternative, self._factors(factors, f"seq {seq}"), build,
                               execution, part, data))
        return out

    def alternatives(self) -> list[str]:
        """The alternatives in the experiment file's order, the baseline first."""
        names = store_checks.string_list(self._meta_json("alternatives", "[]"), self.path,
                                         "benchlab_meta", "'alternatives'", "value")
        baseline = self.meta.get("baseline")
        return sorted(names, key=lambda n: n != baseline)

    def factor_names(self) -> list[str]:
        return store_checks.string_list(self._meta_json("factors", "[]"), self.path,
                                        "benchlab_meta", "'factors'", "value")

    def rows(self, metric: str | None = None, *, warmup: bool = False) -> list[Row]:
        """The measurements of the finished executions in plan order (warm-up only if asked);
        a build step's times stay in the store but are not measurements of its command."""
        query = ("SELECT t.alternative, t.factors, t.build, t.execution, m.iteration, m.warmup,"
                 " m.metric, m.unit, m.value, t.seq, "
                 f"{'t.machine' if self.has_machine else 'NULL'} FROM measurements m JOIN "
                 "trials t ON t.seq = m.trial WHERE t.status = 'ok' AND t.kind != 'build'")
        args: list = []
        if metric is not None:
            query += " AND m.metric = ?"
            args.append(metric)
        if not warmup:
            query += " AND m.warmup = 0"
        query += " ORDER BY t.alternative, t.factors, t.build, t.execution, m.iteration, m.metric"
        cache: dict[str, tuple] = {}
        rank = {name: i for i, name in enumerate(self.alternatives())}
        declared = store_checks.factor_levels(self._meta_json("factor_levels", "{}"), self.path,
                                              "benchlab_meta", "'factor_levels'")
        out = []
        with sqlite_file.reading(self.path, STORE, "measurements"):
            for r in self.conn.execute(query, args):
                factors = cache.get(r[1])
                if factors is None:
                    factors = cache[r[1]] = self._factors(r[1], f"seq {r[9]}")
                if type(r[8]) is not float or not math.isfinite(r[8]) or not (
                        type(r[0]) is type(r[6]) is type(r[7]) is str
                        and type(r[2]) is type(r[3]) is type(r[4]) is int):
                    _check_row(r, self.path)
                out.append(Row(r[0], factors, r[2], r[3], r[4], bool(r[5]), r[6], r[7],
                               float(r[8]), r[9], r[10] if type(r[10]) is str else
                               _machine(r[10], self.path, r[9])))
        levels = {name: {v: i for i, v in enumerate(values)} for name, values in
                  declared.items()}

        def cell(r: Row) -> tuple:
            return (rank.get(r.alternative, len(rank)),
                    tuple(levels.get(k, {}).get(v, len(levels.get(k, {}))) for k, v in r.factors))

        out.sort(key=cell)  # stable: keeps build, execution, iteration order within a cell
        return out


def _json_line(encode):
    """One outcome as a line of the log: compact ASCII JSON (non-ASCII escaped as \\u)
    through the C encoder json.dumps ends in, without the three Python calls and the
    encoder built anew that json.dumps spends on every line (about a third of its time)."""
    if encode is None:  # no C accelerator: json.dumps itself
        return lambda value: (json.dumps(value) + "\n").encode()
    from json.encoder import encode_basestring_ascii

    chunks = encode(None, None, encode_basestring_ascii, None, ": ", ", ", False, False, True)
    return lambda value: ("".join(chunks(value, 0)) + "\n").encode()


_LINE = _json_line(getattr(json.encoder, "c_make_encoder", None))


def _logged(line: bytes, log: str, n: int) -> tuple[tuple, list[tuple], list[tuple]]:
    """One line of the outcome log: the trials row (_UPDATE's parameters), its measurements
    (_INSERT's) and its profiles (_INSERT_PROFILE's; a third element, base64, only when
    kept); InputError naming the line when it is not one benchlab wrote."""
    try:
        row, values, *kept = json.loads(line)
        if len(row) != 13 or type(row[-1]) is not int or len(kept) > 1:
            raise ValueError
        profiles = [(row[-1], part, PROFILE_ENCODING, base64.b64decode(text, validate=True))
                    for part, text in enumerate(kept[0] if kept else [], start=1)]
        return tuple(row), [(row[-1], *v) for v in values], profiles
    except (ValueError, TypeError, binascii.Error):
        raise InputError("not an outcome benchlab wrote (the log of a killed run); move the "
                         "file away to resume without the outcomes it holds (they are then "
                         "run again)", f"{log}:{n}") from None


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _machine(value: object, path: str, seq: object) -> str | None:
    """A trials row's machine cell, checked: NULL or text."""
    if value is None:
        return None
    return store_checks.text(value, path, "trials", f"seq {seq}", "machine")


def _measurement_row(trial: object, iteration: object, metric: object) -> str:
    return f"(trial {trial}, iteration {iteration}, metric {metric!r})"


def _check_row(r: tuple, path: str) -> None:
    """Name the first bad cell of a measurement row read by `Store.rows` (InputError)."""
    row = _measurement_row(r[9], r[4], r[6])
    store_checks.number(r[8], path, "measurements", row, "value")
    for k, column in ((6, "metric"), (7, "unit")):
        store_checks.text(r[k], path, "measurements", row, column)
    store_checks.integer(r[4], path, "measurements", row, "iteration")
    trial = f"seq {r[9]}"
    store_checks.text(r[0], path, "trials", trial, "alternative")
    for k, column in ((2, "build"), (3, "execution")):
        store_checks.integer(r[k], path, "trials", trial, column)


def _exists(path: str) -> UsageError:
    return UsageError(f"{path} exists: add --resume to continue that experiment, or choose "
                      "another -o file (nothing is overwritten)")
