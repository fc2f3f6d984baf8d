"""`perf stat` output: CSV (`perf stat -x,`) and JSON lines (`perf stat -j`, perf 6.x).

perf writes one line per event; with `-x,` the fields are, in order (perf-stat(1),
"CSV format"): counter value, unit, event name, variance (only with `-r N`, as
"3.28%"), counter run time, percentage of time counted, metric value, metric unit.
`-j` writes one JSON object per event with the keys "counter-value", "unit",
"event", "variance" (with -r), "event-runtime", "pcnt-running", "metric-value" and
"metric-unit". An event perf could not count shows `<not supported>` (no
hardware PMU, as in most virtual machines) or `<not counted>` in place of the value.

One report (the lines of one `perf stat` call) is one run. A file holds several:
`perf stat -x, -o FILE --append` writes a "# started on ..." line before each,
and `2>>FILE` appends reports without one, so a report also ends where an event
repeats. With `-r N` a report holds the mean of N runs (perf writes no single
runs), read as one value. The metric is an event name (`--metric instructions`;
default: the first event the file counts); a run whose event was not counted has
no value for it, and an event counted in no run is an error saying so. Units:
"ms" for task-clock (perf's msec), "instructions" and "cycles" for those events,
"events" for other counts; lower is better.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from benchlab.data.readers import _foreign
from benchlab.data.readers.numbers import is_number
from benchlab.data.source import Source
from benchlab.errors import InputError
from benchlab.escape import token as quoted

if TYPE_CHECKING:
    from benchlab.data.dataset import Dataset
    from benchlab.units import Unit

NAME = "perf"
MISSING = ("<not supported>", "<not counted>")
_VALUE = r"(?:<not supported>|<not counted>|-?[0-9]+(?:\.[0-9]*)?(?:e[-+]?[0-9]+)?)"
_CSV_LINE = re.compile(rf"{_VALUE},[^,]*,[A-Za-z][^,]*,(?:[0-9.]+%,)?[0-9]+,[0-9.]+(?:,.*)?")
_JSON_LINE = re.compile(r'\{\s*"counter-value"\s*:')
_UNITS = {"msec": "ms", "ns": "ns", "usec": "us", "sec": "s"}


@dataclass(frozen=True)
class Count:
    """One line of a report: the event, its value (None when perf could not count it),
    perf's unit, and the line it came from."""

    event: str
    value: float | None
    unit: str
    line: int


def _first_line(source: Source) -> str:
    for line in source.lines[:50]:
        text = line.strip()
        if text and not text.startswith("#"):
            return text
    return ""


def sniff(source: Source) -> bool:
    """The first line that is neither blank nor a `#` comment is a `perf stat -x,` line
    (value, unit, event, [variance,] run time, percentage) or a `-j` object."""
    first = _first_line(source)
    return bool(_CSV_LINE.fullmatch(first) or _JSON_LINE.match(first))


def reports(source: Source) -> list[list[Count]]:
    """The reports of the file, each a list of counts, in file order."""
    runs: list[list[Count]] = []
    current: list[Count] = []
    seen: set[str] = set()
    as_json = bool(_JSON_LINE.match(_first_line(source)))
    for number, line in enumerate(source.lines, 1):
        text = line.strip()
        if text.startswith("# started on"):
            if current:
                runs.append(current)
            current, seen = [], set()
            continue
        if not text or text.startswith("#"):
            continue
        where = f"{source.name}:{number}"
        count = _json_count(text, number, where) if as_json else _csv_count(text, number, where)
        if count.event in seen:  # the same event again: reports appended without a header
            runs.append(current)
            current, seen = [], set()
        seen.add(count.event)
        current.append(count)
    if current:
        runs.append(current)
    if not runs:
        raise InputError("no perf stat lines in the file", source.name)
    return runs


def _number(text: str, what: str, where: str) -> float | None:
    if text in MISSING:
        return None
    try:
        return float(text)
    except ValueError:
        raise InputError(f"{what} is {quoted(text)}, not a number or <not supported>/<not "
                         "counted>", where) from None


def _csv_count(text: str, number: int, where: str) -> Count:
    fields = text.split(",")
    if len(fields) < 5:
        raise InputError(f"a perf stat -x, line has {len(fields)} fields, not 5 or more "
                         "(value, unit, event, run time, percentage)", where)
    value, unit, event = fields[0], fields[1], fields[2]
    if unit and is_number(unit):
        raise InputError("the second field is a number, not a unit: interval (-I) or "
                         "per-CPU (-A, --per-core) output is not read; run perf stat "
                         "without them", where)
    if not event or is_number(event):
        raise InputError(f"the event field is {quoted(event)}: per-CPU (-A) or aggregated "
                         "(--per-*) output is not read", where)
    return Count(event, _number(value, "the counter value", where), unit, number)


def _json_count(text: str, number: int, where: str) -> Count:
    import json

    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise InputError(f"invalid perf stat -j line: {exc}", where) from None
    if not isinstance(doc, dict) or "event" not in doc or "counter-value" not in doc:
        raise InputError("a perf stat -j line without \"event\" and \"counter-value\"", where)
    event, value, unit = doc["event"], doc["counter-value"], doc.get("unit", "")
    if not isinstance(event, str) or not isinstance(unit, str):
        raise InputError("\"event\" and \"unit\" must be strings", where)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise InputError(f"\"counter-value\" is {_foreign.show(value)}, not a number", where)
    return Count(event, _number(value, "\"counter-value\"", where), unit, number)


def unit_of(event: str, perf_unit: str) -> Unit:
    """The unit of an event's counts: perf's time units as times, instructions and
    cycles by name, other counts as "events"; lower is better for all."""
    from benchlab.units import make_unit

    if perf_unit in _UNITS:
        return make_unit(_UNITS[perf_unit], False)
    base = event.split(":")[0].split("/")[0]
    if base in ("instructions", "cycles"):
        return make_unit(base, False)
    return make_unit(perf_unit or "events", False)


def read(source: Source, *, metric: str | None = None, **_: object) -> Dataset:
    """One row per report that counted `metric` (default: the first event counted)."""
    runs = reports(source)
    events: dict[str, None] = {}
    counted: dict[str, None] = {}
    for run in runs:
        for count in run:
            events.setdefault(count.event, None)
            if count.value is not None:
                counted.setdefault(count.event, None)
    if metric is None:
        if not counted:
            raise InputError(f"perf counted none of its events ({', '.join(events)}): every "
                             "value is <not supported> or <not counted>", source.name)
        metric = next(iter(counted))
    if metric not in events:
        raise InputError(f"no event {quoted(metric)} in the perf stat output (events: "
                         f"{', '.join(events)})", source.name)
    if metric not in counted:
        raise InputError(f"perf could not count {quoted(metric)} in any of the "
                         f"{len(runs)} report{'s' if len(runs) != 1 else ''} (<not supported> "
                         "or <not counted>: no hardware PMU here, or the event is not "
                         f"allowed); counted: {', '.join(counted) or 'nothing'}", source.name)
    values: list[float] = []
    lines: list[int] = []
    run_labels: list[str] = []
    perf_unit = ""
    for index, run in enumerate(runs, 1):
        for count in run:
            if count.event == metric and count.value is not None:
                values.append(count.value)
                lines.append(count.line)
                run_labels.append(str(index))
                perf_unit = count.unit
    rows = _foreign.Rows()
    rows.add(values, {"run": run_labels})
    return rows.dataset(source, factors=(), levels=(), unit=unit_of(metric, perf_unit),
                        metric=metric, default_by=None, lines=lines)
