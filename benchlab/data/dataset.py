"""The Dataset: a tidy table with one row per measurement (docs/architecture.md: data layer).

Columns are numpy arrays: the value column as float64, factor and level columns
as arrays of strings. A Dataset knows which columns are factors, which are
levels of the random-effects hierarchy (highest first), the metric and its
unit, and where each row came from (file and line) so errors can point there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from benchlab.errors import InputError
from benchlab.units import Unit, make_unit


@dataclass(frozen=True)
class Dataset:
    """Measurements in long form.

    columns: every column by name; `value` names the numeric measurement column.
    factors: fixed-effect columns (e.g. `sample`, `system`, `benchmark`).
    levels: random-effect columns, highest first (e.g. `build`, `run`).
    lines: the source line of each row (1-based), for messages.
    default_by: the column that names the samples when the user gives no --by
    (a foreign format's commands or benchmarks); None for plain files and CSV.
    ordered: whether the rows within each lowest-level unit are in the order
    they were measured (False for JMH sample-mode histograms, sorted by value),
    which the time-order diagnostics need.
    synthetic: columns the reader made up that are not in the file (the
    `sample` column naming a plain file's values), left out of column lists.
    """

    columns: Mapping[str, np.ndarray]
    value: str = "value"
    factors: tuple[str, ...] = ()
    levels: tuple[str, ...] = ()
    metric: str | None = None
    unit: Unit = field(default_factory=lambda: make_unit(None))
    source: str = ""
    lines: np.ndarray | None = None
    default_by: str | None = None
    ordered: bool = True
    synthetic: tuple[str, ...] = ()

    def to_frame(self):
        """The table as a pandas DataFrame, one row per measurement (pandas imported here)."""
        try:
            import pandas as pd
        except ModuleNotFoundError:
            raise ModuleNotFoundError("to_frame() needs pandas: python3 -m pip install "
                                      "'benchlab[pandas]'") from None
        return pd.DataFrame({name: np.asarray(col) for name, col in self.columns.items()})

    def __post_init__(self) -> None:
        lengths = {name: len(col) for name, col in self.columns.items()}
        if len(set(lengths.values())) > 1:
            raise ValueError(f"columns of different lengths: {lengths}")
        for name in (self.value, *self.factors, *self.levels):
            if name not in self.columns:
                raise ValueError(f"no column {name!r}")

    def __len__(self) -> int:
        return len(self.columns[self.value])

    @property
    def file_columns(self) -> list[str]:
        """The columns that are in the file (for messages that list them)."""
        return [c for c in self.columns if c not in self.synthetic]

    @property
    def values(self) -> np.ndarray:
        return self.columns[self.value]

    def group_names(self, by: str) -> list[str]:
        """The distinct values of column `by`, in order of first appearance."""
        column = self.columns[by]
        _, first = np.unique(column, return_index=True)
        return [str(column[i]) for i in sorted(first)]

    def split(self, by: str) -> list[tuple[str, Dataset]]:
        """One Dataset per value of `by`, in order of first appearance."""
        column = self.columns[by]
        # One stable sort, not a mask per group: 10,000 groups would cost O(groups × rows).
        uniques, first, inverse = np.unique(column, return_index=True, return_inverse=True)
        order = np.argsort(inverse.ravel(), kind="stable")  # rows of each group, in file order
        ends = np.cumsum(np.bincount(inverse.ravel(), minlength=uniques.size))
        out = []
        for g in np.argsort(first, kind="stable"):
            rows = order[(ends[g - 1] if g else 0):ends[g]]
            name = str(column[first[g]])
            cols = {k: v[rows] for k, v in self.columns.items()}
            lines = self.lines[rows] if self.lines is not None else None
            out.append((name, Dataset(cols, self.value, self.factors, self.levels,
                                      self.metric, self.unit, self.source, lines,
                                      self.default_by, self.ordered, self.synthetic)))
        return out

    @classmethod
    def from_values(
        cls,
        values: Sequence[float] | np.ndarray,
        name: str = "sample",
        *,
        unit: Unit | None = None,
        source: str = "",
        lines: Sequence[int] | None = None,
    ) -> Dataset:
        """A one-sample Dataset with the single factor `sample` = name."""
        array = np.asarray(values, dtype=float)
        factor = np.full(array.shape, name, dtype=object)
        return cls(
            {"sample": factor, "value": array},
            factors=("sample",),
            unit=unit or make_unit(None),
            source=source or name,
            lines=None if lines is None else np.asarray(lines, dtype=np.int64),
            synthetic=("sample", "value"),
        )

    def check_finite(self) -> None:
        """Refuse NaN and infinite values, naming the first offending row."""
        bad = ~np.isfinite(self.values)
        if bad.any():
            i = int(np.argmax(bad))
            where = self.source
            if self.lines is not None:
                where = f"{self.source}:{int(self.lines[i])}"
            raise InputError(f"value {float(self.values[i])} is not a finite number", where)
