"""A table of factors and a numeric response, as `anova` and `qreg` read it.

Any input the readers understand (CSV/TSV, the runner's store) becomes a
numeric response column plus, per factor, its level names and the level code
of every row. Level order decides the ±1 coding (first level -1): by default
the order a `# factor NAME=L1,L2,...` comment line in the file declares (as
`benchlab design` writes it), else numeric order for numbers and alphabetical
order otherwise (R's factor order), so a randomized run order never flips the
sign of an effect; `level_order` overrides both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from benchlab.errors import InputError, UsageError
from benchlab.units import Unit


@dataclass(frozen=True)
class FactorTable:
    """response (n,), codes (n, k) level indices, levels per factor, every column by name."""

    response: np.ndarray
    response_name: str
    factors: tuple[str, ...]
    levels: tuple[tuple[str, ...], ...]
    codes: np.ndarray
    columns: Mapping[str, np.ndarray]
    source: str
    lines: np.ndarray | None
    unit: Unit

    def __len__(self) -> int:
        return len(self.response)

    @property
    def level_counts(self) -> tuple[int, ...]:
        return tuple(len(levels) for levels in self.levels)

    @property
    def two_level(self) -> bool:
        """Every factor has exactly two levels (a 2^k design)."""
        return all(count == 2 for count in self.level_counts)

    def cell_index(self) -> np.ndarray:
        """The standard-order cell of each row (first factor fastest)."""
        from benchlab.stats.coding import cell_index

        return cell_index(self.codes, self.level_counts)

    def cell_label(self, cell: int) -> str:
        """'sched=BFS, machine=p4' for a standard-order cell number."""
        parts = []
        for name, levels in zip(self.factors, self.levels, strict=True):
            parts.append(f"{name}={levels[cell % len(levels)]}")
            cell //= len(levels)
        return ", ".join(parts)

    def cell_counts(self) -> np.ndarray:
        """Rows per cell in standard order (zeros for empty cells)."""
        return np.bincount(self.cell_index(), minlength=int(np.prod(self.level_counts)))

    def column(self, name: str) -> np.ndarray:
        """A column by name, refusing one the table does not have."""
        if name not in self.columns:
            have = ", ".join(c for c in self.columns if c != "sample")
            raise UsageError(f"no column {name!r} (columns: {have})", self.source)
        return self.columns[name]


def _numeric_key(labels: Sequence[str]) -> list[float] | None:
    try:
        return [float(label) for label in labels]
    except ValueError:
        return None


def ordered_levels(name: str, column: np.ndarray, given: Sequence[str] | None,
                    source: str) -> tuple[tuple[str, ...], np.ndarray]:
    labels = column.astype(str)
    uniques, inverse = np.unique(labels, return_inverse=True)
    present = uniques.tolist()
    if given is not None:
        order = [str(level) for level in given]
        unknown = sorted(set(present) - set(order))
        if unknown:
            raise InputError(f"factor {name!r} has level {unknown[0]!r}, not among the levels "
                             f"given ({', '.join(order)})", source)
        if len(set(order)) != len(order):
            raise UsageError(f"factor {name!r}: a level is given twice ({', '.join(order)})")
    else:
        keys = _numeric_key(present)
        order = ([p for _, p in sorted(zip(keys, present, strict=True))] if keys is not None
                 else present)
    if len(order) < 2:
        raise InputError(f"factor {name!r} has a single level ({order[0]!r}): its effect cannot "
                         "be estimated; drop it from --factors", source)
    lookup = {level: i for i, level in enumerate(order)}
    codes = np.array([lookup[level] for level in present], dtype=np.int64)[inverse.ravel()]
    return tuple(order), codes


def declared_level_orders(path: str) -> dict[str, list[str]]:
    """Level orders from `# factor NAME=L1,L2,...` comment lines at the top of a text file."""
    from benchlab.data.source import open_source

    if path == "-":
        return {}
    try:
        lines = open_source(path).lines
    except Exception:  # noqa: BLE001 - unreadable here means the reader will say why
        return {}
    out: dict[str, list[str]] = {}
    for line in lines:
        text = line.strip()
        if text and not text.startswith("#"):
            break
        body = text.lstrip("#").strip()
        if body.startswith("factor "):
            name, sep, levels = body[len("factor "):].partition("=")
            if sep and name.strip():
                out[name.strip()] = [level.strip() for level in levels.split(",")]
    return out


def load_factor_table(path: str, response: str, factors: Sequence[str], *,
                      format: str | None = None,
                      level_order: Mapping[str, Sequence[str]] | None = None,
                      unit: str | None = None, metric: str | None = None) -> FactorTable:
    """Read `path` and code its factor columns; one-line errors for every bad input.
    `metric`: the metric to read (a store's, or the rows of a table's `metric` column)."""
    from benchlab.data import readers

    factors = tuple(factors)
    if not factors:
        raise UsageError("name at least one factor column with --factors")
    if len(set(factors)) != len(factors):
        raise UsageError(f"a factor is named twice in --factors ({', '.join(factors)})")
    if response in factors:
        raise UsageError(f"column {response!r} is the response and cannot also be a factor")
    data = readers.read(path, format=format, value=response, unit=unit, metric=metric)
    if data.value != response:
        raise UsageError(f"no response column {response!r} in {data.source}")
    data.check_finite()
    real = [c for c in data.columns if c != "sample" or "sample" in factors]
    for name in factors:
        if name not in data.columns or name not in real:
            raise UsageError(f"no factor column {name!r} (columns: {', '.join(real)})",
                             data.source)
    declared = declared_level_orders(path) if format in (None, "table", "csv", "tsv") else {}
    order = {name: levels for name, levels in declared.items() if name in factors}
    order.update(level_order or {})
    unknown = sorted(set(order) - set(factors))
    if unknown:
        raise UsageError(f"level order given for {unknown[0]!r}, which is not in --factors")
    levels, codes = [], []
    for name in factors:
        names, code = ordered_levels(name, data.columns[name], order.get(name), data.source)
        levels.append(names)
        codes.append(code)
    return FactorTable(response=np.asarray(data.values, dtype=np.float64),
                       response_name=response, factors=factors, levels=tuple(levels),
                       codes=np.stack(codes, axis=1), columns=data.columns,
                       source=data.source, lines=data.lines, unit=data.unit)
