"""The history store: every measurement of every commit, in one SQLite file (WAL) or a
PostgreSQL database.

A measurement is kept with its levels (runs, builds, forks: whatever the input
recorded), keyed by series (benchmark, metric, machine) and commit. Commits are
in the order they were added, or by date when every commit has one. An `add`
is one transaction, so a process killed at any moment leaves either all of a
commit's results or none. Where the tables live is a backend behind one interface
(schema.Database): store_sqlite.py, a file (the default, needing nothing), and
store_postgres.py, a server many CI runners write to at once (`--db postgresql://...`).
This module writes its SQL once, for both.

Schema 2 keeps a series' results of one commit as one row (the values as
little-endian float64 bytes, the level values as one JSON list per level), so
reading a history is one query of (series × commits) rows gathered with numpy
instead of a row and a JSON parse per measurement. A schema-1 history (a row
per measurement, SQLite only) is read as it is and migrated in one transaction when
opened to write.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

import numpy as np

from benchlab.conninfo import is_server
from benchlab.data.samples import conversion
from benchlab.errors import InputError, UsageError
from benchlab.history.schema import (
    BASE_TABLES,
    FORMAT,
    RESULTS,
    SCHEMA_VERSION,
    Database,
    checks_schema,
    results_schema,
)
from benchlab.sqlite_file import timestamp


@dataclass(frozen=True)
class SeriesData:
    """One benchmark's measurements of one commit: values in order, each with its level
    values (one array per level name, highest first)."""

    benchmark: str
    metric: str
    machine: str
    unit: str
    higher_is_better: bool | None
    level_names: tuple[str, ...]
    values: np.ndarray
    levels: tuple[np.ndarray, ...] = ()


@dataclass(frozen=True)
class CommitResults:
    """What one commit adds: its id, date (ISO 8601 or None), branch and series."""

    sha: str
    date: str | None
    branch: str | None
    series: tuple[SeriesData, ...]


@dataclass(frozen=True)
class Commit:
    sha: str
    date: str | None
    branch: str | None


@dataclass(frozen=True)
class Series:
    """A stored series and its measurements: per row the commit's position in
    History.commits(), the value, and its level values."""

    benchmark: str
    metric: str
    machine: str
    unit: str
    higher_is_better: bool | None
    level_names: tuple[str, ...]
    commit_index: np.ndarray
    values: np.ndarray
    levels: tuple[np.ndarray, ...]

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.benchmark, self.metric, self.machine)


def normalize_date(text: str | None, what: str = "date") -> str | None:
    """An ISO 8601 date or time as a UTC timestamp that sorts as text; naive means UTC."""
    if text is None:
        return None
    raw = text.strip()
    try:
        when = datetime.fromisoformat(raw[:-1] + "+00:00" if raw.endswith(("Z", "z")) else raw)
    except ValueError:
        raise UsageError(f"{what} is not an ISO 8601 date: {text!r} (say 2024-05-01 or "
                         "2024-05-01T12:00:00Z)") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return when.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")



class History:
    """An open history store: `open` an existing one, or `open_or_create`. `where` is a
    file's path or a PostgreSQL URL (postgresql://...; conninfo.is_server)."""

    def __init__(self, db: Database, version: int = SCHEMA_VERSION) -> None:
        self.db, self.version = db, version

    @property
    def path(self) -> str:
        """The history's name in messages: the file's path, or the URL without password."""
        return self.db.where

    # -- opening -----------------------------------------------------------------
    @classmethod
    def open_or_create(cls, where: str) -> History:
        """The store `where` names, created (empty) if there is none yet."""
        return cls.open(where, write=True, create=True)

    @classmethod
    def open(cls, where: str, *, write: bool = False, create: bool = False) -> History:
        """An existing history; a one-line InputError when `where` is not one. Nothing is
        written before it is known to be a history."""
        if is_server(where):
            from benchlab.history import store_postgres as backend
        else:
            from benchlab.history import store_sqlite as backend
        db = backend.connect(where, write=write, create=create)
        try:
            with db.reading("history_meta"):
                version = _version(db)
            if write:
                db.prepare_write()
                if version < SCHEMA_VERSION:
                    _migrate(db)
                    version = SCHEMA_VERSION
        except BaseException:
            db.close()
            raise
        return cls(db, version)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- writing -----------------------------------------------------------------
    def store_check(self, check) -> str | None:
        """Store a `history compare` (a history.checks.StoredCheck) in one transaction,
        replacing the check of the same head and machine; when the replaced one was
        recorded (None: there was none). Nothing else is changed."""
        from benchlab.history import checks

        with self.db.write():
            return checks.write(self.db, check)

    def checks(self) -> list:
        """Every stored check (history.checks.StoredCheck), by head and machine; none in a
        history of schema 2 (its tables come with schema 3)."""
        from benchlab.history import checks

        if self.version < 3:
            return []
        with self.db.reading("checks"):
            return checks.read(self.db)

    def add(self, commits: Sequence[CommitResults], *, replace: bool = False,
            checks: Sequence = ()) -> int:
        """Add every commit's results, and `checks` (history.checks.StoredCheck, as an
        import carries them), in one transaction; the number of measurements.

        A commit that already has results of one of the series added is refused
        unless `replace` (then its old results of those series are deleted first).
        A commit known with another date or branch, or a series whose unit cannot be
        converted to the one it was stored in, is refused; nothing is written then.
        """
        shas = [c.sha for c in commits]
        if len(set(shas)) != len(shas):
            raise InputError(f"commit {_first_twice(shas)!r} is given twice")
        written = 0
        with self.db.write():
            self._same_kind_of_dates(self.db, commits)
            for c in commits:
                written += self._add_one(self.db, c, replace)
            if checks:
                from benchlab.history.checks import write

                for check in checks:
                    write(self.db, check, replace=replace)
        return written

    def _same_kind_of_dates(self, conn: Database, commits: Sequence[CommitResults]) -> None:
        """Refuse a commit without a date into a history whose commits all have one, and
        one with a date into a history whose commits have none: either would change how
        every commit is ordered (by date only when all have one, docs/history.md), and
        with many writers adding at once the order of adding is arbitrary. Judged under
        the writers' lock, against what is stored; an empty history, or one mixed by an
        earlier benchlab, takes what comes (its order does not change)."""
        dated, total = conn.execute("SELECT COUNT(date), COUNT(*) FROM commits").fetchone()
        if not total or 0 < dated < total:
            return
        for c in commits:
            if (c.date is None) != (dated == 0):
                known = conn.execute("SELECT date FROM commits WHERE sha = ?",
                                     (c.sha,)).fetchone()
                if c.date is None and known is not None:
                    continue  # a commit already stored (with its date) given again
                if dated:
                    raise InputError(
                        f"commit {c.sha!r} has no date, and every commit of this history "
                        "has one: give --date (or --date-column), else the whole history "
                        "would be ordered as added instead of by date", self.path)
                raise InputError(
                    f"commit {c.sha!r} has a date, and no commit of this history has one: "
                    "add it without --date (or --date-column), the history is ordered as "
                    "added", self.path)

    def _add_one(self, conn: Database, c: CommitResults, replace: bool) -> int:
        date = normalize_date(c.date)
        row = conn.execute("SELECT id, date, branch FROM commits WHERE sha = ?",
                           (c.sha,)).fetchone()
        if row is None:
            cid = conn.insert("INSERT INTO commits (sha, date, branch, added) VALUES "
                              "(?, ?, ?, ?)", (c.sha, date, c.branch, timestamp()))
        else:
            cid = row[0]
            if date is not None and row[1] is not None and date != row[1]:
                raise InputError(f"commit {c.sha!r} is stored with date {row[1]}, not {date}",
                                 self.path)
            if c.branch is not None and row[2] is not None and c.branch != row[2]:
                raise InputError(f"commit {c.sha!r} is stored on branch {row[2]!r}, not "
                                 f"{c.branch!r}", self.path)
            if (date and not row[1]) or (c.branch and not row[2]):
                conn.execute("UPDATE commits SET date = COALESCE(date, ?), branch = "
                             "COALESCE(branch, ?) WHERE id = ?", (date, c.branch, cid))
        written = 0
        for s in c.series:
            sid, factor = self._series_id(conn, s)
            if conn.execute("SELECT 1 FROM results WHERE series = ? AND commit_id = ?",
                            (sid, cid)).fetchone():
                if not replace:
                    raise InputError(f"commit {c.sha!r} already has results of benchmark "
                                     f"{s.benchmark!r} ({s.metric}, machine {s.machine}); add "
                                     "--replace to replace them", self.path)
                conn.execute("DELETE FROM results WHERE series = ? AND commit_id = ?",
                             (sid, cid))
            values = np.asarray(s.values, dtype=float) * factor
            levels = json.dumps([[str(x) for x in lv] for lv in s.levels])
            conn.execute("INSERT INTO results (series, commit_id, n, data, levels) VALUES "
                         "(?, ?, ?, ?, ?)", (sid, cid, values.size,
                                             values.astype("<f8").tobytes(), levels))
            written += values.size
        return written

    def _series_id(self, conn: Database, s: SeriesData) -> tuple[int, float]:
        """The series' id (created on first use) and the factor into its stored unit."""
        row = conn.execute("SELECT id, unit, levels FROM series WHERE benchmark = ? AND "
                           "metric = ? AND machine = ?",
                           (s.benchmark, s.metric, s.machine)).fetchone()
        if row is None:
            hib = None if s.higher_is_better is None else int(s.higher_is_better)
            sid = conn.insert(
                "INSERT INTO series (benchmark, metric, machine, unit, higher_is_better, "
                "levels) VALUES (?, ?, ?, ?, ?, ?)",
                (s.benchmark, s.metric, s.machine, s.unit, hib,
                 json.dumps(list(s.level_names))))
            return sid, 1.0
        sid, unit, names = row
        factor = conversion(s.unit, unit)
        if factor is None:
            raise InputError(f"benchmark {s.benchmark!r} ({s.metric}, {s.machine}) is stored "
                             f"in {unit or 'no unit'}; its new results in {s.unit or 'no unit'} "
                             "cannot be converted (give --unit)", self.path)
        if tuple(json.loads(names)) != tuple(s.level_names):
            raise InputError(f"benchmark {s.benchmark!r} ({s.metric}, {s.machine}) is stored "
                             f"with levels {json.loads(names) or 'none'}, these results have "
                             f"{list(s.level_names) or 'none'} (give --levels)", self.path)
        return sid, factor

    # -- reading -----------------------------------------------------------------
    def commits(self) -> list[Commit]:
        """Every commit, oldest first: by date when every commit has one, else as added."""
        with self.db.reading("commits"):
            rows = self.db.execute("SELECT sha, date, branch, id FROM commits ORDER BY id"
                                     ).fetchall()
        found = [(Commit(sha, date, branch), cid) for sha, date, branch, cid in rows]
        if found and all(c.date is not None for c, _ in found):
            found.sort(key=lambda item: (item[0].date, item[1]))
        return [c for c, _ in found]

    def series(self) -> list[Series]:
        """Every series with its measurements, commits as positions in commits().

        One query for every series and commit (schema 2: a row holds a commit's values
        as bytes and its level values as JSON lists; the few distinct level strings are
        parsed once); a history of schema 1 (a row per measurement) opened to read is
        read as it is (`_rows_v1`), and migrated when opened to write. A damaged file
        (SQLite's errors, or rows that do not fit together) is one InputError."""
        commits = self.commits()
        try:
            with self.db.reading(RESULTS[self.version]):
                return self._series(commits)
        except (ValueError, KeyError, IndexError) as exc:
            raise InputError(f"a damaged history: its rows do not fit together ("
                             f"{type(exc).__name__}: {str(exc)[:200]})", self.path) from None

    def _series(self, commits: list[Commit]) -> list[Series]:
        order = {sha: i for i, sha in enumerate(c.sha for c in commits)}
        ids = self.db.execute("SELECT id, sha FROM commits").fetchall()
        position = np.full(max((cid for cid, _ in ids), default=0) + 1, -1, dtype=np.int64)
        for cid, sha in ids:
            position[cid] = order[sha]
        meta = {sid: rest for sid, *rest in self.db.execute(
            "SELECT id, benchmark, metric, machine, unit, higher_is_better, levels "
            "FROM series")}
        rows = _rows_v1(self.db) if self.version < 2 else _rows_v2(self.db)
        if rows is None:
            return []
        sid, cid, values, levels = rows
        at = position[cid]
        starts = np.flatnonzero(np.r_[True, sid[1:] != sid[:-1]])
        ends = np.r_[starts[1:], sid.size]
        out = []
        for a, b in zip(starts.tolist(), ends.tolist(), strict=True):
            bench, metric, machine, unit, hib, names = meta[int(sid[a])]
            level_names = tuple(json.loads(names))
            keep = a + np.argsort(at[a:b], kind="stable")
            out.append(Series(bench, metric, machine, unit, None if hib is None else bool(hib),
                              level_names, at[keep], values[keep],
                              tuple(lv[keep] for lv in levels[:len(level_names)])))
        out.sort(key=lambda s: s.key)
        return out

    def counts(self) -> dict[str, int]:
        """How many commits, series and measurements the store holds."""
        one = self.db.execute
        with self.db.reading(RESULTS[self.version]):
            return {"commits": one("SELECT COUNT(*) FROM commits").fetchone()[0],
                    "series": one("SELECT COUNT(*) FROM series").fetchone()[0],
                    "measurements": one(
                        f"SELECT {'COUNT(*)' if self.version < 2 else 'SUM(n)'} "
                        f"FROM {RESULTS[self.version]}").fetchone()[0] or 0}


def _codes(texts: Sequence[str]) -> tuple[np.ndarray, list]:
    """Each text's index among the distinct ones, and each distinct one parsed (JSON)."""
    index: dict[str, int] = {}
    code = np.fromiter((index.setdefault(x, len(index)) for x in texts), dtype=np.int64,
                       count=len(texts))
    return code, [json.loads(x) for x in index]


def _level_columns(per_row: list[list[list[str]]], code: np.ndarray, counts: np.ndarray
                   ) -> tuple[np.ndarray, ...]:
    """The level values of every measurement, one array per level: row i (of counts[i]
    values) has the lists per_row[code[i]], one per level; a row with fewer levels than
    the deepest gets "" (its series does not use them). Gathered by index, no loop over
    rows."""
    depth = max((len(p) for p in per_row), default=0)
    total = int(counts.sum())
    within = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
    columns = []
    for j in range(depth):
        pieces = [p[j] if j < len(p) else [] for p in per_row]
        sizes = np.array([len(x) for x in pieces], dtype=np.int64)
        flat = np.array([v for x in pieces for v in x] + [""], dtype=str)
        offset = np.cumsum(sizes) - sizes
        has = np.repeat((sizes > 0)[code], counts)
        columns.append(flat[np.where(has, np.repeat(offset[code], counts) + within,
                                     flat.size - 1)])
    return tuple(columns)


def _rows_v2(conn: Database):
    """(series ids, commit ids, values, level columns) per measurement, in the order of
    (series, commit_id, position); None for an empty history."""
    rows = conn.execute("SELECT series, commit_id, n, data, levels FROM results "
                        "ORDER BY series, commit_id").fetchall()
    if not rows:
        return None
    sid, cid, n, data, text = zip(*rows, strict=True)
    counts = np.fromiter(n, dtype=np.int64, count=len(rows))
    values = np.frombuffer(b"".join(data), dtype="<f8").astype(float)
    code, distinct = _codes(text)
    per_row = [[list(map(str, lv)) for lv in p] for p in distinct]
    levels = _level_columns(per_row, code, counts)
    return (np.repeat(np.fromiter(sid, dtype=np.int64, count=len(rows)), counts),
            np.repeat(np.fromiter(cid, dtype=np.int64, count=len(rows)), counts),
            values, levels)


def _rows_v1(conn: Database):
    """As _rows_v2 for a history of schema 1: one row per measurement, its level values
    a JSON list (each distinct string parsed once)."""
    rows = conn.execute("SELECT series, commit_id, value, levels FROM measurements "
                        "ORDER BY series, commit_id, position").fetchall()
    if not rows:
        return None
    sid, cid, values, text = zip(*rows, strict=True)
    code, distinct = _codes(text)
    depth = max((len(p) for p in distinct), default=0)
    table = np.array([[str(p[j]) if j < len(p) else "" for j in range(depth)]
                      for p in distinct], dtype=str).reshape(len(distinct), depth)
    return (np.fromiter(sid, dtype=np.int64, count=len(rows)),
            np.fromiter(cid, dtype=np.int64, count=len(rows)),
            np.fromiter(values, dtype=float, count=len(rows)),
            tuple(table[code, j] for j in range(depth)))


def _migrate(conn: Database) -> None:
    """An older history to the current schema, in one transaction (a process killed
    during it leaves the old one): 1 to 2 puts each series' and commit's measurements
    into one row; 2 to 3 adds the empty tables of the stored PR checks."""
    with conn.write():
        version = int(conn.execute("SELECT value FROM history_meta WHERE key = "
                                   "'schema_version'").fetchone()[0])
        if version >= SCHEMA_VERSION:
            return  # another process migrated it first
        if version == 1:
            _migrate_v1(conn)
        for statement in checks_schema(conn.dialect):
            conn.execute(statement)
        conn.execute("UPDATE history_meta SET value = ? WHERE key = 'schema_version'",
                     (str(SCHEMA_VERSION),))


def _migrate_v1(conn: Database) -> None:
    """Schema 1's rows (one per measurement) into schema 2's (one per series and commit)."""
    for statement in results_schema(conn.dialect):
        conn.execute(statement)
    rows = _rows_v1(conn)
    if rows is not None:
        sid, cid, values, levels = rows
        starts = np.flatnonzero(np.r_[True, (sid[1:] != sid[:-1]) | (cid[1:] != cid[:-1])])
        ends = np.r_[starts[1:], sid.size]
        depth = [len(json.loads(x)) for (x,) in conn.execute(
            "SELECT levels FROM series ORDER BY id")]
        names = dict(zip([i for (i,) in conn.execute("SELECT id FROM series ORDER BY id")],
                         depth, strict=True))
        conn.executemany(
            "INSERT INTO results (series, commit_id, n, data, levels) VALUES "
            "(?, ?, ?, ?, ?)",
            [(int(sid[a]), int(cid[a]), b - a, values[a:b].astype("<f8").tobytes(),
              json.dumps([lv[a:b].tolist() for lv in levels[:names[int(sid[a])]]]))
             for a, b in zip(starts.tolist(), ends.tolist(), strict=True)])
    conn.execute("DROP TABLE measurements")


def _version(db: Database) -> int:
    """The schema version of the history `db` holds; a one-line InputError when it holds
    none, or one newer than this benchlab reads."""
    tables, kind = db.tables(), db.dialect.name
    if {"benchlab_meta", "trials"} <= tables:
        raise InputError("a store of `benchlab run`, not a history: give it to "
                         "`benchlab history add` as an input", db.where)
    if not BASE_TABLES <= tables:
        raise InputError(f"not a benchlab history (a {kind} database without its tables)",
                         db.where)
    meta = dict(db.execute("SELECT key, value FROM history_meta"))
    if meta.get("format") != FORMAT:
        raise InputError("not a benchlab history (no benchlab format mark)", db.where)
    text = meta.get("schema_version", "0")
    if not isinstance(text, str) or not text.strip().isdigit():
        raise InputError(f"a damaged history: table history_meta, schema_version is "
                         f"{text!r}, not a whole number", db.where)
    version = int(text)
    if version > SCHEMA_VERSION:
        raise InputError(f"history schema version {meta['schema_version']} is newer "
                         "than this benchlab reads; upgrade benchlab", db.where)
    if RESULTS.get(version) not in tables:
        raise InputError(f"not a benchlab history (a {kind} database without its tables)",
                         db.where)
    return version


def _first_twice(items: Sequence[str]) -> str:
    seen: set[str] = set()
    for item in items:
        if item in seen:
            return item
        seen.add(item)
    return ""
