"""The store's outcome log (runner/store.py): every outcome is in the log the moment it is
recorded, committed by time slice, and a killed session's log is replayed by the next writer,
each trial once; a line cut short is dropped, a damaged one named."""

from __future__ import annotations

import os
import sqlite3

import pytest

from benchlab.errors import InputError
from benchlab.runner import store as store_module
from benchlab.runner.config import parse_experiment
from benchlab.runner.execute import Outcome
from benchlab.runner.plan import make_plan
from benchlab.runner.session import plan_only
from benchlab.runner.store import LOG_SUFFIX, Store
from benchlab.runner.trial import measurements

TEXT = 'seed = 1\nexecutions = 4\n[alternatives.a]\ncommand = ["true"]\n'


def _session(tmp_path, monkeypatch):
    """A store with a session open, commits held back (a slice longer than the test)."""
    monkeypatch.setattr(store_module, "SLICE_S", 3600.0)
    e = parse_experiment(TEXT, str(tmp_path / "exp.toml"))
    plan = make_plan(e, 1)
    db = str(tmp_path / "s.db")
    store = Store.create(db, {"seed": "1", "experiment_text": TEXT}, plan)
    session = store.start_session([], {}, [])
    return e, plan, db, store, session


def _record(store, e, trial, session, wall=0.5, error=None):
    outcome = Outcome(wall, 0.1, 0.2, 1024, 0 if error is None else 1, None, False, error,
                      "tail" if error else "")
    store.record(trial, session, "2026-11-27T00:00:00Z", "true", outcome,
                 measurements(e, trial, outcome) if error is None else [])


def _rows(db):
    conn = sqlite3.connect(db)
    try:
        trials = conn.execute("SELECT seq, status, wall, error, stderr_tail FROM trials "
                              "ORDER BY seq").fetchall()
        values = conn.execute("SELECT trial, metric, value FROM measurements ORDER BY trial, "
                              "metric").fetchall()
    finally:
        conn.close()
    return trials, values


def test_a_killed_session_is_replayed_once(tmp_path, monkeypatch):
    e, plan, db, store, session = _session(tmp_path, monkeypatch)
    _record(store, e, plan[0], session, wall=0.25)
    with open(db + LOG_SUFFIX, "rb") as log:
        first = log.read()
    store.commit()  # the first in the store, its log emptied
    assert os.path.getsize(db + LOG_SUFFIX) == 0
    _record(store, e, plan[1], session, wall=0.125)
    _record(store, e, plan[2], session, error="exit code 1")
    trials, _ = _rows(db)
    assert [t[1] for t in trials] == ["ok", "planned", "planned", "planned"]
    with open(db + LOG_SUFFIX, "ab") as log:
        log.write(first)  # as if killed between a commit and the log's truncation
        log.write(b'[["ok", 1, "2026')  # and in the write of a last line
    store.close()  # killed: no finish_session
    assert os.path.exists(db + LOG_SUFFIX)
    reader = Store.open(db)  # a reader sees what the log holds, and changes nothing
    assert [row[-1] for row, *_ in reader.logged()] == [plan[1].seq, plan[2].seq, plan[0].seq]
    reader.close()
    (tmp_path / "exp.toml").write_text(TEXT)  # --dry-run --resume: what is left to run
    planned = plan_only(str(tmp_path / "exp.toml"), db, seed=None, resume=True)
    assert [t.seq for t in planned.trials] == [plan[3].seq]
    Store.open(db, write=True).close()  # the next writer replays the log
    assert not os.path.exists(db + LOG_SUFFIX)
    trials, values = _rows(db)
    assert trials == [(plan[0].seq, "ok", 0.25, None, None),
                      (plan[1].seq, "ok", 0.125, None, None),
                      (plan[2].seq, "failed", 0.5, "exit code 1", "tail"),
                      (plan[3].seq, "planned", None, None, None)]
    assert [v[:2] for v in values] == [(s, m) for s in (plan[0].seq, plan[1].seq)
                                       for m in ("maxrss", "sys", "user", "wall")]
    assert (plan[1].seq, "wall", 0.125) in values


def test_a_finished_session_leaves_no_log(tmp_path, monkeypatch):
    e, plan, db, store, session = _session(tmp_path, monkeypatch)
    for trial in plan:
        _record(store, e, trial, session)
    store.finish_session(session, "finished")
    assert not os.path.exists(db + LOG_SUFFIX)
    store.close()
    trials, values = _rows(db)
    assert {t[1] for t in trials} == {"ok"} and len(values) == 4 * len(plan)


def test_a_damaged_log_line_is_named(tmp_path, monkeypatch):
    e, plan, db, store, session = _session(tmp_path, monkeypatch)
    _record(store, e, plan[0], session)
    store.close()
    with open(db + LOG_SUFFIX, "ab") as log:
        log.write(b"not json\n")
    with pytest.raises(InputError, match=r"s\.db-outcomes:2: not an outcome benchlab wrote"):
        Store.open(db, write=True)
    assert _rows(db)[0][0][1] == "planned"  # nothing half-replayed
