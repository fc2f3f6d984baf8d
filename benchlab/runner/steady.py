"""[steady_state]: an execution iterates until it has reached a steady state.

While an execution runs, its parsed values arrive row by row (runner/execute's
OutputParser). A SteadyWatch looks at the chosen metric's measured iterations
(after any fixed [warmup] iterations) every `check_every` new ones (a tenth of the
iterations so far once that is more) and classifies
them as `benchlab warmup` does (stats/warmup.classify_execution: PELT on mean and
variance, the steady state the last segment, covering at least the last 1/6).
Once the steady state holds the iterations asked for, the watch says stop and the
runner ends the process; an execution that gets there never runs to the maximum
(the experiment's `iterations`). When the execution has ended, `steady_start`
classifies everything it printed once more: the iterations before the start are
flagged warm-up in the store, so every analysis reads the steady state only, and
the first measured iteration is where it started (docs/experiment-file.md).
"""

from __future__ import annotations

import math

from benchlab.runner.config import Experiment, SteadyState
from benchlab.stats.warmup_defaults import MIN_ITERATIONS


def check_every(steady: SteadyState) -> int:
    """New iterations between two classifications: a tenth of the steady iterations asked
    for (at least 5), or a tenth of the iterations so far when that is more (SteadyWatch),
    so the checks cost little beside the iterations they wait for."""
    return max(5, math.ceil(steady.iterations / 10))


def reached(values, steady: SteadyState) -> int | None:
    """The steady state's start when the values (measured iterations in order) have one
    holding at least steady.iterations iterations; else None."""
    if len(values) < max(MIN_ITERATIONS, steady.iterations):
        return None
    from benchlab.stats.warmup import classify_execution

    start = classify_execution(values).steady_start
    if start is None or len(values) - start < steady.iterations:
        return None
    return start


class SteadyWatch:
    """The parser's `watch`: called with the rows parsed so far, True once the execution's
    steady state holds the iterations asked for (then the runner ends it)."""

    def __init__(self, e: Experiment) -> None:
        assert e.steady is not None
        self.steady, self.skip = e.steady, e.warmup_iterations
        self.every = check_every(e.steady)
        self.checked = 0

    def __call__(self, rows: list[dict[str, float]]) -> bool:
        measured = len(rows) - self.skip
        if measured - self.checked < max(self.every, self.checked // 10):
            return False  # the checks thin out as the execution grows: O(n log n) in all
        self.checked = measured
        values = [r[self.steady.metric] for r in rows[self.skip:]
                  if self.steady.metric in r]
        return reached(values, self.steady) is not None


def steady_start(e: Experiment, rows: list[dict[str, float]]) -> int | None:
    """The steady state's start (0-based among the measured iterations) of a finished
    execution's rows, classified once more on all of them; None without a steady state
    holding the iterations asked for (or with too few iterations to classify)."""
    assert e.steady is not None
    values = [r[e.steady.metric] for r in rows[e.warmup_iterations:] if e.steady.metric in r]
    return reached(values, e.steady)


def unsteady_warning(e: Experiment, trial, rows: list[dict[str, float]]) -> str | None:
    """The warning for an execution that reached no steady state holding the iterations
    asked for before its maximum (None when it did)."""
    assert e.steady is not None
    if steady_start(e, rows) is not None:
        return None
    n = max(0, len(rows) - e.warmup_iterations)
    return (f"trial {trial.seq} ({trial.label()}, build {trial.build}, execution "
            f"{trial.execution}) reached no steady state of {e.steady.iterations} "
            f"iterations in its {n}; all of them are kept as measured")
