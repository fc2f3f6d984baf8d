"""A cluster only its owner can use (issue 20.1), on a real `dask scheduler` with TLS and real
`benchlab worker` processes on 127.0.0.1, all with the certificates `benchlab cluster certs`
makes (no mocks). The owner's driver runs an experiment through them; an outsider, without a
certificate or with one of another CA (made by another `cluster certs`), can neither connect
a client nor talk to a worker directly, so the remote command execution of the issue
(`client.submit(subprocess.run, ...)`, `rpc(worker).run(...)`) does not happen; and every
wrong file is one line with exit 2. Every process is killed (its group) at the end."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed", reason="pip install benchlab[cluster]")
pytest.importorskip("cryptography", reason="pip install benchlab[cluster]")

ROOT = Path(__file__).resolve().parents[2]
ENV = {k: v for k, v in os.environ.items() if not k.startswith("BENCHLAB_TLS_")}
ENV["PYTHONPATH"] = str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")
BENCHLAB = [sys.executable, "-m", "benchlab"]
START = 180.0  # s: a Dask process starting on a loaded 2-core machine (polled)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tls(d: Path, name: str) -> list[str]:
    return ["--tls-ca-file", str(d / "ca.pem"), "--tls-cert", str(d / f"{name}.pem"),
            "--tls-key", str(d / f"{name}.key")]


class Lab:
    """The owner's certificates, an outsider's, a TLS scheduler and workers m1 and m2."""

    def __init__(self, tmp: Path) -> None:
        self.tmp, self.procs = tmp, []
        self.certs, self.foreign = tmp / "certs", tmp / "foreign"
        self.address = ""
        self.workers: dict[str, str] = {}  # machine -> the worker's own address

    def start(self, argv: list[str], name: str, env: dict | None = None) -> subprocess.Popen:
        with open(self.tmp / f"{name}.log", "w") as log:
            p = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env or ENV,
                                 cwd=self.tmp, start_new_session=True)
        self.procs.append(p)
        return p

    def wait_for(self, name: str, pattern: str, p: subprocess.Popen) -> re.Match:
        deadline = time.monotonic() + START
        path = self.tmp / f"{name}.log"
        while time.monotonic() < deadline:
            m = re.search(pattern, path.read_text(errors="replace"))
            if m:
                return m
            if p.poll() is not None:
                break
            time.sleep(0.1)
        pytest.fail(f"a Dask process did not start within {START:g} s ({name}: "
                    f"{path.read_text(errors='replace')[-300:]!r})")

    def close(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            p.wait(timeout=30)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    lab = Lab(tmp_path_factory.mktemp("tls-lab"))
    for d, machines in ((lab.certs, ["--machine", "m1", "--machine", "m2"]),
                        (lab.foreign, [])):
        done = subprocess.run([*BENCHLAB, "cluster", "certs", str(d), *machines], env=ENV,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    port = _free_port()
    try:
        s = lab.start([sys.executable, "-m", "dask", "scheduler", "--host", "tls://127.0.0.1",
                       "--port", str(port), "--tls-ca-file", str(lab.certs / "ca.pem"),
                       "--tls-cert", str(lab.certs / "scheduler.pem"),
                       "--tls-key", str(lab.certs / "scheduler.key"),
                       "--dashboard-address", "127.0.0.1:0", "--no-dashboard"], "scheduler")
        lab.address = lab.wait_for("scheduler", r"Scheduler at:\s+(tls://\S+)", s).group(1)
        started = {m: lab.start([*BENCHLAB, "worker", lab.address, "--machine", m,
                                 *_tls(lab.certs, m)], f"worker-{m}", dict(ENV, WHO=m))
                   for m in ("m1", "m2")}
        for m, p in started.items():
            lab.workers[m] = lab.wait_for(f"worker-{m}", r"listening on (tls://\S+) with TLS;",
                                          p).group(1)
        yield lab
    finally:
        lab.close()


def _listening(pid: int) -> set[str]:
    """The addresses process `pid` listens on (TCP)."""
    import psutil

    proc = psutil.Process(pid)
    conns = proc.net_connections(kind="inet") if hasattr(proc, "net_connections") \
        else proc.connections(kind="inet")
    return {c.laddr.ip for c in conns if c.status == psutil.CONN_LISTEN}


def _run(argv: list[str], env: dict | None = None, cwd: Path | None = None
         ) -> subprocess.CompletedProcess:
    return subprocess.run([*BENCHLAB, *argv], env=env or ENV, capture_output=True, text=True,
                          timeout=900, cwd=cwd)


def _one_line(done: subprocess.CompletedProcess, text: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert text in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr


def _experiment(tmp: Path) -> Path:
    path = tmp / "exp.toml"
    path.write_text(textwrap.dedent("""
        seed = 3
        executions = 2
        shell = true
        [machines]
        names = ["m1", "m2"]
        [factors]
        n = ["1", "2"]
        [alternatives.a]
        command = 'echo {machine} "$WHO" >> ran.log; sleep 0.01'
        [alternatives.b]
        command = 'echo {machine} "$WHO" >> ran.log; sleep 0.02'
    """))
    return path


def test_an_experiment_runs_through_tls_workers(lab):
    """The driver's TLS files from the environment; every trial on its own machine; the TLS
    workers listen on loopback (where the scheduler is) with their HTTP server."""
    exp = _experiment(lab.tmp)
    env = dict(ENV, BENCHLAB_TLS_CA_FILE=str(lab.certs / "ca.pem"),
               BENCHLAB_TLS_CERT=str(lab.certs / "client.pem"),
               BENCHLAB_TLS_KEY=str(lab.certs / "client.key"))
    done = _run(["run", str(exp), "--cluster", lab.address, "-o", str(lab.tmp / "tls.db"),
                 "--quiet"], env, cwd=lab.tmp)
    assert done.returncode == 0, done.stderr
    conn = sqlite3.connect(lab.tmp / "tls.db")
    rows = conn.execute("SELECT status, factors FROM trials").fetchall()
    conn.close()
    assert len(rows) == 16 and {r[0] for r in rows} == {"ok"}
    assert sorted({json.loads(r[1])["machine"] for r in rows}) == ["m1", "m2"]
    lines = [line.split() for line in (lab.tmp / "ran.log").read_text().splitlines()]
    assert len(lines) == 16 and all(w[0] == w[1] for w in lines), lines
    for m, p in zip(("m1", "m2"), lab.procs[1:3], strict=True):
        assert lab.workers[m].startswith("tls://127.0.0.1:")
        assert _listening(p.pid) == {"127.0.0.1"}


def test_a_driver_without_the_clusters_certificate_is_refused(lab):
    exp = _experiment(lab.tmp)
    out = ["-o", str(lab.tmp / "refused.db")]
    _one_line(_run(["run", str(exp), "--cluster", lab.address, *out]),
              f"{lab.address} is a TLS address: give --tls-ca-file (or BENCHLAB_TLS_CA_FILE)")
    _one_line(_run(["run", str(exp), "--cluster", lab.address, *_tls(lab.foreign, "client"),
                    *out]), f"the TLS handshake with {lab.address} failed: the scheduler "
                            "refused certificate")
    # the owner's own certificate with an outsider's CA file: caught before connecting
    _one_line(_run(["run", str(exp), "--cluster", lab.address, "--tls-ca-file",
                    str(lab.foreign / "ca.pem"), "--tls-cert", str(lab.certs / "client.pem"),
                    "--tls-key", str(lab.certs / "client.key"), *out]),
              "is not accepted by --tls-ca-file")
    _one_line(_run(["run", str(exp), "--cluster", lab.address.replace("tls://", "tcp://"),
                    *out]), "closed the connection at once: a scheduler started with --tls-*")
    assert not (lab.tmp / "refused.db").exists()


def _security(d: Path, role: str):
    from distributed.security import Security

    return Security(require_encryption=True, tls_ca_file=str(d / "ca.pem"),
                    **{f"tls_{role}_cert": str(d / f"{role}.pem"),
                       f"tls_{role}_key": str(d / f"{role}.key")})


def test_the_remote_command_execution_attempt_fails(lab):
    """The issue's attack: a Dask client that submits subprocess.run, and an rpc straight to a
    worker's run handler, without the cluster's certificate (plain TCP) or with another CA's.
    Each is refused at the connection, and the command never runs. The owner's client, with
    the certificate, does reach both workers: the refusals are not a broken cluster."""
    from distributed import Client
    from distributed.comm.core import CommClosedError
    from distributed.core import rpc
    from distributed.protocol.pickle import dumps

    for name in ("distributed", "distributed.client", "distributed.comm", "distributed.core"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    marker = lab.tmp / "pwned"
    command = f"touch {marker}"
    plain = lab.address.replace("tls://", "tcp://")
    for address, security in ((plain, None), (lab.address, _security(lab.foreign, "client"))):
        with pytest.raises((OSError, TimeoutError)):
            with Client(address, security=security, timeout=10) as client:
                client.submit(subprocess.run, command, shell=True).result(timeout=60)

    async def direct(address: str, security, function=subprocess.run, args=(command,),
                     kwargs=None) -> object:
        conn = security.get_connection_args("client") if security is not None else {}
        async with rpc(address, connection_args=conn, timeout=10) as worker:
            return await worker.run(function=dumps(function), args=dumps(args),
                                    kwargs=dumps(kwargs if kwargs is not None
                                                 else {"shell": True}))

    for worker_address in lab.workers.values():
        for address, security in ((worker_address.replace("tls://", "tcp://"), None),
                                  (worker_address, _security(lab.foreign, "client"))):
            with pytest.raises((OSError, CommClosedError, TimeoutError)):
                asyncio.run(direct(address, security))
    time.sleep(1.0)  # a command that had been accepted would have run by now
    assert not marker.exists()
    with Client(lab.address, security=_security(lab.certs, "client"), timeout=30) as client:
        assert len(client.run(os.getpid)) == 2
    for p, worker_address in zip(lab.procs[1:3], lab.workers.values(), strict=True):
        answer = asyncio.run(direct(worker_address, _security(lab.certs, "client"), os.getpid,
                                    (), {}))
        assert answer == {"status": "OK", "result": p.pid}


@pytest.mark.parametrize(("files", "message"), [
    ("none", "is a TLS address: give --tls-ca-file (or BENCHLAB_TLS_CA_FILE)"),
    ("foreign", "failed: the scheduler refused certificate"),
    ("missing", "cannot read it (No such file or directory)"),
    ("mismatched", "m2.key is not the key of --tls-cert"),
])
def test_a_worker_with_a_wrong_certificate_is_one_line(lab, files, message):
    tls = {"none": [], "foreign": _tls(lab.foreign, "client"),
           "missing": _tls(lab.certs, "m3"),
           "mismatched": [*_tls(lab.certs, "m1")[:4], "--tls-key",
                          str(lab.certs / "m2.key")]}[files]
    done = _run(["worker", lab.address, "--machine", "m3", "--death-timeout", "20", *tls])
    _one_line(done, message)
