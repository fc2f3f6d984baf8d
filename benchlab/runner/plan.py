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
from dataclasses import dataclass

from benchlab.runner.config import Command, Experiment


@dataclass(frozen=True)
class Trial:
    """One unit of work: a build step, or one execution (a process) of a cell in a build.

    `execution` counts the warm-up executions first (1..warm-up are warm-up);
    it is 0 for a build step. `seq` is the 1-based position in the run order.
    """

    seq: int
    round: int
    kind: str  # "build" or "execution"
    alternative: str
    factors: tuple[tuple[str, str], ...]
    build: int
    execution: int
    warmup: bool

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
    return [(a.name, tuple(zip(names, combo, strict=True))) for a in e.alternatives
            for combo in combos]


def make_plan(e: Experiment, seed: int) -> list[Trial]:
    """All trials of the experiment in run order (`seed` draws the interleaved order)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    all_cells = cells(e)
    built = [a.name for a in e.alternatives if a.build is not None]
    per_build = e.warmup_executions + e.executions
    out: list[tuple[int, str, str, tuple, int, int, bool]] = []
    if e.order == "sequential":
        rnd = 0
        for a in e.alternatives:
            for b in range(1, e.builds + 1):
                if a.build is not None:
                    rnd += 1
                    out.append((rnd, "build", a.name, (), b, 0, False))
                for name, factors in all_cells:
                    if name != a.name:
                        continue
                    for x in range(1, per_build + 1):
                        rnd += 1
                        out.append((rnd, "execution", name, factors, b, x,
                                    x <= e.warmup_executions))
    else:
        rnd = 0
        for b in range(1, e.builds + 1):
            if built:
                rnd += 1
                for i in rng.permutation(len(built)):
                    out.append((rnd, "build", built[i], (), b, 0, False))
            for x in range(1, per_build + 1):
                rnd += 1
                for i in rng.permutation(len(all_cells)):
                    name, factors = all_cells[i]
                    out.append((rnd, "execution", name, factors, b, x,
                                x <= e.warmup_executions))
    return [Trial(k, *t) for k, t in enumerate(out, start=1)]


def values_for(e: Experiment, trial: Trial) -> dict[str, str]:
    """The placeholder values of a trial: its factors, alternative, build, iterations."""
    return {**dict(trial.factors), "alternative": trial.alternative, "build": str(trial.build),
            "iterations": str(e.warmup_iterations + e.iterations)}


def command_for(e: Experiment, trial: Trial) -> Command:
    """The command a trial runs, placeholders substituted."""
    alternative = next(a for a in e.alternatives if a.name == trial.alternative)
    command = alternative.build if trial.kind == "build" else alternative.command
    assert command is not None
    return command.substitute(values_for(e, trial))


def env_for(e: Experiment, trial: Trial) -> dict[str, str]:
    """The variables a trial adds to the environment (experiment's, then alternative's)."""
    alternative = next(a for a in e.alternatives if a.name == trial.alternative)
    values = values_for(e, trial)
    from benchlab.runner.config import substitute

    return {k: substitute(v, values) for k, v in (*e.env, *alternative.env)}


def cwd_for(e: Experiment, trial: Trial) -> str:
    alternative = next(a for a in e.alternatives if a.name == trial.alternative)
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
