"""The store of `benchlab bisect`: its settings, every build and every execution, crash-safe.

One SQLite file (sqlite_file.py: built aside and published whole, WAL, flocked by its
one writer). Each execution is committed the moment it ends, so a bisect killed at
any point loses at most the execution that was running; `--resume` replays the search
from what is recorded (every decision is a function of the executions) and runs only
what is missing. Builds are recorded with their environment and failures.
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass

from benchlab import sqlite_file
from benchlab.errors import InputError

METRICS = ("wall", "user", "sys", "cpu", "maxrss", "instructions")  # Execution.value's
METRIC_UNITS = {"wall": "s", "user": "s", "sys": "s", "cpu": "s", "maxrss": "B",
                "instructions": "instructions"}
KIND = sqlite_file.Kind("bisect store", "free space and run again with --resume")
FORMAT = "benchlab-bisect"
SCHEMA_VERSION = 2  # 2: executions.instructions (a store of version 1 gains it on open)
SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE builds (sha TEXT PRIMARY KEY, ok INTEGER NOT NULL, path TEXT NOT NULL,
    seconds REAL NOT NULL, exit_code INTEGER, error TEXT, stderr_tail TEXT NOT NULL,
    environment TEXT NOT NULL);
CREATE TABLE executions (step INTEGER NOT NULL, round INTEGER NOT NULL, slot INTEGER NOT NULL,
    sha TEXT NOT NULL, arm TEXT NOT NULL, warmup INTEGER NOT NULL, started TEXT NOT NULL,
    wall REAL NOT NULL, user REAL NOT NULL, sys REAL NOT NULL, maxrss INTEGER NOT NULL,
    error TEXT, stderr_tail TEXT NOT NULL, instructions REAL,
    PRIMARY KEY (step, round, slot));
"""


@dataclass(frozen=True)
class Execution:
    """One recorded execution of one arm (good, mid or bad) of one step."""

    step: int
    round: int
    slot: int
    sha: str
    arm: str
    warmup: bool
    wall: float
    user: float
    sys: float
    maxrss: int
    error: str | None
    instructions: float | None = None  # counted (Valgrind's Ir or the PMU's); None: not

    def value(self, metric: str) -> float:
        """The execution's value of `metric` (cpu: user + sys)."""
        if metric == "cpu":
            return self.user + self.sys
        if metric == "instructions" and self.instructions is None:
            raise ValueError(f"execution {self.step}/{self.round}/{self.slot} counted no "
                             "instructions")
        return float(getattr(self, metric))


class BisectStore:
    """An open bisect store, written by this process alone (its flock)."""

    def __init__(self, path: str, conn: sqlite3.Connection, lock) -> None:
        self.path, self.conn, self.lock = path, conn, lock

    @classmethod
    def create(cls, path: str, settings: dict[str, object]) -> BisectStore:
        """A new store holding `settings`; InputError when the file exists."""
        def fill(conn: sqlite3.Connection) -> None:
            conn.executemany("INSERT INTO meta VALUES (?, ?)", [
                ("format", FORMAT), ("schema", str(SCHEMA_VERSION)),
                ("settings", json.dumps(settings, sort_keys=True)),
                ("created", sqlite_file.timestamp())])

        try:
            lock = sqlite_file.create(path, KIND, SCHEMA, fill)
        except FileExistsError:
            raise InputError("exists: continue its bisect with --resume, or name a new store",
                             path) from None
        return cls(path, _open(path), lock)

    @classmethod
    def open(cls, path: str) -> BisectStore:
        """An existing store, for --resume; InputError when it is not one or is in use."""
        conn = _open(path)
        try:
            lock = sqlite_file.flock(path)
        except BlockingIOError:
            conn.close()
            raise InputError("in use by another benchlab bisect (wait for it or stop it)",
                             path) from None
        store = cls(path, conn, lock)
        try:
            store._upgrade()
        except BaseException:
            store.close()
            raise
        return store

    def _upgrade(self) -> None:
        """A store of schema 1 (before counted instructions) gains the column, empty."""
        with sqlite_file.reading(self.path, KIND, "executions"):
            columns = {r[1] for r in self.conn.execute("PRAGMA table_info(executions)")}
        if "instructions" not in columns:
            with sqlite_file.writing(self.path, KIND), sqlite_file.transaction(self.conn):
                self.conn.execute("ALTER TABLE executions ADD COLUMN instructions REAL")
                self.conn.execute("UPDATE meta SET value = ? WHERE key = 'schema'",
                                  (str(SCHEMA_VERSION),))

    def close(self) -> None:
        self.conn.close()
        self.lock.close()

    def settings(self) -> dict[str, object]:
        with sqlite_file.reading(self.path, KIND, "meta"):
            row = self.conn.execute("SELECT value FROM meta WHERE key = 'settings'").fetchone()
        return json.loads(row[0])

    def set_meta(self, key: str, value: str) -> None:
        with sqlite_file.writing(self.path, KIND), sqlite_file.transaction(self.conn):
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def record_build(self, build) -> None:
        """A build (runner/git_builds.Build), replacing an earlier record of its commit."""
        with sqlite_file.writing(self.path, KIND), sqlite_file.transaction(self.conn):
            self.conn.execute(
                "INSERT OR REPLACE INTO builds VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (build.sha, int(build.ok), build.path, build.seconds, build.exit_code,
                 build.error, build.stderr_tail, json.dumps(build.environment, sort_keys=True)))

    def builds(self) -> dict[str, dict[str, object]]:
        """Every recorded build by commit: ok, path, seconds, exit_code, error, environment."""
        out = {}
        with sqlite_file.reading(self.path, KIND, "builds"):
            rows = self.conn.execute("SELECT sha, ok, path, seconds, exit_code, error, "
                                     "stderr_tail, environment FROM builds").fetchall()
        for sha, ok, path, seconds, code, error, tail, env in rows:
            out[sha] = {"ok": bool(ok), "path": path, "seconds": seconds, "exit_code": code,
                        "error": error, "stderr_tail": tail, "environment": json.loads(env)}
        return out

    def record_execution(self, e: Execution, started: str, stderr_tail: str) -> None:
        """One execution, committed at once (a kill loses nothing recorded before it)."""
        with sqlite_file.writing(self.path, KIND), sqlite_file.transaction(self.conn):
            self.conn.execute(
                "INSERT INTO executions (step, round, slot, sha, arm, warmup, started, wall, "
                "user, sys, maxrss, error, stderr_tail, instructions) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (e.step, e.round, e.slot, e.sha, e.arm, int(e.warmup), started, e.wall,
                 e.user, e.sys, e.maxrss, e.error, stderr_tail, e.instructions))

    def executions(self, step: int) -> list[Execution]:
        """The executions of one step in the order they ran."""
        with sqlite_file.reading(self.path, KIND, "executions"):
            rows = self.conn.execute(
                "SELECT step, round, slot, sha, arm, warmup, wall, user, sys, maxrss, error, "
                "instructions FROM executions WHERE step = ? ORDER BY round, slot",
                (step,)).fetchall()
        return [Execution(s, r, k, sha, arm, bool(w), wall, user, sys_, rss, err, ins)
                for s, r, k, sha, arm, w, wall, user, sys_, rss, err, ins in rows]

    def count(self) -> int:
        return int(self.conn.execute("SELECT COUNT(*) FROM executions").fetchone()[0])


def _open(path: str) -> sqlite3.Connection:
    conn, tables = sqlite_file.connect(path, KIND, write=True)
    try:
        if "meta" not in tables:
            raise InputError("not a benchlab bisect store", path)
        with sqlite_file.reading(path, KIND, "meta"):
            row = conn.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        if row is None or row[0] != FORMAT:
            raise InputError("not a benchlab bisect store (a store of benchlab run? give a "
                             "new -o, or the bisect's own store)", path)
        conn.execute("PRAGMA synchronous=NORMAL")
    except BaseException:
        conn.close()
        raise
    return conn


def is_bisect_store(path: str) -> bool:
    """Whether `path` is a SQLite file holding a bisect's store (its meta names FORMAT);
    False for anything else, a benchlab run store included (never raises)."""
    try:
        if not sqlite_file.check_header(path, KIND):
            return False
        conn, tables = sqlite_file.connect(path, KIND, write=False)
    except InputError:
        return False
    try:
        if "meta" not in tables or "executions" not in tables:
            return False
        row = conn.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        return row is not None and row[0] == FORMAT
    except sqlite3.Error:
        return False
    finally:
        conn.close()


@dataclass(frozen=True)
class Recorded:
    """A bisect store read whole without its lock (compare, summary and report read it
    while a bisect may still be writing): its settings, the commits after good in history
    order (None in a store written before they were kept), each commit's subject where the
    bisect named it, and every execution in the order it ran."""

    settings: dict[str, object]
    commits: list[str] | None
    subjects: dict[str, str]
    executions: list[Execution]


def read(path: str) -> Recorded:
    """The store at `path`, read-only; InputError when it is not a bisect's."""
    conn, tables = sqlite_file.connect(path, KIND, write=False)
    try:
        if "meta" not in tables or "executions" not in tables:
            raise InputError("not a benchlab bisect store", path)
        with sqlite_file.reading(path, KIND, "meta"):
            meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        if meta.get("format") != FORMAT:
            raise InputError("not a benchlab bisect store", path)
        with sqlite_file.reading(path, KIND, "executions"):
            columns = {r[1] for r in conn.execute("PRAGMA table_info(executions)")}
            counted = "instructions" if "instructions" in columns else "NULL"
            rows = conn.execute(
                "SELECT step, round, slot, sha, arm, warmup, wall, user, sys, maxrss, error, "
                f"{counted} FROM executions ORDER BY step, round, slot").fetchall()
    finally:
        conn.close()
    return Recorded(json.loads(meta["settings"]),
                    json.loads(meta["commits"]) if "commits" in meta else None,
                    json.loads(meta.get("subjects", "{}")),
                    [Execution(s, r, k, sha, arm, bool(w), wall, user, sys_, rss, err, ins)
                     for s, r, k, sha, arm, w, wall, user, sys_, rss, err, ins in rows])


def exists(path: str) -> bool:
    return os.path.lexists(path)
