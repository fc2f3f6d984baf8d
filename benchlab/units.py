"""Units: their scaling for display and whether higher is better.

Time-like units (lower is better) scale through ns, µs, ms, s like hyperfine;
rates (anything per second, ops, Hz) are higher-is-better. An unknown unit is
kept as it is and has no direction, so the verdict says "higher"/"lower".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

TIME_SECONDS = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,
    "μs": 1e-6,
    "ms": 1e-3,
    "s": 1.0,
    "sec": 1.0,
    "min": 60.0,
    "h": 3600.0,
}
# Units of counted things (perf, cachegrind, BMF, go test -benchmem, a store's maxrss): a
# whole value with no spread is exact and shown in full (2377153 instructions); otherwise
# scaled by SI prefixes (2.38 M instructions, 41.7 MB). Lower is better: each is work done
# or memory used.
COUNT_UNITS = ("instructions", "cycles", "events", "misses", "allocs", "allocs/op", "B",
               "B/op")
# Rates of counted things, also shown with SI prefixes (655 GB/s, 264.1 k ops/s); higher
# is better (make_unit's rate words).
SI_RATES = ("B/s", "bits/s", "ops/s", "items/s", "elements/s")
_SI = (("", 1.0), ("k", 1e3), ("M", 1e6), ("G", 1e9), ("T", 1e12), ("P", 1e15))
_TIME_LADDER = (("ns", 1e-9), ("µs", 1e-6), ("ms", 1e-3), ("s", 1.0))
_RATE_WORDS = ("/s", "/sec", "ops", "hz", "per second", "throughput", "fps")


@dataclass(frozen=True)
class Unit:
    """A measurement unit: its name and which direction is better.

    `higher_is_better` is None when neither the unit nor the user says.
    """

    name: str | None
    higher_is_better: bool | None

    @property
    def is_time(self) -> bool:
        return self.name in TIME_SECONDS

    @property
    def is_count(self) -> bool:
        """A unit of counted things (COUNT_UNITS): SI prefixes, whole values exact."""
        return self.name in COUNT_UNITS

    def _si(self, magnitude: float) -> tuple[str, float]:
        """The count unit with the SI prefix that suits this magnitude, and its factor:
        "M instructions" (a word: the prefix apart), "kB", "kB/op" and "GB/s" (bytes:
        joined)."""
        prefix, factor = _SI[0]
        for cand, f in _SI:
            if magnitude >= f:
                prefix, factor = cand, f
        name = self.name or ""
        if not prefix:
            return name, 1.0
        return (f"{prefix}{name}" if name.startswith("B") else f"{prefix} {name}"), factor

    @property
    def _speaks_time(self) -> bool:
        return self.is_time and self.higher_is_better is not True

    @property
    def better_word(self) -> str:
        """The word for a change in the good direction ("faster", "better", "lower")."""
        if self._speaks_time:
            return "faster"
        if self.higher_is_better is None:
            return ""
        return "better"

    def direction_word(self, ratio_above_one: bool) -> str:
        """Word for a candidate whose mean is above (True) or below the baseline's."""
        if self._speaks_time:
            return "slower" if ratio_above_one else "faster"
        if self.higher_is_better is None:
            return "higher" if ratio_above_one else "lower"
        good = ratio_above_one == self.higher_is_better
        return "better" if good else "worse"

    def is_regression(self, ratio_above_one: bool) -> bool:
        """True when a move in this direction is a regression (needs a known direction)."""
        hib = self.higher_is_better
        if hib is None:
            hib = False  # without a direction, a rise is treated as the bad one (times, sizes)
        return ratio_above_one != hib

    def format_seconds(self, value: float) -> float:
        """A time value of this unit in seconds (time units only)."""
        return value * TIME_SECONDS[self.name or "s"]

    def _scale(self, magnitude: float) -> tuple[str, float]:
        """The display unit for values of this magnitude and its factor from the input unit."""
        seconds = magnitude * TIME_SECONDS[self.name or "s"]
        name, factor = _TIME_LADDER[-1]
        for cand, f in _TIME_LADDER:
            if seconds < f * 1000:
                name, factor = cand, f
                break
        return name, factor / TIME_SECONDS[self.name or "s"]

    def display(self, magnitude: float, exact: bool = False) -> tuple[str | None, float]:
        """The unit to show values of this magnitude in, and what to divide them by.

        Times move along ns, µs, ms, s (86150 µs shows as ms); counts along the SI
        prefixes (2377153.5 instructions as M instructions), unless `exact` (values with
        no spread: shown in full); other units stay as they are (factor 1). One call per
        table row keeps a row in one unit.
        """
        if self.is_time and math.isfinite(magnitude):
            return self._scale(abs(magnitude))
        if ((self.is_count and not exact) or self.name in SI_RATES) \
                and math.isfinite(magnitude):
            return self._si(abs(magnitude))
        return self.name, 1.0

    def format(self, value: float | None, digits: int = 6, like: float | None = None,
               exact: bool | None = None) -> str:
        """A value with its unit; times scaled to ns/µs/ms/s by the size of `like` (or value),
        to `digits` significant digits by notation.py's rounding rule. A count is shown in
        full when whole and `exact` (its data have no spread) or not known (None); else
        scaled by SI prefixes like times."""
        from benchlab.notation import significant

        if value is None or not math.isfinite(value):
            return "n/a"
        if self.is_time:
            name, factor = self._scale(abs(like if like is not None else value))
            return f"{significant(value / factor, digits)} {name}"
        if self.is_count and exact is not False and value.is_integer() and abs(value) < 1e15:
            text = str(int(value))  # a whole count in full: 2377153 instructions
        elif self.is_count or self.name in SI_RATES:
            name, factor = self._si(abs(like if like is not None else value))
            return f"{significant(value / factor, digits)} {name}"
        else:
            text = significant(value, digits)
        return f"{text} {self.name}" if self.name else text


def make_unit(name: str | None, higher_is_better: bool | None = None) -> Unit:
    """Build a Unit; an explicit `higher_is_better` overrides what the unit implies."""
    if name is not None:
        name = name.strip() or None
    if higher_is_better is None and name is not None:
        lowered = name.lower()
        if name in TIME_SECONDS:
            higher_is_better = False
        elif any(word in lowered for word in _RATE_WORDS):
            higher_is_better = True
        elif name in COUNT_UNITS:
            higher_is_better = False  # work done, memory used
    return Unit(name, higher_is_better)
