"""JMH's JSON results (`java -jar benchmarks.jar -rf json -rff FILE`).

Layout (JMH's JSONResultFormat): a list of results, each {"benchmark", "mode",
"params"?: {name: value}, "primaryMetric": {"scoreUnit", "rawData": [[one
score per measurement iteration] per fork]}, "secondaryMetrics": {name: same
shape}}. Sample mode ("sample") writes "rawDataHistogram" instead: per fork,
per iteration, a list of [value, count] pairs; each pair becomes `count`
measurements. A histogram keeps no time order, so within an iteration those
measurements come in value order: order-based checks (drift, autocorrelation)
say nothing about them.

The hierarchy: a fork is a fresh JVM, and the iterations within it are the
measurements, so the level column is `fork` (labels 1, 2, ... within a
result). Sample mode adds the level `iteration` below `fork`, its samples being
the measurements. Factors: `benchmark`, `mode`, and `param_<name>` per @Param.
The samples are named by `benchmark`, or by a `case` column ("benchmark:a=1,b=2")
when the name alone does not tell them apart. Units: "ns/op", "us/op", ... are
times (unit "ns", "us", ...), lower is better; "ops/s", "ops/ms", ... are
rates, higher is better. `metric` picks a secondary metric (e.g.
"·gc.alloc.rate.norm") instead of the score; `mode` keeps the results of one
mode, and must be given when a file has several (thrpt and avgt measure
different things). JMH writes NaN scores as "NaN": refused.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from benchlab.data.readers import _foreign
from benchlab.data.source import Source
from benchlab.errors import InputError
from benchlab.escape import token as quoted

if TYPE_CHECKING:
    from benchlab.data.dataset import Dataset
    from benchlab.units import Unit

NAME = "jmh"
WHAT = "JMH JSON"
MAX_SAMPLES = 50_000_000
_START = re.compile(r"\s*\[\s*\{")
_BENCHMARK = re.compile(r'"benchmark"\s*:\s*"')
_JMH_KEYS = re.compile(r'"(mode|jmhVersion|primaryMetric|forks|warmupIterations)"\s*:')
_TIME_UNITS = {"ns": "ns", "us": "us", "ms": "ms", "s": "s", "min": "min", "hr": "h"}


def sniff(source: Source) -> bool:
    """A JSON array of objects with "benchmark" and a JMH key such as "mode"."""
    head = _foreign.prefix(source)
    return (bool(_START.match(head)) and _BENCHMARK.search(head) is not None
            and _JMH_KEYS.search(head) is not None)


def score_unit(name: str) -> Unit:
    """JMH's scoreUnit as a Unit: "us/op" → us (lower is better), "ops/s" → a rate."""
    from benchlab.units import make_unit

    top, _, bottom = name.partition("/")
    if bottom == "op" and top in _TIME_UNITS:
        return make_unit(_TIME_UNITS[top], False)
    if top == "ops" and bottom:
        return make_unit(name, True)
    if bottom == "op":  # B/op, allocs/op from profilers: less is better
        return make_unit(name, False)
    return make_unit(name)


def read(source: Source, *, metric: str | None = None, mode: str | None = None,
         **_: object) -> Dataset:
    """One row per iteration score (or per sample in sample mode); level `fork`."""
    doc = _foreign.load_json(source, "JMH")
    if not isinstance(doc, list):
        raise InputError("the document is not a JSON array of results (not a JMH file?)",
                         source.name)
    if not doc:
        raise InputError("no results in the JMH file", source.name)
    results = []
    seen_metrics: dict[str, None] = {}
    for i, result in enumerate(doc):
        path = f"[{i}]"
        bench = _foreign.get(result, "benchmark", path, source, str, WHAT)
        bench_mode = _foreign.get(result, "mode", path, source, str, WHAT)
        params = _foreign.get(result, "params", path, source, dict, WHAT, required=False) or {}
        params = {str(k): _foreign.label(v) for k, v in params.items()}
        if mode is not None and bench_mode != mode:
            continue
        if metric is None:
            data = _foreign.get(result, "primaryMetric", path, source, dict, WHAT)
            data_path = f"{path}.primaryMetric"
        else:
            secondary = _foreign.get(result, "secondaryMetrics", path, source, dict, WHAT,
                                     required=False) or {}
            if metric not in secondary:
                seen_metrics.update(dict.fromkeys(secondary))
                continue
            data = _foreign.get(secondary, metric, f"{path}.secondaryMetrics", source, dict,
                                WHAT)
            data_path = f"{path}.secondaryMetrics.{metric}"
        unit = _foreign.get(data, "scoreUnit", data_path, source, str, WHAT)
        results.append((path, bench, bench_mode, params, data, data_path, unit))
    if not results:
        wanted = " and ".join(x for x in (f"metric {quoted(metric)}" if metric else "",
                                          f"mode {quoted(mode)}" if mode else "") if x)
        known = (f" (secondary metrics: {', '.join(seen_metrics)})" if metric and seen_metrics
                 else " (the file has no secondary metrics)" if metric else "")
        raise InputError(f"no results with {wanted}{known}", source.name)
    modes = list(dict.fromkeys(r[2] for r in results))
    if len(modes) > 1:  # thrpt and avgt measure different things (even units): never pooled
        units = {}
        for _, _, bench_mode, _, _, _, unit in results:
            units.setdefault(bench_mode, unit)
        listed = ", ".join(f"{m} ({u})" for m, u in units.items())
        raise InputError(f"the file has results of several JMH modes: {listed}; choose one "
                         "with --mode", source.name)
    units = {r[6] for r in results}
    if len(units) > 1:
        raise InputError(f"the results have different score units ({', '.join(sorted(units))})"
                         "; split the file", source.name)
    histogram = any("rawDataHistogram" in r[4] and "rawData" not in r[4] for r in results)
    rows = _foreign.Rows()
    keys: dict[tuple[str, str, tuple[tuple[str, str], ...]], str] = {}
    bases, details = [], []
    param_columns: dict[str, None] = {}
    total = 0
    for path, bench, bench_mode, params, data, data_path, _ in results:
        key = (bench, bench_mode, tuple(params.items()))
        if key in keys:
            raise InputError(f"{path} repeats the results of {keys[key]} ({bench}, mode "
                             f"{bench_mode}, same parameters)", source.name)
        keys[key] = path
        labels: dict[str, Any] = {"benchmark": bench, "mode": bench_mode}
        for name, value in params.items():
            labels[f"param_{name}"] = value
            param_columns.setdefault(f"param_{name}", None)
        values, forks, iterations = _measurements(data, data_path, source)
        if len(values) == 0:
            raise InputError(f"{data_path} has no raw data (written with "
                             "-Djmh.json.rawData=false? The measurements are needed)",
                             source.name)
        total += len(values)
        if total > MAX_SAMPLES:
            raise InputError(f"more than {MAX_SAMPLES} samples: too many to read",
                             source.name)
        labels["fork"] = forks
        if histogram:
            labels["iteration"] = iterations
        rows.add(values, labels)
        detail = ",".join(f"{k}={v}" for k, v in params.items())
        bases.append(bench)
        details.append(detail)
    cases = _foreign.case_names(bases, details)
    factors: tuple[str, ...] = ("benchmark", "mode", *param_columns)
    default_by = "benchmark"
    if cases is not None:
        rows.label_chunks("case", cases)
        factors = ("case", *factors)
        default_by = "case"
    # Sample mode times single operations. JMH keeps them as a histogram per iteration,
    # sorted by value, so their time order within the iteration is lost (and a writer's
    # rawData of samples has no documented order either): the time-order diagnostics must
    # not read them as a sequence (see hierarchy_diagnostics.diagnose_hierarchy).
    return rows.dataset(source, factors=factors,
                        levels=("fork", "iteration") if histogram else ("fork",),
                        unit=score_unit(results[0][6]), metric=metric or "score",
                        default_by=default_by, ordered=modes != ["sample"])


def _measurements(data: dict, path: str, source: Source) -> tuple[Any, Any, Any]:
    """The values of one result and the fork and iteration label of each (numpy arrays)."""
    import numpy as np

    if "rawData" in data:
        raw = _foreign.get(data, "rawData", path, source, list, WHAT)
        values: list[float] = []
        forks: list[str] = []
        iterations: list[str] = []
        for f, fork in enumerate(raw):
            if not isinstance(fork, list):
                raise InputError(f"{path}.rawData[{f}] is not an array of scores", source.name)
            for k, score in enumerate(fork):
                values.append(_foreign.number(score, f"{path}.rawData[{f}][{k}]", source))
                forks.append(str(f + 1))
                iterations.append(str(k + 1))
        return (np.asarray(values, dtype=np.float64), np.asarray(forks, dtype=object),
                np.asarray(iterations, dtype=object))
    if "rawDataHistogram" not in data:
        raise InputError(f"{path}: no 'rawData' or 'rawDataHistogram' (written with "
                         "-Djmh.json.rawData=false? The measurements are needed)", source.name)
    raw = _foreign.get(data, "rawDataHistogram", path, source, list, WHAT)
    value_parts, fork_parts, iteration_parts = [], [], []
    total = 0
    for f, fork in enumerate(raw):
        if not isinstance(fork, list):
            raise InputError(f"{path}.rawDataHistogram[{f}] is not an array of iterations",
                             source.name)
        for k, iteration in enumerate(fork):
            where = f"{path}.rawDataHistogram[{f}][{k}]"
            if not isinstance(iteration, list):
                raise InputError(f"{where} is not an array of [value, count] pairs",
                                 source.name)
            bins, counts = [], []
            for b, pair in enumerate(iteration):
                if not (isinstance(pair, list) and len(pair) == 2):
                    raise InputError(f"{where}[{b}] is not a [value, count] pair", source.name)
                bins.append(_foreign.number(pair[0], f"{where}[{b}][0]", source))
                count = pair[1]
                if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                    raise InputError(f"{where}[{b}][1] is {_foreign.label(count)}, not a count",
                                     source.name)
                counts.append(count)
            n = sum(counts)
            total += n
            if total > MAX_SAMPLES:
                raise InputError(f"more than {MAX_SAMPLES} samples: too many to read",
                                 source.name)
            value_parts.append(np.repeat(np.asarray(bins, dtype=np.float64),
                                         np.asarray(counts, dtype=np.int64)))
            fork_parts.append(np.full(n, str(f + 1), dtype=object))
            iteration_parts.append(np.full(n, str(k + 1), dtype=object))
    if not value_parts:
        return np.empty(0), np.empty(0, dtype=object), np.empty(0, dtype=object)
    return (np.concatenate(value_parts), np.concatenate(fork_parts),
            np.concatenate(iteration_parts))
