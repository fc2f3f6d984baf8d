"""Which function changed: two cachegrind/callgrind profiles ranked by each function's change.

`benchlab profile-diff OLD NEW`, or `STORE` (docs/profile-diff.md; a store's profile of an
alternative is the median of its counted executions': data/store_profiles.py). Counts of a simulated
CPU are deterministic, so a change is a fact, not an estimate: no interval,
just old, new, their difference and its ratio to old. Functions are ranked by
the absolute change of the chosen event, exclusive (own cost) or, for two
callgrind profiles, inclusive (own cost and the calls out: data/profiles.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from benchlab.data.profiles import Profile
from benchlab.errors import InputError
from benchlab.result import Result

RANKINGS = ("exclusive", "inclusive")


@dataclass(frozen=True)
class FunctionChange:
    """One function's cost of the event in both profiles (inclusive None for cachegrind)."""

    function: str
    old: int
    new: int
    old_inclusive: int | None
    new_inclusive: int | None

    @property
    def change(self) -> int:
        return self.new - self.old

    @property
    def relative(self) -> float | None:
        """(new - old) / old; None for a function absent from the old profile."""
        return None if self.old == 0 else self.change / self.old

    @property
    def inclusive_change(self) -> int | None:
        if self.old_inclusive is None or self.new_inclusive is None:
            return None
        return self.new_inclusive - self.old_inclusive

    def key(self, ranking: str) -> int:
        value = self.change if ranking == "exclusive" else self.inclusive_change
        return abs(value or 0)


@dataclass(frozen=True)
class ProfileSide:
    """What the result keeps of one profile: its path, tool, command and total; for a
    store's, the alternative and how many counted executions its medians are of."""

    path: str
    tool: str
    command: str
    total: int
    functions: int
    alternative: str | None = None
    runs: int = 1
    factors: tuple[tuple[str, str], ...] = ()  # a store's cell: its factor levels


@dataclass(frozen=True)
class ProfileDiff(Result):
    """The functions whose cost of `event` changed (by `ranking`), the largest change first;
    `changed` counts them all, `functions` holds the first `top`."""

    event: str
    unit: str
    ranking: str
    old: ProfileSide
    new: ProfileSide
    functions: tuple[FunctionChange, ...]
    changed: int
    top: int | None

    @property
    def has_inclusive(self) -> bool:
        return self.old.tool == "callgrind" and self.new.tool == "callgrind"

    @property
    def total_change(self) -> int:
        return self.new.total - self.old.total

    @property
    def total_relative(self) -> float | None:
        return None if self.old.total == 0 else self.total_change / self.old.total


@dataclass(frozen=True)
class ProfileDiffs(Result):
    """A store with factors: two alternatives' profile-diffs, one per factor combination
    both have profiles at (data/store_profiles.py), in the file's order of the levels."""

    path: str
    factors: tuple[str, ...]
    diffs: tuple[ProfileDiff, ...]


def diff(old: Profile, new: Profile, *, event: str = "Ir", ranking: str = "exclusive",
         top: int | None = 10) -> ProfileDiff:
    """Rank the functions of `old` and `new` by the change of `event` (largest first; ties
    by name), keeping the first `top` (all when None)."""
    if ranking not in RANKINGS:
        raise ValueError(f"ranking must be one of {', '.join(RANKINGS)}, not {ranking!r}")
    i_old, i_new = old.event_index(event), new.event_index(event)
    inclusive = old.inclusive is not None and new.inclusive is not None
    if ranking == "inclusive" and not inclusive:
        which = old if old.inclusive is None else new
        raise InputError("inclusive costs need callgrind profiles (call costs); this is a "
                         f"{which.tool} file", which.path)
    rows = []
    for name in sorted({*old.exclusive, *new.exclusive}):
        a = old.exclusive.get(name, ())
        b = new.exclusive.get(name, ())
        ia = ib = None
        if inclusive:
            ia = _at(old.inclusive.get(name, ()), i_old)
            ib = _at(new.inclusive.get(name, ()), i_new)
        row = FunctionChange(name, _at(a, i_old), _at(b, i_new), ia, ib)
        if row.key(ranking) != 0:
            rows.append(row)
    rows.sort(key=lambda r: (-r.key(ranking), r.function))
    unit = "instructions" if event == "Ir" else "events"
    return ProfileDiff(event, unit, ranking, _side(old, i_old), _side(new, i_new),
                       tuple(rows if top is None else rows[:top]), len(rows), top)


def _at(costs: tuple[int, ...], index: int) -> int:
    return costs[index] if costs else 0


def _side(profile: Profile, index: int) -> ProfileSide:
    return ProfileSide(profile.path, profile.tool, profile.command, profile.totals[index],
                       len(profile.exclusive), profile.alternative, profile.runs,
                       profile.factors)
