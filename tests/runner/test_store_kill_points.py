"""The store's outcome log under SIGKILL at each point of its write path (runner/store.py).

A session runs in a forked child that kills itself with SIGKILL at the n-th time it
reaches one point, for every n the session reaches it: inside the write(2) of an outcome
line (half of it written), just after that write, inside a transaction before its COMMIT,
and after a COMMIT before the log is truncated or removed. The next writer's replay is
killed the same way. After every kill, each trial the session had recorded is in the
store or in its log except, at most, the one being recorded; after the final resume every
trial is in the store once, with the values recorded for it. The kills come from hooks, not
timers, so the interleavings the SIGKILL test (test_crash.py) reaches by chance are each
reached here every time."""

from __future__ import annotations

import errno
import os
import shutil
import signal
import sqlite3
import sys
import traceback
from collections.abc import Callable
from pathlib import Path

import pytest

from benchlab.runner import store as store_module
from benchlab.runner.config import parse_experiment
from benchlab.runner.execute import Outcome
from benchlab.runner.plan import make_plan
from benchlab.runner.store import LOG_SUFFIX, Store
from benchlab.runner.trial import measurements

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="fork and SIGKILL to itself")

TEXT = 'seed = 1\nexecutions = 6\n[alternatives.a]\ncommand = ["true"]\n'
EXPERIMENT = parse_experiment(TEXT, "exp.toml")
PLAN = make_plan(EXPERIMENT, 1)
COMMIT_EVERY = 2  # the session commits after every second trial (time slices held back)
POINTS = ("write-half", "written", "before-commit", "committed")


def _wall(seq: int) -> float:
    return seq / 16  # each trial's own value, exact in binary: checked where it lands


def _session(db: str, attempted: Path) -> None:
    """What the runner does with the store: open it for writing (replaying a killed
    session's log), then record every planned trial, noting each in `attempted` before it
    is recorded (as a command notes its own start), and commit every COMMIT_EVERY trials."""
    store = Store.open(db, write=True)
    session = store.start_session([], {}, [])
    with open(attempted, "a") as note:
        for n, trial in enumerate(store.trials("planned"), start=1):
            note.write(f"{trial.seq}\n")
            note.flush()
            outcome = Outcome(_wall(trial.seq), 0.125, 0.0625, 2048, 0, None, False, None, "")
            store.record(trial, session, "2026-11-27T00:00:00Z", "true", outcome,
                         measurements(EXPERIMENT, trial, outcome))
            if n % COMMIT_EVERY == 0:
                store.commit()
    store.finish_session(session, "finished")
    store.close()


class _Hooks:
    """Kill this process at the `nth` time it reaches `point` (installed in the child only);
    `hits` counts every point reached."""

    def __init__(self, point: str | None, nth: int) -> None:
        self.point, self.nth = point, nth
        self.hits = dict.fromkeys(POINTS, 0)
        self.committed = False  # a COMMIT ran, and no truncation or removal of the log since

    def reach(self, point: str) -> bool:
        """True when this is the point and time to die (the caller then does its part)."""
        self.hits[point] += 1
        return point == self.point and self.hits[point] == self.nth

    def install(self) -> None:
        write, ftruncate, unlink, connect = (os.write, os.ftruncate, os.unlink,
                                             store_module.sqlite_file.connect)

        def hooked_write(fd: int, data: bytes) -> int:  # only the store calls os.write
            if self.reach("write-half"):
                write(fd, data[:len(data) // 2])
                _die()
            done = write(fd, data)
            if self.reach("written"):
                _die()
            return done

        def after_commit(call: Callable) -> Callable:
            def hooked(*args):
                if self.committed:
                    self.committed = False
                    if self.reach("committed"):
                        _die()
                return call(*args)
            return hooked

        def trace(statement: str) -> None:
            if statement.strip().upper().startswith("COMMIT"):
                if self.reach("before-commit"):
                    _die()
                self.committed = True

        def hooked_connect(*args, **kwargs):
            conn, tables = connect(*args, **kwargs)
            conn.set_trace_callback(trace)
            return conn, tables

        os.write = hooked_write
        os.ftruncate, os.unlink = after_commit(ftruncate), after_commit(unlink)
        store_module.sqlite_file.connect = hooked_connect


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def _in_child(work: Callable[[], None], report: Path) -> bool:
    """Run `work` in a forked child; True when it killed itself (SIGKILL), False when it
    ended; a failure in the child fails the test with its traceback."""
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            work()
        except BaseException:
            report.write_text(traceback.format_exc())
            code = 3
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        assert os.WTERMSIG(status) == signal.SIGKILL
        return True
    assert os.WEXITSTATUS(status) == 0, report.read_text()
    return False


def _killed_at(db: str, attempted: Path, point: str | None, nth: int,
               hits: Path | None = None) -> bool:
    """A session (`_session`) killed at the `nth` time it reaches `point`; True if it was.
    `hits` receives the points a session that ran to its end reached."""
    def work() -> None:
        hooks = _Hooks(point, nth)
        hooks.install()
        _session(db, attempted)
        if hits is not None:
            hits.write_text(" ".join(f"{p}={n}" for p, n in hooks.hits.items()))

    return _in_child(work, Path(db + ".child-error"))


def _kept(db: str) -> set[int]:
    """The trials a resume would have: recorded in the store, or in its outcome log."""
    reader = Store.open(db)
    try:
        return {t.seq for t in reader.trials("ok")} | {row[-1] for row, *_ in reader.logged()}
    finally:
        reader.close()


def _notes(attempted: Path) -> list[int]:
    return [int(s) for s in attempted.read_text().split()] if attempted.exists() else []


def _check_kill(db: str, attempted: Path, kept_before: set[int], noted_before: int) -> set[int]:
    """After a kill: what the killed session recorded is kept, except at most the trial it
    was recording (its last note); nothing it did not record appears. Returns what is kept."""
    kept, notes = _kept(db), _notes(attempted)
    started = notes[noted_before:]
    assert kept - kept_before <= set(started), (kept, kept_before, started)
    assert set(started[:-1]) <= kept, (kept, started)
    return kept


def _finish_and_check(db: str, attempted: Path) -> None:
    """A clean resume to the end: every trial in the store once, with its own values, and
    the log removed."""
    _session(db, attempted)
    assert not os.path.exists(db + LOG_SUFFIX)
    conn = sqlite3.connect(db)
    try:
        trials = conn.execute("SELECT seq, status, wall FROM trials ORDER BY seq").fetchall()
        values = conn.execute("SELECT trial, metric, value FROM measurements WHERE metric = "
                              "'wall' ORDER BY trial").fetchall()
        per_trial = set(conn.execute("SELECT COUNT(*) FROM measurements GROUP BY trial"))
    finally:
        conn.close()
    assert trials == [(t.seq, "ok", _wall(t.seq)) for t in PLAN]
    assert values == [(t.seq, "wall", _wall(t.seq)) for t in PLAN]
    assert per_trial == {(4,)}  # wall, user, sys, maxrss: each once


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> str:
    """A new store holding the plan, copied for each case (settled: one file, no WAL)."""
    db = str(tmp_path_factory.mktemp("template") / "s.db")
    store = Store.create(db, {"seed": "1", "experiment_text": TEXT}, PLAN)
    store.settle()
    store.close()
    return db


def _fresh(template: str, folder: Path) -> tuple[str, Path]:
    folder.mkdir()
    db = str(folder / "s.db")
    shutil.copyfile(template, db)
    return db, folder / "attempted"


@pytest.mark.parametrize("point", POINTS)
def test_a_session_killed_at_each_time_it_reaches_the_point(template, tmp_path, point):
    """Every n at which the session reaches `point`: killed there, then resumed to the end."""
    hits = tmp_path / "hits"
    db, attempted = _fresh(template, tmp_path / "clean")
    assert not _killed_at(db, attempted, None, 0, hits)
    reached = dict(h.split("=") for h in hits.read_text().split())
    # every point is on the path of a session: a change to the store that moved one would
    # leave its kills untested, so it fails here instead
    assert int(reached["write-half"]) == int(reached["written"]) == len(PLAN)
    assert int(reached["before-commit"]) >= len(PLAN) // COMMIT_EVERY + 1
    assert int(reached["committed"]) >= len(PLAN) // COMMIT_EVERY
    for nth in range(1, int(reached[point]) + 1):
        db, attempted = _fresh(template, tmp_path / f"n{nth}")
        assert _killed_at(db, attempted, point, nth)
        _check_kill(db, attempted, set(), 0)
        _finish_and_check(db, attempted)


@pytest.mark.parametrize("first", [("written", COMMIT_EVERY + 1), ("committed", 2)],
                         ids=["log-not-committed", "log-committed-not-truncated"])
@pytest.mark.parametrize("point", ["before-commit", "committed"])
def test_a_replay_killed_then_resumed(template, tmp_path, first, point):
    """A session killed with outcomes in its log (committed already, or not), then the next
    writer killed in its replay (inside the replay's transaction, or after its COMMIT before
    the log's removal), then resumed: the first kill's outcomes survive both."""
    db, attempted = _fresh(template, tmp_path / "case")
    assert _killed_at(db, attempted, *first)
    kept = _check_kill(db, attempted, set(), 0)
    assert os.path.getsize(db + LOG_SUFFIX) > 0  # the replay has lines to replay
    noted = len(_notes(attempted))
    assert _killed_at(db, attempted, point, 1)  # the first COMMIT of a resume: its replay's
    assert _check_kill(db, attempted, kept, noted) == kept
    assert len(_notes(attempted)) == noted  # killed before it ran anything
    _finish_and_check(db, attempted)


@pytest.mark.parametrize("then", ["space-back", "disk-full"])
def test_a_short_write_of_a_line_leaves_a_log_the_resume_reads(template, tmp_path, then):
    """write(2) on a regular file returns a short count when the disk fills in the middle of
    the line. The rest of the line is written (space back), or the write fails (disk full:
    the run ends with that error); either way the log holds whole lines then at most one
    cut short at its end, and a kill before the next commit loses no recorded trial."""
    db, attempted = _fresh(template, tmp_path / "case")

    def work() -> None:
        write, begun, full = os.write, [0], [False]

        def short(fd: int, data: bytes) -> int:
            if full[0]:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            if data.startswith(b"[["):  # a line begins (not the rest of one)
                begun[0] += 1
                if begun[0] == COMMIT_EVERY + 1:  # the first line after a commit: half fits
                    full[0] = then == "disk-full"
                    return write(fd, data[:len(data) // 2])
            done = write(fd, data)
            if begun[0] == COMMIT_EVERY + 2:  # the next line written: killed before its commit
                _die()
            return done

        os.write = short
        try:
            _session(db, attempted)
        except store_module.InputError as exc:
            assert then == "disk-full" and "disk full" in str(exc), exc
            _die()  # the run ends with the error here; its log stays for --resume

    assert _in_child(work, Path(db + ".child-error"))
    kept = _check_kill(db, attempted, set(), 0)
    assert kept == {t.seq for t in PLAN[:COMMIT_EVERY + (2 if then == "space-back" else 0)]}
    _finish_and_check(db, attempted)
