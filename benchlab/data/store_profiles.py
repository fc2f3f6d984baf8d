"""The per-function profile of an alternative from a store made with counter = "callgrind".

The runner keeps the Valgrind out files of each cell's first counted executions
(runner/counter.py, the store's `profiles` table). Here each kept trial's files
(one per process the command started) are parsed as `profile-diff` parses two
out files (data/profiles.py) and summed into one profile per trial; an
alternative's profile is then, for every function and event, the median over
its trials of that function's cost (0 in a trial where it did not run): the
lower median for an even number of trials, so every count is one a trial
actually had, and whole. The totals are the median of the trials' totals, so
the functions' medians need not add up to them exactly.

In a store with factors a profile is a cell's (an alternative at one combination of
levels, named as the store's `case` column names it: "base n=20000"), and two
alternatives are compared per combination, as `compare STORE` compares them.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, replace

from benchlab.data.profiles import Profile, parse
from benchlab.data.source import Source
from benchlab.errors import InputError
from benchlab.escape import token as quoted
from benchlab.notation import plural

Cell = tuple[tuple[str, str], ...]  # a trial's factor levels, in the factors' order


@dataclass(frozen=True)
class StoreProfiles:
    """The two profiles a store's profile-diff compares, and the alternatives it has."""

    old: Profile
    new: Profile
    alternatives: tuple[str, ...]


@dataclass(frozen=True)
class Kept:
    """The profiles a store keeps, by cell (alternative and factor levels)."""

    path: str
    by_cell: dict[tuple[str, Cell], list]
    alternatives: tuple[str, ...]  # with profiles: the baseline first, then the file's order
    combinations: tuple[Cell, ...]  # with profiles, in the file's order of the levels
    factors: tuple[str, ...]
    counter: str

    def label(self, alternative: str, combination: Cell) -> str:
        """A cell's name as the store's `case` column has it ("base n=20000")."""
        return cell_label(alternative, combination)

    def labels(self) -> list[str]:
        return [self.label(a, c) for c in self.combinations for a in self.alternatives
                if (a, c) in self.by_cell]


def cell_label(alternative: str, combination: Cell) -> str:
    """An alternative at factor levels, named as `case` (data/readers/store.py) names it."""
    return " ".join([alternative, *(f"{k}={v}" for k, v in combination)])


def kept(path: str) -> Kept:
    """The store's kept profiles by cell, with its alternatives, factor combinations and
    counter's tool."""
    from benchlab.runner import store_checks
    from benchlab.runner.store import Store

    store = Store.open(path)
    try:
        rows = store.profiles()
        order = store.alternatives()
        factors = tuple(store.factor_names())
        declared = store_checks.factor_levels(
            store_checks.parse_json(store.meta.get("factor_levels", "{}"), path,
                                    "benchlab_meta", "'factor_levels'", "value"),
            path, "benchlab_meta", "'factor_levels'")
        counter = _counter_tool(store.meta.get("counter"))
    finally:
        store.close()
    by_cell: dict[tuple[str, Cell], list] = {}
    for row in rows:
        by_cell.setdefault((row.alternative, _ordered(row.factors, factors)), []).append(row)
    present = {a for a, _ in by_cell}
    names = tuple(a for a in order if a in present) + tuple(
        sorted(a for a in present if a not in order))
    rank = {k: {v: i for i, v in enumerate(levels)} for k, levels in declared.items()}

    def place(combination: Cell) -> tuple:
        return tuple((rank.get(k, {}).get(v, len(rank.get(k, {}))), v) for k, v in combination)

    combinations = tuple(sorted({c for _, c in by_cell}, key=place))
    return Kept(path, by_cell, names, combinations, factors, counter)


def _ordered(levels: Cell, factors: tuple[str, ...]) -> Cell:
    """A trial's levels in the experiment's order of its factors."""
    given = dict(levels)
    return tuple((k, given[k]) for k in factors if k in given) + tuple(
        (k, v) for k, v in levels if k not in factors)


def has_profiles(path: str) -> bool:
    """Whether the store at `path` keeps any profile (a report's section shows then)."""
    return bool(kept(path).by_cell)


def against_baseline(path: str) -> list[StoreProfiles]:
    """The median profile of the baseline (the first alternative with profiles) against
    each other alternative's, per factor combination (in the file's order of the levels,
    as `compare STORE` lists them) and within it in the file's order; InputError as
    `read_pairs`'."""
    store = kept(path)
    if not store.alternatives:
        return []
    base = store.alternatives[0]
    return [_pair(store, (base, c), (a, c)) for c in store.combinations
            for a in store.alternatives[1:]
            if (base, c) in store.by_cell and (a, c) in store.by_cell]


def read_pair(path: str, old: str | None = None, new: str | None = None) -> StoreProfiles:
    """The one pair `read_pairs` gives (a store without factors, or two cells named);
    InputError when the choice gives one per factor combination."""
    pairs, per_cell = read_pairs(path, old, new)
    if per_cell:
        raise InputError("the store has factors: name two cells (--old 'ALTERNATIVE "
                         "FACTOR=LEVEL ...') to compare one pair", path)
    return pairs[0]


def read_pairs(path: str, old: str | None = None, new: str | None = None
               ) -> tuple[list[StoreProfiles], bool]:
    """The median profiles to compare, and whether they are one pair per factor combination.

    `old` and `new` name an alternative (`old` default: the baseline; `new` default: the one
    other alternative with profiles) or a cell, as the store's `case` column names it
    ("base n=20000"). Two alternatives in a store with factors give one pair per factor
    combination both have profiles at; a cell named on one side takes the other side's
    alternative to the same levels. InputError naming the store when it keeps no profiles,
    a name matches none, or the choice is ambiguous."""
    store = kept(path)
    names = store.alternatives
    if not names:
        raise InputError("the store keeps no per-function profiles (they are kept for counter "
                         f"= \"callgrind\"; this one's counter: {store.counter})", path)
    old_side = _side(store, old) if old is not None else (names[0], None)
    new_side = _side(store, new) if new is not None else None
    if new_side is None:
        others = [a for a in names if a != old_side[0]]
        if len(others) != 1:
            raise InputError(f"the store has profiles of {plural(len(names), 'alternative')} "
                             f"({', '.join(names)}): name the one to compare with --new", path)
        new_side = (others[0], None)
    old_cell, new_cell = old_side[1], new_side[1]
    if old_cell is None and new_cell is not None:
        old_cell = new_cell
    elif new_cell is None and old_cell is not None:
        new_cell = old_cell
    if old_cell is not None and new_cell is not None:
        a, b = (old_side[0], old_cell), (new_side[0], new_cell)
        for cell in (a, b):
            if cell not in store.by_cell:
                raise InputError(f"no profiles of {quoted(store.label(*cell))} in the store "
                                 f"(cells with profiles: {', '.join(store.labels())})", path)
        if a == b:
            raise InputError(f"--old and --new name the same cell {quoted(store.label(*a))}",
                             path)
        return [_pair(store, a, b)], False
    if old_side[0] == new_side[0]:
        raise InputError(f"--old and --new name the same alternative {quoted(old_side[0])}",
                         path)
    pairs = [_pair(store, (old_side[0], c), (new_side[0], c)) for c in store.combinations
             if (old_side[0], c) in store.by_cell and (new_side[0], c) in store.by_cell]
    if not pairs:
        raise InputError(f"no factor combination has profiles of both {quoted(old_side[0])} "
                         f"and {quoted(new_side[0])} (cells with profiles: "
                         f"{', '.join(store.labels())})", path)
    return pairs, bool(store.factors)


def _side(store: Kept, name: str) -> tuple[str, Cell | None]:
    """An alternative (None: at every factor combination) or a cell, by its name."""
    if name in store.alternatives:
        return name, None
    if store.factors:
        for alternative, combination in store.by_cell:
            if store.label(alternative, combination) == name:
                return alternative, combination
    shown = ", ".join(store.alternatives)
    if store.factors:
        raise InputError(f"no alternative or cell {quoted(name)} with profiles in the store "
                         f"(alternatives: {shown}; cells: {', '.join(store.labels())})",
                         store.path)
    raise InputError(f"no profiles of alternative {quoted(name)} in the store "
                     f"(alternatives with profiles: {shown})", store.path)


def _pair(store: Kept, old: tuple[str, Cell], new: tuple[str, Cell]) -> StoreProfiles:
    return StoreProfiles(_median_profile(store.path, *old, store.by_cell[old]),
                         _median_profile(store.path, *new, store.by_cell[new]),
                         store.alternatives)


def _counter_tool(meta_counter: str | None) -> str:
    import json

    if not meta_counter:
        return "none"
    try:
        value = json.loads(meta_counter)
    except ValueError:
        return meta_counter
    return str(value.get("tool", value)) if isinstance(value, dict) else str(value)


def _median_profile(path: str, alternative: str, combination: Cell, rows: list) -> Profile:
    """One cell's profiles: per trial the sum over its processes, then per function and
    event the lower median over the trials."""
    what = cell_label(alternative, combination)
    trials: dict[int, list[Profile]] = {}
    for r in rows:
        name = f"{path}: trial {r.trial} ({what}), process {r.part}"
        try:
            text = r.text()
        except ValueError as exc:
            raise InputError(str(exc), name) from None
        trials.setdefault(r.trial, []).append(parse(Source(name, tuple(text.split("\n")))))
    summed = [_sum(parts) for parts in trials.values()]
    first = summed[0]
    for p in summed[1:]:
        if p.events != first.events:
            raise InputError(f"trials of {quoted(what)} counted different events "
                             f"({' '.join(first.events)} and {' '.join(p.events)})", p.path)
    width = len(first.events)
    n = len(summed)
    exclusive = _medians([p.exclusive for p in summed], width)
    inclusive = None
    if all(p.inclusive is not None for p in summed):
        inclusive = _medians([p.inclusive for p in summed if p.inclusive is not None], width)
    totals = tuple(statistics.median_low([p.totals[i] for p in summed]) for i in range(width))
    return replace(first, path=path, totals=totals, exclusive=exclusive, inclusive=inclusive,
                   alternative=alternative, runs=n, factors=combination)


def _sum(parts: list[Profile]) -> Profile:
    """The processes of one trial as one profile: costs added function by function."""
    first = parts[0]
    if len(parts) == 1:
        return first
    for p in parts[1:]:
        if p.events != first.events:
            raise InputError("processes of one trial counted different events "
                             f"({' '.join(first.events)} and {' '.join(p.events)})", p.path)
    width = len(first.events)
    exclusive = _added([p.exclusive for p in parts], width)
    inclusive = None
    if all(p.inclusive is not None for p in parts):
        inclusive = _added([p.inclusive for p in parts if p.inclusive is not None], width)
    totals = tuple(sum(p.totals[i] for p in parts) for i in range(width))
    command = next((p.command for p in parts if p.command), "")
    return replace(first, totals=totals, exclusive=exclusive, inclusive=inclusive,
                   command=command)


def _added(tables: list[dict[str, tuple[int, ...]]], width: int) -> dict[str, tuple[int, ...]]:
    out: dict[str, list[int]] = {}
    for table in tables:
        for name, costs in table.items():
            current = out.setdefault(name, [0] * width)
            for i, c in enumerate(costs):
                current[i] += c
    return {k: tuple(v) for k, v in out.items()}


def _medians(tables: list[dict[str, tuple[int, ...]]], width: int
             ) -> dict[str, tuple[int, ...]]:
    zero = (0,) * width
    names = sorted({name for table in tables for name in table})
    return {name: tuple(statistics.median_low([t.get(name, zero)[i] for t in tables])
                        for i in range(width)) for name in names}
