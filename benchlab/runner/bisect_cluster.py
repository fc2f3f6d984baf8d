"""`benchlab bisect --cluster` (and `history bisect --cluster`): every build and execution of a
bisect on ONE Dask worker, reached at tcp:// or tls:// (mutual TLS, runner/tls.py) or started
on this machine (local:1), through run --cluster's connection code (cluster.open_cluster).

One machine builds every commit and measures every execution, so all the commits are
compared on the same hardware; the driver keeps the store, the decisions and the resume
(runner/bisect.py), as a local bisect does. The worker is chosen by its machine name (the
Dask resource `benchlab worker ADDRESS --machine NAME` holds, as `run --cluster` pins a
machine's trials), and each task asks for that resource, so only that machine runs them.
A look's missing executions go as one task, in their interleaved order, and are recorded
when it returns; the dispatch never enters a measurement (runner/bisect_worker.py times
each execution on the worker). The repository (and the build cache) must be at the same
paths on the worker's machine as on the driver's.

A worker that leaves while a task waits or runs: Dask runs the task again once a worker
of that machine is back (the driver says every WAIT_NOTE s that it waits); a task the
scheduler gives up on, or a scheduler that is gone, stops the bisect in one line naming
--resume (the executions recorded so far are in the store).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from benchlab.errors import UsageError
from benchlab.runner import bisect_worker, git_builds
from benchlab.runner.cluster import (
    MACHINE_WAIT,
    WAIT_NOTE,
    Cluster,
    connected_machines,
    open_cluster,
    parse_address,
    require_distributed,
    stop_workers,
    worker_command,
)
from benchlab.runner.tls import TlsFiles

LOCAL_MACHINE = "local"  # the machine name of local:1's worker (without --machine)


@dataclass
class Remote:
    """The connected scheduler and the one worker (machine) that builds and measures."""

    cluster: Cluster
    machine: str
    worker: str  # the worker's address when the bisect began
    host: str  # its machine's host name
    cache: str  # where the worker keeps the worktrees (the driver's --cache path)
    say: object = None
    workers: list[str] = field(default_factory=list)  # every worker that ran a task, in turn

    def __post_init__(self) -> None:
        self.workers = self.workers or [self.worker]

    def where(self) -> dict[str, str]:
        """What the store keeps of who measured (meta `measured_on`)."""
        return {"where": "cluster", "machine": self.machine, "host": self.host,
                "worker": self.worker, "scheduler": self.cluster.address}

    def call(self, fn, *args, what: str):
        """fn(*args) on the machine's worker, waited for (Dask resends it if the worker
        dies and a worker of the machine comes back); one line on a lost scheduler."""
        from distributed import wait

        client = self.cluster.client
        future = client.submit(fn, *args, pure=False,  # type: ignore[attr-defined]
                               resources={self.machine: 1})
        try:
            while True:
                try:
                    done, _ = wait([future], timeout=WAIT_NOTE)
                except TimeoutError:
                    done = set()
                if done:
                    break
                if self.machine not in _machines(client):
                    start = ("Dask starts it again" if self.cluster.local is not None else
                             f"start: {worker_command(self.cluster.address, self.machine)}")
                    self._say(f"waiting for a worker of machine {self.machine} to run {what} "
                              f"({start}), or stop and go on later with --resume")
            self._check_worker(future, what)
            return future.result()
        except KeyboardInterrupt:
            _cancel(client, future)
            stop_workers(self.cluster)
            raise
        except Exception as exc:
            from distributed.client import FutureCancelledError
            from distributed.scheduler import KilledWorker

            if isinstance(exc, (KilledWorker, FutureCancelledError, OSError)):
                _cancel(client, future)
                raise UsageError(f"lost machine {self.machine}'s worker or the scheduler at "
                                 f"{self.cluster.address} while it ran {what} "
                                 f"({type(exc).__name__}); the executions recorded are in "
                                 "the store: go on with --resume") from None
            raise

    def _check_worker(self, future, what: str) -> None:
        """The worker that ran `future` (the one holding its result) is the bisect's; one that
        took over (its predecessor was lost) is said and kept, if it is on the same host, and
        refused in one line (its result not stored) if it is not: a step's executions from
        two machines would compare their hardware."""
        from benchlab.runner import worker

        client = self.cluster.client
        try:
            held = client.who_has([future]).get(future.key) or ()  # type: ignore[attr-defined]
        except Exception:  # the scheduler is gone: future.result() says so
            return
        if not held or self.worker in held:
            return
        ran = held[0]
        info = client.run(worker.describe, workers=[ran])[ran]  # type: ignore[attr-defined]
        host = str(info["environment"].get("hostname", "?"))
        if host != self.host:
            raise UsageError(f"machine {self.machine}'s worker is now {ran} on host {host}, not "
                             f"on host {self.host} where this bisect measured: {what} not "
                             f"stored; go on with --resume once machine {self.machine}'s "
                             f"worker runs on host {self.host} again")
        self.worker = ran
        self.workers.append(ran)
        self._say(f"machine {self.machine}'s worker is now {ran} (host {host}; the one before "
                  "was lost)")

    def run(self, s, shas: list[str]):
        """The look's executions (commits in order) on the worker: (start, Timing) each."""
        return self.call(bisect_worker.run_executions, s, self.cache, shas,
                         what=f"{len(shas)} executions")

    def builder(self, s) -> RemoteBuilder:
        return RemoteBuilder(self, s)

    def _say(self, text: str) -> None:
        if self.say is not None:
            self.say(text)  # type: ignore[operator]

    def close(self) -> None:
        self.cluster.close()


class RemoteBuilder(git_builds.Builder):
    """git_builds.Builder whose builds are made (and looked up) on the worker; `tree` is the
    same path there."""

    def __init__(self, remote: Remote, s) -> None:
        super().__init__(s.repo, remote.cache, s.build, s.timeout)
        self.remote, self.s = remote, s

    def cached(self, sha: str) -> git_builds.Build | None:
        return self.remote.call(bisect_worker.cached, self.s, self.remote.cache, sha,
                                what=f"the lookup of {sha[:12]}'s build")

    def build(self, sha: str) -> git_builds.Build:
        return self.remote.call(bisect_worker.build, self.s, self.remote.cache, sha,
                                what=f"the build of {sha[:12]}")


def connect(address: str, machine: str | None, cache: str, say=None, *,
            tls: TlsFiles | None = None, timeout: float | None = None,
            machine_wait: float = MACHINE_WAIT) -> Remote:
    """Connect to the scheduler at tls:// (with `tls`) or tcp://HOST:PORT, or start local:1
    (one worker process on this machine, named `machine` or "local"), through the same code
    as run --cluster (cluster.open_cluster), and choose the worker: the one of `machine`, or
    the only machine connected. Every failure is one line (UsageError)."""
    require_distributed("bisect --cluster")
    where, n = parse_address(address)
    local = None
    if where == "local":
        if n != 1:
            raise UsageError(f"--cluster {address}: a bisect builds and measures on one "
                             "worker; give local:1 (one worker process on this machine)")
        local = (machine or LOCAL_MACHINE,)
    cluster = open_cluster(address, tls, timeout, local)
    try:
        return _choose(cluster, machine or (local[0] if local else None), cache, say,
                       machine_wait)
    except BaseException:
        cluster.close()
        raise


def _choose(cluster: Cluster, machine: str | None, cache: str, say,
            machine_wait: float) -> Remote:
    from benchlab.runner import worker
    from benchlab.version import __version__

    client = cluster.client
    deadline = time.monotonic() + machine_wait
    while True:
        by_machine = _machines(client)
        if (by_machine if machine is None else machine in by_machine) or \
                time.monotonic() >= deadline:
            break
        time.sleep(0.1)
    if not by_machine:
        raise UsageError(f"no worker is connected to {cluster.address}; start one with: "
                         f"{worker_command(cluster.address, 'NAME')}")
    have = ", ".join(sorted(by_machine))
    if machine is None:
        if len(by_machine) > 1:
            raise UsageError(f"{len(by_machine)} machines are connected to {cluster.address} "
                             f"({have}); a bisect builds and measures on one: choose it with "
                             "--machine NAME")
        machine = next(iter(by_machine))
    if machine not in by_machine:
        raise UsageError(f"machine {machine} is not connected to {cluster.address} (connected "
                         f"machines: {have}); start: {worker_command(cluster.address, machine)}")
    if len(by_machine[machine]) > 1:
        raise UsageError(f"machine {machine} has {len(by_machine[machine])} workers connected "
                         f"to {cluster.address}; a machine runs one execution at a time: stop "
                         "all but one")
    address = by_machine[machine][0]
    info = client.run(worker.describe, workers=[address])[address]  # type: ignore[attr-defined]
    if info["benchlab"] != __version__:
        raise UsageError(f"the worker at {address} runs benchlab {info['benchlab']}, the "
                         f"driver benchlab {__version__}: install the same version on both")
    host = str(info["environment"].get("hostname", "?"))
    return Remote(cluster, machine, address, host, cache, say)


def _machines(client) -> dict[str, list[str]]:
    try:
        return connected_machines(client)
    except Exception:  # the scheduler is gone: the futures will say so
        return {}


def _cancel(client, future) -> None:
    try:
        client.cancel([future])
    except Exception:  # the scheduler is gone: nothing left to withdraw
        pass
