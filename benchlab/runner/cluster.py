"""The driver of a run on a Dask cluster (`benchlab run --cluster`; docs/cluster.md).

The driver keeps the one SQLite store and is its only writer, exactly as a local
run: it sends the planned trials, in plan order, to the workers and records each
outcome in one transaction the moment it comes back, so a driver killed at any
moment leaves every trial finished or still planned (`--resume`). The trial runs
on the worker through `runner/worker.py`, timed there beside the command: the
dispatch (scheduler, network, pickling) never enters a measurement.

Machines: with `[machines] names = [...]` each trial carries its machine
(`Trial.machine`; with role "factor" also as the factor `machine`), and goes only to
a worker holding the Dask resource named after that machine (`benchlab worker ADDRESS
--machine NAME` has {NAME: 1} and one thread), so a machine runs one trial at a time.
Without [machines], trials go to any worker. The driver keeps at most WINDOW tasks per
machine (per worker without machines) at the scheduler, in plan order and with
priorities in plan order, so the worker starts the next trial without waiting for the
driver. A task carries one trial, or a batch of consecutive executions of one machine
adding up to about BATCH_TARGET seconds (`Dispatch._batch`): short executions sent one
per task overlap the dispatch of the others, which slows them on a busy machine
(benchmarks/cluster_overhead.py) and costs a round trip each (cluster_throughput.py).
A worker that dies loses only the task it was running (Dask sends it again when a
worker for that machine is back; the driver waits and says so). Dask may then run those
trials twice; the driver records the one outcome it receives per trial, once. An interrupted
driver (Ctrl-C, SIGTERM) withdraws what is queued and has every worker kill the command
it is running (`worker.stop_trials`): those trials stay planned for `--resume`.

Rounds: one round loop (runner/rounds.py) serves local and cluster runs; this module
gives it the cluster's executor (`ClusterExecutor`), handed one segment of the plan at a time, a
segment ending at every change of trial kind (builds before their executions) and,
with `stop_when`, at every round.
"""

from __future__ import annotations

import logging
import os
import re
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from benchlab.errors import UsageError
from benchlab.runner.config import Experiment
from benchlab.runner.execute import Outcome
from benchlab.runner.plan import Trial, build_key, command_for
from benchlab.runner.plan import machine_of as _machine_of
from benchlab.runner.tls import TlsFiles
from benchlab.runner.trial import not_run, utc_now

CONNECT_TIMEOUT = 10.0  # s: a scheduler that does not answer within this is an error
ANSWER_WAIT = 1.5  # x the connect timeout: the longest a scheduler may take to say who it is
MACHINE_WAIT = 3.0  # s: how long the driver waits for the named machines' workers to connect
WAIT_NOTE = 5.0  # s: how often a run waiting for a machine's worker says so
WINDOW = 8  # tasks per machine (or worker) held at the scheduler: one running, the next queued
BATCH_TARGET = 0.05  # s: executions sent in one task add up to about this much running time
MAX_BATCH = 64  # executions per task at most
_LOCAL = re.compile(r"^local:([0-9]+)$")


@dataclass
class Cluster:
    """A connected client (and the LocalCluster it started, if any), and what the driver
    learnt about the workers: their machines' environments and how many slots they have."""

    client: object
    address: str
    local: object | None = None
    machines: tuple[str, ...] | None = None
    environments: dict[str, dict] = field(default_factory=dict)
    workers: int = 0
    environ: dict[str, str] | None = None  # the driver's, before a local cluster started

    def close(self) -> None:
        """Disconnect; a LocalCluster this driver started is shut down with its workers (and
        the driver's environment restored: a Nanny that restarted a worker changed it)."""
        try:
            self.client.close()  # type: ignore[attr-defined]
        finally:
            if self.local is not None:
                try:
                    self.local.close()  # type: ignore[attr-defined]
                finally:
                    if self.environ is not None:
                        restore_environ(self.environ)


def require_distributed(what: str) -> None:
    """Refuse in one line when the `cluster` extra (Dask's distributed) is not installed."""
    import importlib.util

    try:
        found = importlib.util.find_spec("distributed") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise UsageError(f"{what} needs Dask's distributed, which is not installed: "
                         "python3 -m pip install 'benchlab[cluster]'")


def parse_address(text: str) -> tuple[str, int | None]:
    """("local", N) for `local:N`, else (the scheduler's address, None); UsageError otherwise."""
    m = _LOCAL.match(text)
    if m:
        n = int(m.group(1))
        if n < 1:
            raise UsageError("--cluster local:N needs N of at least 1")
        return "local", n
    if text.startswith(("tcp://", "tls://")):
        from benchlab.runner.tls import address_host

        address_host(text)  # HOST:PORT, else one line
        return text, None
    raise UsageError(f"--cluster must be tls://HOST:PORT or tcp://HOST:PORT (a Dask scheduler) "
                     f"or local:N (N workers on this machine), not {text!r}")


def connect(address: str, e: Experiment, *, timeout: float | None = None,
            machine_wait: float = MACHINE_WAIT, tls: TlsFiles | None = None) -> Cluster:
    """Connect to the scheduler at `address` (or start `local:N`) and check its workers: every
    machine of the experiment connected (one worker each), the same benchlab version as the
    driver's, the CPUs of `cpus` usable. A tls:// address needs `tls` (the driver's files,
    checked: runner/tls.py), tcp:// and local:N none. Every failure is one line (UsageError)."""
    machines = e.machines.names if e.machines is not None else None
    cluster = open_cluster(address, tls, timeout, machines)
    try:
        _check_workers(cluster, e, machine_wait)
    except BaseException:
        cluster.close()
        raise
    return cluster


def open_cluster(address: str, tls: TlsFiles | None, timeout: float | None,
                 machines: tuple[str, ...] | None) -> Cluster:
    """The client of the scheduler at tls:// (with `tls`) or tcp:// `address`, asked first
    who it is (`probe`), or `local:N` started (one worker per machine of `machines`); shared
    by run --cluster and bisect --cluster; `timeout` None is CONNECT_TIMEOUT. Every failure
    is one line (UsageError)."""
    timeout = CONNECT_TIMEOUT if timeout is None else timeout
    where, n = parse_address(address)
    if (tls is not None) != where.startswith("tls://"):
        raise UsageError(f"--cluster {address} needs --tls-ca-file, --tls-cert and --tls-key"
                         if tls is None else "--tls-ca-file, --tls-cert and --tls-key go with "
                         f"--cluster tls://HOST:PORT, not {address}")
    quiet_dask()
    if where == "local":
        return _start_local(n or 1, machines, timeout)
    import asyncio

    asyncio.run(probe(where, security(tls, "client"), "client", timeout))
    return Cluster(_client(where, timeout, tls), where, machines=machines)


def quiet_dask() -> None:
    """Dask's own log lines (worker lost, connection retries) stay out of the run's output:
    what matters is said by the run in one line."""
    for name in ("distributed", "distributed.client", "distributed.scheduler",
                 "distributed.worker", "distributed.nanny", "distributed.core"):
        logging.getLogger(name).setLevel(logging.CRITICAL)


def security(tls: TlsFiles | None, role: str):
    """Dask's `Security` for one party ("client" the driver, "worker"): mutual TLS with the
    cluster's CA, encryption required on every connection; None without TLS (tcp://)."""
    if tls is None:
        return None
    from distributed.security import Security

    return Security(require_encryption=True, tls_ca_file=tls.ca_file,
                    **{f"tls_{role}_cert": tls.cert, f"tls_{role}_key": tls.key})


def connection_error(address: str, exc: BaseException, tls: TlsFiles | None,
                     timeout: float) -> UsageError:
    """One line for a connection to the scheduler that failed: a certificate the other side
    refused, a TLS address that does not speak TLS (or the reverse), or no answer."""
    from distributed.comm.core import FatalCommClosedError

    first = (str(exc).splitlines() or [""])[0][:120] or type(exc).__name__
    if isinstance(exc, FatalCommClosedError) and tls is not None:
        return UsageError(f"the TLS handshake with {address} failed: the scheduler refused "
                          f"certificate {tls.cert}, or its own is not signed by "
                          f"{tls.ca_file} (give the files of one benchlab cluster certs DIR, "
                          "as the scheduler's)")
    if tls is not None and isinstance(exc, ValueError):
        return UsageError(f"{address} does not answer TLS: a scheduler started without "
                          "--tls-ca-file/--tls-cert/--tls-key is reached at tcp://")
    if tls is None and "reset by peer" in str(exc):
        return UsageError(f"{address} closed the connection at once: a scheduler started "
                          "with --tls-* is reached at tls:// with --tls-ca-file, --tls-cert "
                          "and --tls-key")
    return UsageError(f"no Dask scheduler answers at {address} within {timeout:g} s "
                      f"({first}); start one with: dask scheduler --host 127.0.0.1 --port "
                      "PORT, or with TLS as docs/cluster.md shows")


async def probe(address: str, sec, role: str, timeout: float) -> None:
    """Open one connection to the scheduler and ask who it is (Dask's `identity`), all
    within ANSWER_WAIT x `timeout` s (a connection no one takes fails at `timeout`), so that
    a refused certificate, an absent scheduler, or a port where something else listens (a
    dashboard, another server: Dask's own start-up waits on it without end) is one line
    before Dask's own start-up, which says only "timed out" or hangs."""
    import asyncio

    from distributed.comm import connect as comm_connect

    kwargs = sec.get_connection_args(role) if sec is not None else {}

    async def ask():
        comm = await comm_connect(address, timeout=timeout, **kwargs)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    limit = ANSWER_WAIT * timeout
    try:
        answer = await asyncio.wait_for(ask(), limit)
    except asyncio.TimeoutError:  # connected (else comm_connect says so first), never answered
        raise UsageError(f"{address} took the connection but did not answer as a Dask "
                         f"scheduler within {limit:g} s: is it the scheduler's port (the one "
                         "dask scheduler prints as 'Scheduler at'), not a dashboard's or "
                         "another server's?") from None
    except (OSError, ValueError) as exc:
        raise connection_error(address, exc, _files_of(sec, role), timeout) from None
    except Exception as exc:  # what it sent is not Dask's protocol (MemoryError: sizes read
        first = (str(exc).splitlines() or [""])[0][:80] or type(exc).__name__  # from garbage)
        raise UsageError(f"{address} answered, but not as a Dask scheduler ({first}): is it "
                         "the scheduler's port (the one dask scheduler prints as 'Scheduler "
                         "at'), not a dashboard's or another server's?") from None
    kind = answer.get("type") if isinstance(answer, dict) else None
    if kind != "Scheduler":
        what = f"a Dask {kind}" if isinstance(kind, str) else "something else"
        raise UsageError(f"{address} is {what}, not a Dask scheduler: give the scheduler's "
                         "address (the one dask scheduler prints as 'Scheduler at')")


def _files_of(sec, role: str) -> TlsFiles | None:
    if sec is None:
        return None
    from benchlab.runner.tls import TlsFiles

    return TlsFiles(sec.tls_ca_file, getattr(sec, f"tls_{role}_cert"),
                    getattr(sec, f"tls_{role}_key"))


def _client(address: str, timeout: float, tls: TlsFiles | None = None):
    from distributed import Client

    try:
        return Client(address, timeout=timeout, security=security(tls, "client"))
    except (OSError, TimeoutError, ValueError) as exc:
        raise connection_error(address, exc, tls, timeout) from None


def _start_local(n: int, machines: tuple[str, ...] | None, timeout: float) -> Cluster:
    """A LocalCluster (SpecCluster) of `n` single-thread worker processes on 127.0.0.1; with
    machines, one worker per machine holding that machine's resource."""
    import dask
    from distributed import Client, Nanny, Scheduler, SpecCluster

    if machines is not None and n != len(machines):
        raise UsageError(f"--cluster local:{n} with [machines] starts one worker per machine: "
                         f"give local:{len(machines)} ({', '.join(machines)})")
    # The Nanny sets Dask's distributed.nanny.pre-spawn-environ (OMP_NUM_THREADS=1, ...),
    # PYTHONHASHSEED and __DASK_PARENT_PID in this process's os.environ before it spawns
    # a worker: the workers' commands get this environment as it is now instead
    environ = dict(os.environ)
    specs = {}
    for i in range(n):
        resources = {machines[i]: 1} if machines is not None else {}
        specs[f"benchlab-{machines[i] if machines else i + 1}"] = {
            "cls": Nanny, "options": {"nthreads": 1, "resources": resources,
                                      "host": "127.0.0.1", "memory_limit": 0,
                                      "dashboard": False,
                                      "silence_logs": logging.CRITICAL,
                                      "worker_class": local_worker,
                                      "commands_environ": environ}}
    # its HTTP server on a free loopback port: Dask's default 8787 may be taken (a warning)
    scheduler = {"cls": Scheduler, "options": {"host": "127.0.0.1", "port": 0,
                                               "dashboard": False,
                                               "dashboard_address": "127.0.0.1:0"}}
    with dask.config.set({"distributed.scheduler.allowed-failures": 1000}):
        try:
            local = SpecCluster(workers=specs, scheduler=scheduler,
                                silence_logs=logging.CRITICAL, name="benchlab")
        finally:
            restore_environ(environ)
    try:
        client = Client(local, timeout=timeout)
        client.wait_for_workers(n, timeout=max(timeout, 30.0))
    except BaseException:
        local.close()
        raise
    return Cluster(client, f"local:{n}", local, machines, environ=environ)


def local_worker(commands_environ: dict[str, str], **options):
    """A Dask Worker (made in the worker process a Nanny spawned) whose commands run in
    `commands_environ`, the driver's environment before the Nanny changed it."""
    from distributed import Worker

    from benchlab.runner import worker

    worker.keep_environment(commands_environ)
    return Worker(**options)


def restore_environ(environ: dict[str, str]) -> None:
    """Make os.environ `environ` again: undo what a Nanny set in this (the driver's)
    process, which a local run in the same process would otherwise inherit."""
    for name in set(os.environ) - set(environ):
        del os.environ[name]
    for name, value in environ.items():
        if os.environ.get(name) != value:
            os.environ[name] = value


def worker_command(address: str, machine: str) -> str:
    """The command that starts machine's worker for `address` (its TLS options with tls://)."""
    tls = (f" --tls-ca-file ca.pem --tls-cert {machine}.pem --tls-key {machine}.key"
           if address.startswith("tls://") else "")
    return f"benchlab worker {address} --machine {machine}{tls}"


def _check_workers(cluster: Cluster, e: Experiment, machine_wait: float) -> None:
    from benchlab.runner import worker
    from benchlab.version import __version__

    client = cluster.client
    deadline = time.monotonic() + machine_wait
    while True:
        by_machine = connected_machines(client)
        missing = [m for m in cluster.machines or () if m not in by_machine]
        workers = client.scheduler_info(n_workers=-1)["workers"]  # type: ignore[attr-defined]
        if not missing and workers or time.monotonic() >= deadline:
            break
        time.sleep(0.1)
    if not workers:
        raise UsageError(f"no worker is connected to {cluster.address}; start one with: "
                         f"{worker_command(cluster.address, 'NAME')}")
    if missing:
        have = ", ".join(sorted(by_machine)) or "none"
        raise UsageError(f"machine{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
                         f"{'are' if len(missing) > 1 else 'is'} not connected to "
                         f"{cluster.address} (connected machines: {have}); start: "
                         f"{worker_command(cluster.address, missing[0])}")
    for m in cluster.machines or ():
        if len(by_machine[m]) > 1:
            raise UsageError(f"machine {m} has {len(by_machine[m])} workers connected to "
                             f"{cluster.address}; a machine runs one trial at a time: stop "
                             "all but one")
    described = client.run(worker.describe)  # type: ignore[attr-defined]
    for address, info in described.items():
        if info["benchlab"] != __version__:
            raise UsageError(f"the worker at {address} runs benchlab {info['benchlab']}, the "
                             f"driver benchlab {__version__}: install the same version on both")
        lacking = sorted(set(e.cpus or ()) - set(info["cpus"]))
        if lacking:
            raise UsageError(f"the experiment pins to CPUs {','.join(map(str, e.cpus or ()))} "
                             f"but the worker at {address} cannot use "
                             f"{','.join(map(str, lacking))} (usable there: "
                             f"{','.join(map(str, info['cpus']))})")
    for m in cluster.machines or ():
        cluster.environments[m] = described[by_machine[m][0]]["environment"]
    cluster.workers = len(workers)


def connected_machines(client) -> dict[str, list[str]]:
    """Machine name → addresses of the connected workers holding that machine's resource."""
    out: dict[str, list[str]] = {}
    for address, info in client.scheduler_info(n_workers=-1)["workers"].items():
        for name in (info.get("resources") or {}):
            out.setdefault(name, []).append(address)
    return out


def machine_of(trial: Trial) -> str | None:
    """The machine a trial runs on: `trial.machine`, falling back to its `machine` factor (a
    store made before trials had a machine column); None for any worker."""
    return _machine_of(trial)


class ClusterExecutor:
    """The round loop's executor for a cluster (runner/rounds.py): each segment is sent to the
    workers and its outcomes recorded as they return (`Dispatch`), one dispatch per session."""

    def __init__(self, cluster: Cluster, e: Experiment) -> None:
        self.cluster, self.e = cluster, e
        self.dispatch: Dispatch | None = None

    def run(self, trials: list[Trial], recorder, fail_fast: bool) -> str | None:
        if self.dispatch is None:
            self.dispatch = Dispatch(self.cluster, self.e, recorder.record, recorder.progress,
                                     recorder.failed_builds)
        return self.dispatch.run(trials, fail_fast)[1]


@dataclass
class Dispatch:
    """One cluster session's dispatch state: what is at the scheduler, and what is left."""

    cluster: Cluster
    e: Experiment
    record: Callable[[Trial, str, str, Outcome], None]  # the round loop's Recorder.record
    progress: object
    failed_builds: set[tuple[str, int, str | None]]  # (alternative, build, machine)
    token: str = field(default_factory=lambda: os.urandom(4).hex())
    inflight: dict = field(default_factory=dict)  # future → (trials of its batch, attempt)
    recent: dict = field(default_factory=dict)  # machine → deque of recent execution walls

    def run(self, trials: list[Trial], fail_fast: bool) -> tuple[int, str | None]:
        """Send `trials` (one segment) and record their outcomes; (how many ran, the failure
        that stopped the run with fail_fast or None)."""
        from distributed import wait

        queues: dict[str | None, deque[tuple[Trial, int]]] = {}
        for t in trials:
            queues.setdefault(machine_of(t), deque()).append((t, 0))
        ran = 0
        waiting_since = time.monotonic()
        try:
            while any(queues.values()) or self.inflight:
                ran += self._fill(queues)
                if not self.inflight:
                    continue
                try:
                    done, _ = wait(list(self.inflight), timeout=WAIT_NOTE,
                                   return_when="FIRST_COMPLETED")
                except TimeoutError:  # Dask's wait raises when nothing ended in WAIT_NOTE
                    done = set()
                if not done:
                    if time.monotonic() - waiting_since >= WAIT_NOTE:
                        self._note_missing()
                        waiting_since = time.monotonic()
                    continue
                waiting_since = time.monotonic()
                for future in sorted(done, key=lambda f: self.inflight[f][0][0].seq):
                    batch, attempt = self.inflight.pop(future)
                    failures = self._collect(future, batch, attempt, queues)
                    ran += len(failures)
                    failed = [(t, f) for t, f in zip(batch, failures, strict=False) if f]
                    if failed and fail_fast:
                        self.cancel()
                        return ran, f"trial {failed[0][0].seq} failed: {failed[0][1]}"
        except BaseException as exc:  # Ctrl-C or SIGTERM (KeyboardInterrupt): stop what runs
            self.cancel(interrupted=isinstance(exc, KeyboardInterrupt))
            raise
        self.cancel()
        return ran, None

    def _fill(self, queues: dict) -> int:
        """Send the next trials of each machine up to the window; executions of a failed
        build are recorded as not run without being sent. Returns how many were recorded."""
        from benchlab.runner import worker

        client = self.cluster.client
        recorded = 0
        per_key: dict[str | None, int] = {}
        for batch, _ in self.inflight.values():
            key = machine_of(batch[0])
            per_key[key] = per_key.get(key, 0) + 1
        for key, queue in queues.items():
            limit = WINDOW * (self.cluster.workers if key is None else 1)
            while queue and per_key.get(key, 0) < limit:
                trial, attempt = queue.popleft()
                if trial.kind != "build" and build_key(trial) in self.failed_builds:
                    self.progress.begin(trial)  # type: ignore[attr-defined]
                    self.record(trial, utc_now(), command_for(self.e, trial).show(),
                                not_run(trial))
                    recorded += 1
                    continue
                batch = [trial]
                while trial.kind == "execution" and queue and len(batch) < self._batch(key) \
                        and queue[0][0].kind == "execution" and queue[0][1] == attempt \
                        and build_key(queue[0][0]) not in self.failed_builds:
                    batch.append(queue.popleft()[0])
                future = client.submit(  # type: ignore[attr-defined]
                    worker.run_trials, self.e, batch, pure=False, priority=-trial.seq,
                    key=f"benchlab-{self.token}-trial-{trial.seq}-{len(batch)}-{attempt}",
                    resources={key: 1} if key is not None else None)
                self.inflight[future] = (batch, attempt)
                per_key[key] = per_key.get(key, 0) + 1
                for sent in batch:
                    self.progress.begin(sent)  # type: ignore[attr-defined]
        return recorded

    def _batch(self, key: str | None) -> int:
        """How many executions one task carries for machine `key`: as many as add up to about
        BATCH_TARGET seconds by the median of its last 32 executions (1 before any returned),
        at most MAX_BATCH. Short executions sent one per task overlap the dispatch of the
        others (the worker's event loop, the scheduler, the driver's commit), which on a busy
        machine slows the timed command itself (benchmarks/cluster_overhead.py); a worker
        that dies loses at most the batch it was running (about BATCH_TARGET of work), which
        is sent again whole and recorded once."""
        recent = self.recent.get(key)
        if not recent:
            return 1
        typical = sorted(recent)[len(recent) // 2]
        return max(1, min(MAX_BATCH, int(BATCH_TARGET / max(typical, 1e-6))))

    def _collect(self, future, batch: list[Trial], attempt: int, queues: dict) -> list[str]:
        """Record a finished batch: each trial's error ("" when it succeeded); none recorded
        (an empty list) when the batch must be sent again (its worker died)."""
        from distributed.scheduler import KilledWorker

        try:
            results = future.result()
        except KilledWorker:
            trial = batch[0]
            self.progress.note(  # type: ignore[attr-defined]
                f"the worker running trial {trial.seq} ({_where(trial)}) died; sending it "
                "again")
            queues[machine_of(trial)].extendleft((t, attempt + 1) for t in reversed(batch))
            return []
        except Exception as exc:
            from distributed.client import FutureCancelledError

            if isinstance(exc, (FutureCancelledError, OSError)):
                raise UsageError(f"lost the Dask scheduler at {self.cluster.address} "
                                 f"({type(exc).__name__}); the finished trials are in the "
                                 "store: go on with --resume") from None
            raise
        errors = []
        for trial, (started, command, outcome) in zip(batch, results, strict=True):
            self.record(trial, started, command, outcome)
            if trial.kind == "execution":
                self.recent.setdefault(machine_of(trial), deque(maxlen=32)).append(outcome.wall)
            errors.append(outcome.error or "")
        return errors

    def _note_missing(self) -> None:
        """Say which machines the run waits for (work sent, no worker connected)."""
        try:
            connected = connected_machines(self.cluster.client)
        except Exception:  # the scheduler itself is gone: the futures will say so
            return
        waiting = sorted({m for b, _ in self.inflight.values() for t in b[:1]
                          if (m := machine_of(t)) is not None and m not in connected})
        if waiting:
            self.progress.note(  # type: ignore[attr-defined]
                f"waiting for a worker of machine{'s' if len(waiting) > 1 else ''} "
                f"{', '.join(waiting)} (start: "
                f"{worker_command(self.cluster.address, waiting[0])}), or stop and go on "
                "later with --resume")

    def cancel(self, interrupted: bool = False) -> None:
        """Withdraw whatever is still at the scheduler (a stop, a failure, Ctrl-C); when the
        run is `interrupted`, every worker also kills the command it is running (Dask cannot
        stop a running task), so nothing of this run goes on on the machines."""
        if self.inflight:
            try:
                self.cluster.client.cancel(list(self.inflight))  # type: ignore[attr-defined]
            except Exception:  # the scheduler is gone: nothing left to withdraw
                pass
            self.inflight.clear()
        if interrupted:
            stop_workers(self.cluster)


def stop_workers(cluster: Cluster) -> int:
    """Have every worker kill the trial command it is running (`worker.stop_trials`); how
    many were killed (0 when the scheduler is gone)."""
    from benchlab.runner import worker

    try:
        killed = cluster.client.run(  # type: ignore[attr-defined]
            worker.stop_trials, on_error="ignore")
    except BaseException:  # the scheduler is gone, or a second Ctrl-C: nothing more to do
        return 0
    return sum(n for n in killed.values() if isinstance(n, int))


def _where(trial: Trial) -> str:
    machine = machine_of(trial)
    return f"machine {machine}" if machine is not None else trial.label()


def session_environment(cluster: Cluster, env_info: dict) -> dict:
    """The session's environment record: the driver's, with each machine's under
    "machines" (name → the record `benchlab env` shows) when the experiment names machines."""
    if not cluster.environments:
        return env_info
    return {**env_info, "machines": cluster.environments}


def machine_warnings(cluster: Cluster, e: Experiment) -> list[str]:
    """The noise warnings of every machine's environment, each naming its machine, then
    (role "level") one line per key on which machines meant to be identical differ."""
    from benchlab.runner import environment

    by_text: dict[str, list[str]] = {}  # the same warning on several machines is one line
    for m, env in cluster.environments.items():
        for w in environment.check(env, e.cpus):
            by_text.setdefault(w.text(), []).append(m)
    noise = [f"machine{'s' if len(ms) > 1 else ''} {', '.join(ms)}: {text}"
             for text, ms in by_text.items()]
    return noise + identical_machine_warnings(cluster, e)


def identical_machine_warnings(cluster: Cluster, e: Experiment) -> list[str]:
    """Role "level": where the machines' environments differ in a key that matters (CPU,
    kernel, governor, ...; runner/environment.py `differences`); none for role "factor"."""
    from benchlab.runner import environment

    role = e.machines.role if e.machines is not None else None
    return environment.machine_warnings(cluster.environments, role)
