"""The Bencher Metric Format as an output (`--format bmf`): the machinery every analysis's
BMF layout shares (docs/output.md#bmf).

BMF (https://bencher.dev/docs/reference/bencher-metric-format/) is
{benchmark: {measure: {"value", "lower_value", "upper_value"}}}: one value per
benchmark and measure, with optional bounds, as one run of a branch that
Bencher tracks. The measure follows the unit: times are Bencher's `latency`
in nanoseconds (converted), `ops/s` its `throughput`, counts keep their name
(`instructions`, `cycles`, `events`), any other unit is its name, and values
without a unit are `value`. Bounds that do not exist (a sample of one value)
are left out, as BMF allows, and so is a lower bound at or below zero of a quantity that
cannot be negative (metric()). The document is written bare, without benchlab's
JSON envelope, so Bencher's `json` adapter reads it as it is.
"""

from __future__ import annotations

import math
from typing import Any

from benchlab.units import SI_RATES, TIME_SECONDS, Unit

NANOSECOND = 1e-9


def measure(unit: Unit) -> tuple[str, float]:
    """The BMF measure of values in `unit`, and the factor that converts them to it."""
    if unit.is_time:
        return "latency", TIME_SECONDS[unit.name or "s"] / NANOSECOND
    if unit.name == "ops/s":
        return "throughput", 1.0
    return unit.name or "value", 1.0


def never_negative(unit: Unit) -> bool:
    """Whether values in `unit` cannot be below zero: times, counts and rates of counted
    things (units.COUNT_UNITS, units.SI_RATES)."""
    return unit.is_time or unit.is_count or unit.name in SI_RATES


def metric(value: float, low: float, high: float, factor: float = 1.0,
           positive: bool = False) -> dict[str, float]:
    """One BMF metric: the value and, when they are finite, its bounds. For a quantity
    that cannot be negative (`positive`) a lower bound at or below zero is left out: the
    symmetric t interval of a mean of a few widely spread values reaches below zero, and
    there it bounds nothing (a latency of -57 ms); the upper bound is kept."""
    out = {"value": value * factor}
    if math.isfinite(low) and math.isfinite(high):
        if not (positive and low <= 0):
            out["lower_value"] = low * factor
        out["upper_value"] = high * factor
    return out


def document(entries: list[tuple[str, float, float, float]], unit: Unit) -> dict[str, Any]:
    """{name: {measure: metric}} from (name, value, low, high) in `unit`."""
    name, factor = measure(unit)
    positive = never_negative(unit)
    doc: dict[str, Any] = {}
    for benchmark, value, low, high in entries:
        doc[benchmark] = {name: metric(value, low, high, factor, positive)}
    return doc
