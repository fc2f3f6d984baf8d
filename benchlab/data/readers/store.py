"""benchlab's own result store: the SQLite database `benchlab run` writes (docs/run.md).

Long format, one row per measurement of a finished trial: `alternative`, the
experiment's factor columns, `build`, `execution`, `iteration`, and the value
of one metric (the experiment's first by default — `wall` for a process timed
whole, else the first named group or JSON key; `metric` chooses another).
Warm-up measurements and failed trials are left out (`benchlab export` writes
them, flagged). Samples are named by `alternative`, or, when the experiment has
factors, by a `case` column ("fast n=10") so that every combination is its own
sample. A `combination` column names the factor levels alone ("n=10"): the
benchmark of a suite compared by alternative (`benchlab compare STORE` does so
by default, data/store_design.py). `round` is the interleaving round of the
trial (`benchlab run` runs every cell once per round, so rounds are blocks) and
`trial` its place in the run order.

Machines ([machines], docs/cluster.md): with role "factor" the machine is a
factor column `machine` like any other. With role "level" (identical machines)
the reader adds a `machine` column that is not a factor: it is the level above
builds (build numbers are unique across machines, so builds nest in machines).

The levels, highest first, are the ones the data can estimate: `machine` when
some cell ran on two machines or more (role "level"), `build` when some cell
(on one machine) has two builds or more, `execution` when some build has two
executions or more and the executions hold several measurements each (a process
timed whole is itself the measurement). `--levels` overrides them as for any
format.

A bisect's store (`benchlab bisect -o`) is read by data/bisect_store.py: one sample
per commit measured. Any SQLite file sniffs as a store, so that a database which is not a benchlab
store gets that message instead of a wrong guess of another format.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchlab.data.source import Source
from benchlab.errors import InputError
from benchlab.escape import token as quoted

if TYPE_CHECKING:
    from benchlab.data.dataset import Dataset

NAME = "store"


def sniff(source: Source) -> bool:
    """A SQLite database (open_source marks it; the reader checks benchlab's schema)."""
    return bool(getattr(source, "sqlite", False))


def read(source: Source, *, metric: str | None = None, **_: object) -> Dataset:
    """The measurements of the store at source.name, for one metric."""
    import numpy as np

    from benchlab.data.dataset import Dataset
    from benchlab.runner.store import Store
    from benchlab.units import make_unit

    if not getattr(source, "sqlite", False):
        raise InputError("not a benchlab store (not a SQLite database)", source.name)
    from benchlab.runner.bisect_store import is_bisect_store

    if is_bisect_store(source.name):  # a store of benchlab bisect: a sample per commit
        from benchlab.data import bisect_store

        return bisect_store.read(source.name, metric)
    store = Store.open(source.name)
    try:
        metrics = store.metrics()
        names = [m for m, _ in metrics]
        chosen = metric if metric is not None else (names[0] if names else None)
        if chosen not in names:
            raise InputError(f"no metric {quoted(chosen)} in the store (metrics: "
                             f"{', '.join(names)})", source.name)
        unit_name = dict(metrics)[chosen]
        factor_names = store.factor_names()
        rows = store.rows(chosen)
        rounds = store.rounds() if rows else {}
        counts = store.counts()
    finally:
        store.close()
    if not rows:
        raise InputError(f"no finished measurements of {quoted(chosen)} in the store ("
                         f"{counts.get('ok', 0)} trials ok, {counts.get('failed', 0)} failed, "
                         f"{counts.get('planned', 0)} not run)", source.name)
    columns: dict[str, np.ndarray] = {
        "alternative": np.array([r.alternative for r in rows], dtype=object)}
    for k, name in enumerate(factor_names):
        columns[name] = np.array([r.factors[k][1] for r in rows], dtype=object)
    if factor_names:
        columns["case"] = np.array([" ".join([r.alternative, *(f"{a}={b}" for a, b in r.factors)])
                                    for r in rows], dtype=object)
        columns[combination_column(factor_names)] = np.array(
            [" ".join(f"{a}={b}" for a, b in r.factors) for r in rows], dtype=object)
    trial = np.array([r.trial for r in rows])
    columns["trial"] = trial.astype(str).astype(object)
    columns["round"] = np.array([rounds[t] for t in trial.tolist()]).astype(str).astype(object)
    if "machine" not in columns and any(r.machine is not None for r in rows):
        columns["machine"] = np.array([r.machine or "" for r in rows], dtype=object)
    build = np.array([r.build for r in rows])
    execution = np.array([r.execution for r in rows])
    iteration = np.array([r.iteration for r in rows])
    columns["build"] = build.astype(str).astype(object)
    columns["execution"] = execution.astype(str).astype(object)
    columns["iteration"] = iteration.astype(str).astype(object)
    columns["value"] = np.array([r.value for r in rows], dtype=np.float64)
    factors = ("alternative", *factor_names)
    default_by = "alternative"
    if factor_names:
        factors, default_by = ("case", *factors), "case"
    return Dataset(columns, "value", factors, levels_of(columns), chosen,
                   make_unit(unit_name or None), source.name, None, default_by)


def combination_column(factor_names) -> str:
    """The column naming a row's factor levels ("n=10 m=2"): `combination`, unless a factor
    has that name."""
    name = "combination"
    while name in factor_names:
        name += "_"
    return name


def levels_of(columns) -> tuple[str, ...]:
    """The level columns a store's data can estimate (see the module docstring), from the
    columns `read` makes: the cell (`case`, else `alternative`), `machine` (when present),
    `build`, `execution` and `trial` (one trial is one execution). Counted with sets of
    tuples (numpy's unique of joined strings and np.char cost more than the rest of a small
    store's summary: tens of ms of imports and sorting)."""
    from collections import Counter

    cell = _values(columns["case" if "case" in columns else "alternative"])
    if not cell:
        return ()
    build = _values(columns["build"])
    execution = _values(columns["execution"])

    def most(groups: list, units: list) -> int:
        """The largest number of distinct units in one group."""
        return max(Counter(g for g, _ in set(zip(groups, units, strict=True))).values())

    levels = []
    parent: list = cell
    if "machine" in columns:  # a factor column in the cell (role "factor") has one per cell
        machine = _values(columns["machine"])
        if most(cell, machine) >= 2:
            levels.append("machine")
            parent = list(zip(cell, machine, strict=True))
    if most(parent, build) >= 2:
        levels.append("build")
    per_trial = max(Counter(_values(columns["trial"])).values())
    if most(list(zip(parent, build, strict=True)), execution) >= 2 and per_trial >= 2:
        levels.append("execution")
    return tuple(levels)


def _values(column) -> list[str]:
    """A column's values as text, as Python objects (a set of them is hashed in C)."""
    values = column.tolist() if hasattr(column, "tolist") else list(column)
    return values if all(type(v) is str for v in values) else [str(v) for v in values]
