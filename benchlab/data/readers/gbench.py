"""Google Benchmark's JSON output (`--benchmark_format=json` or `--benchmark_out=FILE`).

Layout: {"context": {...}, "benchmarks": [{"name", "run_name", "run_type":
"iteration" | "aggregate", "repetitions", "repetition_index", "threads",
"iterations", "real_time", "cpu_time", "time_unit", counters...}]}. Only the
schema version is read from the context, so a file without it (cut off by a
script) is read too.

Only "iteration" entries are data; "aggregate" entries (mean, median, stddev,
cv, BigO, RMS) are summaries of them and are skipped, and so are entries whose
run failed (`error_occurred`, from SkipWithError), which hold no measurement.
Each repetition is one measurement (a time averaged over its iterations), so
there are no level columns. Factors: `benchmark` (the run name, which names
the samples) and `threads`. The value is `real_time` unless `metric` picks
`cpu_time` or a counter (`items_per_second`, `bytes_per_second`, or a user
counter). Times of benchmarks with different time units are converted to the
unit of the first benchmark.
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

NAME = "gbench"
WHAT = "Google Benchmark JSON"
SCHEMA_VERSIONS = (1,)
_START = re.compile(r'\s*\{\s*"context"\s*:\s*\{')
_START_NO_CONTEXT = re.compile(r'\s*\{\s*"benchmarks"\s*:\s*\[\s*\{\s*"name"\s*:')
_ENTRY_KEYS = re.compile(r'"(run_type|real_time|cpu_time|time_unit)"\s*:')
_CONTEXT_KEYS = re.compile(r'"(executable|num_cpus|mhz_per_cpu|host_name|library_build_type|'
                           r'benchmarks)"\s*:')
_TIME_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
_COUNTER_UNITS = {"bytes_per_second": ("B/s", True), "items_per_second": ("items/s", True)}


def sniff(source: Source) -> bool:
    """A JSON object that starts with Google Benchmark's "context" object, or (a file whose
    context was cut off by hand) with "benchmarks" entries holding its keys."""
    head = _foreign.prefix(source)
    if _START.match(head):
        return _CONTEXT_KEYS.search(head) is not None
    return bool(_START_NO_CONTEXT.match(head)) and _ENTRY_KEYS.search(head) is not None


def read(source: Source, *, metric: str | None = None, **_: object) -> Dataset:
    """One row per repetition of every benchmark; `metric` "real_time" (default),
    "cpu_time" or a counter name."""
    from benchlab.units import make_unit

    metric = metric or "real_time"
    doc = _foreign.load_json(source, "Google Benchmark")
    context = _foreign.get(doc, "context", "", source, dict, WHAT, required=False) or {}
    schema = context.get("json_schema_version", 1)
    if schema not in SCHEMA_VERSIONS:
        raise InputError(f"Google Benchmark JSON schema version {_foreign.label(schema)} is not "
                         f"supported (supported: {', '.join(map(str, SCHEMA_VERSIONS))})",
                         source.name)
    entries = _foreign.get(doc, "benchmarks", "", source, list, WHAT)
    is_time = metric in ("real_time", "cpu_time")
    values: list[float] = []
    names: list[str] = []
    thread_labels: list[str] = []
    target_unit: str | None = None
    seen_metrics: dict[str, None] = {}
    for i, entry in enumerate(entries):
        path = f"benchmarks[{i}]"
        name = _foreign.get(entry, "name", path, source, str, WHAT)
        run_type = _foreign.get(entry, "run_type", path, source, str, WHAT, required=False)
        if run_type == "aggregate" or (run_type is None and "aggregate_name" in entry):
            continue
        if run_type not in (None, "iteration"):
            raise InputError(f"{path} ({quoted(name)}) has run_type {quoted(run_type)}, not "
                             "\"iteration\" or \"aggregate\"", source.name)
        if entry.get("error_occurred"):
            continue
        for key, value in entry.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                seen_metrics.setdefault(key, None)
        if metric not in entry:
            if is_time:
                raise InputError(f"{path} ({quoted(name)}) has no {quoted(metric)}", source.name)
            continue  # a counter that this benchmark does not report
        value = _foreign.number(entry[metric], f"{path}.{metric}", source)
        if is_time:
            unit = _foreign.get(entry, "time_unit", path, source, str, WHAT, required=False)
            unit = unit or "ns"
            if unit not in _TIME_UNITS:
                raise InputError(f"{path}.time_unit is {quoted(unit)}, not one of "
                                 f"{', '.join(_TIME_UNITS)}", source.name)
            target_unit = target_unit or unit
            if unit != target_unit:
                value *= _TIME_UNITS[unit] / _TIME_UNITS[target_unit]
        run_name = _foreign.get(entry, "run_name", path, source, str, WHAT, required=False)
        threads = _foreign.get(entry, "threads", path, source, int, WHAT, required=False)
        values.append(value)
        names.append(run_name or name)
        thread_labels.append("1" if threads is None else str(threads))
    if not values:
        if not is_time and metric not in seen_metrics:
            known = ", ".join(k for k in seen_metrics if k not in (
                "family_index", "per_family_instance_index", "repetitions",
                "repetition_index", "threads", "iterations"))
            raise InputError(f"no benchmark reports {quoted(metric)} (known: {known})", source.name)
        raise InputError("no measurements in the file (only aggregates or failed runs)",
                         source.name)
    if is_time:
        unit = make_unit(target_unit, False)
    else:
        unit_name, higher = _COUNTER_UNITS.get(metric, (None, None))
        unit = make_unit(unit_name, higher)
    rows = _foreign.Rows()
    rows.add(values, {"benchmark": names, "threads": thread_labels})
    return rows.dataset(source, factors=("benchmark", "threads"), levels=(), unit=unit,
                        metric=metric, default_by="benchmark")
