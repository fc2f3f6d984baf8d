"""The Bencher Metric Format (BMF JSON, https://bencher.dev/docs/reference/bencher-metric-format).

Layout: {benchmark: {measure: {"value": number, "lower_value"?: number,
"upper_value"?: number}}}: one value per benchmark and measure, with optional
bounds. Bencher's built-in measures are `latency` (ns) and `throughput`
(ops/s); its adapters also write `build-time` (s), `file-size` (B) and
iai-callgrind's `instructions`, `estimated-cycles`, ...

A file is one run: its `value` is one measurement, and the bounds (a summary
of runs benchlab cannot see) are not read. Several runs are several files; a
directory of BMF files is one sample, a file per run (data/readers `read`).
Factor: `benchmark` (names the samples). The metric is a measure (default: the
first measure of the first benchmark); a benchmark without it is left out, and
a measure no benchmark has is an error listing the measures.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from benchlab.data.readers import _foreign
from benchlab.data.source import Source
from benchlab.errors import InputError
from benchlab.escape import token as quoted

if TYPE_CHECKING:
    from benchlab.data.dataset import Dataset
    from benchlab.units import Unit

NAME = "bmf"
WHAT = "BMF JSON"
RUNS_PER_FILE = True
_START = re.compile(r'\s*\{\s*"(?:[^"\\]|\\.)*"\s*:\s*\{\s*"(?:[^"\\]|\\.)*"\s*:\s*\{\s*'
                    r'"(?:value|lower_value|upper_value)"\s*:')
# Bencher's measures and the units it gives them; other measures have no known unit.
UNITS: dict[str, tuple[str, bool]] = {
    "latency": ("ns", False), "throughput": ("ops/s", True), "build-time": ("s", False),
    "file-size": ("B", False), "instructions": ("instructions", False),
    "cycles": ("cycles", False), "estimated-cycles": ("cycles", False),
}


def sniff(source: Source) -> bool:
    """An object of objects of objects whose first key is "value" (or a bound)."""
    return bool(_START.match(_foreign.prefix(source)))


def unit_of(measure: str) -> Unit:
    from benchlab.units import make_unit

    name, higher = UNITS.get(measure, (None, None))
    return make_unit(name, higher)


def read(source: Source, *, metric: str | None = None, **_: object) -> Dataset:
    """One row per benchmark that has the measure `metric` (default: the first)."""
    doc = _foreign.load_json(source, WHAT)
    if not isinstance(doc, dict) or not doc:
        raise InputError("a BMF document is a non-empty object of benchmarks", source.name)
    measures: dict[str, None] = {}
    for bench, entry in doc.items():
        if not isinstance(entry, dict) or not entry:
            raise InputError(f"benchmark {quoted(bench)} is {_foreign.show(entry)}, not an "
                             "object of measures", source.name)
        measures.update(dict.fromkeys(entry))
    measure = metric or next(iter(measures))
    if measure not in measures:
        raise InputError(f"no benchmark has the measure {quoted(measure)} (measures: "
                         f"{', '.join(measures)})", source.name)
    names: list[str] = []
    values: list[float] = []
    for bench, entry in doc.items():
        if measure not in entry:
            continue
        metric_obj = _foreign.get(entry, measure, bench, source, dict, WHAT)
        if "value" not in metric_obj:
            raise InputError(f"{bench}.{measure}: no \"value\" key (BMF requires it)",
                             source.name)
        value = metric_obj["value"]
        values.append(_foreign.number(value, f"{bench}.{measure}.value", source))
        names.append(bench)
    rows = _foreign.Rows()
    rows.add(values, {"benchmark": names})
    return rows.dataset(source, factors=("benchmark",), levels=(), unit=unit_of(measure),
                        metric=measure, default_by="benchmark")
