"""What runs on a Dask worker of a cluster run (docs/cluster.md): one trial, timed right there.

A worker runs the very function the local runner uses (`trial.run_trial`, which
times the command with `execute.run_process` beside it), so the measurement covers
the spawn and the wait on the worker's machine and nothing of the dispatch: the
scheduler's queue, the network and the driver's pickling lie outside the timed
region. The environment is the worker's own (`os.environ`, plus the experiment's
variables), never the driver's: PATH and HOME are the machine's. A worker started by
a Dask Nanny (`run --cluster local:N`) has its environment as the Nanny found it recorded
(`keep_environment`): the variables the Nanny adds for its worker process
(OMP_NUM_THREADS=1, PYTHONHASHSEED, ...) never reach a command.

This module imports no Dask, and of the runner only the trial (runner/trial.py) and
what it needs: the driver (`runner/cluster.py`) sends these functions to the workers
by reference, and the worker imports them there.
"""

from __future__ import annotations

import functools
import os
import time

from benchlab.runner.config import Experiment
from benchlab.runner.execute import Outcome
from benchlab.runner.plan import Trial
from benchlab.runner.trial import base_environment, utc_now
from benchlab.runner.trial import run_trial as run_here

_environ: list[dict[str, str] | None] = [None]  # the commands' environment; None: os.environ


def keep_environment(environ: dict[str, str]) -> None:
    """Run this process's commands in `environ` (plus the experiment's variables) instead
    of os.environ: the environment the worker was started with, before Dask changed it."""
    _environ[0] = dict(environ)


def run_trial(e: Experiment, trial: Trial) -> tuple[str, str, Outcome]:
    """Run one trial on this machine: (start time in UTC, the command shown, its outcome)."""
    started = utc_now()
    command, outcome = run_here(e, trial, base_environment(e, _environ[0]))
    return started, command, outcome


class Stopped(RuntimeError):
    """The driver was interrupted (`stop_trials`) while this worker ran a batch."""


_last_stop = [float("-inf")]  # time.monotonic() of the last stop_trials in this process


def run_trials(e: Experiment, trials: list[Trial]) -> list[tuple[str, str, Outcome]]:
    """Run a batch of trials one after another (`run_trial` each), in the order given: the
    driver sends short executions in batches so that their dispatch does not overlap them.
    A batch stops at the next trial once the driver has called `stop_trials` (Ctrl-C): the
    rest of it is not run (the interrupted driver records none of it)."""
    began = time.monotonic()
    out = []
    for trial in trials:
        if _last_stop[0] >= began:
            raise Stopped(f"stopped before trial {trial.seq}: the driver was interrupted")
        out.append(run_trial(e, trial))
    return out


def stop_trials() -> int:
    """Kill the process group of the trial command this worker is running now, if any, and
    return how many were killed: the driver calls it on every worker (`client.run`) when it is
    interrupted, since Dask cannot stop a task that is running. The trial's outcome is then
    "killed by signal SIGKILL", which the interrupted driver never records: the trial stays
    planned for --resume."""
    from benchlab.runner.execute import stop_running

    _last_stop[0] = time.monotonic()
    return stop_running()


@functools.lru_cache(maxsize=1)
def environment_record() -> dict:
    """This machine's environment (`benchlab env`), collected once per worker process, when
    the worker starts (`benchlab worker`) or when the driver first asks."""
    from benchlab.runner import environment

    return environment.collect()


def describe() -> dict:
    """What the driver checks before it sends work: the benchlab version and environment of
    this worker, and the CPUs it may use (for `cpus` in the experiment)."""
    from benchlab.version import __version__

    try:
        usable = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = list(range(os.cpu_count() or 1))
    return {"benchlab": __version__, "environment": environment_record(), "cpus": usable}
