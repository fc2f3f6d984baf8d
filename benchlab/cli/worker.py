"""`benchlab worker tcp://HOST:PORT --machine NAME`: serve one machine to a Dask scheduler.

The worker is Dask's own (`distributed.Worker`) with one thread and the resource
{NAME: 1}: trials of machine NAME go to it alone, one at a time, and nothing else
is scheduled on it. It runs in this process (no nanny): stopping or killing this
process stops the worker, and the driver sends its running trial again when a
worker for the machine is back (docs/cluster.md).

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
run reports 0.68 ms; benchmarks/README.md, "Cluster (issue 13)").
"""

from __future__ import annotations

import argparse
import sys

EXAMPLE = """examples:
  dask scheduler --port 8786                              # on any machine
  benchlab worker tcp://sched.lab:8786 --machine core2   # on the machine core2
  benchlab run exp.toml --cluster tcp://sched.lab:8786 -o exp.db
"""

CONNECT_TIMEOUT = 10.0  # s: a scheduler that does not answer within this is an error
SWITCH_INTERVAL = 1e-5  # s: GIL hand-off to the timed thread (see the module's docstring)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "worker", help="serve this machine to a Dask scheduler for `run --cluster`",
        description="Start a Dask worker for one machine of an experiment: one thread, the\n"
                    "resource named after the machine, this machine's environment recorded\n"
                    "by the driver's store. Runs until stopped (Ctrl-C) or until the\n"
                    "scheduler has been gone for --death-timeout.",
        epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("scheduler", metavar="tcp://HOST:PORT", help="the Dask scheduler's address")
    p.add_argument("--machine", required=True, metavar="NAME",
                   help="the machine's name, as in the experiment's [machines] names")
    p.add_argument("--death-timeout", type=float, default=60.0, metavar="SECONDS",
                   help="stop when the scheduler cannot be reached for this long (default: 60)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import asyncio
    import os
    import re
    import signal

    from benchlab.errors import UsageError

    if not re.match(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$", args.machine):
        raise UsageError(f"--machine {args.machine!r} is not a machine name (letters, digits, "
                         "_ - and ., not empty)")
    if not re.match(r"^[a-z][a-z0-9+]*://\S+$", args.scheduler):
        raise UsageError(f"the scheduler's address must be like tcp://HOST:PORT, not "
                         f"{args.scheduler!r}")
    if not args.death_timeout > 0:
        raise UsageError("--death-timeout must be a positive number of seconds")
    from benchlab.runner.blas import load_single_threaded

    load_single_threaded()  # before numpy: no idle BLAS threads beside the benchmark

    from benchlab.runner.cluster import _quiet_dask
    from benchlab.runner.worker import environment_record

    def terminate(signum, frame):  # SIGTERM stops the worker like Ctrl-C
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, terminate)
    sys.setswitchinterval(SWITCH_INTERVAL)
    for stop in (signal.SIGTTIN, signal.SIGTTOU):  # as `run`: commands in the background
        signal.signal(stop, signal.SIG_IGN)
    env = environment_record()  # collected before any work arrives, and kept
    _quiet_dask()
    name = f"{args.machine}-{env.get('hostname') or 'host'}-{os.getpid()}"
    return asyncio.run(_serve(args.scheduler, args.machine, name, args.death_timeout, env))


async def _serve(address: str, machine: str, name: str, death_timeout: float,
                 env: dict) -> int:
    from distributed import Worker

    from benchlab.errors import UsageError

    try:
        worker = await Worker(address, nthreads=1, resources={machine: 1}, name=name,
                              dashboard=False, memory_limit=0,
                              death_timeout=min(CONNECT_TIMEOUT, death_timeout))
    except (OSError, TimeoutError) as exc:
        raise UsageError(f"no Dask scheduler answers at {address} within "
                         f"{min(CONNECT_TIMEOUT, death_timeout):g} s ({type(exc).__name__}); "
                         "start one with: dask scheduler --port PORT") from None
    worker.death_timeout = death_timeout
    print(f"benchlab worker: machine {machine} ({env.get('cpu_model') or 'unknown CPU'}, "
          f"{len(env.get('cpus_usable') or [])} usable cores) connected to {address} as "
          f"{name}; Ctrl-C stops it", file=sys.stderr, flush=True)
    try:
        await worker.finished()
    finally:
        await worker.close()
    return 0
