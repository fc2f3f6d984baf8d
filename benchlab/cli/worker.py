"""`benchlab worker tls://HOST:PORT --machine NAME`: serve one machine to a Dask scheduler.

The worker is Dask's own (`distributed.Worker`) with one thread and the resource
{NAME: 1}: trials of machine NAME go to it alone, one at a time, and nothing else
is scheduled on it. It runs in this process (no nanny): stopping or killing this
process stops the worker, and the driver sends its running trial again when a
worker for the machine is back (docs/cluster.md).

A worker runs whatever the cluster asks of it, as this user: anyone who can talk to it (or
to its scheduler) runs commands here. So with a tls:// scheduler it speaks Dask's mutual TLS
(`--tls-*`: only parties whose certificate the cluster's CA signed connect, `benchlab
cluster certs`), and without TLS it listens on 127.0.0.1 only, refusing a non-loopback
--host or scheduler unless --insecure. Its HTTP server (health, metrics) listens on
127.0.0.1 either way.

The process's GIL switch interval is lowered to SWITCH_INTERVAL. A trial is timed in
the worker's task thread while the worker's event-loop thread runs Python for the
dispatch (the previous trial's result fetched, the next trials received, heartbeats).
After its blocking calls (the spawn, the poll that sees the exit) the timed thread must
take the GIL back; with CPython's default 5 ms interval it waits until the event loop
blocks or 5 ms pass, and that wait lands inside the measurement. Measured on `true`
(300 Dask tasks of one `true` each, 6 interleaved repetitions on the 2-core
VM): median of the per-repetition medians 1.27 ms at 5 ms, 0.92 ms at 100 us, 0.75 ms
at 10 us, against 0.56 ms for the same loop in a plain process. Through `benchlab run
--cluster` the larger cost is elsewhere: the dispatch of the other trials overlaps each
short execution on the machine's cores, and benchmarks/cluster_overhead.py finds this
worker and a plain `dask worker` alike within its noise (1.15 and 1.17 ms where a local
run reports 0.68 ms; benchmarks/README.md, its cluster section).
"""

from __future__ import annotations

import argparse
import sys

EXAMPLE = """examples (docs/cluster.md):
  benchlab cluster certs ~/lab-certs --machine core2             # once, on your machine
  dask scheduler --host tls://10.0.0.1 --port 8786 --tls-ca-file ca.pem \\
      --tls-cert scheduler.pem --tls-key scheduler.key --dashboard-address 127.0.0.1:8787
  benchlab worker tls://10.0.0.1:8786 --machine core2 \\
      --tls-ca-file ca.pem --tls-cert core2.pem --tls-key core2.key   # on core2
  benchlab run exp.toml --cluster tls://10.0.0.1:8786 --tls-ca-file ca.pem \\
      --tls-cert client.pem --tls-key client.key -o exp.db
one machine, no TLS (loopback only):
  dask scheduler --host 127.0.0.1 --port 8786 --dashboard-address 127.0.0.1:8787
  benchlab worker tcp://127.0.0.1:8786 --machine m1
"""

CONNECT_TIMEOUT = 10.0  # s: a scheduler that does not answer within this is an error
SWITCH_INTERVAL = 1e-5  # s: GIL hand-off to the timed thread (see the module's docstring)
LOOPBACK = "127.0.0.1"


def add_parser(sub: argparse._SubParsersAction) -> None:
    from benchlab.cli import tls_options

    p = sub.add_parser(
        "worker", help="serve this machine to a Dask scheduler for `run --cluster`",
        description="Start a Dask worker for one machine of an experiment: one thread, the\n"
                    "resource named after the machine, this machine's environment recorded\n"
                    "by the driver's store. Runs until stopped (Ctrl-C) or until the\n"
                    "scheduler has been gone for --death-timeout.\n\n"
                    "A worker runs whatever command the cluster sends it, as this user:\n"
                    "over a network use tls:// with the certificates of `benchlab cluster\n"
                    "certs`. Without TLS the worker listens on loopback (127.0.0.1) only.",
        epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("scheduler", metavar="tls://HOST:PORT",
                   help="the Dask scheduler's address (tcp://HOST:PORT on loopback without TLS)")
    p.add_argument("--machine", required=True, metavar="NAME",
                   help="the machine's name, as in the experiment's [machines] names")
    p.add_argument("--death-timeout", type=float, default=60.0, metavar="SECONDS",
                   help="stop when the scheduler cannot be reached for this long (default: 60)")
    p.add_argument("--host", metavar="HOST",
                   help="the address the worker listens on (default: 127.0.0.1 without TLS; "
                        "with TLS the address this machine reaches the scheduler from)")
    p.add_argument("--insecure", action="store_true",
                   help="allow a worker without TLS on a non-loopback address or scheduler: "
                        "anyone who reaches it runs commands as this user")
    tls_options.add(p, "this machine's")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import asyncio
    import os
    import re
    import signal

    from benchlab.cli import tls_options
    from benchlab.errors import UsageError
    from benchlab.runner.cluster import require_distributed
    from benchlab.runner.tls import address_host

    require_distributed("benchlab worker")

    if not re.match(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$", args.machine):
        raise UsageError(f"--machine {args.machine!r} is not a machine name (letters, digits, "
                         "_ - and ., not empty)")
    scheduler_host = address_host(args.scheduler)
    if not args.death_timeout > 0:
        raise UsageError("--death-timeout must be a positive number of seconds")
    tls = tls_options.files(args, args.scheduler)
    host = listen_host(args.scheduler, scheduler_host, args.host, tls is not None,
                       args.insecure)
    from benchlab.runner.blas import load_single_threaded

    load_single_threaded()  # before numpy: no idle BLAS threads beside the benchmark

    from benchlab.runner.cluster import quiet_dask
    from benchlab.runner.worker import environment_record

    def terminate(signum, frame):  # SIGTERM stops the worker like Ctrl-C
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, terminate)
    sys.setswitchinterval(SWITCH_INTERVAL)
    for stop in (signal.SIGTTIN, signal.SIGTTOU):  # as `run`: commands in the background
        signal.signal(stop, signal.SIG_IGN)
    env = environment_record()  # collected before any work arrives, and kept
    quiet_dask()
    name = f"{args.machine}-{env.get('hostname') or 'host'}-{os.getpid()}"
    return asyncio.run(_serve(args.scheduler, args.machine, name, args.death_timeout, env,
                              host, tls))


def listen_host(address: str, scheduler_host: str, host: str | None, tls: bool,
                insecure: bool) -> str:
    """Where the worker listens: --host, else 127.0.0.1 without TLS, else the address this
    machine reaches the scheduler from. Without TLS a non-loopback --host or scheduler is
    refused (UsageError) unless `insecure`, which says so in one warning line."""
    from benchlab.errors import UsageError
    from benchlab.runner.tls import is_loopback

    if not tls:
        exposed = [f"--host {host}"] if host and not is_loopback(host) else []
        if not is_loopback(scheduler_host):
            exposed.append(f"the scheduler {address}")
        if exposed and not insecure:
            raise UsageError(
                f"{' and '.join(exposed)} {'are' if len(exposed) > 1 else 'is'} not on "
                "loopback: without TLS anyone who reaches this worker or its scheduler runs "
                "commands as this user; use tls:// with the files of benchlab cluster certs "
                "(docs/cluster.md), or --insecure on a network you trust")
        if exposed:
            print(f"benchlab worker: warning: --insecure: no TLS, and {' and '.join(exposed)} "
                  "not on loopback: anyone who reaches this worker or its scheduler runs "
                  "commands as this user", file=sys.stderr, flush=True)
        elif host is None:
            return LOOPBACK
    if host is not None:
        return host
    from distributed.utils import get_ip

    return get_ip(scheduler_host)  # the interface that routes to the scheduler


async def _serve(address: str, machine: str, name: str, death_timeout: float,
                 env: dict, host: str, tls) -> int:
    from distributed import Worker

    from benchlab.errors import UsageError
    from benchlab.runner.cluster import probe, security

    wait = min(CONNECT_TIMEOUT, death_timeout)
    sec = security(tls, "worker")
    await probe(address, sec, "worker", wait)  # a clear line for a wrong certificate
    try:
        # The HTTP server (health, metrics) listens on loopback whatever `host` is
        worker = await Worker(address, nthreads=1, resources={machine: 1}, name=name,
                              dashboard=False, dashboard_address=f"{LOOPBACK}:0",
                              memory_limit=0, death_timeout=wait, host=host, security=sec)
    except (OSError, TimeoutError, ValueError) as exc:
        first = (str(exc).splitlines() or [type(exc).__name__])[0][:160]
        raise UsageError(f"the worker did not start (listening on {host}, scheduler "
                         f"{address}): {first}") from None
    worker.death_timeout = death_timeout
    print(f"benchlab worker: machine {machine} ({env.get('cpu_model') or 'unknown CPU'}, "
          f"{len(env.get('cpus_usable') or [])} usable cores) connected to {address} as "
          f"{name}, listening on {worker.address}{' with TLS' if tls else ''}; Ctrl-C stops "
          "it", file=sys.stderr, flush=True)
    try:
        await worker.finished()
    finally:
        await worker.close()
    return 0
