"""`benchlab bisect --cluster` and `history bisect --cluster`: a real `dask scheduler` with TLS
and real `benchlab worker` processes with TLS on 127.0.0.1 (tests/support/dask_processes.py;
the certificates of `benchlab cluster certs`, the driver's in the BENCHLAB_TLS_* variables)
build and measure a generated repository whose sleep grows 10-fold at a known commit; the
culprit must be the one a local bisect names (tests/cli/test_bisect.py, same repository and
options), and the store must say which machine measured. Also: a worker killed (SIGKILL) in
the middle of a bisect and started again, after which the bisect ends by itself with the
same culprit and every execution stored once; a history's change bisected on the machine
the history saw it on; local:1; and a port where something other than a Dask scheduler
listens (silent, or answering garbage), one line and exit 2 within a bounded time for
bisect and run alike. (tcp:// and tls:// share all their code but Dask's Security object:
runner/cluster.py open_cluster, which tests/runner/test_cluster.py runs over tcp://.)
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
pytest.importorskip("cryptography", reason="pip install benchlab[cluster]")

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bisect_repo", ROOT / "validation" /
                                               "bisect_repo.py")
bisect_repo = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bisect_repo)

COMMITS, CULPRIT, BROKEN = 8, 5, 3
CACHE = "cache"  # the tests' one build cache: a commit built by one is found by the next
TLS = {"CA_FILE": "ca.pem", "CERT": "client.pem", "KEY": "client.key"}  # the driver's


def _tls(d: Path, name: str) -> list[str]:
    return ["--tls-ca-file", str(d / "ca.pem"), "--tls-cert", str(d / f"{name}.pem"),
            "--tls-key", str(d / f"{name}.key")]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """Certificates of one `benchlab cluster certs` (runner/certs.py), a scheduler with TLS
    and machine bw1's worker with TLS; the processes, to start more, with `address`, `certs`,
    `bw1` (the worker's process) and `driver` (the environment of a driver: its TLS files
    in the BENCHLAB_TLS_* variables, as run --cluster reads them)."""
    from benchlab.runner.certs import make

    tmp = tmp_path_factory.mktemp("dask")
    clean = {k: v for k, v in ENV.items() if not k.startswith("BENCHLAB_TLS_")}
    procs = Processes(tmp, clean, timeout=180)
    procs.certs = tmp / "certs"
    make(procs.certs, ["bw1"])
    procs.driver = dict(clean, **{f"BENCHLAB_TLS_{k}": str(procs.certs / f)
                                  for k, f in TLS.items()})
    try:
        procs.address = procs.scheduler("--tls-ca-file", str(procs.certs / "ca.pem"),
                                        "--tls-cert", str(procs.certs / "scheduler.pem"),
                                        "--tls-key", str(procs.certs / "scheduler.key"),
                                        host="tls://127.0.0.1")
        procs.bw1 = procs.worker(procs.address, "bw1", *_tls(procs.certs, "bw1"))
    except NotReady as exc:
        procs.close()
        pytest.skip(f"a Dask process did not start here: {exc}")
    yield procs
    procs.close()


@pytest.fixture
def scheduler(lab, monkeypatch):
    """The scheduler's address, with the driver's TLS files in this process's environment."""
    for name, file in TLS.items():
        monkeypatch.setenv(f"BENCHLAB_TLS_{name}", str(lab.certs / file))
    return lab.address


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bisect-cluster")
    shas = bisect_repo.make_repo(str(folder / "repo"), commits=COMMITS, culprit=CULPRIT,
                                 loops=5000, factor=10, broken=(BROKEN,), sleep=True)
    return folder, shas


def _args(repo, cache: str, store: Path, document: Path, *more: str) -> list[str]:
    """(--runs 5: a 10-fold step is decided at the first look of 5 or, after a load spike,
    at a later one; the decisions are at the same levels as with 10)"""
    folder, shas = repo
    return ["bisect", "--repo", str(folder / "repo"), "--good", shas[0], "--bad", shas[-1],
            "--build", bisect_repo.BUILD, "--command", bisect_repo.COMMAND,
            "--cache", str(folder / cache), "--seed", "3", "--runs", "5", "-o", str(store),
            "--export-json", str(document), *more]


def _measured_on(store: Path) -> dict:
    with sqlite3.connect(store) as conn:
        return json.loads(conn.execute("SELECT value FROM meta WHERE key = 'measured_on'")
                          .fetchone()[0])


def test_cluster_names_the_local_culprit_and_says_who_measured(scheduler, repo, tmp_path,
                                                                  run_cli):
    _, shas = repo
    remote = tmp_path / "remote.db"
    _, text, err = run_cli(*_args(repo, CACHE, remote, tmp_path / "remote.json",
                                  "--cluster", scheduler, "--machine", "bw1"), expect=0)
    there = json.loads((tmp_path / "remote.json").read_text())
    # the culprit and the skipped commit of the same bisect run locally (tests/cli/
    # test_bisect.py: the same repository and seed)
    assert there["culprit"] == shas[CULPRIT], there["steps"]
    assert there["skipped"] == [shas[BROKEN]]  # its build failed on the worker too
    assert "building and measuring on machine bw1" in err
    assert any("machine bw1" in n for n in there["notes"]) and "machine bw1" in text
    assert _measured_on(remote)["where"] == "cluster"
    assert _measured_on(remote)["machine"] == "bw1"
    # the worker built in the cache: a marker per build (the module's tests share it)
    built = {m.stem for m in (Path(repo[0]) / CACHE).glob("build-*/*.json")}
    assert {b["commit"] for b in there["builds"]} <= built
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


def test_no_scheduler_or_no_such_machine_is_one_line(lab, scheduler, tmp_path, run_cli):
    from benchlab.runner.bisect_cluster import connect
    from benchlab.runner.tls import TlsFiles

    with pytest.raises(UsageError, match=r"machine nope is not connected to .* \(connected "
                       r"machines: .*bw1"):
        connect(scheduler, "nope", str(tmp_path), machine_wait=0.2,
                tls=TlsFiles(*(str(lab.certs / f) for f in TLS.values())))
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
    args = _args(repo, CACHE, store, document, "--cluster", lab.address)
    driver = subprocess.Popen([*BENCHLAB, *args], env=lab.driver, stdout=subprocess.PIPE,
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
        lab.bw1 = lab.worker(lab.address, "bw1", *_tls(lab.certs, "bw1"), append=True,
                             count=2)
        out, err = driver.communicate(timeout=300)
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    assert driver.returncode == 0, err
    doc = json.loads(document.read_text())
    assert doc["culprit"] == shas[CULPRIT] and doc["skipped"] == [shas[BROKEN]], doc["steps"]
    # the new worker said and named, the same host kept
    assert "machine bw1's worker is now tls://" in err, err
    assert any(", then tls://" in n and "(host " in n for n in doc["notes"]), doc["notes"]
    rows = _executions(store)
    assert len(rows) == doc["executions"] == sum(s["executions"] for s in doc["steps"])
    assert len({r[:3] for r in rows}) == len(rows)  # each (step, round, slot) once
    for s in doc["steps"]:  # each step holds exactly the executions its looks ran
        assert sum(r[0] == s["step"] for r in rows) == s["executions"], s
    # the new worker measured what was left: executions started after the kill
    from datetime import datetime

    later = [r for r in rows if datetime.fromisoformat(r[4]).timestamp() > killed_at]
    assert len(rows) > before and len(later) >= len(rows) - before, (before, len(rows))


def test_history_bisect_on_the_machine_of_the_change(lab, repo, tmp_path, run_cli,
                                                     monkeypatch):
    """A history of machine bw1's results for commits 0, 1, 2, 5, 6, 7 (3 and 4 never
    measured; 3 does not build): `history bisect --machine bw1 --cluster tls://...` picks
    that series' change (5 after 2) and bisects it on bw1's worker, the series' machine,
    through bisect's own code; the store keeps the TLS scheduler as where it measured."""
    address, certs = lab.address, lab.certs
    folder, shas = repo
    table = tmp_path / "history.csv"
    rows = ["commit,benchmark,run,time"]
    for k in (0, 1, 2, 5, 6, 7):
        rows += [f"{shas[k]},prog,{run},{0.050 if k >= CULPRIT else 0.005}" for run in range(3)]
    table.write_text("\n".join(rows) + "\n")
    db = tmp_path / "h.db"
    run_cli("history", "add", table, "--by", "benchmark", "--value", "time", "--unit", "s",
            "--levels", "run", "--commit-column", "commit", "--machine", "bw1", "--db", db,
            expect=0)
    store = tmp_path / "h-bisect.db"
    args = ["history", "bisect", "--db", db, "--benchmark", "prog", "--machine", "bw1",
            "--repo", folder / "repo", "--build", bisect_repo.BUILD, "--command",
            bisect_repo.COMMAND, "--cache", folder / CACHE, "--seed", "3", "--runs", "5",
            "-o", store, "--cluster", address]
    for name in TLS:  # without the driver's files first
        monkeypatch.delenv(f"BENCHLAB_TLS_{name}", raising=False)
    code, _, err = run_cli(*args, expect=2)  # no files: named, nothing connected or built
    assert "is a TLS address: give --tls-ca-file (or BENCHLAB_TLS_CA_FILE)" in err.splitlines()[-1]
    assert not store.exists()
    for name, file in TLS.items():
        monkeypatch.setenv(f"BENCHLAB_TLS_{name}", str(certs / file))
    _, out, err = run_cli(*args, "--json", expect=0)
    doc = json.loads(out)
    assert (doc["good"], doc["bad"]) == (shas[2], shas[CULPRIT])
    assert doc["culprit"] == shas[CULPRIT] and doc["skipped"] == [shas[BROKEN]], doc["steps"]
    assert "bisecting the step of prog (value, machine bw1)" in err
    assert "building and measuring on machine bw1" in err
    with sqlite3.connect(store) as conn:
        where = json.loads(conn.execute("SELECT value FROM meta WHERE key = 'measured_on'")
                           .fetchone()[0])
        n = conn.execute("SELECT COUNT(*) FROM executions").fetchone()[0]
    assert (where["where"], where["machine"], where["scheduler"]) == ("cluster", "bw1", address)
    assert n == doc["executions"]
    # --cluster-machine without --cluster, and TLS files for a tcp:// address: one line each
    code, _, err = run_cli(*args[:-2], "--cluster-machine", "bw1", expect=2)
    assert "--cluster-machine NAME chooses a worker of --cluster ADDRESS" in err
    tcp = "tcp://" + address.split("://", 1)[1]
    code, _, err = run_cli("bisect", "-o", store, "--resume", "--cluster", tcp,
                           *_tls(certs, "client"), expect=2)
    assert f"given but {tcp} is not a TLS address" in err and err.count("\n") == 1


def test_local_one_worker(repo, tmp_path, run_cli):
    """--cluster local:1 starts one worker process here (machine "local") and stops it at the
    end; the store says so and a resume needs local:1 again."""
    _, shas = repo
    store, document = tmp_path / "l.db", tmp_path / "l.json"
    args = _args(repo, CACHE, store, document, "--cluster", "local:1")
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
