"""Replicates at the right level: the means of a hierarchy's units instead of its measurements.

The iterations of one execution share that execution's state (its memory
layout, its JIT decisions, the machine's moment) and so are not independent
replicates of their cell; neither are the executions of one build. Kalibera &
Jones's random-effects model (STATS.md §5) puts the uncertainty of a mean in
its top-level units: a test or an ANOVA that counts measurements as replicates
reports CIs and p-values far too narrow. `unit_means` turns long data into one
row per unit of a chosen level: a unit's mean is the mean of its children's
means (every child weighs the same, STATS.md §5 on unbalanced data).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from benchlab.errors import UsageError

LEVEL_CHOICES = ("top", "build", "execution", "measurement")


@dataclass(frozen=True)
class Units:
    """Rows of unit means: `columns` (the key and level columns of each unit, and the
    mean under `value`), the level they are means of, and where each unit's first row was."""

    columns: dict[str, np.ndarray]
    level: str
    first_rows: np.ndarray
    measurements: int

    @property
    def values(self) -> np.ndarray:
        return self.columns["value"]


def _group(key_columns: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(index of each group's first row, in order of appearance; group of every row)."""
    table = np.stack([np.asarray(c).astype(str) for c in key_columns], axis=1)
    _, first, inverse = np.unique(table, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    order = np.argsort(first, kind="stable")  # groups numbered by first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return first[order], rank[inverse]


def unit_means(columns: Mapping[str, np.ndarray], value: str, keys: Sequence[str],
               levels: Sequence[str], level: str) -> Units:
    """One row per unit of `level` (one of `levels`, highest first): its mean of means.

    keys: columns that, with the level columns, identify a unit (the factors: build 1
    of one cell is not build 1 of another). The lowest units (every level) are
    averaged first, then each level up to `level`.
    """
    levels = list(levels)
    if level not in levels:
        raise UsageError(f"no level {level!r} in the data (levels: "
                         f"{', '.join(levels) or 'none'})")
    depth = levels.index(level) + 1
    x = np.asarray(columns[value], dtype=np.float64)
    rows = np.arange(x.size)
    for d in range(len(levels), depth - 1, -1):
        cols = [np.asarray(columns[k])[rows] for k in (*keys, *levels[:d])]
        first, group = _group(cols) if cols else (np.array([0]), np.zeros(x.size, int))
        x = np.bincount(group, weights=x) / np.bincount(group)
        rows = rows[first]
    out = {k: np.asarray(columns[k])[rows] for k in (*keys, *levels[:depth])}
    out["value"] = x
    return Units(out, level, rows, int(np.asarray(columns[value]).size))


def resolve_level(choice: str | None, levels: Sequence[str]) -> str:
    """The level to analyse: the top one by default; `measurement` keeps every value."""
    choice = choice or "top"
    if choice not in LEVEL_CHOICES:
        raise UsageError(f"--unit-level wants one of {', '.join(LEVEL_CHOICES)}, not "
                         f"{choice!r}")
    if choice == "measurement" or not levels:
        return "measurement"
    if choice == "top":
        return levels[0]
    if choice not in levels:
        raise UsageError(f"--unit-level {choice}: the data have no {choice} level (levels: "
                         f"{', '.join(levels)})")
    return choice


def describe_units(units: Units, per_cell: str) -> str:
    """'the 3 build means of each cell (45 measurements averaged per unit level)' wording."""
    n = units.values.size
    return (f"analysed {n} {units.level} means ({per_cell}), not the {units.measurements} "
            f"measurements: the measurements of one {units.level} are not independent "
            "replicates")


def sample_units(sample, levels: Sequence[str], level: str, keys: Sequence[str] = ()):
    """A Sample (data/samples.py) of the unit means of `level`, keeping the `keys` columns
    (a suite's benchmark column) and the levels above it."""
    from benchlab.data.dataset import Dataset
    from benchlab.data.samples import Sample

    d = sample.dataset
    units = unit_means(d.columns, d.value, list(keys), levels, level)
    above = tuple(levels[:list(levels).index(level)])
    dataset = Dataset(units.columns, "value", (), above, d.metric, d.unit, d.source, None,
                      None, d.ordered)
    return Sample(sample.name, units.values, dataset)
