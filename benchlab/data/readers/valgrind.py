"""Cachegrind and callgrind out files: the run's total of each event.

Both tools write a text file (`cachegrind.out.<pid>`, `callgrind.out.<pid>`)
whose header names the events counted (`events: Ir` with `--cache-sim=no`,
`events: Ir I1mr ILmr Dr ...` with cache simulation) and whose totals are a
`summary:` line (cachegrind at the end, callgrind in the header) or a `totals:`
line (callgrind, at the end of each part): one number per event, in the order of
`events:`, trailing zeros left out. The per-function costs between them are read
by `benchlab profile-diff` (data/profiles.py), not here.

One file is one run (one execution under Valgrind); files joined with `cat` are
several, each starting at its `events:` line; a directory of out files is read
file by file as the runs of one sample (data/readers `read`). The metric is an
event (`--metric Dr`; default Ir, the instructions executed). Units: Ir as
"instructions", every other event as "events"; lower is better.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from benchlab.data.readers import _foreign
from benchlab.data.source import Source
from benchlab.errors import InputError
from benchlab.escape import token as quoted

if TYPE_CHECKING:
    from benchlab.data.dataset import Dataset
    from benchlab.units import Unit

NAME = "valgrind"
RUNS_PER_FILE = True  # a directory of these files is one sample, a file per run
_HEADER = re.compile(r"(# callgrind format|version: |creator: |desc: |cmd: |pid: |events: )")
_EVENTS = re.compile(r"^events:", re.MULTILINE)


def sniff(source: Source) -> bool:
    """A file that starts with a cachegrind/callgrind header line and has `events:` in
    its first few kilobytes."""
    head = _foreign.prefix(source)
    first = next((line for line in head.splitlines() if line.strip()), "")
    return bool(_HEADER.match(first)) and _EVENTS.search(head) is not None


@dataclass(frozen=True)
class Totals:
    """One run's totals: the events, their totals, the command and where the totals are."""

    events: tuple[str, ...]
    totals: tuple[int, ...]
    command: str
    line: int


def runs(source: Source) -> list[Totals]:
    """Each run of the file (a new one at every `events:` line), with its totals."""
    out: list[Totals] = []
    events: tuple[str, ...] | None = None
    command = ""
    total: tuple[tuple[int, ...], int] | None = None
    events_line = 0

    def close() -> None:
        if events is None:
            return
        if total is None:
            raise InputError("no summary: or totals: line for the events named here (a "
                             "file cut short?)", f"{source.name}:{events_line}")
        out.append(Totals(events, total[0], command, total[1]))

    for number, line in enumerate(source.lines, 1):
        if line.startswith("events:"):
            close()
            events = tuple(line[len("events:"):].split())
            events_line, total = number, None
            if not events:
                raise InputError("events: names no event", f"{source.name}:{number}")
        elif line.startswith("cmd:"):
            command = line[len("cmd:"):].strip()
        elif line.startswith(("summary:", "totals:")):
            if events is None:
                raise InputError(f"{line.split(':')[0]}: before any events: line",
                                 f"{source.name}:{number}")
            if total is not None and line.startswith("totals:"):
                continue  # callgrind: the header's summary covers every part's totals
            total = (_costs(line.split(":", 1)[1], events, f"{source.name}:{number}"), number)
    close()
    if not out:
        raise InputError("no events: line (not a cachegrind or callgrind out file?)",
                         source.name)
    return out


def _costs(text: str, events: tuple[str, ...], where: str) -> tuple[int, ...]:
    fields = text.split()
    if len(fields) > len(events):
        raise InputError(f"{len(fields)} totals for {len(events)} events", where)
    try:
        numbers = [int(f) for f in fields]
    except ValueError:
        bad = next(f for f in fields if not f.lstrip("-").isdigit())
        raise InputError(f"total {quoted(bad)} is not an integer", where) from None
    return tuple(numbers + [0] * (len(events) - len(numbers)))


def unit_of(event: str) -> Unit:
    """Ir counts instructions; the other events (cache misses, branches) are events."""
    from benchlab.units import make_unit

    return make_unit("instructions" if event == "Ir" else "events", False)


def read(source: Source, *, metric: str | None = None, **_: object) -> Dataset:
    """One row per run: the total of `metric` (default Ir)."""
    found = runs(source)
    event = metric or ("Ir" if "Ir" in found[0].events else found[0].events[0])
    values: list[float] = []
    for run in found:
        if event not in run.events:
            raise InputError(f"no event {quoted(event)} in this run (events: "
                             f"{', '.join(run.events)})", f"{source.name}:{run.line}")
        values.append(float(run.totals[run.events.index(event)]))
    rows = _foreign.Rows()
    rows.add(values, {"run": [str(i) for i in range(1, len(found) + 1)],
                      "command": [r.command for r in found]})
    return rows.dataset(source, factors=(), levels=(), unit=unit_of(event), metric=event,
                        default_by=None, lines=[r.line for r in found])
