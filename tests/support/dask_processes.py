"""Real Dask processes on 127.0.0.1 for the cluster tests, validation/cluster_kills.py and
benchmarks/cluster_overhead.py: a `dask scheduler` on a free port and `benchlab worker`
processes, each in its own session logging to a file, every one killed (its whole process
group) by close(), so nothing outlives the caller.

Not in benchlab/: a user reaches Dask through `run --cluster` and `benchlab worker`; this
is scaffolding to exercise them (tests import it relatively, the scripts put the repository
root on sys.path and import tests.support.dask_processes)."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# this checkout first on the path of every process started
ENV = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
BENCHLAB = [sys.executable, "-m", "benchlab"]


class NotReady(Exception):
    """A process did not say it was ready in time, or ended first; the message ends with
    its log's tail."""


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Processes:
    """Subprocesses started in their own sessions, each logging to FOLDER/NAME.log, killed
    (whole group) by close()."""

    def __init__(self, folder: Path, env: dict[str, str] | None = None,
                 timeout: float = 120.0) -> None:
        self.folder, self.env, self.timeout = folder, env or ENV, timeout
        self.procs: list[subprocess.Popen] = []

    def start(self, argv: list[str], name: str, env: dict[str, str] | None = None,
              append: bool = False) -> subprocess.Popen:
        """Start `argv` logging to NAME.log (appended to with `append`, as a restarted
        process under the same name). SIGINT's default action is restored in the child: a
        shell starts background jobs with SIGINT ignored, and a driver would then never see
        a test's Ctrl-C."""
        with open(self.folder / f"{name}.log", "a" if append else "w") as log:
            p = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                 env=env or self.env, cwd=self.folder, start_new_session=True,
                                 preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        self.procs.append(p)
        return p

    def log(self, name: str) -> str:
        return (self.folder / f"{name}.log").read_text(errors="replace")

    def wait_for(self, name: str, pattern: str, *, count: int = 1,
                 process: subprocess.Popen | None = None,
                 timeout: float | None = None) -> re.Match:
        """Until the regular expression `pattern` matches NAME.log `count` times (polled: a
        loaded machine may take a minute to start Dask); its last match. NotReady after
        `timeout` seconds, or at once when `process` has ended."""
        limit = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + limit
        while True:
            found = list(re.finditer(pattern, self.log(name)))
            if len(found) >= count:
                return found[-1]
            if process is not None and process.poll() is not None:
                raise NotReady(f"{name} ended (exit {process.returncode}) before saying "
                               f"{pattern!r}: {self.log(name)[-400:]!r}")
            if time.monotonic() > deadline:
                raise NotReady(f"{name} did not say {pattern!r} within {limit:g} s: "
                               f"{self.log(name)[-400:]!r}")
            time.sleep(0.05)

    def scheduler(self, *options: str, name: str = "scheduler",
                  host: str = "127.0.0.1") -> str:
        """Start a `dask scheduler` on a free port of `host` (no dashboard); its address."""
        p = self.start([sys.executable, "-m", "dask", "scheduler", "--host", host, "--port",
                        str(free_port()), "--no-dashboard", *options], name)
        return self.wait_for(name, r"Scheduler at:\s+(\S+)", process=p).group(1)

    def worker(self, address: str, machine: str, *options: str, name: str | None = None,
               env: dict[str, str] | None = None, ready: str | None = "connected to",
               count: int = 1, append: bool = False) -> subprocess.Popen:
        """Start `benchlab worker ADDRESS --machine MACHINE` (logging to worker-MACHINE.log
        unless `name`), waiting until it says `ready` (`count` times in an appended log)."""
        name = name or f"worker-{machine}"
        p = self.start([*BENCHLAB, "worker", address, "--machine", machine, *options], name,
                       env, append)
        if ready is not None:
            self.wait_for(name, re.escape(ready), count=count, process=p)
        return p

    def close(self) -> None:
        for p in reversed(self.procs):
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            p.wait(timeout=30)
