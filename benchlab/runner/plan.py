"""The plan of an experiment: every build and execution as a trial, in a seeded run order.

Order "interleaved-random" (the default) runs the experiment in rounds: for each
build index, one round of build steps, then one round per execution index in
which every alternative × factor combination runs once, in an order drawn
afresh from the seed for every round — so slow drift of the machine lands
evenly on all treatments (de Oliveira et al. 2013 randomize trial order for
this reason) while the builds × executions × iterations hierarchy of Kalibera
& Jones (2012) is kept. "sequential" runs all trials of one alternative and
combination before the next (as hyperfine does).
"""

from __future__ import annotations

import itertools
import math
import os
from dataclasses import dataclass

from benchlab.errors import InputError, UsageError
from benchlab.runner import permutation
from benchlab.runner.config import MACHINE_FACTOR, Command, Experiment, gc_paused
from benchlab.runner.permutation import NumpyPermutations, Permutations

# Planned trials are held in memory (about 150 bytes each as Trial objects) and written to the
# store (about 60 bytes each) before the first one runs: a million trials took 12 s and a peak
# RSS of 0.7 GB to plan, store and read back as the trials left (0.45 GB for --dry-run).
MAX_TRIALS = 1_000_000
MAX_TRIALS_VAR = "BENCHLAB_MAX_TRIALS"
# The values one execution prints are held until it ends (about 400 bytes per iteration and
# metric, parsed and then recorded): a million iterations cost a few hundred MB.
MAX_ITERATIONS = 1_000_000
MAX_ITERATIONS_VAR = "BENCHLAB_MAX_ITERATIONS"


@dataclass(frozen=True, slots=True)
class Trial:
    """One unit of work: a build step, or one execution (a process) of a cell in a build.

    `execution` counts the warm-up executions first (1..warm-up are warm-up);
    it is 0 for a build step. `seq` is the 1-based position in the run order.
    `machine` is the machine it runs on ([machines]), None without machines.
    """

    seq: int
    round: int
    kind: str  # "build", "execution" or "count" (an execution under the counter, untimed)
    alternative: str
    factors: tuple[tuple[str, str], ...]
    build: int
    execution: int
    warmup: bool
    machine: str | None = None

    @property
    def cell(self) -> tuple[str, tuple[tuple[str, str], ...]]:
        return self.alternative, self.factors

    def label(self) -> str:
        """"fast size=10" — the alternative and its factor levels."""
        return " ".join([self.alternative, *(f"{k}={v}" for k, v in self.factors)])


def cells(e: Experiment) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
    """Every alternative × factor-level combination, in the file's order."""
    names = e.factor_names
    combos = list(itertools.product(*(levels for _, levels in e.factors)))
    levels = [tuple(zip(names, combo, strict=True)) for combo in combos]  # once, not per name
    return [(a.name, named) for a in e.alternatives for named in levels]


def plan_size(e: Experiment) -> tuple[int, dict[str, int]]:
    """The number of trials make_plan would list, computed from the file's numbers without
    listing anything (builds × (build steps + alternatives × factor combinations × (warm-up +
    measured executions)), every machine making its own builds, and with role "level" running
    every cell), and those numbers by the key that sets them."""
    numbers = {"alternatives": len(e.alternatives),
               "factors": math.prod(len(levels) for _, levels in e.factors),
               "builds": e.builds, "executions": _per_cell(e)}
    machines = len(e.machines.names) if e.machines is not None else 1
    level = e.machines is not None and e.machines.level
    if level:
        numbers["machines"] = machines
    built = sum(a.build is not None for a in e.alternatives) * machines
    total = e.builds * (built + numbers["alternatives"] * numbers["factors"]
                        * (machines if level else 1) * numbers["executions"])
    return total, numbers


def timed(e: Experiment) -> bool:
    """Whether the plan has timed executions: not when every metric is a counter's."""
    if e.measure.kind != "time":
        return True
    from benchlab.runner.metric_sources import timed as any_timed

    return any_timed(e.measure.metrics, e.counter)


def _kinds(e: Experiment, x: int) -> tuple[str, ...]:
    """The kinds of trial of execution index x of a cell: timed ("execution", warm-up
    included) unless every metric is counted, and counted ("count", measured ones only)
    with a counter."""
    kinds = ("execution",) if timed(e) else ()
    if e.counter is not None and x > e.warmup_executions:
        kinds += ("count",)
    return kinds


def _per_cell(e: Experiment) -> int:
    """The trials of one cell per build: its executions, warm-up and counted ones (as
    `_kinds` lists them, counted without listing: the file's numbers may be absurd)."""
    return (e.warmup_executions + e.executions if timed(e) else 0) + \
        (e.executions if e.counter is not None else 0)


def _limit(variable: str, default: int) -> int:
    """The limit the environment variable sets (a positive integer), else `default`."""
    text = os.environ.get(variable, "").strip()
    if not text:
        return default
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        value = 0
    if value < 1:
        raise UsageError(f"{variable} must be a positive integer, not {text[:40]!r}")
    return value


def check_size(e: Experiment) -> None:
    """Refuse, before anything is listed or run, a plan with more trials than
    BENCHLAB_MAX_TRIALS, or executions printing more iterations than BENCHLAB_MAX_ITERATIONS:
    an absurd number in the file would otherwise grow memory silently."""
    total, numbers = plan_size(e)
    limit = _limit(MAX_TRIALS_VAR, MAX_TRIALS)
    if total > limit:
        names = {"alternatives": "alternative", "factors": "factor combination",
                 "builds": "build", "executions": "execution", "machines": "machine"}
        shape = " x ".join(f"{n} {names[k]}{'s' if n != 1 else ''}" for k, n in numbers.items())
        key = max(numbers, key=lambda k: numbers[k])
        if key == "executions" and e.warmup_executions > e.executions:
            key = "warmup.executions"
        raise InputError(f"the plan has {total} trials ({shape}), more than the limit of "
                         f"{limit}; lower {key} or set {MAX_TRIALS_VAR} to raise the limit",
                         e.where(*key.split(".")))
    per_execution = e.warmup_iterations + e.iterations
    limit = _limit(MAX_ITERATIONS_VAR, MAX_ITERATIONS)
    if per_execution > limit:
        key = "iterations" if e.iterations >= e.warmup_iterations else "warmup.iterations"
        raise InputError(f"each execution must print {per_execution} iterations, more than "
                         f"the limit of {limit}; lower {key} or set {MAX_ITERATIONS_VAR} to "
                         "raise the limit", e.where(*key.split(".")))


def make_plan(e: Experiment, seed: int) -> list[Trial]:
    """All trials of the experiment in run order (`seed` draws the interleaved order, as
    numpy.random.default_rng(seed).permutation would); refused by check_size first when they
    would be absurdly many. Without [machines] and with role "factor" without build steps the
    draws are those of a plan without machines. A plan of fewer than permutation.NUMPY_FROM
    trials is drawn without importing numpy, a larger one by numpy: the same order either way."""
    check_size(e)
    rng = permutation.generator(seed, plan_size(e)[0])
    with gc_paused():
        return _make_plan(e, rng)


def _make_plan(e: Experiment, rng: Permutations | NumpyPermutations) -> list[Trial]:
    layout = _Layout(e)
    out: list[Trial] = []
    if e.order == "sequential":
        _sequential(e, layout, out)
        return out
    built = [a.name for a in e.alternatives if a.build is not None]
    steps = [(a, m) for a in built for m in layout.build_machines]
    runs = [(cell, m) for cell in layout.cells for m in layout.run_machines(cell)]
    switched = {s.name for s in e.states if s.switched}
    last = None
    rnd = 0
    for b in range(1, e.builds + 1):
        if steps:
            rnd += 1
            for i in rng.permutation(len(steps)):
                a, m = steps[i]
                out.append(Trial(len(out) + 1, rnd, "build", a, (), layout.build(b, m), 0,
                                 False, m))
        for x in range(1, layout.per_build + 1):
            kinds = _kinds(e, x)
            if not kinds:
                continue
            rnd += 1
            # timed and counted trials of the round drawn into one order (without a counter
            # the draws are those of timed executions alone)
            batch = [(run, kind) for kind in kinds for run in runs]
            order = rng.permutation(len(batch))
            if e.order == "blocked":
                order, last = _blocked([run for run, _ in batch], order, switched, last, rng)
            for i in order:
                ((name, factors), m), kind = batch[i]
                out.append(Trial(len(out) + 1, rnd, kind, name, factors,
                                 layout.build(b, m), x, x <= layout.warm, m))
    return out


def state_key(trial_factors: tuple[tuple[str, str], ...], switched: set[str]
              ) -> tuple[tuple[str, str], ...]:
    """The levels of the factors that switch system state, in a cell's factors."""
    return tuple(kv for kv in trial_factors if kv[0] in switched)


def _blocked(runs: list, order: list[int], switched: set[str], last,
             rng: Permutations | NumpyPermutations
             ) -> tuple[list[int], tuple | None]:
    """A round's trials grouped by system state (order = "blocked"): the states in a random
    order, the one left in force by the previous round first (one switch saved per round),
    and within each state the round's random order. The state the round ends in."""
    blocks: dict[tuple, list[int]] = {}
    for i in order:
        blocks.setdefault(state_key(runs[i][0][1], switched), []).append(i)
    keys = list(blocks)
    keys = [keys[j] for j in rng.permutation(len(keys))]
    if last in blocks:
        keys.remove(last)
        keys.insert(0, last)
    return [i for key in keys for i in blocks[key]], keys[-1]


class _Layout:
    """Where the trials of a plan run and which build they belong to: the cells, the
    machines of build steps and of each cell's executions, and the build numbers."""

    def __init__(self, e: Experiment) -> None:
        self.cells = cells(e)
        self.per_build = e.warmup_executions + e.executions
        self.warm = e.warmup_executions
        machines = e.machines.names if e.machines is not None else ()
        self.level = e.machines is not None and e.machines.level
        self.build_machines: tuple[str | None, ...] = machines or (None,)
        self.index = {m: i for i, m in enumerate(machines)}
        self.count = len(machines) if self.level else 1
        self.machine_factor = MACHINE_FACTOR in e.factor_names

    def run_machines(self, cell) -> tuple[str | None, ...]:
        """The machines a cell runs on: all of them with role "level", its `machine` factor
        with role "factor", none without machines."""
        if self.level:
            return self.build_machines
        if not self.machine_factor:  # no cell has one (50,000 cells need no dict each)
            return (None,)
        return (dict(cell[1]).get(MACHINE_FACTOR),)

    def build(self, b: int, machine: str | None) -> int:
        """Build round b's number on `machine`: b, or with role "level" (b-1)·M + i (machine i
        of M, from 1), so that build numbers are unique across machines."""
        if not self.level or machine is None:
            return b
        return (b - 1) * self.count + self.index[machine] + 1


def _sequential(e: Experiment, layout: _Layout, out: list[Trial]) -> None:
    """All trials of one alternative (per build and machine: its build step, then its cells'
    executions on that machine) before the next alternative's."""
    rnd = 0
    for a in e.alternatives:
        for b in range(1, e.builds + 1):
            for m in layout.build_machines:
                build = layout.build(b, m)
                if a.build is not None:
                    rnd += 1
                    out.append(Trial(len(out) + 1, rnd, "build", a.name, (), build, 0, False, m))
                for name, factors in layout.cells:
                    if name != a.name or m not in layout.run_machines((name, factors)):
                        continue
                    kinds = [_kinds(e, x) for x in range(1, layout.per_build + 1)]
                    for kind in ("execution", "count"):
                        for x in range(1, layout.per_build + 1):
                            if kind in kinds[x - 1]:
                                rnd += 1
                                out.append(Trial(len(out) + 1, rnd, kind, name, factors, build,
                                                 x, x <= layout.warm, m))


def machine_of(trial: Trial) -> str | None:
    """The machine a trial runs on: `trial.machine`, else (a store made before trials had a
    machine column) its `machine` factor; None for any worker."""
    if trial.machine is not None:
        return trial.machine
    return dict(trial.factors).get(MACHINE_FACTOR)


def build_key(trial: Trial) -> tuple[str, int, str | None]:
    """The build a trial belongs to: (alternative, build, machine) — with machines, build b
    of an alternative exists once per machine."""
    return trial.alternative, trial.build, machine_of(trial)


def values_for(e: Experiment, trial: Trial) -> dict[str, str]:
    """The placeholder values of a trial: its factors, alternative, build, iterations, and
    machine when it has one."""
    values = {**dict(trial.factors), "alternative": trial.alternative,
              "build": str(trial.build), "iterations": str(e.warmup_iterations + e.iterations)}
    machine = machine_of(trial)
    if machine is not None:
        values[MACHINE_FACTOR] = machine
    return values


def command_for(e: Experiment, trial: Trial) -> Command:
    """The command a trial runs, placeholders substituted."""
    alternative = e.alternative(trial.alternative)
    command = alternative.build if trial.kind == "build" else alternative.command
    assert command is not None
    return command if command.literal else command.substitute(values_for(e, trial))


def env_for(e: Experiment, trial: Trial) -> dict[str, str]:
    """The variables a trial adds to the environment (experiment's, then alternative's)."""
    variables = (*e.env, *e.alternative(trial.alternative).env)
    if not variables:  # the usual case: nothing to substitute for every execution
        return {}
    values = values_for(e, trial)
    from benchlab.runner.config import substitute

    return {k: substitute(v, values) for k, v in variables}


def cwd_for(e: Experiment, trial: Trial) -> str:
    alternative = e.alternative(trial.alternative)
    return alternative.cwd or e.cwd


def estimate_seconds(trials: list[Trial], durations: dict[tuple, float]) -> float | None:
    """Sum of the typical duration of each trial's kind and cell (None if one is unknown)."""
    total = 0.0
    for t in trials:
        key = (t.kind, t.alternative, t.factors if t.kind == "execution" else ())
        if key not in durations:
            return None
        total += durations[key]
    return total
