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
import sqlite3
import subprocess
import textwrap
import time
from pathlib import Path

import pytest

from ..support.dask_processes import BENCHLAB, NotReady, Processes
from ..support.dask_processes import ENV as BASE_ENV

distributed = pytest.importorskip("distributed", reason="pip install benchlab[cluster]")
pytest.importorskip("cryptography", reason="pip install benchlab[cluster]")

ENV = {k: v for k, v in BASE_ENV.items() if not k.startswith("BENCHLAB_TLS_")}
START = 180.0  # s: a Dask process starting on a loaded 2-core machine (polled)


def _tls(d: Path, name: str) -> list[str]:
    return ["--tls-ca-file", str(d / "ca.pem"), "--tls-cert", str(d / f"{name}.pem"),
            "--tls-key", str(d / f"{name}.key")]


class Lab(Processes):
    """The owner's certificates, an outsider's, a TLS scheduler and workers m1 and m2."""

    def __init__(self, tmp: Path) -> None:
        super().__init__(tmp, ENV, timeout=START)
        self.tmp = tmp
        self.certs, self.foreign = tmp / "certs", tmp / "foreign"
        self.address = ""
        self.workers: dict[str, str] = {}  # machine -> the worker's own address


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    lab = Lab(tmp_path_factory.mktemp("tls-lab"))
    for d, machines in ((lab.certs, ["--machine", "m1", "--machine", "m2"]),
                        (lab.foreign, [])):
        done = subprocess.run([*BENCHLAB, "cluster", "certs", str(d), *machines], env=ENV,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    try:
        lab.address = lab.scheduler("--tls-ca-file", str(lab.certs / "ca.pem"),
                                    "--tls-cert", str(lab.certs / "scheduler.pem"),
                                    "--tls-key", str(lab.certs / "scheduler.key"),
                                    "--dashboard-address", "127.0.0.1:0",
                                    host="tls://127.0.0.1")
        started = {m: lab.worker(lab.address, m, *_tls(lab.certs, m), env=dict(ENV, WHO=m),
                                 ready=None) for m in ("m1", "m2")}
        for m, p in started.items():
            lab.workers[m] = lab.wait_for(f"worker-{m}", r"listening on (tls://\S+) with TLS;",
                                          process=p).group(1)
    except NotReady as exc:
        lab.close()
        pytest.fail(f"a Dask process did not start: {exc}")
    try:
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


def test_an_experiment_runs_through_tls_workers(lab, run_cli, monkeypatch):
    """The driver's TLS files from the environment; every trial on its own machine; the TLS
    workers listen on loopback (where the scheduler is) with their HTTP server."""
    exp = _experiment(lab.tmp)
    for name, file in (("CA_FILE", "ca.pem"), ("CERT", "client.pem"), ("KEY", "client.key")):
        monkeypatch.setenv(f"BENCHLAB_TLS_{name}", str(lab.certs / file))
    run_cli("run", exp, "--cluster", lab.address, "-o", lab.tmp / "tls.db", "--quiet",
            expect=0)  # in-process: the driver's start-up once less
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


def test_a_driver_without_the_clusters_certificate_is_refused(lab, run_cli, monkeypatch):
    for name in ("BENCHLAB_TLS_CA_FILE", "BENCHLAB_TLS_CERT", "BENCHLAB_TLS_KEY"):
        monkeypatch.delenv(name, raising=False)  # as ENV: no TLS files but the options'

    def one_line(*args: str, text: str) -> None:  # in-process: no start-up of a driver each
        code, _, err = run_cli("run", exp, "--cluster", *args, "-o", lab.tmp / "refused.db")
        assert code == 2 and text in err, (code, err)
        assert err.count("\n") == 1 and "Traceback" not in err, err

    exp = _experiment(lab.tmp)
    one_line(lab.address,
             text=f"{lab.address} is a TLS address: give --tls-ca-file (or BENCHLAB_TLS_CA_FILE)")
    one_line(lab.address, *_tls(lab.foreign, "client"),
             text=f"the TLS handshake with {lab.address} failed: the scheduler refused "
                  "certificate")
    # the owner's own certificate with an outsider's CA file: caught before connecting
    one_line(lab.address, "--tls-ca-file", str(lab.foreign / "ca.pem"), "--tls-cert",
             str(lab.certs / "client.pem"), "--tls-key", str(lab.certs / "client.key"),
             text="is not accepted by --tls-ca-file")
    one_line(lab.address.replace("tls://", "tcp://"),
             text="closed the connection at once: a scheduler started with --tls-*")
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
