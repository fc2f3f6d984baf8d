"""The round loop of a run: the pending trials in plan order, segment by segment, each outcome
recorded the moment it is known, adaptive stopping checked between rounds.

One loop for both ways of running trials. An executor runs a segment of the plan
and hands every outcome to the `Recorder`: `LocalExecutor` runs the trials one
after another in this process (runner/trial.py), `cluster.ClusterExecutor` sends
them to Dask workers, which run the same `trial.run_trial`. A segment ends at
every change of trial kind (builds before their executions) and, with
`stop_when`, at every round: the stopping rule reads the store between rounds,
so everything sent must be recorded first.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Protocol

from benchlab.runner.config import Experiment
from benchlab.runner.execute import Outcome
from benchlab.runner.plan import Trial, build_key, command_for
from benchlab.runner.trial import (
    inherited_environment,
    leftover_warning,
    measurements,
    not_run,
    run_trial,
    utc_now,
)


class Recorder:
    """Where outcomes go: the store (its outcome log at once, a transaction per time slice:
    runner/store.py; the measurements when the trial succeeded), the failed builds (their
    executions are then not run), the progress, and a warning for processes a trial left
    running. `ran` counts the trials recorded."""

    def __init__(self, e: Experiment, store, session: int,
                 failed_builds: set[tuple[str, int, str | None]], progress,
                 warn: Callable[[str], None] | None = None) -> None:
        self.e, self.store, self.session = e, store, session
        self.failed_builds, self.progress, self.warn = failed_builds, progress, warn
        self.ran = 0
        self.warnings: list[str] = []

    def record(self, trial: Trial, started: str, command: str, outcome: Outcome) -> None:
        """Record one trial's outcome, as soon as it is known."""
        self.store.record(trial, self.session, started, command, outcome,
                          measurements(self.e, trial, outcome) if outcome.ok else [])
        self.ran += 1
        if getattr(outcome, "caches", None):
            record_caches(self.store, outcome.caches)
        if not outcome.ok and trial.kind == "build":
            self.failed_builds.add(build_key(trial))
        texts = [leftover_warning(trial, outcome.leftovers)] if outcome.leftovers else []
        if (self.e.steady is not None and outcome.ok and trial.kind == "execution"
                and not trial.warmup):
            from benchlab.runner.steady import unsteady_warning

            texts += [t for t in [unsteady_warning(self.e, trial, outcome.rows)] if t]
        for text in texts:
            self.warnings.append(text)
            if self.warn is not None:
                self.warn(text)
        self.progress.end(trial, outcome.error, outcome.wall)

    def skipped(self, trial: Trial) -> Outcome | None:
        """For an execution of a build that failed: recorded as not run, its outcome;
        None for a trial to run."""
        if not self.failed_builds or trial.kind == "build" or \
                build_key(trial) not in self.failed_builds:
            return None
        outcome = not_run(trial)
        self.progress.begin(trial)
        self.record(trial, utc_now(), command_for(self.e, trial).show(), outcome)
        return outcome


def record_caches(store, caches: dict[str, str]) -> None:
    """Add the simulated caches of a counted execution (runner/counter.py) to the store's
    `simulated_caches` (a JSON list of the configurations met, in the order met; one unless
    the machines differ), written at once when new."""
    import json

    from benchlab.runner import store_checks

    seen = store_checks.parse_json(store.meta.get("simulated_caches") or "[]", store.path,
                                   "benchlab_meta", "'simulated_caches'", "value")
    if not isinstance(seen, list):
        raise store_checks.fail(store.path, "benchlab_meta", "'simulated_caches'", "value",
                                seen, "a list")
    if caches not in seen:
        store.set_meta(simulated_caches=json.dumps([*seen, caches]))


class Executor(Protocol):
    """Runs one segment of trials, handing each outcome to the recorder; returns the failure
    that stops the run (with fail_fast), else None."""

    def run(self, trials: list[Trial], recorder: Recorder, fail_fast: bool) -> str | None: ...


# Seconds between the garbage collector's runs while trials run here (LocalExecutor).
COLLECT_S = 0.25


class LocalExecutor:
    """The trials one after another in this process, in plan order.

    Python's cyclic garbage collector is off while they run and collects the young
    generations between two trials every COLLECT_S instead: left on, it runs whenever
    enough objects have been allocated, which the outcomes waiting for the next commit make
    every few executions (about 60 µs of the runner's CPU per execution of `true`, measured
    by stubbing it out: benchmarks/runner_overhead.py, docs/run.md)."""

    def __init__(self, e: Experiment) -> None:
        self.e = e
        self.base_env = inherited_environment(e)

    def run(self, trials: list[Trial], recorder: Recorder, fail_fast: bool) -> str | None:
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._run(trials, recorder, fail_fast)
        finally:
            if collecting:
                gc.enable()

    def _run(self, trials: list[Trial], recorder: Recorder, fail_fast: bool) -> str | None:
        e, base_env, progress = self.e, self.base_env, recorder.progress
        collect_at = time.monotonic() + COLLECT_S
        for trial in trials:
            outcome = recorder.skipped(trial)
            if outcome is None:
                progress.begin(trial)
                started = utc_now()
                command, outcome = run_trial(e, trial, base_env)
                recorder.record(trial, started, command, outcome)
            if not outcome.ok and fail_fast:
                return f"trial {trial.seq} failed: {outcome.error}"
            if time.monotonic() >= collect_at:  # between trials: not in a timed region
                gc.collect(1)
                collect_at = time.monotonic() + COLLECT_S
        return None


def segments(e: Experiment, pending: list[Trial]) -> list[list[Trial]]:
    """The pending trials cut where everything sent must be recorded before more is sent: at
    a change of trial kind, and at every round with stop_when."""
    out: list[list[Trial]] = []
    for trial in pending:
        if out and (trial.round != out[-1][-1].round
                    and (e.stop is not None or trial.kind != out[-1][-1].kind)):
            out.append([trial])
        elif out:
            out[-1].append(trial)
        else:
            out.append([trial])
    return out


def run_rounds(e: Experiment, store, pending: list[Trial], executor: Executor,
               recorder: Recorder, fail_fast: bool) -> tuple[str, str | None]:
    """Run the pending trials through `executor`, checking the stopping rule between rounds:
    (status, reason) with status finished, stopped or failed (fail_fast)."""
    parts = segments(e, pending)
    for i, part in enumerate(parts):
        if i > 0 and part[0].round != parts[i - 1][-1].round:
            store.commit()  # the rule reads every outcome so far
            reason = should_stop(e, store)
            if reason:
                return "stopped", reason
        failure = executor.run(part, recorder, fail_fast)
        if failure is not None:
            return "failed", failure
    store.commit()
    if pending and e.stop is not None:
        reason = should_stop(e, store)
        if reason:
            return "stopped", reason
    return "finished", None


# A time limit stops a run only once every cell measured so far has this many top-level
# units (builds, else executions): with one, nothing has a spread and no comparison can be
# made, so the limit is passed by the round that gives the second.
MIN_UNITS_TO_STOP = 2


def should_stop(e: Experiment, store) -> str | None:
    """The reason to stop after a complete round, or None to go on."""
    if e.stop is None:
        return None
    if e.stop.max_time is not None and _elapsed(store) >= e.stop.max_time and all(
            len(units) >= MIN_UNITS_TO_STOP
            for units in _stop_groups(store, e, e.stop.metric).values()):
        from benchlab.runner.progress import format_seconds

        return f"max_time reached ({format_seconds(e.stop.max_time)} of trials)"
    if e.stop.halfwidth is not None:
        from benchlab.runner import stopping  # its statistics only for a stopping rule
        from benchlab.runner.blas import load_single_threaded

        load_single_threaded(scipy=True)  # its t quantiles, with no idle BLAS threads
        check = stopping.check(_stop_groups(store, e, e.stop.metric), e.baseline,
                               e.stop.halfwidth, e.stop.confidence)
        if check.narrow:
            return (f"every ratio CI is within ±{100 * e.stop.halfwidth:g}% (widest "
                    f"±{100 * (check.widest or 0):.2f}%, {check.worst})")
    return None


def _stop_groups(store, e: Experiment, metric: str) -> dict:
    """Top-level unit means per cell of the measurements so far (builds, else executions),
    from the execution means SQLite computes, so a round costs one pass over executions."""
    import numpy as np

    from benchlab.runner import stopping

    cells: dict[tuple, list] = {}
    for alternative, factors, build, execution, mean in store.execution_means(metric):
        cells.setdefault((alternative, factors), []).append((build, execution, mean))
    out = {}
    for key, units in cells.items():
        builds, executions, means = (np.array(c) for c in zip(*units, strict=True))
        if e.builds > 1 or e.machines is not None and e.machines.level:  # builds per machine
            out[key] = stopping.unit_means(means, builds, [executions])
        else:
            out[key] = means
    return out


def _elapsed(store) -> float:
    row = store.conn.execute("SELECT COALESCE(SUM(wall), 0) FROM trials").fetchone()
    return float(row[0])
