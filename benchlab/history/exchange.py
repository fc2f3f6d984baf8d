"""A history as one portable file: what `history export` writes and `history import` reads,
so a history moves between SQLite and PostgreSQL (or between machines) whole.

The file is JSON Lines (UTF-8, one JSON object per line), format
"benchlab-history-export" version 2 (version 1, without checks, is read too):

1. a header: {"format", "version", "history_schema", "benchlab_version", "source" (the
   history it came from, a URL without its password), "commits", "series",
   "measurements", "checks"};
2. one line per commit, oldest first as `history` orders them:
   {"commit": SHA, "date": ISO 8601 UTC or null, "branch": NAME or null};
3. one line per series: {"series": {"benchmark", "metric", "machine", "unit",
   "higher_is_better" (true, false or null), "levels": [level names]}, "results":
   [{"commit": SHA, "values": [numbers], "levels": [[level values] per level name]}]};
4. one line per stored PR check (history/checks.py): {"check": {"head", "machine",
   "recorded", "confidence", "threshold", "seed", "settings", "document" (what `history
   compare --json` printed), "rows": [{"name", "benchmark", "metric", "machine",
   "baseline", "baseline_commits", "outcome", "judgement", "estimate", "low", "high",
   "level", "verdict"}]}}.

Values are in the series' stored unit, written as Python writes a float (the shortest
text that reads back to the same double, so a round trip is exact). Importing adds the
commits in the file's order in one transaction, as `history add` of each commit would:
a commit that already has results of one of the series, or a check of a head and
machine already checked, is refused unless --replace.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass, fields

import numpy as np

from benchlab.errors import InputError
from benchlab.history.checks import CheckRow, StoredCheck
from benchlab.history.store import Commit, CommitResults, History, SeriesData
from benchlab.version import __version__

FORMAT = "benchlab-history-export"
VERSION = 2
CHECK_KEYS = ("head", "machine", "recorded", "confidence", "threshold", "seed", "settings",
              "document")
ROW_KEYS = tuple(f.name for f in fields(CheckRow))


def export_lines(history: History) -> Iterator[str]:
    """The history as the lines of an export file (each ending in a newline)."""
    commits = history.commits()
    series = history.series()
    checks = history.checks()
    yield _line({"format": FORMAT, "version": VERSION, "history_schema": history.version,
                 "benchlab_version": __version__, "source": history.path,
                 "commits": len(commits), "series": len(series),
                 "measurements": int(sum(s.values.size for s in series)),
                 "checks": len(checks)})
    for c in commits:
        yield _line({"commit": c.sha, "date": c.date, "branch": c.branch})
    for s in series:
        bounds = np.flatnonzero(np.r_[True, s.commit_index[1:] != s.commit_index[:-1]])
        ends = np.r_[bounds[1:], s.commit_index.size]
        results = [{"commit": commits[int(s.commit_index[a])].sha,
                    "values": s.values[a:b].tolist(),
                    "levels": [lv[a:b].tolist() for lv in s.levels]}
                   for a, b in zip(bounds.tolist(), ends.tolist(), strict=True)]
        yield _line({"series": {"benchmark": s.benchmark, "metric": s.metric,
                                "machine": s.machine, "unit": s.unit,
                                "higher_is_better": s.higher_is_better,
                                "levels": list(s.level_names)},
                     "results": results})
    for check in checks:
        doc = {key: getattr(check, key) for key in CHECK_KEYS}
        yield _line({"check": {**doc, "rows": [asdict(r) for r in check.rows]}})


def _line(document: dict) -> str:
    return json.dumps(document, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class Export:
    """An export file read back: its header and its commits' results, in its order."""

    header: dict
    commits: list[CommitResults]
    checks: list[StoredCheck]

    @property
    def measurements(self) -> int:
        return sum(int(np.size(s.values)) for c in self.commits for s in c.series)


def read_export(text: str, name: str) -> Export:
    """An export file's text as the CommitResults `History.add` takes; any line that is
    not what the format says is one InputError naming `name:line`."""
    lines = text.splitlines()
    if not lines:
        raise InputError("empty: not a benchlab history export", name)
    header = _object(lines[0], name, 1)
    if header.get("format") != FORMAT:
        raise InputError(f"not a benchlab history export (its first line has no \"format\": "
                         f"\"{FORMAT}\"; `benchlab history export` writes one)", name)
    if not isinstance(header.get("version"), int) or header["version"] > VERSION:
        raise InputError(f"export format version {header.get('version')!r} is not one this "
                         f"benchlab reads (up to {VERSION}); upgrade benchlab", name)
    order: list[Commit] = []
    checks: list[StoredCheck] = []
    known: dict[str, int] = {}
    per_commit: list[list[SeriesData]] = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        where = f"{name}:{number}"
        doc = _object(line, name, number)
        if "commit" in doc:
            sha = _text(doc, "commit", where)
            if sha in known:
                raise InputError(f"commit {sha!r} is listed twice", where)
            known[sha] = len(order)
            order.append(Commit(sha, _maybe_text(doc, "date", where),
                                _maybe_text(doc, "branch", where)))
            per_commit.append([])
        elif "series" in doc:
            for sha, data in _series(doc, where):
                if sha not in known:
                    raise InputError(f"results of commit {sha!r}, which no line before "
                                     "lists", where)
                per_commit[known[sha]].append(data)
        elif "check" in doc:
            checks.append(_check(doc["check"], where))
        else:
            raise InputError("a line with neither \"commit\", \"series\" nor \"check\"",
                             where)
    return Export(header, [CommitResults(c.sha, c.date, c.branch, tuple(s))
                           for c, s in zip(order, per_commit, strict=True)], checks)


def _check(doc: object, where: str) -> StoredCheck:
    """A "check" line's object as a StoredCheck; anything missing or of the wrong type is
    one InputError naming the line."""
    if not isinstance(doc, dict) or not all(k in doc for k in (*CHECK_KEYS, "rows")):
        raise InputError(f"a check line needs an object with {', '.join(CHECK_KEYS)} and "
                         "rows", where)
    rows = doc["rows"]
    if not isinstance(rows, list) or not all(isinstance(r, dict) and set(r) == set(ROW_KEYS)
                                             for r in rows):
        raise InputError(f"a check's \"rows\" must be objects of {', '.join(ROW_KEYS)}",
                         where)
    texts = [_text(doc, k, where) for k in ("head", "machine", "recorded")]
    numbers = [doc[k] for k in ("confidence", "threshold")]
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in numbers) or \
            not isinstance(doc["settings"], dict) or not isinstance(doc["document"], dict) or \
            not (doc["seed"] is None or isinstance(doc["seed"], int)):
        raise InputError("a check's confidence and threshold must be numbers, its seed a "
                         "whole number or null, its settings and document objects", where)
    for r in rows:
        if not all(isinstance(r[k], str) for k in ("name", "benchmark", "metric", "machine",
                                                   "outcome", "judgement", "verdict")) or \
                not isinstance(r["baseline_commits"], int) or any(
                    r[k] is not None and not isinstance(r[k], (int, float))
                    for k in ("estimate", "low", "high", "level")):
            raise InputError("a check's row must have text names, verdict and judgement, a "
                             "whole number of baseline commits and numbers (or null) for "
                             "its ratio", where)
    return StoredCheck(*texts, float(numbers[0]), float(numbers[1]), doc["seed"],
                       doc["settings"], doc["document"],
                       tuple(CheckRow(**{k: r[k] for k in ROW_KEYS}) for r in rows))


def _series(doc: dict, where: str) -> Iterator[tuple[str, SeriesData]]:
    meta, results = doc.get("series"), doc.get("results")
    if not isinstance(meta, dict) or not isinstance(results, list):
        raise InputError("a series line needs \"series\" (an object) and \"results\" "
                         "(a list)", where)
    names = meta.get("levels", [])
    hib = meta.get("higher_is_better")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names) or \
            hib not in (True, False, None):
        raise InputError("a series' \"levels\" must be a list of names and "
                         "\"higher_is_better\" true, false or null", where)
    texts = [_text(meta, key, where, empty=key == "unit")
             for key in ("benchmark", "metric", "machine", "unit")]
    for result in results:
        if not isinstance(result, dict):
            raise InputError("each of \"results\" must be an object", where)
        sha = _text(result, "commit", where)
        try:
            values = np.asarray(result.get("values"), dtype=float)
        except (TypeError, ValueError):
            raise InputError(f"commit {sha!r}: \"values\" must be a list of numbers",
                             where) from None
        levels = result.get("levels", [])
        if values.ndim != 1 or values.size == 0 or not isinstance(levels, list) or \
                len(levels) != len(names) or any(
                    not isinstance(lv, list) or len(lv) != values.size for lv in levels):
            raise InputError(f"commit {sha!r}: \"values\" must be a non-empty list and "
                             "\"levels\" one list of as many values per level name", where)
        yield sha, SeriesData(*texts, hib, tuple(names), values,
                              tuple(np.array([str(x) for x in lv], dtype=str)
                                    for lv in levels))


def _object(line: str, name: str, number: int) -> dict:
    try:
        doc = json.loads(line)
    except ValueError as exc:
        raise InputError(f"not JSON ({exc.msg}, column {exc.colno})",
                         f"{name}:{number}") from None
    if not isinstance(doc, dict):
        raise InputError("each line must be a JSON object", f"{name}:{number}")
    return doc


def _text(doc: dict, key: str, where: str, *, empty: bool = False) -> str:
    value = doc.get(key)
    if not isinstance(value, str) or (not empty and not value):
        raise InputError(f"\"{key}\" must be {'a' if empty else 'a non-empty'} string", where)
    return value


def _maybe_text(doc: dict, key: str, where: str) -> str | None:
    value = doc.get(key)
    if value is not None and not isinstance(value, str):
        raise InputError(f"\"{key}\" must be a string or null", where)
    return value
