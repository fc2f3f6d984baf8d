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

        Writers to one history go one at a time (the backend's write lock), so the lock
        is held for the statements that must see what the writer before committed and
        nothing else: the values are converted and encoded, and the series already
        stored read and checked (a series' unit and levels never change once stored),
        before it is taken; under it each kind of row is looked up and written in one
        statement for every commit and series, not one per series (_Batch).
        """
        shas = [c.sha for c in commits]
        if len(set(shas)) != len(shas):
            raise InputError(f"commit {_first_twice(shas)!r} is given twice")
        dates = [normalize_date(c.date) for c in commits]
        keys = list(dict.fromkeys((s.benchmark, s.metric, s.machine)
                                  for c in commits for s in c.series))
        with self.db.reading("series"):
            stored = self._stored_series(keys)
        batch = _Batch(self, stored)
        for c in commits:
            for s in c.series:
                _check_finite(c.sha, s)
                batch.encode(s)
        with self.db.write():
            self._same_kind_of_dates(self.db, commits)
            ids = self._commit_ids(commits, dates)
            written = batch.write(commits, ids, replace)
            if checks:
                from benchlab.history.checks import write

                for check in checks:
                    write(self.db, check, replace=replace)
        return written

    def _stored_series(self, keys: list[tuple[str, str, str]]
                       ) -> dict[tuple[str, str, str], tuple[int, str, str]]:
        """The stored series among `keys`: (id, unit, levels as stored) by key."""
        found: dict[tuple[str, str, str], tuple[int, str, str]] = {}
        wanted = set(keys)
        for part in _chunks(sorted({b for b, _, _ in keys})):
            marks = ", ".join("?" * len(part))
            for sid, bench, metric, machine, unit, names in self.db.execute(
                    "SELECT id, benchmark, metric, machine, unit, levels FROM series "
                    f"WHERE benchmark IN ({marks})", part):
                if (bench, metric, machine) in wanted:
                    found[(bench, metric, machine)] = (sid, unit, names)
        return found

    def _commit_ids(self, commits: Sequence[CommitResults], dates: list[str | None]
                    ) -> list[int]:
        """Each commit's id, stored first when new; a commit known with another date or
        branch is refused (one missing there is filled in). Under the write lock."""
        conn = self.db
        known: dict[str, tuple[int, str | None, str | None]] = {}
        for part in _chunks([c.sha for c in commits]):
            marks = ", ".join("?" * len(part))
            for cid, sha, date, branch in conn.execute(
                    f"SELECT id, sha, date, branch FROM commits WHERE sha IN ({marks})", part):
                known[sha] = (cid, date, branch)
        ids = []
        for c, date in zip(commits, dates, strict=True):
            row = known.get(c.sha)
            if row is None:
                ids.append(conn.insert("INSERT INTO commits (sha, date, branch, added) "
                                       "VALUES (?, ?, ?, ?)",
                                       (c.sha, date, c.branch, timestamp())))
                continue
            cid, stored_date, stored_branch = row
            if date is not None and stored_date is not None and date != stored_date:
                raise InputError(f"commit {c.sha!r} is stored with date {stored_date}, not "
                                 f"{date}", self.path)
            if c.branch is not None and stored_branch is not None and \
                    c.branch != stored_branch:
                raise InputError(f"commit {c.sha!r} is stored on branch {stored_branch!r}, "
                                 f"not {c.branch!r}", self.path)
            if (date and not stored_date) or (c.branch and not stored_branch):
                conn.execute("UPDATE commits SET date = COALESCE(date, ?), branch = "
                             "COALESCE(branch, ?) WHERE id = ?", (date, c.branch, cid))
            ids.append(cid)
        return ids

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

    def _series_row(self, conn: Database, s: SeriesData) -> tuple[int, str, str, bool]:
        """The series' id, stored unit and levels (JSON), and whether this call created
        it (on first use). Under the write lock."""
        row = conn.execute("SELECT id, unit, levels FROM series WHERE benchmark = ? AND "
                           "metric = ? AND machine = ?",
                           (s.benchmark, s.metric, s.machine)).fetchone()
        if row is not None:
            return row[0], row[1], row[2], False
        hib = None if s.higher_is_better is None else int(s.higher_is_better)
        names = json.dumps(list(s.level_names))
        sid = conn.insert(
            "INSERT INTO series (benchmark, metric, machine, unit, higher_is_better, "
            "levels) VALUES (?, ?, ?, ?, ?, ?)",
            (s.benchmark, s.metric, s.machine, s.unit, hib, names))
        return sid, s.unit, names, True

    def _factor(self, s: SeriesData, unit: str, names: str) -> float:
        """The factor from the results' unit into the series' stored `unit`; refused when
        there is none, or when the stored level `names` (JSON) are not the results'."""
        factor = conversion(s.unit, unit)
        if factor is None:
            raise InputError(f"benchmark {s.benchmark!r} ({s.metric}, {s.machine}) is stored "
                             f"in {unit or 'no unit'}; its new results in {s.unit or 'no unit'} "
                             "cannot be converted (give --unit)", self.path)
        if tuple(json.loads(names)) != tuple(s.level_names):
            raise InputError(f"benchmark {s.benchmark!r} ({s.metric}, {s.machine}) is stored "
                             f"with levels {json.loads(names) or 'none'}, these results have "
                             f"{list(s.level_names) or 'none'} (give --levels)", self.path)
        return factor


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


class _Batch:
    """One add's results rows, every one encoded before the write lock (in the stored
    unit where the series is stored already, else as given: the series will be created
    in it), so that under the lock the writer only looks up and writes: a new series
    created meanwhile by another writer in another unit, or a later commit's results of
    a series this add creates in another unit, are encoded again there (rare). Written
    with one lookup of what the commits hold and one statement of inserts."""

    def __init__(self, history: History, stored: dict) -> None:
        self.history, self.stored = history, stored
        self.ids: dict[tuple[str, str, str], int] = {}
        self.encoded: dict[int, tuple[int, bytes, str]] = {}  # id(SeriesData) -> row
        self.factors: dict[tuple, float] = {}  # (key, unit, levels) -> into the stored unit
        self.tentative: set[int] = set()  # rows encoded as given: their series was new

    def _factor(self, s: SeriesData, unit: str, names: str) -> float:
        """The factor into the stored unit (refused as History._factor), once per
        series, unit and level names."""
        which = ((s.benchmark, s.metric, s.machine), s.unit, tuple(s.level_names), unit, names)
        if which not in self.factors:
            self.factors[which] = self.history._factor(s, unit, names)
        return self.factors[which]

    def encode(self, s: SeriesData) -> None:
        stored = self.stored.get((s.benchmark, s.metric, s.machine))
        if stored is None:
            self.tentative.add(id(s))
        self.encoded[id(s)] = _row(s, 1.0 if stored is None else
                                   self._factor(s, stored[1], stored[2]))

    def write(self, commits: Sequence[CommitResults], ids: list[int], replace: bool) -> int:
        conn, history = self.history.db, self.history
        for c in commits:
            for s in c.series:
                key = (s.benchmark, s.metric, s.machine)
                if key not in self.ids:
                    if key not in self.stored:  # new before the lock; maybe not any more
                        sid, unit, names, _ = history._series_row(conn, s)
                        self.stored[key] = (sid, unit, names)
                    self.ids[key] = self.stored[key][0]
                if id(s) in self.tentative:  # refused when its unit or levels do not fit
                    _, unit, names = self.stored[key]
                    factor = self._factor(s, unit, names)
                    if factor != 1.0:
                        self.encoded[id(s)] = _row(s, factor)
        held: set[tuple[int, int]] = set()
        for part in _chunks(sorted(set(ids))):
            marks = ", ".join("?" * len(part))
            held.update(conn.execute("SELECT series, commit_id FROM results WHERE commit_id "
                                     f"IN ({marks})", part).fetchall())
        rows, again, seen = [], [], set()
        for c, cid in zip(commits, ids, strict=True):
            for s in c.series:
                sid = self.ids[(s.benchmark, s.metric, s.machine)]
                if (sid, cid) in seen:
                    raise InputError(f"commit {c.sha!r} gives results of benchmark "
                                     f"{s.benchmark!r} ({s.metric}, machine {s.machine}) "
                                     "twice", history.path)
                seen.add((sid, cid))
                if (sid, cid) in held:
                    if not replace:
                        raise InputError(f"commit {c.sha!r} already has results of benchmark "
                                         f"{s.benchmark!r} ({s.metric}, machine {s.machine}); "
                                         "add --replace to replace them", history.path)
                    again.append((sid, cid))
                n, data, levels = self.encoded[id(s)]
                rows.append((sid, cid, n, data, levels))
        if again:
            conn.executemany("DELETE FROM results WHERE series = ? AND commit_id = ?", again)
        if rows:
            conn.executemany("INSERT INTO results (series, commit_id, n, data, levels) "
                             "VALUES (?, ?, ?, ?, ?)", rows)
        return sum(n for _, _, n, _, _ in rows)


def _check_finite(sha: str, s: SeriesData) -> None:
    """Refuse a series holding a value that is not a finite number (NaN, ±inf): no analysis
    of a history can use one, and `history export` could not write it as JSON. The command
    line refuses such values as it reads them; this is the same rule for the Python API and
    `history import`."""
    values = np.asarray(s.values, dtype=float)
    bad = ~np.isfinite(values)
    if bad.any():
        raise InputError(f"commit {sha}, benchmark {s.benchmark!r}, metric {s.metric!r}: "
                         f"value {int(np.argmax(bad)) + 1} is {values[bad][0]!r}, not a "
                         "finite number; nothing was added")


def _row(s: SeriesData, factor: float) -> tuple[int, bytes, str]:
    """A results row's n, values (little-endian float64, in the stored unit) and levels."""
    values = np.asarray(s.values, dtype=float) * factor
    levels = json.dumps([[str(x) for x in lv] for lv in s.levels])
    return values.size, values.astype("<f8").tobytes(), levels


def _chunks(items: Sequence, size: int = 500) -> list[list]:
    """`items` in lists of at most `size`: one statement's placeholders each (SQLite
    allows 999 in the oldest builds Python ships with)."""
    items = list(items)
    return [items[i:i + size] for i in range(0, len(items), size)]


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
