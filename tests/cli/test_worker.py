"""`benchlab worker` (issue 13): the worker process it starts lowers the GIL switch interval
(cli/worker.py's docstring says why), checked on a real `dask scheduler` and a real worker
process on 127.0.0.1, through Dask's own client.run; and its one-line errors."""

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


def test_worker_lowers_the_switch_interval(tmp_path):
    from benchlab.cli.worker import SWITCH_INTERVAL

    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    procs = [_start([sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1",
                     "--port", str(port), "--no-dashboard"], tmp_path / "s.log",
                    "Scheduler at:")]
    try:
        procs.append(_start([sys.executable, "-m", "benchlab", "worker", address, "--machine",
                             "m1"], tmp_path / "w.log", "connected to"))
        from distributed import Client

        with Client(address, timeout=10) as client:
            found = client.run(_switch_interval)
        assert list(found.values()) == [pytest.approx(SWITCH_INTERVAL)]
        assert SWITCH_INTERVAL < sys.getswitchinterval()  # lower than CPython's default
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
            p.wait(timeout=10)


@pytest.mark.parametrize(("args", "message"), [
    (["tcp://127.0.0.1:1", "--machine", "a b"], "is not a machine name"),
    (["127.0.0.1:8786", "--machine", "m1"], "must be like tcp://HOST:PORT"),
    (["tcp://127.0.0.1:1", "--machine", "m1", "--death-timeout", "0"], "--death-timeout"),
])
def test_worker_bad_input_is_one_line(args, message):
    done = subprocess.run([sys.executable, "-m", "benchlab", "worker", *args], env=ENV,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    assert message in done.stderr and done.stderr.strip().count("\n") == 0
