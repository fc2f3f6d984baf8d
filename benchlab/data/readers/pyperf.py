"""pyperf's JSON files (`python3 bench.py -o FILE`, `python3 -m pyperf timeit -o FILE`).

Format version "1.0" (pyperf 1.0 and later): {"version": "1.0", "metadata":
{...}, "benchmarks": [{"metadata": {"name", "unit", ...}, "runs": [{"metadata",
"warmups": [[loops, value]...], "values": [...]}]}]}. Metadata is inherited:
the file's common metadata, then the benchmark's, then the run's (a file of
one benchmark keeps even "name" and "unit" at the top). gzip-compressed files
(`.json.gz`) must be decompressed first.

The hierarchy: each run is one worker process, and its values are the
measurements within it, so the level column is `run` (labels 1, 2, ... within
a benchmark). Warm-up values are not measurements and are skipped, and so are
calibration runs (runs with warm-ups but no values). Values are per loop
iteration, as pyperf stores them. The factor `benchmark` names the samples.
Units: "second" → s, "byte" → B, "integer" → no unit; lower is better.
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

NAME = "pyperf"
WHAT = "pyperf JSON"
VERSIONS = ("1.0",)
_START = re.compile(r'\s*\{\s*"benchmarks"\s*:\s*\[\s*\{\s*"(metadata|runs)"\s*:')
_UNITS = {"second": ("s", "time"), "byte": ("B", "memory"), "integer": (None, "integer")}


def sniff(source: Source) -> bool:
    """pyperf sorts its keys: {"benchmarks": [{"metadata": ... or {"benchmarks": [{"runs": ..."""
    return bool(_START.match(_foreign.prefix(source)))


def read(source: Source, *, metric: str | None = None, **_: object) -> Dataset:
    """One row per value of every run that has values; level `run`."""
    from benchlab.units import make_unit

    wanted, metric = metric, None
    doc = _foreign.load_json(source, "pyperf")
    if not isinstance(doc, dict):
        raise InputError("the document is not a JSON object (not a pyperf file?)", source.name)
    version = doc.get("version")
    if version not in VERSIONS:
        raise InputError(f"pyperf file format version {_foreign.label(version)} is not "
                         f"supported (supported: {', '.join(VERSIONS)}; pyperf 1.0 and "
                         "later write it)", source.name)
    common = _foreign.get(doc, "metadata", "", source, dict, WHAT, required=False) or {}
    benchmarks = _foreign.get(doc, "benchmarks", "", source, list, WHAT)
    if not benchmarks:
        raise InputError("no benchmarks in the pyperf file", source.name)
    rows = _foreign.Rows()
    units: dict[str, str] = {}
    for i, bench in enumerate(benchmarks):
        path = f"benchmarks[{i}]"
        own = _foreign.get(bench, "metadata", path, source, dict, WHAT, required=False) or {}
        metadata: dict[str, Any] = {**common, **own}
        runs = _foreign.get(bench, "runs", path, source, list, WHAT)
        first_run = runs[0].get("metadata", {}) if runs and isinstance(runs[0], dict) else {}
        name = metadata.get("name", first_run.get("name") if isinstance(first_run, dict)
                            else None)
        if not isinstance(name, str):
            raise InputError(f"{path} has no name in its metadata", source.name)
        unit = metadata.get("unit", "second")
        if unit not in _UNITS:
            raise InputError(f"{path} ({quoted(name)}) has unit {_foreign.label(unit)}, not one of "
                             f"pyperf's ({', '.join(_UNITS)})", source.name)
        units[name] = unit
        run_number = 0
        for j, run in enumerate(runs):
            run_path = f"{path}.runs[{j}]"
            values = _foreign.get(run, "values", run_path, source, list, WHAT, required=False)
            if not values:  # a calibration run: warm-ups only
                continue
            run_number += 1
            numbers = [_foreign.number(v, f"{run_path}.values[{k}]", source)
                       for k, v in enumerate(values)]
            rows.add(numbers, {"benchmark": name, "run": str(run_number)})
        if run_number == 0:  # refused, not dropped from the comparison without a word
            what = "no runs" if not runs else f"only calibration runs ({len(runs)}, no values)"
            raise InputError(f"{path} ({quoted(name)}) has {what}: nothing was measured (remove "
                             "the benchmark, or run it again)", source.name)
    if len(set(units.values())) > 1:
        listed = ", ".join(f"{n}: {u}" for n, u in units.items())
        raise InputError(f"the benchmarks have different units ({listed}); split the file "
                         "with `python3 -m pyperf convert --include-benchmark`", source.name)
    if len(units) != len(benchmarks):
        raise InputError("two benchmarks have the same name", source.name)
    unit_name, metric = _UNITS[next(iter(units.values()))]
    if wanted is not None and wanted != metric:  # one metric per file: its unit's
        raise InputError(f"no metric {quoted(wanted)} in the pyperf file (metrics: {metric})",
                         source.name)
    return rows.dataset(source, factors=("benchmark",), levels=("run",),
                        unit=make_unit(unit_name, False), metric=metric,
                        default_by="benchmark")
