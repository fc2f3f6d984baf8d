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
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, replace

from benchlab.data.profiles import Profile, parse
from benchlab.data.source import Source
from benchlab.errors import InputError
from benchlab.escape import token as quoted


@dataclass(frozen=True)
class StoreProfiles:
    """The two profiles a store's profile-diff compares, and the alternatives it has."""

    old: Profile
    new: Profile
    alternatives: tuple[str, ...]


def _kept(path: str) -> tuple[dict[str, list], tuple[str, ...], str | None]:
    """The store's kept profiles by alternative, the alternatives with profiles (the
    baseline first, then the file's order), and its counter's tool."""
    from benchlab.runner.store import Store

    store = Store.open(path)
    try:
        kept = store.profiles()
        order = store.alternatives()
        counter = _counter_tool(store.meta.get("counter"))
    finally:
        store.close()
    by_alternative: dict[str, list] = {}
    for row in kept:
        by_alternative.setdefault(row.alternative, []).append(row)
    names = tuple(a for a in order if a in by_alternative) + tuple(
        sorted(a for a in by_alternative if a not in order))
    return by_alternative, names, counter


def has_profiles(path: str) -> bool:
    """Whether the store at `path` keeps any profile (a report's section shows then)."""
    return bool(_kept(path)[1])


def against_baseline(path: str) -> list[StoreProfiles]:
    """The median profile of the baseline (the first alternative with profiles) against
    each other alternative's, in the file's order; InputError as `read_pair`'s."""
    by_alternative, names, _ = _kept(path)
    if not names:
        return []
    old = _median_profile(path, names[0], by_alternative[names[0]])
    return [StoreProfiles(old, _median_profile(path, n, by_alternative[n]), names)
            for n in names[1:]]


def read_pair(path: str, old: str | None = None, new: str | None = None) -> StoreProfiles:
    """The median profiles of alternatives `old` (default: the baseline) and `new` (default:
    the one other alternative with profiles) of the store at `path`; InputError naming the
    store when it keeps no profiles, an alternative has none, or the choice is ambiguous."""
    by_alternative, names, counter = _kept(path)
    if not names:
        raise InputError("the store keeps no per-function profiles (they are kept for counter "
                         f"= \"callgrind\"; this one's counter: {counter})", path)
    old = old if old is not None else names[0]
    if new is None:
        others = [a for a in names if a != old]
        if len(others) != 1:
            raise InputError(f"the store has profiles of {len(names)} alternatives "
                             f"({', '.join(names)}): name the one to compare with --new", path)
        new = others[0]
    for name in (old, new):
        if name not in by_alternative:
            raise InputError(f"no profiles of alternative {quoted(name)} in the store "
                             f"(alternatives with profiles: {', '.join(names)})", path)
    if old == new:
        raise InputError(f"--old and --new name the same alternative {quoted(old)}", path)
    return StoreProfiles(_median_profile(path, old, by_alternative[old]),
                         _median_profile(path, new, by_alternative[new]), names)


def _counter_tool(meta_counter: str | None) -> str:
    import json

    if not meta_counter:
        return "none"
    try:
        value = json.loads(meta_counter)
    except ValueError:
        return meta_counter
    return str(value.get("tool", value)) if isinstance(value, dict) else str(value)


def _median_profile(path: str, alternative: str, rows: list) -> Profile:
    """One alternative's profiles: per trial the sum over its processes, then per function
    and event the lower median over the trials."""
    cells = {r.factors for r in rows}
    if len(cells) > 1:
        shown = "; ".join(" ".join(f"{k}={v}" for k, v in c) or "(none)" for c in sorted(cells))
        raise InputError(f"alternative {quoted(alternative)} has profiles at {len(cells)} "
                         f"factor combinations ({shown}); profile-diff of a store compares "
                         "alternatives of an experiment without factors", path)
    trials: dict[int, list[Profile]] = {}
    for r in rows:
        name = f"{path}: trial {r.trial} ({alternative}), process {r.part}"
        try:
            text = r.text()
        except ValueError as exc:
            raise InputError(str(exc), name) from None
        trials.setdefault(r.trial, []).append(parse(Source(name, tuple(text.split("\n")))))
    summed = [_sum(parts) for parts in trials.values()]
    first = summed[0]
    for p in summed[1:]:
        if p.events != first.events:
            raise InputError(f"trials of {quoted(alternative)} counted different events "
                             f"({' '.join(first.events)} and {' '.join(p.events)})", p.path)
    width = len(first.events)
    n = len(summed)
    exclusive = _medians([p.exclusive for p in summed], width)
    inclusive = None
    if all(p.inclusive is not None for p in summed):
        inclusive = _medians([p.inclusive for p in summed if p.inclusive is not None], width)
    totals = tuple(statistics.median_low([p.totals[i] for p in summed]) for i in range(width))
    return replace(first, path=path, totals=totals, exclusive=exclusive, inclusive=inclusive,
                   alternative=alternative, runs=n)


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
