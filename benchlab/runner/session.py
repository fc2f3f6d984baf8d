"""Run (or resume) an experiment into its store: the runner's one entry point.

A session checks the environment, runs the setup commands, then every planned
trial in plan order through the round loop (runner/rounds.py: recording each as
soon as it ends, adaptive stopping after each complete round; the trials run
here or, with a cluster, on Dask workers), and runs the teardown commands. A
failed trial (non-zero exit, signal, timeout, unparsable output) is recorded
with the tail of its standard error and the run goes on (unless fail_fast); the
executions of a build whose build step failed are recorded as failed without
being run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from benchlab.errors import InputError, UsageError
from benchlab.result import Result
from benchlab.runner import environment, rounds
from benchlab.runner.blas import load_single_threaded
from benchlab.runner.config import Experiment, load_experiment, with_timeout
from benchlab.runner.execute import run_process
from benchlab.runner.plan import Trial, build_key, estimate_seconds, make_plan
from benchlab.runner.progress import Progress
from benchlab.runner.store import Store
from benchlab.runner.trial import base_environment

if TYPE_CHECKING:
    from benchlab.runner.switching import SwitchPlan


@dataclass(frozen=True)
class Planned(Result):
    """What a run would do: the trials left, the seed, and the estimated duration
    (rendered by report/run.py)."""

    experiment: Experiment
    seed: int
    trials: list[Trial]
    total: int
    estimate: float | None
    timeout_bound: float | None
    resumed: bool
    store: str | None = None  # where the run would write
    seed_given: bool = True  # whether the caller chose the seed (else the file or a draw)
    switches: SwitchPlan | None = None  # the system-state switches the trials make


@dataclass(frozen=True)
class RunResult(Result):
    """A run's outcome (rendered by report/run.py)."""

    store: str
    seed: int
    status: str  # finished, stopped, failed (fail-fast), already-finished
    stop_reason: str | None
    counts: dict[str, int]
    measurements: int
    ran: int
    warnings: list[str] = field(default_factory=list)
    failures: list[tuple[int, str, str, str]] = field(default_factory=list)
    machines: dict[str, dict[str, int]] = field(default_factory=dict)  # name → status → trials
    # role "level": keys on which machines meant to be identical differ (said again at the end)
    differing_machines: list[str] = field(default_factory=list)


def draw_seed() -> int:
    """A fresh seed from the operating system's entropy, uniform on 0 .. 2**32 - 1: the same
    distribution as numpy's old draw (SeedSequence().entropy, 128 random bits, modulo 2**32),
    without importing numpy (nor `secrets`, whose hmac and hashlib a run does not need)."""
    return int.from_bytes(os.urandom(4), "little")


def _metrics_meta(e: Experiment) -> str:
    import json

    return json.dumps([[m, u] for m, u in zip(e.measure.metrics, e.measure.units, strict=True)])


def _sources_meta(e: Experiment) -> dict[str, str]:
    """The store's record of where each metric comes from ({"metric_sources": {...}}, and
    the counter's tool, Valgrind version and options as "counter"); empty for a file whose
    values are parsed from the output."""
    if e.measure.kind != "time":
        return {}
    from benchlab.runner import counter, metric_sources

    tool = None
    if e.counter is not None:
        tool = {"tool": e.counter, "version": counter.version() or "unknown",
                "options": counter.options(e.counter, e.measure.metrics)}
    sources = {}
    for m in e.measure.metrics:
        source = metric_sources.source_of(m, e.counter)
        sources[m] = {"source": source, **({k: v for k, v in tool.items() if k != "tool"}
                                           if tool is not None and source == e.counter
                                           else {})}
    meta = {"metric_sources": _json(sources)}
    if tool is not None:
        meta["counter"] = _json(tool)
    return meta


def check_metrics(e: Experiment) -> None:
    """Refuse, before a store is made, metrics this machine cannot measure (no PMU for a
    hardware event, no Valgrind for the counter): no metric falls back to another."""
    if e.measure.kind == "time":
        from benchlab.runner.metric_sources import check_machine

        key = "metrics" if "metrics" in e.text else "counter"
        check_machine(e.measure.metrics, e.counter, e.where(key))


def plan_only(experiment_path: str | Experiment, store_path: str | None, *, seed: int | None,
              resume: bool, estimate_from: str | None = None,
              timeout: str | None = None) -> Planned:
    """The trials `run` would execute, without running anything (--dry-run).

    The duration is estimated from the median duration of each kind of trial and cell
    (alternative and factor levels) in `estimate_from` (a pilot's store), else in the
    store being resumed; None when some trial has no finished counterpart there. `timeout`
    is `--timeout` (a duration or "none"), None for the file's. An Experiment given instead
    of a path is used as read (quick mode's, runner/quick.py).
    """
    from benchlab.runner import switching

    e = with_timeout(_experiment(experiment_path), timeout)
    check_metrics(e)
    durations: dict = {}
    timed: dict = {}
    if resume and store_path and os.path.exists(store_path):
        store = Store.open(store_path)
        try:
            timed = switching.switch_seconds(store)
            store.check_same_experiment(e.text, e.path)
            stored_seed = int(store.meta["seed"])
            if seed is not None and seed != stored_seed:
                raise UsageError(f"--seed {seed} differs from the seed of {store_path} "
                                 f"({stored_seed}); a resumed experiment keeps its plan")
            logged = {row[-1] for row, *_ in store.logged()}  # a killed run's, run already
            trials = [t for t in store.trials("planned") if t.seq not in logged]
            total = store.trial_count()
            durations = store.durations()
        finally:
            store.close()
        planned_seed, resumed = stored_seed, True
    else:
        planned_seed = seed if seed is not None else e.seed if e.seed is not None \
            else draw_seed()
        trials = make_plan(e, planned_seed)
        total, resumed = len(trials), False
    if estimate_from is not None:
        pilot = Store.open(estimate_from)
        try:
            durations = pilot.durations()
            timed = switching.switch_seconds(pilot)
        finally:
            pilot.close()
    return replace(_planned(e, planned_seed, trials, total, durations, resumed),
                   store=store_path, seed_given=seed is not None,
                   switches=switching.plan_switches(e, trials, timed))


def _planned(e: Experiment, seed: int, trials: list[Trial], total: int,
             durations: dict, resumed: bool) -> Planned:
    builds = sum(t.kind == "build" for t in trials)
    bound = None
    if e.timeout is not None and (builds == 0 or e.build_timeout is not None):
        bound = e.timeout * (len(trials) - builds) + (e.build_timeout or 0.0) * builds
    return Planned(e, seed, trials, total, estimate_seconds(trials, durations), bound, resumed)


def _run_fixed(commands, e: Experiment, env: dict[str, str], what: str) -> None:
    for c in commands:
        # a setup may start a server the trials use: what it leaves running stays
        outcome = run_process(c.spawn_argv(), cwd=e.cwd, env=env, end_group=False)
        if not outcome.ok:
            last = outcome.stderr_tail.strip().split("\n")[-1] if outcome.stderr_tail.strip() \
                else ""
            raise InputError(f"{what} command {c.show()!r} failed: {outcome.error}"
                             f"{': ' + last if last else ''}", e.where(what))


def _experiment(source: str | Experiment) -> Experiment:
    return source if isinstance(source, Experiment) else load_experiment(source)


def run_experiment(experiment_path: str | Experiment, store_path: str, *, seed: int | None = None,
                   resume: bool = False, fail_fast: bool = False,
                   progress: Progress | None = None, argv: list[str] | None = None,
                   warn=None, cluster: str | None = None, tls=None,
                   timeout: str | None = None) -> RunResult:
    """Run the experiment file into the store (a new one, or the given one with resume);
    with `cluster` (tls://HOST:PORT with `tls` the driver's TLS files, tcp://HOST:PORT or
    local:N) the trials run on Dask workers (runner/cluster.py) and this process records
    them. `timeout` replaces the file's execution timeout (`--timeout`: a duration or
    "none"). An Experiment given instead of a path is used as read (quick mode's)."""
    progress = progress or Progress()
    e = with_timeout(_experiment(experiment_path), timeout)
    if e.machines is not None and cluster is None:
        raise UsageError("the experiment names [machines]: run it with --cluster "
                         "tcp://HOST:PORT (docs/cluster.md)")
    if e.states:  # before the store is made
        from benchlab.runner import switching

        switching.check_support(e, cluster=cluster is not None)
    if cluster is None:  # a cluster's workers may offer what the driver does not
        check_metrics(e)
    connected = None
    if numpy_while_running(e, cluster):
        load_single_threaded(*while_running(e))
    if cluster is not None:  # connected before the store exists: a bad address leaves none
        from benchlab.runner.cluster import connect

        connected = connect(cluster, e, tls=tls)
    try:
        return _run_into(e, store_path, seed, resume, fail_fast, progress, argv, warn,
                         connected)
    finally:
        if connected is not None:
            connected.close()


def numpy_while_running(e: Experiment, cluster: str | None = None) -> bool:
    """Whether the run itself needs numpy (loaded then before the first execution, with one
    BLAS thread): a stopping rule (its checks between rounds), a steady state (classified
    during each execution) or a cluster (Dask). A run without them imports numpy only for
    the analysis after its executions (runner/blas.py), which saves its import (about
    100 ms) before the first; loading it mid-run would also raise the runner's resident
    size, the floor of every later command's maxrss (runner/execute.py), partway through."""
    return e.stop is not None or e.steady is not None or cluster is not None


def while_running(e: Experiment) -> tuple[bool, tuple[str, ...]]:
    """What a run loads before its first execution besides numpy, as load_single_threaded's
    arguments: the stopping rule's and the steady state's statistics with the scipy modules
    they use. Loaded on first use instead, they were imported partway through the run (the
    steady state's during its first execution, while the command ran beside it) and raised
    the runner's resident size, the floor of every later command's maxrss, mid-run."""
    modules: list[str] = []
    if e.stop is not None:
        modules.append("benchlab.runner.stopping")
    if e.steady is not None:
        modules += ["benchlab.runner.steady", "benchlab.stats.warmup", "benchlab.stats.fieller",
                    "scipy.ndimage"]
    if modules:  # the t quantiles' normal start (stats/distributions: statistics, decimal)
        modules.append("statistics")
    halfwidth = e.stop is not None and e.stop.halfwidth is not None
    return halfwidth, tuple(modules)


def _run_into(e: Experiment, store_path: str, seed: int | None, resume: bool, fail_fast: bool,
              progress: Progress, argv: list[str] | None, warn, connected) -> RunResult:
    """Open or create the store and run the session into it (on `connected`, a cluster,
    or here)."""
    from benchlab.version import __version__

    if resume and os.path.exists(store_path):
        store = Store.open(store_path, write=True)
        try:
            store.check_same_experiment(e.text, e.path)
            stored = int(store.meta["seed"])
            if seed is not None and seed != stored:
                raise UsageError(f"--seed {seed} differs from the seed of {store_path} "
                                 f"({stored}); a resumed experiment keeps its plan")
        except BaseException:
            store.close()
            raise
        seed = stored
    else:
        seed = seed if seed is not None else e.seed if e.seed is not None else draw_seed()
        plan = make_plan(e, seed)
        meta = {"benchlab_version": __version__, "experiment_path": e.path if e.path.startswith("<")
                else os.path.abspath(e.path),
                "experiment_text": e.text, "experiment_digest": e.digest, "seed": str(seed),
                "name": e.name, "baseline": e.baseline, "order": e.order,
                "factors": _json(list(e.factor_names)), "metrics": _metrics_meta(e),
                "alternatives": _json([a.name for a in e.alternatives]),
                "factor_levels": _json({n: list(levels) for n, levels in e.factors}),
                "builds": str(e.builds), "executions": str(e.executions),
                "iterations": str(e.iterations), "scanned": "true" if e.scanned else "false",
                **_sources_meta(e)}
        if e.machines is not None:  # readers learn the role here (data/readers/store.py)
            meta["machines"] = _json({"names": list(e.machines.names),
                                      "role": e.machines.role})
        store = Store.create(store_path, meta, plan)
    try:
        return _session(e, store, seed, fail_fast, progress, argv or [], warn, connected)
    finally:
        store.close()


def _json(value) -> str:
    import json

    return json.dumps(value)


def counters_first(e: Experiment, cluster=None) -> bool:
    """Whether a session records the counters this machine offers (environment.counters: a
    probe of each PMU and software event, `valgrind --version`) before its executions: on a
    cluster (the machines' records join the driver's) or for an experiment that counts (a
    counter, a PMU or software event); any other session adds them to its record after its
    executions, so its first execution need not wait for them (docs/run.md)."""
    if cluster is not None or e.counter is not None:
        return True
    if e.measure.kind != "time":
        return False
    from benchlab.runner.metric_sources import perf_events

    return bool(perf_events(e.measure.metrics, e.counter))


def _session(e: Experiment, store: Store, seed: int, fail_fast: bool, progress: Progress,
             argv: list[str], warn, cluster=None) -> RunResult:
    first = counters_first(e, cluster)
    env_info = environment.collect(counters_too=first)
    warnings = [w.text() for w in environment.check(env_info, e.cpus)]
    differing: list[str] = []
    if cluster is not None:  # the machines' environments and warnings, beside the driver's
        from benchlab.runner import cluster as dispatch

        env_info = dispatch.session_environment(cluster, env_info)
        warnings += dispatch.machine_warnings(cluster, e)
        differing = dispatch.identical_machine_warnings(cluster, e)
    for w in warnings:
        if warn is not None:
            warn(w)
    if store.meta.get("status") in ("finished", "stopped"):
        return _result(store, seed, "already-" + store.meta["status"], 0, warnings)
    session = store.start_session(argv, env_info, warnings)
    base_env = base_environment(e)
    outcome_text = "interrupted"
    switcher = None  # without system-state factors: nothing to switch (nor to import)
    if e.states:
        from benchlab.runner import switching

        switcher = switching.Switcher(e, store, session, base_env, warn=warn)
    try:
        for factor in switcher.restore_left() if switcher else ():  # a killed session's
            if warn is not None:  # state, undone first
                warn(f"restored the state a previous session left in force: the teardown of "
                     f"factor {factor!r} ran (see the store's switches)")
        _run_fixed(e.setup, e, base_env, "setup")
        pending = store.trials("planned")
        total = store.trial_count()
        progress.start(total, total - len(pending))
        failed_builds: set[tuple[str, int, str | None]] = {
            build_key(t) for t in store.trials("failed") if t.kind == "build"}
        recorder = rounds.Recorder(e, store, session, failed_builds, progress, warn)
        executor = rounds.LocalExecutor(e) if cluster is None else dispatch.ClusterExecutor(
            cluster, e)
        if switcher is not None and switcher.factors:
            executor = switching.SwitchingExecutor(executor, switcher)
        status, reason = rounds.run_rounds(e, store, pending, executor, recorder, fail_fast)
        store.commit()  # the outcomes of the last time slice, before anything reads them
        progress.close()
        if switcher is not None:
            switcher.leave_all()
        _run_fixed(e.teardown, e, base_env, "teardown")
        if status != "failed":
            store.set_meta(status=status, stop_reason=reason or "")
        outcome_text = status
        return replace(_result(store, seed, status, recorder.ran,
                               warnings + recorder.warnings, reason),
                       differing_machines=differing)
    finally:
        progress.close()
        try:
            if switcher is not None:
                switcher.leave_all()  # every level in force torn down, however the run ends
        finally:
            store.finish_session(session, outcome_text)
        if not first:  # the record as environment.collect() gives it, counters last
            store.set_session_environment(session, {**env_info,
                                                    "counters": environment.counters()})
        if outcome_text in ("finished", "stopped"):  # after the last commit: one checkpoint
            store.settle()


def _result(store: Store, seed: int, status: str, ran: int, warnings: list[str],
            reason: str | None = None) -> RunResult:
    counts = store.counts()
    n = store.conn.execute("SELECT COUNT(*) FROM measurements").fetchone()[0]
    if reason is None and store.meta.get("stop_reason"):
        reason = store.meta["stop_reason"]
    return RunResult(store.path, seed, status, reason, counts, int(n), ran, warnings,
                     store.failures(), store.machine_counts())
