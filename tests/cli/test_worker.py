"""`benchlab worker` (issue 13): the worker process it starts lowers the GIL switch interval
(cli/worker.py's docstring says why), checked on a real `dask scheduler` and a real worker
process on 127.0.0.1, through Dask's own client.run; without TLS it listens on loopback only
(issue 20.1; with TLS: tests/runner/test_cluster_tls.py); and its one-line errors."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed", reason="Dask distributed is not installed")

ROOT = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
PLAIN = {k: v for k, v in ENV.items() if not k.startswith("BENCHLAB_TLS_")}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(argv: list[str], log: Path, ready: str) -> subprocess.Popen:
    with open(log, "w") as out:
        p = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=ENV,
                             start_new_session=True)
    deadline = time.monotonic() + 120  # polled: loaded machines
    while ready not in log.read_text(errors="replace"):
        if time.monotonic() > deadline or p.poll() is not None:
            os.killpg(p.pid, signal.SIGKILL)
            pytest.skip(f"a Dask process did not start here: {log.read_text()[-300:]!r}")
        time.sleep(0.05)
    return p


def _switch_interval() -> float:
    return sys.getswitchinterval()


@pytest.fixture(scope="module")
def plain_worker(tmp_path_factory):
    """A `dask scheduler` on 127.0.0.1 without TLS and a `benchlab worker` for it: (the
    scheduler's address, the worker process)."""
    tmp = tmp_path_factory.mktemp("plain")
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    procs = [_start([sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1",
                     "--port", str(port), "--no-dashboard"], tmp / "s.log", "Scheduler at:")]
    try:
        procs.append(_start([sys.executable, "-m", "benchlab", "worker", address, "--machine",
                             "m1"], tmp / "w.log", "connected to"))
        yield address, procs[1]
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
            p.wait(timeout=10)


def test_worker_lowers_the_switch_interval(plain_worker):
    from distributed import Client

    from benchlab.cli.worker import SWITCH_INTERVAL

    with Client(plain_worker[0], timeout=10) as client:
        found = client.run(_switch_interval)
    assert list(found.values()) == [pytest.approx(SWITCH_INTERVAL)]
    assert SWITCH_INTERVAL < sys.getswitchinterval()  # lower than CPython's default


def test_worker_without_tls_listens_on_loopback_only(plain_worker):
    """Issue 20.1: Dask's worker listened on 0.0.0.0 and [::] (its port and its HTTP port);
    this one binds both to 127.0.0.1, as the kernel's own list of listening sockets says."""
    import psutil
    from distributed import Client

    proc = psutil.Process(plain_worker[1].pid)
    conns = proc.net_connections(kind="inet") if hasattr(proc, "net_connections") \
        else proc.connections(kind="inet")
    listening = [c.laddr for c in conns if c.status == psutil.CONN_LISTEN]
    assert len(listening) >= 2  # Dask's connection port and the HTTP server
    assert {a.ip for a in listening} == {"127.0.0.1"}, listening
    with Client(plain_worker[0], timeout=10) as client:
        (address,) = client.scheduler_info()["workers"]
    assert address.startswith("tcp://127.0.0.1:")
    assert int(address.rsplit(":", 1)[1]) in {a.port for a in listening}


@pytest.mark.parametrize(("args", "message"), [
    (["tcp://127.0.0.1:1", "--machine", "a b"], "is not a machine name"),
    (["127.0.0.1:8786", "--machine", "m1"], "must be like tcp://HOST:PORT"),
    (["ws://127.0.0.1:8786", "--machine", "m1"], "must be like tcp://HOST:PORT"),
    (["tcp://127.0.0.1:1", "--machine", "m1", "--death-timeout", "0"], "--death-timeout"),
    # issue 20.1: no TLS off loopback without --insecure, no tls:// without certificates
    (["tcp://127.0.0.1:1", "--machine", "m1", "--host", "0.0.0.0"],
     "--host 0.0.0.0 is not on loopback: without TLS anyone who reaches this worker"),
    (["tcp://127.0.0.1:1", "--machine", "m1", "--host", "192.0.2.7"],
     "--host 192.0.2.7 is not on loopback"),
    (["tcp://192.0.2.1:8786", "--machine", "m1"], "the scheduler tcp://192.0.2.1:8786 is not "
                                                  "on loopback"),
    (["tls://127.0.0.1:1", "--machine", "m1"], "tls://127.0.0.1:1 is a TLS address: give "
                                               "--tls-ca-file (or BENCHLAB_TLS_CA_FILE)"),
    (["tcp://127.0.0.1:1", "--machine", "m1", "--tls-cert", "x.pem"],
     "--tls-cert given but tcp://127.0.0.1:1 is not a TLS address"),
])
def test_worker_bad_input_is_one_line(args, message, run_cli, monkeypatch):
    for name in [k for k in os.environ if k not in PLAIN]:  # the environment PLAIN leaves
        monkeypatch.delenv(name)
    # in-process (each a Python start-up with Dask less): every one of these is refused
    # before the worker changes anything of its process (signals, switch interval)
    code, _, err = run_cli("worker", *args)
    assert code == 2
    assert message in err and err.strip().count("\n") == 0, err


def test_insecure_says_so_in_one_line_and_goes_on():
    """--insecure lifts the loopback rule with one warning line; the worker then goes on (here
    to a scheduler that does not answer: its own one line, exit 2)."""
    done = subprocess.run([sys.executable, "-m", "benchlab", "worker", "tcp://127.0.0.1:1",
                           "--machine", "m1", "--host", "0.0.0.0", "--insecure",
                           "--death-timeout", "1"], env=PLAIN, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 2
    warning, error = done.stderr.strip().split("\n")
    assert warning == ("benchlab worker: warning: --insecure: no TLS, and --host 0.0.0.0 not on "
                       "loopback: anyone who reaches this worker or its scheduler runs "
                       "commands as this user")
    assert error.startswith("benchlab: no Dask scheduler answers at tcp://127.0.0.1:1 within 1 s")


def test_without_dask_worker_and_cluster_run_say_what_to_install(run_cli, monkeypatch, tmp_path):
    """No `cluster` extra: one line naming it, exit 2 (it was exit 3, an ImportError)."""
    import sys

    monkeypatch.setitem(sys.modules, "distributed", None)  # as if it were not installed
    code, out, err = run_cli("worker", "tcp://127.0.0.1:8786", "--machine", "m1", expect=2)
    assert err == ("benchlab: benchlab worker needs Dask's distributed, which is not installed: "
                   "python3 -m pip install 'benchlab[cluster]'\n")
    exp = tmp_path / "e.toml"
    exp.write_text('executions = 1\n[alternatives.a]\ncommand = ["true"]\n')
    code, out, err = run_cli("run", exp, "--cluster", "local:1", "-o", tmp_path / "s.db",
                             expect=2)
    assert "--cluster needs Dask's distributed" in err and not (tmp_path / "s.db").exists()
