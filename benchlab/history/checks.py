"""Stored PR checks: what `history compare --store` keeps of a comparison, and its SQL.

A check is one head commit compared on one machine (the machines of the series
compared, joined by commas when there are several): when it was recorded, the
analysis' settings, the JSON document `history compare --json` printed (so a published
page shows exactly those numbers), and one row per benchmark with its series, its
baseline (the first baseline commit, or the parent it was compared with alone), the
verdict and the ratio CI of the verdict's decision (family-wise level, Holm;
STATS.md §7). Storing a check of a head and machine that already has one replaces it;
nothing else in the history changes. Histories of schema 2 have no checks (the tables
come with schema 3, store.py's migration).
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from benchlab.errors import InputError
from benchlab.history.schema import Database

NO_BASELINE = "no baseline"  # the outcome of a benchmark compared with nothing
JUDGEMENTS = ("worse", "better", "change", "none")


def judgement(outcome: str, regression: bool, higher_is_better: bool | None) -> str:
    """A verdict as one of JUDGEMENTS: worse (a change in the bad direction), better, change
    (a unit that says no direction), none (no change shown)."""
    if outcome != "change":
        return "none"
    if regression:
        return "worse"
    return "change" if higher_is_better is None else "better"


@dataclass(frozen=True)
class CheckRow:
    """One benchmark of a check: its name in the comparison, its series, its baseline's
    first commit (or parent) and number of commits, the verdict's outcome and text, its
    judgement (JUDGEMENTS: a change in the bad or good direction, a change of a unit
    without one, or none), and the ratio head/baseline with its CI at `level` (None
    without a baseline)."""

    name: str
    benchmark: str
    metric: str
    machine: str
    baseline: str | None
    baseline_commits: int
    outcome: str
    judgement: str
    estimate: float | None
    low: float | None
    high: float | None
    level: float | None
    verdict: str

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.benchmark, self.metric, self.machine)


@dataclass(frozen=True)
class StoredCheck:
    """One stored `history compare`: head, machine(s), when, settings, the `--json`
    document as printed, and its rows."""

    head: str
    machine: str
    recorded: str
    confidence: float
    threshold: float
    seed: int | None
    settings: dict
    document: dict
    rows: tuple[CheckRow, ...]


def _number(x: Any) -> float | None:
    return None if x is None or not math.isfinite(float(x)) else float(x)


def check_of(document: dict, keys: dict[str, tuple[str, str, str]], recorded: str,
             settings: dict) -> StoredCheck:
    """The check a `history compare --json` document records; `keys` maps each name in it
    to its series' (benchmark, metric, machine) (history.compare.series_names)."""
    decided = {d["benchmark"]: d for d in document.get("decisions", [])}
    spreads = {d["benchmark"]: d for d in document.get("spreads", [])}
    parents = {d["benchmark"]: d for d in document.get("parent_only", [])}
    rows = []
    for b in document.get("benchmarks", []):
        name = b["benchmark"]
        verdict = b["comparisons"][0]["verdict"]
        d = decided.get(name)
        if d is not None:
            ratio = (d["estimate"], d["low"], d["high"], d["level"])
        else:  # no family-wise decision: the comparison's own CI at its level
            r = b["comparisons"][0]["ratio"]
            ratio = (r["estimate"], r["low"], r["high"], document["confidence"])
        if name in spreads:
            base, count = spreads[name]["baseline_start"], spreads[name]["baseline_commits"]
        else:
            base, count = parents[name]["parent"], 1
        rows.append(CheckRow(name, *keys[name], base, int(count), verdict["outcome"],
                             judgement(verdict["outcome"], verdict["regression"],
                                       b.get("higher_is_better")),
                             *(_number(x) for x in ratio), verdict["text"]))
    for u in document.get("unbaselined", []):
        name = u["benchmark"]
        rows.append(CheckRow(name, *keys[name], None, int(u["baseline_commits"]),
                             NO_BASELINE, "none", None, None, None, None, u["verdict"]))
    machine = ",".join(sorted({r.machine for r in rows}))
    return StoredCheck(document["head"], machine, recorded, float(document["confidence"]),
                       float(settings["threshold"]), document.get("seed"), settings,
                       document, tuple(rows))


def of_metrics(check: StoredCheck, metrics: Sequence[str]) -> StoredCheck | None:
    """The check as `history publish --metric` shows it: its rows of those metrics, None
    when it has none. When rows are left out, so are the geometric means (they are over
    every benchmark compared) and the notes that name a benchmark left out, and a note
    says what is shown."""
    kept = tuple(r for r in check.rows if r.metric in metrics)
    if not kept:
        return None
    if len(kept) == len(check.rows):
        return check
    gone = tuple(f"{r.name}:" for r in check.rows if r.metric not in metrics)
    shown = ", ".join(m for m in dict.fromkeys(r.metric for r in kept))
    notes = [n for n in check.document.get("notes", []) if not str(n).startswith(gone)]
    notes.append(f"{len(kept)} of the check's {len(check.rows)} benchmarks shown, those of "
                 f"metric {shown} (history publish --metric); its geometric mean, over all "
                 "of them, is left out")
    document = dict(check.document, geometric_means=[], notes=notes)
    return dataclasses.replace(check, rows=kept, document=document)


def write(db: Database, check: StoredCheck, *, replace: bool = True) -> str | None:
    """Store `check` (inside the caller's write transaction); the time the check of the
    same head and machine it replaces was recorded (None: there was none). With
    `replace` False such a check is refused instead."""
    old = db.execute("SELECT id, recorded FROM checks WHERE head = ? AND machine = ?",
                     (check.head, check.machine)).fetchone()
    if old is not None:
        if not replace:
            raise InputError(f"a check of head {check.head!r} on machine {check.machine!r} "
                             f"is stored (recorded {old[1]}); add --replace to replace it",
                             db.where)
        db.execute("DELETE FROM check_results WHERE check_id = ?", (old[0],))
        db.execute("DELETE FROM checks WHERE id = ?", (old[0],))
    cid = db.insert("INSERT INTO checks (head, machine, recorded, confidence, threshold, "
                    "seed, settings, document) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (check.head, check.machine, check.recorded, check.confidence,
                     check.threshold, check.seed, json.dumps(check.settings),
                     json.dumps(check.document, allow_nan=False)))
    db.executemany("INSERT INTO check_results (check_id, position, name, benchmark, metric, "
                   "machine, baseline, baseline_commits, outcome, judgement, estimate, low, "
                   "high, level, verdict) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   [(cid, i, r.name, r.benchmark, r.metric, r.machine, r.baseline,
                     r.baseline_commits, r.outcome, r.judgement, r.estimate, r.low, r.high,
                     r.level, r.verdict) for i, r in enumerate(check.rows)])
    return None if old is None else old[1]


def read(db: Database) -> list[StoredCheck]:
    """Every stored check, by head then machine; a row that does not parse is one
    InputError (a damaged history)."""
    checks = db.execute("SELECT id, head, machine, recorded, confidence, threshold, seed, "
                        "settings, document FROM checks ORDER BY head, machine").fetchall()
    rows: dict[int, list[CheckRow]] = {}
    for (cid, *fields) in db.execute(
            "SELECT check_id, name, benchmark, metric, machine, baseline, baseline_commits, "
            "outcome, judgement, estimate, low, high, level, verdict FROM check_results "
            "ORDER BY check_id, position"):
        rows.setdefault(cid, []).append(CheckRow(*fields))
    out = []
    for cid, head, machine, recorded, confidence, threshold, seed, settings, doc in checks:
        try:
            parsed = json.loads(settings), json.loads(doc)
        except ValueError:
            raise InputError(f"a damaged history: the check of head {head!r} on {machine!r} "
                             "holds text that is not JSON", db.where) from None
        out.append(StoredCheck(head, machine, recorded, float(confidence), float(threshold),
                               seed, *parsed, tuple(rows.get(cid, ()))))
    return out
