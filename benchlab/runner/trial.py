"""One trial: run it on this machine, and turn its outcome into measurements.

This is all a machine that runs trials needs — the local round loop
(runner/rounds.py) and a Dask worker (runner/worker.py) call the same
`run_trial`, which times the command with `execute.run_process` right beside
it — so a worker imports the experiment, the plan and the process runner, and
nothing of the store, the round loop or the dispatch.
"""

from __future__ import annotations

import functools
import os
import threading

from benchlab.runner.config import Experiment
from benchlab.runner.execute import Outcome, OutputParser, resolve, run_process
from benchlab.runner.plan import Trial, command_for, cwd_for, env_for, machine_of

DEFAULT_METRICS = ("wall", "user", "sys", "maxrss")  # a process timed whole, without `metrics`


def utc_now() -> str:
    """The time a trial starts, as the store records every time (`sqlite_file.timestamp`)."""
    from benchlab.sqlite_file import timestamp

    return timestamp()


def base_environment(e: Experiment, environ: dict[str, str] | None = None
                     ) -> dict[str, str]:
    """The environment every trial starts from: this machine's own (PATH and HOME are the
    machine's, never a driver's; `environ`, else os.environ), plus the experiment's
    variables without placeholders."""
    env = dict(os.environ if environ is None else environ)
    env.update({k: v for k, v in e.env if "{" not in v})
    return env


def inherited_environment(e: Experiment) -> dict[str, str] | None:
    """`base_environment`, or None when that is this process's own environment unchanged (no
    variables of the experiment's without placeholders): a start then passes glibc's environ
    as it is (spawn.py), instead of a dict that each start turns into a key of its cached
    envp — about 10 µs per execution with 40 variables and 40 µs with 140 (a CI job's),
    measured with spawn.prepared on this project's 2-core machine. The runner does not
    change its environment while trials run (blas.py sets and restores it between them);
    where glibc's environ differs from os.environ when the run starts (C code called setenv),
    os.environ's copy is passed, as before."""
    from benchlab.runner.spawn import environ_matches

    if any("{" not in v for _, v in e.env) or not environ_matches():
        return base_environment(e)  # C code changed glibc's environ behind os.environ's back
    return None


def run_trial(e: Experiment, trial: Trial, base_env: dict[str, str] | None
              ) -> tuple[str, Outcome]:
    """Run one trial here (its prepare command first, for an execution): the command shown
    and its outcome, with the processes the trial left running ended and counted. `base_env`
    None: this process's environment as it is (inherited_environment)."""
    command = command_for(e, trial)
    added = env_for(e, trial)
    if added:
        env = {**(os.environ if base_env is None else base_env), **added}
    else:
        env = base_env  # spawn.prepared keeps its envp (None: glibc's environ)
    cwd = cwd_for(e, trial)
    left = 0
    if trial.kind in ("execution", "count") and e.prepare is not None:
        before = run_process(e.prepare.spawn_argv(), cwd=e.cwd, env=env, timeout=e.timeout)
        if not before.ok:
            return command.show(), Outcome(0.0, 0.0, 0.0, 0, before.exit_code, before.signal,
                                           before.timed_out, f"prepare command: {before.error}",
                                           before.stderr_tail, leftovers=before.leftovers)
        left = before.leftovers
    parser = None
    if trial.kind == "execution" and e.measure.kind != "time":
        watch = None
        if e.steady is not None:  # iterate until a steady state (runner/steady.py)
            from benchlab.runner.steady import SteadyWatch

            watch = SteadyWatch(e)
        parser = OutputParser(e.measure.kind, e.measure.metrics, e.measure.regex,
                              e.warmup_iterations + e.iterations, watch)
    argv = command.spawn_argv()
    timeout = e.build_timeout if trial.kind == "build" else e.timeout
    cpus, aslr_off = e.cpus if trial.kind != "build" else None, False
    if e.states:  # per-trial built-in levels: affinity, ASLR (runner/state_config.py)
        from benchlab.runner.state_config import process_settings

        cpus, aslr_off = process_settings(e, trial)

    def start() -> Outcome:
        if trial.kind == "count":  # under Valgrind, untimed (runner/counter.py)
            from benchlab.runner.counter import run_counted

            return run_counted(e.counter or "cachegrind", argv, cwd=cwd, env=env,
                               timeout=e.timeout, cpus=cpus,
                               keep_profiles=keeps_profile(e, trial),
                               metrics=e.measure.metrics)
        return run_process(argv, cwd=cwd, env=env, timeout=timeout, parser=parser, cpus=cpus,
                           executable=_resolve(argv[0], (os.environ if env is None
                                                         else env).get("PATH"), cwd),
                           counters=counters_for(e) if trial.kind == "execution" else None)

    if aslr_off:
        from benchlab.runner.personality import aslr_off as no_aslr

        with no_aslr():
            outcome = start()
    else:
        outcome = start()
    if left:
        from dataclasses import replace

        outcome = replace(outcome, leftovers=outcome.leftovers + left)
    return command.show(), outcome


def keeps_profile(e: Experiment, trial: Trial) -> bool:
    """Whether a counted execution's out files go into the store (for profile-diff): with
    counter = "callgrind", the first PROFILES_PER_BUILD counted executions of each cell and
    build, so a store's size does not grow with its rounds (runner/counter.py)."""
    from benchlab.runner.counter import PROFILES_PER_BUILD

    return (e.counter == "callgrind" and trial.kind == "count"
            and trial.execution - e.warmup_executions <= PROFILES_PER_BUILD)


@functools.lru_cache(maxsize=256)
def _resolve(program: str, path: str | None, cwd: str) -> str | None:
    """argv[0] looked up once per experiment, not once per execution."""
    return resolve(program, {"PATH": path} if path is not None else {}, cwd)


_COUNTERS = threading.local()  # each thread's open perf counters: (names, Counters)


def counters_for(e: Experiment):
    """The perf_event counters of the experiment's events, opened once per thread (a
    process inherits the counters of the thread that spawns it), None when it counts none."""
    names = _perf_events(e.measure.metrics, e.counter) if e.measure.kind == "time" else ()
    if not names:
        return None
    held = getattr(_COUNTERS, "held", None)
    if held is None or held[0] != names:
        from benchlab.runner.perf_event import Counters

        if held is not None:
            held[1].close()
        held = _COUNTERS.held = (names, Counters(names))
    return held[1]


@functools.lru_cache(maxsize=16)
def _perf_events(metrics: tuple[str, ...], counter: str | None) -> tuple[str, ...]:
    """The experiment's perf_event metrics, found once per experiment, not per execution."""
    from benchlab.runner.metric_sources import perf_events

    return perf_events(metrics, counter)


def not_run(trial: Trial) -> Outcome:
    """The outcome recorded for an execution of a build whose build step failed."""
    machine = machine_of(trial)
    where = f" on machine {machine}" if machine is not None else ""
    return Outcome(0.0, 0.0, 0.0, 0, None, None, False,
                   f"not run: build {trial.build} of {trial.alternative} failed{where}", "")


def measurements(e: Experiment, trial: Trial, outcome: Outcome
                 ) -> list[tuple[int, str, float, str, bool]]:
    """The rows a successful trial adds to the store: (iteration, metric, value, unit,
    warm-up); a process timed whole is one iteration of its metrics (wall, user, sys and
    maxrss unless `metrics` says otherwise), a counted execution one of what it counted."""
    if trial.kind == "count":
        return [(1, m, outcome.counts[m], u, trial.warmup) for m, u in
                zip(e.measure.metrics, e.measure.units, strict=True) if m in outcome.counts]
    if e.measure.kind == "time" and e.measure.metrics == DEFAULT_METRICS:
        (wall, s), (user, _), (sys, _), (maxrss, b) = _pairs(e.measure.metrics, e.measure.units)
        warm = trial.warmup
        return [(1, wall, outcome.wall, s, warm), (1, user, outcome.user, s, warm),
                (1, sys, outcome.sys, s, warm), (1, maxrss, float(outcome.maxrss), b, warm)]
    if e.measure.kind == "time":  # `metrics` chose them
        clock = {"wall": outcome.wall, "user": outcome.user, "sys": outcome.sys,
                 "cpu": outcome.user + outcome.sys, "maxrss": float(outcome.maxrss)}
        # a build step is timed, not counted: it records the clock's metrics only
        return [(1, m, clock[m] if m in clock else outcome.counts[m], u, trial.warmup)
                for m, u in _timed(e.measure.metrics, e.measure.units, e.counter)
                if m in clock or trial.kind == "execution"]
    warm_until = e.warmup_iterations  # [steady_state]: up to the steady state's start
    if e.steady is not None:
        from benchlab.runner.steady import steady_start

        start = steady_start(e, outcome.rows)
        warm_until += start or 0
    out = []
    for i, row in enumerate(outcome.rows, start=1):
        warm = trial.warmup or i <= warm_until
        for metric, value in row.items():
            out.append((i, metric, value, e.measure.unit_of(metric), warm))
    return out


@functools.lru_cache(maxsize=16)
def _pairs(metrics: tuple[str, ...], units: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """(metric, unit) of a timed process's four values, checked once per experiment."""
    if len(metrics) != 4 or len(units) != 4:
        raise ValueError(f"a process timed whole has four metrics, not {metrics}")
    return tuple(zip(metrics, units, strict=True))


@functools.lru_cache(maxsize=16)
def _timed(metrics: tuple[str, ...], units: tuple[str, ...], counter: str | None
           ) -> tuple[tuple[str, str], ...]:
    """(metric, unit) of what a timed execution measures: all but the counter's."""
    from benchlab.runner.metric_sources import COUNTERS, source_of

    return tuple((m, u) for m, u in zip(metrics, units, strict=True)
                 if source_of(m, counter) not in COUNTERS)


def leftover_warning(trial: Trial, count: int) -> str:
    """The warning for a trial that left processes running in its process group."""
    what = "build step" if trial.kind == "build" else f"execution {trial.execution}"
    machine = machine_of(trial)
    where = f" on machine {machine}" if machine is not None else ""
    return (f"trial {trial.seq} ({trial.label()}, build {trial.build}, {what}{where}) left "
            f"{count} process{'es' if count != 1 else ''} running after it ended; killed "
            f"{'them' if count != 1 else 'it'} (SIGTERM, then SIGKILL)")
