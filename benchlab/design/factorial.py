"""Full factorial designs (2^k and general) with replicates and a reproducible run order.

Cells are listed in standard (Yates) order, first factor changing fastest
(STATS.md §8, `benchlab.stats.coding.yates_cells`). The run order is one of
"random" (every run shuffled with `numpy.random.default_rng(seed)`), "blocks"
(each replicate is a block holding every cell once, shuffled within the block:
repeats of a cell are never back to back in the same block) or "standard"
(Yates order, replicate by replicate). Each run keeps a stable id — the cell
number in standard order and the replicate, "03-2" — whatever the order.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchlab.errors import ParameterError, UsageError
from benchlab.result import Result

ORDERS = ("random", "blocks", "standard")
RESERVED = ("run", "id", "replicate")
MAX_RUNS = 1_000_000
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")


@dataclass(frozen=True)
class Factor:
    """A factor and its levels; the first level is the low (-1) one of a two-level factor."""

    name: str
    levels: tuple[str, ...]


@dataclass(frozen=True)
class Run:
    """One run of the plan: its position, stable id, cell (standard order, 0-based), replicate."""

    run: int
    id: str
    cell: int
    replicate: int
    levels: tuple[str, ...]


@dataclass(frozen=True)
class Design(Result):
    """A full factorial design and its run order."""

    factors: tuple[Factor, ...]
    replicates: int
    order: str
    seed: int | None
    runs: tuple[Run, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.factors)

    @property
    def level_counts(self) -> tuple[int, ...]:
        return tuple(len(f.levels) for f in self.factors)

    @property
    def n_cells(self) -> int:
        return int(np.prod(self.level_counts))

    @property
    def two_level(self) -> bool:
        return all(c == 2 for c in self.level_counts)

    def cells(self) -> list[tuple[str, ...]]:
        """The level names of every cell in standard order."""
        from benchlab.stats.coding import yates_cells

        return [tuple(f.levels[i] for f, i in zip(self.factors, row, strict=True))
                for row in yates_cells(self.level_counts)]

    def sign_table(self) -> tuple[np.ndarray, list[str]]:
        """Jain's sign table (cells × I, A, B, AB, ...) and its column letters; 2^k only."""
        from benchlab.stats.coding import sign_table, term_letters

        if not self.two_level:
            many = [f.name for f in self.factors if len(f.levels) != 2]
            raise UsageError(f"a sign table needs two-level factors; {many[0]!r} has "
                             f"{len(self.factors[self.names.index(many[0])].levels)} levels")
        matrix, terms = sign_table(len(self.factors))
        return matrix.astype(np.int64), [term_letters(t) for t in terms]

    def rows(self) -> list[dict[str, Any]]:
        """The plan as CSV rows: run, id, one column per factor, replicate."""
        return [{"run": r.run, "id": r.id, **dict(zip(self.names, r.levels, strict=True)),
                 "replicate": r.replicate} for r in self.runs]



def parse_factor(text: str) -> Factor:
    """'sched=BFS,CFS' → Factor('sched', ('BFS', 'CFS')), refusing what cannot be a factor."""
    name, sep, rest = text.partition("=")
    name = name.strip()
    if not sep or not name:
        raise ParameterError(f"{{param}} wants NAME=LEVEL,LEVEL,...: {text!r}", "factor")
    levels = tuple(level.strip() for level in rest.split(","))
    if any(not level for level in levels):
        raise UsageError(f"factor {name!r} has an empty level name: {text!r}")
    return make_factor(name, levels)


def make_factor(name: str, levels: Sequence[Any]) -> Factor:
    """A checked Factor: a usable column name, two or more distinct levels."""
    if not _NAME.match(name):
        raise UsageError(f"factor name {name!r} is not a column name (letters, digits, _ . -)")
    if name in RESERVED:
        raise UsageError(f"factor name {name!r} is taken by a plan column "
                         f"({', '.join(RESERVED)})")
    names = tuple(str(level) for level in levels)
    if any("," in x or not x.strip() for x in names):
        raise UsageError(f"factor {name!r}: a level name is empty or contains a comma")
    if len(names) < 2:
        raise UsageError(f"factor {name!r} has a single level ({', '.join(names) or 'none'}): "
                         "a factor needs two or more levels")
    dup = sorted({x for x in names if names.count(x) > 1})
    if dup:
        raise UsageError(f"factor {name!r} lists level {dup[0]!r} twice")
    return Factor(name, names)


def _order(n_cells: int, replicates: int, order: str, seed: int) -> np.ndarray:
    """Run order as indices into the standard plan (cell fastest, then replicate)."""
    n = n_cells * replicates
    if order == "standard":
        return np.arange(n)
    rng = np.random.default_rng(seed)
    if order == "random":
        return rng.permutation(n)
    offsets = np.arange(replicates)[:, None] * n_cells
    return (rng.permuted(np.tile(np.arange(n_cells), (replicates, 1)), axis=1)
            + offsets).ravel()


def full_factorial(factors: Sequence[Factor | tuple[str, Sequence[Any]]], *,
                   replicates: int = 1, order: str = "random",
                   seed: int | None = None) -> Design:
    """Every combination of the factors' levels, `replicates` times, in the chosen run order.

    A seed is drawn (and recorded) when none is given and the order is random.
    """
    facs = tuple(f if isinstance(f, Factor) else make_factor(f[0], f[1]) for f in factors)
    if not facs:
        raise ParameterError("give at least one factor ({param})", "factors", option="--factor")
    names = [f.name for f in facs]
    dup = sorted({x for x in names if names.count(x) > 1})
    if dup:
        raise UsageError(f"factor {dup[0]!r} is given twice")
    if order not in ORDERS:
        raise UsageError(f"unknown run order {order!r} (known: {', '.join(ORDERS)})")
    if replicates < 1:
        raise ParameterError(f"{{param}} must be 1 or more: {replicates}", "replicates")
    n_cells = int(np.prod([len(f.levels) for f in facs], dtype=object))
    if n_cells * replicates > MAX_RUNS:
        raise UsageError(f"{n_cells} cells × {replicates} replicates = "
                         f"{n_cells * replicates} runs; more than {MAX_RUNS} is not a plan")
    if order == "standard":
        seed = None
    elif seed is None:
        seed = int(np.random.SeedSequence().entropy % 2**32)
    from benchlab.stats.coding import yates_cells

    cells = yates_cells([len(f.levels) for f in facs])
    width = len(str(n_cells))
    runs = []
    for position, index in enumerate(_order(n_cells, replicates, order, seed or 0), start=1):
        cell, rep = int(index % n_cells), int(index // n_cells) + 1
        levels = tuple(f.levels[i] for f, i in zip(facs, cells[cell], strict=True))
        runs.append(Run(position, f"{cell + 1:0{width}d}-{rep}", cell, rep, levels))
    return Design(facs, int(replicates), order, seed, tuple(runs))
