"""`benchlab bisect --cluster` and `history bisect --cluster`: a real `dask scheduler` and real
`benchlab worker` processes on 127.0.0.1 (tests/support/dask_processes.py) build and measure
a generated repository whose sleep grows 10-fold at a known commit; the culprit must be the
one a local bisect names (tests/cli/test_bisect.py, same repository and options), and the
store must say which machine measured. Also: a worker killed (SIGKILL) in the middle of a
bisect and started again, after which the bisect ends with the same culprit and every
execution stored once; local:1; and a port where something other than a Dask scheduler
listens (silent, or answering garbage), one line and exit 2 within a bounded time for
bisect and run alike. TLS and history bisect are tests/cli/test_bisect_cluster_tls.py's.
Every process is killed at the end."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import sqlite3
import subprocess
import threading
import time
from pathlib import Path

import pytest

from benchlab.errors import UsageError

from ..support.dask_processes import BENCHLAB, ENV, NotReady, Processes, free_port

distributed = pytest.importorskip("distributed", reason="Dask distributed is not installed "
                                  "(pip install benchlab[cluster])")

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bisect_repo", ROOT / "validation" /
                                               "bisect_repo.py")
bisect_repo = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bisect_repo)

COMMITS, CULPRIT, BROKEN = 8, 5, 3


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A scheduler and the worker of machine bw1 (the processes, to start more: `address`,
    and `bw1` the worker's process)."""
    procs = Processes(tmp_path_factory.mktemp("dask"))
    try:
        procs.address = procs.scheduler()
        procs.bw1 = procs.worker(procs.address, "bw1")
    except NotReady as exc:
        procs.close()
        pytest.skip(f"a Dask process did not start here: {exc}")
    yield procs
    procs.close()


@pytest.fixture(scope="module")
def scheduler(lab):
    """The scheduler's address."""
    return lab.address


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bisect-cluster")
    shas = bisect_repo.make_repo(str(folder / "repo"), commits=COMMITS, culprit=CULPRIT,
                                 loops=5000, factor=10, broken=(BROKEN,), sleep=True)
    return folder, shas


def _args(repo, cache: str, store: Path, document: Path, *more: str) -> list[str]:
    folder, shas = repo
    return ["bisect", "--repo", str(folder / "repo"), "--good", shas[0], "--bad", shas[-1],
            "--build", bisect_repo.BUILD, "--command", bisect_repo.COMMAND,
            "--cache", str(folder / cache), "--seed", "3", "--runs", "10", "-o", str(store),
            "--export-json", str(document), *more]


def _measured_on(store: Path) -> dict:
    with sqlite3.connect(store) as conn:
        return json.loads(conn.execute("SELECT value FROM meta WHERE key = 'measured_on'")
                          .fetchone()[0])


def test_cluster_names_the_local_culprit_and_says_who_measured(scheduler, repo, tmp_path,
                                                                  run_cli):
    _, shas = repo
    remote = tmp_path / "remote.db"
    _, text, err = run_cli(*_args(repo, "cache-remote", remote, tmp_path / "remote.json",
                                  "--cluster", scheduler, "--machine", "bw1"), expect=0)
    there = json.loads((tmp_path / "remote.json").read_text())
    # the culprit and the skipped commit of the same bisect run locally (tests/cli/
    # test_bisect.py: the same repository, options and seed)
    assert there["culprit"] == shas[CULPRIT], there["steps"]
    assert there["skipped"] == [shas[BROKEN]]  # its build failed on the worker too
    assert "building and measuring on machine bw1" in err
    assert any("machine bw1" in n for n in there["notes"]) and "machine bw1" in text
    assert _measured_on(remote)["where"] == "cluster"
    assert _measured_on(remote)["machine"] == "bw1"
    # the worker built in the cache: a marker per build
    built = list((Path(repo[0]) / "cache-remote").glob("build-*/*.json"))
    assert len(built) == len(there["builds"])
    with sqlite3.connect(remote) as conn:
        n = conn.execute("SELECT COUNT(*) FROM executions").fetchone()[0]
    assert n == there["executions"]
    # a resume elsewhere is refused in one line: one bisect measures on one machine
    code, _, err = run_cli("bisect", "-o", remote, "--resume")
    assert code == 2 and "measured on machine bw1 of a cluster" in err
    assert err.strip().count("\n") == 0
    # and resumed there it finishes with the same culprit, running nothing more
    run_cli("bisect", "-o", remote, "--resume", "--cluster", scheduler,
            "--export-json", tmp_path / "again.json", expect=0)
    again = json.loads((tmp_path / "again.json").read_text())
    assert again["culprit"] == shas[CULPRIT] and again["executions"] == there["executions"]


def test_no_scheduler_or_no_such_machine_is_one_line(scheduler, tmp_path, run_cli):
    from benchlab.runner.bisect_cluster import connect

    with pytest.raises(UsageError, match=r"machine nope is not connected to .* \(connected "
                       r"machines: .*bw1"):
        connect(scheduler, "nope", str(tmp_path), machine_wait=0.2)
    with pytest.raises(UsageError, match="no Dask scheduler answers at .* within 1 s"):
        connect(f"tcp://127.0.0.1:{free_port()}", None, str(tmp_path), timeout=1.0)
    code, _, err = run_cli("bisect", "--repo", ".", "--good", "HEAD~1", "--bad", "HEAD",
                           "--build", "true", "--command", "true", "--cluster", "local:2")
    assert code == 2 and "a bisect builds and measures on one worker; give local:1" in err
    code, _, err = run_cli("bisect", "--repo", ".", "--good", "HEAD~1", "--bad", "HEAD",
                           "--build", "true", "--command", "true", "--machine", "bw1")
    assert code == 2 and "give --cluster too" in err


def _executions(store: Path) -> list[tuple]:
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as conn:
        return conn.execute("SELECT step, round, slot, sha, started FROM executions").fetchall()


def _count(store: Path) -> int:
    try:
        return len(_executions(store)) if store.exists() else 0
    except sqlite3.Error:  # the driver is creating it
        return 0


def _running_prog(pid: int) -> bool:
    """Whether the process `pid` has a child running the benchmark (./prog) right now."""
    import psutil

    try:
        return any(c.name() == "prog" for c in psutil.Process(pid).children(recursive=True))
    except psutil.Error:
        return False


def test_a_worker_killed_mid_bisect_and_started_again(lab, repo, tmp_path):
    """Machine bw1's worker is killed (SIGKILL, its process group) while it runs a look's
    executions, after the ends' first look is stored; another bw1 worker starts (and serves
    the module's later tests), Dask runs the lost look again on it, and the bisect ends by
    itself with the local culprit and every execution stored once (a look is recorded only
    when its task returns)."""
    _, shas = repo
    store, document = tmp_path / "k.db", tmp_path / "k.json"
    worker = lab.bw1
    args = _args(repo, "cache-killed", store, document, "--cluster", lab.address)
    args[args.index("--runs") + 1] = "5"
    driver = subprocess.Popen([*BENCHLAB, *args], env=ENV, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while driver.poll() is None and time.monotonic() < deadline:
            if _count(store) >= 10 and _running_prog(worker.pid):  # the ends' look is in
                os.killpg(worker.pid, signal.SIGKILL)
                break
            time.sleep(0.005)
        assert worker.wait(timeout=30) == -signal.SIGKILL, "the bisect ended before the kill"
        killed_at, before = time.time(), _count(store)
        lab.bw1 = lab.worker(lab.address, "bw1", append=True, count=2)
        out, err = driver.communicate(timeout=300)
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    assert driver.returncode == 0, err
    doc = json.loads(document.read_text())
    assert doc["culprit"] == shas[CULPRIT] and doc["skipped"] == [shas[BROKEN]], doc["steps"]
    rows = _executions(store)
    assert len(rows) == doc["executions"] == sum(s["executions"] for s in doc["steps"])
    assert len({r[:3] for r in rows}) == len(rows)  # each (step, round, slot) once
    for s in doc["steps"]:  # each step holds exactly the executions its looks ran
        assert sum(r[0] == s["step"] for r in rows) == s["executions"], s
    # the new worker measured what was left: executions started after the kill
    from datetime import datetime

    later = [r for r in rows if datetime.fromisoformat(r[4]).timestamp() > killed_at]
    assert len(rows) > before and len(later) >= len(rows) - before, (before, len(rows))


def test_local_one_worker(repo, tmp_path, run_cli):
    """--cluster local:1 starts one worker process here (machine "local") and stops it at the
    end; the store says so and a resume needs local:1 again."""
    _, shas = repo
    store, document = tmp_path / "l.db", tmp_path / "l.json"
    args = _args(repo, "cache-local", store, document, "--cluster", "local:1")
    args[args.index("--runs") + 1] = "5"
    args[args.index("--good") + 1] = shas[CULPRIT - 1]
    args[args.index("--bad") + 1] = shas[CULPRIT]
    _, _, err = run_cli(*args, expect=0)
    doc = json.loads(document.read_text())
    assert doc["culprit"] == shas[CULPRIT] and doc["status"] == "found", doc["steps"]
    assert "building and measuring on machine local" in err
    where = _measured_on(store)
    assert (where["where"], where["machine"], where["scheduler"]) == ("cluster", "local",
                                                                       "local:1")
    code, _, err = run_cli("bisect", "-o", store, "--resume", expect=2)
    assert "measured on machine local of a cluster" in err and "(give --cluster local:1)" in err


class _Listener:
    """A TCP server on 127.0.0.1 that is no Dask scheduler: it takes every connection and
    says nothing (`garbage` None), or sends `garbage` and closes it."""

    def __init__(self, garbage: bytes | None) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.address = f"tcp://127.0.0.1:{self.sock.getsockname()[1]}"
        self.held: list[socket.socket] = []
        self.garbage = garbage
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:  # closed
                return
            if self.garbage is None:
                self.held.append(conn)
            else:
                conn.sendall(self.garbage)
                conn.close()

    def close(self) -> None:
        self.sock.close()
        for c in self.held:
            c.close()


@pytest.mark.parametrize("garbage", [None, b"HTTP/1.1 400 Bad Request\r\n\r\n"],
                         ids=["silent", "garbage"])
def test_not_a_scheduler_is_one_line_in_bounded_time(garbage, repo, run_cli, tmp_path,
                                                     monkeypatch):
    """Dask's own client start-up waits without end on a port that takes the connection and
    says nothing; bisect --cluster and run --cluster (the same code) say in one line, naming
    the address, that it is not a scheduler (connect timeout cut to 0.5 s here)."""
    from benchlab.runner import cluster

    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 0.5)
    listener = _Listener(garbage)
    experiment = tmp_path / "exp.toml"
    experiment.write_text('[alternatives.a]\ncommand = ["true"]\n')
    try:
        for argv in (["bisect", "--repo", repo[0] / "repo", "--good", "main~1", "--bad",
                      "main", "--build", "true", "--command", "true", "--cluster",
                      listener.address],
                     ["run", experiment, "--cluster", listener.address, "-o",
                      tmp_path / "exp.db"]):
            started = time.monotonic()
            code, out, err = run_cli(*argv, expect=2)
            assert time.monotonic() - started < 60
            assert listener.address in err and "Dask scheduler" in err, err
            assert err.count("\n") == 1 and "Traceback" not in err and out == ""
        assert not (tmp_path / "exp.db").exists()
    finally:
        listener.close()
