"""The store's `profiles` table (runner/store.py): a counted trial's kept out files go into the
store with its outcome, through the outcome log when a session is killed, only for the first
PROFILES_PER_BUILD counted executions; a store made before the table reads as one without
profiles and gets the table, its data untouched, when opened for writing."""

from __future__ import annotations

import sqlite3
import zlib

import pytest

from benchlab.errors import InputError
from benchlab.runner import store as store_module
from benchlab.runner.config import parse_experiment
from benchlab.runner.counter import PROFILES_PER_BUILD
from benchlab.runner.execute import Outcome
from benchlab.runner.plan import make_plan
from benchlab.runner.store import LOG_SUFFIX, Store
from benchlab.runner.trial import keeps_profile, measurements

TEXT = ('seed = 1\nexecutions = 2\nmetrics = ["instructions"]\ncounter = "callgrind"\n'
        '[alternatives.a]\ncommand = ["true"]\n')
OUT = b"events: Ir\nfl=a.c\nfn=main\n1 5\nsummary: 5\n"


def _setup(tmp_path, monkeypatch):
    monkeypatch.setattr(store_module, "SLICE_S", 3600.0)  # no commit unless asked
    e = parse_experiment(TEXT, str(tmp_path / "exp.toml"))
    plan = make_plan(e, 1)
    db = str(tmp_path / "s.db")
    store = Store.create(db, {"seed": "1", "experiment_text": TEXT}, plan)
    return e, plan, db, store


def _record(store, e, trial, session, parts: tuple[bytes, ...]):
    outcome = Outcome(0.5, 0.1, 0.2, 1024, 0, None, False, None, "",
                      counts={"instructions": 5.0}, profiles=parts)
    store.record(trial, session, "2026-11-27T00:00:00Z", "true", outcome,
                 measurements(e, trial, outcome))


def test_profiles_are_stored_with_the_outcome_and_replayed_from_the_log(tmp_path,
                                                                          monkeypatch):
    e, plan, db, store = _setup(tmp_path, monkeypatch)
    first, second = plan
    parts = (zlib.compress(OUT), zlib.compress(OUT.replace(b"5", b"7")))
    _record(store, e, first, None, parts)  # outside a session: at once
    session = store.start_session([], {}, [])
    _record(store, e, second, session, parts[:1])
    logged = store.logged()
    assert [(row[-1], [p[:2] for p in kept]) for row, _, kept in logged] == [
        (second.seq, [(second.seq, 1)])]
    assert logged[0][2][0][3] == parts[0]  # the bytes survive the log's base64
    store.close()  # killed: the second trial is in the log only
    Store.open(db, write=True).close()  # the next writer replays it
    reader = Store.open(db)
    try:
        kept = reader.profiles()
    finally:
        reader.close()
    assert [(p.trial, p.part, p.alternative, p.execution) for p in kept] == [
        (first.seq, 1, "a", first.execution), (first.seq, 2, "a", first.execution),
        (second.seq, 1, "a", second.execution)]
    assert kept[1].text() == OUT.decode().replace("5", "7")


def test_only_the_first_counted_executions_of_each_build_keep_their_profiles():
    text = TEXT.replace("executions = 2", f"executions = {PROFILES_PER_BUILD + 2}\n"
                                          "builds = 2") + "[warmup]\nexecutions = 1\n"
    e = parse_experiment(text, "exp.toml")
    counted = [t for t in make_plan(e, 1) if t.kind == "count"]
    kept = [t for t in counted if keeps_profile(e, t)]
    assert len(counted) == 2 * (PROFILES_PER_BUILD + 2)
    assert sorted((t.build, t.execution) for t in kept) == [
        (b, x) for b in (1, 2) for x in range(2, PROFILES_PER_BUILD + 2)]
    cachegrind = parse_experiment(TEXT.replace("callgrind", "cachegrind"), "exp.toml")
    assert not any(keeps_profile(cachegrind, t) for t in make_plan(cachegrind, 1))


def test_a_store_made_before_the_table_reads_and_migrates(tmp_path, monkeypatch):
    e, plan, db, store = _setup(tmp_path, monkeypatch)
    _record(store, e, plan[0], None, ())
    store.close()
    conn = sqlite3.connect(db)
    conn.execute("DROP TABLE profiles")  # as a store made before it existed
    conn.commit()
    before = conn.execute("SELECT * FROM measurements").fetchall()
    conn.close()
    reader = Store.open(db)
    try:
        assert reader.profiles() == []
    finally:
        reader.close()
    Store.open(db, write=True).close()
    conn = sqlite3.connect(db)
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        assert "profiles" in tables
        assert conn.execute("SELECT * FROM measurements").fetchall() == before
        assert conn.execute("SELECT value FROM benchlab_meta WHERE key = 'schema_version'"
                            ).fetchone() == ("1",)
    finally:
        conn.close()


def test_a_damaged_log_line_of_profiles_is_named(tmp_path, monkeypatch):
    e, plan, db, store = _setup(tmp_path, monkeypatch)
    session = store.start_session([], {}, [])
    _record(store, e, plan[0], session, (zlib.compress(OUT),))
    store.close()
    with open(db + LOG_SUFFIX, "rb") as log:
        line = log.read()
    with open(db + LOG_SUFFIX, "wb") as log:  # the base64 of the profile damaged
        assert line.endswith(b'"]]\n')
        log.write(line[:-4] + b'!"]]\n')
    reader = Store.open(db)
    try:
        with pytest.raises(InputError, match="not an outcome benchlab wrote"):
            reader.logged()
    finally:
        reader.close()
