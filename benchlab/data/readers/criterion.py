"""Criterion.rs's saved measurements (`cargo bench` → `target/criterion/`).

Layout (Criterion.rs 0.3 to 0.5): per benchmark a directory
`target/criterion/<group>/<function>[/<value>]/` holding `new/` (the last run),
`base/` (the previous one, or a baseline saved with `--save-baseline NAME` in
`NAME/`), and `report/`. Each of `new/`, `base/`, ... holds `sample.json`
({"sampling_mode"?: "Linear"|"Flat", "iters": [n...], "times": [ns...]}: sample
i ran the routine iters[i] times in times[i] nanoseconds, measured as one
batch), `estimates.json` (bootstrap estimates of the mean, median, slope, ...;
derived from the samples, not read) and `benchmark.json` ({"group_id",
"function_id", "value_str", "throughput", "full_id", "directory_name", ...}).

Each sample becomes one measurement, times[i] / iters[i] ns per iteration (the
quantity Criterion's mean estimate averages). All samples of a benchmark come
from one process, so there are no level columns. The benchmark's name is
`full_id` from `benchmark.json` beside the sample, else the directory path
below `criterion/` (or the directory above `new/`); it is the factor
`benchmark`, which names the samples.

`metric="throughput"` reads each sample as the benchmark's throughput (the
`throughput` of its `benchmark.json`, set by `group.throughput(...)`: Bytes,
BytesDecimal, Bits or Elements per iteration, divided by the time per iteration):
B/s, bits/s or elements/s, higher is better, as Criterion's "thrpt" line.

Inputs: a `sample.json` file (`.../new/sample.json`, `.../base/sample.json`,
so that two runs compare as two files), or a directory: every `new/sample.json`
below it is read, one benchmark each, giving a suite (`benchlab compare
target/criterion ...` against a copy saved earlier).
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

from benchlab.data.readers import _foreign
from benchlab.data.source import Source, display_name, open_source
from benchlab.errors import InputError
from benchlab.escape import token as quoted

if TYPE_CHECKING:
    from benchlab.data.dataset import Dataset

NAME = "criterion"
WHAT = "Criterion.rs sample.json"
MAX_BENCHMARKS = 100_000
_START = re.compile(r'\s*\{\s*"(sampling_mode|iters|times)"\s*:')


def sniff(source: Source) -> bool:
    """An object whose first key is one of sample.json's ("sampling_mode", "iters")."""
    head = _foreign.prefix(source)
    return bool(_START.match(head)) and re.search(r'"iters"\s*:', head) is not None


def is_results_dir(path: str) -> bool:
    """A directory that is (or holds) Criterion.rs results: it has a new/sample.json below."""
    return next(_samples_below(path), None) is not None


METRICS = ("time", "throughput")
THROUGHPUT_UNITS = {"Bytes": "B/s", "BytesDecimal": "B/s", "Bits": "bits/s",
                    "Elements": "elements/s"}  # Criterion's Throughput, per second


def read(source: Source, *, metric: str | None = None, **_: object) -> Dataset:
    """One row per sample of one sample.json: times[i] / iters[i] in ns (or the
    throughput per second)."""
    metric = _metric(metric, source.name)
    rows = _foreign.Rows()
    values, unit = _values(source, source.name, metric)
    rows.add(values, {"benchmark": _benchmark_name(source.name)})
    return _dataset(rows, source, metric, unit)


def read_directory(path: str, *, metric: str | None = None, **_: object) -> Dataset:
    """Every `new/sample.json` below `path`, one benchmark each, in path order."""
    metric = _metric(metric, path)
    units: dict[str, str] = {}
    rows = _foreign.Rows()
    names: dict[str, str] = {}
    for sample in _samples_below(path):
        source = open_source(sample)
        name = _benchmark_name(sample)
        if name in names:
            raise InputError(f"two results name the benchmark {quoted(name)} ({names[name]} and "
                             f"{sample})", path)
        names[name] = sample
        if len(names) > MAX_BENCHMARKS:
            raise InputError(f"more than {MAX_BENCHMARKS} benchmarks below the directory",
                             path)
        values, unit = _values(source, sample, metric)
        units.setdefault(unit, name)
        if len(units) > 1:
            (a, first), (b, second) = list(units.items())[:2]
            raise InputError(f"the benchmarks' throughputs are in different units ({a} of "
                             f"{quoted(first)}, {b} of {quoted(second)}): compare them one "
                             "directory at a time", path)
        rows.add(values, {"benchmark": name})
    if not names:
        raise InputError("is a directory, not a file (nor Criterion.rs results: no "
                         "new/sample.json below it)", path)
    return _dataset(rows, Source(display_name(path), ()), metric, next(iter(units)))


def _metric(metric: str | None, name: str) -> str:
    """The metric asked for (time by default), refusing one Criterion does not record."""
    metric = metric or "time"
    if metric not in METRICS:
        raise InputError(f"no metric {quoted(metric)} in Criterion.rs results (metrics: "
                         f"{', '.join(METRICS)})", name)
    return metric


def _values(source: Source, sample_path: str, metric: str) -> tuple[Any, str]:
    """The sample's values in the metric, and their unit: ns per iteration, or the
    benchmark's throughput per iteration divided by that time (per second)."""
    times = _per_iteration(source)
    if metric == "time":
        return times, "ns"
    kind, amount = _throughput(sample_path)
    if (times <= 0).any():
        raise InputError("a sample of 0 ns has no throughput (read its times without "
                         "--metric throughput)", source.name)
    return amount / (times * 1e-9), THROUGHPUT_UNITS[kind]


def _throughput(sample_path: str) -> tuple[str, float]:
    """(kind, amount per iteration) from the benchmark.json beside the sample."""
    info_path = os.path.join(os.path.dirname(os.path.abspath(sample_path)), "benchmark.json")
    where = display_name(os.path.join(os.path.dirname(sample_path), "benchmark.json"))
    if not os.path.isfile(info_path):
        raise InputError("no benchmark.json beside the sample: its throughput is unknown "
                         "(metrics: time)", display_name(sample_path))
    info_source = open_source(info_path)
    info = _foreign.load_json(info_source, "Criterion.rs benchmark")
    found = info.get("throughput") if isinstance(info, dict) else None
    if found is None:
        raise InputError("the benchmark records no throughput (Criterion's "
                         "group.throughput(...) sets it; metrics: time)", where)
    if not isinstance(found, dict) or len(found) != 1:
        raise InputError(f"throughput is not one of {', '.join(THROUGHPUT_UNITS)} with its "
                         "amount", where)
    kind, amount = next(iter(found.items()))
    if kind not in THROUGHPUT_UNITS:
        raise InputError(f"unknown throughput {quoted(kind)} (known: "
                         f"{', '.join(THROUGHPUT_UNITS)})", where)
    value = _foreign.number(amount, f"throughput.{kind}", info_source)
    if value <= 0:
        raise InputError(f"throughput.{kind} is {amount}: an amount per iteration must be "
                         "positive", where)
    return kind, value


def _samples_below(path: str):
    """The `new/sample.json` files below `path` (itself included), sorted, `report/` skipped."""
    for root, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if d != "report")
        if os.path.basename(root) == "new" and "sample.json" in files:
            yield os.path.join(root, "sample.json")


def _per_iteration(source: Source) -> Any:
    """times[i] / iters[i] for one sample.json, every entry checked."""
    import numpy as np

    doc = _foreign.load_json(source, "Criterion.rs sample")
    iters = _foreign.get(doc, "iters", "", source, list, WHAT)
    times = _foreign.get(doc, "times", "", source, list, WHAT)
    if not iters or not times:
        raise InputError(f"empty {'iters' if not iters else 'times'} list: no sample was "
                         "recorded (run cargo bench again)", source.name)
    if len(iters) != len(times):
        raise InputError(f"iters has {len(iters)} entries but times has {len(times)}: each "
                         "sample needs both", source.name)
    n = np.array([_foreign.number(v, f"iters[{i}]", source) for i, v in enumerate(iters)])
    t = np.array([_foreign.number(v, f"times[{i}]", source) for i, v in enumerate(times)])
    bad = np.flatnonzero(n <= 0)
    if bad.size:
        i = int(bad[0])
        raise InputError(f"iters[{i}] is {iters[i]}: a sample must run the routine at least "
                         "once", source.name)
    negative = np.flatnonzero(t < 0)
    if negative.size:
        i = int(negative[0])
        raise InputError(f"times[{i}] is {times[i]}, a negative time", source.name)
    return t / n


def _benchmark_name(sample_path: str) -> str:
    """`full_id` of the benchmark.json beside the sample, else the directory path's name."""
    here = os.path.dirname(os.path.abspath(sample_path))
    info_path = os.path.join(here, "benchmark.json")
    if os.path.isfile(info_path):
        info_source = open_source(info_path)
        info = _foreign.load_json(info_source, "Criterion.rs benchmark")
        for key in ("full_id", "title"):
            value = _foreign.get(info, key, "", info_source, str, "Criterion.rs benchmark.json",
                                 required=False)
            if value:
                return value
        group = _foreign.get(info, "group_id", "", info_source, str,
                             "Criterion.rs benchmark.json")
        function = info.get("function_id")
        value_str = info.get("value_str")
        parts = [group] + [p for p in (function, value_str) if isinstance(p, str) and p]
        return "/".join(parts)
    return display_name(_name_from_path(here))


def _name_from_path(run_dir: str) -> str:
    """The benchmark's directory (above `new/`, `base/`, ...) relative to `criterion/`."""
    bench_dir = os.path.dirname(run_dir)
    parts = bench_dir.split(os.sep)
    if "criterion" in parts:
        below = parts[len(parts) - 1 - parts[::-1].index("criterion") + 1:]
        if below:
            return "/".join(below)
    return os.path.basename(bench_dir) or bench_dir


def _dataset(rows: _foreign.Rows, source: Source, metric: str, unit: str) -> Dataset:
    from benchlab.units import make_unit

    return rows.dataset(source, factors=("benchmark",), levels=(),
                        unit=make_unit(unit, metric == "throughput"), metric=metric,
                        default_by="benchmark")
