"""Samples cut at each execution's steady state: `--warmup auto` of every command.

One implementation for compare, report, summary, plan and history add (and the
executions `benchlab warmup` classifies): a sample's rows are grouped into
executions by its level columns (the rows with the same value of every level
column, and of the `within` columns that separate them further: a suite's
benchmark, a history's commit, a store's trial), each in file order; each is
classified by stats/warmup.classify_execution with the settings of the spec's
WarmupCut, and cut at the start of its steady state. An execution without one is
kept whole or left out (WarmupCut.no_steady_state) and named in a warning. The
SteadyStateCut says, per sample, how many iterations were cut (docs/warmup.md).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from benchlab.data.samples import Sample
from benchlab.errors import InputError
from benchlab.stats.spec import WarmupCut
from benchlab.stats.warmup_defaults import MIN_ITERATIONS


@dataclass(frozen=True)
class ExecutionCut:
    """One execution: its level values, iterations, class, steady start (0-based within
    the execution; None without a steady state), the row of its sample (before the cut)
    where it begins and where its steady state begins (None without one), and where the
    data records them (a store) its trial and the iteration number its steady state
    starts at (the report's run-order plot marks the cut there)."""

    levels: tuple[tuple[str, str], ...]
    iterations: int
    kind: str
    steady_start: int | None
    first_row: int
    start_row: int | None
    trial: str | None = None
    start_iteration: str | None = None

    def label(self) -> str:
        """'fork 3' or 'build 1, run 2'."""
        return ", ".join(f"{k} {v}" for k, v in self.levels)


@dataclass(frozen=True)
class SampleCut:
    """What the cut did to one sample: its executions, the iterations before their steady
    states' starts (`cut`), and those of executions without a steady state, left out
    (`dropped`, with no_steady_state "drop") or kept whole."""

    sample: str
    iterations: int
    executions: tuple[ExecutionCut, ...]
    cut: int
    dropped: int
    drop: bool

    @property
    def without(self) -> tuple[ExecutionCut, ...]:
        """The executions that reach no steady state."""
        return tuple(e for e in self.executions if e.steady_start is None)

    @property
    def kept(self) -> int:
        """Iterations the analysis keeps."""
        return self.iterations - self.cut - self.dropped

    def note(self) -> str:
        """One line: how much was cut, and what became of executions without a steady
        state."""
        n = len(self.executions)
        text = (f"{self.sample}: --warmup auto cut {self.cut} of {self.iterations} iterations "
                f"at the steady states' starts ({n} execution{'s' if n != 1 else ''})")
        if self.without:
            how = (f"left out ({self.dropped} iterations)" if self.drop else "kept whole")
            text += f"; {len(self.without)} without a steady state {how}"
        return text

    def warning(self) -> str | None:
        """The executions without a steady state, named (None when there are none)."""
        if not self.without:
            return None
        names = "; ".join(e.label() or "the execution" for e in self.without[:8])
        more = f" and {len(self.without) - 8} more" if len(self.without) > 8 else ""
        how = "left out" if self.drop else "kept whole, warm-up included"
        return (f"{self.sample}: {len(self.without)} of {len(self.executions)} executions "
                f"reach no steady state ({names}{more}); {how}")

    def to_dict(self) -> dict[str, Any]:
        return {"sample": self.sample, "executions": len(self.executions),
                "iterations": self.iterations, "cut": self.cut, "kept": self.kept,
                "without_steady_state": len(self.without), "dropped": self.dropped,
                "steady_starts": [
                    {"levels": dict(e.levels), "class": e.kind,
                     "steady_start": e.steady_start, "iterations": e.iterations}
                    for e in self.executions]}


@dataclass(frozen=True)
class SteadyStateCut:
    """The cut samples and, per sample, what was cut (`samples[i]` is `cuts[i].sample`)."""

    spec: WarmupCut
    level_names: tuple[str, ...]
    samples: tuple[Sample, ...]
    cuts: tuple[SampleCut, ...]

    @property
    def notes(self) -> tuple[str, ...]:
        return tuple(c.note() for c in self.cuts)

    @property
    def warnings(self) -> tuple[str, ...]:
        return tuple(w for c in self.cuts if (w := c.warning()) is not None)

    @property
    def iterations_cut(self) -> int:
        return sum(c.cut for c in self.cuts)

    def by_trial(self) -> dict[str, str | None]:
        """trial → the iteration number its steady state starts at (None: it has none), for
        the executions whose data records them (a store's)."""
        return {e.trial: e.start_iteration for c in self.cuts for e in c.executions
                if e.trial is not None}

    def to_dict(self) -> dict[str, Any]:
        """The `warmup_cut` key of a command's JSON document."""
        return {**self.spec.to_dict(), "level_columns": list(self.level_names),
                "iterations_cut": self.iterations_cut,
                "iterations_dropped": sum(c.dropped for c in self.cuts),
                "samples": [c.to_dict() for c in self.cuts]}


def execution_rows(sample: Sample, level_names: list[str] | tuple[str, ...],
                   within: tuple[str, ...] = (), order: np.ndarray | None = None
                   ) -> list[tuple[tuple[tuple[str, str], ...], np.ndarray]]:
    """(levels, row indices) of each execution of one sample: its rows grouped by the level
    columns (and the `within` columns the sample has), in order of first appearance, each
    in file order or by `order` (a number per row). An InputError for values not in
    measurement order or an execution shorter than MIN_ITERATIONS."""
    ds = sample.dataset
    if not ds.ordered:
        raise InputError(f"{sample.name!r}: the values are not in measurement order (JMH "
                         "sample mode keeps a histogram); a warm-up analysis needs the "
                         "iterations", ds.source)
    missing = [n for n in level_names if n not in ds.columns]
    if missing:
        raise InputError(f"{sample.name!r}: no level column {missing[0]!r}", ds.source)
    names = [*level_names, *(c for c in within if c and c in ds.columns
                             and c not in level_names)]
    arrays = [np.asarray(ds.columns[n]).astype(str) for n in names]
    groups: dict[tuple[str, ...], list[int]] = {}
    for row, key in enumerate(zip(*arrays, strict=True)):
        groups.setdefault(key, []).append(row)
    out = []
    for key, rows in groups.items():
        idx = np.asarray(rows)
        if order is not None:
            idx = idx[np.argsort(order[idx], kind="stable")]
        label = tuple(zip(names, key, strict=True))
        if idx.size < MIN_ITERATIONS:
            where = ", ".join(f"{k} {v}" for k, v in label)
            raise InputError(f"{sample.name!r} {where}: {idx.size} iterations; an execution "
                             f"needs at least {MIN_ITERATIONS}", ds.source)
        out.append((label, idx))
    return out


def _at(columns, name: str, row) -> str | None:
    """The value of column `name` at `row` as text (None when there is no such column)."""
    column = columns.get(name)
    return None if column is None else str(np.asarray(column)[row])


def cut_to_steady_state(samples, level_names: list[str] | tuple[str, ...], spec: WarmupCut,
                        *, higher_is_better: bool | None = None,
                        within: tuple[str, ...] = ()) -> SteadyStateCut:
    """Each execution of each sample cut at the start of its steady state (module
    docstring). `higher_is_better`: the direction that tells warm-up from slowdown (None:
    each sample's unit's). `within`: columns that also separate executions (a suite's
    benchmark column, a history's commit column). An InputError for a sample of which
    nothing is left, or whose executions cannot be classified."""
    from benchlab.stats.warmup import classify_execution

    if not level_names:
        raise ValueError("a steady-state cut needs the level columns naming each execution")
    out, cuts = [], []
    for s in samples:
        values = np.asarray(s.values, dtype=float)
        keep = np.zeros(values.size, dtype=bool)
        execs = []
        cut = dropped = 0
        extra = tuple(within)
        if "execution" in level_names and "trial" in s.dataset.columns:
            extra += ("trial",)  # a store: one trial is one execution, whatever its case
        better = (bool(s.dataset.unit.higher_is_better) if higher_is_better is None
                  else higher_is_better)
        for label, idx in execution_rows(s, level_names, extra):
            e = classify_execution(values[idx], higher_is_better=better,
                                   penalty_factor=spec.penalty_factor,
                                   steady_fraction=spec.steady_fraction,
                                   threshold=spec.threshold, confidence=spec.confidence)
            start = e.steady_start
            if start is None:
                keep[idx] = not spec.drop
                dropped += idx.size if spec.drop else 0
            else:
                keep[idx[start:]] = True
                cut += start
            execs.append(ExecutionCut(
                label, int(idx.size), e.kind, start, int(idx[0]),
                None if start is None else int(idx[start]),
                _at(s.dataset.columns, "trial", idx[0]),
                None if start is None else _at(s.dataset.columns, "iteration", idx[start])))
        if not keep.any():
            raise InputError(f"{s.name!r}: no execution reaches a steady state, and dropping "
                             "those without one leaves nothing", s.dataset.source)
        ds = s.dataset
        subset = replace(ds, columns={k: np.asarray(v)[keep] for k, v in ds.columns.items()},
                         lines=None if ds.lines is None else ds.lines[keep])
        out.append(Sample(s.name, values[keep], subset))
        cuts.append(SampleCut(s.name, int(values.size), tuple(execs), cut, dropped,
                              spec.drop))
    return SteadyStateCut(spec, tuple(level_names), tuple(out), tuple(cuts))
